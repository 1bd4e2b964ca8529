#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

#include "cuzk/msm/msm.hpp"
#include "seeded_rng.hpp"
#include "split_checks.hpp"

using namespace cuzk;
using cuzk::testing::mixed;
using cuzk::testing::periodic_tail;
using cuzk::testing::rebuild;

namespace {

using Rng = std::mt19937_64;

// Bases with known discrete logarithms: B_i = k_i G, built by a random walk (B_i = B_{i-1} + r_j G for a random
// entry of a small table) so that thousands of bases cost additions, not scalar multiplications. Then
// sum_i s_i B_i = (sum_i s_i k_i) G, a reference that costs one scalar multiplication.
template <class Cfg>
struct DlogBases {
    std::vector<Affine<Cfg>> points;
    std::vector<Fr> logs;

    DlogBases(size_t n, Rng& rng) {
        constexpr size_t kTable = 16;
        auto g = Jacobian<Cfg>::generator();
        std::vector<Fr> r(kTable);
        std::vector<Jacobian<Cfg>> rg(kTable);
        for (size_t j = 0; j < kTable; j++) {
            r[j] = Fr::random(rng);
            rg[j] = g.mul(r[j].to_canonical());
        }
        Fr k = Fr::random(rng);
        Jacobian<Cfg> p = g.mul(k.to_canonical());
        std::vector<Jacobian<Cfg>> jac(n);
        logs.resize(n);
        for (size_t i = 0; i < n; i++) {
            size_t j = rng() % kTable;
            k += r[j];
            p += rg[j];
            jac[i] = p;
            logs[i] = k;
        }
        points = Jacobian<Cfg>::batch_to_affine(jac);
    }
    // Makes base i the point at infinity (log 0).
    void set_infinity(size_t i) {
        points[i] = Affine<Cfg>::identity();
        logs[i] = Fr::zero();
    }
    Jacobian<Cfg> reference(std::span<const Fr> scalars) const {
        Fr acc = Fr::zero();
        for (size_t i = 0; i < scalars.size(); i++) acc += scalars[i] * logs[i];
        return Jacobian<Cfg>::generator().mul(acc.to_canonical());
    }
};

template <class Cfg>
Jacobian<Cfg> naive_msm(std::span<const Affine<Cfg>> bases, std::span<const Fr> scalars) {
    Jacobian<Cfg> acc = Jacobian<Cfg>::identity();
    for (size_t i = 0; i < bases.size(); i++) acc += bases[i].to_jacobian().mul(scalars[i].to_canonical());
    return acc;
}

template <class Cfg>
std::vector<Affine<Cfg>> random_bases(size_t n, Rng& rng) {
    std::vector<Jacobian<Cfg>> jac(n);
    for (auto& p : jac) p = Jacobian<Cfg>::generator().mul(Fr::random(rng).to_canonical());
    return Jacobian<Cfg>::batch_to_affine(jac);
}

std::vector<Fr> random_scalars(size_t n, Rng& rng) {
    std::vector<Fr> s(n);
    for (auto& x : s) x = Fr::random(rng);
    return s;
}

// r - 1, (r - 1) / 2, (r + 1) / 2, 2^k and 2^k - 1, and values whose every window is all ones or exactly 2^(c-1)
// (the digit boundary, where the carry of one window into the next decides the digit) for small c.
std::vector<Fr> edge_scalars() {
    std::vector<Fr> v;
    const Fr one = Fr::one();
    Fr minus_one = Fr::zero() - one;
    v.push_back(minus_one);
    v.push_back(minus_one - one);
    v.push_back(Fr::from_canonical_unchecked(Fr::P_MINUS_1_OVER_2));
    v.push_back(Fr::from_canonical_unchecked(Fr::P_MINUS_1_OVER_2) + one);
    v.push_back(Fr::from_u64(2));
    v.push_back(Fr::from_u64(3));
    Fr pow2 = one;
    for (int k = 0; k < 255; k++) {
        if (k % 7 == 0 || k > 240) {
            v.push_back(pow2);
            v.push_back(pow2 - one);
            v.push_back(minus_one - pow2);
        }
        pow2 = pow2.dbl();
    }
    for (unsigned c = 1; c <= 16; c++) {
        limbs_t<4> pattern{};
        for (unsigned bit = c - 1; bit < 254; bit += c) pattern[bit / 64] |= uint64_t(1) << (bit % 64);
        v.push_back(Fr::from_canonical_unchecked(pattern));
    }
    // 2^254 - 1: every window all ones (254 bits keep it below r).
    limbs_t<4> ones{~0ull, ~0ull, ~0ull, (~0ull) >> 2};
    v.push_back(Fr::from_canonical_unchecked(ones));
    return v;
}

MsmConfig batched_everywhere(ThreadPool* pool = nullptr) {
    // Forces the batched-affine path even for tiny inputs, with batches small enough to flush mid-round.
    MsmConfig cfg;
    cfg.min_batch_pairs = 1;
    cfg.batch_size = 3;
    cfg.pool = pool;
    return cfg;
}

}  // namespace

