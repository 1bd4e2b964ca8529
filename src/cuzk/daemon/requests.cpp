#include "cuzk/daemon/requests.hpp"

#include <cmath>

#include <algorithm>
#include <span>

#include "cuzk/daemon/event_log.hpp"
#include "cuzk/ff/fr.hpp"
#include "cuzk/formats/iden3_circom.hpp"
#include "cuzk/r1cs/keygen_assembly.hpp"
#include "cuzk/util/random.hpp"

namespace cuzk::daemon {

namespace fs = std::filesystem;

namespace {

// Host bytes of one partition's assignment per constraint: a, b, c and (at most) one witness value.
constexpr size_t kAssignmentBytesPerConstraint = 4 * sizeof(Fr);
// The PCE's matrices per constraint: ~6 terms and 3 row offsets (Filecoin's circuits; docs/perf.md).
constexpr size_t kPceBytesPerConstraint = 6 * sizeof(r1cs::CompactTerm) + 3 * sizeof(uint64_t);
// A zkey's bytes per byte of a partition's a, b, c, about (see plan_circom).
constexpr size_t kZkeyBytesPerAbcByte = 8;

// mulchain sizes a request may ask for: the circuit's smallest domain (2^2, room for its input constraints) up to
// 2^27, the domain of Filecoin's largest circuit (a 32 GiB PoRep partition), as `cuzk prove --log-size` allows.
constexpr unsigned kMulchainMinLogSize = 2, kMulchainMaxLogSize = 27;

// What a job of `constraints` rows needs at least: one partition's assignment (a, b, c and the witness: its
// products may be made on the CPU) and, through a PCE, the matrices, resident while in use. More partitions in
// flight (one per synthesis worker, the lookahead, the one being proven) start only while the engine's budget has
// room for them (EngineConfig::memory_budget_bytes: the resident set, measured, plus what they will take), so a
// host with room for one proves the job with less overlap instead of refusing it.
size_t least_bytes(size_t constraints, bool pce) {
    return constraints * kAssignmentBytesPerConstraint + (pce ? constraints * kPceBytesPerConstraint : 0);
}

void check_partitions_and_deadline(size_t n, const char* what, const v1::SubmitProofRequest& r, const DaemonConfig& cfg) {
    if (n > cfg.max_partitions)
        throw DaemonError(ErrorCode::InvalidArgument, std::to_string(n) + " " + what + ": at most " +
                                                          std::to_string(cfg.max_partitions) + " per job");
    if (!(r.deadline_seconds() >= 0) || !std::isfinite(r.deadline_seconds()))
        throw DaemonError(ErrorCode::InvalidArgument, "deadline_seconds must be a finite number >= 0 (0: none)");
}

size_t file_bytes(const fs::path& path) {
    std::error_code ec;
    const auto n = fs::file_size(path, ec);
    return ec ? 0 : (size_t)n;
}

// A circom job: a .zkey in the parameter directory and one .wtns per partition, each parsed now (a malformed
// witness is refused here; one of another circuit fails the job, saying so).
JobPlan plan_circom(v1::SubmitProofRequest& q, const DaemonConfig& cfg) {
    v1::CuzkJob& r = *q.mutable_job();
    JobPlan job;
    if (r.circuit() != "circom")
        throw DaemonError(ErrorCode::InvalidArgument, "zkey and witnesses are for circuit \"circom\"");
    if (!r.params().empty() || !r.pce().empty() || !r.preset().empty() || r.log_size() || !r.x().empty())
        throw DaemonError(ErrorCode::InvalidArgument,
                          "a circom job names a zkey and witnesses only (no params, pce, preset, log_size or x)");
    if (r.witnesses_size() == 0) throw DaemonError(ErrorCode::InvalidArgument, "circom: no witness");
    if (r.partitions() && r.partitions() != (uint32_t)r.witnesses_size())
        throw DaemonError(ErrorCode::InvalidArgument, "circom: " + std::to_string(r.partitions()) +
                                                          " partitions but " + std::to_string(r.witnesses_size()) +
                                                          " witnesses");
    check_partitions_and_deadline((size_t)r.witnesses_size(), "witnesses", q, cfg);
    size_t values = 0;
    for (int i = 0; i < r.witnesses_size(); i++) {
        const std::string& w = r.witnesses(i);
        try {
            job.witnesses.push_back(formats::iden3::read_wtns(
                std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(w.data()), w.size()),
                "witness " + std::to_string(i)));
        } catch (const std::exception& e) {
            throw DaemonError(ErrorCode::InvalidArgument, e.what());
        }
        values = std::max(values, job.witnesses.back().values.size());
    }
    job.params_path = inside(cfg.params_dir, r.zkey(), "params");
    job.params_bytes = file_bytes(job.params_path);
    // One partition (least_bytes): the witness, and a, b, c over the domain, estimated from the zkey's size (its H
    // section alone is a G1 point, three scalars' worth, per domain element; A, B1, B2 and C add ~5 times that for
    // a circuit with as many signals as constraints).
    job.least_bytes = values * sizeof(Fr) + job.params_bytes / kZkeyBytesPerAbcByte;
    if (q.priority() == v1::PRIORITY_UNSPECIFIED) q.set_priority(v1::NORMAL);
    r.set_partitions((uint32_t)job.witnesses.size());
    job.circom = true;
    job.spec.name = "circom";
    job.partitions = job.witnesses.size();
    return job;
}

// The request's circuit resolved: a job kind (porep-c2, window-post, ...) becomes its preset's PoRep circuit, with
// the kind's partitions and priority where the request left them out.
struct ResolvedCircuit {
    std::string circuit;
    size_t partitions = 0;
    v1::Priority priority = v1::PRIORITY_UNSPECIFIED;
};

ResolvedCircuit resolve_circuit(const v1::CuzkJob& r, v1::Priority priority) {
    ResolvedCircuit c{r.circuit(), r.partitions(), priority};
    if (const circuits::JobKind* kind = circuits::find_job_kind(c.circuit)) {
        const std::string preset = r.preset().empty() ? kind->default_preset : r.preset();
        if (!circuits::is_porep_circuit(preset))
            throw DaemonError(ErrorCode::InvalidArgument,
                              "job kind " + c.circuit + ": preset '" + preset +
                                  "' is not a PoRep circuit (porep-2k, porep-8m, porep-512m, porep-32g, porep-64g "
                                  "or an interactive registered seal proof such as StackedDrg32GiBV1_1)");
        if (!c.partitions)
            c.partitions = kind->partitions ? kind->partitions : circuits::porep_circuit_partitions(preset);
        // The kind's priority is the engine's (Low = 0 up); the protocol's starts at LOW after PRIORITY_UNSPECIFIED.
        if (c.priority == v1::PRIORITY_UNSPECIFIED) c.priority = (v1::Priority)(v1::LOW + kind->priority);
        c.circuit = preset;
    } else if (!circuits::is_circuit_name(c.circuit)) {
        std::string names;
        for (const auto& n : circuits::circuit_names()) names += (names.empty() ? "" : ", ") + n;
        for (const auto& k : circuits::job_kinds()) names += std::string(", ") + k.name;
        throw DaemonError(ErrorCode::InvalidArgument, "unknown circuit '" + c.circuit + "' (" + names + ")");
    } else if (!r.preset().empty()) {
        throw DaemonError(ErrorCode::InvalidArgument, "preset is for job kinds; circuit '" + c.circuit + "' is one");
    }
    if (!c.partitions) c.partitions = 1;
    if (c.priority == v1::PRIORITY_UNSPECIFIED) c.priority = v1::NORMAL;
    return c;
}

// The built-in circuit's spec from the request's sizes and inputs; the witness seed is fixed now (set in `r`) so
// that a resumed job proves the same witnesses.
circuits::CircuitSpec builtin_spec(const std::string& circuit, v1::CuzkJob& r) {
    circuits::CircuitSpec spec;
    spec.name = circuit;
    if (circuit == "mulchain") {
        if (r.log_size()) spec.log_size = r.log_size();  // else CircuitSpec's default
        if (spec.log_size < kMulchainMinLogSize || spec.log_size > kMulchainMaxLogSize)
            throw DaemonError(ErrorCode::InvalidArgument, "mulchain: log_size must be in [" +
                                                              std::to_string(kMulchainMinLogSize) + ", " +
                                                              std::to_string(kMulchainMaxLogSize) + "]");
    } else if (r.log_size()) {
        throw DaemonError(ErrorCode::InvalidArgument, "log_size sizes mulchain only");
    }
    if (!r.x().empty()) {
        if (circuit != "cubic") throw DaemonError(ErrorCode::InvalidArgument, "x is for the cubic circuit");
        if (!Fr::from_decimal(r.x()))
            throw DaemonError(ErrorCode::InvalidArgument, "x must be a decimal number below r");
        spec.x = r.x();
    }
    if (r.witness_seed() == 0) r.set_witness_seed(OsRng()() | 1);  // | 1: never 0, which reads as "not set"
    spec.witness_seed = r.witness_seed();
    return spec;
}

// A Filecoin kind: its engine job, its parameter file (Filecoin's name in the parameter directory) and what its
// partitions in flight hold.
JobPlan plan_filecoin(v1::SubmitProofRequest& r, const DaemonConfig& cfg) {
    if (r.has_job()) throw DaemonError(ErrorCode::InvalidArgument, "job is for proof_kind CUZK_JOB");
    check_partitions_and_deadline(0, "partitions", r, cfg);
    JobPlan job;
    job.filecoin = filecoin_job(r);
    job.partitions = job.filecoin->partitions;
    job.spec.name = job.filecoin->proof_name;
    job.params_path = filecoin_params_path(*job.filecoin, cfg.params_dir);
    job.params_bytes = file_bytes(job.params_path);
    job.least_bytes = least_bytes((size_t)job.filecoin->shape.h + 1, cfg.pce == "auto");
    if (r.priority() == v1::PRIORITY_UNSPECIFIED) r.set_priority(default_priority(r.proof_kind()));
    return job;
}

// cuzk's own job: a built-in circuit, or a circom job.
JobPlan plan_cuzk_job(v1::SubmitProofRequest& q, const DaemonConfig& cfg) {
    if (!q.has_job()) throw DaemonError(ErrorCode::InvalidArgument, "proof_kind CUZK_JOB: no job");
    v1::CuzkJob& r = *q.mutable_job();
    if (r.circuit() == "circom" || !r.zkey().empty() || r.witnesses_size()) return plan_circom(q, cfg);
    const ResolvedCircuit c = resolve_circuit(r, q.priority());
    check_partitions_and_deadline(c.partitions, "partitions", q, cfg);
    JobPlan job;
    job.spec = builtin_spec(c.circuit, r);
    job.partitions = c.partitions;
    job.params_path = inside(cfg.params_dir, r.params(), "params");
    if (!r.pce().empty()) job.pce_path = inside(cfg.circuits_dir, r.pce(), "circuits");
    job.params_bytes = file_bytes(job.params_path);
    job.least_bytes = least_bytes(circuits::circuit_constraints(job.spec), !job.pce_path.empty() || cfg.pce == "auto");
    r.set_circuit(c.circuit);
    r.set_partitions((uint32_t)c.partitions);
    q.set_priority(c.priority);
    return job;
}

}  // namespace

