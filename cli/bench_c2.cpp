// `cuzk bench porep-c2`: Filecoin's PoRep C2 (the real StackedDrg circuit, every partition of one C1) through the
// engine, with the job's figures: wall, per-partition synthesis and proving, the prover's stages, GPU busy share,
// peak RSS; partitions from the pre-compiled matrices (PCE) unless --full-synthesis. `cuzk bench params-load`: a
// parameter file loaded unchecked, checked on the CPU and checked on the GPU. The C1 is a file or generated
// (filecoin c1-gen: any sector size without sealing); the parameters are Filecoin's files or, for sizes without a
// setup (32 GiB), random points of the circuit's exact shape (then the proofs cannot be verified; the runs of one
// bench share r, s instead, and a run whose proofs differ from the first run's fails it). Also what the
// Filecoin benches share (bench_post.cpp, bench_snap.cpp): the engine run and its report, random parameters.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "cuzk/circuits/catalog.hpp"
#include "cuzk/engine/engine.hpp"
#include "cuzk/engine/porep_c2.hpp"
#include "cuzk/filecoin/c1.hpp"
#include "cuzk/filecoin/c1_gen.hpp"
#include "cuzk/filecoin/params.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/formats/proof_io.hpp"
#include "cuzk/util/thread_pool.hpp"
#include "cuzk/groth16/setup.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "cuzk/util/input_file.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::cli {

namespace {

// --proof-type: a proof name or the catalog's alias (porep-32g).
filecoin::RegisteredSealProof bench_proof(const BenchOptions& opt) {
    if (const auto p = circuits::porep_circuit_proof(opt.proof_type)) return *p;
    return filecoin::seal_proof_from_name(opt.proof_type);
}

filecoin::C1Output bench_c1(const BenchOptions& opt) {
    if (opt.c1_path.empty()) return filecoin::generate_c1_sector(bench_proof(opt), opt.c1_seed).c1;
    return filecoin::parse_c1_or_envelope(read_input_file(opt.c1_path, kMaxC1InputBytes, "--c1"));
}

// The query sizes of the partition circuit from its compiled matrices (no witness).
groth16::QueryShape porep_query_shape(const filecoin::PorepConfig& config) {
    return groth16::query_shape(r1cs::compile_r1cs(filecoin::StackedPorepCircuit(
        filecoin::blank_stacked_porep_partition(filecoin::StackedPorepShape::of(config)))));
}

// Submit to proof of one job, in seconds; throws unless it ends Done.
double time_job(engine::Engine& eng, engine::JobSpec spec) {
    const auto t0 = std::chrono::steady_clock::now();
    const engine::JobResult res = eng.await(eng.submit(std::move(spec)));
    if (res.state != engine::JobState::Done)
        throw std::runtime_error("the critical Winning PoSt ended " + std::string(engine::job_state_name(res.state)) +
                                 (res.error.empty() ? "" : ": " + res.error));
    return seconds_since(t0);
}

// bench porep-c2 --critical-after K: a Winning PoSt of the C2's sector size, timed alone (a fresh engine, its
// backend warm: the second of two runs) and then submitted as CRITICAL once K partitions of the C2 are proven.
struct CriticalProbe {
    std::unique_ptr<WinningProbe> winning;