TEST(MsmG1, MatchesNaiveOnSmallSizes) {
    Rng rng(1);
    ThreadPool pool(2);
    for (size_t n : {0u, 1u, 2u, 3u, 7u, 64u}) {
        auto bases = random_bases<G1Config>(n, rng);
        auto scalars = random_scalars(n, rng);
        auto expect = naive_msm<G1Config>(bases, scalars);
        EXPECT_EQ(msm_g1(bases, scalars), expect) << "n=" << n;
        EXPECT_EQ(msm_g1(bases, scalars, batched_everywhere(&pool)), expect) << "batched n=" << n;
        MsmConfig no_split;
        no_split.split_zero_one = false;
        EXPECT_EQ(msm_g1(bases, scalars, no_split), expect) << "no split n=" << n;
    }
    EXPECT_TRUE(msm_g1({}, {}).is_identity());
}

TEST(MsmG1, MatchesDlogReferenceOnLargerSizes) {
    Rng rng(2);
    ThreadPool pool(4);
    for (size_t n : {1000u, 4096u}) {
        DlogBases<G1Config> b(n, rng);
        auto scalars = random_scalars(n, rng);
        auto expect = b.reference(scalars);
        MsmConfig cfg;
        cfg.pool = &pool;
        EXPECT_EQ(msm_g1(b.points, scalars, cfg), expect) << "n=" << n;
        // The window the chooser picks for n on 4 threads, one wider (more buckets than points per window) and a
        // small one, each with chunks that carry the buckets over.
        unsigned c = msm_window_bits(n, pool.size());
        for (unsigned cw : {c, c + 1, 4u}) {
            cfg.window_bits = cw;
            cfg.chunk_points = 777;
            EXPECT_EQ(msm_g1(b.points, scalars, cfg), expect) << "n=" << n << " c=" << cw;
        }
    }
}

TEST(MsmG1, AllZeroScalarsGiveIdentity) {
    Rng rng(3);
    DlogBases<G1Config> b(500, rng);
    std::vector<Fr> zeros(500, Fr::zero());
    EXPECT_TRUE(msm_g1(b.points, zeros).is_identity());
    MsmConfig no_split;
    no_split.split_zero_one = false;
    EXPECT_TRUE(msm_g1(b.points, zeros, no_split).is_identity());
    auto split = split_scalars(zeros);
    EXPECT_EQ(split.zero_count(), 500u);
}

TEST(MsmG1, AllOneScalarsGivePlainSum) {
    Rng rng(4);
    ThreadPool pool(2);
    for (size_t n : {1u, 2u, 5u, 2000u}) {
        DlogBases<G1Config> b(n, rng);
        b.set_infinity(n / 2);
        std::vector<Fr> ones(n, Fr::one());
        G1Jacobian expect = G1Jacobian::identity();
        for (auto& p : b.points) expect = expect.add_mixed(p);
        MsmConfig cfg;
        cfg.pool = &pool;
        EXPECT_EQ(msm_g1(b.points, ones, cfg), expect) << "n=" << n;
        EXPECT_EQ(msm_g1(b.points, ones, batched_everywhere(&pool)), expect) << "batched n=" << n;
        MsmConfig chunked = batched_everywhere(&pool);
        chunked.chunk_points = 100;  // the running sum crosses chunks as a carried point
        EXPECT_EQ(msm_g1(b.points, ones, chunked), expect) << "chunked n=" << n;
        EXPECT_EQ(split_scalars(ones).one_indices.size(), n);
    }
}

TEST(MsmG1, MixedZeroOneRandomScalars) {
    Rng rng(5);
    const size_t n = 3000;
    DlogBases<G1Config> b(n, rng);
    for (size_t i = 0; i < n; i += 97) b.set_infinity(i);
    std::vector<Fr> scalars(n);
    size_t zeros = 0, ones = 0;
    for (auto& s : scalars) {
        unsigned u = (unsigned)(rng() % 10);
        if (u < 6) s = Fr::zero(), zeros++;
        else if (u < 9) s = Fr::one(), ones++;
        else s = Fr::random(rng);
    }
    auto expect = b.reference(scalars);
    auto split = split_scalars(scalars);
    EXPECT_EQ(split.zero_count(), zeros);
    EXPECT_EQ(split.one_indices.size(), ones);
    EXPECT_EQ(split.other_scalars.size(), n - zeros - ones);
    for (size_t k = 0; k < split.other_indices.size(); k++)
        ASSERT_EQ(Fr::from_canonical_unchecked(split.other_scalars[k]), scalars[split.other_indices[k]]);
    EXPECT_EQ(msm_g1(b.points, scalars), expect);
    EXPECT_EQ(msm_g1_split(b.points, split), expect);
    EXPECT_EQ(msm_g1_split(b.points, split, batched_everywhere()), expect);
    MsmConfig chunked = batched_everywhere();
    chunked.chunk_points = 101;  // buckets carried across many chunks
    chunked.window_bits = 6;
    EXPECT_EQ(msm_g1_split(b.points, split, chunked), expect);
    chunked.min_batch_pairs = 40;  // some chunks batched, some summed in XYZZ, with carries between them
    EXPECT_EQ(msm_g1_split(b.points, split, chunked), expect);
    MsmConfig no_split;
    no_split.split_zero_one = false;
    EXPECT_EQ(msm_g1(b.points, scalars, no_split), expect);
}

