// Field properties that need no oracle: Fq2 arithmetic, square roots, Frobenius, constant-expression use.
#include <gtest/gtest.h>

#include <random>

#include "cuzk/ff/fq.hpp"
#include "cuzk/ff/fq2.hpp"
#include "cuzk/ff/fr.hpp"
#include "seeded_rng.hpp"

using namespace cuzk;

// The constants are usable at compile time (one source of truth for CPU and device code).
static_assert(Fr::one().is_one());
static_assert((Fr::from_u64(3) * Fr::from_u64(5)) == Fr::from_u64(15));
static_assert(Fq::from_u64(7) - Fq::from_u64(9) == -Fq::from_u64(2));

TEST(Field, Fq2Axioms) {
    auto rng = cuzk::testing::seeded_rng("Field.Fq2Axioms");
    for (int i = 0; i < 50; i++) {
        Fq2 a = Fq2::random(rng), b = Fq2::random(rng), c = Fq2::random(rng);
        EXPECT_EQ((a * b) * c, a * (b * c));
        EXPECT_EQ(a * (b + c), a * b + a * c);
        EXPECT_EQ(a.square(), a * a);
        EXPECT_EQ(a.dbl(), a + a);
        EXPECT_EQ(a - a, Fq2::zero());
        EXPECT_TRUE((a * a.inverse().value()).is_one());
        // u^2 = -1 and xi = u + 1
        Fq2 u{Fq::zero(), Fq::one()};
        EXPECT_EQ(u.square(), -Fq2::one());
        EXPECT_EQ(a.mul_by_nonresidue(), a * (u + Fq2::one()));
        // Frobenius is x -> x^p and has order 2
        EXPECT_EQ(a.frobenius_map(1), a.pow(Fq::P));
        EXPECT_EQ(a.frobenius_map(2), a);
        // the norm is multiplicative
        EXPECT_EQ((a * b).norm(), a.norm() * b.norm());
    }
    EXPECT_FALSE(Fq2::zero().inverse().has_value());
}

TEST(Field, Fq2Sqrt) {
    auto rng = cuzk::testing::seeded_rng("Field.Fq2Sqrt");
    int non_squares = 0;
    for (int i = 0; i < 40; i++) {
        Fq2 a = Fq2::random(rng);
        auto s = a.square().sqrt();
        ASSERT_TRUE(s.has_value());
        EXPECT_TRUE(*s == a || *s == -a);
        Fq2 b = Fq2::random(rng);
        auto t = b.sqrt();
        EXPECT_EQ(t.has_value(), b.legendre() == 1);
        if (t) EXPECT_EQ(t->square(), b);
        else non_squares++;
    }
    EXPECT_GT(non_squares, 0) << "about half of random elements are non-squares";
    // Pure-imaginary and pure-real inputs exercise both branches of the algorithm.
    Fq2 minus_one = -Fq2::one();
    EXPECT_EQ(minus_one.sqrt().value().square(), minus_one);
    Fq2 u{Fq::zero(), Fq::one()};
    EXPECT_EQ(u.sqrt().value().square(), u);
    EXPECT_EQ(Fq2::zero().sqrt().value(), Fq2::zero());
}

TEST(Field, FrRootsOfUnity) {
    Fr w = Fr::root_of_unity();
    Fr x = w;
    for (size_t i = 0; i < 32; i++) {
        EXPECT_FALSE(x.is_one()) << "order is exactly 2^32, step " << i;
        x = x.square();
    }
    EXPECT_TRUE(x.is_one());
}

TEST(Field, FrSqrtTonelliShanks) {
    auto rng = cuzk::testing::seeded_rng("Field.FrSqrtTonelliShanks");
    for (int i = 0; i < 50; i++) {
        Fr a = Fr::random(rng);
        auto s = a.square().sqrt();
        ASSERT_TRUE(s.has_value());
        EXPECT_TRUE(*s == a || *s == -a);
    }
    // Elements of high 2-power order stress the Tonelli-Shanks loop.
    Fr w = Fr::root_of_unity();
    auto s = w.sqrt();
    EXPECT_FALSE(s.has_value()) << "a primitive 2^32-th root of unity is not a square";
    EXPECT_EQ(w.square().sqrt().value().square(), w.square());
    EXPECT_FALSE(Fr::generator().sqrt().has_value());
}

TEST(Field, HexAndLexicographicOrder) {
    EXPECT_EQ(Fq::from_hex("0x1234").to_hex(), "0x1234");
    EXPECT_FALSE(Fq::zero().lexicographically_largest());
    EXPECT_FALSE(Fq::one().lexicographically_largest());
    EXPECT_TRUE((-Fq::one()).lexicographically_largest());
    EXPECT_THROW(bigint::from_hex<1>("0x1ffffffffffffffff"), std::invalid_argument);
    EXPECT_THROW(bigint::from_hex<1>("0xz"), std::invalid_argument);
}

