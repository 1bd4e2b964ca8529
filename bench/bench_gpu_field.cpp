// GPU field multiplication throughput: the PTX 32-bit-limb arithmetic against the CPU's MontField compiled for the
// device. Skipped (no benchmarks registered) without CUDA or without a device.
#ifdef CUZK_HAVE_CUDA
#include <benchmark/benchmark.h>

#include "cuzk/gpu/device.hpp"

namespace {
void BM_gpu_field_mul(benchmark::State& state) {
    bool fq = state.range(0) != 0, impl32 = state.range(1) != 0;
    if (cuzk::gpu::devices().empty()) {
        state.SkipWithError("no CUDA device");
        return;
    }
    double gmul = 0;
    for (auto _ : state) gmul = cuzk::gpu::field_mul_throughput(fq, impl32, size_t{132} * 2048 * 4, 256);
    state.counters["Gmul_per_s"] = gmul;
    state.SetLabel(std::string(fq ? "Fq" : "Fr") + (impl32 ? " ptx32" : " montfield64"));
}
}  // namespace

BENCHMARK(BM_gpu_field_mul)->Args({0, 0})->Args({0, 1})->Args({1, 0})->Args({1, 1})->Iterations(3)->UseRealTime();
#endif