TEST(MsmG1, EdgeScalarsAtEveryWindowWidth) {
    Rng rng(6);
    auto scalars = edge_scalars();
    DlogBases<G1Config> b(scalars.size(), rng);
    auto expect = b.reference(scalars);
    ThreadPool pool(2);
    for (unsigned c = 1; c <= 16; c++) {
        MsmConfig cfg = batched_everywhere(&pool);
        cfg.window_bits = c;
        cfg.batch_size = 64;
        ASSERT_EQ(msm_g1(b.points, scalars, cfg), expect) << "c=" << c;
        cfg.min_batch_pairs = 1u << 30;  // the XYZZ bucket path
        ASSERT_EQ(msm_g1(b.points, scalars, cfg), expect) << "xyzz c=" << c;
    }
    // One edge scalar alone: r - 1 times a base is its negation.
    std::vector<Fr> minus_one{Fr::zero() - Fr::one()};
    std::vector<G1Affine> g{G1Affine::generator()};
    EXPECT_EQ(msm_g1(g, minus_one), -G1Jacobian::generator());
}

TEST(MsmG1, InfinityRepeatedAndOppositeBases) {
    Rng rng(7);
    // Equal scalars put equal or opposite points into the same bucket, so the batch meets P + P and P + (-P);
    // a few random bases and scalars around them keep the batches mixed.
    auto base = random_bases<G1Config>(4, rng);
    Fr s = Fr::random(rng), t = Fr::random(rng);
    std::vector<G1Affine> bases;
    std::vector<Fr> scalars;
    auto put = [&](const G1Affine& p, const Fr& x) {
        bases.push_back(p);
        scalars.push_back(x);
    };
    for (int rep = 0; rep < 6; rep++) {
        put(base[0], s);                  // repeated: doublings
        put(-base[1], s);                 // with the next, opposite: cancel
        put(base[1], s);
        put(G1Affine::identity(), t);     // infinity with a nonzero scalar
        put(base[2], -s);                 // opposite scalars on one base
        put(base[2], s);
        put(base[3], Fr::random(rng));
        put(base[0], Fr::one());
        put(-base[0], Fr::one());
    }
    auto expect = naive_msm<G1Config>(bases, scalars);
    ThreadPool pool(2);
    EXPECT_EQ(msm_g1(bases, scalars), expect);
    for (unsigned c : {2u, 5u, 8u}) {
        MsmConfig cfg = batched_everywhere(&pool);
        cfg.window_bits = c;
        EXPECT_EQ(msm_g1(bases, scalars, cfg), expect) << "c=" << c;
    }
    // All bases at infinity.
    std::vector<G1Affine> inf(10, G1Affine::identity());
    auto sc = random_scalars(10, rng);
    EXPECT_TRUE(msm_g1(inf, sc, batched_everywhere(&pool)).is_identity());
}

TEST(MsmG1, RejectsLengthMismatch) {
    Rng rng(8);
    auto bases = random_bases<G1Config>(3, rng);
    auto scalars = random_scalars(2, rng);
    EXPECT_THROW(msm_g1(bases, scalars), std::invalid_argument);
    auto split = split_scalars(scalars);
    EXPECT_THROW(msm_g1_split(bases, split), std::invalid_argument);
    ScalarSplit bad;
    bad.size = 3;
    bad.other_indices = {3};  // out of range
    bad.other_scalars = {limbs_t<4>{5, 0, 0, 0}};
    EXPECT_THROW(msm_g1_split(bases, bad), std::invalid_argument);
    bad.other_indices = {2};
    EXPECT_EQ(msm_g1_split(bases, bad), bases[2].to_jacobian().mul(5));
    MsmConfig cfg;
    cfg.window_bits = 40;
    EXPECT_THROW(msm_g1(std::span(bases).first(2), scalars, cfg), std::invalid_argument);
}

