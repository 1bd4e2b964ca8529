// Subgroup membership: the endomorphism constants are re-derived here from their definitions, and the fast tests
// are compared with [r]P == O on subgroup points, on random curve points (almost surely outside the subgroup), and
// on points whose order is a small prime factor of the cofactor, alone and added to a subgroup point: those are the
// points an endomorphism test with a wrong constant or a wrong eigenvalue would accept.
#include <gtest/gtest.h>

#include <random>
#include <utility>

#include "cuzk/ec/subgroup.hpp"
#include "cofactors.hpp"

namespace cuzk {
namespace {

using namespace cuzk::testing;

// (p - 1) / k for k | p - 1.
limbs_t<6> p_minus_1_over(uint64_t k) {
    auto [q, rem] = div_u64(Fq::sub_one(Fq::P), k);
    EXPECT_EQ(rem, 0u);
    return q;
}

// ---- random points --------------------------------------------------------------------------------------------
std::mt19937_64& rng() {
    static std::mt19937_64 g(0x5eed5ab9ULL);  // fixed: failures reproduce
    return g;
}

G1Jacobian random_g1() { return G1Jacobian::generator().mul(Fr::random(rng()).to_canonical()); }
G2Jacobian random_g2() { return G2Jacobian::generator().mul(Fr::random(rng()).to_canonical()); }

// A uniformly random point of E(Fq) (random x until x^3 + 4 is a square): no cofactor clearing.
G1Affine random_e1() {
    for (;;) {
        Fq x = Fq::random(rng());
        if (auto y = (x.square() * x + G1Config::b()).sqrt()) return G1Affine::from_xy(x, *y);
    }
}
G2Affine random_e2() {
    for (;;) {
        Fq2 x = Fq2::random(rng());
        if (auto y = (x.square() * x + G2Config::b()).sqrt()) return G2Affine::from_xy(x, *y);
    }
}

// A point of order exactly ell, where ell^e exactly divides order = #E: [order / ell^e]R has order dividing ell^e;
// multiply by ell until the next multiple would vanish.
template <class Jac, class Affine, size_t N>
Jac point_of_order(uint64_t ell, unsigned e, const limbs_t<N>& order, Affine (*random_point)()) {
    auto [m, rem] = div_u64(order, pow_u64<1>(ell, e)[0]);
    EXPECT_EQ(rem, 0u);
    for (int attempt = 0; attempt < 16; attempt++) {
        Jac t = random_point().to_jacobian().mul(m);
        if (t.is_identity()) continue;
        while (!t.mul(ell).is_identity()) t = t.mul(ell);
        return t;
    }
    ADD_FAILURE() << "no point of order " << ell;
    return Jac::identity();
}

// ---- constants ------------------------------------------------------------------------------------------------
TEST(SubgroupConstants, BlsParameterDefinesPAndR) {
    // r = x^4 - x^2 + 1: zero in Fr.
    Fr xr = -Fr::from_u64(BLS_X_ABS);
    EXPECT_TRUE((xr.square().square() - xr.square() + Fr::one()).is_zero());
    // p = (x - 1)^2 r / 3 + x: zero in Fq.
    Fq xq = -Fq::from_u64(BLS_X_ABS);
    Fq r_in_fq = Fq::from_canonical(widen<6>(Fr::P)).value();
    Fq three_inv = Fq::from_u64(3).inverse().value();
    EXPECT_TRUE(((xq - Fq::one()).square() * r_in_fq * three_inv + xq).is_zero());
}

TEST(SubgroupConstants, CofactorsAreGroupExponents) {
    // #E(Fq) = p + 1 - t with trace t = x + 1, i.e. h1 r = p - x = p + a.
    limbs_t<6> n1 = widen<6>(mul_wide(g1_cofactor(), Fr::P));
    limbs_t<6> p_plus_a{};
    bigint::add(p_plus_a, Fq::P, widen<6>(limbs_t<1>{BLS_X_ABS}));
    EXPECT_EQ(n1, p_plus_a);
    limbs_t<12> n2 = mul_wide(g2_cofactor(), Fr::P);
    for (int i = 0; i < 2; i++) {
        EXPECT_TRUE(random_e1().to_jacobian().mul(n1).is_identity());
        EXPECT_TRUE(random_e2().to_jacobian().mul(n2).is_identity());
    }
    limbs_t<2> h1{1, 0};
    for (auto [ell, e] : G1_COFACTOR_FACTORS) h1 = mul_u64(h1, pow_u64<1>(ell, e)[0]);
    EXPECT_EQ(h1, g1_cofactor());
    for (auto [ell, e] : G2_COFACTOR_SMALL_FACTORS) EXPECT_EQ(div_u64(g2_cofactor(), pow_u64<1>(ell, e)[0]).second, 0u);
}

TEST(SubgroupConstants, G1BetaIsTheCubeRootWithEigenvalueMinusXSquared) {
    Fq beta = Fq::from_u64(2).pow(p_minus_1_over(3));
    EXPECT_EQ(beta, endo::g1_beta());
    EXPECT_FALSE(beta.is_one());
    EXPECT_TRUE(beta.pow(3).is_one());
    for (int i = 0; i < 3; i++) {
        G1Jacobian p = i == 0 ? G1Jacobian::generator() : random_g1();
        G1Jacobian x2p = g1_mul_by_x(g1_mul_by_x(p));
        EXPECT_EQ(g1_phi(p), -x2p);
        // The other primitive root, beta^2, has eigenvalue x^2 - 1: using it would make the test reject all of G1.
        G1Jacobian other = p;
        other.X = p.X * beta.square();
        EXPECT_NE(other, -x2p);
        EXPECT_EQ(other, x2p - p);
    }
    // phi keeps points on the curve (beta^3 = 1) and commutes with the affine conversion.
    G1Affine q = random_e1();
    EXPECT_TRUE(g1_phi(q).is_on_curve());
    EXPECT_EQ(g1_phi(q.to_jacobian()).to_affine(), g1_phi(q));
}

TEST(SubgroupConstants, G2PsiCoefficientsAreInversePowersOfXi) {
    const Fq2 xi{Fq::one(), Fq::one()};
    EXPECT_EQ(xi.pow(p_minus_1_over(3)).inverse().value(), endo::g2_psi_x());
    EXPECT_EQ(xi.pow(p_minus_1_over(2)).inverse().value(), endo::g2_psi_y());
    for (int i = 0; i < 3; i++) {
        G2Jacobian p = i == 0 ? G2Jacobian::generator() : random_g2();
        EXPECT_EQ(g2_psi(p), g2_mul_by_x(p));
    }
    // psi is an endomorphism of E'(Fq2): curve points stay on the curve, psi(P + Q) = psi(P) + psi(Q).
    G2Affine a = random_e2(), b = random_e2();
    EXPECT_TRUE(g2_psi(a).is_on_curve());
    EXPECT_EQ(g2_psi(a.to_jacobian() + b.to_jacobian()), g2_psi(a.to_jacobian()) + g2_psi(b.to_jacobian()));
    EXPECT_EQ(g2_psi(a.to_jacobian()).to_affine(), g2_psi(a));
    // On E'(Fq2) psi satisfies psi^2 - t psi + p = 0 (t = x + 1 the trace of Frobenius on E(Fq)).
    G2Jacobian pa = a.to_jacobian();
    G2Jacobian psi2 = g2_psi(g2_psi(pa));
    G2Jacobian t_psi = g2_mul_by_x(g2_psi(pa)) + g2_psi(pa);
    EXPECT_EQ(psi2 - t_psi + pa.mul(Fq::P), G2Jacobian::identity());
}

// ---- fast == naive --------------------------------------------------------------------------------------------
TEST(SubgroupG1, FastAgreesWithNaiveOnSubgroupPoints) {
    EXPECT_TRUE(g1_in_subgroup(G1Affine::identity()));
    EXPECT_TRUE(g1_in_subgroup_naive(G1Affine::identity()));
    EXPECT_TRUE(g1_in_subgroup(G1Affine::generator()));
    for (int i = 0; i < 8; i++) {
        G1Jacobian p = random_g1();
        EXPECT_TRUE(g1_in_subgroup_naive(p));
        EXPECT_TRUE(g1_in_subgroup(p));
        EXPECT_TRUE(g1_in_subgroup(p.to_affine()));
    }
}

TEST(SubgroupG1, FastAgreesWithNaiveOnRandomCurvePoints) {
    for (int i = 0; i < 8; i++) {
        G1Affine p = random_e1();
        ASSERT_TRUE(p.is_on_curve());
        // A random point lies in G1 with probability 1/h1 < 2^-125.
        EXPECT_FALSE(g1_in_subgroup_naive(p));
        EXPECT_FALSE(g1_in_subgroup(p));
        // Clearing the cofactor moves it into G1.
        G1Jacobian cleared = p.to_jacobian().mul(g1_cofactor());
        EXPECT_TRUE(g1_in_subgroup_naive(cleared));
        EXPECT_TRUE(g1_in_subgroup(cleared));
    }
}

TEST(SubgroupG1, RejectsSmallOrderComponents) {
    limbs_t<6> n1 = widen<6>(mul_wide(g1_cofactor(), Fr::P));
    for (auto [ell, e] : G1_COFACTOR_FACTORS) {
        G1Jacobian t = point_of_order<G1Jacobian>(ell, e, n1, &random_e1);
        ASSERT_FALSE(t.is_identity()) << ell;
        ASSERT_TRUE(t.mul(ell).is_identity()) << ell;
        G1Jacobian mixed = t + random_g1();
        EXPECT_FALSE(g1_in_subgroup(t)) << ell;
        EXPECT_FALSE(g1_in_subgroup_naive(t)) << ell;
        EXPECT_FALSE(g1_in_subgroup(mixed)) << ell;
        EXPECT_FALSE(g1_in_subgroup_naive(mixed)) << ell;
    }
}

TEST(SubgroupG1, RejectsPointsOffTheCurve) {
    G1Affine g = G1Affine::generator();
    G1Affine bad = G1Affine::from_xy(g.x, g.y + Fq::one());
    EXPECT_FALSE(g1_in_subgroup(bad));
    EXPECT_FALSE(g1_in_subgroup_naive(bad));
}

TEST(SubgroupG2, FastAgreesWithNaiveOnSubgroupPoints) {
    EXPECT_TRUE(g2_in_subgroup(G2Affine::identity()));
    EXPECT_TRUE(g2_in_subgroup_naive(G2Affine::identity()));
    EXPECT_TRUE(g2_in_subgroup(G2Affine::generator()));
    for (int i = 0; i < 8; i++) {
        G2Jacobian p = random_g2();
        EXPECT_TRUE(g2_in_subgroup_naive(p));
        EXPECT_TRUE(g2_in_subgroup(p));
        EXPECT_TRUE(g2_in_subgroup(p.to_affine()));
    }
}

TEST(SubgroupG2, FastAgreesWithNaiveOnRandomCurvePoints) {
    for (int i = 0; i < 8; i++) {
        G2Affine p = random_e2();
        ASSERT_TRUE(p.is_on_curve());
        EXPECT_FALSE(g2_in_subgroup_naive(p));
        EXPECT_FALSE(g2_in_subgroup(p));
    }
    G2Jacobian cleared = random_e2().to_jacobian().mul(g2_cofactor());
    EXPECT_TRUE(g2_in_subgroup_naive(cleared));
    EXPECT_TRUE(g2_in_subgroup(cleared));
}

TEST(SubgroupG2, RejectsSmallOrderComponents) {
    limbs_t<12> n2 = mul_wide(g2_cofactor(), Fr::P);
    for (auto [ell, e] : G2_COFACTOR_SMALL_FACTORS) {
        G2Jacobian t = point_of_order<G2Jacobian>(ell, e, n2, &random_e2);
        ASSERT_FALSE(t.is_identity()) << ell;
        ASSERT_TRUE(t.mul(ell).is_identity()) << ell;
        G2Jacobian mixed = t + random_g2();
        EXPECT_FALSE(g2_in_subgroup(t)) << ell;
        EXPECT_FALSE(g2_in_subgroup_naive(t)) << ell;
        EXPECT_FALSE(g2_in_subgroup(mixed)) << ell;
        EXPECT_FALSE(g2_in_subgroup_naive(mixed)) << ell;
    }
}

TEST(SubgroupG2, RejectsPointsOffTheCurve) {
    G2Affine g = G2Affine::generator();
    G2Affine bad = G2Affine::from_xy(g.x, g.y + Fq2::one());
    EXPECT_FALSE(g2_in_subgroup(bad));
    EXPECT_FALSE(g2_in_subgroup_naive(bad));
}

}  // namespace
}  // namespace cuzk
