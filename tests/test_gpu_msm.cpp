// GPU MSM (cuzk/gpu/msm.hpp) against the CPU MSM (cuzk/msm/msm.hpp) on fresh random bases and scalars. Without a
// GPU (CI) the tests are skipped; the CUDA code itself is still compiled there.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "cuzk/ec/random_points.hpp"
#include "cuzk/msm/msm.hpp"
#ifdef CUZK_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuzk/backends/cuda/device_split.hpp"
#include "cuzk/gpu/device.hpp"
#include "cuzk/gpu/msm.hpp"
#endif
#include "seeded_rng.hpp"

using namespace cuzk;

#ifdef CUZK_HAVE_CUDA
namespace {

enum class Kind { Dense, Sparse, ZeroOne, AllZero, Edge, Same };
const char* kind_name(Kind k) {
    switch (k) {
        case Kind::Dense: return "dense";
        case Kind::Sparse: return "sparse";
        case Kind::ZeroOne: return "zero-one";
        case Kind::AllZero: return "all-zero";
        case Kind::Edge: return "edge";
        default: return "same";
    }
}

// A case's seed (traced by check()), drawn from the test's printed seed (seeded_rng.hpp).
uint64_t fresh_seed() { return cuzk::testing::test_rng()(); }

// 2^k as a field element (k < 255, so 2^k < r).
Fr pow2(unsigned k) {
    limbs_t<4> v{};
    v[k / 64] = uint64_t(1) << (k % 64);
    return Fr::from_canonical_unchecked(v);
}

std::vector<Fr> make_scalars(size_t n, Kind kind, std::mt19937_64& rng) {
    std::vector<Fr> s(n);
    Fr same = Fr::random(rng);
    for (size_t i = 0; i < n; i++) {
        switch (kind) {
            case Kind::Dense: s[i] = Fr::random(rng); break;
            case Kind::Sparse: s[i] = rng() % 10 == 0 ? Fr::random(rng) : Fr::zero(); break;
            case Kind::ZeroOne: {  // a Groth16-like witness: 60% zeros, 30% ones, 10% random
                unsigned u = (unsigned)(rng() % 10);
                s[i] = u < 6 ? Fr::zero() : u < 9 ? Fr::one() : Fr::random(rng);
                break;
            }
            case Kind::AllZero: s[i] = Fr::zero(); break;
            case Kind::Edge: {
                // r - 1 (every signed digit at its extreme, carries through all windows), 1, 2^k, r - 2^k, 0.
                switch (i % 6) {
                    case 0: s[i] = -Fr::one(); break;
                    case 1: s[i] = Fr::one(); break;
                    case 2: s[i] = pow2((unsigned)(i / 6 % 255)); break;
                    case 3: s[i] = -pow2((unsigned)(i / 6 % 255)); break;
                    case 4: s[i] = Fr::zero(); break;
                    default: s[i] = Fr::random(rng); break;
                }
                break;
            }
            case Kind::Same: s[i] = same; break;  // one bucket per window holds every point
        }
    }
    return s;
}

template <class Cfg>
void check(size_t n, Kind kind, uint64_t seed, const gpu::GpuMsmConfig& cfg = {}) {
    SCOPED_TRACE(::testing::Message() << "n = " << n << ", " << kind_name(kind) << ", seed " << seed
                                      << ", window_bits " << cfg.window_bits << ", piece " << cfg.piece_points
                                      << ", lanes " << cfg.reduce_lanes << ", levels " << cfg.reduce_levels
                                      << ", walk " << cfg.walk_chunks);
    std::mt19937_64 rng(seed);
    auto bases = random_points<Cfg>(n, rng());
    auto scalars = make_scalars(n, kind, rng);
    const Jacobian<Cfg> want = msm<Cfg>(bases, scalars);
    if (kind == Kind::AllZero) {
        ASSERT_TRUE(want.is_identity());
    }
    gpu::MsmContext<Cfg> ctx(std::span<const Affine<Cfg>>(bases), cfg);
    EXPECT_EQ(ctx.msm(scalars), want) << "Pippenger on every scalar";
    EXPECT_EQ(ctx.msm_split(split_scalars(scalars)), want) << "0/1 split";
    const ScalarSource src[] = {{scalars, nullptr}};
    EXPECT_EQ(ctx.msm_split(split_scalars_gathered(src, nullptr, true)), want) << "0/1 split, Montgomery scalars";
    // The device layouts (bitmap ones, dense, tails), the layout forced both ways by the costs.
    const std::span<const Fr> values[] = {scalars};
    const uint64_t* const sel[] = {kAllValues};
    for (double upload : {0.0, 0.04, 10.0}) {
        gpu::SplitOptions o;
        o.costs.upload_per_byte = upload;
        auto sp = gpu::split_scalars_for_device(values, 1, sel, o);
        EXPECT_EQ(ctx.msm_split(sp[0]), want) << "device split, upload cost " << upload << (sp[0].dense ? ", dense" : "")
                                              << (sp[0].one_bits.empty() ? "" : ", bitmap ones");
    }
}

bool have_gpu() { return !gpu::devices().empty(); }

gpu::GpuMsmConfig tuned(unsigned window_bits, unsigned piece_points, bool precompute = false) {
    gpu::GpuMsmConfig c;
    c.window_bits = window_bits;
    c.piece_points = piece_points;
    c.precompute_windows = precompute;
    return c;
}

}  // namespace

TEST(GpuMsm, G1SmallSizesAllKinds) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    for (size_t n : {1, 2, 10, 1 << 10})
        for (Kind k : {Kind::Dense, Kind::Sparse, Kind::ZeroOne, Kind::AllZero, Kind::Edge, Kind::Same})
            check<G1Config>(n, k, fresh_seed());
}

TEST(GpuMsm, G1LargeSizes) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    for (size_t n : {1 << 14, 1 << 16})
        for (Kind k : {Kind::Dense, Kind::Sparse, Kind::ZeroOne, Kind::Edge, Kind::Same})
            check<G1Config>(n, k, fresh_seed());
    check<G1Config>(1 << 20, Kind::Dense, fresh_seed());
    check<G1Config>(1 << 20, Kind::ZeroOne, fresh_seed());
}

