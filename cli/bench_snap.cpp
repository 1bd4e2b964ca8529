// `cuzk bench snap`: a Filecoin SnapDeals update (EmptySectorUpdate: every partition of the SHA-256 variant, 16 at
// 32 GiB, or the Poseidon variant's one) through the engine, from generated vanilla proofs (filecoin/snap_gen.hpp),
// with the job's figures. Partitions from the circuit's matrices compiled once (the PCE) unless --full-synthesis.
// Parameters are Filecoin's files or random points of the circuit's exact shape (then the proofs are not verified).
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "commands.hpp"
#include "cuzk/engine/snap.hpp"
#include "cuzk/filecoin/params.hpp"
#include "cuzk/filecoin/snap_circuit.hpp"
#include "cuzk/filecoin/snap_gen.hpp"
#include "cuzk/groth16/setup.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::cli {

namespace {

groth16::Parameters snap_bench_parameters(const BenchOptions& opt, const engine::SnapJob& job,
                                          const r1cs::PrecompiledR1cs* pce) {
    if (!opt.random_params)
        return filecoin::load_parameters(filecoin::parameter_cache_dir(opt.params_dir),
                                         filecoin::parameter_files(job.proof, job.variant),
                                         filecoin::snap_parameter_shape(job.proof, job.variant),
                                         filecoin::proof_name(job.proof), param_read_options(true, opt.backend))
            .params;
    return bench_random_parameters(
        filecoin::EmptySectorUpdateCircuit(job.shape, job.variant, job.partitions.at(0).witness), pce);
}

}  // namespace

int run_bench_snap(const BenchOptions& opt, const std::string& cpu) {
    const filecoin::RegisteredUpdateProof proof = filecoin::update_proof_from_name(opt.proof_type);
    const filecoin::UpdateCircuit variant =
        opt.poseidon ? filecoin::UpdateCircuit::Poseidon : filecoin::UpdateCircuit::Sha256;
    nlohmann::json j;
    j["bench"] = "snap";
    j["proof_type"] = std::string(filecoin::proof_name(proof));
    j["circuit"] = opt.poseidon ? "snap-poseidon" : "snap";
    auto t0 = std::chrono::steady_clock::now();
    const filecoin::GeneratedSnap gen = filecoin::generate_snap_vanilla(proof, variant, opt.c1_seed);
    j["vanilla_gen_s"] = seconds_since(t0);
    bench_progress("snap", "%zu partition proofs generated in %.2f s", gen.partitions.size(),
                   j["vanilla_gen_s"].get<double>());
    t0 = std::chrono::steady_clock::now();
    const engine::SnapJob job =
        engine::snap_job(proof, variant, gen.partitions, gen.comm_r_old, gen.comm_d_new, gen.comm_r_new, gen.h);
    j["vanilla_check_s"] = seconds_since(t0);
    j["partitions"] = job.partitions.size();

    std::optional<r1cs::PrecompiledR1cs> pce;
    if (!opt.full_synthesis) {
        t0 = std::chrono::steady_clock::now();
        pce = r1cs::compile_r1cs(filecoin::EmptySectorUpdateCircuit::blank(job.shape, job.variant));
        j["pce_compile_s"] = seconds_since(t0);
        j["constraints"] = pce->num_constraints;
        bench_progress("snap", "%zu constraints per partition compiled in %.2f s", pce->num_constraints,
                       j["pce_compile_s"].get<double>());
    }
    t0 = std::chrono::steady_clock::now();
    const groth16::Parameters params = snap_bench_parameters(opt, job, pce ? &*pce : nullptr);
    j["params_s"] = seconds_since(t0);
    bench_progress("snap", "parameters in %.2f s; proving", j["params_s"].get<double>());

    return run_filecoin_bench_job(j, opt, cpu, params, engine::snap_spec(job, pce ? &*pce : nullptr),
                                  job.partitions.size(),
                                  [&](const engine::JobResult& res) { engine::snap_proof(job, res, params.vk); });
}

}  // namespace cuzk::cli
