// NTT benchmarks: forward ntt at 2^16 and 2^20 and coset_ntt at 2^20, each with the global pool at 1 thread and
// at 2 threads (Arg = log2 size, second Arg = threads), real time (the work is spread over threads), medians of
// 5 repetitions. BM_ntt_threshold times small sizes forced serial vs forced parallel to place the crossover that
// ntt.cpp uses. No blst figure exists for NTTs; these numbers are cuzk's own baseline.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "cuzk/poly/domain.hpp"
#include "cuzk/poly/ntt.hpp"
#include "cuzk/util/thread_pool.hpp"

using namespace cuzk;

namespace {

std::vector<Fr> random_values(size_t n) {
    std::mt19937_64 rng(42);
    std::vector<Fr> v(n);
    for (auto& x : v) x = Fr::random(rng);
    return v;
}

template <void (*Transform)(const EvaluationDomain&, std::span<Fr>)>
void BM_transform(benchmark::State& state) {
    const auto d = EvaluationDomain::from_log_size((unsigned)state.range(0));
    ThreadPool::set_global_threads((size_t)state.range(1));
    auto v = random_values(d.size());
    Transform(d, v);  // builds the cached twiddle table outside the timed loop
    for (auto _ : state) {
        // Transforming the previous output keeps the data random without a copy in the timed region.
        Transform(d, v);
        benchmark::DoNotOptimize(v.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * (int64_t)d.size());
    state.SetBytesProcessed(state.iterations() * (int64_t)(d.size() * sizeof(Fr)));
    ThreadPool::set_global_threads(0);
}

// Arg(0): log2 n; Arg(1): 0 = forced serial, 1 = forced parallel (2 threads).
void BM_ntt_threshold(benchmark::State& state) {
    const auto d = EvaluationDomain::from_log_size((unsigned)state.range(0));
    ThreadPool::set_global_threads(2);
    const size_t saved = ntt_detail::parallel_threshold();
    ntt_detail::set_parallel_threshold(state.range(1) ? 1 : SIZE_MAX);
    auto v = random_values(d.size());
    for (auto _ : state) {
        ntt(d, v);
        benchmark::DoNotOptimize(v.data());
    }
    ntt_detail::set_parallel_threshold(saved);
    ThreadPool::set_global_threads(0);
}

// Twiddle-table construction (the cache is process-wide, so this measures what the first call pays).
void BM_twiddle_equivalent_cost(benchmark::State& state) {
    // One multiplication per table entry: time n/2 dependent-free multiplications to compare against ntt.
    const size_t n = size_t{1} << state.range(0);
    auto v = random_values(n / 2);
    const Fr r = v[0];
    for (auto _ : state) {
        for (size_t i = 1; i < v.size(); i++) v[i] = r * v[i - 1];
        benchmark::DoNotOptimize(v.data());
    }
}

}  // namespace

BENCHMARK(BM_transform<ntt>)
    ->Name("BM_ntt")
    ->Args({16, 1})->Args({16, 2})->Args({20, 1})->Args({20, 2})
    ->Unit(benchmark::kMillisecond)->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_transform<coset_ntt>)
    ->Name("BM_coset_ntt")
    ->Args({20, 1})->Args({20, 2})
    ->Unit(benchmark::kMillisecond)->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_transform<intt>)
    ->Name("BM_intt")
    ->Args({20, 2})
    ->Unit(benchmark::kMillisecond)->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_ntt_threshold)
    ->ArgsProduct({{8, 9, 10, 11, 12, 13}, {0, 1}})
    ->Unit(benchmark::kMicrosecond)->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_twiddle_equivalent_cost)->Arg(20)->Unit(benchmark::kMillisecond)->Repetitions(3)->ReportAggregatesOnly(true);