TEST(GpuMsm, G2Sizes) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    for (size_t n : {1, 2, 10, 1 << 10})
        for (Kind k : {Kind::Dense, Kind::Sparse, Kind::ZeroOne, Kind::AllZero, Kind::Edge, Kind::Same})
            check<G2Config>(n, k, fresh_seed());
    check<G2Config>(1 << 14, Kind::Dense, fresh_seed());
    check<G2Config>(1 << 14, Kind::ZeroOne, fresh_seed());
    check<G2Config>(1 << 16, Kind::Dense, fresh_seed());
    check<G2Config>(1 << 16, Kind::Sparse, fresh_seed());
    // The range goes to 2^20 for G2 as well (the CPU reference takes a few seconds on a 16-core host).
    check<G2Config>(1 << 18, Kind::Dense, fresh_seed());
    check<G2Config>(1 << 20, Kind::ZeroOne, fresh_seed());
}

// Fixed window widths from 2 to 20 bits, and pieces small enough that every bucket is split over several threads
// (the partial-combining kernel then does real work).
TEST(GpuMsm, WindowWidthsAndPieces) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    for (unsigned c : {2u, 3u, 7u, 13u, 20u}) check<G1Config>(1 << 12, Kind::Dense, fresh_seed(), tuned(c, 0));
    for (unsigned piece : {1u, 3u}) {
        check<G1Config>(1 << 12, Kind::Dense, fresh_seed(), tuned(8, piece));
        check<G1Config>(1 << 12, Kind::Same, fresh_seed(), tuned(0, piece));
        check<G2Config>(1 << 10, Kind::Dense, fresh_seed(), tuned(6, piece));
    }
}

// Bases at infinity, repeated bases with equal scalars (a bucket adds a point to itself: the doubling case) and
// opposite bases with equal scalars (a bucket reaches the identity mid-way).
template <class Cfg>
void check_special_bases(size_t n, uint64_t seed, const gpu::GpuMsmConfig& cfg = {}) {
    SCOPED_TRACE(::testing::Message() << "n = " << n << ", seed " << seed << ", lanes " << cfg.reduce_lanes
                                      << ", levels " << cfg.reduce_levels);
    std::mt19937_64 rng(seed);
    auto bases = random_points<Cfg>(n, rng());
    auto scalars = make_scalars(n, Kind::Dense, rng);
    for (size_t i = 0; i + 8 <= n; i += 8) {
        bases[i] = Affine<Cfg>::identity();
        bases[i + 1] = bases[i + 2];
        scalars[i + 1] = scalars[i + 2];
        bases[i + 3] = -bases[i + 4];
        scalars[i + 3] = scalars[i + 4];
        bases[i + 5] = bases[i + 6];  // repeated base, different scalar
    }
    const Jacobian<Cfg> want = msm<Cfg>(bases, scalars);
    gpu::MsmContext<Cfg> ctx{std::span<const Affine<Cfg>>(bases), cfg};
    EXPECT_EQ(ctx.msm(scalars), want);
    EXPECT_EQ(ctx.msm_split(split_scalars(scalars)), want);
    // Every base repeated with scalar 1 and the same scalar: every bucket and the ones tree double.
    std::vector<Affine<Cfg>> rep(n, bases[2]);
    std::vector<Fr> ones(n, Fr::one()), same(n, scalars[2]);
    gpu::MsmContext<Cfg> rctx{std::span<const Affine<Cfg>>(rep), cfg};
    EXPECT_EQ(rctx.msm_split(split_scalars(ones)), msm<Cfg>(rep, ones));
    EXPECT_EQ(rctx.msm(ones), msm<Cfg>(rep, ones));
    EXPECT_EQ(rctx.msm(same), msm<Cfg>(rep, same));
}

// The runs that chunk boundaries cut, joined three ways: one thread's walk (runs within walk_chunks), a warp a run
// (longer), the merge tree (more than 2,048 chunks). One-entry chunks make a run span as many chunks as it has
// points: c = 8 gives runs of ~32 (G1, 2^12 points) and ~8 (G2, 2^10); equal scalars put a window's every point in
// one run, 2,048 chunks at 2^11 (the warps' reach) and 4,096 at 2^12 (the tree).
TEST(GpuMsm, RunsJoinedByWalksWarpsAndTree) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    for (unsigned walk : {1u, 4u, 64u}) {
        for (unsigned piece : {1u, 2u, 7u}) {
            gpu::GpuMsmConfig c = tuned(8, piece);
            c.walk_chunks = walk;
            check<G1Config>(1 << 12, Kind::Dense, fresh_seed(), c);
            check<G1Config>(1 << 10, Kind::Edge, fresh_seed(), c);
            check<G2Config>(1 << 10, Kind::Dense, fresh_seed(), c);
        }
        gpu::GpuMsmConfig s = tuned(0, 1);
        s.walk_chunks = walk;
        check<G1Config>(1 << 11, Kind::Same, fresh_seed(), s);
        check<G1Config>(1 << 12, Kind::Same, fresh_seed(), s);
        check<G2Config>(1 << 11, Kind::Same, fresh_seed(), s);
    }
    check_special_bases<G1Config>(1 << 12, fresh_seed(), tuned(8, 1));
}

TEST(GpuMsm, InfinityRepeatedAndOppositeBases) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    check_special_bases<G1Config>(1 << 12, fresh_seed());
    check_special_bases<G2Config>(1 << 10, fresh_seed());
}