TEST(MsmG1, WindowChooserGrowsWithSize) {
    // The cost model must widen windows as n grows (the bucket sums amortize over more points), and stay in range.
    unsigned prev = 0;
    for (size_t logn = 0; logn <= 26; logn++) {
        unsigned c = msm_window_bits(size_t(1) << logn, 2);
        EXPECT_GE(c, prev) << "logn=" << logn;
        EXPECT_GE(c, 1u);
        EXPECT_LE(c, 20u);
        // Cheaper additions (the IFMA kernel) make buckets relatively dearer: never wider windows.
        unsigned cv = msm_window_bits(size_t(1) << logn, 2, true);
        EXPECT_LE(cv, c) << "logn=" << logn;
        EXPECT_GE(cv, 1u);
        prev = c;
    }
    EXPECT_GE(msm_window_bits(size_t(1) << 20, 2), 14u);
    EXPECT_EQ(msm_window_bits(size_t(1) << 16, 2, true), 12u);
}

TEST(MsmG2, MatchesNaiveAndDlogReference) {
    Rng rng(9);
    ThreadPool pool(2);
    {
        auto bases = random_bases<G2Config>(9, rng);
        bases[4] = G2Affine::identity();
        bases[5] = bases[3];
        bases[6] = -bases[2];
        auto scalars = random_scalars(9, rng);
        scalars[1] = Fr::one();
        scalars[7] = Fr::zero();
        scalars[6] = scalars[2];
        scalars[5] = scalars[3];
        auto expect = naive_msm<G2Config>(bases, scalars);
        EXPECT_EQ(msm_g2(bases, scalars), expect);
        EXPECT_EQ(msm_g2(bases, scalars, batched_everywhere(&pool)), expect);
    }
    {
        auto scalars = edge_scalars();
        const size_t edges = scalars.size();
        for (size_t i = 0; i < 300; i++) scalars.push_back(i % 3 == 0 ? Fr::one() : Fr::random(rng));
        DlogBases<G2Config> b(scalars.size(), rng);
        b.set_infinity(edges + 1);
        auto expect = b.reference(scalars);
        MsmConfig cfg;
        cfg.pool = &pool;
        EXPECT_EQ(msm_g2(b.points, scalars, cfg), expect);
        cfg = batched_everywhere(&pool);
        cfg.window_bits = 7;
        EXPECT_EQ(msm_g2(b.points, scalars, cfg), expect);
        EXPECT_EQ(msm_g2_split(b.points, split_scalars(scalars), cfg), expect);
    }
    std::vector<G2Affine> two(2);
    std::vector<Fr> one(1);
    EXPECT_THROW(msm_g2(two, one), std::invalid_argument);
}

TEST(SplitScalars, GatheredMatchesGatherThenSplit) {
    Rng rng(99);
    ThreadPool pool(3);
    for (size_t n0 : {0, 1, 63, 64, 65, 1000}) {
        const size_t n1 = 777;
        std::vector<Fr> v0(n0), v1(n1);
        for (auto* v : {&v0, &v1})
            for (auto& x : *v) {
                unsigned k = rng() % 4;
                x = k == 0 ? Fr::zero() : k == 1 ? Fr::one() : Fr::random(rng);
            }
        std::vector<uint64_t> d0((n0 + 63) / 64 + 1), d1((n1 + 63) / 64);
        for (auto& w : d0) w = rng();
        for (auto& w : d1) w = rng() & rng();  // sparser
        // Reference: gather by hand, then split sequentially.
        std::vector<Fr> g;
        for (size_t i = 0; i < n0; i++)
            if ((d0[i / 64] >> (i % 64)) & 1) g.push_back(v0[i]);
        for (size_t i = 0; i < n1; i++)
            if ((d1[i / 64] >> (i % 64)) & 1) g.push_back(v1[i]);
        uninit_vector<uint32_t> ones, others;
        uninit_vector<limbs_t<4>> other_values;
        for (size_t i = 0; i < g.size(); i++) {
            if (g[i].is_zero()) continue;
            if (g[i].is_one()) ones.push_back((uint32_t)i);
            else others.push_back((uint32_t)i), other_values.push_back(g[i].to_canonical());
        }
        const ScalarSource src[] = {{v0, d0.data()}, {v1, d1.data()}};
        ScalarSplit s = split_scalars_gathered(src, &pool);
        EXPECT_EQ(s.size, g.size()) << n0;
        EXPECT_EQ(s.one_indices, ones) << n0;
        EXPECT_EQ(s.other_indices, others) << n0;
        EXPECT_EQ(s.other_scalars, other_values) << n0;
        // No density: every value, the same as split_scalars of the concatenation.
        const ScalarSource dense[] = {{v0, nullptr}, {v1, nullptr}};
        std::vector<Fr> cat(v0);
        cat.insert(cat.end(), v1.begin(), v1.end());
        ScalarSplit sd = split_scalars_gathered(dense, &pool), sc = split_scalars(cat, &pool);
        EXPECT_EQ(sd.size, cat.size());
        EXPECT_EQ(sd.one_indices, sc.one_indices);
        EXPECT_EQ(sd.other_indices, sc.other_indices);
        EXPECT_EQ(sd.other_scalars, sc.other_scalars);
    }
}

