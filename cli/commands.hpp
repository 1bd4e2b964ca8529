// The subcommands of the `cuzk` program.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cuzk/circuits/catalog.hpp"

namespace cuzk::cli {

struct BenchOptions {
    std::string what = "all";  // fq-mul, fr-mul, g1-add, pairing, ntt, msm-g1, msm-g2, groth16, all
    int log_size = -1;         // problem size 2^log_size for ntt/msm (-1: the default of each benchmark)
    int repetitions = 5;       // timed runs; the median is reported
    bool quick = false;        // smaller sizes and 3 repetitions (the demo)
    // pipeline: partitions of one job through the engine
    size_t partitions = 4;
    size_t lookahead = 1;
    size_t workers = 1;
    std::string backend = "auto";  // pipeline, groth16: auto (GPU when built and present), cpu, gpu
    // groth16: pseudo-random parameters of the circuit's shape (groth16::benchmark_parameters) instead of a setup,
    // for sizes where a setup takes too long; the proofs are not verified
    bool random_params = false;
    // pipeline: partitions through the pre-compiled constraint evaluator (witness + sparse product) instead of
    // full synthesis
    bool pce = false;
    bool pin_params = false;  // groth16, pipeline: page-lock the parameters in host memory (GpuProverConfig)
    // groth16: circuits per prover call (the GPU prover overlaps one circuit's upload with the previous one's MSMs)
    size_t batch = 1;
    // groth16 with --random-params: every circuit proves a copy of proof 0's assignment (no synthesis per circuit;
    // for prover measurements at sizes where synthesis takes a minute a circuit)
    bool same_witness = false;
    // groth16, pipeline: write the last call's timing spans (every layer, start and duration) to this JSON file
    std::string timeline_path;
};

// A built-in circuit and how to build its witness (circuits/catalog.hpp).
using CircuitOptions = circuits::CircuitSpec;

struct SetupOptions {
    CircuitOptions circuit;
    std::string params_path, vk_path;
    std::optional<uint64_t> seed;  // deterministic toxic waste (tests, benchmarks); default: OS CSPRNG
    bool json = false;
};

struct ProveOptions {
    CircuitOptions circuit;
    std::string params_path, proof_path, public_path;
    size_t batch = 1;
    bool unchecked_params = false;  // skip the subgroup checks of the queries (on-curve is still checked)
    std::string pce_path;           // a .pce of this circuit: witness + sparse product instead of full synthesis
    std::string backend = "auto";   // auto (the GPU prover when built and a GPU is present), cpu, gpu
    bool json = false;
};

struct VerifyOptions {
    std::string vk_path, params_path, proof_path, public_path;
    bool json = false;
};

int run_setup(const SetupOptions& opt);
int run_prove(const ProveOptions& opt);
int run_verify(const VerifyOptions& opt);
int run_bench_groth16(const CircuitOptions& circuit, const BenchOptions& opt, int reps, const std::string& cpu);
// One job of opt.partitions partitions of `circuit` through the engine (engine/engine.hpp): wall time, the
// per-stage timeline summary at the pipeline and prover layers, the gap between them, peak RSS, freed buffers.
int run_bench_pipeline(const CircuitOptions& circuit, const BenchOptions& opt, const std::string& cpu);
// Shape of a built-in circuit: constraints, variables, witness 0/1 share, query densities, synthesis time.
int run_circuit_info(const CircuitOptions& c, bool json);
// The pre-compiled constraint evaluator's file: build it for a built-in circuit, or check and summarize one.
int run_pce_build(const CircuitOptions& c, const std::string& out, bool json);
int run_pce_info(const std::string& path, bool json);

// Prints one JSON object per benchmark on stdout; returns the process exit code. `bench groth16` proves the
// mulchain circuit, or `groth16_circuit` when it names a PoRep-shaped preset.
int run_bench(const BenchOptions& opt);
int run_bench(const BenchOptions& opt, const std::string& groth16_circuit);

// Runs the correctness self-check (CPU, and GPU against CPU when a device is present); prints one line per check,
// returns 0 when every check passed.
int run_selfcheck();

// Machine, thread and GPU summary.
int run_info();

// Names accepted by run_bench.
std::vector<std::string> bench_names();

}  // namespace cuzk::cli