    // The job on `eng`, its parameters one of the engine's keys (made the first time: uploaded to the GPUs).
    engine::JobSpec spec(engine::Engine& eng) const {
        engine::JobSpec s = engine::post_spec(winning->job, &winning->pce);
        s.name = "critical winning post";
        s.priority = engine::Priority::Critical;
        s.key = cli_key(eng, s.name, winning->params);
        return s;
    }
    void beside(engine::Engine& eng, engine::JobId main, size_t after, nlohmann::json& j) const {
        spec(eng);  // its key made while the C2's first partitions are synthesized, not inside the latency
        auto running = [&] {
            const auto st = eng.state(main);
            return st == engine::JobState::Queued || st == engine::JobState::Running;
        };
        while (running() && eng.proven(main) < after) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        if (!running()) return;  // nothing to preempt
        j["critical_submitted_after_partitions"] = eng.proven(main);
        engine::JobSpec critical = spec(eng);
        j["critical_latency_s"] = time_job(eng, std::move(critical));
        j["critical_c2_partitions_proven_by_then"] = eng.proven(main);
    }
};

// bench porep-c2 --queued N: N - 1 more jobs of the same spec submitted right after the main one, on its key; the
// seconds at which each of the N ends (from the main job's submission), and the steady state: the interval between
// the first and the last ends over N - 1 proofs.
void queue_more(engine::Engine& eng, engine::JobId main, size_t more, const std::function<engine::JobSpec()>& make,
                nlohmann::json& j) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto keys = eng.keys().loaded();
    if (keys.size() != 1) throw std::logic_error("bench porep-c2 --queued: the engine should hold the job's key alone");
    std::vector<engine::JobId> ids;
    for (size_t k = 0; k < more; k++) {
        engine::JobSpec s = make();
        s.key = keys.front();
        ids.push_back(eng.submit(std::move(s)));
    }
    std::vector<double> ends;
    (void)eng.await(main);
    ends.push_back(seconds_since(t0));
    for (engine::JobId id : ids) {
        const engine::JobResult r = eng.await(id);
        if (r.state != engine::JobState::Done)
            throw std::runtime_error("bench porep-c2 --queued: a queued job ended " +
                                     std::string(engine::job_state_name(r.state)) + ": " + r.error);
        ends.push_back(seconds_since(t0));
    }
    j["queued"] = more + 1;
    j["queued_end_s"] = ends;
    j["queued_per_proof_s"] = (ends.back() - ends.front()) / (double)more;
    j["queued_all_s"] = ends.back();
    bench_progress("porep-c2", "%zu jobs queued: ends at %s s; %.2f s per proof after the first",
                   more + 1, nlohmann::json(ends).dump().c_str(), j["queued_per_proof_s"].get<double>());
}

CriticalProbe critical_probe(const BenchOptions& opt, filecoin::RegisteredSealProof seal, nlohmann::json& j) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto proof = filecoin::post_proof_from_name(
        "StackedDrgWinning" + filecoin::sector_size_name(filecoin::sector_size(seal)) + "V1");
    CriticalProbe p;
    p.winning = winning_probe(opt, proof);
    j["critical_proof_type"] = std::string(filecoin::proof_name(proof));
    engine::EngineConfig alone_cfg;
    alone_cfg.keys = cli_key_store(opt.backend, cli_gpu_options(opt));
    engine::Engine alone(alone_cfg);
    time_job(alone, p.spec(alone));
    j["critical_alone_s"] = time_job(alone, p.spec(alone));
    bench_progress("porep-c2", "critical %s ready in %.2f s (alone: %.3f s from submission to proof)",
                   j["critical_proof_type"].get<std::string>().c_str(), seconds_since(t0),
                   j["critical_alone_s"].get<double>());
    return p;
}

}  // namespace

// Loading a PoRep parameter file as `filecoin c2` does (found by name, headers checked, every point decoded), with
// and without the subgroup checks. With --random-params a missing file is first written with random points of the
// circuit's exact shape (sizes without published test parameters: the 32 GiB file is ~44 GiB).
int run_bench_params_load(const BenchOptions& opt, const std::string& cpu) {
    const auto proof = bench_proof(opt);
    const auto config = filecoin::PorepConfig::from_registered(proof);
    const auto dir = filecoin::parameter_cache_dir(opt.params_dir);
    const auto names = filecoin::parameter_files(config);
    nlohmann::json j;
    j["bench"] = "params-load";
    j["proof_type"] = std::string(filecoin::proof_name(proof));
    auto t0 = std::chrono::steady_clock::now();
    const auto shape = filecoin::porep_parameter_shape(config);
    j["shape_s"] = seconds_since(t0);
    std::error_code ec;
    if (!std::filesystem::exists(dir / names.params, ec) && opt.random_params) {
        t0 = std::chrono::steady_clock::now();
        std::filesystem::create_directories(dir, ec);
        formats::write_parameters(dir / names.params, groth16::benchmark_parameters(porep_query_shape(config), 1));
        j["random_file_written_s"] = seconds_since(t0);
    }
    // Unchecked; checked on the CPU; checked with the checks on the GPU where there is one (the default there).
    std::vector<std::pair<std::string, formats::ParamsReadOptions>> variants = {
        {"unchecked", param_read_options(false)}, {"checked_cpu", param_read_options(true, "cpu")}};
    if (auto gpu = param_read_options(true, opt.backend); gpu.device_checks) variants.emplace_back("checked_gpu", gpu);
    for (const auto& [key, read] : variants) {
        const auto loaded = filecoin::load_parameters(dir, names, shape, filecoin::proof_name(proof), read);
        const size_t points = loaded.params.h.size() + loaded.params.l.size() + loaded.params.a.size() +
                              loaded.params.b_g1.size() + loaded.params.b_g2.size();
        j["bytes"] = loaded.file_bytes;
        j["points"] = points;
        j[key + "_s"] = loaded.seconds;
        j[key + "_decode_s"] = loaded.decode_seconds;
        if (read.check_subgroup) {
            j[key + "_subgroup_s"] = loaded.subgroup_seconds;
            j[key + "_subgroup_wait_s"] = loaded.subgroup_wait_seconds;
        }
    }
    j["threads"] = num_threads();
    j["cpu"] = cpu;
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
    return 0;
}

