// The streamed GPU MSM (cuzk/gpu/msm_streamed.hpp: bases in page-locked host memory, chunks through two device
// buffers) against the CPU MSM on fresh random bases and scalars: several scalar sets per call, every scalar form
// (host, device, each split layout), chunk sizes that cut the sets anywhere. Skipped without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

#include "cuzk/ec/random_points.hpp"
#include "cuzk/msm/msm.hpp"
#include "seeded_rng.hpp"
#include "split_checks.hpp"
#ifdef CUZK_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuzk/gpu/device.hpp"
#include "cuzk/gpu/msm_streamed.hpp"
#endif

using namespace cuzk;
using cuzk::testing::periodic_tail;

#ifdef CUZK_HAVE_CUDA
namespace {

bool have_gpu() { return !gpu::devices().empty(); }

// 0 with probability z, 1 with probability o (percent), random otherwise; every 97th value -1 (all digits extreme).
std::vector<Fr> scalars(size_t n, unsigned z, unsigned o, std::mt19937_64& rng) {
    std::vector<Fr> v(n);
    for (size_t i = 0; i < n; i++) {
        const unsigned k = (unsigned)(rng() % 100);
        v[i] = i % 97 == 3 ? -Fr::one() : k < z ? Fr::zero() : k < z + o ? Fr::one() : Fr::random(rng);
    }
    return v;
}

// Sets of lengths n, n / 2, n - 7 and 0 through a streamed MSM with the given chunk size, in every scalar form, two
// calls each (the second walks the other way and reuses the chunks the first left on the device).
template <class Cfg>
void check_sets(size_t n, size_t chunk, std::mt19937_64& rng) {
    SCOPED_TRACE(::testing::Message() << "n = " << n << ", chunk " << chunk);
    const auto bases = random_points<Cfg>(n, rng());
    const std::vector<std::vector<Fr>> sets = {scalars(n, 0, 0, rng), scalars(n / 2, 40, 40, rng),
                                               scalars(n - 7, 60, 30, rng), {}};
    std::vector<Jacobian<Cfg>> want;
    for (const auto& s : sets) want.push_back(msm<Cfg>(std::span(bases).first(s.size()), s));
    gpu::StreamedMsmConfig cfg;
    cfg.chunk_points = chunk;
    gpu::StreamedMsm<Cfg> sm(std::span<const Affine<Cfg>>(bases), cfg);
    ASSERT_EQ(sm.num_bases(), n);
    ASSERT_EQ(sm.chunk_points() % 64, 0u);
    const size_t chunks = (n + sm.chunk_points() - 1) / sm.chunk_points();

    std::vector<std::span<const Fr>> host(sets.begin(), sets.end());
    EXPECT_EQ(sm.msm(host), want) << "host scalars";
    EXPECT_EQ(sm.chunks_loaded(), chunks);
    EXPECT_EQ(sm.msm(host), want) << "host scalars, second call";
    EXPECT_EQ(sm.chunks_loaded(), chunks + (chunks > 2 ? chunks - 2 : 0)) << "the last call's chunks reused";
    EXPECT_EQ(sm.msm(std::span<const Fr>(sets[1])), want[1]);

    std::vector<Fr*> dev(sets.size(), nullptr);
    for (size_t b = 0; b < 3; b++) {  // the same length for all: the first 3 sets' common prefix
        ASSERT_EQ(cudaMalloc(&dev[b], n * sizeof(Fr)), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(dev[b], sets[0].data(), n * sizeof(Fr), cudaMemcpyHostToDevice), cudaSuccess);
    }
    const size_t m = n / 2;
    ASSERT_EQ(cudaMemcpy(dev[1], sets[1].data(), m * sizeof(Fr), cudaMemcpyHostToDevice), cudaSuccess);
    // A copy from pageable memory may return before its DMA lands, and the MSM's streams do not wait for the
    // default stream: the scalars must be complete when the call starts (msm_streamed.hpp).
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<const Fr*> dsets = {dev[0], dev[1], dev[2]};
    const auto dres = sm.msm_device(dsets, m);
    ASSERT_EQ(dres.size(), 3u);
    const Jacobian<Cfg> first_half = msm<Cfg>(std::span(bases).first(m), std::span(sets[0]).first(m));
    EXPECT_EQ(dres[0], first_half) << "device scalars";
    EXPECT_EQ(dres[1], want[1]) << "device scalars";
    EXPECT_EQ(dres[2], first_half) << "device scalars";
    for (Fr* d : dev) cudaFree(d);

    // Each split layout (listed ones, bitmap ones, dense, a tail with either), Montgomery scalars as the prover's.
    const std::span<const Fr> values[] = {sets[0], sets[1], sets[2]};
    const std::shared_ptr<const SplitTail> tails[] = {periodic_tail(n, 11), periodic_tail(n / 2, 5),
                                                      periodic_tail(n - 7, 3)};
    const SplitChoice layouts[][3] = {{{}, {false, true, false}, {true, false, false}},
                                      {{false, false, true}, {false, true, true}, {false, true, false}}};
    for (const auto& choice : layouts) {
        std::vector<std::vector<ScalarSplit>> per_set;
        for (size_t q = 0; q < 3; q++) {
            const uint64_t* const sel[] = {kAllValues};
            const std::shared_ptr<const SplitTail> t[] = {tails[q]};
            const SplitHook h{t, [&, q](size_t, const SplitCounts&) { return choice[q]; }};
            per_set.push_back(split_scalars_multi(std::span(values + q, 1), 1, sel, nullptr, true, h));
        }
        const std::vector<const ScalarSplit*> splits = {&per_set[0][0], &per_set[1][0], &per_set[2][0]};
        const auto got = sm.msm_split(splits);
        ASSERT_EQ(got.size(), 3u);
        for (size_t q = 0; q < 3; q++)
            EXPECT_EQ(got[q], want[q]) << "split of set " << q << (splits[q]->dense ? ", dense" : "")
                                       << (splits[q]->one_bits.empty() ? "" : ", bitmap ones")
                                       << (splits[q]->tail ? ", tail" : "");
    }
}

}  // namespace

