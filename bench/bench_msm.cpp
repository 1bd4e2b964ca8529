// MSM benchmarks. Targets on the 2-vCPU Zen 4 (blst): G1 2^16 in 326 ms and 2^20 in 4.39 s on 2 threads, G2 2^16
// in 1.6 s on 1 thread. Run with --benchmark_filter=Msm; the reported figures are the medians of the repetitions.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "cuzk/msm/msm.hpp"

using namespace cuzk;

namespace {

// Random bases without a scalar multiplication per point: a random walk over a table of random points
// (B_i = B_{i-1} + T_j, j random), converted with one batch_to_affine. Built once per curve and size, then reused.
template <class Cfg>
const std::vector<Affine<Cfg>>& bases(size_t n) {
    static std::vector<Affine<Cfg>> cache;
    if (cache.size() < n) {
        std::mt19937_64 rng(42);
        constexpr size_t kTable = 64;
        std::vector<Jacobian<Cfg>> table(kTable);
        for (auto& t : table) t = Jacobian<Cfg>::generator().mul(Fr::random(rng).to_canonical());
        std::vector<Jacobian<Cfg>> jac(n);
        Jacobian<Cfg> p = table[0];
        for (auto& q : jac) q = p += table[rng() % kTable];
        cache = Jacobian<Cfg>::batch_to_affine(jac);
    }
    return cache;
}

std::vector<Fr> random_scalars(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Fr> s(n);
    for (auto& x : s) x = Fr::random(rng);
    return s;
}

// A Groth16-like witness: 60% zeros, 30% ones, 10% random.
std::vector<Fr> witness_scalars(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Fr> s(n);
    for (auto& x : s) {
        unsigned u = (unsigned)(rng() % 10);
        x = u < 6 ? Fr::zero() : u < 9 ? Fr::one() : Fr::random(rng);
    }
    return s;
}

template <class Cfg>
void run_msm(benchmark::State& state, const std::vector<Fr>& scalars, const MsmConfig& cfg) {
    const size_t n = scalars.size();
    std::span<const Affine<Cfg>> b = std::span(bases<Cfg>(n)).first(n);
    for (auto _ : state) benchmark::DoNotOptimize(msm<Cfg>(b, scalars, cfg));
    state.counters["points"] = (double)n;
    state.counters["threads"] = (double)num_threads();
    state.SetItemsProcessed((int64_t)(state.iterations() * n));
}

// arg 0: log2 n; arg 1 (optional): window bits (0 = the chooser's).
void BM_MsmG1(benchmark::State& state) {
    size_t n = size_t(1) << state.range(0);
    MsmConfig cfg;
    if (state.range(1) > 0) cfg.window_bits = (unsigned)state.range(1);
    run_msm<G1Config>(state, random_scalars(n, 1), cfg);
}

void BM_MsmG1Witness(benchmark::State& state) {
    size_t n = size_t(1) << state.range(0);
    run_msm<G1Config>(state, witness_scalars(n, 2), MsmConfig{});
}

// arg 0: log2 n; arg 1: window bits (0 = the chooser's). All threads.
void BM_MsmG2(benchmark::State& state) {
    size_t n = size_t(1) << state.range(0);
    MsmConfig cfg;
    if (state.range(1) > 0) cfg.window_bits = (unsigned)state.range(1);
    run_msm<G2Config>(state, random_scalars(n, 4), cfg);
}

void BM_MsmG2OneThread(benchmark::State& state) {
    size_t n = size_t(1) << state.range(0);
    auto scalars = random_scalars(n, 3);
    ThreadPool::set_global_threads(1);
    run_msm<G2Config>(state, scalars, MsmConfig{});
    ThreadPool::set_global_threads(0);  // back to the default size (hardware concurrency)
}

}  // namespace

BENCHMARK(BM_MsmG1)
    ->Args({16, 0})
    ->Args({20, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);
// Window sweep around the chooser's picks (13 at 2^16, 16 at 2^20 on 2 threads): run with
// --benchmark_filter=MsmG1Window to re-check the cost model on a new machine.
BENCHMARK(BM_MsmG1)
    ->Name("BM_MsmG1Window")
    ->ArgsProduct({{16}, {10, 11, 12, 13, 14}})
    ->ArgsProduct({{20}, {13, 14, 15, 16, 17}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_MsmG1Witness)
    ->Arg(20)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);
// G2 window sweep (the chooser picks 12 at 2^16 on 2 threads with the IFMA kernel): --benchmark_filter=MsmG2Window.
BENCHMARK(BM_MsmG2)
    ->Name("BM_MsmG2Window")
    ->ArgsProduct({{16}, {10, 11, 12, 13, 14}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_MsmG2OneThread)
    ->Arg(16)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);