// The bucket reduction with one point per thread and with one point per lane pair (each lane half of it), for both
// curves whatever their default: every scalar kind (one bucket per window for equal scalars: the walk's sums double),
// window widths whose segments are 1, 2 or 128 buckets (every walk but the first ends in a multiplication by its
// offset, or in two levels a second reduction weighs those sums), and the exceptional bases (doubling, opposite
// points, points at infinity); each in one level and in two where segments are short.
TEST(GpuMsm, ReductionOnOneOrTwoLanes) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    for (unsigned levels : {1u, 2u}) {
        for (unsigned lanes : {1u, 2u}) {
            auto with = [&](gpu::GpuMsmConfig c) {
                c.reduce_lanes = lanes;
                c.reduce_levels = levels;
                return c;
            };
            const gpu::GpuMsmConfig c = with({});
            for (Kind k : {Kind::Dense, Kind::ZeroOne, Kind::Edge, Kind::Same}) {
                check<G1Config>(1 << 10, k, fresh_seed(), c);
                check<G2Config>(1 << 10, k, fresh_seed(), c);
            }
            check<G1Config>(1 << 16, Kind::Dense, fresh_seed(), c);
            check<G2Config>(1 << 14, Kind::Dense, fresh_seed(), c);
            for (unsigned bits : {6u, 13u}) {  // 32 buckets, one a segment; 4096 buckets, two a segment
                const gpu::GpuMsmConfig p = with(tuned(bits, 0));
                check<G1Config>(1 << 10, Kind::Same, fresh_seed(), p);
                check<G1Config>(1 << 12, Kind::Dense, fresh_seed(), p);
                check<G2Config>(1 << 10, Kind::Dense, fresh_seed(), p);
                check<G2Config>(1 << 10, Kind::Same, fresh_seed(), p);
            }
            // 2^19 buckets a window in segments of 128 (the default takes pairs there for G1).
            const gpu::GpuMsmConfig wide = with(tuned(20, 0));
            check<G1Config>(1 << 12, Kind::Dense, fresh_seed(), wide);
            check<G1Config>(1 << 12, Kind::Same, fresh_seed(), wide);
            check_special_bases<G1Config>(1 << 10, fresh_seed(), c);
            check_special_bases<G2Config>(1 << 10, fresh_seed(), c);
        }
    }
}

// One context, many calls: different scalar vectors, prefixes of the bases, repeats give the same result, and the
// scratch stays at the largest call.
TEST(GpuMsm, ContextReuse) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    const uint64_t seed = fresh_seed();
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed);
    const size_t n = 1 << 14;
    auto bases = random_points<G1Config>(n, rng());
    gpu::G1MsmContext ctx(bases);
    EXPECT_EQ(ctx.num_bases(), n);
    EXPECT_EQ(ctx.resident_bytes(), n * 2 * sizeof(Fq)) << "packed affine bases: x, y, no flag";
    auto s1 = make_scalars(n, Kind::Dense, rng);
    auto s2 = make_scalars(n, Kind::ZeroOne, rng);
    const G1Jacobian r1 = msm_g1(bases, s1), r2 = msm_g1(bases, s2);
    EXPECT_EQ(ctx.msm(s1), r1);
    const size_t scratch = ctx.scratch_bytes();
    EXPECT_GE(scratch, ctx.call_bytes(n));
    EXPECT_GT(ctx.call_bytes(n), ctx.call_bytes(n / 4));
    EXPECT_EQ(ctx.msm(s2), r2);
    EXPECT_EQ(ctx.msm_split(split_scalars(s1)), r1);
    EXPECT_EQ(ctx.msm(s1), r1);
    EXPECT_EQ(ctx.scratch_bytes(), scratch) << "no growth for calls no larger than the first";
    // A prefix of the bases.
    std::span<const Fr> half(s1.data(), n / 2);
    EXPECT_EQ(ctx.msm(half), msm_g1(std::span<const G1Affine>(bases).first(n / 2), half));
    // One-shot forms.
    EXPECT_EQ(gpu::msm_g1_gpu(bases, s2), r2);
    EXPECT_EQ(gpu::msm_g1_split_gpu(bases, split_scalars(s2)), r2);
    auto g2b = random_points<G2Config>(256, rng());
    auto g2s = make_scalars(256, Kind::ZeroOne, rng);
    EXPECT_EQ(gpu::msm_g2_gpu(g2b, g2s), msm_g2(g2b, g2s));
    EXPECT_EQ(gpu::msm_g2_split_gpu(g2b, split_scalars(g2s)), msm_g2(g2b, g2s));
    // Empty MSM: the identity.
    EXPECT_TRUE(ctx.msm(std::span<const Fr>()).is_identity());
    // Scalars already on the device (as the prover's H is): read in place.
    Fr* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, n * sizeof(Fr)), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d, s1.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(ctx.msm_device(d, n), r1);
    EXPECT_EQ(ctx.msm_device(d, n / 2), msm_g1(std::span<const G1Affine>(bases).first(n / 2), half));
    EXPECT_THROW(ctx.msm_device(d, n + 1), std::invalid_argument);
    EXPECT_TRUE(ctx.msm_device(nullptr, 0).is_identity());
    // Device scalars take no room in the scratch: a context that only reads them in place holds 32 bytes a scalar
    // less than a host call needs.
    gpu::G1MsmContext in_place(bases);
    EXPECT_EQ(in_place.msm_device(d, n), r1);
    EXPECT_EQ(in_place.scratch_bytes(), in_place.call_bytes(n) - n * sizeof(Fr));
    // The same scratch reserved ahead (a prover's warm-up): the call then finds it, and grows nothing.
    gpu::G1MsmContext reserved(bases);
    EXPECT_EQ(reserved.scratch_bytes(), 0u);
    EXPECT_THROW(reserved.reserve_device_call(n + 1), std::invalid_argument);
    reserved.reserve_device_call(0);
    EXPECT_EQ(reserved.scratch_bytes(), 0u);
    reserved.reserve_device_call(n);
    EXPECT_EQ(reserved.scratch_bytes(), in_place.scratch_bytes());
    EXPECT_EQ(reserved.msm_device(d, n), r1);
    EXPECT_EQ(reserved.scratch_bytes(), in_place.scratch_bytes());
    reserved.reserve_device_call(n / 4);
    EXPECT_EQ(reserved.scratch_bytes(), in_place.scratch_bytes()) << "a smaller reservation keeps what is held";
    cudaFree(d);
}

