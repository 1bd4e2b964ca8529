// GPU NTTs (gpu/ntt.hpp) against the CPU transforms (poly/ntt.hpp) on fresh random inputs: the results must be
// bit-identical (same Montgomery representation). Skipped without a GPU; the CUDA code is still compiled in CI.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/ff/fr.hpp"
#include "cuzk/poly/domain.hpp"
#include "cuzk/poly/ntt.hpp"
#include "seeded_rng.hpp"
#ifdef CUZK_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuzk/gpu/device.hpp"
#include "cuzk/gpu/ntt.hpp"
#endif

using namespace cuzk;

#ifdef CUZK_HAVE_CUDA
namespace {

// Random and never zero, so that an unwritten or zeroed output element cannot pass.
std::vector<Fr> random_nonzero(size_t n, std::mt19937_64& rng) {
    std::vector<Fr> v(n);
    for (auto& x : v) {
        do x = Fr::random(rng);
        while (x.is_zero());
    }
    return v;
}

void cpu_transform(gpu::NttKind kind, const EvaluationDomain& d, std::span<Fr> v) {
    switch (kind) {
        case gpu::NttKind::forward: ntt(d, v); break;
        case gpu::NttKind::inverse: intt(d, v); break;
        case gpu::NttKind::coset_forward: coset_ntt(d, v); break;
        case gpu::NttKind::coset_inverse: coset_intt(d, v); break;
    }
}

const char* name(gpu::NttKind k) {
    switch (k) {
        case gpu::NttKind::forward: return "forward";
        case gpu::NttKind::inverse: return "inverse";
        case gpu::NttKind::coset_forward: return "coset_forward";
        case gpu::NttKind::coset_inverse: return "coset_inverse";
    }
    return "?";
}

constexpr gpu::NttKind ALL_KINDS[] = {gpu::NttKind::forward, gpu::NttKind::inverse, gpu::NttKind::coset_forward,
                                     gpu::NttKind::coset_inverse};

// Counts mismatches rather than stopping at the first, and reports the first index.
void expect_equal_values(const std::vector<Fr>& got, const std::vector<Fr>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < want.size(); i++)
        if (got[i] != want[i] && bad++ == 0) first = i;
    EXPECT_EQ(bad, 0u) << what << ": first mismatch at index " << first;
}

void expect_same_as_cpu(unsigned log_n, gpu::NttKind kind, std::mt19937_64& rng) {
    const auto d = EvaluationDomain::from_log_size(log_n);
    auto in = random_nonzero(d.size(), rng);
    auto cpu = in, gpu_out = in;
    cpu_transform(kind, d, cpu);
    gpu::ntt_host(gpu_out, kind);
    expect_equal_values(gpu_out, cpu, std::string(name(kind)) + " 2^" + std::to_string(log_n));
}

}  // namespace

TEST(GpuNtt, AllKindsMatchCpuSmallSizes) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    auto rng = cuzk::testing::seeded_rng("GpuNtt.AllKindsMatchCpuSmallSizes");
    for (unsigned k = 1; k <= 20; k++)
        for (auto kind : ALL_KINDS) expect_same_as_cpu(k, kind, rng);
}

TEST(GpuNtt, AllKindsMatchCpuAt2Pow24) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    auto rng = cuzk::testing::seeded_rng("GpuNtt.AllKindsMatchCpuAt2Pow24");
    for (auto kind : ALL_KINDS) expect_same_as_cpu(24, kind, rng);
}

