// MSM benchmarks. Targets on the 2-vCPU Zen 4 (blst): G1 2^16 in 326 ms and 2^20 in 4.39 s on 2 threads, G2 2^16
// in 1.6 s on 1 thread. Run with --benchmark_filter=Msm; the reported figures are the medians of the repetitions.
#include <benchmark/benchmark.h>

#include <memory>
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

// BM_SplitQueries' witness, densities and tails (below).
struct SplitInputs {
    std::vector<Fr> inputs, aux;
    std::vector<uint64_t> a_in, a_aux, b_in, b_aux;
    std::shared_ptr<const SplitTail> tails[3];
};
// Made once per size (a benchmark's repetitions each run its setup again).
const SplitInputs& split_inputs(size_t n) {
    static std::unique_ptr<SplitInputs> cache;
    if (cache && cache->aux.size() == n) return *cache;
    auto in = std::make_unique<SplitInputs>();
    std::mt19937_64 rng(7);
    in->inputs.assign(40, Fr::one());
    in->aux.resize(n);
    for (size_t i = 0; i < n; i++) {
        const unsigned u = (unsigned)(rng() % 100);
        in->aux[i] = i % 50 == 7 ? Fr::random(rng) : u < 51 ? Fr::zero() : Fr::one();
    }
    auto runs = [&](size_t len, unsigned percent) {  // a density of runs of 1..256 values, `percent` selected
        std::vector<uint64_t> d((len + 63) / 64, 0);
        for (size_t i = 0; i < len;) {
            const size_t run = 1 + rng() % 256;
            if (rng() % 100 < percent)
                for (size_t k = i; k < std::min(len, i + run); k++) d[k / 64] |= uint64_t(1) << (k % 64);
            i += run;
        }
        return d;
    };
    in->a_in = runs(in->inputs.size(), 90);
    in->a_aux = runs(n, 90);
    in->b_in = runs(in->inputs.size(), 30);
    in->b_aux = runs(n, 30);
    const std::span<const Fr> values[] = {in->inputs, in->aux};
    const uint64_t* const sel[] = {in->a_in.data(), in->a_aux.data(), in->b_in.data(), in->b_aux.data(), kNoValues,
                                   kAllValues};
    const SplitHook first{{}, [](size_t, const SplitCounts&) { return SplitChoice{false, true, false}; }};
    const auto made = split_scalars_multi(values, 3, sel, nullptr, true, first);
    for (size_t q = 0; q < 3; q++)  // the others' positions, as the GPU prover keeps them for the next split
        in->tails[q] = make_split_tail(made[q].size, made[q].other_indices, q + 1);
    cache = std::move(in);
    return *cache;
}

// The GPU prover's 0/1 split of a Groth16 witness (split_scalars_multi: the A, B, L lists over the inputs and aux
// values, Montgomery scalars, ones as bitmaps, the others' positions from the split before as a tail): Filecoin-like
// values (51 % zeros, 47 % ones, 2 % others at fixed positions), densities in runs (A ~90 %, B ~30 % selected).
// arg 0: log2 of the aux values; arg 1: threads (0: all).
void BM_SplitQueries(benchmark::State& state) {
    const size_t n = size_t(1) << state.range(0);
    ThreadPool pool(state.range(1) ? (size_t)state.range(1) : num_threads());
    const SplitInputs& in = split_inputs(n);
    const std::span<const Fr> values[] = {in.inputs, in.aux};
    const uint64_t* const sel[] = {in.a_in.data(), in.a_aux.data(), in.b_in.data(), in.b_aux.data(), kNoValues,
                                   kAllValues};
    const SplitHook hook{in.tails, [](size_t, const SplitCounts&) { return SplitChoice{false, true, true}; }};
    for (auto _ : state) benchmark::DoNotOptimize(split_scalars_multi(values, 3, sel, &pool, true, hook));
    state.counters["values"] = (double)n;
    state.counters["threads"] = (double)pool.size();
    state.SetBytesProcessed((int64_t)(state.iterations() * n * sizeof(Fr)));
}

}  // namespace

BENCHMARK(BM_SplitQueries)
    ->Args({22, 1})
    ->Args({22, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);
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
