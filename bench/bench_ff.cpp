// Field and curve-addition microbenchmarks. Each multiplication benchmark is a dependent chain (the result
// feeds the next multiplication), matching how blst's 36 ns "Fp mul" anchor was measured: latency, not throughput.
#include <benchmark/benchmark.h>

#include <random>

#include "cuzk/ec/g1.hpp"
#include "cuzk/ff/fq.hpp"
#include "cuzk/ff/fq2.hpp"
#include "cuzk/ff/fr.hpp"

using namespace cuzk;

namespace {

template <class F>
void BM_mul_chain(benchmark::State& state) {
    std::mt19937_64 rng(1);
    F a = F::random(rng), b = F::random(rng);
    for (auto _ : state) {
        for (int i = 0; i < 1000; i++) a = a * b;
        benchmark::DoNotOptimize(a);
    }
    state.SetItemsProcessed(state.iterations() * 1000);
    state.counters["ns/op"] = benchmark::Counter(1000.0 * state.iterations(),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <class F>
void BM_square_chain(benchmark::State& state) {
    std::mt19937_64 rng(1);
    F a = F::random(rng);
    for (auto _ : state) {
        for (int i = 0; i < 1000; i++) a = a.square();
        benchmark::DoNotOptimize(a);
    }
    state.counters["ns/op"] = benchmark::Counter(1000.0 * state.iterations(),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <class F>
void BM_inverse(benchmark::State& state) {
    std::mt19937_64 rng(1);
    F a = F::random(rng);
    for (auto _ : state) {
        a = a.inverse().value();
        benchmark::DoNotOptimize(a);
    }
}

void BM_g1_mixed_add_xyzz(benchmark::State& state) {
    std::mt19937_64 rng(1);
    G1Jacobian g = G1Jacobian::generator();
    G1Affine q = g.mul(Fr::random(rng).to_canonical()).to_affine();
    G1XYZZ acc = G1XYZZ::from_affine(g.mul(Fr::random(rng).to_canonical()).to_affine());
    for (auto _ : state) {
        for (int i = 0; i < 100; i++) acc = acc.add_mixed(q);
        benchmark::DoNotOptimize(acc);
    }
    state.counters["ns/op"] = benchmark::Counter(100.0 * state.iterations(),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_g1_mixed_add_jacobian(benchmark::State& state) {
    std::mt19937_64 rng(1);
    G1Jacobian g = G1Jacobian::generator();
    G1Affine q = g.mul(Fr::random(rng).to_canonical()).to_affine();
    G1Jacobian acc = g.mul(Fr::random(rng).to_canonical());
    for (auto _ : state) {
        for (int i = 0; i < 100; i++) acc = acc.add_mixed(q);
        benchmark::DoNotOptimize(acc);
    }
    state.counters["ns/op"] = benchmark::Counter(100.0 * state.iterations(),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace

BENCHMARK(BM_mul_chain<Fq>)->Name("fq_mul")->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_square_chain<Fq>)->Name("fq_square")->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_mul_chain<Fr>)->Name("fr_mul")->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_mul_chain<Fq2>)->Name("fq2_mul")->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_square_chain<Fq2>)->Name("fq2_square")->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_inverse<Fq>)->Name("fq_inverse")->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_inverse<Fr>)->Name("fr_inverse")->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_g1_mixed_add_xyzz)->Name("g1_mixed_add_xyzz")->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_g1_mixed_add_jacobian)->Name("g1_mixed_add_jacobian")->Repetitions(5)->ReportAggregatesOnly(true);