// Precomputed window multiples: the table (2^(j c) B_i, built on the device with batched inversions) and the one
// bucket set shared by all windows, for the model's c and for fixed ones, on every scalar kind, prefixes, the 0/1
// split, and bases at infinity, repeated and opposite.
TEST(GpuMsm, PrecomputedWindows) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    gpu::GpuMsmConfig pre;
    pre.precompute_windows = true;
    for (size_t n : {size_t(1), size_t(37), size_t(1) << 12, size_t(1) << 16})
        for (Kind k : {Kind::Dense, Kind::Sparse, Kind::ZeroOne, Kind::Edge, Kind::Same})
            check<G1Config>(n, k, fresh_seed(), pre);
    for (unsigned c : {2u, 5u, 13u, 17u}) {
        gpu::GpuMsmConfig cfg = pre;
        cfg.window_bits = c;
        check<G1Config>(3000, Kind::Edge, fresh_seed(), cfg);
        check<G1Config>(3000, Kind::Dense, fresh_seed(), cfg);
    }
    check<G2Config>(1 << 10, Kind::Dense, fresh_seed(), pre);
    check<G2Config>(1 << 10, Kind::Edge, fresh_seed(), pre);
    // The one bucket set's reduction in one level and in two (segments of one bucket at c = 13 and 16).
    for (unsigned levels : {1u, 2u})
        for (unsigned c : {13u, 16u}) {
            gpu::GpuMsmConfig cfg = pre;
            cfg.window_bits = c;
            cfg.reduce_levels = levels;
            check<G1Config>(1 << 12, Kind::Dense, fresh_seed(), cfg);
            check<G1Config>(1 << 10, Kind::Same, fresh_seed(), cfg);
            check<G2Config>(1 << 10, Kind::Dense, fresh_seed(), cfg);
            check<G2Config>(1 << 9, Kind::Edge, fresh_seed(), cfg);
        }
    check_special_bases<G1Config>(1 << 12, fresh_seed(), pre);
    check_special_bases<G2Config>(1 << 9, fresh_seed(), pre);

    const uint64_t seed = fresh_seed();
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed);
    const size_t n = 5000;
    auto bases = random_points<G1Config>(n, rng());
    gpu::G1MsmContext ctx(bases, pre);
    const unsigned c = ctx.precomputed_window_bits();
    EXPECT_EQ(c, gpu::gpu_msm_window_bits(n, gpu::devices()[0].sm_count, true));
    EXPECT_EQ(ctx.resident_bytes(), gpu::G1MsmContext::precomputed_table_bytes(n, c));
    EXPECT_EQ(ctx.resident_bytes(), n * ((256 + c - 1) / c) * 2 * sizeof(Fq));
    auto s = make_scalars(n, Kind::Dense, rng);
    std::span<const Fr> prefix(s.data(), 1234);
    EXPECT_EQ(ctx.msm(prefix), msm_g1(std::span<const G1Affine>(bases).first(1234), prefix));
    ctx.tuning().window_bits = c + 1;  // ignored: the table fixes c
    EXPECT_EQ(ctx.msm(s), msm_g1(bases, s));
}

// Windows per sort (no GPU needed): a group stays within the passes of one window's keys when that is cheaper.
// The 32 GiB PoRep's H query (2^27 scalars, c = 22: 12 windows, memory for 8 per group) sorts in groups of 7 and 5
// (3 passes of 8 bits each: keys below 7 * 2^21 + 1 < 2^24) instead of 8 and 4 (25 bits, 4 passes).
TEST(GpuMsm, WindowsPerSort) {
    const size_t n27 = size_t(1) << 27;
    EXPECT_EQ(gpu::gpu_msm_windows_per_group(12, 22, 8, n27), 7u);
    EXPECT_EQ(gpu::gpu_msm_windows_per_group(12, 22, 12, n27), 7u);
    // 2^26 at c = 20: 13 windows, keys below 13 * 2^19 + 1 < 2^24, one group as before.
    EXPECT_EQ(gpu::gpu_msm_windows_per_group(13, 20, 16, size_t(1) << 26), 13u);
    // 2^20 at c = 16: one group needs 3 passes against one window's 2, but 17 sorts would cost more.
    EXPECT_EQ(gpu::gpu_msm_windows_per_group(17, 16, 17, size_t(1) << 20), 17u);
    // Never more than the memory allows or the windows there are, never zero.
    for (unsigned c = 2; c <= 24; c++)
        for (unsigned most : {1u, 3u, 8u, 200u})
            for (unsigned k : {10u, 20u, 27u}) {
                const unsigned W = (256 + c - 1) / c;
                const unsigned g = gpu::gpu_msm_windows_per_group(W, c, most, size_t(1) << k);
                EXPECT_GE(g, 1u);
                EXPECT_LE(g, std::min(most, W)) << "c = " << c << ", most " << most << ", 2^" << k;
            }
}

// The window model (no GPU needed): on the H200's 132 SMs it reproduces the widths the sweep found best, never
// shrinks as n grows, and a precomputed table (one reduction for all windows) never makes it narrower.
TEST(GpuMsm, WindowModel) {
    EXPECT_EQ(gpu::gpu_msm_window_bits(size_t(1) << 20, 132), 16u);
    EXPECT_EQ(gpu::gpu_msm_window_bits(size_t(1) << 22, 132), 16u);
    EXPECT_EQ(gpu::gpu_msm_window_bits(size_t(1) << 24, 132), 20u);
    EXPECT_EQ(gpu::gpu_msm_window_bits(size_t(1) << 26, 132), 20u);
    // With a table: widths whose top window holds at least half a window's bits (not 19 at 2^20: 8 top bits).
    EXPECT_EQ(gpu::gpu_msm_window_bits(size_t(1) << 20, 132, true), 20u);
    EXPECT_EQ(gpu::gpu_msm_window_bits(size_t(1) << 24, 132, true), 22u);
    EXPECT_EQ(gpu::gpu_msm_window_bits(size_t(1) << 26, 132, true), 24u);
    for (unsigned sm : {8u, 20u, 132u}) {
        unsigned prev = 0, prev_pre = 0;
        for (unsigned k = 0; k <= 28; k++) {
            const size_t n = size_t(1) << k;
            const unsigned c = gpu::gpu_msm_window_bits(n, sm), cp = gpu::gpu_msm_window_bits(n, sm, true);
            EXPECT_GE(c, prev) << "n = 2^" << k << ", " << sm << " SMs";
            EXPECT_GE(cp, prev_pre) << "n = 2^" << k << ", " << sm << " SMs";
            EXPECT_GE(cp, c) << "n = 2^" << k << ", " << sm << " SMs";
            EXPECT_GE(c, 2u);
            EXPECT_LE(cp, 24u);
            prev = c, prev_pre = cp;
        }
    }
}