TEST(SplitScalars, MontgomeryKeepsLimbsAndTheCpuMsmRefusesIt) {
    Rng rng(17);
    std::vector<Fr> v(300);
    for (auto& x : v) x = rng() % 3 == 0 ? Fr::one() : Fr::random(rng);
    const ScalarSource src[] = {{v, nullptr}};
    ScalarSplit c = split_scalars_gathered(src), m = split_scalars_gathered(src, nullptr, true);
    EXPECT_FALSE(c.montgomery);
    EXPECT_TRUE(m.montgomery);
    ASSERT_EQ(m.other_indices, c.other_indices);
    EXPECT_EQ(m.one_indices, c.one_indices);
    for (size_t k = 0; k < m.other_indices.size(); k++) {
        EXPECT_EQ(m.other_scalars[k], v[m.other_indices[k]].mont_limbs());
        EXPECT_EQ(c.other_scalars[k], v[c.other_indices[k]].to_canonical());
    }
    auto bases = random_bases<G1Config>(v.size(), rng);
    EXPECT_THROW(msm_g1_split(bases, m), std::invalid_argument);
    EXPECT_EQ(msm_g1_split(bases, c), naive_msm<G1Config>(bases, v));
}

TEST(SplitScalars, MultiEqualsOneSplitPerList) {
    Rng rng(23);
    ThreadPool pool(3);
    std::vector<Fr> v0(70), v1(2000);
    for (auto* v : {&v0, &v1})
        for (auto& x : *v) {
            unsigned k = rng() % 3;
            x = k == 0 ? Fr::zero() : k == 1 ? Fr::one() : Fr::random(rng);
        }
    std::vector<uint64_t> d0(2), d1(32), e1(32);
    for (auto& w : d0) w = rng();
    for (auto& w : d1) w = rng();
    for (auto& w : e1) w = rng() | rng();
    const std::span<const Fr> values[] = {v0, v1};
    // Groth16's shape (A: all of v0 + d1 of v1; B: d0 of v0 + e1 of v1; L: v1 only) and a fourth list.
    const uint64_t* const sel[] = {kAllValues, d1.data(), d0.data(), e1.data(), kNoValues, kAllValues,
                                   d0.data(), kNoValues};
    for (bool mont : {false, true}) {
        auto multi = split_scalars_multi(values, 4, sel, &pool, mont);
        ASSERT_EQ(multi.size(), 4u);
        for (size_t q = 0; q < 4; q++) {
            std::vector<ScalarSource> src;
            if (sel[2 * q] != kNoValues) src.push_back({v0, sel[2 * q]});
            if (sel[2 * q + 1] != kNoValues) src.push_back({v1, sel[2 * q + 1]});
            ScalarSplit one = split_scalars_gathered(src, &pool, mont);
            EXPECT_EQ(multi[q].size, one.size) << q;
            EXPECT_EQ(multi[q].montgomery, mont);
            EXPECT_EQ(multi[q].one_indices, one.one_indices) << q;
            EXPECT_EQ(multi[q].other_indices, one.other_indices) << q;
            EXPECT_EQ(multi[q].other_scalars, one.other_scalars) << q;
        }
    }
    EXPECT_THROW(split_scalars_multi(values, 3, sel, &pool), std::invalid_argument) << "selection count";
}

// ---- the layout hook (SplitHook): each list laid out as the caller chooses from its counts ----------------------

namespace {

// The counts split_scalars_multi's first pass should report for v (against `tail` when set).
SplitCounts expected_counts(const std::vector<Fr>& v, const SplitTail* tail) {
    SplitCounts c;
    c.size = v.size();
    c.tail = tail;
    for (size_t i = 0; i < v.size(); i++) {
        if (v[i].is_zero()) continue;
        const bool one = v[i].is_one(), out = !tail || !tail->contains(i);
        (one ? c.ones : c.others)++;
        if (out) (one ? c.ones_outside_tail : c.others_outside_tail)++;
    }
    return c;
}

}  // namespace

