// GPU results against the CPU reference on fresh random inputs. Without a GPU (CI) these tests are skipped;
// the CUDA code itself is still compiled there.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "cuzk/ff/fq.hpp"
#include "cuzk/ff/fr.hpp"
#ifdef CUZK_HAVE_CUDA
#include "cuzk/gpu/device.hpp"
#endif

using namespace cuzk;

#ifdef CUZK_HAVE_CUDA
template <class F, class Fn>
void check_mul_against_cpu(Fn gpu_mul, size_t n) {
    std::random_device rd;
    std::mt19937_64 rng(((uint64_t)rd() << 32) | rd());
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
#else
TEST(Gpu, FieldMulMatchesCpu) { GTEST_SKIP() << "built without CUDA"; }
#endif