// The walks' default cap: a warp a run past 4 chunks only where the top window's runs span tens of chunks (2^27 at
// c = 22, 13 top bits: ~32 chunks; also in the H query's smaller window groups of an 80 GB card), one thread's walk
// of up to 64 chunks at 2^20 .. 2^26 (top windows of 15 bits: runs of a few chunks).
TEST(GpuMsm, DefaultWalk) {
    EXPECT_EQ(gpu::gpu_msm_default_walk(size_t(1) << 27), 4u);
    EXPECT_EQ(gpu::gpu_msm_default_walk(size_t(1) << 27, (size_t(1) << 27) * 3), 4u);
    for (unsigned k : {20u, 22u, 24u, 26u}) EXPECT_EQ(gpu::gpu_msm_default_walk(size_t(1) << k), 64u) << "2^" << k;
}

TEST(GpuMsm, RejectsBadInput) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    auto bases = random_points<G1Config>(16, fresh_seed());
    gpu::G1MsmContext ctx(bases);
    std::vector<Fr> too_many(17, Fr::one());
    EXPECT_THROW(ctx.msm(too_many), std::invalid_argument);
    ScalarSplit bad;
    bad.size = 16;
    bad.one_indices = {3, 16};
    EXPECT_THROW(ctx.msm_split(bad), std::invalid_argument);
    bad.size = 17;
    EXPECT_THROW(ctx.msm_split(bad), std::invalid_argument);
    gpu::G1MsmContext wide(bases, tuned(25, 0));
    EXPECT_THROW(wide.msm(std::vector<Fr>(16, Fr::one())), std::invalid_argument);
    gpu::GpuMsmConfig three;
    three.reduce_lanes = 3;
    gpu::G1MsmContext three_lanes(bases, three);
    EXPECT_THROW(three_lanes.msm(std::vector<Fr>(16, Fr::one())), std::invalid_argument) << "3 lanes per point";
    EXPECT_THROW(gpu::G1MsmContext(bases, tuned(25, 0, true)), std::invalid_argument) << "table with c = 25";
    EXPECT_THROW(gpu::G1MsmContext::precomputed_table_bytes(16, 1), std::invalid_argument);
    EXPECT_THROW(gpu::msm_g1_gpu(bases, std::vector<Fr>(15, Fr::one())), std::invalid_argument);
}

namespace {
// K random bitmaps over n bases (~48 % ones each, as a PoRep witness's), with the special cases a C2's partitions can
// give: a bitmap equal to another, one with no ones, one all ones; plus the bits past `count` set (to be ignored).
std::vector<std::vector<uint64_t>> pattern_bitmaps(size_t K, size_t n, size_t count, std::mt19937_64& rng) {
    const size_t words = (n + 63) / 64;
    std::vector<std::vector<uint64_t>> bm(K, std::vector<uint64_t>(words, 0));
    std::bernoulli_distribution one(0.48);
    for (size_t p = 0; p < K; p++) {
        for (size_t i = 0; i < n; i++) {
            bool bit = one(rng);
            if (K >= 3 && p == 1) bit = (bm[0][i / 64] >> (i % 64)) & 1;  // equal to bitmap 0
            if (K >= 3 && p == 2) bit = false;                              // none
            if (K >= 4 && p == 3) bit = true;                               // all
            if (i >= count) bit = true;
            if (bit) bm[p][i / 64] |= uint64_t(1) << (i % 64);
        }
    }
    return bm;
}

// sum_patterns against each bitmap's sum on the CPU (the MSM of its 0/1 scalars).
template <class Cfg>
void check_patterns(gpu::MsmContext<Cfg>& ctx, std::span<const Affine<Cfg>> bases, size_t K, size_t count,
                    std::mt19937_64& rng) {
    SCOPED_TRACE(::testing::Message() << K << " bitmaps over " << count << " of " << bases.size() << " bases");
    const auto bm = pattern_bitmaps(K, bases.size(), count, rng);
    std::vector<std::span<const uint64_t>> spans(bm.begin(), bm.end());
    const auto got = ctx.sum_patterns(spans, count);
    ASSERT_EQ(got.size(), K);
    for (size_t p = 0; p < K; p++) {
        std::vector<Fr> s(count, Fr::zero());
        for (size_t i = 0; i < count; i++)
            if ((bm[p][i / 64] >> (i % 64)) & 1) s[i] = Fr::one();
        EXPECT_EQ(got[p], msm<Cfg>(bases.first(count), s)) << "bitmap " << p;
    }
}
}  // namespace