JobPlan plan_request(v1::SubmitProofRequest& r, const DaemonConfig& cfg) {
    if (!v1::Priority_IsValid(r.priority()))
        throw DaemonError(ErrorCode::InvalidArgument, "priority " + std::to_string((int)r.priority()) + " is unknown");
    switch (r.proof_kind()) {
        case v1::POREP_SEAL_COMMIT:
        case v1::WINDOW_POST_PARTITION:
        case v1::WINNING_POST:
        case v1::SNAP_DEALS_UPDATE: return plan_filecoin(r, cfg);
        case v1::CUZK_JOB: return plan_cuzk_job(r, cfg);
        default:
            throw DaemonError(ErrorCode::InvalidArgument,
                              "proof_kind " + std::to_string((int)r.proof_kind()) +
                                  " is unknown (POREP_SEAL_COMMIT 1, SNAP_DEALS_UPDATE 2, WINDOW_POST_PARTITION 3, "
                                  "WINNING_POST 4, CUZK_JOB 100)");
    }
}

void check_memory_budget(const JobPlan& plan, size_t budget_bytes) {
    const size_t need = plan.params_bytes + plan.least_bytes;
    if (need > budget_bytes)
        throw DaemonError(ErrorCode::ResourceExhausted,
                          "the job needs at least " + std::to_string(mib(need)) + " MiB (parameters " +
                              std::to_string(mib(plan.params_bytes)) + " MiB, one partition and its matrices " +
                              std::to_string(mib(plan.least_bytes)) + " MiB); the memory budget is " +
                              std::to_string(mib(budget_bytes)) + " MiB");
}

