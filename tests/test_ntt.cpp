// Evaluation domains and NTTs against their definitions: a naive O(n^2) DFT for small sizes, round trips and
// algebraic properties (linearity, convolution) at sizes where the cache-blocked and threaded paths run.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "cuzk/poly/domain.hpp"
#include "cuzk/poly/ntt.hpp"
#include "cuzk/util/thread_pool.hpp"

using namespace cuzk;

namespace {

std::vector<Fr> random_vec(size_t n, std::mt19937_64& rng) {
    std::vector<Fr> v(n);
    for (auto& x : v) x = Fr::random(rng);
    return v;
}

// sum_j c_j * (shift * omega^i)^j, straight from the definition.
std::vector<Fr> naive_eval(const std::vector<Fr>& c, const Fr& omega, const Fr& shift) {
    const size_t n = c.size();
    std::vector<Fr> out(n);
    Fr x = shift;  // shift * omega^i
    for (size_t i = 0; i < n; i++) {
        Fr acc = Fr::zero(), xp = Fr::one();
        for (size_t j = 0; j < n; j++) {
            acc += c[j] * xp;
            xp *= x;
        }
        out[i] = acc;
        x *= omega;
    }
    return out;
}

// The four transforms under one signature, for loops over all of them.
using Transform = void (*)(const EvaluationDomain&, std::span<Fr>);
const Transform kAll[] = {ntt, intt, coset_ntt, coset_intt};

}  // namespace

// ---- domain --------------------------------------------------------------------------------------------------

TEST(Domain, OmegaHasExactOrderForEveryLogSize) {
    for (unsigned k = 0; k <= 32; k++) {
        auto d = EvaluationDomain::from_log_size(k);
        ASSERT_EQ(d.log_size(), k);
        ASSERT_EQ(d.size(), size_t{1} << k);
        // omega^(2^k) == 1 by k squarings; omega^(2^(k-1)) == -1 shows the order is not smaller.
        Fr p = d.omega();
        for (unsigned i = 0; i + 1 < k; i++) p = p.square();
        if (k >= 1) EXPECT_EQ(p, -Fr::one()) << "k=" << k;
        else EXPECT_EQ(p, Fr::one());
        if (k >= 1) p = p.square();
        EXPECT_EQ(p, Fr::one()) << "k=" << k;
        EXPECT_EQ(d.omega() * d.omega_inv(), Fr::one()) << "k=" << k;
        EXPECT_EQ(d.size_inv() * Fr::from_u64(uint64_t{1} << k), Fr::one()) << "k=" << k;
    }
    // The 2^32 domain's omega is the field's root of unity itself.
    EXPECT_EQ(EvaluationDomain::from_log_size(32).omega(), Fr::root_of_unity());
}

TEST(Domain, ForSizeRoundsUpToPowersOfTwo) {
    EXPECT_EQ(EvaluationDomain::for_size(0).size(), 1u);
    EXPECT_EQ(EvaluationDomain::for_size(1).size(), 1u);
    EXPECT_EQ(EvaluationDomain::for_size(2).size(), 2u);
    EXPECT_EQ(EvaluationDomain::for_size(3).size(), 4u);
    EXPECT_EQ(EvaluationDomain::for_size(1000).log_size(), 10u);
    EXPECT_EQ(EvaluationDomain::for_size(1024).log_size(), 10u);
    EXPECT_EQ(EvaluationDomain::for_size(1025).log_size(), 11u);
    EXPECT_EQ(EvaluationDomain::for_size((size_t{1} << 32) - 1).log_size(), 32u);
    // The largest domain is just constants: creating it must be instant and allocation-free.
    EXPECT_EQ(EvaluationDomain::for_size(size_t{1} << 32).log_size(), 32u);
}

TEST(Domain, TooLargeThrows) {
    EXPECT_THROW(EvaluationDomain::for_size((size_t{1} << 32) + 1), std::invalid_argument);
    EXPECT_THROW(EvaluationDomain::for_size(SIZE_MAX), std::invalid_argument);
    EXPECT_THROW(EvaluationDomain::from_log_size(33), std::invalid_argument);
}

TEST(Domain, CosetShiftAndVanishingPolynomial) {
    auto d = EvaluationDomain::from_log_size(10);
    EXPECT_EQ(d.coset_shift(), Fr::from_u64(7));
    EXPECT_EQ(d.coset_shift() * d.coset_shift_inv(), Fr::one());
    EXPECT_EQ(d.z_on_coset(), Fr::from_u64(7).pow(uint64_t{1024}) - Fr::one());
    EXPECT_FALSE(d.z_on_coset().is_zero());  // the coset misses the subgroup, so H = P / Z is defined there
    // Z vanishes on the subgroup and equals z_on_coset on the coset.
    for (uint64_t i : {0ull, 1ull, 511ull, 1023ull}) {
        EXPECT_TRUE(d.vanishing_at(d.element(i)).is_zero()) << i;
        EXPECT_EQ(d.vanishing_at(d.coset_shift() * d.element(i)), d.z_on_coset()) << i;
    }
    EXPECT_EQ(d.element(1024), Fr::one());
    EXPECT_EQ(d.element(3), d.omega() * d.omega() * d.omega());
}

