// Batched subgroup membership (cuzk/msm/batch_subgroup.hpp): ChaCha20 against RFC 8439, the labels, one round's
// combinations against a direct evaluation of the same trit vectors, subgroup points accepted, every small prime
// order of both cofactors caught at a random position with its index reported, the statistics of the 3^-m bound,
// and the plan; the check of a source that holds its points (ResidentRoundSource, with sums formed on the host).
// With a GPU (gpu/subgroup.hpp): the device's bucket sums fold to the CPU's combinations for the same key, the
// device check accepts and rejects as the CPU's does, and so does the check of an MsmContext's resident bases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "cuzk/msm/batch_subgroup.hpp"
#include "cuzk/ec/encoding.hpp"
#include "cuzk/ec/random_points.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/formats/iden3.hpp"
#include "cuzk/formats/iden3_zkey_writer.hpp"
#include "iden3_bytes.hpp"
#include "cuzk/ec/subgroup.hpp"
#include "cuzk/util/thread_pool.hpp"
#ifdef CUZK_HAVE_CUDA
#include "cuzk/gpu/device.hpp"
#include "cuzk/gpu/msm.hpp"
#include "cuzk/gpu/subgroup.hpp"
#endif
#include "cofactors.hpp"
#include "seeded_rng.hpp"

