// The GPU backend's Groth16 pieces (backends/cuda/): H from a, b, c in pinned host memory to H in pinned memory
// (compute_h_gpu: upload, the NTTs, the element-wise kernels, download, and the device allocations of the call),
// median of 5 after one warm-up, for both H conventions. Args: log2 n, convention (0 bellman, 1 snarkjs).
#ifdef CUZK_HAVE_CUDA
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <vector>

#include "cuzk/backends/cuda/h_gpu.hpp"
#include "cuzk/gpu/device.hpp"

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

}  // namespace
#endif
