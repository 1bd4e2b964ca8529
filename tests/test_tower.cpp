// Fq6 and Fq12: field axioms on random and edge values, sparse products against the general product, Frobenius
// maps against exponentiation by p^k (with the coefficients re-derived by a direct exponentiation), and the
// cyclotomic-subgroup shortcuts against the general square and pow.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "cuzk/ff/fq12.hpp"
#include "cuzk/ff/fq6.hpp"
#include "cuzk/ff/fr.hpp"

using namespace cuzk;

namespace {

// p^k needs up to 12 * 381 bits.
constexpr size_t W = 72;
using Big = limbs_t<W>;

template <size_t N>
Big widen(const limbs_t<N>& a) {
    Big r{};
    for (size_t i = 0; i < N; i++) r[i] = a[i];
    return r;
}

// a * b, failing the test on overflow of W limbs.
Big mul(const Big& a, const Big& b) {
    Big r{};
    for (size_t i = 0; i < W; i++) {
        if (!a[i]) continue;
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

Big small(uint64_t v) {
    Big r{};
    r[0] = v;
    return r;
}

Big sub(const Big& a, const Big& b) {
    Big r{};
    EXPECT_EQ(bigint::sub(r, a, b), 0u) << "bigint underflow";
    return r;
}

Big add(const Big& a, const Big& b) {
    Big r{};
    EXPECT_EQ(bigint::add(r, a, b), 0u) << "bigint overflow";
    return r;
}

Big div_exact(const Big& a, uint64_t d) {
    Big q{};
    u128 rem = 0;
    for (size_t i = W; i-- > 0;) {
        u128 cur = (rem << 64) | a[i];
        q[i] = (uint64_t)(cur / d);
        rem = cur % d;
    }
    EXPECT_EQ((uint64_t)rem, 0u) << "not divisible by " << d;
    return q;
}

Big p_pow(size_t k) {
    Big r = small(1);
    for (size_t i = 0; i < k; i++) r = mul(r, widen(Fq::P));
    return r;
}

Fq2 xi() { return Fq2{Fq::one(), Fq::one()}; }

std::mt19937_64& rng() {
    static std::mt19937_64 g(0x5eed'70e1ULL);
    return g;
}

// Random values plus the edge cases: 0, 1, and every coefficient p - 1.
std::vector<Fq6> fq6_samples(size_t n) {
    Fq2 m1{-Fq::one(), -Fq::one()};
    std::vector<Fq6> v{Fq6::zero(), Fq6::one(), Fq6{m1, m1, m1}};
    while (v.size() < n) v.push_back(Fq6::random(rng()));
    return v;
}

std::vector<Fq12> fq12_samples(size_t n) {
    Fq2 m1{-Fq::one(), -Fq::one()};
    Fq6 m6{m1, m1, m1};
    std::vector<Fq12> v{Fq12::zero(), Fq12::one(), Fq12{m6, m6}};
    while (v.size() < n) v.push_back(Fq12::random(rng()));
    return v;
}

// An element of the cyclotomic subgroup: f^((p^6 - 1)(p^2 + 1)), computed by conjugation and Frobenius.
Fq12 cyclotomic_element() {
    Fq12 f = Fq12::random(rng());
    Fq12 g = f.conjugate() * f.inverse().value();
    return g.frobenius_map(2) * g;
}

}  // namespace

TEST(TowerConstants, BlsParameterGeneratesPAndR) {
    // r = x^4 - x^2 + 1 and p = (x - 1)^2 r / 3 + x; with x = -X (X = |x|): (x - 1)^2 = (X + 1)^2, + x = - X.
    ASSERT_TRUE(BLS_X_IS_NEGATIVE);
    Big X = small(BLS_X_ABS);
    Big x2 = mul(X, X);
    Big r = add(sub(mul(x2, x2), x2), small(1));
    EXPECT_EQ(r, widen(Fr::P));
    Big xm1 = add(X, small(1));
    Big p = sub(div_exact(mul(mul(xm1, xm1), r), 3), X);
    EXPECT_EQ(p, widen(Fq::P));
}

TEST(TowerFq6, FieldAxioms) {
    auto s = fq6_samples(12);
    for (size_t i = 0; i < s.size(); i++) {
        const Fq6& a = s[i];
        const Fq6& b = s[(i + 1) % s.size()];
        const Fq6& c = s[(i + 5) % s.size()];
        EXPECT_EQ((a + b) + c, a + (b + c));
        EXPECT_EQ((a * b) * c, a * (b * c));
        EXPECT_EQ(a * b, b * a);
        EXPECT_EQ(a * (b + c), a * b + a * c);
        EXPECT_EQ(a - a, Fq6::zero());
        EXPECT_EQ(a + (-a), Fq6::zero());
        EXPECT_EQ(a * Fq6::one(), a);
        EXPECT_EQ(a.square(), a * a);
        EXPECT_EQ(a.dbl(), a + a);
        auto inv = a.inverse();
        if (a.is_zero()) {
            EXPECT_FALSE(inv.has_value());
        } else {
            ASSERT_TRUE(inv.has_value());
            EXPECT_EQ(a * *inv, Fq6::one());
        }
    }
}

TEST(TowerFq6, SparseAndNonresidueProductsMatchGeneral) {
    auto s = fq6_samples(10);
    const Fq6 v{Fq2::zero(), Fq2::one(), Fq2::zero()};
    // v^3 = xi is the defining relation.
    EXPECT_EQ(v * v * v, (Fq6{xi(), Fq2::zero(), Fq2::zero()}));
    for (const Fq6& a : s) {
        Fq2 b0 = Fq2::random(rng()), b1 = Fq2::random(rng());
        EXPECT_EQ(a.mul_by_nonresidue(), a * v);
        EXPECT_EQ(a.mul_by_1(b1), a * (Fq6{Fq2::zero(), b1, Fq2::zero()}));
        EXPECT_EQ(a.mul_by_01(b0, b1), a * (Fq6{b0, b1, Fq2::zero()}));
        EXPECT_EQ(a * b0, a * (Fq6{b0, Fq2::zero(), Fq2::zero()}));
    }
}

TEST(TowerFq12, FieldAxioms) {
    auto s = fq12_samples(10);
    for (size_t i = 0; i < s.size(); i++) {
        const Fq12& a = s[i];
        const Fq12& b = s[(i + 1) % s.size()];
        const Fq12& c = s[(i + 4) % s.size()];
        EXPECT_EQ((a + b) + c, a + (b + c));
        EXPECT_EQ((a * b) * c, a * (b * c));
        EXPECT_EQ(a * b, b * a);
        EXPECT_EQ(a * (b + c), a * b + a * c);
        EXPECT_EQ(a - a, Fq12::zero());
        EXPECT_EQ(a * Fq12::one(), a);
        EXPECT_EQ(a.square(), a * a);
        auto inv = a.inverse();
        if (a.is_zero()) {
            EXPECT_FALSE(inv.has_value());
        } else {
            ASSERT_TRUE(inv.has_value());
            EXPECT_TRUE((a * *inv).is_one());
        }
    }
    EXPECT_TRUE(Fq12::one().is_one());
    EXPECT_FALSE(Fq12::zero().is_one());
    EXPECT_FALSE(s.back().is_one());
}

TEST(TowerFq12, LineProductMatchesGeneral) {
    const Fq12 w{Fq6::zero(), Fq6::one()};
    // w^2 = v
    EXPECT_EQ(w * w, (Fq12{Fq6{Fq2::zero(), Fq2::one(), Fq2::zero()}, Fq6::zero()}));
    for (const Fq12& a : fq12_samples(8)) {
        Fq2 b0 = Fq2::random(rng()), b1 = Fq2::random(rng()), b4 = Fq2::random(rng());
        Fq12 line{Fq6{b0, b1, Fq2::zero()}, Fq6{Fq2::zero(), b4, Fq2::zero()}};
        EXPECT_EQ(a.mul_by_014(b0, b1, b4), a * line);
    }
}

TEST(TowerFrobenius, CoefficientsRederived) {
    // gamma_k = xi^((p^k - 1)/6), exponentiated directly with the full-width exponent.
    for (size_t k = 0; k < 12; k++) {
        Big e = div_exact(sub(p_pow(k), small(1)), 6);
        EXPECT_EQ(tower_frobenius_gamma(k), xi().pow(e)) << "k=" << k;
    }
    // gamma_6 = xi^((p^6 - 1)/6) = -1: the reason conjugate() is the p^6-power map.
    EXPECT_EQ(tower_frobenius_gamma(6), -Fq2::one());
}

TEST(TowerFrobenius, MapEqualsPowerOfP) {
    Fq6 a = Fq6::random(rng());
    for (size_t k = 0; k <= 6; k++) EXPECT_EQ(a.frobenius_map(k), a.pow(p_pow(k))) << "Fq6 k=" << k;
    Fq12 f = Fq12::random(rng());
    for (size_t k = 0; k <= 12; k++) EXPECT_EQ(f.frobenius_map(k), f.pow(p_pow(k))) << "Fq12 k=" << k;
    EXPECT_EQ(f.conjugate(), f.frobenius_map(6));
    EXPECT_NE(f.frobenius_map(1), f);
}

TEST(TowerCyclotomic, SquareAndExpByXMatchGeneric) {
    // Order of the cyclotomic subgroup: Phi_12(p) = p^4 - p^2 + 1.
    Big phi12 = add(sub(p_pow(4), p_pow(2)), small(1));
    for (int i = 0; i < 3; i++) {
        Fq12 g = cyclotomic_element();
        EXPECT_TRUE(g.pow(phi12).is_one());
        EXPECT_TRUE((g * g.conjugate()).is_one());
        EXPECT_EQ(g.cyclotomic_square(), g.square());
        EXPECT_EQ(g.cyclotomic_square().cyclotomic_square(), g.pow(limbs_t<1>{4}));
        // x < 0: g^x = (g^|x|)^-1 = conj(g^|x|) on this subgroup.
        EXPECT_EQ(g.cyclotomic_exp_by_x(), g.pow(limbs_t<1>{BLS_X_ABS}).conjugate());
        EXPECT_TRUE((g.cyclotomic_exp_by_x() * g.pow(limbs_t<1>{BLS_X_ABS})).is_one());
    }
    // Off the subgroup the shortcut is wrong, which is why callers must stay on it.
    Fq12 f = Fq12::random(rng());
    EXPECT_NE(f.cyclotomic_square(), f.square());
}