namespace cuzk {
namespace {

using namespace cuzk::testing;

// ---- small-order points (as tests/test_subgroup.cpp builds them; helpers in cofactors.hpp) ------------------
// #E(Fq) = p + |x| (trace x + 1 with x = -|x|).
limbs_t<6> g1_order() {
    limbs_t<6> n{};
    bigint::add(n, Fq::P, limbs_t<6>{BLS_X_ABS, 0, 0, 0, 0, 0});
    return n;
}

// #E'(Fq2) = h2 r.
limbs_t<12> g2_order() { return mul_wide(g2_cofactor(), Fr::P); }

template <class Rng>
G1Affine random_e1(Rng& rng) {
    for (;;) {
        Fq x = Fq::random(rng);
        if (auto y = (x.square() * x + G1Config::b()).sqrt()) return G1Affine::from_xy(x, *y);
    }
}
template <class Rng>
G2Affine random_e2(Rng& rng) {
    for (;;) {
        Fq2 x = Fq2::random(rng);
        if (auto y = (x.square() * x + G2Config::b()).sqrt()) return G2Affine::from_xy(x, *y);
    }
}

// A point of order exactly ell (ell^e exactly divides the group order).
template <class Jac, size_t N, class RandomPoint>
Jac point_of_order(uint64_t ell, unsigned e, const limbs_t<N>& order, RandomPoint random_point) {
    uint64_t ell_e = 1;
    for (unsigned i = 0; i < e; i++) ell_e *= ell;
    auto [m, rem] = div_u64(order, ell_e);
    EXPECT_EQ(rem, 0u);
    for (int attempt = 0; attempt < 32; attempt++) {
        Jac t = random_point().to_jacobian().mul(m);
        if (t.is_identity()) continue;
        while (!t.mul(ell).is_identity()) t = t.mul(ell);
        return t;
    }
    ADD_FAILURE() << "no point of order " << ell;
    return Jac::identity();
}

// ---- ChaCha20 and labels ----------------------------------------------------------------------------------------

TEST(BatchSubgroupChaCha, Rfc8439BlockVector) {
    // RFC 8439, 2.3.2: key 00:01:..:1f, nonce 00:00:00:09:00:00:00:4a:00:00:00:00, block count 1.
    uint32_t key[8];
    for (int i = 0; i < 8; i++)
        key[i] = (uint32_t)(4 * i) | (uint32_t)(4 * i + 1) << 8 | (uint32_t)(4 * i + 2) << 16 |
                 (uint32_t)(4 * i + 3) << 24;
    const uint32_t nonce[3] = {0x09000000, 0x4a000000, 0x00000000};
    uint32_t out[16];
    chacha20_block(key, 1, nonce, out);
    const uint32_t want[16] = {0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3, 0xc7f4d1c7, 0x0368c033,
                               0x9aaa2204, 0x4e6cd4c3, 0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9,
                               0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2};
    for (int i = 0; i < 16; i++) EXPECT_EQ(out[i], want[i]) << i;
}

TEST(BatchSubgroupLabels, InRangeAndTritsBalanced) {
    auto rng = seeded_rng("BatchSubgroupLabels");
    uint32_t key[8];
    for (auto& k : key) k = (uint32_t)rng();
    for (unsigned m : {1u, 2u, 5u, 11u, 14u}) {
        uint64_t range = 1;
        for (unsigned i = 0; i < m; i++) range *= 3;
        const size_t n = 30000;
        std::vector<size_t> trit_count(3 * m, 0);
        for (size_t i = 0; i < n; i++) {
            uint32_t label = batch_subgroup_label(key, 7, m, i);
            ASSERT_LT(label, range);
            for (unsigned j = 0; j < m; j++, label /= 3) trit_count[3 * j + label % 3]++;
        }
        // Each trit is uniform on {0, 1, 2}: n / 3 = 10000 each, standard deviation ~82.
        for (size_t c : trit_count) EXPECT_NEAR((double)c, n / 3.0, 600.0) << "m = " << m;
    }
    // Labels depend on the key, the round and the index only.
    EXPECT_EQ(batch_subgroup_label(key, 3, 9, 12345), batch_subgroup_label(key, 3, 9, 12345));
    size_t same = 0;
    for (size_t i = 0; i < 100; i++) same += batch_subgroup_label(key, 0, 14, i) == batch_subgroup_label(key, 1, 14, i);
    EXPECT_LT(same, 3u);
}

// ---- one round against a direct evaluation -----------------------------------------------------------------------

template <class Cfg>
std::vector<Jacobian<Cfg>> direct_round(std::span<const Affine<Cfg>> pts, unsigned m, const uint32_t key[8],
                                        uint32_t round) {
    std::vector<Jacobian<Cfg>> q(m, Jacobian<Cfg>::identity());
    for (size_t i = 0; i < pts.size(); i++) {
        uint32_t label = batch_subgroup_label(key, round, m, i);
        for (unsigned j = 0; j < m; j++, label /= 3) {
            const int trit = (int)(label % 3) - 1;
            if (trit == 1) q[j] = q[j].add_mixed(pts[i]);
            if (trit == -1) q[j] = q[j].add_mixed(-pts[i]);
        }
    }
    return q;
}

// Curve points (not in the subgroup), with repeats, opposite pairs and points at infinity: the adder's special cases.
template <class Cfg, class RandomPoint>
std::vector<Affine<Cfg>> awkward_points(size_t n, std::mt19937_64& rng, RandomPoint random_point) {
    std::vector<Affine<Cfg>> pts;
    pts.reserve(n);
    while (pts.size() < n) {
        switch (rng() % 8) {
            case 0: pts.push_back(Affine<Cfg>::identity()); break;
            case 1:
                if (!pts.empty()) pts.push_back(pts[rng() % pts.size()]);
                break;
            case 2:
                if (!pts.empty()) pts.push_back(-pts[rng() % pts.size()]);
                break;
            default: pts.push_back(random_point()); break;
        }
    }
    return pts;
}

TEST(BatchSubgroupRound, G1MatchesDirectEvaluation) {
    auto rng = seeded_rng("BatchSubgroupRound.G1");
    uint32_t key[8];
    for (auto& k : key) k = (uint32_t)rng();
    ThreadPool pool3(3);
    for (size_t n : {0, 1, 2, 3, 97, 3000}) {
        // Few distinct points so that buckets really see repeats and opposites.
        std::vector<G1Affine> base(std::max<size_t>(1, n / 8));
        for (auto& b : base) b = random_e1(rng);
        auto pts = awkward_points<G1Config>(n, rng, [&] { return base[rng() % base.size()]; });
        for (unsigned m : {1u, 2u, 3u, 6u, 9u}) {
            auto want = direct_round<G1Config>(pts, m, key, m);
            auto got = g1_batch_round(pts, m, key, m);
            auto got3 = g1_batch_round(pts, m, key, m, &pool3);
            ASSERT_EQ(got.size(), m);
            for (unsigned j = 0; j < m; j++) {
                // The fold may produce -Q_j (the sign is irrelevant to membership); compare up to sign.
                EXPECT_TRUE(got[j] == want[j] || got[j] == -want[j]) << "n = " << n << ", m = " << m << ", j = " << j;
                EXPECT_EQ(got3[j], got[j]) << "thread count changed the result";
            }
        }
    }
}

TEST(BatchSubgroupRound, G2MatchesDirectEvaluation) {
    auto rng = seeded_rng("BatchSubgroupRound.G2");
    uint32_t key[8];
    for (auto& k : key) k = (uint32_t)rng();
    for (size_t n : {0, 1, 5, 700}) {
        std::vector<G2Affine> base(std::max<size_t>(1, n / 8));
        for (auto& b : base) b = random_e2(rng);
        auto pts = awkward_points<G2Config>(n, rng, [&] { return base[rng() % base.size()]; });
        for (unsigned m : {1u, 4u, 7u}) {
            auto want = direct_round<G2Config>(pts, m, key, 2);
            auto got = g2_batch_round(pts, m, key, 2);
            for (unsigned j = 0; j < m; j++)
                EXPECT_TRUE(got[j] == want[j] || got[j] == -want[j]) << "n = " << n << ", m = " << m << ", j = " << j;
        }
    }
}

// ---- accepting and rejecting --------------------------------------------------------------------------------------

TEST(BatchSubgroup, EmptyAndSingle) {
    std::vector<G1Affine> none;
    EXPECT_TRUE(g1_batch_in_subgroup(none));
    EXPECT_EQ(g1_batch_first_not_in_subgroup(none), std::nullopt);
    std::vector<G2Affine> none2;
    EXPECT_TRUE(g2_batch_in_subgroup(none2));
    EXPECT_EQ(g2_batch_first_not_in_subgroup(none2), std::nullopt);

    auto rng = seeded_rng("BatchSubgroup.EmptyAndSingle");
    std::vector<G1Affine> one = {G1Affine::generator()};
    EXPECT_TRUE(g1_batch_in_subgroup(one));
    one[0] = G1Affine::identity();
    EXPECT_TRUE(g1_batch_in_subgroup(one));
    one[0] = random_e1(rng);
    EXPECT_FALSE(g1_batch_in_subgroup(one));
    EXPECT_EQ(g1_batch_first_not_in_subgroup(one), 0u);
    std::vector<G2Affine> one2 = {G2Affine::generator()};
    EXPECT_TRUE(g2_batch_in_subgroup(one2));
    one2[0] = random_e2(rng);
    EXPECT_FALSE(g2_batch_in_subgroup(one2));
    EXPECT_EQ(g2_batch_first_not_in_subgroup(one2), 0u);
}

TEST(BatchSubgroup, SubgroupPointsPass) {
    auto rng = seeded_rng("BatchSubgroup.SubgroupPointsPass");
    for (size_t n : {2, 40, 300, 5000, 70000}) {
        auto pts = random_points<G1Config>(n, rng());
        // A few points at infinity and repeats are in the subgroup too.
        for (int k = 0; k < 3 && n > 10; k++) pts[rng() % n] = G1Affine::identity();
        for (int k = 0; k < 3 && n > 10; k++) pts[rng() % n] = pts[rng() % n];
        EXPECT_TRUE(g1_batch_in_subgroup(pts)) << n;
        EXPECT_EQ(g1_batch_first_not_in_subgroup(pts), std::nullopt) << n;
    }
    for (size_t n : {2, 40, 3000}) {
        auto pts = random_points<G2Config>(n, rng());
        EXPECT_TRUE(g2_batch_in_subgroup(pts)) << n;
        EXPECT_EQ(g2_batch_first_not_in_subgroup(pts), std::nullopt) << n;
    }
}

// Spans that are mostly the identity (a circom zkey's B1 and B2) are checked without their identities; the reported
// index is still the position in the span given, and a bad point among the few others is caught.
TEST(BatchSubgroup, MostlyIdentitiesKeepTheirPositions) {
    auto rng = seeded_rng("BatchSubgroup.MostlyIdentities");
    Jacobian<G1Config> t3 = point_of_order<G1Jacobian>(3, 1, g1_order(), [&] { return random_e1(rng); });
    for (size_t n : {100, 9000, 70000}) {
        std::vector<G1Affine> pts(n, G1Affine::identity());
        auto others = random_points<G1Config>(n / 10 + 1, rng());
        for (const auto& p : others) pts[rng() % n] = p;
        EXPECT_TRUE(g1_batch_in_subgroup(pts)) << n;
        EXPECT_EQ(g1_batch_first_not_in_subgroup(pts), std::nullopt) << n;
        // A bad point at a random position, and a later one.
        const size_t idx = rng() % (n / 2);
        pts[idx] = (others[0].to_jacobian() + t3).to_affine();
        pts[n / 2 + rng() % (n / 2)] = t3.to_affine();
        EXPECT_FALSE(g1_batch_in_subgroup(pts)) << n;
        EXPECT_EQ(g1_batch_first_not_in_subgroup(pts), idx) << n;
    }
    std::vector<G2Affine> pts2(5000, G2Affine::identity());
    auto others2 = random_points<G2Config>(40, rng());
    for (const auto& p : others2) pts2[rng() % pts2.size()] = p;
    EXPECT_TRUE(g2_batch_in_subgroup(pts2));
    const size_t idx2 = rng() % pts2.size();
    pts2[idx2] = random_e2(rng);  // a random curve point is outside G2 but for a negligible chance
    EXPECT_EQ(g2_batch_first_not_in_subgroup(pts2), idx2);
}

// ---- read_parameters with the batched check ---------------------------------------------------------------------

groth16::Parameters params_of_size(size_t n, std::mt19937_64& rng) {
    groth16::Parameters p;
    p.vk.alpha_g1 = p.vk.beta_g1 = p.vk.delta_g1 = G1Affine::generator();
    p.vk.beta_g2 = p.vk.gamma_g2 = p.vk.delta_g2 = G2Affine::generator();
    p.vk.ic = random_points<G1Config>(3, rng());
    p.h = random_points<G1Config>(n, rng());
    p.l = random_points<G1Config>(n / 2, rng());
    p.a = random_points<G1Config>(n / 3, rng());
    p.b_g1 = random_points<G1Config>(n / 4, rng());
    p.b_g2 = random_points<G2Config>(n / 5, rng());
    return p;
}

void put_point(std::vector<uint8_t>& bytes, std::string_view section, size_t i, std::span<const uint8_t> enc) {
    auto layout = formats::parse_parameters_layout(bytes, "x");
    const auto& s = layout.section(section);
    std::copy(enc.begin(), enc.end(), bytes.begin() + (ptrdiff_t)(s.offset + i * s.point_bytes()));
}

formats::FormatError read_error(const std::vector<uint8_t>& bytes) {
    try {
        formats::read_parameters(bytes, "p.params");
    } catch (const formats::FormatError& e) {
        return e;
    }
    ADD_FAILURE() << "read_parameters accepted the file";
    return formats::FormatError(formats::FormatErrorKind::Io, "none");
}

// Sections large enough for the batched path and its search; the report is the one per-point checks would give:
// the section, and the lowest index failing any check (a subgroup failure before a decoding failure and after it).
TEST(BatchSubgroupParams, ReportsTheFirstBadPointOfTheFirstBadSection) {
    auto rng = seeded_rng("BatchSubgroupParams");
    auto p = params_of_size(9000, rng);
    const auto good = formats::parameters_to_bytes(p);
    EXPECT_EQ(formats::read_parameters(good, "p.params").params, p);
    G1Affine outside = (random_points<G1Config>(1, rng())[0].to_jacobian() +
                        point_of_order<G1Jacobian>(11, 2, g1_order(), [&] { return random_e1(rng); }))
                           .to_affine();
    auto off_curve = g1_to_uncompressed(G1Affine::from_xy(p.h[0].x, p.h[0].y + Fq::one()));
    for (int trial = 0; trial < 3; trial++) {
        const size_t i = 2500 + rng() % 6000;
        {
            auto bytes = good;
            put_point(bytes, "h", i, g1_to_uncompressed(outside));
            put_point(bytes, "a", 5, g1_to_uncompressed(outside));  // a later section
            auto e = read_error(bytes);
            EXPECT_EQ(e.decode_error(), DecodeError::NotInSubgroup);
            EXPECT_EQ(e.section(), "h");
            EXPECT_EQ(e.index(), i);
            EXPECT_EQ(std::string(e.what()),
                      "p.params: section h, point " + std::to_string(i) + ": point is not in the prime-order subgroup");
        }
        {
            auto bytes = good;  // outside the subgroup below a point off the curve: the former is first
            put_point(bytes, "h", i, g1_to_uncompressed(outside));
            put_point(bytes, "h", i + 300, off_curve);
            auto e = read_error(bytes);
            EXPECT_EQ(e.decode_error(), DecodeError::NotInSubgroup);
            EXPECT_EQ(e.index(), i);
        }
        {
            auto bytes = good;  // and above it: the point off the curve is first
            put_point(bytes, "h", i, g1_to_uncompressed(outside));
            put_point(bytes, "h", i - 300, off_curve);
            auto e = read_error(bytes);
            EXPECT_EQ(e.decode_error(), DecodeError::NotOnCurve);
            EXPECT_EQ(e.index(), i - 300);
        }
    }
    {
        auto bytes = good;
        const size_t j = rng() % p.b_g2.size();
        G2Affine outside2 = (p.b_g2[j].to_jacobian() +
                             point_of_order<G2Jacobian>(23, 2, g2_order(), [&] { return random_e2(rng); }))
                                .to_affine();
        put_point(bytes, "b_g2", j, g2_to_uncompressed(outside2));
        auto e = read_error(bytes);
        EXPECT_EQ(e.decode_error(), DecodeError::NotInSubgroup);
        EXPECT_EQ(e.section(), "b_g2");
        EXPECT_EQ(e.index(), j);
        formats::ParamsReadOptions unchecked;
        unchecked.check_subgroup = false;
        EXPECT_EQ(formats::read_parameters(bytes, "p.params", unchecked).params.b_g2[j], outside2);
    }
}

// A snarkjs .zkey: a chain x_(k+1) = x_k * x_k of n constraints (wire 1 the public output, 2 the private input), so
// A, B1, B2, C and H hold n + 2 or so points each. A point outside the subgroup in H and another in B2 are reported
// with their section and index, in file order, as the per-point checks reported them.
std::vector<uint8_t> chain_r1cs(uint32_t n) {
    test_iden3::Bytes h;
    const uint32_t wires = n + 2;
    h.u32(32).limbs(Fr::P).u32(wires).u32(1).u32(0).u32(1).u64(wires).u32(n);
    test_iden3::Bytes c;
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t in = 2 + k, out = k + 1 == n ? 1 : 3 + k;
        c.u32(1).u32(in).fr(Fr::one());
        c.u32(1).u32(in).fr(Fr::one());
        c.u32(1).u32(out).fr(Fr::one());
    }
    return test_iden3::container("r1cs", 1, {{1, h.v}, {2, c.v}});
}

template <class A>
void put_mont(std::vector<uint8_t>& bytes, size_t at, const A& p) {
    auto put = [&](const Fq& f) {
        for (size_t i = 0; i < 6; i++)
            for (size_t k = 0; k < 8; k++) bytes[at++] = (uint8_t)(f.mont_limbs()[i] >> (8 * k));
    };
    if constexpr (std::is_same_v<A, G1Affine>) {
        put(p.x), put(p.y);
    } else {
        put(p.x.c0), put(p.x.c1), put(p.y.c0), put(p.y.c1);
    }
}

TEST(BatchSubgroupZkey, ReportsTheFirstBadPointWithItsSection) {
    using namespace formats::iden3;
    auto rng = seeded_rng("BatchSubgroupZkey");
    const auto good = make_test_zkey(read_r1cs(chain_r1cs(3000), "chain.r1cs"), groth16::ToxicWaste::from_seed(9));
    Zkey z = read_zkey(good, "test.zkey");
    ASSERT_EQ(z.h.size(), 4096u);
    Container c = parse_container(good, "zkey", 1, "test.zkey");
    const size_t h_at = c.unique(9, "H", "test.zkey").offset, b2_at = c.unique(7, "B2", "test.zkey").offset;
    const size_t i = rng() % z.h.size(), j = rng() % z.b2.size();
    G1Affine bad1 = (z.h[i].to_jacobian() + point_of_order<G1Jacobian>(3, 1, g1_order(), [&] { return random_e1(rng); }))
                        .to_affine();
    G2Affine bad2 =
        (z.b2[j].to_jacobian() + point_of_order<G2Jacobian>(13, 2, g2_order(), [&] { return random_e2(rng); }))
            .to_affine();
    auto expect_error = [&](const std::vector<uint8_t>& bytes, const std::string& section, size_t index) {
        try {
            read_zkey(bytes, "test.zkey");
            ADD_FAILURE() << "accepted";
        } catch (const Iden3Error& e) {
            EXPECT_EQ(e.kind(), Iden3ErrorKind::BadPoint);
            EXPECT_EQ(e.section(), section);
            EXPECT_EQ(e.index(), index);
            EXPECT_EQ(std::string(e.what()), "test.zkey: section " + section + ", index " + std::to_string(index) +
                                                 ": point is not in the prime-order subgroup");
        }
    };
    auto bytes = good;
    put_mont(bytes, h_at + 96 * i, bad1);
    expect_error(bytes, "H", i);
    put_mont(bytes, b2_at + 192 * j, bad2);
    expect_error(bytes, "B2", j);  // B2 comes before H
    Zkey unchecked = read_zkey(bytes, "test.zkey", {.check_subgroup = false});
    EXPECT_EQ(unchecked.h[i], bad1);
    EXPECT_EQ(unchecked.b2[j], bad2);
}

// One point P + T with T of order ell at a random index among subgroup points: always caught, index reported.
template <class Cfg, size_t N, class RandomCurvePoint, class Check, class First>
void plant_each_order(std::span<const std::pair<uint64_t, unsigned>> factors, const limbs_t<N>& order,
                      std::mt19937_64& rng, RandomCurvePoint random_curve_point, Check check, First first,
                      std::initializer_list<size_t> sizes) {
    using Jac = Jacobian<Cfg>;
    for (auto [ell, e] : factors) {
        Jac t = point_of_order<Jac>(ell, e, order, random_curve_point);
        ASSERT_FALSE(t.is_identity());
        ASSERT_TRUE(t.mul(ell).is_identity());
        for (size_t n : sizes) {
            auto pts = random_points<Cfg>(n, rng());
            const size_t idx = rng() % n;
            // Alone (order ell) or added to a subgroup point (order ell * r).
            pts[idx] = (rng() & 1) ? t.to_affine() : (t + pts[idx].to_jacobian()).to_affine();
            EXPECT_FALSE(check(pts)) << "order " << ell << ", n = " << n;
            EXPECT_EQ(first(pts), idx) << "order " << ell << ", n = " << n;
        }
    }
}

TEST(BatchSubgroup, G1CatchesEverySmallOrderAtARandomIndex) {
    auto rng = seeded_rng("BatchSubgroup.G1CatchesEverySmallOrder");
    plant_each_order<G1Config>(
        G1_COFACTOR_FACTORS, g1_order(), rng, [&] { return random_e1(rng); },
        [](std::span<const G1Affine> p) { return g1_batch_in_subgroup(p); },
        [](std::span<const G1Affine> p) { return g1_batch_first_not_in_subgroup(p); }, {60, 2500, 9000});
}

TEST(BatchSubgroup, G2CatchesEverySmallOrderAtARandomIndex) {
    auto rng = seeded_rng("BatchSubgroup.G2CatchesEverySmallOrder");
    plant_each_order<G2Config>(
        G2_COFACTOR_SMALL_FACTORS, g2_order(), rng, [&] { return random_e2(rng); },
        [](std::span<const G2Affine> p) { return g2_batch_in_subgroup(p); },
        [](std::span<const G2Affine> p) { return g2_batch_first_not_in_subgroup(p); }, {60, 2600});
}

TEST(BatchSubgroup, CancellingPairsAndManyBadPointsAreCaught) {
    auto rng = seeded_rng("BatchSubgroup.CancellingPairs");
    Jacobian<G1Config> t3 = point_of_order<G1Jacobian>(3, 1, g1_order(), [&] { return random_e1(rng); });
    Jacobian<G1Config> t11 = point_of_order<G1Jacobian>(11, 2, g1_order(), [&] { return random_e1(rng); });
    const size_t n = 20000;
    for (int trial = 0; trial < 3; trial++) {
        // T and -T: a single random combination misses them with probability 1/3.
        auto pts = random_points<G1Config>(n, rng());
        size_t i = rng() % n, j = rng() % n;
        while (j == i) j = rng() % n;
        pts[i] = (pts[i].to_jacobian() + t3).to_affine();
        pts[j] = (pts[j].to_jacobian() - t3).to_affine();
        EXPECT_FALSE(g1_batch_in_subgroup(pts));
        EXPECT_EQ(g1_batch_first_not_in_subgroup(pts), std::min(i, j));
        // Every point bad, with components that sum to zero in many ways.
        auto all = random_points<G1Config>(n, rng());
        for (size_t k = 0; k < n; k++) {
            int c = (int)(rng() % 4);
            Jacobian<G1Config> tk = c == 0 ? t3 : c == 1 ? -t3 : c == 2 ? t11 : -t11;
            all[k] = (all[k].to_jacobian() + tk).to_affine();
        }
        EXPECT_FALSE(g1_batch_in_subgroup(all));
        EXPECT_EQ(g1_batch_first_not_in_subgroup(all), 0u);
    }
}

// The bound is 3^-m per round and it is tight: with 2 trits (security_bits = 3) a lone point of order 3 escapes
// exactly when its trit vector is zero, probability 1/9, and so does the pair T, -T (when the two vectors agree).
TEST(BatchSubgroup, EscapeRateMatchesTheBound) {
    auto rng = seeded_rng("BatchSubgroup.EscapeRate");
    ASSERT_EQ(batch_subgroup_trits(3), 2u);
    Jacobian<G1Config> t3 = point_of_order<G1Jacobian>(3, 1, g1_order(), [&] { return random_e1(rng); });
    auto pts = random_points<G1Config>(400, rng());
    auto pair = pts;
    pts[17] = (pts[17].to_jacobian() + t3).to_affine();
    pair[5] = (pair[5].to_jacobian() + t3).to_affine();
    pair[300] = (pair[300].to_jacobian() - t3).to_affine();
    const int trials = 900;
    int lone = 0, both = 0;
    for (int k = 0; k < trials; k++) {
        BatchSubgroupOptions opt;
        opt.security_bits = 3;
        opt.insecure_seed = rng();
        lone += g1_batch_in_subgroup(pts, opt);
        both += g1_batch_in_subgroup(pair, opt);
    }
    // Binomial(900, 1/9): mean 100, standard deviation ~9.4.
    EXPECT_NEAR(lone, 100, 40);
    EXPECT_NEAR(both, 100, 40);
}

TEST(BatchSubgroup, PlanMeetsTheSecurityLevel) {
    EXPECT_EQ(batch_subgroup_trits(64), 41u);   // 3^-41 = 2^-64.98
    EXPECT_EQ(batch_subgroup_trits(128), 81u);  // 3^-81 = 2^-128.38
    EXPECT_EQ(batch_subgroup_trits(1), 1u);
    for (bool g2 : {false, true}) {
        EXPECT_TRUE(batch_subgroup_plan(0, g2).per_point());
        EXPECT_TRUE(batch_subgroup_plan(10, g2).per_point());
        for (size_t n : {size_t(1) << 10, size_t(1) << 16, size_t(1) << 20, size_t(1) << 27}) {
            auto plan = batch_subgroup_plan(n, g2);
            ASSERT_FALSE(plan.per_point()) << n;
            unsigned sum = 0;
            for (unsigned m : plan.trits) {
                EXPECT_GE(m, 1u);
                EXPECT_LE(m, 14u);
                sum += m;
            }
            EXPECT_GE(sum, 41u) << n;
        }
    }
    EXPECT_EQ(batch_subgroup_plan(size_t(1) << 27, false).trits.size(), 3u);
    EXPECT_EQ(batch_subgroup_plan(size_t(1) << 20, false).trits.size(), 4u);
}

// ---- a source that holds its points (ResidentRoundSource) --------------------------------------------------------

// The bucket sums formed here from a host copy, as a device that holds the points forms them (gpu/subgroup.hpp's
// resident check): the batching, keys, fold and tests of the resident check run without a GPU. Rounds of at most
// 5 trits keep the buckets few; every batch asked for is recorded.
template <class Cfg>
class HostResidentSource final : public ResidentRoundSource<Cfg> {
public:
    HostResidentSource(std::vector<Affine<Cfg>> pts, size_t max_points) : pts_(std::move(pts)), max_(max_points) {}
    size_t size() const override { return pts_.size(); }
    size_t max_points() const override { return max_; }
    std::vector<unsigned> plan(size_t, unsigned t) const override {
        if (short_plan) return {t - 1};
        std::vector<unsigned> trits;
        for (unsigned left = t; left > 0; left -= trits.back()) trits.push_back(std::min(left, 5u));
        return trits;
    }
    std::vector<std::vector<Affine<Cfg>>> sums(size_t first, size_t count, std::span<const unsigned> trits,
                                               const uint32_t key[8]) override {
        batches.emplace_back(first, count);
        std::vector<std::vector<Affine<Cfg>>> out(trits.size());
        for (size_t r = 0; r < trits.size(); r++) {
            uint32_t range = 1;
            for (unsigned j = 0; j < trits[r]; j++) range *= 3;
            const uint32_t K = (range - 1) / 2;
            std::vector<Jacobian<Cfg>> acc(K, Jacobian<Cfg>::identity());
            for (size_t i = 0; i < count; i++) {
                const uint32_t label = batch_subgroup_label(key, (uint32_t)r, trits[r], i);
                const Affine<Cfg>& p = pts_[first + i];
                if (label < K) acc[label] = acc[label].add_mixed(p);
                if (label > K) acc[range - 1 - label] = acc[range - 1 - label].add_mixed(-p);
            }
            for (const auto& a : acc) out[r].push_back(a.to_affine());
        }
        return out;
    }
    std::vector<Affine<Cfg>>& points() { return pts_; }