fs::path inside(const fs::path& dir, const std::string& name, const char* what) {
    if (name.empty()) throw DaemonError(ErrorCode::InvalidArgument, std::string(what) + ": no file named");
    const fs::path p(name);
    if (p.is_absolute())
        throw DaemonError(ErrorCode::PermissionDenied,
                          std::string(what) + " '" + name + "': absolute paths are refused; name a file inside the " +
                              what + " directory");
    for (const auto& part : p)
        if (part == "..")
            throw DaemonError(ErrorCode::PermissionDenied, std::string(what) + " '" + name + "': '..' is refused");
    std::error_code ec;
    const fs::path root = fs::canonical(dir, ec);
    if (ec) throw DaemonError(ErrorCode::FailedPrecondition, std::string(what) + " directory " + dir.string() +
                                                                 " is missing: " + ec.message());
    const fs::path full = fs::weakly_canonical(root / p, ec);
    if (ec) throw DaemonError(ErrorCode::NotFound, std::string(what) + " '" + name + "': " + ec.message());
    auto [r, f] = std::mismatch(root.begin(), root.end(), full.begin(), full.end());
    if (r != root.end())
        throw DaemonError(ErrorCode::PermissionDenied,
                          std::string(what) + " '" + name + "' resolves outside the " + what + " directory");
    if (!fs::is_regular_file(full, ec))
        throw DaemonError(ErrorCode::NotFound, std::string(what) + " '" + name + "' not found in " + root.string());
    return full;
}

}  // namespace cuzk::daemon