// The variable-time inverse (inverse_vartime.hpp) against Fermat's on edge values (the smallest and largest
// integers, powers of two, the raw limbs 1 and p - 1, which are the Montgomery forms of R^-1 and -R^-1) and on
// random elements of Fq, Fr and Fq2.
template <class F, class Rng>
void expect_vartime_inverse_agrees(Rng& rng, int random_count) {
    typename F::limbs p_minus_1 = F::P;
    p_minus_1[0] -= 1;  // p is odd
    std::vector<F> xs = {F::one(), F::from_u64(2), F::from_u64(3), -F::one(), -F::from_u64(2),
                         F::from_mont_limbs(typename F::limbs{1}), F::from_mont_limbs(p_minus_1)};
    for (size_t k = 1; k < F::BITS; k += 7) {
        typename F::limbs l{};
        l[k / 64] = uint64_t(1) << (k % 64);
        xs.push_back(F::from_mont_limbs(l));
        xs.push_back(-F::from_mont_limbs(l));
    }
    for (int i = 0; i < random_count; i++) xs.push_back(F::random(rng));
    for (const F& x : xs) {
        auto v = x.inverse_vartime();
        ASSERT_TRUE(v.has_value());
        ASSERT_EQ(*v, x.inverse().value()) << x.to_hex();
    }
    EXPECT_FALSE(F::zero().inverse_vartime().has_value());
}

TEST(Field, VartimeInverseMatchesFermat) {
    auto rng = cuzk::testing::seeded_rng("Field.VartimeInverseMatchesFermat");
    expect_vartime_inverse_agrees<Fq>(rng, 3000);
    expect_vartime_inverse_agrees<Fr>(rng, 3000);
    for (int i = 0; i < 300; i++) {
        Fq2 a = Fq2::random(rng);
        ASSERT_EQ(a.inverse_vartime().value(), a.inverse().value());
    }
    EXPECT_FALSE(Fq2::zero().inverse_vartime().has_value());
    std::vector<Fq> v(100), w;
    for (auto& x : v) x = Fq::random(rng);
    v[17] = Fq::zero();
    w = v;
    batch_inverse_in_place<Fq, true>(std::span<Fq>(v));
    batch_inverse_in_place<Fq>(std::span<Fq>(w));
    EXPECT_EQ(v, w);
    EXPECT_TRUE(v[17].is_zero());
}

namespace {
// sum_of_products against n products and additions: random terms, the largest values (p - 1 everywhere: the
// exact sum's bound), zeros, strided second operands, every n up to the limit.
template <class F>
void expect_sum_of_products_agrees(std::mt19937_64& rng) {
    for (size_t n = 0; n <= F::kMaxSumTerms; n++) {
        for (size_t stride : {size_t{1}, size_t{3}}) {
            std::vector<F> a(n), b(n * stride);
            for (auto& x : a) x = F::random(rng);
            for (auto& x : b) x = F::random(rng);
            F want = F::zero();
            for (size_t k = 0; k < n; k++) want += a[k] * b[k * stride];
            ASSERT_EQ(F::sum_of_products(a.data(), b.data(), n, stride), want) << "n = " << n << ", stride " << stride;
        }
        // Limbs as large as an element's can be: p - 1 (Montgomery limbs of the element whose limbs are p - 1).
        typename F::limbs top = F::P;
        top[0] -= 1;
        std::vector<F> big(n, F::from_mont_limbs(top));
        F want = F::zero();
        for (size_t k = 0; k < n; k++) want += big[k] * big[k];
        ASSERT_EQ(F::sum_of_products(big.data(), big.data(), n), want) << "largest limbs, n = " << n;
    }
    std::vector<F> z(5, F::zero()), r(5);
    for (auto& x : r) x = F::random(rng);
    EXPECT_TRUE(F::sum_of_products(z.data(), r.data(), 5).is_zero());
    std::vector<F> too_many(F::kMaxSumTerms + 1, F::one());
    EXPECT_THROW(F::sum_of_products(too_many.data(), too_many.data(), too_many.size()), std::invalid_argument);
}
}  // namespace

TEST(Field, SumOfProductsMatchesProductsAndSums) {
    auto rng = cuzk::testing::seeded_rng("Field.SumOfProductsMatchesProductsAndSums");
    for (int rep = 0; rep < 20; rep++) {
        expect_sum_of_products_agrees<Fr>(rng);
        expect_sum_of_products_agrees<Fq>(rng);
    }
}
