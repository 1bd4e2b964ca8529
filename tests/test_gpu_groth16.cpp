// The GPU backend's Groth16 pieces (backends/cuda/) against the CPU prover's (groth16/prover.hpp) on fresh random
// inputs: results must be bit-identical. Skipped without a GPU; the CUDA code is still compiled in CI.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "cuzk/ff/fr.hpp"
#include "cuzk/groth16/prover.hpp"
#include "cuzk/poly/domain.hpp"
#ifdef CUZK_HAVE_CUDA
#include "cuzk/backends/cuda/h_gpu.hpp"
#include "cuzk/gpu/device.hpp"
#endif

using namespace cuzk;

#ifdef CUZK_HAVE_CUDA
namespace {

std::mt19937_64 fresh_rng(uint64_t& seed) {
    std::random_device rd;
    seed = ((uint64_t)rd() << 32) | rd();
    return std::mt19937_64(seed);
}

std::vector<Fr> random_vec(size_t n, std::mt19937_64& rng) {
    std::vector<Fr> v(n);
    for (auto& x : v) x = Fr::random(rng);
    return v;
}

}  // namespace

// Both H conventions, domains 2^0 .. 2^20, full and shorter-than-domain inputs (zero padding): the GPU's H equals
// the CPU's compute_h / compute_h_odd_coset element for element.
TEST(GpuGroth16, ComputeHMatchesCpu) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    uint64_t seed = 0;
    auto rng = fresh_rng(seed);
    SCOPED_TRACE(seed);
    for (unsigned k : {0u, 1u, 2u, 3u, 5u, 10u, 11u, 12u, 16u, 20u}) {
        const size_t n = size_t{1} << k;
        for (size_t m : {n, n > 3 ? n - 3 : n}) {
            const auto a = random_vec(m, rng), b = random_vec(m, rng), c = random_vec(m, rng);
            const EvaluationDomain domain = EvaluationDomain::from_log_size(k);
            SCOPED_TRACE(::testing::Message() << "2^" << k << ", " << m << " evaluations");
            const auto want_b = groth16::compute_h(domain, a, b, c);
            const auto got_b = gpu::compute_h_gpu(k, a, b, c, groth16::HConvention::Bellman);
            ASSERT_EQ(got_b.size(), n - 1);
            EXPECT_TRUE(got_b == want_b) << "bellman H differs";
            const auto want_s = groth16::compute_h_odd_coset(domain, a, b, c);
            const auto got_s = gpu::compute_h_gpu(k, a, b, c, groth16::HConvention::Snarkjs);
            ASSERT_EQ(got_s.size(), n);
            EXPECT_TRUE(got_s == want_s) << "snarkjs H differs";
        }
    }
}

// A satisfied system (c = a * b on the domain): A*B - C vanishes on the domain, so H's top coefficient is zero and
// H * Z reproduces A*B - C; the GPU agrees with the CPU there too.
TEST(GpuGroth16, ComputeHOfASatisfiedSystem) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    uint64_t seed = 0;
    auto rng = fresh_rng(seed);
    SCOPED_TRACE(seed);
    const unsigned k = 14;
    const size_t n = size_t{1} << k;
    auto a = random_vec(n - 5, rng), b = random_vec(n - 5, rng);
    std::vector<Fr> c(a.size());
    for (size_t i = 0; i < a.size(); i++) c[i] = a[i] * b[i];
    const auto h = gpu::compute_h_gpu(k, a, b, c);
    EXPECT_TRUE(h == groth16::compute_h(EvaluationDomain::from_log_size(k), a, b, c));
    bool nonzero = false;
    for (const Fr& x : h) nonzero |= !x.is_zero();
    EXPECT_TRUE(nonzero) << "H of random a, b is not the zero polynomial";
}

TEST(GpuGroth16, ComputeHRejectsBadSizes) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    std::vector<Fr> four(4, Fr::one()), three(3, Fr::one());
    EXPECT_THROW(gpu::compute_h_gpu(2, four, four, three), std::invalid_argument);
    EXPECT_THROW(gpu::compute_h_gpu(1, four, four, four), std::invalid_argument) << "longer than the domain";
    EXPECT_THROW(gpu::compute_h_gpu(29, four, four, four), std::invalid_argument);
    EXPECT_THROW(gpu::h_gpu_device_bytes(29, groth16::HConvention::Bellman), std::invalid_argument);
    EXPECT_GT(gpu::h_gpu_device_bytes(20, groth16::HConvention::Snarkjs),
              gpu::h_gpu_device_bytes(20, groth16::HConvention::Bellman));
    std::vector<Fr> h(2);
    EXPECT_THROW(gpu::compute_h_gpu(2, four, four, four, h), std::invalid_argument) << "bellman H of 2^2 has 3";
    h.resize(4);
    EXPECT_THROW(gpu::compute_h_gpu(2, four, four, four, h), std::invalid_argument);
    gpu::compute_h_gpu(2, four, four, four, std::span<Fr>(h).first(3));  // the right length works
}
#else
TEST(GpuGroth16, ComputeHMatchesCpu) { GTEST_SKIP() << "built without CUDA"; }
#endif