TEST(SplitScalars, HookLaysOutEachList) {
    Rng rng(43);
    ThreadPool pool(3);
    const size_t n = 3000;
    auto v = mixed(n, 45, 45, rng);
    const std::span<const Fr> values[] = {v};
    const uint64_t* const sel[] = {kAllValues, kAllValues, kAllValues, kAllValues};
    const auto tail = periodic_tail(n, 7), other_size = periodic_tail(n + 1, 7);
    // List 0: bitmap ones; 1: dense (its candidate has another size: not offered); 2: the tail; 3: the default.
    const std::shared_ptr<const SplitTail> tails[] = {nullptr, other_size, tail, tail};
    const SplitChoice choices[] = {{false, true, false}, {true, false, false}, {false, false, true}, {}};
    std::vector<SplitCounts> seen(4);
    SplitHook hook{tails, [&](size_t q, const SplitCounts& c) {
                       seen[q] = c;
                       return choices[q];
                   }};
    auto s = split_scalars_multi(values, 4, sel, &pool, true, hook);
    ASSERT_EQ(s.size(), 4u);
    for (size_t q = 0; q < 4; q++) {
        const SplitCounts want = expected_counts(v, q >= 2 ? tail.get() : nullptr);
        EXPECT_EQ(seen[q].size, want.size) << q;
        EXPECT_EQ(seen[q].tail, want.tail) << q;
        EXPECT_EQ(seen[q].ones, want.ones) << q;
        EXPECT_EQ(seen[q].others, want.others) << q;
        EXPECT_EQ(seen[q].ones_outside_tail, want.ones_outside_tail) << q;
        EXPECT_EQ(seen[q].others_outside_tail, want.others_outside_tail) << q;
        EXPECT_EQ(rebuild(s[q]), v) << q;
        EXPECT_NO_THROW(check_split_indices(s[q], "test")) << q;
    }
    EXPECT_EQ(s[0].one_bit_count, seen[0].ones);
    EXPECT_TRUE(s[0].one_indices.empty());
    EXPECT_TRUE(s[1].dense);
    EXPECT_EQ(s[2].tail, tail);
    EXPECT_EQ(s[2].tail_size, tail->indices.size());
    EXPECT_EQ(s[2].other_indices.size(), tail->indices.size() + seen[2].others_outside_tail);
    EXPECT_EQ(s[2].one_indices.size(), seen[2].ones_outside_tail);
    // The default is the hook-less split.
    auto plain = split_scalars_multi(values, 1, std::span<const uint64_t* const>(sel, 1), &pool, true);
    EXPECT_FALSE(s[3].tail);
    EXPECT_EQ(s[3].one_indices, plain[0].one_indices);
    EXPECT_EQ(s[3].other_indices, plain[0].other_indices);
    EXPECT_EQ(s[3].other_scalars, plain[0].other_scalars);
}

TEST(SplitScalars, HookContradictionsAreRefused) {
    Rng rng(47);
    ThreadPool pool(2);
    auto v = mixed(500, 40, 40, rng);
    const std::span<const Fr> values[] = {v};
    const uint64_t* const sel[] = {kAllValues};
    const auto tail = periodic_tail(v.size(), 5);
    const std::shared_ptr<const SplitTail> one_tail[] = {tail}, two_tails[] = {tail, tail}, no_tail[] = {nullptr};
    auto split_with = [&](std::span<const std::shared_ptr<const SplitTail>> tails, SplitChoice ch) {
        const SplitHook hook{tails, [ch](size_t, const SplitCounts&) { return ch; }};
        return split_scalars_multi(values, 1, sel, &pool, true, hook);
    };
    EXPECT_THROW(split_with(one_tail, {true, true, false}), std::invalid_argument) << "dense with a bitmap";
    EXPECT_THROW(split_with(one_tail, {true, false, true}), std::invalid_argument) << "dense with a tail";
    EXPECT_THROW(split_with(no_tail, {false, false, true}), std::invalid_argument) << "a tail without a candidate";
    EXPECT_THROW(split_with({}, {false, false, true}), std::invalid_argument) << "a tail without tails";
    EXPECT_THROW(split_with(two_tails, {}), std::invalid_argument) << "tail count";
    EXPECT_EQ(rebuild(split_with(one_tail, {false, true, true})[0]), v);
}

// ---- a split cut into ranges (split_range: what each chunk of a streamed MSM's bases needs) ---------------------

namespace {

// The increasing others of a range, no tail, and the slice of the scalars it stands for.
void expect_range(const ScalarSplit& s, const std::vector<Fr>& v, size_t lo, size_t hi) {
    SCOPED_TRACE(::testing::Message() << "[" << lo << ", " << hi << ")");
    const ScalarSplit r = split_range(s, lo, hi);
    EXPECT_EQ(r.size, hi - lo);
    EXPECT_EQ(r.dense, s.dense);
    EXPECT_FALSE(r.tail);
    EXPECT_EQ(r.tail_size, 0u);
    EXPECT_TRUE(std::is_sorted(r.other_indices.begin(), r.other_indices.end()));
    EXPECT_NO_THROW(check_split_indices(r, "test"));
    EXPECT_EQ(rebuild(r), std::vector<Fr>(v.begin() + (ptrdiff_t)lo, v.begin() + (ptrdiff_t)hi));
}

}  // namespace