TEST(GpuStreamedMsm, G1SetsMatchTheCpuWhateverTheChunks) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    auto rng = cuzk::testing::seeded_rng("GpuStreamedMsm.G1SetsMatchTheCpuWhateverTheChunks");
    const size_t n = 3000 + rng() % 2000;
    for (size_t chunk : {size_t(64), size_t(1000), n, size_t(0)}) check_sets<G1Config>(n, chunk, rng);
    check_sets<G1Config>(1 << 16, 1 << 13, rng);
}

TEST(GpuStreamedMsm, G2SetsMatchTheCpuWhateverTheChunks) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    auto rng = cuzk::testing::seeded_rng("GpuStreamedMsm.G2SetsMatchTheCpuWhateverTheChunks");
    const size_t n = 600 + rng() % 400;
    for (size_t chunk : {size_t(128), n}) check_sets<G2Config>(n, chunk, rng);
}

TEST(GpuStreamedMsm, FilledBasesEqualCopiedOnesAndBadCallsAreRefused) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    auto rng = cuzk::testing::seeded_rng("GpuStreamedMsm.FilledBasesEqualCopiedOnesAndBadCallsAreRefused");
    const size_t n = 1500;
    const auto bases = random_points<G1Config>(n, rng());
    const auto s = scalars(n, 30, 30, rng);
    gpu::StreamedMsmConfig cfg;
    cfg.chunk_points = 256;
    gpu::G1StreamedMsm filled(
        n, [&](size_t lo, size_t hi, G1Affine* out) { std::copy(bases.begin() + lo, bases.begin() + hi, out); },
        cfg);
    EXPECT_EQ(filled.msm(std::span<const Fr>(s)), msm_g1(bases, s));
    EXPECT_EQ(filled.host_bytes(), n * 96);
    EXPECT_EQ(filled.device_bytes(), 2 * 256 * 96);

    const std::vector<Fr> long_set(n + 1, Fr::one());
    EXPECT_THROW(filled.msm(std::span<const Fr>(long_set)), std::invalid_argument);
    EXPECT_THROW(filled.msm_device(std::vector<const Fr*>{nullptr}, 4), std::invalid_argument);
    EXPECT_THROW(filled.msm_split(std::vector<const ScalarSplit*>{nullptr}), std::invalid_argument);
    ScalarSplit bad = split_scalars(s);
    bad.other_indices.push_back((uint32_t)n);
    bad.other_scalars.push_back({});
    EXPECT_THROW(filled.msm_split(std::vector<const ScalarSplit*>{&bad}), std::invalid_argument);
    EXPECT_EQ(filled.msm(std::span<const Fr>(s)), msm_g1(bases, s)) << "still right after the refusals";

    gpu::StreamedMsmConfig pre = cfg;
    pre.msm.precompute_windows = true;
    EXPECT_THROW(gpu::G1StreamedMsm(std::span<const G1Affine>(bases), pre), std::invalid_argument);
    EXPECT_THROW(gpu::G1StreamedMsm(
                     n, [](size_t, size_t, G1Affine*) { throw std::runtime_error("a bad point"); }, cfg),
                 std::runtime_error);
    gpu::G1StreamedMsm empty(std::span<const G1Affine>(), cfg);
    EXPECT_TRUE(empty.msm(std::span<const Fr>()).is_identity());
}