// Device API with a caller-owned scratch buffer and stream: inverse(forward(x)) == x and
// coset_inverse(coset_forward(x)) == x, and the forward output differs from x (the transform ran).
TEST(GpuNtt, InverseUndoesForwardOnDevice) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    auto rng = cuzk::testing::seeded_rng("GpuNtt.InverseUndoesForwardOnDevice");
    // 2^28 is the largest supported size (four passes); it needs 16 GiB of device memory and 24 GiB of host memory.
    for (unsigned k : {5u, 11u, 12u, 19u, 22u, 28u}) {
        const size_t n = size_t{1} << k;
        if (k == 28) {
            size_t free_b = 0, total_b = 0;
            ASSERT_EQ(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
            if (free_b < (size_t{17} << 30)) continue;
        }
        auto x = random_nonzero(n, rng);
        Fr *d_x = nullptr, *d_s = nullptr;
        ASSERT_EQ(cudaMalloc(&d_x, n * sizeof(Fr)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&d_s, (gpu::ntt_scratch_elements(k) + 1) * sizeof(Fr)), cudaSuccess);
        cudaStream_t st;
        ASSERT_EQ(cudaStreamCreate(&st), cudaSuccess);
        gpu::NttConfig cfg;
        cfg.stream = st;
        cfg.d_scratch = d_s;
        for (auto [fwd, inv] : {std::pair{gpu::NttKind::forward, gpu::NttKind::inverse},
                                std::pair{gpu::NttKind::coset_forward, gpu::NttKind::coset_inverse}}) {
            std::vector<Fr> mid(n), back(n);
            ASSERT_EQ(cudaMemcpy(d_x, x.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), cudaSuccess);
            cfg.kind = fwd;
            cfg.synchronize = false;
            gpu::ntt_device(d_x, k, cfg);
            ASSERT_EQ(cudaStreamSynchronize(st), cudaSuccess);
            ASSERT_EQ(cudaMemcpy(mid.data(), d_x, n * sizeof(Fr), cudaMemcpyDeviceToHost), cudaSuccess);
            cfg.kind = inv;
            cfg.synchronize = true;
            gpu::ntt_device(d_x, k, cfg);
            ASSERT_EQ(cudaMemcpy(back.data(), d_x, n * sizeof(Fr), cudaMemcpyDeviceToHost), cudaSuccess);
            EXPECT_NE(mid, x) << name(fwd) << " 2^" << k << " left the values unchanged";
            EXPECT_EQ(back, x) << name(inv) << " after " << name(fwd) << " 2^" << k;
        }
        cudaStreamDestroy(st);
        cudaFree(d_s);
        cudaFree(d_x);
    }
}

// Pipelined transforms of several host arrays (fewer slots than arrays, so slots are reused) equal the CPU's.
TEST(GpuNtt, HostBatchMatchesCpu) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    std::mt19937_64& rng = cuzk::testing::test_rng();
    for (unsigned log_n : {3u, 12u, 16u}) {
        const auto d = EvaluationDomain::from_log_size(log_n);
        for (auto kind : ALL_KINDS) {
            std::vector<std::vector<Fr>> in(5), want(5);
            std::vector<std::span<Fr>> spans;
            for (size_t i = 0; i < in.size(); i++) {
                in[i] = random_nonzero(d.size(), rng);
                want[i] = in[i];
                cpu_transform(kind, d, want[i]);
                spans.emplace_back(in[i]);
            }
            gpu::ntt_host_batch(spans, kind, 2);
            for (size_t i = 0; i < in.size(); i++)
                EXPECT_TRUE(in[i] == want[i]) << name(kind) << " 2^" << log_n << ", array " << i;
        }
    }
    // Pinned arrays take the asynchronous path (copies overlap other slots' kernels).
    {
        const unsigned log_n = 14;
        const auto d = EvaluationDomain::from_log_size(log_n);
        std::vector<std::vector<Fr>> want(4);
        std::vector<std::span<Fr>> spans;
        for (auto& w : want) {
            Fr* p = nullptr;
            ASSERT_EQ(cudaMallocHost(&p, d.size() * sizeof(Fr)), cudaSuccess);
            w = random_nonzero(d.size(), rng);
            std::copy(w.begin(), w.end(), p);
            cpu_transform(gpu::NttKind::coset_forward, d, w);
            spans.emplace_back(p, d.size());
        }
        gpu::ntt_host_batch(spans, gpu::NttKind::coset_forward, 3);
        for (size_t i = 0; i < spans.size(); i++) {
            EXPECT_TRUE(std::equal(want[i].begin(), want[i].end(), spans[i].begin())) << "pinned array " << i;
            cudaFreeHost(spans[i].data());
        }
    }
    std::vector<Fr> a(8), b(16);
    std::vector<std::span<Fr>> mixed{std::span<Fr>(a), std::span<Fr>(b)};
    EXPECT_THROW(gpu::ntt_host_batch(mixed, gpu::NttKind::forward), std::invalid_argument);
    std::vector<Fr> three(3);
    std::vector<std::span<Fr>> odd{std::span<Fr>(three)};
    EXPECT_THROW(gpu::ntt_host_batch(odd, gpu::NttKind::forward), std::invalid_argument);
}