    bool short_plan = false;
    std::vector<std::pair<size_t, size_t>> batches;

private:
    std::vector<Affine<Cfg>> pts_;
    size_t max_;
};

// The host source forms the sums the contract asks for: folded, they are the CPU round's combinations.
TEST(BatchSubgroupResident, HostSourceSumsFoldToTheCpuRounds) {
    auto rng = seeded_rng("BatchSubgroupResident.HostSource");
    uint32_t key[8];
    for (auto& k : key) k = (uint32_t)rng();
    auto pts = awkward_points<G1Config>(500, rng, [&] { return random_e1(rng); });
    HostResidentSource<G1Config> src(pts, 1000);
    const std::vector<unsigned> trits = {1, 3, 5};
    auto sums = src.sums(100, 400, trits, key);
    ASSERT_EQ(sums.size(), trits.size());
    for (size_t r = 0; r < trits.size(); r++) {
        auto q = g1_batch_fold(sums[r], trits[r]);
        auto want = g1_batch_round(std::span<const G1Affine>(pts).subspan(100), trits[r], key, (uint32_t)r);
        ASSERT_EQ(q.size(), want.size());
        for (size_t j = 0; j < q.size(); j++) EXPECT_TRUE(q[j] == want[j] || q[j] == -want[j]) << r << " " << j;
    }
}

// Batches of at most max_points() cover the points in order; subgroup points (infinities among them) pass; one
// point outside the subgroup anywhere fails, alone of order 3 (the hardest to catch) or a random curve point.
TEST(BatchSubgroupResident, PassesSubgroupPointsAndCatchesOneBadPoint) {
    auto rng = seeded_rng("BatchSubgroupResident.OneBadPoint");
    Jacobian<G1Config> t3 = point_of_order<G1Jacobian>(3, 1, g1_order(), [&] { return random_e1(rng); });
    for (size_t n : {1, 999, 3000}) {
        auto pts = random_points<G1Config>(n, rng());
        for (int k = 0; k < 3 && n > 10; k++) pts[rng() % n] = G1Affine::identity();
        HostResidentSource<G1Config> src(pts, 1000);
        EXPECT_TRUE(g1_batch_in_subgroup(src)) << n;
        size_t next = 0;
        for (auto [first, count] : src.batches) {
            EXPECT_EQ(first, next) << n;
            EXPECT_GE(count, 1u);
            EXPECT_LE(count, 1000u);
            next = first + count;
        }
        EXPECT_EQ(next, n);
        for (bool order3 : {true, false}) {
            const size_t idx = rng() % n;
            src.points() = pts;
            src.points()[idx] = order3 ? (pts[idx].to_jacobian() + t3).to_affine() : random_e1(rng);
            EXPECT_FALSE(g1_batch_in_subgroup(src)) << "n = " << n << ", index " << idx << ", order 3: " << order3;
        }
    }
    auto pts2 = random_points<G2Config>(300, rng());
    HostResidentSource<G2Config> src2(pts2, 128);
    EXPECT_TRUE(g2_batch_in_subgroup(src2));
    EXPECT_EQ(src2.batches.size(), 3u);
    const size_t idx2 = rng() % pts2.size();
    src2.points()[idx2] = random_e2(rng);
    EXPECT_FALSE(g2_batch_in_subgroup(src2)) << "index " << idx2;
}

TEST(BatchSubgroupResident, EmptySourceAndShortPlans) {
    HostResidentSource<G1Config> none({}, 1000);
    EXPECT_TRUE(g1_batch_in_subgroup(none));
    EXPECT_TRUE(none.batches.empty());
    HostResidentSource<G1Config> src(random_points<G1Config>(10, 1), 1000);
    src.short_plan = true;
    EXPECT_THROW(g1_batch_in_subgroup(src), std::logic_error);
    BatchSubgroupOptions bad;
    bad.security_bits = 0;
    EXPECT_THROW(g1_batch_in_subgroup(src, bad), std::invalid_argument);
}

// ---- device rounds (gpu/subgroup.hpp) -----------------------------------------------------------------------------
#ifdef CUZK_HAVE_CUDA
bool have_gpu() { return !gpu::devices().empty(); }

template <class Cfg, class Sums, class Fold, class CpuRound>
void expect_device_rounds_match(std::span<const Affine<Cfg>> pts, const uint32_t key[8], Sums sums, Fold fold,
                                CpuRound cpu_round, const char* what) {
    const std::vector<unsigned> trits = {1, 2, 5, 11};
    auto got = sums(pts, std::span<const unsigned>(trits), key);
    ASSERT_EQ(got.size(), trits.size());
    for (size_t r = 0; r < trits.size(); r++) {
        const unsigned m = trits[r];
        ASSERT_EQ(got[r].size(), (size_t)(std::pow(3.0, m) - 1) / 2);
        auto q = fold(std::span<Affine<Cfg>>(got[r]), m);
        auto want = cpu_round(pts, m, key, (uint32_t)r);
        ASSERT_EQ(q.size(), (size_t)m);
        for (unsigned j = 0; j < m; j++)
            EXPECT_TRUE(q[j] == want[j] || q[j] == -want[j])
                << what << ": n = " << pts.size() << ", round " << r << " (" << m << " trits), j = " << j;
    }
}

TEST(GpuBatchSubgroup, DeviceBucketSumsFoldToTheCpuRounds) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    auto rng = seeded_rng("GpuBatchSubgroup.DeviceBucketSums");
    uint32_t key[8];
    for (auto& k : key) k = (uint32_t)rng();
    for (size_t n : {0, 1, 17, 3000, 200000}) {
        // Few distinct points: repeats, opposites and infinities meet in the device's buckets.
        std::vector<G1Affine> base(std::max<size_t>(1, n / 64));
        for (auto& b : base) b = random_e1(rng);
        auto pts = awkward_points<G1Config>(n, rng, [&] { return base[rng() % base.size()]; });
        expect_device_rounds_match<G1Config>(
            pts, key,
            [](std::span<const G1Affine> p, std::span<const unsigned> t, const uint32_t* k) {
                return gpu::g1_batch_round_sums_gpu(p, t, k);
            },
            [](std::span<G1Affine> s, unsigned m) { return g1_batch_fold(s, m); },
            [](std::span<const G1Affine> p, unsigned m, const uint32_t* k, uint32_t r) {
                return g1_batch_round(p, m, k, r);
            },
            "G1");
    }
    for (size_t n : {1, 999, 40000}) {
        std::vector<G2Affine> base(std::max<size_t>(1, n / 64));
        for (auto& b : base) b = random_e2(rng);
        auto pts = awkward_points<G2Config>(n, rng, [&] { return base[rng() % base.size()]; });
        expect_device_rounds_match<G2Config>(
            pts, key,
            [](std::span<const G2Affine> p, std::span<const unsigned> t, const uint32_t* k) {
                return gpu::g2_batch_round_sums_gpu(p, t, k);
            },
            [](std::span<G2Affine> s, unsigned m) { return g2_batch_fold(s, m); },
            [](std::span<const G2Affine> p, unsigned m, const uint32_t* k, uint32_t r) {
                return g2_batch_round(p, m, k, r);
            },
            "G2");
    }
}

