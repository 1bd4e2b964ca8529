// Subgroup membership of many points: the per-point endomorphism tests (cuzk/ec/subgroup.hpp) against the batched
// check (cuzk/msm/batch_subgroup.hpp), G1 and G2; items/s is points per second. "OneThread" variants run on a pool of
// one thread (per-core throughput); the others on the global pool. Also read_parameters of a generated parameter
// file with and without the subgroup checks. Run with --benchmark_filter=Subgroup (or =ReadParameters).
#include <benchmark/benchmark.h>

#include <atomic>
#include <vector>

#include "cuzk/msm/batch_subgroup.hpp"
#include "cuzk/ec/random_points.hpp"
#include "cuzk/ec/subgroup.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/util/thread_pool.hpp"

using namespace cuzk;

namespace {

template <class Cfg>
const std::vector<Affine<Cfg>>& points(size_t n) {
    static std::vector<Affine<Cfg>> cache;
    if (cache.size() < n) cache = random_points<Cfg>(n, 0x5eb6);
    return cache;
}

ThreadPool& one_thread() {
    static ThreadPool pool(1);
    return pool;
}

template <class Cfg>
bool per_point(std::span<const Affine<Cfg>> pts, ThreadPool& pool) {
    std::atomic<bool> ok{true};
    pool.parallel_for(pts.size(), [&](size_t b, size_t e) {
        for (size_t i = b; i < e; i++) {
            bool in;
            if constexpr (std::is_same_v<Cfg, G1Config>) in = g1_in_subgroup(pts[i]);
            else in = g2_in_subgroup(pts[i]);
            if (!in) ok = false;
        }
    });
    return ok;
}

template <class Cfg>
void BM_PerPoint(benchmark::State& state, ThreadPool* pool) {
    const size_t n = size_t(1) << state.range(0);
    std::span<const Affine<Cfg>> pts = std::span(points<Cfg>(n)).first(n);
    ThreadPool& p = pool ? *pool : ThreadPool::global();
    for (auto _ : state) {
        bool ok = per_point<Cfg>(pts, p);
        if (!ok) state.SkipWithError("a subgroup point failed");
    }
    state.counters["threads"] = (double)p.size();
    state.SetItemsProcessed((int64_t)(state.iterations() * n));
}

template <class Cfg>
void BM_Batch(benchmark::State& state, ThreadPool* pool) {
    const size_t n = size_t(1) << state.range(0);
    std::span<const Affine<Cfg>> pts = std::span(points<Cfg>(n)).first(n);
    BatchSubgroupOptions opt;
    opt.pool = pool;
    ThreadPool& p = pool ? *pool : ThreadPool::global();
    const bool g2 = !std::is_same_v<Cfg, G1Config>;
    for (auto _ : state) {
        bool ok;
        if constexpr (std::is_same_v<Cfg, G1Config>) ok = g1_batch_in_subgroup(pts, opt);
        else ok = g2_batch_in_subgroup(pts, opt);
        if (!ok) state.SkipWithError("batch check rejected subgroup points");
    }
    auto plan = batch_subgroup_plan(n, g2);
    state.counters["threads"] = (double)p.size();
    state.counters["rounds"] = (double)plan.trits.size();
    state.SetItemsProcessed((int64_t)(state.iterations() * n));
}

void BM_SubgroupPerPointG1(benchmark::State& s) { BM_PerPoint<G1Config>(s, nullptr); }
void BM_SubgroupPerPointG2(benchmark::State& s) { BM_PerPoint<G2Config>(s, nullptr); }
void BM_SubgroupPerPointG1OneThread(benchmark::State& s) { BM_PerPoint<G1Config>(s, &one_thread()); }
void BM_SubgroupPerPointG2OneThread(benchmark::State& s) { BM_PerPoint<G2Config>(s, &one_thread()); }
void BM_SubgroupBatchG1(benchmark::State& s) { BM_Batch<G1Config>(s, nullptr); }
void BM_SubgroupBatchG2(benchmark::State& s) { BM_Batch<G2Config>(s, nullptr); }
void BM_SubgroupBatchG1OneThread(benchmark::State& s) { BM_Batch<G1Config>(s, &one_thread()); }
void BM_SubgroupBatchG2OneThread(benchmark::State& s) { BM_Batch<G2Config>(s, &one_thread()); }

// The per-point tests are linear in n (2^20 per-point G1 would take ~30 s an iteration here): 2^12 and 2^16. The
// batched check reaches 3 rounds (its best rate) from about 2^24 points: 2^25 G1 points (3.5 GB) took 2.3 s on 16
// threads of a Xeon with IFMA (14.8 M points/s), a size left out here for the 2-core development machine.
BENCHMARK(BM_SubgroupPerPointG1)->Arg(12)->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SubgroupPerPointG2)->Arg(12)->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SubgroupPerPointG1OneThread)->Arg(12)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SubgroupPerPointG2OneThread)->Arg(12)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SubgroupBatchG1)->Arg(12)->Arg(16)->Arg(20)->Arg(22)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SubgroupBatchG2)->Arg(12)->Arg(16)->Arg(20)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SubgroupBatchG1OneThread)->Arg(16)->Arg(20)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SubgroupBatchG2OneThread)->Arg(16)->Arg(20)->Unit(benchmark::kMillisecond)->UseRealTime();

// read_parameters of a parameter file with 2^k points in each of h, l, a, b_g1 and b_g2 (random subgroup points:
// the layout of a 2^k-constraint circuit; 2^20 is 604 MB), from memory. arg 1: check the subgroups (1) or not (0).
const std::vector<uint8_t>& param_bytes(unsigned log_n) {
    static std::vector<uint8_t> cache;
    static unsigned cached = 0;
    if (cached != log_n) {
        const size_t n = size_t(1) << log_n;
        groth16::Parameters p;
        p.vk.alpha_g1 = p.vk.beta_g1 = p.vk.delta_g1 = G1Affine::generator();
        p.vk.beta_g2 = p.vk.gamma_g2 = p.vk.delta_g2 = G2Affine::generator();
        p.vk.ic = random_points<G1Config>(4, 1);
        p.h = random_points<G1Config>(n, 2);
        p.l = random_points<G1Config>(n, 3);
        p.a = random_points<G1Config>(n, 4);
        p.b_g1 = random_points<G1Config>(n, 5);
        p.b_g2 = random_points<G2Config>(n, 6);
        cache = formats::parameters_to_bytes(p);
        cached = log_n;
    }
    return cache;
}

void BM_ReadParameters(benchmark::State& state) {
    const auto& bytes = param_bytes((unsigned)state.range(0));
    formats::ParamsReadOptions opt;
    opt.check_subgroup = state.range(1) != 0;
    for (auto _ : state) benchmark::DoNotOptimize(formats::read_parameters(bytes, "<bench>", opt));
    state.counters["MB"] = (double)bytes.size() / 1e6;
    state.counters["threads"] = (double)num_threads();
    state.SetBytesProcessed((int64_t)(state.iterations() * bytes.size()));
}
BENCHMARK(BM_ReadParameters)
    ->Args({16, 0})
    ->Args({16, 1})
    ->Args({20, 0})
    ->Args({20, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

}  // namespace
