// The optimal ate pairing: bilinearity, non-degeneracy, order r, multi-pairing, infinity handling, input errors,
// and the fast final exponentiation against a plain exponentiation by the full exponent.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "cuzk/pairing/pairing.hpp"

using namespace cuzk;

namespace {

std::mt19937_64& rng() {
    static std::mt19937_64 g(0xba11'ad5eULL);
    return g;
}

limbs_t<4> random_scalar() { return Fr::random(rng()).to_canonical(); }

G1Affine g1_mul(const limbs_t<4>& k) { return G1Jacobian::generator().mul(k).to_affine(); }
G2Affine g2_mul(const limbs_t<4>& k) { return G2Jacobian::generator().mul(k).to_affine(); }

// (p^12 - 1) needs 12 * 381 bits.
constexpr size_t W = 72;
using Big = limbs_t<W>;

Big mul(const Big& a, const Big& b) {
    Big r{};
    for (size_t i = 0; i < W; i++) {
        uint64_t carry = 0;
        for (size_t j = 0; i + j < W; j++) {
            u128 cur = (u128)a[i] * b[j] + r[i + j] + carry;
            r[i + j] = (uint64_t)cur;
            carry = (uint64_t)(cur >> 64);
        }
        EXPECT_EQ(carry, 0u) << "bigint overflow";
    }
    return r;
}

// a / d by binary long division; the test fails when d does not divide a.
template <size_t N>
Big div_exact(const Big& a, const limbs_t<N>& d) {
    Big q{}, rem{}, dw{};
    for (size_t i = 0; i < N; i++) dw[i] = d[i];
    for (size_t i = bigint::num_bits(a); i-- > 0;) {
        for (size_t j = W; j-- > 1;) rem[j] = (rem[j] << 1) | (rem[j - 1] >> 63);
        rem[0] = (rem[0] << 1) | (uint64_t)bigint::bit(a, i);
        if (bigint::cmp(rem, dw) >= 0) {
            bigint::sub(rem, rem, dw);
            q[i / 64] |= 1ULL << (i % 64);
        }
    }
    EXPECT_TRUE(bigint::is_zero(rem)) << "not an exact division";
    return q;
}

Big p_pow(size_t k) {
    Big p{}, r{};
    for (size_t i = 0; i < 6; i++) p[i] = Fq::P[i];
    r[0] = 1;
    for (size_t i = 0; i < k; i++) r = mul(r, p);
    return r;
}

Fq12 gt_pow(const Fq12& f, const Fr& e) { return f.pow(e.to_canonical()); }

}  // namespace

TEST(PairingBilinearity, ScalarsMoveIntoTheExponent) {
    const Fq12 base = pairing(G1Affine::generator(), G2Affine::generator());
    for (int i = 0; i < 2; i++) {
        Fr a = Fr::random(rng()), b = Fr::random(rng());
        G1Affine ap = g1_mul(a.to_canonical());
        G2Affine bq = g2_mul(b.to_canonical());
        Fq12 lhs = pairing(ap, bq);
        EXPECT_EQ(lhs, gt_pow(base, a * b));
        EXPECT_EQ(pairing(ap, G2Affine::generator()), pairing(G1Affine::generator(), g2_mul(a.to_canonical())));
        EXPECT_NE(lhs, base);
    }
}

TEST(PairingBilinearity, AdditiveInEachArgument) {
    G1Affine p1 = g1_mul(random_scalar()), p2 = g1_mul(random_scalar());
    G2Affine q1 = g2_mul(random_scalar()), q2 = g2_mul(random_scalar());
    G1Affine p12 = (p1.to_jacobian() + p2.to_jacobian()).to_affine();
    G2Affine q12 = (q1.to_jacobian() + q2.to_jacobian()).to_affine();
    EXPECT_EQ(pairing(p12, q1), pairing(p1, q1) * pairing(p2, q1));
    EXPECT_EQ(pairing(p1, q12), pairing(p1, q1) * pairing(p1, q2));
    // e(-P, Q) is the inverse, which on GT is the conjugate.
    EXPECT_EQ(pairing(-p1, q1), pairing(p1, q1).conjugate());
}

TEST(PairingGT, NonDegenerateOfOrderR) {
    Fq12 e = pairing(G1Affine::generator(), G2Affine::generator());
    EXPECT_FALSE(e.is_one());
    EXPECT_TRUE(e.pow(Fr::P).is_one());
    // In the cyclotomic subgroup: e^(p^6 + 1) = 1.
    EXPECT_TRUE((e * e.frobenius_map(6)).is_one());
}

TEST(PairingMulti, EqualsProductOfPairings) {
    std::vector<G1Affine> ps;
    std::vector<G2Affine> qs;
    Fq12 product = Fq12::one();
    for (int i = 0; i < 3; i++) {
        ps.push_back(g1_mul(random_scalar()));
        qs.push_back(g2_mul(random_scalar()));
        product *= pairing(ps.back(), qs.back());
    }
    EXPECT_EQ(multi_pairing(ps, qs), product);
    EXPECT_FALSE(pairing_product_is_one(ps, qs));
    // Prepared once, used in two loops.
    std::vector<G2Prepared> prepared(qs.begin(), qs.end());
    EXPECT_EQ(final_exponentiation(multi_miller_loop(ps, prepared)), product);
    EXPECT_EQ(final_exponentiation(miller_loop(ps[0], prepared[0])), pairing(ps[0], qs[0]));
    EXPECT_TRUE(multi_pairing(std::span<const G1Affine>(), std::span<const G2Affine>()).is_one());
}

TEST(PairingMulti, ProductIsOneDetectsBalancedPairs) {
    limbs_t<4> a = random_scalar();
    const G1Affine p = G1Affine::generator();
    const G2Affine q = G2Affine::generator();
    std::vector<G1Affine> ps{g1_mul(a), -p};
    std::vector<G2Affine> qs{q, g2_mul(a)};
    EXPECT_TRUE(pairing_product_is_one(ps, qs));
    // Tampering with either side breaks the balance.
    qs[1] = (qs[1].to_jacobian() + q.to_jacobian()).to_affine();
    EXPECT_FALSE(pairing_product_is_one(ps, qs));
}

TEST(PairingInfinity, IdentityInputsGiveOne) {
    const G1Affine p = G1Affine::generator();
    const G2Affine q = G2Affine::generator();
    EXPECT_TRUE(pairing(G1Affine::identity(), q).is_one());
    EXPECT_TRUE(pairing(p, G2Affine::identity()).is_one());
    EXPECT_TRUE(pairing(G1Affine::identity(), G2Affine::identity()).is_one());
    G2Prepared inf(G2Affine::identity());
    EXPECT_TRUE(inf.is_identity());
    EXPECT_TRUE(inf.lines.empty());
    EXPECT_TRUE(miller_loop(p, inf).is_one());
    // Pairs with an infinity point drop out of a product.
    std::vector<G1Affine> ps{p, G1Affine::identity(), p};
    std::vector<G2Affine> qs{q, q, G2Affine::identity()};
    EXPECT_EQ(multi_pairing(ps, qs), pairing(p, q));
    EXPECT_TRUE(pairing_product_is_one(std::vector<G1Affine>{G1Affine::identity()}, std::vector<G2Affine>{q}));
}

TEST(PairingErrors, BadInputsThrow) {
    std::vector<G1Affine> ps{G1Affine::generator(), G1Affine::generator()};
    std::vector<G2Affine> qs{G2Affine::generator()};
    EXPECT_THROW(multi_pairing(ps, qs), std::invalid_argument);
    EXPECT_THROW(pairing_product_is_one(ps, qs), std::invalid_argument);
    std::vector<G2Prepared> prepared{G2Prepared(qs[0])};
    EXPECT_THROW(multi_miller_loop(ps, prepared), std::invalid_argument);

    G1Affine off1 = G1Affine::from_xy(Fq::one(), Fq::one());
    G2Affine off2 = G2Affine::from_xy(Fq2::one(), Fq2::one());
    ASSERT_FALSE(off1.is_on_curve());
    ASSERT_FALSE(off2.is_on_curve());
    EXPECT_THROW(pairing(off1, G2Affine::generator()), std::invalid_argument);
    EXPECT_THROW(pairing(G1Affine::generator(), off2), std::invalid_argument);
    EXPECT_THROW(G2Prepared{off2}, std::invalid_argument);
    EXPECT_THROW(final_exponentiation(Fq12::zero()), std::invalid_argument);
}

TEST(PairingFinalExponentiation, FastChainIsTheCubeOfThePlainPower) {
    // The hard part follows eprint 2020/875, whose chain computes 3 (p^4 - p^2 + 1)/r; so the whole map is
    // f -> f^(3 (p^12 - 1)/r). Checked on a random element (not only Miller-loop outputs) against a plain pow.
    Big one{};
    one[0] = 1;
    Big e = p_pow(12);
    bigint::sub(e, e, one);
    e = div_exact(e, Fr::P);
    Big three{};
    three[0] = 3;
    Big e3 = mul(e, three);
    Fq12 f = Fq12::random(rng());
    Fq12 fast = final_exponentiation(f);
    EXPECT_EQ(fast, f.pow(e3));
    EXPECT_NE(fast, f.pow(e));
    // ... and for a Miller-loop output.
    Fq12 m = miller_loop(G1Affine::generator(), G2Prepared(G2Affine::generator()));
    EXPECT_EQ(final_exponentiation(m), m.pow(e3));
}