TEST(GpuBatchSubgroup, CatchesEverySmallOrderAtARandomIndex) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    auto rng = seeded_rng("GpuBatchSubgroup.CatchesEverySmallOrder");
    auto g1 = [](std::span<const G1Affine> p) { return gpu::g1_first_not_in_subgroup_gpu(p); };
    plant_each_order<G1Config>(
        G1_COFACTOR_FACTORS, g1_order(), rng, [&] { return random_e1(rng); },
        [&](std::span<const G1Affine> p) { return !g1(p).has_value(); }, g1, {60, 70000});
    auto g2 = [](std::span<const G2Affine> p) { return gpu::g2_first_not_in_subgroup_gpu(p); };
    plant_each_order<G2Config>(
        G2_COFACTOR_SMALL_FACTORS, g2_order(), rng, [&] { return random_e2(rng); },
        [&](std::span<const G2Affine> p) { return !g2(p).has_value(); }, g2, {30000});
}

TEST(GpuBatchSubgroup, SubgroupPointsPassAndCancellingPairsFail) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    auto rng = seeded_rng("GpuBatchSubgroup.Pass");
    const size_t n = (size_t(1) << 20) + 3;
    auto pts = random_points<G1Config>(n, rng());
    pts[rng() % n] = G1Affine::identity();
    EXPECT_EQ(gpu::g1_first_not_in_subgroup_gpu(pts), std::nullopt);
    auto pts2 = random_points<G2Config>(100000, rng());
    EXPECT_EQ(gpu::g2_first_not_in_subgroup_gpu(pts2), std::nullopt);
    // T and -T of order 3: one random combination misses them with probability 1/3.
    Jacobian<G1Config> t3 = point_of_order<G1Jacobian>(3, 1, g1_order(), [&] { return random_e1(rng); });
    size_t i = rng() % n, j = rng() % n;
    while (j == i) j = rng() % n;
    pts[i] = (pts[i].to_jacobian() + t3).to_affine();
    pts[j] = (pts[j].to_jacobian() - t3).to_affine();
    EXPECT_EQ(gpu::g1_first_not_in_subgroup_gpu(pts), std::min(i, j));
}