TEST(SplitScalars, RangesStandForTheirSliceInEveryLayout) {
    Rng rng = cuzk::testing::seeded_rng("SplitScalars.RangesStandForTheirSliceInEveryLayout");
    ThreadPool pool(2);
    const size_t n = 2000 + rng() % 1000;
    auto v = mixed(n, 40, 40, rng);
    const std::span<const Fr> values[] = {v};
    const uint64_t* const sel[] = {kAllValues, kAllValues, kAllValues, kAllValues};
    const auto tail = periodic_tail(n, 7);
    const std::shared_ptr<const SplitTail> tails[] = {nullptr, nullptr, tail, tail};
    // Bitmap ones; dense; the tail with bitmap ones; the tail with listed ones.
    const SplitChoice choices[] = {{false, true, false}, {true, false, false}, {false, true, true},
                                   {false, false, true}};
    SplitHook hook{tails, [&](size_t q, const SplitCounts&) { return choices[q]; }};
    auto s = split_scalars_multi(values, 4, sel, &pool, true, hook);
    for (size_t q = 0; q < 4; q++) {
        SCOPED_TRACE(::testing::Message() << "layout " << q);
        const bool bits = !s[q].one_bits.empty();
        std::vector<std::pair<size_t, size_t>> ranges = {{0, n}, {0, 0}, {n, n}, {64, 64 * 9}, {64 * 10, n}};
        if (!bits) ranges.insert(ranges.end(), {{1, 2}, {5, 700}, {n - 3, n}, {0, 1}});
        for (int k = 0; k < 8; k++) {  // random cuts, on whole words for a bitmap
            size_t lo = rng() % (n + 1), hi = rng() % (n + 1);
            if (lo > hi) std::swap(lo, hi);
            if (bits) lo -= lo % 64, hi = hi == n ? n : hi - hi % 64;
            ranges.push_back({lo, hi});
        }
        for (auto [lo, hi] : ranges) expect_range(s[q], v, lo, hi);
        EXPECT_THROW(split_range(s[q], 5, 4), std::invalid_argument);
        EXPECT_THROW(split_range(s[q], 0, n + 1), std::invalid_argument);
        if (bits) {
            EXPECT_THROW(split_range(s[q], 1, 64), std::invalid_argument) << "a bitmap cut inside a word";
            EXPECT_THROW(split_range(s[q], 0, 65), std::invalid_argument) << "a bitmap cut inside a word";
        }
    }
}

TEST(SplitScalars, RangesMsmsAddUpToTheWholeSplits) {
    Rng rng = cuzk::testing::seeded_rng("SplitScalars.RangesMsmsAddUpToTheWholeSplits");
    ThreadPool pool(2);
    const size_t n = 1500;
    auto v = mixed(n, 30, 30, rng);
    const auto bases = random_bases<G1Config>(n, rng);
    const std::span<const Fr> values[] = {v};
    const uint64_t* const sel[] = {kAllValues};
    const std::shared_ptr<const SplitTail> tails[] = {periodic_tail(n, 5)};
    SplitHook hook{tails, [](size_t, const SplitCounts&) { return SplitChoice{false, false, true}; }};
    const ScalarSplit s = std::move(split_scalars_multi(values, 1, sel, &pool, false, hook)[0]);
    ASSERT_TRUE(s.tail);
    MsmConfig cfg;
    cfg.pool = &pool;
    const G1Jacobian whole = msm_g1_split(bases, s, cfg);
    EXPECT_EQ(whole, msm_g1(bases, v, cfg));
    for (size_t chunk : {size_t(1), size_t(97), size_t(512), n}) {
        G1Jacobian sum = G1Jacobian::identity();
        for (size_t lo = 0; lo < n; lo += chunk) {
            const size_t hi = std::min(n, lo + chunk);
            sum += msm_g1_split(std::span(bases).subspan(lo, hi - lo), split_range(s, lo, hi), cfg);
        }
        EXPECT_EQ(sum, whole) << "chunks of " << chunk;
    }
}

// ---- the splitter against a plain sequential reference --------------------------------------------------------

namespace {

// A density bitmap of len values (one extra word of random bits past the end, which must be ignored): runs of
// selected and skipped values (whole words set, whole words empty, and partial ones).
std::vector<uint64_t> density_runs(size_t len, unsigned percent, Rng& rng) {
    std::vector<uint64_t> d((len + 63) / 64 + 1, 0);
    for (size_t i = 0; i < len;) {
        const size_t run = 1 + rng() % 200;
        if (rng() % 100 < percent)
            for (size_t k = i; k < std::min(len, i + run); k++) d[k / 64] |= uint64_t(1) << (k % 64);
        i += run;
    }
    d.back() = rng();
    return d;
}

// A tail of a list of n positions at random positions (about one in `period`).
std::shared_ptr<const SplitTail> random_tail(size_t n, size_t period, Rng& rng) {
    std::vector<uint32_t> at;
    for (size_t i = 0; i < n; i++)
        if (rng() % period == 0) at.push_back((uint32_t)i);
    return make_split_tail(n, at, 7);
}

// What split_scalars_multi must give for one list: its values gathered in order, then laid out by `ch` one value at
// a time.
ScalarSplit reference_split(const std::vector<Fr>& g, const SplitChoice& ch, const std::shared_ptr<const SplitTail>& t) {
    ScalarSplit s;
    s.size = g.size();
    s.montgomery = true;
    s.dense = ch.dense;
    if (ch.dense) {
        for (const Fr& x : g) s.other_scalars.push_back(x.mont_limbs());
        return s;
    }
    if (ch.ones_bitmap) s.one_bits.assign((g.size() + 63) / 64, 0);
    if (ch.use_tail) {
        s.tail = t;
        s.tail_size = t->indices.size();
        for (uint32_t i : t->indices) {
            s.other_indices.push_back(i);
            s.other_scalars.push_back(g[i].is_zero() ? limbs_t<4>{} : g[i].mont_limbs());
        }
    }
    for (size_t i = 0; i < g.size(); i++) {
        if (g[i].is_zero() || (ch.use_tail && t->contains(i))) continue;
        if (!g[i].is_one()) {
            s.other_indices.push_back((uint32_t)i);
            s.other_scalars.push_back(g[i].mont_limbs());
        } else if (ch.ones_bitmap) {
            s.one_bits[i / 64] |= uint64_t(1) << (i % 64);
            s.one_bit_count++;
        } else {
            s.one_indices.push_back((uint32_t)i);
        }
    }
    return s;
}

}  // namespace