// The walk's plan (host logic, no GPU needed): over random sequences of calls of 0 .. 9 chunks, each chunk runs
// once, in one direction, from the buffer that holds it; a copy never goes into the buffer in use and always
// brings the next step's chunk; what the buffers hold afterwards is what the plan says; a call after one of the
// same size starts from the chunks that one left and copies two fewer.
TEST(GpuStreamedMsm, ChunkWalksUseEveryChunkOnceFromTheBufferThatHoldsIt) {
    auto rng = cuzk::testing::seeded_rng("GpuStreamedMsm.ChunkWalksUseEveryChunkOnceFromTheBufferThatHoldsIt");
    constexpr size_t kNone = gpu::ChunkWalk::kNone;
    size_t holds[2] = {kNone, kNone};
    bool descending = false;
    size_t last = 0, reuses = 0;
    for (int call = 0; call < 2000; call++) {
        const size_t chunks = rng() % 4 == 0 ? last : rng() % 10;
        SCOPED_TRACE(::testing::Message() << "call " << call << ", " << chunks << " chunks, held " << holds[0] << " "
                                          << holds[1]);
        const gpu::ChunkWalk w = gpu::plan_chunk_walk(chunks, holds, descending);
        size_t sim[2] = {holds[0], holds[1]}, loads = 0;
        if (w.first_load != kNone) sim[w.first_buffer] = w.first_load, loads++;
        ASSERT_EQ(w.steps.size(), chunks);
        std::vector<int> seen(chunks, 0);
        for (size_t t = 0; t < chunks; t++) {
            const auto& st = w.steps[t];
            ASSERT_LT(st.chunk, chunks);
            ASSERT_LT(st.buffer, 2u);
            if (st.prefetch != kNone) {
                ASSERT_LT(t + 1, chunks) << "a copy after the last step";
                EXPECT_EQ(st.prefetch, w.steps[t + 1].chunk) << "a copy of another chunk than the next";
                sim[1 - st.buffer] = st.prefetch, loads++;
            }
            EXPECT_EQ(sim[st.buffer], st.chunk) << "step " << t << " runs from a buffer that does not hold it";
            seen[st.chunk]++;
            if (t) {
                const bool up = w.steps[1].chunk > w.steps[0].chunk;
                EXPECT_EQ(st.chunk, up ? w.steps[t - 1].chunk + 1 : w.steps[t - 1].chunk - 1) << "one direction";
            }
        }
        for (size_t j = 0; j < chunks; j++) EXPECT_EQ(seen[j], 1) << "chunk " << j;
        EXPECT_EQ(w.holds_after[0], sim[0]);
        EXPECT_EQ(w.holds_after[1], sim[1]);
        EXPECT_LE(loads, chunks);
        // The last call of this size left its last two chunks, at either end.
        const size_t lo = std::min(holds[0], holds[1]), hi = std::max(holds[0], holds[1]);
        if (chunks >= 2 && chunks == last && hi != kNone && hi == lo + 1 && (lo == 0 || hi == chunks - 1)) {
            EXPECT_EQ(loads, chunks - 2) << "the two chunks the last call left, reused";
            reuses++;
        }
        holds[0] = w.holds_after[0], holds[1] = w.holds_after[1];
        descending = w.descending_next;
        last = chunks;
    }
    EXPECT_GT(reuses, 50u) << "calls after one of the same size were checked";
}

#else
TEST(GpuStreamedMsm, MatchesCpu) { GTEST_SKIP() << "built without CUDA"; }
#endif