TEST(GpuBatchSubgroup, PlanMeetsTheSecurityLevel) {
    for (unsigned t : {1u, 11u, 12u, 41u, 81u}) {
        auto plan = gpu::gpu_batch_subgroup_plan(t);
        unsigned sum = 0;
        for (unsigned m : plan) {
            EXPECT_GE(m, 1u);
            EXPECT_LE(m, 11u);
            sum += m;
        }
        EXPECT_EQ(sum, t);
        EXPECT_EQ(plan.size(), (t + 10) / 11);
    }
}

// ---- the resident check: points already on the device (an MsmContext's bases) ------------------------------------

template <class Cfg>
bool resident_check(std::span<const Affine<Cfg>> pts) {
    gpu::MsmContext<Cfg> ctx(pts);
    if constexpr (std::is_same_v<Cfg, G2Config>) return gpu::g2_resident_in_subgroup_gpu(ctx.device_bases(), ctx.num_bases());
    else return gpu::g1_resident_in_subgroup_gpu(ctx.device_bases(), ctx.num_bases());
}

// Subgroup points pass; one point outside the subgroup at a random position fails, P + T with T of order 3 (the
// hardest to catch) or a random curve point.
template <class Cfg, class RandomCurvePoint>
void expect_resident_check(std::initializer_list<size_t> sizes, const Jacobian<Cfg>& t3, std::mt19937_64& rng,
                           RandomCurvePoint random_curve_point) {
    for (size_t n : sizes) {
        auto pts = random_points<Cfg>(n, rng());
        EXPECT_TRUE(resident_check<Cfg>(pts)) << "n = " << n;
        for (bool order3 : {true, false}) {
            auto bad = pts;
            const size_t idx = rng() % n;
            bad[idx] = order3 ? (pts[idx].to_jacobian() + t3).to_affine() : random_curve_point();
            EXPECT_FALSE(resident_check<Cfg>(bad)) << "n = " << n << ", index " << idx << ", order 3: " << order3;
        }
    }
}