// ---- transforms against the definition ----------------------------------------------------------------------

TEST(Ntt, MatchesNaiveDftUpTo256) {
    std::mt19937_64 rng(1);
    for (unsigned k = 0; k <= 8; k++) {
        auto d = EvaluationDomain::from_log_size(k);
        auto c = random_vec(d.size(), rng);
        auto want = naive_eval(c, d.omega(), Fr::one());
        auto got = c;
        ntt(d, got);
        ASSERT_EQ(got, want) << "k=" << k;
        intt(d, got);
        ASSERT_EQ(got, c) << "k=" << k;
    }
}

TEST(Ntt, CosetMatchesNaiveDefinitionUpTo256) {
    std::mt19937_64 rng(2);
    for (unsigned k = 0; k <= 8; k++) {
        auto d = EvaluationDomain::from_log_size(k);
        auto c = random_vec(d.size(), rng);
        auto want = naive_eval(c, d.omega(), d.coset_shift());
        auto got = c;
        coset_ntt(d, got);
        ASSERT_EQ(got, want) << "k=" << k;
        coset_intt(d, got);
        ASSERT_EQ(got, c) << "k=" << k;
    }
}

TEST(Ntt, ZeroAndDeltaInputs) {
    for (unsigned k : {0u, 3u, 8u, 12u}) {
        auto d = EvaluationDomain::from_log_size(k);
        const size_t n = d.size();
        std::vector<Fr> v(n);
        ntt(d, v);
        for (auto& x : v) ASSERT_TRUE(x.is_zero()) << "k=" << k;
        coset_ntt(d, v);
        for (auto& x : v) ASSERT_TRUE(x.is_zero()) << "k=" << k;
        // The constant polynomial 1 evaluates to 1 everywhere; the monomial X evaluates to omega^i.
        v.assign(n, Fr::zero());
        v[0] = Fr::one();
        ntt(d, v);
        for (auto& x : v) ASSERT_EQ(x, Fr::one()) << "k=" << k;
        if (n > 1) {
            v.assign(n, Fr::zero());
            v[1] = Fr::one();
            ntt(d, v);
            Fr w = Fr::one();
            for (size_t i = 0; i < n; i++, w *= d.omega()) ASSERT_EQ(v[i], w) << "k=" << k << " i=" << i;
        }
        // Evaluations that are all 1 come from the constant 1 (a delta in coefficients).
        v.assign(n, Fr::one());
        intt(d, v);
        EXPECT_EQ(v[0], Fr::one());
        for (size_t i = 1; i < n; i++) ASSERT_TRUE(v[i].is_zero()) << "k=" << k << " i=" << i;
    }
}

// ---- round trips at sizes that exercise the streaming passes, the threads and the tiled bit reversal --------

class NttRoundTrip : public ::testing::TestWithParam<unsigned> {};

TEST_P(NttRoundTrip, InverseUndoesForward) {
    const unsigned k = GetParam();
    auto d = EvaluationDomain::from_log_size(k);
    std::mt19937_64 rng(k);
    auto c = random_vec(d.size(), rng);
    auto v = c;
    ntt(d, v);
    // Spot-check a few evaluations against Horner so that a forward/inverse pair of matching bugs cannot pass.
    for (size_t i : {size_t{0}, size_t{1}, d.size() / 2 + 3, d.size() - 1}) {
        Fr x = d.element(i), acc = Fr::zero();
        for (size_t j = d.size(); j-- > 0;) acc = acc * x + c[j];
        ASSERT_EQ(v[i], acc) << "k=" << k << " i=" << i;
    }
    intt(d, v);
    ASSERT_TRUE(v == c) << "intt(ntt(c)) != c at k=" << k;
    coset_ntt(d, v);
    {
        Fr x = d.coset_shift() * d.element(5), acc = Fr::zero();
        for (size_t j = d.size(); j-- > 0;) acc = acc * x + c[j];
        ASSERT_EQ(v[5], acc) << "coset evaluation at k=" << k;
    }
    coset_intt(d, v);
    ASSERT_TRUE(v == c) << "coset_intt(coset_ntt(c)) != c at k=" << k;
}

INSTANTIATE_TEST_SUITE_P(Ntt, NttRoundTrip, ::testing::Values(9u, 11u, 13u, 16u, 20u));

TEST(Ntt, SameResultSingleThreadedAndParallel) {
    // Forcing the threshold both ways runs the same size through both code paths (different block splits).
    auto d = EvaluationDomain::from_log_size(15);
    std::mt19937_64 rng(3);
    auto c = random_vec(d.size(), rng);
    const size_t saved = ntt_detail::parallel_threshold();
    for (Transform t : kAll) {
        auto a = c, b = c;
        ntt_detail::set_parallel_threshold(SIZE_MAX);
        t(d, a);
        ntt_detail::set_parallel_threshold(1);
        t(d, b);
        EXPECT_TRUE(a == b);
    }
    ntt_detail::set_parallel_threshold(saved);
}

