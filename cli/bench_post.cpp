// `cuzk bench post`: one Filecoin PoSt partition (Winning or Window, the real FallbackPoSt circuit) through the
// engine, from generated vanilla proofs of every sector the partition holds (filecoin/c1_gen.hpp
// generate_post_vanilla), with the job's figures: vanilla generation and checking, matrices compiled once (the PCE,
// unless --full-synthesis), the witness and proving of the partition, GPU busy share, peak RSS. Parameters are
// Filecoin's files or, for sizes without a setup (a 32 GiB Window partition has 125 M rows), random points of the
// circuit's exact shape (then the proof is not verified).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "cuzk/engine/engine.hpp"
#include "cuzk/engine/post.hpp"
#include "cuzk/filecoin/c1_gen.hpp"
#include "cuzk/filecoin/params.hpp"
#include "cuzk/filecoin/post_circuit.hpp"
#include "cuzk/groth16/setup.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "cuzk/util/thread_pool.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::cli {

namespace {

// Every sector of partition 0 (Window: the partition's sector count; Winning: its one sector, whose 66 challenges
// are the circuit's "sectors"), generated in parallel (sector ids 1, 2, ...; seeds from the bench's seed).
std::vector<filecoin::FallbackPostSectorProof> bench_vanilla(filecoin::RegisteredPoStProof proof,
                                                             const filecoin::Domain& randomness, uint64_t seed) {
    const auto config = filecoin::PostCircuitConfig::from_registered(proof);
    const bool winning = filecoin::post_type(proof) == filecoin::PoStType::Winning;
    std::vector<filecoin::FallbackPostSectorProof> v(winning ? 1 : config.sector_count);
    parallel_for(v.size(), [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; i++)
            v[i] = filecoin::generate_post_vanilla(proof, randomness, i + 1, i, seed * 1000003 + i);
    });
    return v;
}

groth16::Parameters post_bench_parameters(const BenchOptions& opt, const engine::PostJob& job,
                                          const r1cs::PrecompiledR1cs* pce) {
    if (!opt.random_params)
        return filecoin::load_parameters(filecoin::parameter_cache_dir(opt.params_dir),
                                         filecoin::parameter_files(job.proof),
                                         filecoin::post_parameter_shape(job.proof), filecoin::proof_name(job.proof),
                                         param_read_options(true, opt.backend))
            .params;
    return bench_random_parameters(filecoin::FallbackPostCircuit(job.circuit, job.partitions.at(0).sectors), pce);
}

}  // namespace

std::unique_ptr<WinningProbe> winning_probe(const BenchOptions& opt, filecoin::RegisteredPoStProof proof) {
    filecoin::Domain randomness{};
    randomness.fill(5);
    const auto vanilla = bench_vanilla(proof, randomness, opt.c1_seed);
    engine::PostJob job = engine::post_job(proof, randomness, vanilla);
    r1cs::PrecompiledR1cs pce =
        r1cs::compile_r1cs(filecoin::FallbackPostCircuit(job.circuit, job.partitions.at(0).sectors));
    groth16::Parameters params = post_bench_parameters(opt, job, &pce);
    return std::make_unique<WinningProbe>(WinningProbe{std::move(job), std::move(pce), std::move(params)});
}

int run_bench_post(const BenchOptions& opt, const std::string& cpu) {
    const filecoin::RegisteredPoStProof proof = filecoin::post_proof_from_name(opt.proof_type);
    nlohmann::json j;
    j["bench"] = "post";
    j["proof_type"] = std::string(filecoin::proof_name(proof));
    filecoin::Domain randomness{};
    randomness.fill(5);  // canonical as a field element (top byte 5 < 0x73)
    auto t0 = std::chrono::steady_clock::now();
    const auto vanilla = bench_vanilla(proof, randomness, opt.c1_seed);
    j["sectors"] = vanilla.size();
    j["vanilla_gen_s"] = seconds_since(t0);
    bench_progress("post", "%zu vanilla proofs generated in %.2f s", vanilla.size(),
                   j["vanilla_gen_s"].get<double>());
    t0 = std::chrono::steady_clock::now();
    const engine::PostJob job = engine::post_job(proof, randomness, vanilla);
    j["vanilla_check_s"] = seconds_since(t0);
    bench_progress("post", "checked into the partition's witness in %.2f s", j["vanilla_check_s"].get<double>());

    std::optional<r1cs::PrecompiledR1cs> pce;
    if (!opt.full_synthesis) {
        t0 = std::chrono::steady_clock::now();
        pce = r1cs::compile_r1cs(filecoin::FallbackPostCircuit(job.circuit, job.partitions.at(0).sectors));
        j["pce_compile_s"] = seconds_since(t0);
        j["constraints"] = pce->num_constraints;
        bench_progress("post", "%zu constraints compiled in %.2f s", pce->num_constraints,
                       j["pce_compile_s"].get<double>());
    }
    t0 = std::chrono::steady_clock::now();
    const groth16::Parameters params = post_bench_parameters(opt, job, pce ? &*pce : nullptr);
    j["params_s"] = seconds_since(t0);
    bench_progress("post", "parameters in %.2f s; proving", j["params_s"].get<double>());

    return run_filecoin_bench_job(j, opt, cpu, params, engine::post_spec(job, pce ? &*pce : nullptr), 1,
                                  [&](const engine::JobResult& res) { engine::post_proof(job, res, params.vk); });
}

}  // namespace cuzk::cli
