#include "cuzk/daemon/filecoin_jobs.hpp"

#include <map>
#include <mutex>
#include <span>

#include "cuzk/daemon/daemon.hpp"
#include "cuzk/filecoin/c1.hpp"
#include "cuzk/filecoin/porep.hpp"
#include "cuzk/filecoin/porep_circuit.hpp"
#include "cuzk/filecoin/post_circuit.hpp"
#include "cuzk/filecoin/post_vanilla.hpp"
#include "cuzk/filecoin/snap_circuit.hpp"
#include "cuzk/filecoin/snap_vanilla.hpp"
#include "cuzk/r1cs/circuit.hpp"

namespace cuzk::daemon {

namespace fs = std::filesystem;
using filecoin::FilecoinError;
using filecoin::FilecoinErrorKind;

namespace {

constexpr size_t kCommitmentBytes = 32;

[[noreturn]] void bad(const std::string& what) { throw DaemonError(ErrorCode::InvalidArgument, what); }

std::span<const uint8_t> bytes_of(const std::string& s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// A raw 32-byte field of the request.
filecoin::Bytes32 bytes32_field(const std::string& value, const char* field, const std::string& kind) {
    if (value.size() != kCommitmentBytes)
        bad(kind + ": " + field + " must be 32 raw bytes, got " + std::to_string(value.size()));
    filecoin::Bytes32 out{};
    std::copy(value.begin(), value.end(), out.begin());
    return out;
}

// "2k", "8m", "512m", "32g", "64g": the size as circuit ids write it.
std::string size_suffix(uint64_t sector_size) {
    std::string name = filecoin::sector_size_name(sector_size);  // "32GiB"
    std::string out;
    for (char c : name) {
        if (c >= '0' && c <= '9') out += c;
        else {
            out += (char)std::tolower((unsigned char)c);
            break;
        }
    }
    return out;
}

// The parameter shapes, computed once per circuit (a 32 GiB PoRep's takes seconds of counting synthesis).
filecoin::ParameterShape cached_shape(const std::string& key, const std::function<filecoin::ParameterShape()>& make) {
    static std::mutex mu;
    static std::map<std::string, filecoin::ParameterShape> shapes;
    {
        std::lock_guard<std::mutex> lk(mu);
        if (auto it = shapes.find(key); it != shapes.end()) return it->second;
    }
    filecoin::ParameterShape s = make();
    std::lock_guard<std::mutex> lk(mu);
    return shapes.emplace(key, std::move(s)).first->second;
}

void check_sector_size(const v1::SubmitProofRequest& r, uint64_t size, const std::string& proof_name) {
    if (r.sector_size() != 0 && r.sector_size() != size)
        bad("sector_size " + std::to_string(r.sector_size()) + " does not match registered_proof " +
            std::to_string(r.registered_proof()) + " (" + proof_name + ", " + std::to_string(size) + " bytes)");
}

// ---- PoRep C2 ---------------------------------------------------------------------------------------------------

void plan_porep(const v1::SubmitProofRequest& r, FilecoinJob& job) {
    const auto proof = filecoin::seal_proof_from_id(r.registered_proof());
    job.proof_name = filecoin::proof_name(proof);
    check_sector_size(r, filecoin::sector_size(proof), job.proof_name);
    if (r.vanilla_proof().empty()) bad("porep-c2: vanilla_proof (the C1 output) is empty");
    const std::string_view text(r.vanilla_proof());
    filecoin::C1Output c1;
    // An envelope has a "Phase1Out" field; a C1 output never has that name (and base64 has no quote in it).
    if (text.find("\"Phase1Out\"") != std::string_view::npos) {
        const filecoin::CurioC1 e = filecoin::parse_curio_c1(text);
        if (r.sector_number() && e.sector_num != r.sector_number())
            bad("porep-c2: the C1 envelope is for sector " + std::to_string(e.sector_num) + ", the request for " +
                std::to_string(r.sector_number()));
        c1 = e.c1;
    } else {
        c1 = filecoin::parse_c1_json(text);
    }
    if (c1.registered_proof != proof)
        bad("porep-c2: the C1 output is for " + std::string(filecoin::proof_name(c1.registered_proof)) +
            ", the request's registered_proof " + std::to_string(r.registered_proof()) + " is " + job.proof_name);
    const filecoin::PorepConfig config = filecoin::PorepConfig::from_registered(proof);
    const filecoin::Bytes32 replica = filecoin::replica_id(filecoin::prover_id_of_actor(r.miner_id()),
                                                            r.sector_number(), c1.ticket, c1.comm_d, config.porep_id);
    if (replica != c1.replica_id)
        bad("porep-c2: the C1 output is not of sector " + std::to_string(r.sector_number()) + " of miner f0" +
            std::to_string(r.miner_id()) + " (its replica_id is not the one their prover id, the sector number, the "
            "C1's ticket and comm_d give)");
    job.data = engine::porep_c2_job(c1);
    const auto& data = std::get<engine::PorepC2Job>(job.data);
    job.partitions = data.partitions.size();
    job.files = filecoin::parameter_files(data.config);
    job.shape = cached_shape(job.files.params, [&] { return filecoin::porep_parameter_shape(data.config); });
}

// ---- PoSt -------------------------------------------------------------------------------------------------------

std::vector<filecoin::FallbackPostSectorProof> post_vanilla(const v1::SubmitProofRequest& r, const std::string& kind) {
    if (r.vanilla_proofs_size() == 0) bad(kind + ": no vanilla proof (vanilla_proofs: one per sector)");
    std::vector<filecoin::FallbackPostSectorProof> v;
    for (int i = 0; i < r.vanilla_proofs_size(); i++)
        v.push_back(filecoin::read_post_vanilla_proof(bytes_of(r.vanilla_proofs(i)), "vanilla_proofs[" +
                                                                                          std::to_string(i) + "]"));
    return v;
}

void plan_post(const v1::SubmitProofRequest& r, FilecoinJob& job, filecoin::PoStType type) {
    const std::string kind = proof_kind_label(r.proof_kind());
    const auto proof = filecoin::post_proof_from_id(r.registered_proof());
    job.proof_name = filecoin::proof_name(proof);
    if (filecoin::post_type(proof) != type)
        bad(kind + ": registered_proof " + std::to_string(r.registered_proof()) + " is " + job.proof_name + ", a " +
            (type == filecoin::PoStType::Window ? "Winning" : "Window") + " PoSt proof");
    check_sector_size(r, filecoin::sector_size(proof), job.proof_name);
    const filecoin::Domain randomness = bytes32_field(r.randomness(), "randomness", kind);
    const auto vanilla = post_vanilla(r, kind);
    if (type == filecoin::PoStType::Window) {
        job.data = engine::post_job(proof, randomness, vanilla, r.partition_index());
    } else {
        if (r.partition_index() != 0) bad(kind + ": partition_index is for Window PoSt (Winning has one partition)");
        job.data = engine::post_job(proof, randomness, vanilla);
    }
    job.partitions = std::get<engine::PostJob>(job.data).partitions.size();
    job.files = filecoin::parameter_files(proof);
    job.shape = cached_shape(job.files.params, [&] { return filecoin::post_parameter_shape(proof); });
}

// ---- SnapDeals --------------------------------------------------------------------------------------------------

void plan_snap(const v1::SubmitProofRequest& r, FilecoinJob& job) {
    const std::string kind = proof_kind_label(r.proof_kind());
    const auto proof = filecoin::update_proof_from_id(r.registered_proof());
    job.proof_name = filecoin::proof_name(proof);
    check_sector_size(r, filecoin::sector_size(proof), job.proof_name);
    const auto variant = filecoin::UpdateCircuit::Sha256;
    const Fr comm_r_old = filecoin::fr_from_bytes32(bytes32_field(r.comm_r_old(), "comm_r_old", kind), "comm_r_old");
    const Fr comm_r_new = filecoin::fr_from_bytes32(bytes32_field(r.comm_r_new(), "comm_r_new", kind), "comm_r_new");
    const Fr comm_d_new = filecoin::fr_from_bytes32(bytes32_field(r.comm_d_new(), "comm_d_new", kind), "comm_d_new");
    if (r.vanilla_proofs_size() == 0) bad(kind + ": no vanilla proof (vanilla_proofs: one per partition)");
    std::vector<filecoin::SnapPartitionProof> vanilla;
    for (int i = 0; i < r.vanilla_proofs_size(); i++)
        vanilla.push_back(filecoin::read_snap_vanilla_proof(bytes_of(r.vanilla_proofs(i)),
                                                            "vanilla_proofs[" + std::to_string(i) + "]", variant));
    job.data = engine::snap_job(proof, variant, vanilla, comm_r_old, comm_d_new, comm_r_new);
    job.partitions = std::get<engine::SnapJob>(job.data).partitions.size();
    job.files = filecoin::parameter_files(proof, variant);
    job.shape = cached_shape(job.files.params, [&] { return filecoin::snap_parameter_shape(proof, variant); });
}

// The sizes and kinds circuit ids name: "<kind>-<size>", kind porep (the interactive V1_1 proof), wpost (Window
// V1_2), winning, snap (the SHA-256 update circuit).
std::vector<CircuitParams> all_circuits() {
    std::vector<CircuitParams> v;
    for (const auto& s : filecoin::supported_sector_shapes()) {
        const std::string size = size_suffix(s.sector_size);
        for (uint64_t id = 0; id < 20; id++) {
            try {
                const auto p = filecoin::seal_proof_from_id(id);
                if (filecoin::sector_size(p) == s.sector_size && filecoin::api_version(p) == filecoin::ApiVersion::V1_1_0 &&
                    !filecoin::api_feature(p))
                    v.push_back({"porep-" + size, std::string(filecoin::proof_name(p)), filecoin::parameter_files(p),
                                 v1::POREP_SEAL_COMMIT, id});
            } catch (const FilecoinError&) {
            }
            try {
                const auto p = filecoin::post_proof_from_id(id);
                if (filecoin::sector_size(p) != s.sector_size) continue;
                if (filecoin::post_type(p) == filecoin::PoStType::Winning)
                    v.push_back({"winning-" + size, std::string(filecoin::proof_name(p)), filecoin::parameter_files(p),
                                 v1::WINNING_POST, id});
                else if (filecoin::api_version(p) == filecoin::ApiVersion::V1_2_0)
                    v.push_back({"wpost-" + size, std::string(filecoin::proof_name(p)), filecoin::parameter_files(p),
                                 v1::WINDOW_POST_PARTITION, id});
            } catch (const FilecoinError&) {
            }
            try {
                const auto p = filecoin::update_proof_from_id(id);
                if (filecoin::sector_size(p) == s.sector_size)
                    v.push_back({"snap-" + size, std::string(filecoin::proof_name(p)), filecoin::parameter_files(p),
                                 v1::SNAP_DEALS_UPDATE, id});
            } catch (const FilecoinError&) {
            }
        }
    }
    return v;
}

const std::vector<CircuitParams>& circuits() {
    static const std::vector<CircuitParams> all = all_circuits();
    return all;
}

}  // namespace

std::string proof_kind_label(v1::ProofKind kind) {
    switch (kind) {
        case v1::POREP_SEAL_COMMIT: return "porep-c2";
        case v1::SNAP_DEALS_UPDATE: return "snap-update";
        case v1::WINDOW_POST_PARTITION: return "window-post";
        case v1::WINNING_POST: return "winning-post";
        case v1::CUZK_JOB: return "cuzk-job";
        default: return "unknown";
    }
}

v1::Priority default_priority(v1::ProofKind kind) {
    if (kind == v1::WINNING_POST) return v1::CRITICAL;
    if (kind == v1::WINDOW_POST_PARTITION) return v1::HIGH;
    return v1::NORMAL;
}

std::shared_ptr<const FilecoinJob> filecoin_job(const v1::SubmitProofRequest& r) {
    auto job = std::make_shared<FilecoinJob>();
    job->kind = r.proof_kind();
    job->registered_proof = r.registered_proof();
    try {
        switch (r.proof_kind()) {
            case v1::POREP_SEAL_COMMIT: plan_porep(r, *job); break;
            case v1::WINDOW_POST_PARTITION: plan_post(r, *job, filecoin::PoStType::Window); break;
            case v1::WINNING_POST: plan_post(r, *job, filecoin::PoStType::Winning); break;
            case v1::SNAP_DEALS_UPDATE: plan_snap(r, *job); break;
            default: bad("proof_kind " + std::to_string((int)r.proof_kind()) + " is not a Filecoin proof kind");
        }
    } catch (const DaemonError&) {
        throw;
    } catch (const FilecoinError& e) {
        if (e.kind() == FilecoinErrorKind::UnknownProofType)
            bad(proof_kind_label(r.proof_kind()) + ": registered_proof " + std::to_string(r.registered_proof()) +
                " is not a registered proof of this kind (" + e.what() + ")");
        bad(proof_kind_label(r.proof_kind()) + ": " + e.what());
    } catch (const std::exception& e) {
        bad(proof_kind_label(r.proof_kind()) + ": " + e.what());
    }
    for (const CircuitParams& c : circuits())
        if (c.files.params == job->files.params) job->circuit_id = c.circuit_id;
    if (job->circuit_id.empty()) job->circuit_id = job->files.cache_id;
    return job;
}

fs::path filecoin_params_path(const FilecoinJob& job, const fs::path& dir) {
    try {
        return filecoin::fit_parameter_file(dir, job.files, job.shape, job.proof_name);
    } catch (const FilecoinError& e) {
        if (e.kind() != FilecoinErrorKind::MissingParameters)
            throw DaemonError(ErrorCode::FailedPrecondition, proof_kind_label(job.kind) + ": " + e.what());
        // The CLI's advice (--params-dir) does not apply here.
        throw DaemonError(ErrorCode::FailedPrecondition,
                          proof_kind_label(job.kind) + ": no parameter file " + job.files.params + " in " +
                              dir.string() + " (the daemon's [paths] params) for " + job.proof_name +
                              ": fetch Filecoin's parameters there (curio fetch-params or lotus fetch-params)");
    } catch (const std::exception& e) {
        throw DaemonError(ErrorCode::FailedPrecondition, proof_kind_label(job.kind) + ": " + e.what());
    }
}

r1cs::PrecompiledR1cs FilecoinJob::compile_matrices() const {
    return compile_circuit(CircuitParams{circuit_id, proof_name, files, kind, registered_proof});
}

r1cs::PrecompiledR1cs compile_circuit(const CircuitParams& c) {
    switch (c.kind) {
        case v1::POREP_SEAL_COMMIT: {
            const auto config = filecoin::PorepConfig::from_registered(filecoin::seal_proof_from_id(c.registered_proof));
            return r1cs::compile_r1cs(filecoin::StackedPorepCircuit(
                filecoin::blank_stacked_porep_partition(filecoin::StackedPorepShape::of(config))));
        }
        case v1::WINNING_POST:
        case v1::WINDOW_POST_PARTITION:
            return r1cs::compile_r1cs(filecoin::FallbackPostCircuit::blank(
                filecoin::PostCircuitConfig::from_registered(filecoin::post_proof_from_id(c.registered_proof))));
        default: {
            const auto p = filecoin::update_proof_from_id(c.registered_proof);
            return r1cs::compile_r1cs(filecoin::EmptySectorUpdateCircuit::blank(
                filecoin::SnapShape::from_sector_size(filecoin::sector_size(p)), filecoin::UpdateCircuit::Sha256));
        }
    }
}

engine::JobSpec FilecoinJob::spec(const r1cs::PrecompiledR1cs* pce) const {
    if (const auto* p = std::get_if<engine::PorepC2Job>(&data)) return engine::porep_c2_spec(*p, pce);
    if (const auto* p = std::get_if<engine::PostJob>(&data)) return engine::post_spec(*p, pce);
    return engine::snap_spec(std::get<engine::SnapJob>(data), pce);
}

std::vector<uint8_t> FilecoinJob::proof(const engine::JobResult& result, const groth16::VerifyingKey& vk) const {
    if (const auto* p = std::get_if<engine::PorepC2Job>(&data)) return engine::porep_c2_proof(*p, result, vk);
    if (const auto* p = std::get_if<engine::PostJob>(&data)) return engine::post_proof(*p, result, vk);
    return engine::snap_proof(std::get<engine::SnapJob>(data), result, vk);
}

std::optional<CircuitParams> circuit_params(const std::string& circuit_id) {
    for (const CircuitParams& c : circuits())
        if (c.circuit_id == circuit_id) return c;
    return std::nullopt;
}

std::string circuit_id_of_file(const std::string& file_name) {
    for (const CircuitParams& c : circuits())
        if (c.files.params == file_name) return c.circuit_id;
    return "";
}

std::vector<std::string> circuit_ids() {
    std::vector<std::string> ids;
    for (const CircuitParams& c : circuits()) ids.push_back(c.circuit_id);
    return ids;
}

}  // namespace cuzk::daemon