groth16::Parameters bench_random_parameters(const r1cs::Circuit& partition, const r1cs::PrecompiledR1cs* pce) {
    if (pce) return groth16::benchmark_parameters(groth16::query_shape(*pce), 1);
    r1cs::ProvingAssignment asg;
    r1cs::synthesize_groth16(asg, partition);
    return groth16::benchmark_parameters(asg, 1);
}

namespace {

// One run of a Filecoin bench's job on a fresh engine; prints its JSON line (base, as `beside` left it once the job ended,
// the inputs' figures, plus the job's) and returns its proofs, encoded.
std::vector<uint8_t> run_filecoin_bench_once(const nlohmann::json& base, const BenchOptions& opt,
                                             const std::string& cpu, const groth16::Parameters& params,
                                             engine::JobSpec spec, size_t partitions,
                                             const std::function<void(const engine::JobResult&)>& check_proof,
                                             std::function<void(engine::Engine&, engine::JobId)> beside,
                                             const std::filesystem::path& key_file) {
    spec.first_upload_alone = spec.first_upload_alone && opt.first_upload_alone;  // the job's own choice, or off
    const bool first_upload_alone = spec.first_upload_alone;
    spec.defer_ones = spec.defer_ones && opt.defer_ones;
    const bool spec_defer_ones = spec.defer_ones;
    CliJobOptions o;
    o.beside = std::move(beside);
    o.backend = opt.backend;
    o.pin_params = opt.pin_params;
    o.stream_queries = opt.stream_queries;
    o.overlap_msms = opt.overlap_msms;
    o.lean_h = opt.lean_h;
    o.share_slot = opt.share_slot;
    o.pack_witness = opt.pack_witness;
    o.upload_from_split = opt.upload_from_split;
    o.query_priority = opt.query_priority;
    o.own_split_first = opt.own_split_first;
    o.engine.synthesis_workers = opt.workers;
    o.engine.lookahead = opt.lookahead;
    o.engine.memory_budget_bytes = opt.memory_budget;  // 0: run_engine_job's auto_memory_budget()
    o.engine.device_products = !opt.host_products;
    o.engine.synthesis_nice = opt.synthesis_nice;
    o.products_resident = !opt.matrices_per_job;
    o.verify_key = opt.random_params ? nullptr : &params.vk;
    o.job_peak_rss = true;
    CliJob run = key_file.empty() ? run_engine_job(std::move(spec), params, o)
                                  : run_engine_job(std::move(spec), key_file, true, o);
    nlohmann::json j = base;  // after the job: with what `beside` added to it meanwhile
    if (!key_file.empty()) {
        j["key_file"] = key_file.string();
        j["key_s"] = run.key_s;  // read, uploaded and checked (in the peak RSS)
    }
    const engine::JobResult& res = run.result;
    if (res.state != engine::JobState::Done)
        throw std::runtime_error("bench " + opt.what + ": the job ended " + engine::job_state_name(res.state) +
                                 (res.error.empty() ? "" : ": " + res.error));
    j["random_params"] = opt.random_params;
    j["workers"] = opt.workers ? opt.workers : engine::auto_synthesis_workers();
    j["lookahead"] = opt.lookahead;
    j["device_products"] = !opt.host_products;
    j["matrices_resident"] = run.products_resident;  // held and copied to the GPU before the job
    if (opt.stream_queries) j["stream_queries"] = true;
    j["overlap_msms"] = opt.overlap_msms && !opt.stream_queries;  // a streamed key's prover has no second scratch
    if (opt.lean_h) j["lean_h"] = true;
    j["share_slot"] = opt.share_slot;
    j["pack_witness"] = opt.pack_witness;
    j["upload_from_split"] = opt.upload_from_split;
    j["query_priority"] = opt.query_priority;
    j["own_split_first"] = opt.own_split_first;
    j["synthesis_nice"] = opt.synthesis_nice;
    j["blocking_waits"] = opt.blocking_waits;
    j["first_upload_alone"] = first_upload_alone;
    j["defer_ones"] = spec_defer_ones;
    if (run.products_resident) j["matrices_s"] = run.products_s;
    j["memory_budget_bytes"] = opt.memory_budget ? opt.memory_budget : engine::auto_memory_budget();
    j["backend"] = run.backend;
    if (!opt.timeline_path.empty()) {
        // The last run's at the path, each earlier one's beside it (PATH.runK): a fresh machine's first run differs.
        std::string path = opt.timeline_path;
        const size_t run = j.contains("run") ? j["run"].get<size_t>() : opt.runs;
        if (run < opt.runs) path += ".run" + std::to_string(run);
        std::ofstream out(path);
        out << res.timeline->to_json();
    }
    add_job_report(j, res, partitions, run.stats, run.peak_rss_bytes);
    // With real parameters every partition is also checked against Filecoin's public inputs (as the commands do).
    if (!opt.random_params) check_proof(res);
    j["verified"] = !opt.random_params;
    j["pce"] = !opt.full_synthesis;
    j["cpu"] = cpu;
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
    return formats::encode_proofs(res.proofs);
}

// opt with its `alternate` setting flipped (kAlternates; anything else is std::invalid_argument).
BenchOptions alternated(const BenchOptions& opt) {
    BenchOptions o = opt;
    if (opt.alternate == "pack-witness") o.pack_witness = !o.pack_witness;
    else if (opt.alternate == "overlap-msms") o.overlap_msms = !o.overlap_msms;
    else if (opt.alternate == "share-slot") o.share_slot = !o.share_slot;
    else if (opt.alternate == "host-products") o.host_products = !o.host_products;
    else if (opt.alternate == "first-upload-alone") o.first_upload_alone = !o.first_upload_alone;
    else if (opt.alternate == "query-priority") o.query_priority = !o.query_priority;
    else if (opt.alternate == "synthesis-nice") o.synthesis_nice = o.synthesis_nice ? 0 : 10;
    else if (opt.alternate == "own-split-first") o.own_split_first = !o.own_split_first;
    else if (opt.alternate == "defer-ones") o.defer_ones = !o.defer_ones;
    else if (opt.alternate == "upload-from-split") o.upload_from_split = !o.upload_from_split;
    else if (!opt.alternate.empty()) throw std::invalid_argument("bench: --alternate " + opt.alternate);
    return o;
}

}  // namespace