TEST(SplitScalars, EveryLayoutEqualsTheSequentialReference) {
    Rng rng = cuzk::testing::seeded_rng("SplitScalars.EveryLayoutEqualsTheSequentialReference");
    for (int round = 0; round < 12; round++) {
        ThreadPool pool(1 + rng() % 5);
        // Groth16's shape: inputs and aux values; A and B select by densities, L every aux value.
        const size_t n_in = rng() % 3 == 0 ? 0 : 1 + rng() % 100, n_aux = rng() % 4 == 0 ? rng() % 70 : rng() % 5000;
        const auto v_in = mixed(n_in, 30, 40, rng), v_aux = mixed(n_aux, 20 + rng() % 40, 20 + rng() % 40, rng);
        const auto a_in = density_runs(n_in, 80, rng), a_aux = density_runs(n_aux, 90, rng);
        const auto b_in = density_runs(n_in, 30, rng), b_aux = density_runs(n_aux, 30, rng);
        const std::span<const Fr> values[] = {v_in, v_aux};
        const uint64_t* const sel[] = {a_in.data(), a_aux.data(), b_in.data(), b_aux.data(), kNoValues, kAllValues};
        std::vector<Fr> g[3];
        for (size_t i = 0; i < n_in; i++) {
            if ((a_in[i / 64] >> (i % 64)) & 1) g[0].push_back(v_in[i]);
            if ((b_in[i / 64] >> (i % 64)) & 1) g[1].push_back(v_in[i]);
        }
        for (size_t i = 0; i < n_aux; i++) {
            if ((a_aux[i / 64] >> (i % 64)) & 1) g[0].push_back(v_aux[i]);
            if ((b_aux[i / 64] >> (i % 64)) & 1) g[1].push_back(v_aux[i]);
            g[2].push_back(v_aux[i]);
        }
        std::shared_ptr<const SplitTail> tails[3];
        SplitChoice ch[3];
        for (size_t q = 0; q < 3; q++) {
            tails[q] = random_tail(g[q].size(), 1 + rng() % 30, rng);
            const unsigned pick = (unsigned)(rng() % 5);  // listed, bitmap, dense, tail + listed, tail + bitmap
            ch[q] = {pick == 2, pick == 1 || pick == 4, pick >= 3};
        }
        SplitHook hook{tails, [&](size_t q, const SplitCounts&) { return ch[q]; }};
        SCOPED_TRACE(::testing::Message() << "round " << round << ": " << n_in << " inputs, " << n_aux << " aux, "
                                          << pool.size() << " threads");
        const auto s = split_scalars_multi(values, 3, sel, &pool, true, hook);
        ASSERT_EQ(s.size(), 3u);
        for (size_t q = 0; q < 3; q++) {
            SCOPED_TRACE(::testing::Message() << "list " << q << " layout " << ch[q].dense << ch[q].ones_bitmap
                                              << ch[q].use_tail);
            // No values at all: nothing is laid out (the hook is not asked).
            const ScalarSplit want = n_in + n_aux ? reference_split(g[q], ch[q], tails[q]) : ScalarSplit{};
            EXPECT_EQ(s[q].size, want.size);
            EXPECT_EQ(s[q].dense, want.dense);
            EXPECT_TRUE(s[q].montgomery);
            EXPECT_EQ(s[q].tail, want.tail);
            EXPECT_EQ(s[q].tail_size, want.tail_size);
            EXPECT_EQ(s[q].one_indices, want.one_indices);
            EXPECT_EQ(s[q].one_bits, want.one_bits);
            EXPECT_EQ(s[q].one_bit_count, want.one_bit_count);
            EXPECT_EQ(s[q].other_indices, want.other_indices);
            EXPECT_EQ(s[q].other_scalars, want.other_scalars);
            EXPECT_EQ(rebuild(s[q]), g[q]);
        }
    }
}