// The ones of several 0/1 vectors at once (MsmContext::sum_patterns): each base added once into the bucket of its
// pattern, each vector's sum from the buckets of the patterns that hold it. Against the CPU for 1 .. 16 bitmaps,
// counts that are not multiples of 64, equal, empty and full bitmaps, bases at infinity, repeated and opposite
// bases (doublings and cancellations inside a bucket's run), chunks of 1 and 7 entries (runs joined by walks, warps
// and the tree), G1 and G2; and the bad inputs.
TEST(GpuMsm, PatternSumsEqualEachBitmapsOnes) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    auto rng = cuzk::testing::seeded_rng("GpuMsm.PatternSumsEqualEachBitmapsOnes");
    auto g1 = random_points<G1Config>(3001, rng());
    for (size_t i = 0; i < g1.size(); i += 97) g1[i] = G1Affine::identity();
    for (size_t i = 5; i + 1 < g1.size(); i += 89) g1[i + 1] = g1[i];        // repeated: a doubling in a run
    for (size_t i = 7; i + 1 < g1.size(); i += 83) g1[i + 1] = -g1[i];  // opposite: a cancellation
    {
        gpu::G1MsmContext ctx{std::span<const G1Affine>(g1)};
        for (size_t K : {size_t{1}, size_t{2}, size_t{4}, size_t{10}, size_t{16}})
            check_patterns<G1Config>(ctx, g1, K, g1.size(), rng);
        check_patterns<G1Config>(ctx, g1, 5, 1000, rng);
        check_patterns<G1Config>(ctx, g1, 3, 1, rng);
        const auto none = ctx.sum_patterns(std::vector<std::span<const uint64_t>>(3), 0);
        ASSERT_EQ(none.size(), 3u);
        for (const auto& r : none) EXPECT_TRUE(r.is_identity()) << "no bases";
    }
    for (unsigned piece : {1u, 7u}) {
        gpu::G1MsmContext ctx(std::span<const G1Affine>(g1), tuned(0, piece));
        check_patterns<G1Config>(ctx, g1, 3, g1.size(), rng);
        check_patterns<G1Config>(ctx, g1, 10, 2049, rng);
    }
    auto g2 = random_points<G2Config>(700, rng());
    g2[3] = G2Affine::identity();
    g2[9] = g2[8];
    gpu::G2MsmContext g2ctx{std::span<const G2Affine>(g2)};
    check_patterns<G2Config>(g2ctx, g2, 6, g2.size(), rng);
    check_patterns<G2Config>(g2ctx, g2, 2, 333, rng);

    gpu::G1MsmContext ctx{std::span<const G1Affine>(g1).first(100)};
    const std::vector<uint64_t> two(2, ~uint64_t{0}), one(1, ~uint64_t{0});
    EXPECT_THROW(ctx.sum_patterns({}, 10), std::invalid_argument) << "no bitmaps";
    EXPECT_THROW(ctx.sum_patterns(std::vector<std::span<const uint64_t>>(17, two), 100), std::invalid_argument)
        << "17 bitmaps";
    EXPECT_THROW(ctx.sum_patterns(std::vector<std::span<const uint64_t>>{two, one}, 100), std::invalid_argument)
        << "a bitmap of 1 word for 100 bases";
    EXPECT_THROW(ctx.sum_patterns(std::vector<std::span<const uint64_t>>{two}, 101), std::invalid_argument)
        << "more bases than the context's";
    EXPECT_EQ(ctx.sum_patterns(std::vector<std::span<const uint64_t>>{two, one}, 64).size(), 2u) << "64 bases, 1 word";
    EXPECT_GT(ctx.pattern_call_bytes(10, 100), 0u);
}

#else
TEST(GpuMsm, MatchesCpu) { GTEST_SKIP() << "built without CUDA"; }
#endif

#ifdef CUZK_HAVE_CUDA
namespace {
// Random others at every `period`-th position from `shift` on (so shift picks the tail), 0/1 elsewhere, and
// `extra` others outside those positions.
std::vector<Fr> tail_shaped(std::mt19937_64& rng, size_t len, size_t period, size_t shift, size_t extra = 0) {
    std::vector<Fr> v(len);
    for (size_t i = 0; i < len; i++)
        v[i] = (i + shift) % period == 0 ? Fr::random(rng) : rng() % 2 ? Fr::one() : Fr::zero();
    for (size_t e = 0; e < extra; e++) v[(e * period + 4 + shift) % len] = Fr::random(rng);
    return v;
}

// The device split of v that reuses `tail` where the positions allow (a tail of its own otherwise).
ScalarSplit split_with_tail(const std::vector<Fr>& v, const std::shared_ptr<const SplitTail>& tail, ThreadPool& pool) {
    const std::span<const Fr> values[] = {v};
    const uint64_t* const sel[] = {kAllValues};
    const std::shared_ptr<const SplitTail> tails[] = {tail};
    gpu::SplitOptions o;
    o.tails = tails;
    return std::move(gpu::split_scalars_for_device(values, 1, sel, o, &pool)[0]);
}

// ctx's sum of v, split reusing `tail` where the positions allow, against the CPU's over the first v.size() bases;
// `tail` becomes the split's tail, which is returned.
std::shared_ptr<const SplitTail> expect_split_with_tail(gpu::G1MsmContext& ctx, std::span<const G1Affine> bases,
                                                        std::shared_ptr<const SplitTail>& tail,
                                                        const std::vector<Fr>& v, ThreadPool& pool, const char* what) {
    const ScalarSplit sp = split_with_tail(v, tail, pool);
    EXPECT_TRUE(sp.tail) << what;
    if (sp.tail) tail = sp.tail;
    EXPECT_EQ(ctx.msm_split(sp), msm<G1Config>(bases.first(v.size()), v)) << what;
    return sp.tail;
}
}  // namespace

