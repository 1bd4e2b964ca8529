// GPU MSM benchmarks (cuzk/gpu/msm.hpp). Run with --benchmark_filter=GpuMsm. Each benchmark warms up with one call,
// then times `kReps` synchronized calls (the API returns after the device finished and the result is on the host)
// and reports their median in the counter median_ms, with the ratio to the sppark anchor measured on the same H200
// (random scalars, bases on the device): G1 2^20 21.2 ms, 2^22 53.0, 2^24 154.7, 2^26 553.8; G2 2^20 48.0 ms.
// Scalars come from pageable host memory unless the name says Pinned.
//
// Bases: random_points at 2^22 (G1) or 2^20 (G2) on the CPU, tiled (repeated) up to 2^26; a repeated base costs an
// MSM exactly what a fresh one does (same additions, same bucket statistics under random scalars).
#ifdef CUZK_HAVE_CUDA
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "cuzk/backends/cuda/device_split.hpp"
#include "cuzk/ec/random_points.hpp"
#include "cuzk/gpu/device.hpp"
#include "cuzk/gpu/msm.hpp"
#include "cuzk/msm/msm.hpp"

using namespace cuzk;

namespace {

constexpr int kReps = 5;

template <class Cfg>
std::vector<Affine<Cfg>> tiled_bases(size_t n, size_t generated) {
    auto base = random_points<Cfg>(std::min(n, generated), 7);
    std::vector<Affine<Cfg>> out(n);
    for (size_t i = 0; i < n; i += base.size())
        std::copy_n(base.begin(), std::min(base.size(), n - i), out.begin() + (ptrdiff_t)i);
    return out;
}

double sppark_ms(bool g2, int log_n) {
    if (g2) return log_n == 20 ? 48.0 : 0;
    switch (log_n) {
        case 20: return 21.2;
        case 22: return 53.0;
        case 24: return 154.7;
        case 26: return 553.8;
        default: return 0;
    }
}

template <class Fn>
void timed(benchmark::State& state, bool g2, int log_n, Fn&& call, double anchor_ms = -1) {
    call();  // warm-up: module load, scratch allocation
    std::vector<double> ms;
    for (auto _ : state) {
        auto t0 = std::chrono::steady_clock::now();
        call();
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        state.SetIterationTime(s);
        ms.push_back(s * 1e3);
    }
    std::sort(ms.begin(), ms.end());
    const double med = ms[ms.size() / 2];
    state.counters["median_ms"] = med;
    state.counters["log_n"] = log_n;
    if (double a = anchor_ms >= 0 ? anchor_ms : sppark_ms(g2, log_n); a > 0) state.counters["vs_sppark"] = med / a;
}

// One G1 context over 2^26 tiled bases serves every size (an MSM over a prefix of the bases).
gpu::G1MsmContext& g1_context() {
    static auto bases = tiled_bases<G1Config>(size_t(1) << 26, size_t(1) << 22);
    static gpu::G1MsmContext ctx(bases);
    return ctx;
}
const std::vector<Fr>& scalars(size_t n) {
    static std::vector<Fr> s;
    if (s.size() < n) s = random_scalars<Fr>(n, 11);
    return s;
}

void BM_GpuMsmG1(benchmark::State& state) {
    if (gpu::devices().empty()) return state.SkipWithError("no CUDA device");
    const int log_n = (int)state.range(0);
    const size_t n = size_t(1) << log_n;
    auto& ctx = g1_context();
    std::span<const Fr> s(scalars(n).data(), n);
    timed(state, false, log_n, [&] { benchmark::DoNotOptimize(ctx.msm(s)); });
    state.counters["scratch_GB"] = (double)ctx.call_bytes(n) / 1e9;
    state.counters["window_bits"] = gpu::gpu_msm_window_bits(n, gpu::devices()[0].sm_count);
}
BENCHMARK(BM_GpuMsmG1)->Arg(20)->Arg(22)->Arg(24)->Arg(26)->Iterations(kReps)->UseManualTime()->Unit(
    benchmark::kMillisecond);

// The same with the scalars in pinned (page-locked) host memory, as the GPU prover keeps them: the upload is a DMA
// at full PCIe speed instead of the driver's staged copy of pageable memory (~0.2 s of the 2^26 call).
void BM_GpuMsmG1Pinned(benchmark::State& state) {
    if (gpu::devices().empty()) return state.SkipWithError("no CUDA device");
    const int log_n = (int)state.range(0);
    const size_t n = size_t(1) << log_n;
    auto& ctx = g1_context();
    Fr* h = nullptr;
    if (cudaMallocHost(&h, n * sizeof(Fr)) != cudaSuccess) return state.SkipWithError("cudaMallocHost failed");
    std::memcpy(h, scalars(n).data(), n * sizeof(Fr));
    std::span<const Fr> s(h, n);
    timed(state, false, log_n, [&] { benchmark::DoNotOptimize(ctx.msm(s)); });
    cudaFreeHost(h);
    state.counters["window_bits"] = gpu::gpu_msm_window_bits(n, gpu::devices()[0].sm_count);
}
BENCHMARK(BM_GpuMsmG1Pinned)->Arg(20)->Arg(22)->Arg(24)->Arg(26)->Iterations(kReps)->UseManualTime()->Unit(
    benchmark::kMillisecond);

// Precomputed window multiples (GpuMsmConfig::precompute_windows): a context over the first 2^log_n tiled bases
// with its table (W times their memory, built once; table_s is that build), scalars pinned as above.
template <class Cfg>
void precomputed_bench(benchmark::State& state, bool g2, size_t generated) {
    if (gpu::devices().empty()) return state.SkipWithError("no CUDA device");
    const int log_n = (int)state.range(0);
    const size_t n = size_t(1) << log_n;
    auto bases = tiled_bases<Cfg>(n, generated);
    gpu::GpuMsmConfig cfg;
    cfg.precompute_windows = true;
    const auto t0 = std::chrono::steady_clock::now();
    gpu::MsmContext<Cfg> ctx(bases, cfg);
    const double table_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    bases = {};
    Fr* h = nullptr;
    if (cudaMallocHost(&h, n * sizeof(Fr)) != cudaSuccess) return state.SkipWithError("cudaMallocHost failed");
    std::memcpy(h, scalars(n).data(), n * sizeof(Fr));
    std::span<const Fr> s(h, n);
    timed(state, g2, log_n, [&] { benchmark::DoNotOptimize(ctx.msm(s)); });
    cudaFreeHost(h);
    state.counters["window_bits"] = ctx.precomputed_window_bits();
    state.counters["table_GB"] = (double)ctx.resident_bytes() / 1e9;
    state.counters["table_s"] = table_s;
}
void BM_GpuMsmG1Precomputed(benchmark::State& state) {
    precomputed_bench<G1Config>(state, false, size_t(1) << 22);
}
BENCHMARK(BM_GpuMsmG1Precomputed)->Arg(20)->Arg(22)->Arg(24)->Arg(26)->Iterations(kReps)->UseManualTime()->Unit(
    benchmark::kMillisecond);
void BM_GpuMsmG2Precomputed(benchmark::State& state) {
    precomputed_bench<G2Config>(state, true, size_t(1) << 20);
}
BENCHMARK(BM_GpuMsmG2Precomputed)->Arg(20)->Iterations(kReps)->UseManualTime()->Unit(benchmark::kMillisecond);

// Window width sweep: BM_GpuMsmG1Window/log_n/c (the cost model's choice is what BM_GpuMsmG1 runs).
void BM_GpuMsmG1Window(benchmark::State& state) {
    if (gpu::devices().empty()) return state.SkipWithError("no CUDA device");
    const int log_n = (int)state.range(0);
    const size_t n = size_t(1) << log_n;
    auto& ctx = g1_context();
    ctx.tuning().window_bits = (unsigned)state.range(1);
    std::span<const Fr> s(scalars(n).data(), n);
    timed(state, false, log_n, [&] { benchmark::DoNotOptimize(ctx.msm(s)); });
    state.counters["scratch_GB"] = (double)ctx.call_bytes(n) / 1e9;
    state.counters["window_bits"] = (double)state.range(1);
    ctx.tuning().window_bits = 0;
}
BENCHMARK(BM_GpuMsmG1Window)
    ->ArgsProduct({{20, 24, 26}, {13, 14, 15, 16, 17, 18, 20}})
    ->Iterations(kReps)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// Bases and scalars in pinned host memory: the one-shot call uploads both, allocates, computes and frees.
void BM_GpuMsmG1FromHost(benchmark::State& state) {
    if (gpu::devices().empty()) return state.SkipWithError("no CUDA device");
    const int log_n = (int)state.range(0);
    const size_t n = size_t(1) << log_n;
    auto bases = tiled_bases<G1Config>(n, size_t(1) << 22);
    const auto& s = scalars(n);
    G1Affine* h_bases = nullptr;
    Fr* h_scalars = nullptr;
    if (cudaMallocHost(&h_bases, n * sizeof(G1Affine)) != cudaSuccess ||
        cudaMallocHost(&h_scalars, n * sizeof(Fr)) != cudaSuccess)
        return state.SkipWithError("cudaMallocHost failed");
    std::memcpy(h_bases, bases.data(), n * sizeof(G1Affine));
    std::memcpy(h_scalars, s.data(), n * sizeof(Fr));
    timed(state, false, log_n, [&] {
        benchmark::DoNotOptimize(gpu::msm_g1_gpu(std::span<const G1Affine>(h_bases, n),
                                                 std::span<const Fr>(h_scalars, n)));
    }, log_n == 26 ? 1245.0 : 0.0);  // sppark's anchor for bases and scalars from host memory
    cudaFreeHost(h_bases);
    cudaFreeHost(h_scalars);
}
BENCHMARK(BM_GpuMsmG1FromHost)->Arg(26)->Iterations(kReps)->UseManualTime()->Unit(benchmark::kMillisecond);

// The split layouts (backends/cuda/device_split.hpp choose_split_layout) on the same scalars: 0 indexed with listed
// ones, 1 ones as a bitmap, 2 dense (no split). Witness 0: Filecoin-like (50% zeros, 48% ones, 2% random), 1: dense
// random. The counter model_ms is what SplitCosts' defaults predict for that layout; chosen says whether the
// splitter would pick it. The measured medians are what the defaults come from (docs/perf.md, "split layouts").
void BM_GpuMsmG1Layout(benchmark::State& state) {
    if (gpu::devices().empty()) return state.SkipWithError("no CUDA device");
    const int log_n = (int)state.range(0);
    const int layout = (int)state.range(1), witness = (int)state.range(2);
    const size_t n = size_t(1) << log_n;
    auto& ctx = g1_context();
    std::vector<Fr> v(scalars(n).begin(), scalars(n).begin() + (ptrdiff_t)n);
    if (witness == 0)
        for (size_t i = 0; i < n; i++) {
            const uint64_t h = (i * 0x9E3779B97F4A7C15ull) >> 57;  // 0..127
            if (h < 64) v[i] = Fr::zero();
            else if (h < 125) v[i] = Fr::one();
        }
    const ScalarSource src[] = {{v, nullptr}};
    ScalarSplit sp = split_scalars_gathered(src, nullptr, true);
    const size_t ones = sp.one_indices.size(), others = sp.other_indices.size();
    if (layout == 1 && ones) {
        sp.one_bits.resize((n + 63) / 64);
        std::fill(sp.one_bits.begin(), sp.one_bits.end(), 0);
        for (uint32_t i : sp.one_indices) sp.one_bits[i / 64] |= uint64_t(1) << (i % 64);
        sp.one_bit_count = ones;
        sp.one_indices.clear();
    } else if (layout == 2) {
        ScalarSplit d;
        d.size = n;
        d.montgomery = true;
        d.dense = true;
        d.other_scalars.resize(n);
        for (size_t i = 0; i < n; i++) d.other_scalars[i] = v[i].mont_limbs();
        sp = std::move(d);
    }
    timed(state, false, log_n, [&] { benchmark::DoNotOptimize(ctx.msm_split(sp)); }, 0);
    const gpu::SplitLayout lay{layout == 2, layout == 1};
    const gpu::SplitCosts costs;
    state.counters["model_ms"] = gpu::split_layout_ns(n, ones, others, lay, costs) * 1e-6;
    const gpu::SplitLayout pick = gpu::choose_split_layout(n, ones, others, costs);
    state.counters["chosen"] = pick.dense == lay.dense && (lay.dense || pick.ones_bitmap == lay.ones_bitmap);
    state.counters["ones"] = (double)ones;
    state.counters["others"] = (double)others;
}
BENCHMARK(BM_GpuMsmG1Layout)
    ->ArgsProduct({{22, 24}, {0, 1, 2}, {0, 1}})
    ->Iterations(kReps)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void BM_GpuMsmG2(benchmark::State& state) {
    if (gpu::devices().empty()) return state.SkipWithError("no CUDA device");
    const int log_n = (int)state.range(0);
    const size_t n = size_t(1) << log_n;
    static auto bases = tiled_bases<G2Config>(n, size_t(1) << 20);
    gpu::G2MsmContext ctx(std::span<const G2Affine>(bases).first(n));
    std::span<const Fr> s(scalars(n).data(), n);
    timed(state, true, log_n, [&] { benchmark::DoNotOptimize(ctx.msm(s)); });
}
BENCHMARK(BM_GpuMsmG2)->Arg(20)->Iterations(kReps)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
#endif