int run_filecoin_bench_job(nlohmann::json& j, const BenchOptions& opt, const std::string& cpu,
                           const groth16::Parameters& params, engine::JobSpec spec, size_t partitions,
                           const std::function<void(const engine::JobResult&)>& check_proof,
                           std::function<void(engine::Engine&, engine::JobId)> beside,
                           const std::filesystem::path& key_file) {
    // Random parameters have no verifying key, so those proofs are not verified: the runs then draw the same r, s
    // for every partition, and their proofs must be the same bytes whatever the settings (--alternate flips one).
    // A setting that changes a proof fails the bench.
    if (opt.random_params && !spec.randomness_seed) spec.randomness_seed = 0x63757a6b2d633221;  // any fixed value
    std::vector<uint8_t> first;
    for (size_t run = 0; run < opt.runs; run++) {
        if (opt.runs > 1) j["run"] = run + 1;
        const auto proofs = run_filecoin_bench_once(j, run % 2 ? alternated(opt) : opt, cpu, params, spec, partitions,
                                                    check_proof, beside, key_file);
        if (!opt.random_params) continue;
        if (run == 0) first = proofs;
        else if (proofs != first)
            throw std::runtime_error("bench " + opt.what + ": run " + std::to_string(run + 1) +
                                     "'s proofs differ from run 1's (the same inputs, parameters and r, s" +
                                     (opt.alternate.empty() ? "" : "; --alternate " + opt.alternate) + ")");
    }
    return 0;
}

