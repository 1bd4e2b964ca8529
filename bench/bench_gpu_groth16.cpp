// The GPU backend's Groth16 pieces (backends/cuda/): H from a, b, c in pinned host memory to H in pinned memory
// (compute_h_gpu: upload, the NTTs, the element-wise kernels, download, and the device allocations of the call),
// median of 5 after one warm-up, for both H conventions. Args: log2 n, convention (0 bellman, 1 snarkjs).
#ifdef CUZK_HAVE_CUDA
// GCC 12 reports a false -Wrestrict inside std::string's inlined copy here (GCC bug 105329).
#pragma GCC diagnostic ignored "-Wrestrict"
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "cuzk/backends/cuda/h_gpu.hpp"
#include "cuzk/backends/cuda/prover_gpu.hpp"
#include "cuzk/circuits/builtin.hpp"
#include "cuzk/gpu/device.hpp"
#include "cuzk/groth16/prover.hpp"
#include "cuzk/groth16/setup.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/util/timing.hpp"

using namespace cuzk;

namespace {

void BM_gpu_compute_h(benchmark::State& state) {
    if (gpu::devices().empty()) return state.SkipWithError("no CUDA device");
    const unsigned k = (unsigned)state.range(0);
    const auto conv = state.range(1) ? groth16::HConvention::Snarkjs : groth16::HConvention::Bellman;
    const size_t n = size_t{1} << k;
    Fr* h_abc = nullptr;  // a, b, c, then room for h: all pinned
    if (cudaMallocHost(&h_abc, 4 * n * sizeof(Fr)) != cudaSuccess) return state.SkipWithError("cudaMallocHost failed");
    std::mt19937_64 rng(k);
    for (size_t i = 0; i < 3 * n; i++) h_abc[i] = Fr::random(rng);
    std::span<const Fr> a(h_abc, n), b(h_abc + n, n), c(h_abc + 2 * n, n);
    std::span<Fr> h(h_abc + 3 * n, gpu::h_gpu_length(k, conv));
    gpu::compute_h_gpu(k, a, b, c, h, conv);  // warm-up: twiddle tables, module load
    std::vector<double> ms;
    for (auto _ : state) {
        const auto t0 = std::chrono::steady_clock::now();
        gpu::compute_h_gpu(k, a, b, c, h, conv);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        benchmark::DoNotOptimize(h.data());
        state.SetIterationTime(s);
        ms.push_back(s * 1e3);
    }
    cudaFreeHost(h_abc);
    std::sort(ms.begin(), ms.end());
    state.counters["median_ms"] = ms[ms.size() / 2];
    state.counters["log_n"] = k;
}
BENCHMARK(BM_gpu_compute_h)
    ->ArgsProduct({{20, 24, 26}, {0, 1}})
    ->Iterations(5)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// A whole Groth16 proof of a 2^log_n multiplication chain (dense witness) on the GPU prover: parameters resident,
// one circuit per call (synthesis not timed; the assignment is copied before each call because the seam consumes
// a, b, c), median of 3 after a warm-up. Counters: each stage's mean over the timed calls (h = the H NTTs with
// their transfers, msm_* the MSMs with their scalar uploads). Arg 1: 1 = also time the CPU prover once for comparison.
void BM_gpu_prove(benchmark::State& state) {
    if (gpu::devices().empty()) return state.SkipWithError("no CUDA device");
    const unsigned k = (unsigned)state.range(0);
    const auto p = groth16::generate_parameters(circuits::MulChainCircuit(k, 2, std::nullopt),
                                                groth16::ToxicWaste::from_seed(k));
    circuits::MulChainCircuit c(k, 2, 77);
    r1cs::ProvingAssignment base;
    r1cs::synthesize_groth16(base, c);
    gpu::GpuProver prover(p);
    std::vector<Fr> r{Fr::from_u64(5)}, s{Fr::from_u64(7)};
    auto run = [&](TimingSink* sink) {
        std::vector<r1cs::ProvingAssignment> asg{base};
        return prover.prove_from_assignments(asg, r, s, sink)[0];
    };
    const auto warm = run(nullptr);
    std::vector<double> ms;
    TimingSink last;
    for (auto _ : state) {
        TimingSink sink;
        std::vector<r1cs::ProvingAssignment> asg{base};
        const auto t0 = std::chrono::steady_clock::now();
        auto proof = prover.prove_from_assignments(asg, r, s, &sink)[0];
        const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        benchmark::DoNotOptimize(proof);
        state.SetIterationTime(sec);
        ms.push_back(sec * 1e3);
        for (const auto& sp : sink.spans()) last.record(sp);
    }
    std::sort(ms.begin(), ms.end());
    state.counters["median_ms"] = ms[ms.size() / 2];
    state.counters["log_n"] = k;
    const double reps = (double)ms.size();
    static const std::pair<const char*, const char*> kStages[] = {
        {"h", "h_ms"},         {"msm.h", "msm.h_ms"},       {"msm.split", "msm.split_ms"}, {"msm.a", "msm.a_ms"},
        {"msm.b_g1", "msm.b_g1_ms"}, {"msm.b_g2", "msm.b_g2_ms"}, {"msm.l", "msm.l_ms"},   {"assembly", "assembly_ms"}};
    for (const auto& [stage, counter] : kStages)
        state.counters[counter] = last.total(TimingLayer::Prover, stage) / reps * 1e3;
    if (state.range(1)) {
        std::vector<r1cs::ProvingAssignment> asg{base};
        const auto t0 = std::chrono::steady_clock::now();
        const auto cpu = groth16::prove_from_assignments(p, asg, r, s)[0];
        state.counters["cpu_ms"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e3;
        state.counters["same_proof"] = cpu == warm ? 1 : 0;
    }
}
BENCHMARK(BM_gpu_prove)->Args({16, 1})->Args({20, 1})->Iterations(3)->UseManualTime()->Unit(
    benchmark::kMillisecond);

}  // namespace
#endif
