// GPU field multiplication throughput: the PTX 32-bit-limb arithmetic (three multiplication schedules, mont32.cuh)
// against the CPU's MontField compiled for the device. Skipped (no benchmarks registered) without CUDA or without a device.
#ifdef CUZK_HAVE_CUDA
#include <benchmark/benchmark.h>

#include "cuzk/gpu/device.hpp"

namespace {
void BM_gpu_field_mul(benchmark::State& state) {
    const bool fq = state.range(0) != 0;
    const unsigned impl = (unsigned)state.range(1);
    if (cuzk::gpu::devices().empty()) {
        state.SkipWithError("no CUDA device");
        return;
    }
    double gmul = 0;
    for (auto _ : state) gmul = cuzk::gpu::field_mul_throughput(fq, impl, size_t{132} * 2048 * 4, 256);
    state.counters["Gmul_per_s"] = gmul;
    static const char* names[] = {" montfield64 mul", " ptx32 mul", " ptx32 square", " ptx32 square by mul", " ptx32 2 chains, out-of-line mul", " ptx32 2 chains, out-of-line mul2"};
    state.SetLabel(std::string(fq ? "Fq" : "Fr") + names[impl]);
}
}  // namespace

BENCHMARK(BM_gpu_field_mul)->ArgsProduct({{0, 1}, {0, 1, 2, 3, 4, 5}})->Iterations(3)->UseRealTime();
#endif
