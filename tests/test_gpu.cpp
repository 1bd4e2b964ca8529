// GPU results against the CPU reference on fresh random inputs. Without a GPU (CI) these tests are skipped;
// the CUDA code itself is still compiled there.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <vector>

#include "cuzk/ff/fq.hpp"
#include "cuzk/ff/fq2.hpp"
#include "cuzk/ff/fr.hpp"
#include "seeded_rng.hpp"
#ifdef CUZK_HAVE_CUDA
#include "cuzk/gpu/device.hpp"
#endif

using namespace cuzk;

#ifdef CUZK_HAVE_CUDA
template <class F, class Fn>
void check_mul_against_cpu(Fn gpu_mul, size_t n) {
    auto rng = cuzk::testing::seeded_rng("check_mul_against_cpu");
    std::vector<F> a(n), b(n), out(n);
    for (size_t i = 0; i < n; i++) a[i] = F::random(rng), b[i] = F::random(rng);
    // Edge values at the front: 0, 1, p-1, and p-1 squared.
    a[0] = F::zero();
    a[1] = F::one();
    a[2] = -F::one();
    b[2] = -F::one();
    gpu_mul(std::span<const F>(a), std::span<const F>(b), std::span<F>(out));
    for (size_t i = 0; i < n; i++) ASSERT_EQ(out[i], a[i] * b[i]) << "index " << i;
}

TEST(Gpu, FieldMulMatchesCpu) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    check_mul_against_cpu<Fr>(gpu::fr_mul, 1 << 16);
    check_mul_against_cpu<Fq>(gpu::fq_mul, 1 << 16);
}

// The 32-bit PTX arithmetic: products, sums, differences, squares, and products and squares of unreduced (lazy)
// sums, of random values and of every pair of edge values (0, 1, 2, p-1, p-2, (p-1)/2, (p+1)/2, R mod p as a field element, and values with all-ones limbs).
template <class F, class Fn>
void check_ops32_against_cpu(Fn gpu_ops, size_t random_pairs) {
    auto rng = cuzk::testing::seeded_rng("check_ops32_against_cpu");
    std::vector<F> edge{F::zero(), F::one(), F::from_u64(2), -F::one(), -F::from_u64(2),
                        F::from_canonical_unchecked(F::P_MINUS_1_OVER_2),
                        F::from_canonical_unchecked(F::P_MINUS_1_OVER_2) + F::one(), F::from_mont_limbs(F::R)};
    limbs_t<F::N> ones;
    ones.fill(~0ULL);
    edge.push_back(F::from_limbs_reduce(ones));
    edge.push_back(F::from_mont_limbs(F::sub_one(F::P)));  // largest Montgomery representation
    std::vector<F> a, b;
    for (auto& x : edge)
        for (auto& y : edge) a.push_back(x), b.push_back(y);
    for (size_t i = 0; i < random_pairs; i++) a.push_back(F::random(rng)), b.push_back(F::random(rng));
    std::vector<F> out(8 * a.size());
    gpu_ops(std::span<const F>(a), std::span<const F>(b), std::span<F>(out));
    for (size_t i = 0; i < a.size(); i++) {
        ASSERT_EQ(out[8 * i], a[i] * b[i]) << "mul, pair " << i;
        ASSERT_EQ(out[8 * i + 1], a[i] + b[i]) << "add, pair " << i;
        ASSERT_EQ(out[8 * i + 2], a[i] - b[i]) << "sub, pair " << i;
        ASSERT_EQ(out[8 * i + 3], a[i].square()) << "square, pair " << i;
        const F s = a[i] + b[i];
        const F st = s * (b[i] + b[i]);
        ASSERT_EQ(out[8 * i + 4], st) << "product of lazy sums, pair " << i;
        ASSERT_EQ(out[8 * i + 5], s.square()) << "square of a lazy sum, pair " << i;
        ASSERT_EQ(out[8 * i + 6], a[i] * b[i] - st) << "a b - c d reduced once, pair " << i;
        ASSERT_EQ(out[8 * i + 7], st - a[i] * b[i]) << "c d - a b reduced once (lazy factors), pair " << i;
    }
}

TEST(Gpu, Mont32ArithmeticMatchesCpu) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    auto fr = [](std::span<const Fr> a, std::span<const Fr> b, std::span<Fr> o) { gpu::fr_ops32(a, b, o); };
    auto fq = [](std::span<const Fq> a, std::span<const Fq> b, std::span<Fq> o) { gpu::fq_ops32(a, b, o); };
    check_ops32_against_cpu<Fr>(fr, 1 << 16);
    check_ops32_against_cpu<Fq>(fq, 1 << 16);
}

// The G2 MSM's Fq2 (three full products, two reductions; paired products) on every pair of edge elements built
// from the Fq edge values, and random ones.
TEST(Gpu, Fq2LazyProductMatchesCpu) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    std::mt19937_64 rng = cuzk::testing::seeded_rng("Gpu.Fq2LazyProductMatchesCpu");
    limbs_t<Fq::N> ones;
    ones.fill(~0ULL);
    const std::vector<Fq> e{Fq::zero(), Fq::one(), -Fq::one(), -Fq::from_u64(2),
                            Fq::from_canonical_unchecked(Fq::P_MINUS_1_OVER_2), Fq::from_limbs_reduce(ones),
                            Fq::from_mont_limbs(Fq::sub_one(Fq::P))};
    std::vector<Fq2> edge;
    for (const Fq& x : e)
        for (const Fq& y : e) edge.push_back(Fq2{x, y});
    std::vector<Fq2> a, b;
    for (const Fq2& x : edge)
        for (const Fq2& y : edge) a.push_back(x), b.push_back(y);
    for (int i = 0; i < (1 << 14); i++) {
        a.push_back(Fq2{Fq::random(rng), Fq::random(rng)});
        b.push_back(Fq2{Fq::random(rng), Fq::random(rng)});
    }
    std::vector<Fq2> out(3 * a.size());
    gpu::fq2_ops(a, b, out);
    for (size_t i = 0; i < a.size(); i++) {
        ASSERT_EQ(out[3 * i], a[i] * b[i]) << "product, pair " << i;
        ASSERT_EQ(out[3 * i + 1], a[i] * b[i] - (a[i] + b[i]) * b[i]) << "a b - c d (paired products), pair " << i;
        ASSERT_EQ(out[3 * i + 2], a[i].square()) << "square, pair " << i;
    }
}
#else
TEST(Gpu, Fq2LazyProductMatchesCpu) { GTEST_SKIP() << "built without CUDA"; }
TEST(Gpu, FieldMulMatchesCpu) { GTEST_SKIP() << "built without CUDA"; }
TEST(Gpu, Mont32ArithmeticMatchesCpu) { GTEST_SKIP() << "built without CUDA"; }
#endif