// A tail shared by consecutive splits: the context uploads its indices once and keeps them at the front of its
// scratch; later calls (same tail, a new tail, a ones-only call that overwrites the front, a larger call that
// reallocates the scratch) must all still give the CPU's result.
TEST(GpuMsm, SharedTailsAcrossCalls) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    const uint64_t seed = fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937_64 rng(seed);
    const size_t n = 20000;
    auto bases = random_points<G1Config>(n, rng());
    gpu::G1MsmContext ctx{std::span<const G1Affine>(bases)};
    ThreadPool pool(2);
    auto shaped = [&](size_t shift, size_t extra, size_t len) { return tail_shaped(rng, len, 9, shift, extra); };
    std::shared_ptr<const SplitTail> tail;
    auto run = [&](const std::vector<Fr>& v, const char* what) {
        return expect_split_with_tail(ctx, bases, tail, v, pool, what);
    };
    const auto t0 = run(shaped(0, 0, n), "first: uploads the tail");
    EXPECT_EQ(run(shaped(0, 7, n), "same tail, extras"), t0);
    EXPECT_EQ(run(shaped(0, 0, n), "same tail again"), t0);
    const auto t1 = run(shaped(1, 0, n), "another tail");
    EXPECT_NE(t1, t0);
    EXPECT_EQ(run(shaped(1, 3, n), "the other tail, cached"), t1);
    // Ones only: the ones' list takes the front of the scratch.
    std::vector<Fr> ones(n, Fr::one());
    EXPECT_EQ(ctx.msm_split(split_scalars(ones)), msm<G1Config>(bases, ones));
    EXPECT_EQ(run(shaped(1, 0, n), "after a ones-only call"), t1);
    // An indexed call without a tail overwrites the front too.
    auto plain = make_scalars(n, Kind::ZeroOne, rng);
    EXPECT_EQ(ctx.msm_split(split_scalars(plain)), msm<G1Config>(bases, plain));
    EXPECT_EQ(run(shaped(1, 0, n), "after an indexed call"), t1);
    // A dense call of every scalar grows (reallocates) the scratch.
    auto dense = make_scalars(n, Kind::Dense, rng);
    EXPECT_EQ(ctx.msm(dense), msm<G1Config>(bases, dense));
    EXPECT_EQ(run(shaped(1, 2, n), "after the scratch grew"), t1);
}
#endif

#ifdef CUZK_HAVE_CUDA
// A scratch with a fallback (MsmScratch's second constructor): calls that do not fit its room run in the fallback,
// whose turn they wait for, its own bytes given back; calls that fit stay. Tails cached in one scratch are not
// taken for the other's.
TEST(GpuMsm, ScratchFallsBackWhenACallDoesNotFit) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    const uint64_t seed = fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937_64 rng(seed);
    const size_t n = 20000;
    auto bases = random_points<G1Config>(n, rng());
    ThreadPool pool(2);
    auto shaped = [&](size_t shift, size_t extra) { return tail_shaped(rng, n, 9, shift, extra); };
    // What one tail-shaped call needs, on a scratch of its own.
    size_t tail_bytes = 0;
    {
        gpu::G1MsmContext probe{std::span<const G1Affine>(bases)};
        std::shared_ptr<const SplitTail> t;
        (void)probe.msm_split(split_with_tail(shaped(0, 0), t, pool));
        tail_bytes = probe.scratch_bytes();
    }
    ASSERT_GT(tail_bytes, 0u);
    auto shared = std::make_shared<gpu::MsmScratch>(0);
    gpu::GpuMsmConfig nothing_fits, tails_fit;
    nothing_fits.scratch = std::make_shared<gpu::MsmScratch>(0, shared, 1);
    tails_fit.scratch = std::make_shared<gpu::MsmScratch>(0, shared, tail_bytes + tail_bytes / 4);
    gpu::G1MsmContext a{std::span<const G1Affine>(bases), nothing_fits}, b{std::span<const G1Affine>(bases), tails_fit};
    std::shared_ptr<const SplitTail> ta, tb;
    auto run = [&](gpu::G1MsmContext& ctx, std::shared_ptr<const SplitTail>& tail, const std::vector<Fr>& v,
                   const char* what) { expect_split_with_tail(ctx, bases, tail, v, pool, what); };
    run(a, ta, shaped(0, 0), "a: in the fallback");
    run(a, ta, shaped(0, 5), "a: in the fallback, its tail cached there");
    EXPECT_EQ(nothing_fits.scratch->fallbacks(), 2u);
    EXPECT_EQ(nothing_fits.scratch->bytes(), 0u);
    EXPECT_GT(shared->bytes(), 0u);
    run(b, tb, shaped(0, 0), "b: fits");
    run(b, tb, shaped(0, 3), "b: fits, tail cached");
    EXPECT_EQ(tails_fit.scratch->fallbacks(), 0u);
    EXPECT_GT(tails_fit.scratch->bytes(), 0u);
    // A context on the same scratch whose call cannot fit it (its scalars alone are 4 MiB).
    std::vector<G1Affine> more(size_t{1} << 17);
    for (size_t i = 0; i < more.size(); i++) more[i] = bases[i % n];
    gpu::G1MsmContext big{std::span<const G1Affine>(more), tails_fit};
    auto dense = make_scalars(more.size(), Kind::Dense, rng);
    EXPECT_EQ(big.msm(dense), msm<G1Config>(more, dense)) << "a dense call, in the fallback";
    EXPECT_EQ(tails_fit.scratch->fallbacks(), 1u);
    EXPECT_EQ(tails_fit.scratch->bytes(), 0u) << "its bytes given back";
    run(b, tb, shaped(0, 2), "b: fits again, its tail uploaded again");
    run(a, ta, shaped(0, 1), "a: after b's call in the fallback");
    run(b, tb, shaped(0, 4), "b: its own again");
    EXPECT_EQ(tails_fit.scratch->fallbacks(), 1u);
    // A G2 context whose scratch falls back to the G1 contexts' (the prover's B_G2 beside the A, B, L MSMs): its
    // calls run in the G1 bytes, and a G1 call after them still sums right there.
    gpu::GpuMsmConfig g2_cfg;
    g2_cfg.scratch = std::make_shared<gpu::MsmScratch>(0, shared, 1);
    auto g2_bases = random_points<G2Config>(2000, rng());
    gpu::G2MsmContext g2{std::span<const G2Affine>(g2_bases), g2_cfg};
    for (Kind kind : {Kind::ZeroOne, Kind::Dense}) {
        auto v = make_scalars(g2_bases.size(), kind, rng);
        EXPECT_EQ(g2.msm_split(split_scalars(v)), msm_g2(g2_bases, v)) << "G2 in the G1 scratch";
    }
    EXPECT_EQ(g2_cfg.scratch->fallbacks(), 2u);
    EXPECT_EQ(g2_cfg.scratch->bytes(), 0u);
    run(a, ta, shaped(0, 2), "a: in the fallback after G2's calls");
    EXPECT_THROW(gpu::MsmScratch(0, nothing_fits.scratch), std::invalid_argument) << "a fallback with a fallback";
}