// The in-place schedule (NttConfig::in_place: symmetric radices, every pass in the values' buffer, a transpose
// last): every kind equal to the CPU's at each pass count and radix shape it has (one pass; two equal radices,
// 2^12 .. 2^18; three with the outer two equal, 2^19 .. 2^25, odd and even middles), with a device buffer of exactly
// the values and no scratch passed; 2^13 (no such schedule) takes its scratch as without the flag.
TEST(GpuNtt, InPlaceMatchesCpu) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    auto rng = cuzk::testing::seeded_rng("GpuNtt.InPlaceMatchesCpu");
    for (unsigned k : {3u, 11u, 12u, 13u, 14u, 18u, 19u, 20u, 21u, 22u, 23u, 24u, 25u}) {
        const auto d = EvaluationDomain::from_log_size(k);
        const size_t n = d.size();
        Fr* d_x = nullptr;
        ASSERT_EQ(cudaMalloc(&d_x, n * sizeof(Fr)), cudaSuccess);
        for (auto kind : ALL_KINDS) {
            auto want = random_nonzero(n, rng);
            std::vector<Fr> got(n);
            ASSERT_EQ(cudaMemcpy(d_x, want.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), cudaSuccess);
            gpu::NttConfig cfg;
            cfg.kind = kind;
            cfg.in_place = true;
            gpu::ntt_device(d_x, k, cfg);
            ASSERT_EQ(cudaMemcpy(got.data(), d_x, n * sizeof(Fr), cudaMemcpyDeviceToHost), cudaSuccess);
            cpu_transform(kind, d, want);
            expect_equal_values(got, want, std::string("in place, ") + name(kind) + " 2^" + std::to_string(k));
        }
        cudaFree(d_x);
    }
}

// NttConfig's pointwise steps (pre_mul, post_sub, post_scale): every kind equals the CPU's transform of x * m, then
// (y - c) * s, where the passes take them (2^12 and up with a scratch: two and three passes here) and where kernels
// of their own do (sizes 1 .. 2^11, the in-place schedule); each step alone too.
TEST(GpuNtt, PointwiseStepsMatchCpu) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    auto rng = cuzk::testing::seeded_rng("GpuNtt.PointwiseStepsMatchCpu");
    struct Case {
        unsigned log_n;
        bool in_place;
    };
    for (Case cs : {Case{0, false}, Case{1, false}, Case{2, false}, Case{3, false}, Case{11, false}, Case{12, false},
                    Case{19, false}, Case{22, false}, Case{20, true}, Case{13, true}}) {
        const auto d = EvaluationDomain::from_log_size(cs.log_n);
        const size_t n = d.size();
        Fr *d_x = nullptr, *d_m = nullptr, *d_c = nullptr;
        ASSERT_EQ(cudaMalloc(&d_x, n * sizeof(Fr)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&d_m, n * sizeof(Fr)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&d_c, n * sizeof(Fr)), cudaSuccess);
        for (auto kind : ALL_KINDS)
            for (int steps : {3, 1, 2}) {  // both, pre_mul alone, post_sub alone
                auto x = random_nonzero(n, rng), m = random_nonzero(n, rng), c = random_nonzero(n, rng);
                const Fr s = random_nonzero(1, rng)[0];
                ASSERT_EQ(cudaMemcpy(d_x, x.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), cudaSuccess);
                ASSERT_EQ(cudaMemcpy(d_m, m.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), cudaSuccess);
                ASSERT_EQ(cudaMemcpy(d_c, c.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), cudaSuccess);
                gpu::NttConfig cfg;
                cfg.kind = kind;
                cfg.in_place = cs.in_place;
                if (steps & 1) cfg.pre_mul = d_m;
                if (steps & 2) {
                    cfg.post_sub = d_c;
                    cfg.post_scale = s;
                }
                gpu::ntt_device(d_x, cs.log_n, cfg);
                std::vector<Fr> got(n);
                ASSERT_EQ(cudaMemcpy(got.data(), d_x, n * sizeof(Fr), cudaMemcpyDeviceToHost), cudaSuccess);
                if (steps & 1)
                    for (size_t i = 0; i < n; i++) x[i] *= m[i];
                cpu_transform(kind, d, x);
                if (steps & 2)
                    for (size_t i = 0; i < n; i++) x[i] = (x[i] - c[i]) * s;
                expect_equal_values(got, x, std::string(name(kind)) + " 2^" + std::to_string(cs.log_n) +
                                                (cs.in_place ? " in place" : "") + ", steps " + std::to_string(steps));
            }
        cudaFree(d_c);
        cudaFree(d_m);
        cudaFree(d_x);
    }
    // The scratch may not be one of the steps' arrays.
    const size_t n = size_t{1} << 12;
    Fr *d_x = nullptr, *d_s = nullptr;
    ASSERT_EQ(cudaMalloc(&d_x, n * sizeof(Fr)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_s, n * sizeof(Fr)), cudaSuccess);
    gpu::NttConfig cfg;
    cfg.d_scratch = d_s;
    cfg.pre_mul = d_s;
    EXPECT_THROW(gpu::ntt_device(d_x, 12, cfg), std::invalid_argument);
    cudaFree(d_s);
    cudaFree(d_x);
}