namespace {
// bench porep-c2 --key-file: the PoRep parameter file of the parameter directory, written first with random points
// of the partition circuit's shape when it is missing and --random-params is set; its headers checked.
std::filesystem::path porep_key_file(const BenchOptions& opt, const filecoin::PorepConfig& config,
                                     const r1cs::PrecompiledR1cs* pce, nlohmann::json& j) {
    const std::string proof_name = j["proof_type"].get<std::string>();
    const auto dir = filecoin::parameter_cache_dir(opt.params_dir);
    const auto names = filecoin::parameter_files(config);
    std::error_code ec;
    if (!std::filesystem::exists(dir / names.params, ec) && opt.random_params) {
        const auto t0 = std::chrono::steady_clock::now();
        std::filesystem::create_directories(dir, ec);
        const groth16::QueryShape shape = pce ? groth16::query_shape(*pce) : porep_query_shape(config);
        formats::write_parameters(dir / names.params, groth16::benchmark_parameters(shape, 1));
        j["random_file_written_s"] = seconds_since(t0);
    }
    return filecoin::fit_parameter_file(dir, names, filecoin::porep_parameter_shape(config), proof_name);
}
}  // namespace

int run_bench_porep_c2(const BenchOptions& opt, const std::string& cpu) {
    nlohmann::json j;
    j["bench"] = "porep-c2";
    auto t0 = std::chrono::steady_clock::now();
    const filecoin::C1Output c1 = bench_c1(opt);
    j["c1"] = opt.c1_path.empty() ? "generated (seed " + std::to_string(opt.c1_seed) + ")" : opt.c1_path;
    j["c1_s"] = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    const engine::PorepC2Job job = engine::porep_c2_job(c1);
    j["c1_validate_s"] = seconds_since(t0);
    j["proof_type"] = std::string(filecoin::proof_name(c1.registered_proof));
    j["partitions"] = job.partitions.size();

    std::optional<r1cs::PrecompiledR1cs> pce;
    if (!opt.full_synthesis) {
        t0 = std::chrono::steady_clock::now();
        pce = r1cs::compile_r1cs(filecoin::StackedPorepCircuit(
            filecoin::blank_stacked_porep_partition(filecoin::StackedPorepShape::of(job.config))));
        j["pce_compile_s"] = seconds_since(t0);
    }
    t0 = std::chrono::steady_clock::now();
    groth16::Parameters params;
    std::filesystem::path key_file;
    if (opt.key_file) {
        key_file = porep_key_file(opt, job.config, pce ? &*pce : nullptr, j);
        params.vk = formats::read_verifying_key(key_file).vk;  // for check_proof; the key store reads the rest
    } else if (opt.random_params) {
        params =
            bench_random_parameters(filecoin::StackedPorepCircuit(job.partitions.at(0)), pce ? &*pce : nullptr);
    } else {
        const auto shape = filecoin::porep_parameter_shape(job.config);
        params = filecoin::load_parameters(filecoin::parameter_cache_dir(opt.params_dir),
                                           filecoin::parameter_files(job.config), shape, j["proof_type"].get<std::string>(),
                                           param_read_options(true, opt.backend))
                     .params;
    }
    j["params_s"] = seconds_since(t0);

    const auto spec = [&] {
        engine::JobSpec s = engine::porep_c2_spec(job, pce ? &*pce : nullptr);
        if (opt.first_with_others) s.first_partition_alone = false;
        return s;
    };
    j["first_partition_alone"] = spec().first_partition_alone;
    CriticalProbe probe;
    if (opt.critical_after) probe = critical_probe(opt, c1.registered_proof, j);
    if (opt.critical_after && opt.queued > 1)
        throw std::invalid_argument("bench porep-c2: --critical-after and --queued measure different things; pick one");
    std::function<void(engine::Engine&, engine::JobId)> beside;
    if (probe.winning)
        beside = [&](engine::Engine& eng, engine::JobId main) { probe.beside(eng, main, *opt.critical_after, j); };
    else if (opt.queued > 1)
        beside = [&](engine::Engine& eng, engine::JobId main) {
            queue_more(eng, main, opt.queued - 1, spec, j);
        };
    return run_filecoin_bench_job(
        j, opt, cpu, params, spec(), job.partitions.size(),
        [&](const engine::JobResult& res) { engine::porep_c2_proof(job, res, params.vk); }, beside, key_file);
}

}  // namespace cuzk::cli