TEST(GpuBatchSubgroup, ResidentG1PassesAndCatchesOneBadPoint) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    auto rng = seeded_rng("GpuBatchSubgroup.ResidentG1");
    Jacobian<G1Config> t3 = point_of_order<G1Jacobian>(3, 1, g1_order(), [&] { return random_e1(rng); });
    expect_resident_check<G1Config>({1, 5000, 70000}, t3, rng, [&] { return random_e1(rng); });
}

TEST(GpuBatchSubgroup, ResidentG2PassesAndCatchesOneBadPoint) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    auto rng = seeded_rng("GpuBatchSubgroup.ResidentG2");
    Jacobian<G2Config> t13 = point_of_order<G2Jacobian>(13, 2, g2_order(), [&] { return random_e2(rng); });
    expect_resident_check<G2Config>({1, 3000}, t13, rng, [&] { return random_e2(rng); });
}

// Points at infinity ((0, 0) on the device) are in the subgroup: a set of them, alone or among others, passes; a bad
// point among them still fails.
TEST(GpuBatchSubgroup, ResidentInfinitiesPass) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    auto rng = seeded_rng("GpuBatchSubgroup.ResidentInfinities");
    std::vector<G1Affine> all(100, G1Affine::identity());
    EXPECT_TRUE(resident_check<G1Config>(all));
    auto pts = random_points<G1Config>(6000, rng());
    for (size_t i = 0; i < pts.size(); i++)
        if (rng() % 3 == 0) pts[i] = G1Affine::identity();
    EXPECT_TRUE(resident_check<G1Config>(pts));
    const size_t idx = rng() % pts.size();
    pts[idx] = random_e1(rng);
    EXPECT_FALSE(resident_check<G1Config>(pts)) << "index " << idx;
    std::vector<G2Affine> all2(50, G2Affine::identity());
    auto others2 = random_points<G2Config>(20, rng());
    for (const auto& p : others2) all2[rng() % all2.size()] = p;
    EXPECT_TRUE(resident_check<G2Config>(all2));
}

TEST(GpuBatchSubgroup, ResidentRefusesHostPointers) {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
    auto pts = random_points<G1Config>(10, 1);
    EXPECT_THROW(gpu::g1_resident_in_subgroup_gpu(pts.data(), pts.size()), std::invalid_argument);
    EXPECT_TRUE(gpu::g1_resident_in_subgroup_gpu(nullptr, 0));
}
#endif

}  // namespace
}  // namespace cuzk