// The steps alone (ntt_pointwise, the lean H slot's): x * m, then (x - c) * s, each where its array is given.
TEST(GpuNtt, PointwiseAloneMatchesCpu) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    auto rng = cuzk::testing::seeded_rng("GpuNtt.PointwiseAloneMatchesCpu");
    for (unsigned log_n : {0u, 5u, 17u}) {
        const size_t n = size_t{1} << log_n;
        Fr *d_x = nullptr, *d_m = nullptr, *d_c = nullptr;
        ASSERT_EQ(cudaMalloc(&d_x, n * sizeof(Fr)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&d_m, n * sizeof(Fr)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&d_c, n * sizeof(Fr)), cudaSuccess);
        for (int steps : {1, 2, 3}) {
            auto x = random_nonzero(n, rng), m = random_nonzero(n, rng), c = random_nonzero(n, rng);
            const Fr s = random_nonzero(1, rng)[0];
            ASSERT_EQ(cudaMemcpy(d_x, x.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), cudaSuccess);
            ASSERT_EQ(cudaMemcpy(d_m, m.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), cudaSuccess);
            ASSERT_EQ(cudaMemcpy(d_c, c.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), cudaSuccess);
            gpu::ntt_pointwise(d_x, log_n, steps & 1 ? d_m : nullptr, steps & 2 ? d_c : nullptr, s, nullptr);
            std::vector<Fr> got(n);
            ASSERT_EQ(cudaMemcpy(got.data(), d_x, n * sizeof(Fr), cudaMemcpyDeviceToHost), cudaSuccess);
            for (size_t i = 0; i < n; i++) {
                if (steps & 1) x[i] *= m[i];
                if (steps & 2) x[i] = (x[i] - c[i]) * s;
            }
            expect_equal_values(got, x, "2^" + std::to_string(log_n) + ", steps " + std::to_string(steps));
        }
        cudaFree(d_c);
        cudaFree(d_m);
        cudaFree(d_x);
    }
    EXPECT_THROW(gpu::ntt_pointwise(nullptr, gpu::NTT_MAX_LOG_SIZE + 1, nullptr, nullptr, Fr::one(), nullptr),
                 std::invalid_argument);
}

// Which sizes have the in-place schedule, and the scratch each form needs (no device needed).
TEST(GpuNtt, InPlaceScheduleSizes) {
    for (unsigned k = 0; k <= gpu::NTT_MAX_LOG_SIZE; k++) {
        const bool exists = k <= 11 || (k <= 18 && k % 2 == 0) || (k >= 19 && k <= 27);
        EXPECT_EQ(gpu::ntt_in_place_exists(k), exists) << "2^" << k;
        EXPECT_EQ(gpu::ntt_scratch_elements(k, true), exists || k <= 11 ? 0u : size_t{1} << k) << "2^" << k;
        EXPECT_EQ(gpu::ntt_scratch_elements(k), k <= 11 ? 0u : size_t{1} << k) << "2^" << k;
    }
    EXPECT_THROW(gpu::ntt_scratch_elements(gpu::NTT_MAX_LOG_SIZE + 1, true), std::invalid_argument);
}

TEST(GpuNtt, SizeErrorsThrow) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    std::vector<Fr> three(3, Fr::one());
    EXPECT_THROW(gpu::ntt_host(three, gpu::NttKind::forward), std::invalid_argument);
    std::vector<Fr> none;
    EXPECT_THROW(gpu::ntt_host(none, gpu::NttKind::forward), std::invalid_argument);
    EXPECT_THROW(gpu::ntt_device(nullptr, gpu::NTT_MAX_LOG_SIZE + 1), std::invalid_argument);
    EXPECT_THROW(gpu::ntt_scratch_elements(gpu::NTT_MAX_LOG_SIZE + 1), std::invalid_argument);
    EXPECT_EQ(gpu::ntt_scratch_elements(11), 0u);
    EXPECT_EQ(gpu::ntt_scratch_elements(12), size_t{1} << 12);
}
#else
TEST(GpuNtt, AllKindsMatchCpuSmallSizes) { GTEST_SKIP() << "built without CUDA"; }
#endif