// ---- algebraic properties --------------------------------------------------------------------------------------

TEST(Ntt, Linearity) {
    auto d = EvaluationDomain::from_log_size(12);
    std::mt19937_64 rng(4);
    auto a = random_vec(d.size(), rng), b = random_vec(d.size(), rng);
    const Fr alpha = Fr::random(rng), beta = Fr::random(rng);
    for (Transform t : kAll) {
        std::vector<Fr> mix(d.size());
        for (size_t i = 0; i < d.size(); i++) mix[i] = alpha * a[i] + beta * b[i];
        auto ta = a, tb = b;
        t(d, ta);
        t(d, tb);
        t(d, mix);
        for (size_t i = 0; i < d.size(); i++) ASSERT_EQ(mix[i], alpha * ta[i] + beta * tb[i]) << i;
    }
}

TEST(Ntt, ConvolutionProperty) {
    for (unsigned k : {4u, 6u}) {
        auto d = EvaluationDomain::from_log_size(k);
        const size_t n = d.size();
        std::mt19937_64 rng(5 + k);
        auto a = random_vec(n, rng), b = random_vec(n, rng);
        std::vector<Fr> want(n);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) want[(i + j) % n] += a[i] * b[j];
        // plain domain: pointwise product of evaluations is the cyclic convolution
        auto fa = a, fb = b;
        ntt(d, fa);
        ntt(d, fb);
        for (size_t i = 0; i < n; i++) fa[i] *= fb[i];
        intt(d, fa);
        EXPECT_EQ(fa, want) << "k=" << k;
        // On the coset the product is taken modulo X^n - g^n instead: wrapped terms pick up a factor g^n.
        std::vector<Fr> want_coset(n);
        const Fr gn = d.z_on_coset() + Fr::one();
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++)
                want_coset[(i + j) % n] += (i + j >= n ? gn : Fr::one()) * a[i] * b[j];
        fa = a, fb = b;
        coset_ntt(d, fa);
        coset_ntt(d, fb);
        for (size_t i = 0; i < n; i++) fa[i] *= fb[i];
        coset_intt(d, fa);
        EXPECT_EQ(fa, want_coset) << "k=" << k;
    }
}

TEST(Ntt, BitReversePermutation) {
    for (unsigned k : {0u, 1u, 5u, 10u, 14u}) {
        const size_t n = size_t{1} << k;
        std::vector<Fr> v(n);
        for (size_t i = 0; i < n; i++) v[i] = Fr::from_u64(i);
        bit_reverse_permute(v);
        for (size_t i = 0; i < n; i++) {
            size_t r = 0;
            for (unsigned b = 0; b < k; b++) r |= ((i >> b) & 1) << (k - 1 - b);
            ASSERT_EQ(v[i], Fr::from_u64(r)) << "k=" << k << " i=" << i;
        }
    }
    std::vector<Fr> bad(6);
    EXPECT_THROW(bit_reverse_permute(bad), std::invalid_argument);
}

TEST(Ntt, SizeMismatchThrows) {
    auto d = EvaluationDomain::from_log_size(4);
    std::vector<Fr> small(15), large(17), empty;
    for (Transform t : kAll) {
        EXPECT_THROW(t(d, small), std::invalid_argument);
        EXPECT_THROW(t(d, large), std::invalid_argument);
        EXPECT_THROW(t(d, empty), std::invalid_argument);
    }
    // A rejected call leaves the input alone.
    std::vector<Fr> v(15, Fr::one());
    EXPECT_THROW(ntt(d, v), std::invalid_argument);
    for (auto& x : v) EXPECT_EQ(x, Fr::one());
}

TEST(Ntt, TwiddlesMatchDefinitionAcrossTheTableCap) {
    // Transforms above 2^21 take twiddles beyond the 2^20-entry table as a product of two entries; the tests
    // cannot afford such a transform, so check W[b] = w32^bitrev_31(b) directly on both sides of the cap.
    const Fr w32 = Fr::root_of_unity();
    auto bitrev31 = [](uint64_t b) {
        uint64_t r = 0;
        for (unsigned i = 0; i < 31; i++) r |= ((b >> i) & 1) << (30 - i);
        return r;
    };
    for (uint64_t b : {0ull, 1ull, 2ull, 3ull, 12345ull, (1ull << 20) - 1, 1ull << 20, (1ull << 20) + 1,
                       (1ull << 20) + 777777ull, 3ull << 25, (1ull << 31) - 1}) {
        EXPECT_EQ(ntt_detail::twiddle(b), w32.pow(bitrev31(b))) << "b=" << b;
    }
    EXPECT_THROW(ntt_detail::twiddle(1ull << 31), std::invalid_argument);
}