// Two contexts sharing one scratch (as the prover's G1 contexts do): each keeps its tail cached between its own
// calls, and a call of the other in between (which writes over the index list) makes it upload again; the scratch
// is the largest call of either; calls from two threads take turns.
TEST(GpuMsm, ContextsShareScratch) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    const uint64_t seed = fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937_64 rng(seed);
    const size_t n = 20000;
    auto bases_a = random_points<G1Config>(n, rng());
    auto bases_b = random_points<G1Config>(n, rng());
    auto scratch = std::make_shared<gpu::MsmScratch>(0);
    gpu::GpuMsmConfig cfg;
    cfg.scratch = scratch;
    gpu::G1MsmContext a{std::span<const G1Affine>(bases_a), cfg}, b{std::span<const G1Affine>(bases_b), cfg};
    ThreadPool pool(2);
    auto shaped = [&](size_t shift) { return tail_shaped(rng, n, 7, shift); };
    std::shared_ptr<const SplitTail> tail[2];
    auto run = [&](int who, const std::vector<Fr>& v, const char* what) {
        const ScalarSplit sp = split_with_tail(v, tail[who], pool);
        ASSERT_TRUE(sp.tail) << what;
        if (tail[who]) {
            EXPECT_EQ(sp.tail, tail[who]) << what << ": same positions, same tail";
        }
        tail[who] = sp.tail;
        auto& ctx = who ? b : a;
        auto& bases = who ? bases_b : bases_a;
        EXPECT_EQ(ctx.msm_split(sp), msm<G1Config>(bases, v)) << what;
    };
    run(0, shaped(0), "a: uploads its tail");
    run(0, shaped(0), "a: its tail cached");
    run(1, shaped(3), "b: another tail over a's index list");
    run(0, shaped(0), "a: after b's call");
    run(1, shaped(3), "b: after a's call");
    auto dense = make_scalars(n, Kind::Dense, rng);
    EXPECT_EQ(b.msm(dense), msm<G1Config>(bases_b, dense));
    EXPECT_GE(scratch->bytes(), b.call_bytes(n));
    EXPECT_EQ(a.scratch_bytes(), scratch->bytes()) << "one scratch, seen from either context";
    run(0, shaped(0), "a: after b grew the scratch");
    // Two threads, each with its own context, on the one scratch.
    auto s_a = make_scalars(n, Kind::ZeroOne, rng), s_b = make_scalars(n, Kind::Dense, rng);
    const G1Jacobian want_a = msm<G1Config>(bases_a, s_a), want_b = msm<G1Config>(bases_b, s_b);
    std::vector<G1Jacobian> got_a(4), got_b(4);
    std::thread t([&] {
        for (auto& g : got_b) g = b.msm(s_b);
    });
    for (auto& g : got_a) g = a.msm_split(split_scalars(s_a));
    t.join();
    for (int i = 0; i < 4; i++) {
        EXPECT_EQ(got_a[i], want_a) << "call " << i;
        EXPECT_EQ(got_b[i], want_b) << "call " << i;
    }
    // A scratch of another device is refused.
    gpu::GpuMsmConfig other;
    other.scratch = std::make_shared<gpu::MsmScratch>(1);
    EXPECT_THROW(gpu::G1MsmContext(std::span<const G1Affine>(bases_a), other), std::invalid_argument);
}

// A call whose full plan does not fit in the device's free memory runs its windows in smaller groups: with the
// device filled to leave about half the full plan, the MSM still equals the CPU's and holds less scratch than
// call_bytes says the full plan takes; with almost nothing left it is a CudaError, never a wrong result.
TEST(GpuMsm, SmallerWindowGroupsWhenMemoryIsShort) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    const uint64_t seed = fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937_64 rng(seed);
    const size_t n = size_t(1) << 20;
    auto bases = random_points<G1Config>(n, rng());
    auto s = make_scalars(n, Kind::Dense, rng);
    const G1Jacobian want = msm<G1Config>(bases, s);
    gpu::G1MsmContext ctx{std::span<const G1Affine>(bases)}, ctx2{std::span<const G1Affine>(bases)};
    // Every kernel launched once first (a first launch may take device memory for its local stacks).
    {
        std::span<const G1Affine> few(bases.data(), 4096);
        std::span<const Fr> fs(s.data(), 4096);
        gpu::G1MsmContext warm{few};
        EXPECT_EQ(warm.msm(fs), msm<G1Config>(few, fs));
    }
    const size_t full = ctx.call_bytes(n);
    // Takes all free device memory but about `leave` bytes. A request of nearly everything can fail on the
    // allocation granularity, so it backs off 2 MiB at a time (at most 64 MiB more than `leave` stays free).
    auto hog_leaving = [](size_t leave) {
        size_t free_b = 0, total_b = 0;
        EXPECT_EQ(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
        void* p = nullptr;
        for (size_t extra = 0; extra <= (size_t(64) << 20) && free_b > leave + extra; extra += size_t(2) << 20) {
            if (cudaMalloc(&p, free_b - leave - extra) == cudaSuccess) return p;
            (void)cudaGetLastError();  // clear the failed request
            p = nullptr;
        }
        ADD_FAILURE() << "could not take the device's free memory but " << leave << " bytes";
        return p;
    };
    void* hog = hog_leaving(full / 2);
    const G1Jacobian got = ctx.msm(s);
    const size_t held = ctx.scratch_bytes();
    cudaFree(hog);
    EXPECT_EQ(got, want);
    EXPECT_LT(held, full) << "smaller window groups";
    EXPECT_GT(held, 0u);
    hog = hog_leaving(size_t(1) << 20);
    EXPECT_THROW(ctx2.msm(s), gpu::CudaError);
    cudaFree(hog);
    EXPECT_EQ(ctx2.msm(s), want) << "and a later call with room works";
}
#endif
