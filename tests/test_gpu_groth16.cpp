// The GPU backend's Groth16 pieces (backends/cuda/) against the CPU prover's (groth16/prover.hpp) on fresh random
// inputs: results must be bit-identical. Skipped without a GPU; the CUDA code is still compiled in CI.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cuzk/circuits/builtin.hpp"
#include "cuzk/circuits/catalog.hpp"
#include "cuzk/ec/encoding.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/engine/engine.hpp"
#include "cuzk/groth16/backend.hpp"
#include "cuzk/ff/fr.hpp"
#include "cuzk/groth16/prover.hpp"
#include "cuzk/groth16/setup.hpp"
#include "cuzk/groth16/verifier.hpp"
#include "cuzk/poly/domain.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "cuzk/util/thread_pool.hpp"
#include "cuzk/util/timing.hpp"
#include "seeded_rng.hpp"
#ifdef CUZK_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuzk/backends/cuda/h_gpu.hpp"
#include "cuzk/backends/cuda/products_gpu.hpp"
#include "cuzk/backends/cuda/prover_gpu.hpp"
#include "cuzk/gpu/device.hpp"
#endif

using namespace cuzk;

#ifdef CUZK_HAVE_CUDA
namespace {

// A generator whose seed (traced by the callers) comes from the test's printed seed (seeded_rng.hpp).
std::mt19937_64 fresh_rng(uint64_t& seed) {
    seed = cuzk::testing::test_rng()();
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

// 2^22 evaluations in pageable memory go through the pinned staging buffers in several chunks (2^21 elements
// each), shorter than the domain so the zero padding follows a partial chunk; the result still equals the CPU's,
// and the kernel layer reports the uploads and transforms.
TEST(GpuGroth16, ComputeHFromPageableMemoryInChunks) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    uint64_t seed = 0;
    auto rng = fresh_rng(seed);
    SCOPED_TRACE(seed);
    const unsigned k = 22;
    const size_t m = (size_t{1} << k) - 12345;
    const auto a = random_vec(m, rng), b = random_vec(m, rng), c = random_vec(m, rng);
    const EvaluationDomain domain = EvaluationDomain::from_log_size(k);
    const auto want = groth16::compute_h(domain, a, b, c);
    gpu::HComputer hc(k, groth16::HConvention::Bellman);
    TimingSink sink;
    hc.run(a, b, c, {&sink, "h", 7});
    std::vector<Fr> got(gpu::h_gpu_length(k, groth16::HConvention::Bellman));
    hc.copy_h_to_host(got);
    EXPECT_TRUE(got == want) << "bellman H from pageable memory differs";
    size_t uploads = 0, transforms = 0;
    for (const auto& sp : sink.spans()) {
        EXPECT_EQ(sp.layer, TimingLayer::Kernel);
        EXPECT_EQ(sp.item, 7);
        EXPECT_GT(sp.duration_s, 0.0) << sp.name;
        uploads += sp.name == "h.upload";
        transforms += sp.name == "h.transforms";
    }
    EXPECT_EQ(uploads, 3u);
    EXPECT_EQ(transforms, 3u);
    EXPECT_GT(sink.total(TimingLayer::Kernel, "h.pointwise_final"), 0.0);
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

// The lean form (two arrays: C goes up into B's array once A*B on the coset is formed; the transforms in place
// where the size has that schedule, 2^13 not): bellman's H equal to the CPU's for domains 2^0 .. 2^20, one computer
// reused for inputs of several lengths (B's array padded again each time, every upload and transform reported);
// what it does not offer is refused, and it needs two arrays less (one at 2^13, which keeps the NTT scratch).
TEST(GpuGroth16, LeanHMatchesCpu) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    uint64_t seed = 0;
    auto rng = fresh_rng(seed);
    SCOPED_TRACE(seed);
    for (unsigned k : {0u, 1u, 2u, 5u, 11u, 12u, 13u, 16u, 19u, 20u}) {
        const size_t n = size_t{1} << k;
        gpu::HComputer hc(k, groth16::HConvention::Bellman, true);
        EXPECT_TRUE(hc.lean());
        for (size_t m : {n, n > 3 ? n - 3 : n, n > 3 ? n / 2 : n}) {
            SCOPED_TRACE(::testing::Message() << "2^" << k << ", " << m << " evaluations");
            const auto a = random_vec(m, rng), b = random_vec(m, rng), c = random_vec(m, rng);
            TimingSink sink;
            hc.run(a, b, c, {&sink, "h", 1});
            std::vector<Fr> got(gpu::h_gpu_length(k, groth16::HConvention::Bellman));
            hc.copy_h_to_host(got);
            EXPECT_TRUE(got == groth16::compute_h(EvaluationDomain::from_log_size(k), a, b, c)) << "lean H differs";
            size_t uploads = 0, transforms = 0;
            for (const auto& sp : sink.spans()) {
                uploads += sp.name == "h.upload";
                transforms += sp.name == "h.transforms";
            }
            EXPECT_EQ(uploads, 3u);
            EXPECT_EQ(transforms, 3u);
        }
    }
    gpu::HComputer lean(12, groth16::HConvention::Bellman, true);
    const auto v = random_vec(4096, rng);
    EXPECT_THROW(lean.prefetch(v, v, v), std::logic_error);
    EXPECT_THROW(lean.run_prefetched(), std::logic_error);
    EXPECT_THROW(gpu::HComputer(12, groth16::HConvention::Snarkjs, true), std::invalid_argument);
    EXPECT_FALSE(gpu::HComputer(12, groth16::HConvention::Bellman).lean());
    EXPECT_EQ(gpu::h_gpu_device_bytes(20, groth16::HConvention::Bellman) -
                  gpu::h_gpu_device_bytes(20, groth16::HConvention::Bellman, true),
              2 * (size_t{1} << 20) * sizeof(Fr));
    EXPECT_EQ(gpu::h_gpu_device_bytes(13, groth16::HConvention::Bellman) -
                  gpu::h_gpu_device_bytes(13, groth16::HConvention::Bellman, true),
              (size_t{1} << 13) * sizeof(Fr));
}

namespace {

r1cs::ProvingAssignment synthesize(const r1cs::Circuit& c) {
    r1cs::ProvingAssignment asg;
    r1cs::synthesize_groth16(asg, c);
    return asg;
}

// k bits of each 64-bit word as booleans (b * b = b) summed into one public input per word: a witness of zeros
// and ones, the shape of most Groth16 witnesses (Filecoin's included).
struct Bits : r1cs::CircuitImpl<Bits> {
    std::vector<uint64_t> words;
    explicit Bits(std::vector<uint64_t> w) : words(std::move(w)) {}
    template <class CS>
    void synthesize(CS& cs) const {
        for (size_t w = 0; w < words.size(); w++) {
            r1cs::LC sum;
            Fr coeff = Fr::one(), total = Fr::zero();
            for (unsigned i = 0; i < 64; i++) {
                const bool bit = (words[w] >> i) & 1;
                auto v = cs.alloc("bit", [&] { return bit ? Fr::one() : Fr::zero(); });
                cs.enforce("boolean", r1cs::LC(v), r1cs::LC(v), r1cs::LC(v));
                sum = sum.add(coeff, v);
                if (bit) total += coeff;
                coeff = coeff.dbl();
            }
            auto out = cs.alloc_input("word", [&] { return total; });
            cs.enforce("sum", sum, r1cs::LC(r1cs::Variable::one()), r1cs::LC(out));
        }
    }
    std::vector<Fr> public_inputs() const {
        std::vector<Fr> v;
        for (uint64_t w : words) v.push_back(Fr::from_u64(w));
        return v;
    }
};

// Rows of many lengths around the GPU products' warp sums (products_gpu.cu: rows over 8 terms are summed by the
// whole warp): long rows in A, B and C in turn, several in one warp and beside short ones, lengths 0 .. 40, 63 ..
// 65, 100 and 300; coefficients one, two and random; values 0, 1 and random. The rows and coefficients are fixed;
// `seed` picks the values.
struct RowLengths : r1cs::CircuitImpl<RowLengths> {
    uint64_t seed;
    explicit RowLengths(uint64_t s) : seed(s) {}
    template <class CS>
    void synthesize(CS& cs) const {
        constexpr size_t kVars = 400;
        std::mt19937_64 shape(7), values(seed);
        std::vector<Fr> val(kVars);
        std::vector<r1cs::Variable> x;
        for (size_t i = 0; i < kVars; i++) {
            const uint64_t kind = values() % 3;
            val[i] = kind == 0 ? Fr::zero() : kind == 1 ? Fr::one() : Fr::random(values);
            x.push_back(cs.alloc("x", [&] { return val[i]; }));
        }
        std::vector<size_t> lengths;
        for (size_t l = 0; l <= 40; l++) lengths.push_back(l);
        for (size_t l : {63, 64, 65, 300, 9, 9, 9, 9, 8, 100}) lengths.push_back(l);
        for (size_t r = 0; r < 3 * lengths.size(); r++) {
            const size_t len = lengths[r % lengths.size()];
            r1cs::LC sum;
            Fr total = Fr::zero();
            for (size_t t = 0; t < len; t++) {
                const size_t i = (7 * r + t) % kVars;
                const uint64_t kind = shape() % 3;
                const Fr coeff = kind == 0 ? Fr::one() : kind == 1 ? Fr::from_u64(2) : Fr::random(shape);
                sum = sum.add(coeff, x[i]);
                total += coeff * val[i];
            }
            auto out = cs.alloc("out", [&] { return total; });
            const r1cs::LC one(r1cs::Variable::one()), o(out);
            if (r % 3 == 0) cs.enforce("a long", sum, one, o);
            else if (r % 3 == 1) cs.enforce("b long", one, sum, o);
            else cs.enforce("c long", one, o, sum);
        }
    }
};

// Proves `circuits` with the CPU seam and with the GPU prover (same r, s): the proofs must be byte-identical, and
// they verify (unless `verify` is false: parameters of random points, which no proof verifies against).
void check_backends_agree(const groth16::Parameters& p, const std::vector<const r1cs::Circuit*>& circuits,
                          const std::vector<std::vector<Fr>>& publics, std::mt19937_64& rng, bool verify = true,
                          const gpu::GpuProverConfig& gc = {}) {
    std::vector<r1cs::ProvingAssignment> cpu_asg, gpu_asg;
    std::vector<Fr> r, s;
    for (const auto* c : circuits) {
        cpu_asg.push_back(synthesize(*c));
        gpu_asg.push_back(synthesize(*c));
        r.push_back(Fr::random(rng));
        s.push_back(Fr::random(rng));
    }
    const auto want = groth16::prove_from_assignments(p, cpu_asg, r, s);
    gpu::GpuProver prover(p, gc);
    EXPECT_GT(prover.resident_bytes(), 0u);
    TimingSink sink;
    const auto got = prover.prove_from_assignments(gpu_asg, r, s, &sink);
    // Both layers report: the prover's stages and, beneath them, the kernels of H and of every MSM.
    for (const char* stage : {"h", "msm.h", "msm.a", "msm.l", "msm.b_g2"}) {
        const double outer = sink.total(TimingLayer::Prover, stage);
        double inner = 0;
        for (const auto& sp : sink.spans())
            if (sp.layer == TimingLayer::Kernel && sp.name.rfind(std::string(stage) + ".", 0) == 0 &&
                sp.name.find('.', std::string(stage).size() + 1) == std::string::npos)
                inner += sp.duration_s;
        EXPECT_GT(outer, 0.0) << stage;
        EXPECT_GT(inner, 0.0) << stage << ": no kernel-layer spans";
        // An MSM's kernels run on one stream, one after the other (H's uploads overlap its transforms).
        if (std::string(stage) != "h") {
            EXPECT_LE(inner, outer * 1.05 + 1e-4) << stage << ": kernels longer than the call around them";
        }
    }
    ASSERT_EQ(got.size(), want.size());
    const auto pvk = groth16::prepare_verifying_key(p.vk);
    for (size_t i = 0; i < got.size(); i++) {
        EXPECT_TRUE(got[i] == want[i]) << "circuit " << i << ": the GPU proof differs from the CPU proof";
        if (verify) {
            EXPECT_TRUE(groth16::verify_proof(pvk, got[i], publics[i])) << "circuit " << i;
        }
    }
    for (const auto& asg : gpu_asg) EXPECT_TRUE(asg.a().empty()) << "a, b, c consumed as the CPU seam does";
}

// One proof of `c` by `prover` and by the CPU seam with the same fresh r, s: byte-identical; returns the GPU's.
groth16::Proof expect_cpu_proof(gpu::GpuProver& prover, const groth16::Parameters& p, const r1cs::Circuit& c,
                                std::mt19937_64& rng) {
    std::vector<r1cs::ProvingAssignment> gpu_asg, cpu_asg;
    gpu_asg.push_back(synthesize(c));
    cpu_asg.push_back(synthesize(c));
    const std::vector<Fr> r{Fr::random(rng)}, s{Fr::random(rng)};
    const auto want = groth16::prove_from_assignments(p, cpu_asg, r, s);
    const auto got = prover.prove_from_assignments(gpu_asg, r, s);
    EXPECT_EQ(got.size(), 1u);
    if (got.empty()) return {};
    EXPECT_TRUE(got[0] == want[0]) << "the GPU proof differs from the CPU proof";
    return got[0];
}

}  // namespace

// The whole proof on the GPU (H and the five MSMs) against the CPU prover: byte-identical for the same r, s, on a
// dense witness (multiplication chains, 2^4 .. 2^17 constraints, batches of two and three) and a zero/one witness.
TEST(GpuGroth16, ProofsEqualCpuProofs) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    uint64_t seed = 0;
    auto rng = fresh_rng(seed);
    SCOPED_TRACE(seed);
    for (unsigned k : {4u, 10u, 14u, 17u}) {
        SCOPED_TRACE(::testing::Message() << "mul chain 2^" << k);
        const auto p = groth16::generate_parameters(circuits::MulChainCircuit(k, 3, std::nullopt),
                                                    groth16::ToxicWaste::from_seed(rng()));
        circuits::MulChainCircuit c1(k, 3, rng()), c2(k, 3, rng()), c3(k, 3, rng());
        // Batches of 2 and (at 2^10) 3: circuit i + 1's upload overlaps circuit i's MSMs, in both H slots.
        if (k == 10)
            check_backends_agree(p, {&c1, &c2, &c3}, {c1.public_values(), c2.public_values(), c3.public_values()}, rng);
        else
            check_backends_agree(p, {&c1, &c2}, {c1.public_values(), c2.public_values()}, rng);
    }
    const auto p = groth16::generate_parameters(Bits(std::vector<uint64_t>(40, 0)), groth16::ToxicWaste::from_seed(3));
    std::vector<uint64_t> w1(40), w2(40, ~0ull);
    for (auto& x : w1) x = rng() & rng();  // mostly zeros
    w2[3] = 0;
    Bits b1(w1), b2(w2);
    check_backends_agree(p, {&b1, &b2}, {b1.public_inputs(), b2.public_inputs()}, rng);
}

// Host threads that sleep while they wait for the device (gpu::set_blocking_waits): the setting reads back on every
// device, proofs stay equal to the CPU's (batches whose uploads, splits and MSMs wait on several threads), and the
// driver's default comes back.
TEST(GpuGroth16, BlockingWaitsProveTheSame) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    uint64_t seed = 0;
    auto rng = fresh_rng(seed);
    SCOPED_TRACE(seed);
    gpu::set_blocking_waits(true);
    for (const auto& d : gpu::devices()) {
        gpu::use_device(d.id);
        EXPECT_TRUE(gpu::blocking_waits()) << "device " << d.id;
    }
    gpu::use_device(0);
    const auto p = groth16::generate_parameters(circuits::MulChainCircuit(12, 3, std::nullopt),
                                                groth16::ToxicWaste::from_seed(rng()));
    circuits::MulChainCircuit c1(12, 3, rng()), c2(12, 3, rng()), c3(12, 3, rng());
    check_backends_agree(p, {&c1, &c2, &c3}, {c1.public_values(), c2.public_values(), c3.public_values()}, rng);
    gpu::set_blocking_waits(false);
    EXPECT_FALSE(gpu::blocking_waits());
    check_backends_agree(p, {&c1, &c2}, {c1.public_values(), c2.public_values()}, rng);
}

namespace {
// Three partitions of the 2 KiB PoRep circuit in one batch (PorepPartitionsEqualCpu) on a prover made with `gc`.
void check_porep_partitions(std::mt19937_64& rng, const gpu::GpuProverConfig& gc = {}) {
    circuits::CircuitSpec spec;
    spec.name = "porep-2k";
    spec.witness_seed = rng();
    std::vector<std::unique_ptr<r1cs::Circuit>> owned;
    std::vector<const r1cs::Circuit*> circuits;
    std::vector<std::vector<Fr>> publics(3);
    for (size_t i = 0; i < 3; i++) {
        owned.push_back(circuits::make_circuit(spec, true, i, &publics[i]));
        circuits.push_back(owned.back().get());
    }
    const auto p = groth16::benchmark_parameters(synthesize(*circuits[0]), rng());
    check_backends_agree(p, circuits, publics, rng, false, gc);
}
}  // namespace

// Three partitions of Filecoin's PoRep circuit (porep-2k: one partition per sector, so three generated sectors) in
// one batch: the witness is mostly zeros and ones (the ones go up as a bitmap) and the other values sit at nearly
// the same positions in every partition (the later partitions reuse the first one's tails): byte-identical to the
// CPU. The parameters are random points of the circuit's shape (a setup of its 2^22 domain takes minutes), so the
// proofs are compared, not verified (tests/filecoin_c2_roundtrip.sh verifies real 2 KiB proofs, GPU where present).
TEST(GpuGroth16, PorepPartitionsEqualCpu) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    uint64_t seed = 0;
    auto rng = fresh_rng(seed);
    SCOPED_TRACE(seed);
    check_porep_partitions(rng);
}

// Groups (GpuProver::defer_group / prove_deferred / finish_group): three porep-2k partitions (ones as bitmaps)
// proven into one group, the first without a ticket and the others prepared, the last one summing the group's ones;
// then as 17 members (more than sum_patterns takes at once: two calls a query), one of them wrongly told it was the
// last; each finished proof byte-identical to the CPU's for the same r, s.
// A group is empty after its finish; a group of another prover is refused.
TEST(GpuGroth16, GroupedProofsEqualCpuProofs) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    uint64_t seed = 0;
    auto rng = fresh_rng(seed);
    SCOPED_TRACE(seed);
    circuits::CircuitSpec spec;
    spec.name = "porep-2k";
    spec.witness_seed = rng();
    std::vector<std::unique_ptr<r1cs::Circuit>> circuits;
    for (size_t i = 0; i < 3; i++) circuits.push_back(circuits::make_circuit(spec, true, i, nullptr));
    const auto p = groth16::benchmark_parameters(synthesize(*circuits[0]), rng());
    std::vector<Fr> r, s;
    std::vector<r1cs::ProvingAssignment> cpu_asg;
    for (size_t i = 0; i < 3; i++) {
        r.push_back(Fr::random(rng));
        s.push_back(Fr::random(rng));
        cpu_asg.push_back(synthesize(*circuits[i]));
    }
    const auto want = groth16::prove_from_assignments(p, cpu_asg, r, s);
    gpu::GpuProver prover(p);
    TimingSink sink;
    for (size_t members : {size_t{3}, size_t{17}}) {
        SCOPED_TRACE(::testing::Message() << members << " members");
        auto group = prover.defer_group();
        ASSERT_NE(group, nullptr);
        for (size_t m = 0; m < members; m++) {
            const size_t i = m % 3;
            auto asg = synthesize(*circuits[i]);
            auto ticket = m == 0 ? nullptr : prover.prepare(asg, &sink, (int64_t)m);
            if (m > 0) {
                EXPECT_NE(ticket, nullptr) << "member " << m << " prepared";
            }
            // The 3-member group is summed by its last member's proof; the 17-member one is told at member 5 that
            // it was the last, wrongly: finish_group sums it all again.
            prover.prove_deferred(std::move(ticket), asg, r[i], s[i], &sink, (int64_t)m, *group,
                                  members == 3 ? m + 1 == members : m == 5);
        }
        EXPECT_EQ(group->size(), members);
        const auto got = prover.finish_group(*group, &sink);
        EXPECT_EQ(group->size(), 0u);
        ASSERT_EQ(got.size(), members);
        for (size_t m = 0; m < members; m++)
            EXPECT_TRUE(got[m] == want[m % 3]) << "member " << m << ": the grouped proof differs from the CPU proof";
    }
    EXPECT_GT(sink.total(TimingLayer::Kernel, "ones.a.accumulate"), 0.0) << "the ones were summed by the group";
    gpu::GpuProver other(p);
    auto foreign = other.defer_group();
    EXPECT_THROW(prover.finish_group(*foreign, nullptr), std::invalid_argument);
}

namespace {
// With `gc`: PoRep partitions and a batch of three dense mul chains (2^12), every proof byte-identical to the CPU's
// and the chains verified. Returns the chains' parameters.
groth16::Parameters check_partitions_and_chains(std::mt19937_64& rng, const gpu::GpuProverConfig& gc) {
    check_porep_partitions(rng, gc);
    auto p = groth16::generate_parameters(circuits::MulChainCircuit(12, 3, std::nullopt),
                                          groth16::ToxicWaste::from_seed(rng()));
    circuits::MulChainCircuit c1(12, 3, rng()), c2(12, 3, rng()), c3(12, 3, rng());
    check_backends_agree(p, {&c1, &c2, &c3}, {c1.public_values(), c2.public_values(), c3.public_values()}, rng, true,
                         gc);
    return p;
}
}  // namespace

// The A, B, L MSMs beside the H query's (GpuProverConfig::overlap_query_msms: their own thread, stream and
// scratch) are the default, which every other test here proves with; this one proves with them after H's MSM in
// its scratch (overlap_query_msms off): byte-identical to the CPU on PoRep partitions (ones as bitmaps, tails
// reused, the next circuit's split started beside H's MSM) and on a batch of dense mul chains. (Whether the MSMs
// did overlap is not asserted: that is timing; the C2 bench's timeline shows it.)
TEST(GpuGroth16, QueryMsmsAfterHProveTheSame) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    uint64_t seed = 0;
    auto rng = fresh_rng(seed);
    SCOPED_TRACE(seed);
    gpu::GpuProverConfig gc;
    EXPECT_TRUE(gc.overlap_query_msms) << "the default";
    gc.overlap_query_msms = false;
    check_partitions_and_chains(rng, gc);
}

// The A, B_G1, L and B_G2 MSMs on streams of the device's highest priority (GpuProverConfig::query_msm_priority):
// the same proofs, byte-identical to the CPU's on PoRep partitions and a batch of dense mul chains.
TEST(GpuGroth16, QueryMsmPriorityProvesTheSame) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    uint64_t seed = 0;
    auto rng = fresh_rng(seed);
    SCOPED_TRACE(seed);
    gpu::GpuProverConfig gc;
    EXPECT_FALSE(gc.query_msm_priority) << "the default";
    gc.query_msm_priority = true;
    check_partitions_and_chains(rng, gc);
}

// Lean H slots in the prover (GpuProverConfig::lean_h): a proof that was not prefetched takes a lean slot (the next
// ones of a batch are prefetched into full slots), its products made on the CPU even where the device holds the
// compiled matrices; every proof byte-identical to the CPU's, the mul chains verified.
TEST(GpuGroth16, LeanHSlotsProveTheSame) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    uint64_t seed = 0;
    auto rng = fresh_rng(seed);
    SCOPED_TRACE(seed);
    gpu::GpuProverConfig gc;
    gc.lean_h = true;
    const auto p = check_partitions_and_chains(rng, gc);
    const auto pce = r1cs::compile_r1cs(circuits::MulChainCircuit(12, 3, std::nullopt));
    gpu::GpuProver prover(p, gc);
    const auto hold = prover.hold_products(pce);
    ASSERT_NE(hold, nullptr);
    prover.await_products(pce);
    const circuits::MulChainCircuit c1(12, 3, rng());
    std::vector<Fr> r{Fr::random(rng)}, s{Fr::random(rng)};
    std::vector<r1cs::ProvingAssignment> full, deferred;
    full.push_back(synthesize(c1));
    deferred.push_back(r1cs::witness_assignment(pce, c1, ThreadPool::global()));
    TimingSink sink;
    EXPECT_TRUE(prover.prove_from_assignments(deferred, r, s, &sink) == groth16::prove_from_assignments(p, full, r, s));
    EXPECT_GT(sink.total(TimingLayer::Prover, "products"), 0.0) << "a lean slot takes a, b, c made on the CPU";
    EXPECT_EQ(sink.total(TimingLayer::Kernel, "h.products"), 0.0);
}

namespace {
// Engine jobs of mulchain 2^12 partitions: parameters, witnesses and r, s from one fresh seed (traced on failure).
struct ChainJobs {
    uint64_t seed = 0;
    std::mt19937_64 rng = fresh_rng(seed);
    uint64_t witness0 = rng(), randomness = rng();
    groth16::Parameters params = groth16::generate_parameters(circuits::MulChainCircuit(12, 2, std::nullopt),
                                                              groth16::ToxicWaste::from_seed(rng()));
    // Every proof verified by the engine; the caller sets the backend(s).
    engine::JobSpec spec(size_t partitions) const {
        engine::JobSpec s;
        s.name = "mulchain";
        s.partitions = partitions;
        s.verify_key = &params.vk;
        s.randomness_seed = randomness;
        s.synthesize = [w = witness0](size_t i) { return synthesize(circuits::MulChainCircuit(12, 2, w + i)); };
        return s;
    }
};
}  // namespace

namespace {
// Five-partition jobs of `jobs` on `gpu` and on `cpu` through one engine of two synthesis workers and a lookahead of
// two (the GPU backend's prepare in play): both done, none proven again on a fallback, equal proofs. With `pce` the
// partitions are witnesses of its compiled matrices (JobSpec::pce), their products made on the device. Returns the
// GPU job's result.
engine::JobResult expect_engine_jobs_agree(const ChainJobs& jobs, groth16::ProverBackend& gpu,
                                           groth16::ProverBackend& cpu, const r1cs::PrecompiledR1cs* pce = nullptr) {
    engine::EngineConfig cfg;
    cfg.synthesis_workers = 2;
    cfg.lookahead = 2;
    cfg.device_products = pce != nullptr;
    engine::Engine eng(cfg);
    auto job = [&](groth16::ProverBackend& b) {
        engine::JobSpec spec = jobs.spec(5);
        if (pce) {
            spec.pce = pce;
            spec.synthesize = [pce, w = jobs.witness0](size_t i) {
                return r1cs::witness_assignment(*pce, circuits::MulChainCircuit(12, 2, w + i), ThreadPool::global());
            };
        }
        spec.backend = &b;
        return eng.await(eng.submit(spec));
    };
    auto got = job(gpu);
    const auto want = job(cpu);
    EXPECT_EQ(got.state, engine::JobState::Done) << got.error;
    EXPECT_EQ(want.state, engine::JobState::Done) << want.error;
    EXPECT_TRUE(got.fallbacks.empty());
    EXPECT_TRUE(got.proofs == want.proofs);
    if (pce) {
        EXPECT_GT(got.timeline->total(TimingLayer::Kernel, "h.products"), 0.0);
        EXPECT_EQ(got.timeline->total(TimingLayer::Prover, "products"), 0.0) << "products made on the CPU";
    }
    return got;
}
}  // namespace

// The engine pipelines partitions on the GPU backend (prepare: partition i + 1's a, b, c upload while partition i
// is proven): the proofs equal the CPU engine's for the same randomness, each verified by the engine.
TEST(GpuGroth16, EnginePipelineEqualsCpu) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    const ChainJobs jobs;
    SCOPED_TRACE(jobs.seed);
    const auto& p = jobs.params;
    gpu::GpuBackend gpu_backend(p);
    groth16::CpuBackend cpu_backend(p);
    // Before a proof the backend's working memory is the splits' bound plus its staging; after, what the largest
    // split took (plus an eighth), which is less.
    const size_t bound = gpu_backend.working_bytes();
    EXPECT_GE(bound, (p.a.size() + p.b_g1.size() + p.l.size()) * 36);
    const auto got = expect_engine_jobs_agree(jobs, gpu_backend, cpu_backend);
    // Partitions 1..4 went through prepare: their uploads are on the timeline.
    EXPECT_GT(got.timeline->total(TimingLayer::Prover, "h.prefetch"), 0.0);
    EXPECT_GT(gpu_backend.working_bytes(), 0u);
    EXPECT_LT(gpu_backend.working_bytes(), bound);
}

// The engine proving a job's partitions into groups on the GPU backend (JobSpec::defer_ones; mul chains: dense
// witnesses, so nothing is deferred but the groups' path is taken): the proofs equal the CPU engine's, each verified.
TEST(GpuGroth16, EngineGroupsEqualCpu) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    const ChainJobs jobs;
    SCOPED_TRACE(jobs.seed);
    gpu::GpuBackend gpu_backend(jobs.params);
    groth16::CpuBackend cpu_backend(jobs.params);
    engine::Engine eng;
    engine::JobSpec spec = jobs.spec(5);
    spec.defer_ones = true;
    spec.backend = &gpu_backend;
    const auto got = eng.await(eng.submit(spec));
    spec.backend = &cpu_backend;
    const auto want = eng.await(eng.submit(spec));
    ASSERT_EQ(got.state, engine::JobState::Done) << got.error;
    ASSERT_EQ(want.state, engine::JobState::Done) << want.error;
    EXPECT_TRUE(got.fallbacks.empty());
    EXPECT_TRUE(got.proofs == want.proofs);
    EXPECT_GT(got.timeline->total(TimingLayer::Prover, "finish_group"), 0.0);
}

// A device with room for one set of H's arrays (GpuProverConfig::h_slots = 1 stands in for a 16-24 GB card): every
// circuit of a batch and every partition of an engine job is proven in that one slot, none fails over to the CPU for
// want of a second (a batch's second circuit, or a partition proven while another was prepared, once claimed the
// other slot and asked the device for it), prepare() gives no ticket, and the proofs equal the CPU's.
TEST(GpuGroth16, OneHSlotProvesEveryCircuitInIt) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    const ChainJobs jobs;
    SCOPED_TRACE(jobs.seed);
    std::mt19937_64 rng(jobs.seed + 1);
    gpu::GpuProverConfig gc;
    gc.h_slots = 1;
    circuits::MulChainCircuit c1(12, 2, rng()), c2(12, 2, rng()), c3(12, 2, rng());
    check_backends_agree(jobs.params, {&c1, &c2, &c3},
                         {c1.public_values(), c2.public_values(), c3.public_values()}, rng, true, gc);
    gpu::GpuBackend gpu_backend(jobs.params, gc);
    groth16::CpuBackend cpu_backend(jobs.params);
    const auto got = expect_engine_jobs_agree(jobs, gpu_backend, cpu_backend);
    EXPECT_EQ(got.timeline->total(TimingLayer::Prover, "h.prefetch"), 0.0) << "nothing was prepared";
    auto asg = synthesize(circuits::MulChainCircuit(12, 2, rng()));
    EXPECT_EQ(gpu_backend.prepare(asg, nullptr, 0), nullptr);
    EXPECT_FALSE(asg.a().empty()) << "a, b, c untouched without a ticket";
    gc.h_slots = 3;
    EXPECT_THROW(gpu::GpuProver(jobs.params, gc), std::invalid_argument);
}

// No leak in a long-lived prover (an sppark release once leaked GPU memory until C2 and WindowPoSt died,
// lotus#13634): 200 two-partition jobs through one engine on the GPU backend, every proof verified and every job
// forgotten, leave the device's free memory after job 200 equal to that after job 1 (the backend's scratch reaches
// its size in the first job).
TEST(GpuGroth16, TwoHundredJobsKeepDeviceMemory) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    const ChainJobs jobs;
    SCOPED_TRACE(jobs.seed);
    gpu::GpuBackend gpu_backend(jobs.params);
    engine::Engine eng;
    auto free_bytes = [] {
        size_t free_b = 0, total_b = 0;
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        EXPECT_EQ(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
        return free_b;
    };
    size_t after_1 = 0;
    for (int k = 1; k <= 200; k++) {
        engine::JobSpec spec = jobs.spec(2);
        spec.backend = &gpu_backend;
        const engine::JobId id = eng.submit(std::move(spec));
        const engine::JobResult res = eng.await(id);
        ASSERT_EQ(res.state, engine::JobState::Done) << "job " << k << ": " << res.error;
        ASSERT_TRUE(res.fallbacks.empty()) << "job " << k << ": " << res.fallbacks[0];
        ASSERT_TRUE(eng.forget(id));
        if (k == 1) after_1 = free_bytes();
    }
    const size_t after_200 = free_bytes();
    std::printf("device free memory after job 1: %zu bytes, after job 200: %zu bytes\n", after_1, after_200);
    EXPECT_EQ(after_200, after_1);
}

namespace {
// A backend that counts the partitions another one proves (prepared ones included).
struct CountingBackend : groth16::ProverBackend {
    groth16::ProverBackend& inner;
    std::atomic<int> proofs{0};
    explicit CountingBackend(groth16::ProverBackend& b) : inner(b) {}
    std::vector<groth16::Proof> prove(std::span<r1cs::ProvingAssignment> a, std::span<const Fr> r,
                                      std::span<const Fr> s, TimingSink* t) override {
        proofs += (int)a.size();
        return inner.prove(a, r, s, t);
    }
    std::unique_ptr<groth16::PreparedCircuit> prepare(r1cs::ProvingAssignment& asg, TimingSink* t,
                                                      int64_t item) override {
        return inner.prepare(asg, t, item);
    }
    groth16::Proof prove_prepared(std::unique_ptr<groth16::PreparedCircuit> ticket, r1cs::ProvingAssignment& asg,
                                  const Fr& r, const Fr& s, TimingSink* t, int64_t item) override {
        proofs++;
        return inner.prove_prepared(std::move(ticket), asg, r, s, t, item);
    }
    std::string name() const override { return inner.name(); }
};
}  // namespace

// Backends on chosen devices (the daemon's [engine] gpus): one per ordinal, on that device, in the order given; an
// ordinal with no device is refused, naming it (also without any device: no GPU is needed for this).
TEST(GpuGroth16, BackendsOnChosenDevices) {
    const auto p = groth16::generate_parameters(circuits::MulChainCircuit(4, 2, std::nullopt),
                                                groth16::ToxicWaste::from_seed(3));
    const size_t n = gpu::devices().size();
    const std::vector<size_t> missing = {n};
    try {
        (void)gpu::gpu_backends(p, std::span<const size_t>(missing));
        ADD_FAILURE() << "device " << n << " accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("no CUDA device " + std::to_string(n)), std::string::npos) << e.what();
    }
    if (n == 0) GTEST_SKIP() << "no CUDA device for the rest";
    const std::vector<size_t> last = {n - 1};
    const auto one = gpu::gpu_backends(p, std::span<const size_t>(last));
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0]->lane(), gpu::gpu_backends(p, n - 1).at(0)->lane());
}

// On a host with several GPUs, one job's partitions spread over all of them (gpu::gpu_backends, one proving worker
// each, as the daemon and `cuzk bench pipeline` run them): every GPU proves some, and the proofs equal the CPU
// engine's, in partition order.
TEST(GpuGroth16, EngineSpreadsPartitionsOverEveryGpu) {
    if (gpu::devices().size() < 2) GTEST_SKIP() << "needs two CUDA devices";
    const ChainJobs jobs;
    SCOPED_TRACE(jobs.seed);
    const auto& p = jobs.params;
    auto gpus = gpu::gpu_backends(p);
    ASSERT_EQ(gpus.size(), gpu::devices().size());
    std::vector<std::unique_ptr<CountingBackend>> counting;
    std::vector<groth16::ProverBackend*> backends;
    for (auto& g : gpus) {
        counting.push_back(std::make_unique<CountingBackend>(*g));
        backends.push_back(counting.back().get());
    }
    groth16::CpuBackend cpu_backend(p);
    engine::EngineConfig cfg;
    cfg.synthesis_workers = 4;
    cfg.lookahead = 4;
    engine::Engine eng(cfg);
    auto job = [&](groth16::ProverBackend* one, std::vector<groth16::ProverBackend*> several) {
        engine::JobSpec spec = jobs.spec(4 * backends.size());
        spec.backend = one;
        spec.backends = std::move(several);
        return eng.await(eng.submit(spec));
    };
    const auto got = job(nullptr, backends), want = job(&cpu_backend, {});
    ASSERT_EQ(got.state, engine::JobState::Done) << got.error;
    ASSERT_EQ(want.state, engine::JobState::Done) << want.error;
    EXPECT_TRUE(got.fallbacks.empty());
    EXPECT_TRUE(got.proofs == want.proofs) << "same proofs, partition order";
    int total = 0;
    for (size_t d = 0; d < counting.size(); d++) {
        EXPECT_GT(counting[d]->proofs.load(), 0) << "GPU " << d << " proved nothing";
        total += counting[d]->proofs.load();
    }
    EXPECT_EQ(total, (int)(4 * backends.size()));
}

namespace {
// A GPU backend that faults from its `ok`-th proof on (a lost device), in a lane of its own as another GPU's is;
// every proof takes at least 20 ms (so that both lanes of a job take partitions).
struct FlakyGpu : groth16::ProverBackend {
    groth16::ProverBackend& inner;
    const int ok;
    const std::string label;
    std::atomic<int> calls{0}, proofs{0};
    FlakyGpu(groth16::ProverBackend& b, int ok, std::string label) : inner(b), ok(ok), label(std::move(label)) {}
    void enter() {
        if (calls++ >= ok) throw gpu::CudaError("simulated device fault: the device was lost");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::vector<groth16::Proof> prove(std::span<r1cs::ProvingAssignment> a, std::span<const Fr> r,
                                      std::span<const Fr> s, TimingSink* t) override {
        enter();
        auto out = inner.prove(a, r, s, t);
        proofs += (int)a.size();
        return out;
    }
    std::unique_ptr<groth16::PreparedCircuit> prepare(r1cs::ProvingAssignment& asg, TimingSink* t,
                                                      int64_t item) override {
        return inner.prepare(asg, t, item);
    }
    groth16::Proof prove_prepared(std::unique_ptr<groth16::PreparedCircuit> ticket, r1cs::ProvingAssignment& asg,
                                  const Fr& r, const Fr& s, TimingSink* t, int64_t item) override {
        enter();
        auto out = inner.prove_prepared(std::move(ticket), asg, r, s, t, item);
        proofs++;
        return out;
    }
    std::string name() const override { return label; }
    std::string lane() const override { return "cuda:" + label; }
};
}  // namespace

// A GPU that faults in the middle of a job loses no proof: it leaves the job and the other GPU proves its
// partitions (a partition it had prepared is synthesized again: its a, b, c went to the lost device); the proofs
// equal the CPU engine's, each verified, and the CPU fallback is not used. One device stands for two: two GPU
// backends on it in lanes of their own, the fault injected into one.
TEST(GpuGroth16, AGpuThatFaultsMidJobLosesNoProof) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    const ChainJobs jobs;
    SCOPED_TRACE(jobs.seed);
    const auto& p = jobs.params;
    gpu::GpuBackend first(p), second(p);
    FlakyGpu good(first, 1000, "gpu-a"), dying(second, 1, "gpu-b");
    groth16::CpuBackend cpu_backend(p);
    engine::EngineConfig cfg;
    cfg.synthesis_workers = 3;
    cfg.lookahead = 3;
    engine::Engine eng(cfg);
    engine::JobSpec direct = jobs.spec(8);
    direct.backend = &cpu_backend;
    const auto want = eng.await(eng.submit(direct));
    ASSERT_EQ(want.state, engine::JobState::Done) << want.error;
    FlakyGpu cpu_fallback(cpu_backend, 1000, "cpu-fallback");
    engine::JobSpec spec = jobs.spec(8);
    spec.backends = {&good, &dying};
    spec.fallback = &cpu_fallback;
    const auto got = eng.await(eng.submit(spec));
    ASSERT_EQ(got.state, engine::JobState::Done) << got.error;
    EXPECT_TRUE(got.proofs == want.proofs) << "same proofs, partition order";
    ASSERT_GE(dying.calls.load(), 2) << "the dying GPU took a partition after its first";
    EXPECT_EQ(dying.calls.load(), 2) << "it failed once and took nothing more";
    EXPECT_EQ(dying.proofs.load(), 1);
    EXPECT_EQ(good.proofs + dying.proofs, 8);
    EXPECT_EQ(cpu_fallback.calls.load(), 0) << "another GPU was left: the CPU fallback is not used";
    ASSERT_EQ(got.fallbacks.size(), 1u);
    EXPECT_NE(got.fallbacks[0].find("the device was lost"), std::string::npos) << got.fallbacks[0];
    EXPECT_NE(got.fallbacks[0].find("gpu-b backend left the job"), std::string::npos) << got.fallbacks[0];
    // The GPU that stayed proves a next job as before.
    engine::JobSpec after = jobs.spec(2);
    after.backend = &first;
    const auto again = eng.await(eng.submit(after));
    ASSERT_EQ(again.state, engine::JobState::Done) << again.error;
    EXPECT_TRUE(again.proofs[0] == want.proofs[0] && again.proofs[1] == want.proofs[1]);
}

// Parameters page-locked in host memory (GpuProverConfig::pin_host_params): the upload reads them by DMA, a second
// prover over the same parameters finds them locked already and leaves them to the first, and both prove what the
// CPU proves, also once the first is gone.
TEST(GpuGroth16, PinnedParametersProveTheSame) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    uint64_t seed = 0;
    auto rng = fresh_rng(seed);
    SCOPED_TRACE(seed);
    // 2^14: every query array is over the 1 MiB below which nothing is locked.
    const auto p = groth16::generate_parameters(circuits::MulChainCircuit(14, 2, std::nullopt),
                                                groth16::ToxicWaste::from_seed(rng()));
    ASSERT_GE(p.b_g1.size() * sizeof(G1Affine), size_t{1} << 20);
    circuits::MulChainCircuit c(14, 2, rng());
    auto proofs_on = [&](gpu::GpuProver& prover) { expect_cpu_proof(prover, p, c, rng); };
    gpu::GpuProverConfig gc;
    gc.pin_host_params = true;
    auto first = std::make_unique<gpu::GpuProver>(p, gc);
    gpu::GpuProver second(p, gc);
    proofs_on(*first);
    proofs_on(second);
    first.reset();
    proofs_on(second);
}

// Issue 19 item 6: a parameter file decoded straight into the pinned staging buffers on its way to the device
// (formats::ParamsFileSource) makes the same prover as the parameters read into host memory: byte-identical proofs,
// the CPU's. Its points are checked on the device in place; a point outside its subgroup is found in its query and
// reported as the host reader reports it; a point off the curve stops the upload with the reader's error.
TEST(GpuGroth16, AFileStreamedOntoTheDeviceProvesTheSame) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    uint64_t seed = 0;
    auto rng = fresh_rng(seed);
    SCOPED_TRACE(seed);
    // 2^17: the queries span several 64 MiB staging chunks (H: 2^17 G1 points are 12.6 MB; more than one with the
    // other queries' chunks, and the copy threads split each chunk).
    const auto p = groth16::generate_parameters(circuits::MulChainCircuit(17, 1, std::nullopt),
                                                groth16::ToxicWaste::from_seed(rng()));
    const auto dir = std::filesystem::temp_directory_path() / ("cuzk-stream-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto file = dir / "chain.params";
    formats::write_parameters(file, p);
    circuits::MulChainCircuit c(17, 1, rng());
    {
        const formats::ParamsFileSource src(file);
        gpu::GpuProver streamed(src);
        EXPECT_EQ(streamed.query_outside_subgroup(), std::nullopt);
        src.verify_unchanged();
        gpu::GpuProver from_host(p);
        EXPECT_EQ(streamed.resident_bytes(), from_host.resident_bytes());
        const auto proof = expect_cpu_proof(streamed, p, c, rng);
        EXPECT_TRUE(groth16::verify_proof(groth16::prepare_verifying_key(p.vk), proof, c.public_values()));
        gpu::GpuProverConfig pinned;
        pinned.pin_host_params = true;
        EXPECT_THROW(gpu::GpuProver(src, pinned), std::invalid_argument) << "nothing in host memory to pin";
    }
    auto bytes = formats::parameters_to_bytes(p);
    auto put = [&](std::string_view section, size_t i, std::span<const uint8_t> enc) {
        const auto& sec = formats::parse_parameters_layout(bytes, "x").section(section);
        std::copy(enc.begin(), enc.end(), bytes.begin() + (std::ptrdiff_t)(sec.offset + i * sec.point_bytes()));
    };
    auto write = [&] {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(bytes.data()), (std::streamsize)bytes.size());
    };
    auto reader_error = [&] {
        try {
            (void)formats::read_parameters(file);
        } catch (const formats::FormatError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    // A point of a's plus (0, 2), of order 3: on the curve, outside G1.
    const size_t i = rng() % p.a.size();
    const G1Affine order3 = G1Affine::from_xy(Fq::zero(), Fq::from_u64(2));
    put("a", i, g1_to_uncompressed((p.a[i].to_jacobian() + order3.to_jacobian()).to_affine()));
    write();
    {
        const formats::ParamsFileSource src(file);
        gpu::GpuProver streamed(src);
        const auto q = streamed.query_outside_subgroup();
        ASSERT_TRUE(q.has_value());
        EXPECT_EQ(*q, "a");
        try {
            src.throw_not_in_subgroup(*q);
        } catch (const formats::FormatError& e) {
            EXPECT_EQ(std::string(e.what()), reader_error());
            EXPECT_EQ(e.index(), i);
        }
    }
    // Off the curve in h: the upload stops with the reader's report, and the device memory goes back.
    bytes = formats::parameters_to_bytes(p);
    const size_t j = rng() % p.h.size();
    auto enc = g1_to_uncompressed(p.h[j]);
    enc[95] ^= 1;
    put("h", j, enc);
    write();
    const size_t free_before = gpu::free_device_memory();
    try {
        const formats::ParamsFileSource src(file);
        gpu::GpuProver streamed(src);
        ADD_FAILURE() << "a point off the curve went up";
    } catch (const formats::FormatError& e) {
        EXPECT_EQ(std::string(e.what()), reader_error());
        EXPECT_EQ(e.section(), "h");
        EXPECT_EQ(e.index(), j);
    }
    EXPECT_GE(gpu::free_device_memory() + (size_t{64} << 20), free_before) << "the failed upload freed its memory";
    std::filesystem::remove_all(dir);
}

// The queries kept in host memory and streamed to the device chunk by chunk at every MSM
// (GpuProverConfig::stream_queries, a GPU smaller than its key): proofs byte-identical to the CPU's with chunks of
// 64 bases (every MSM in many chunks), of 4096 and the default; three 2 KiB PoRep partitions in one batch (bitmap
// ones, tails cut per chunk); a file's points decoded straight into the host copy, checked on the device chunk by
// chunk, a point outside its subgroup found in its query. The device holds only the chunk buffers.
TEST(GpuGroth16, StreamedQueriesProveTheSame) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    uint64_t seed = 0;
    auto rng = fresh_rng(seed);
    SCOPED_TRACE(seed);
    const auto p = groth16::generate_parameters(circuits::MulChainCircuit(12, 2, std::nullopt),
                                                groth16::ToxicWaste::from_seed(rng()));
    circuits::MulChainCircuit c(12, 2, rng());
    const size_t plain = gpu::GpuProver(p).resident_bytes();
    for (size_t chunk : {size_t{64}, size_t{4096}, size_t{0}}) {
        SCOPED_TRACE(::testing::Message() << "chunk " << chunk);
        gpu::GpuProverConfig gc;
        gc.stream_queries = true;
        gc.stream_chunk_points = chunk;
        gpu::GpuProver prover(p, gc);
        EXPECT_GT(prover.streamed_host_bytes(), plain / 2) << "the queries' host copy";
        if (chunk == 64) {
            EXPECT_EQ(prover.resident_bytes(), 4 * 2 * 64 * 96 + 2 * 64 * 192) << "two buffers a query";
        }
        EXPECT_EQ(gpu::streamed_query_device_bytes(groth16::KeyShape::of(p), gc), prover.resident_bytes())
            << "the key store's estimate of a streamed copy";
        EXPECT_EQ(prover.query_outside_subgroup(), std::nullopt);
        for (int k = 0; k < 2; k++) {  // the second proof starts from the chunks the first left on the device
            const groth16::Proof got = expect_cpu_proof(prover, p, c, rng);
            EXPECT_TRUE(groth16::verify_proof(groth16::prepare_verifying_key(p.vk), got, c.public_values()));
        }
    }

    // One host copy for the provers of several GPUs (gpu_backends makes one for all): two provers over one key.
    {
        auto key = std::make_shared<const gpu::StreamedKey>(groth16::ParametersSource(p));
        EXPECT_EQ(key->shape(), groth16::KeyShape::of(p));
        gpu::GpuProverConfig small;
        small.stream_chunk_points = 512;
        gpu::GpuProver first(key, small), second(key);
        EXPECT_EQ(first.streamed_key(), key.get());
        EXPECT_EQ(second.streamed_key(), key.get());
        EXPECT_EQ(first.streamed_host_bytes(), key->host_bytes());
        expect_cpu_proof(first, p, c, rng);
        expect_cpu_proof(second, p, c, rng);
        gpu::GpuProverConfig streamed;
        streamed.stream_queries = true;
        const auto backends = gpu::gpu_backends(p, 0, streamed);
        ASSERT_FALSE(backends.empty());
        for (const auto& b : backends) {
            EXPECT_NE(b->streamed_key(), nullptr);
            EXPECT_EQ(b->streamed_key(), backends[0]->streamed_key()) << "one host copy for every GPU";
        }
        EXPECT_THROW(gpu::GpuProver(std::shared_ptr<const gpu::StreamedKey>()), std::invalid_argument);
        gpu::GpuProverConfig pinned;
        pinned.pin_host_params = true;
        EXPECT_THROW(gpu::GpuProver(key, pinned), std::invalid_argument);
    }

    gpu::GpuProverConfig gc;
    gc.stream_queries = true;
    gc.stream_chunk_points = 1 << 18;
    check_porep_partitions(rng, gc);

    const auto dir = std::filesystem::temp_directory_path() / ("cuzk-streamq-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto file = dir / "chain.params";
    auto bytes = formats::parameters_to_bytes(p);
    gc.stream_chunk_points = 256;
    for (bool bad : {false, true}) {
        const size_t i = rng() % p.l.size();
        if (bad) {  // a point of l's plus (0, 2), of order 3: on the curve, outside G1
            const G1Affine order3 = G1Affine::from_xy(Fq::zero(), Fq::from_u64(2));
            const auto enc = g1_to_uncompressed((p.l[i].to_jacobian() + order3.to_jacobian()).to_affine());
            const auto& sec = formats::parse_parameters_layout(bytes, "x").section("l");
            std::copy(enc.begin(), enc.end(), bytes.begin() + (std::ptrdiff_t)(sec.offset + i * sec.point_bytes()));
        }
        {
            std::ofstream out(file, std::ios::binary | std::ios::trunc);
            out.write(reinterpret_cast<const char*>(bytes.data()), (std::streamsize)bytes.size());
        }
        const formats::ParamsFileSource src(file);
        gpu::GpuProver prover(src, gc);
        if (!bad) {
            EXPECT_EQ(prover.query_outside_subgroup(), std::nullopt);
            expect_cpu_proof(prover, p, c, rng);
        } else {
            EXPECT_EQ(prover.query_outside_subgroup(), std::optional<std::string>("l")) << "point " << i;
        }
    }
    std::filesystem::remove_all(dir);
}

// Precomputed window tables for the G1 queries (GpuProverConfig::msm_table_bytes): with room for all four and with
// room for none, the prover's proofs are the CPU's (and verify), and the tables are counted in resident_bytes().
TEST(GpuGroth16, MsmTablesProveTheSame) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    uint64_t seed = 0;
    auto rng = fresh_rng(seed);
    SCOPED_TRACE(seed);
    const auto p = groth16::generate_parameters(circuits::MulChainCircuit(12, 2, std::nullopt),
                                                groth16::ToxicWaste::from_seed(rng()));
    circuits::MulChainCircuit c(12, 2, rng());
    const size_t plain = gpu::GpuProver(p).resident_bytes();
    // 2^12 bases per query at most: a table of W <= 128 windows is under 2^12 * 128 * 96 bytes = 48 MiB each.
    for (size_t budget : {size_t{1} << 30, size_t{1}}) {
        SCOPED_TRACE(budget);
        gpu::GpuProverConfig gc;
        gc.msm_table_bytes = budget;
        gpu::GpuProver prover(p, gc);
        const groth16::Proof got = expect_cpu_proof(prover, p, c, rng);
        EXPECT_TRUE(groth16::verify_proof(groth16::prepare_verifying_key(p.vk), got, c.public_values()));
        if (budget == 1) EXPECT_EQ(prover.resident_bytes(), plain) << "no table fits in one byte";
        else EXPECT_GT(prover.resident_bytes(), 8 * plain) << "four tables of W >= 16 windows each";
    }
}

namespace {
// Deferred assignments (r1cs::witness_assignment) of `circuits` proven by a GPU prover that holds their matrices
// (the products made on the device; in a batch, so both H slots take a witness) against the CPU seam's proofs of
// their full assignments with the same r, s: byte-identical; the kernel timeline shows the products, and no H slot
// is made during the proofs (the hold made both ahead).
// The GPU's proofs' spans go to *spans when given.
void check_device_products(const groth16::Parameters& p, const r1cs::PrecompiledR1cs& pce,
                           const std::vector<const r1cs::Circuit*>& circuits, std::mt19937_64& rng,
                           const gpu::GpuProverConfig& gc = {}, TimingSink* spans = nullptr) {
    std::vector<r1cs::ProvingAssignment> cpu_asg, gpu_asg;
    std::vector<Fr> r, s;
    for (const auto* c : circuits) {
        cpu_asg.push_back(synthesize(*c));
        gpu_asg.push_back(r1cs::witness_assignment(pce, *c, ThreadPool::global()));
        r.push_back(Fr::random(rng));
        s.push_back(Fr::random(rng));
    }
    const auto want = groth16::prove_from_assignments(p, cpu_asg, r, s);
    gpu::GpuProver prover(p, gc);
    TimingSink own;
    TimingSink& sink = spans ? *spans : own;
    const auto hold = prover.hold_products(pce);
    ASSERT_NE(hold, nullptr) << "the matrices did not fit on the device";
    EXPECT_EQ(prover.hold_products(pce), hold) << "a second hold shares the first copy";
    prover.await_products(pce);  // the copy done (what bench porep-c2 waits for before its job)
    const auto got = prover.prove_from_assignments(gpu_asg, r, s, &sink);
    EXPECT_GT(sink.total(TimingLayer::Kernel, "h.products"), 0.0) << "the products were not made on the device";
    EXPECT_EQ(sink.total(TimingLayer::Prover, "products"), 0.0) << "the products were made on the CPU";
    EXPECT_EQ(sink.total(TimingLayer::Prover, "h.slot"), 0.0)
        << "the H slots were not made ahead, when the matrices were held";
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); i++)
        EXPECT_TRUE(got[i] == want[i]) << "circuit " << i << ": the GPU proof differs from the CPU proof";
}

// check_device_products on three partitions of Filecoin's 2 KiB PoRep circuit (a fresh witness seed).
void check_porep_2k_device_products(std::mt19937_64& rng, const gpu::GpuProverConfig& gc = {},
                                    TimingSink* spans = nullptr) {
    circuits::CircuitSpec spec;
    spec.name = "porep-2k";
    spec.witness_seed = rng();
    std::vector<std::unique_ptr<r1cs::Circuit>> owned;
    std::vector<const r1cs::Circuit*> parts;
    for (size_t i = 0; i < 3; i++) {
        owned.push_back(circuits::make_circuit(spec, true, i, nullptr));
        parts.push_back(owned.back().get());
    }
    const auto pce = r1cs::compile_r1cs(*parts[0]);
    const auto p = groth16::benchmark_parameters(synthesize(*parts[0]), rng());
    check_device_products(p, pce, parts, rng, gc, spans);
}
}  // namespace

// The sparse products on the GPU (backends/cuda/products_gpu.hpp): a dense witness (mul chains whose rows fill the
// domain or leave most of it as padding), a zero/one witness with packing coefficients, rows of many lengths
// (RowLengths: rows a thread sums and rows its warp sums), and three partitions of Filecoin's 2 KiB PoRep circuit:
// proofs byte-identical to the CPU's. Without a hold the prover completes a deferred assignment on the CPU (same
// proof); a witness that breaks a row is refused with SynthesisError.
TEST(GpuGroth16, DeviceSparseProductsProveAsTheCpu) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    uint64_t seed = 0;
    auto rng = fresh_rng(seed);
    SCOPED_TRACE(seed);
    for (unsigned k : {5u, 12u}) {
        SCOPED_TRACE(::testing::Message() << "mul chain 2^" << k);
        const auto p = groth16::generate_parameters(circuits::MulChainCircuit(k, 3, std::nullopt),
                                                    groth16::ToxicWaste::from_seed(rng()));
        const auto pce = r1cs::compile_r1cs(circuits::MulChainCircuit(k, 3, std::nullopt));
        circuits::MulChainCircuit c1(k, 3, rng()), c2(k, 3, rng()), c3(k, 3, rng());
        check_device_products(p, pce, {&c1, &c2, &c3}, rng);
    }
    {
        const auto p = groth16::generate_parameters(Bits(std::vector<uint64_t>(40, 0)), groth16::ToxicWaste::from_seed(5));
        const auto pce = r1cs::compile_r1cs(Bits(std::vector<uint64_t>(40, 0)));
        std::vector<uint64_t> w1(40), w2(40, ~0ull);
        for (auto& x : w1) x = rng() & rng();
        Bits b1(w1), b2(w2);
        check_device_products(p, pce, {&b1, &b2}, rng);
    }
    {
        const auto p = groth16::generate_parameters(RowLengths(0), groth16::ToxicWaste::from_seed(rng()));
        const auto pce = r1cs::compile_r1cs(RowLengths(0));
        RowLengths l1(rng()), l2(rng());
        check_device_products(p, pce, {&l1, &l2}, rng);
    }
    check_porep_2k_device_products(rng);
    const auto p = groth16::generate_parameters(circuits::MulChainCircuit(8, 2, std::nullopt),
                                                groth16::ToxicWaste::from_seed(rng()));
    const auto pce = r1cs::compile_r1cs(circuits::MulChainCircuit(8, 2, std::nullopt));
    circuits::MulChainCircuit c(8, 2, rng());
    gpu::GpuProver prover(p);
    std::vector<Fr> r{Fr::random(rng)}, s{Fr::random(rng)};
    std::vector<r1cs::ProvingAssignment> full, deferred;
    full.push_back(synthesize(c));
    deferred.push_back(r1cs::witness_assignment(pce, c, ThreadPool::global()));
    TimingSink sink;
    const auto want = groth16::prove_from_assignments(p, full, r, s);
    EXPECT_TRUE(prover.prove_from_assignments(deferred, r, s, &sink) == want) << "completed on the CPU, no hold";
    EXPECT_GT(sink.total(TimingLayer::Prover, "products"), 0.0);
    const auto hold = prover.hold_products(pce);
    ASSERT_NE(hold, nullptr);
    auto w = r1cs::witness_assignment(pce, c, ThreadPool::global());
    r1cs::AuxValues aux = w.aux();
    aux[aux.size() / 2] += Fr::one();
    deferred.clear();
    deferred.push_back(r1cs::ProvingAssignment::deferred(w.inputs(), aux, pce, w.a_aux_density(),
                                                         w.b_input_density(), w.b_aux_density()));
    EXPECT_THROW((void)prover.prove_from_assignments(deferred, r, s), r1cs::SynthesisError);
    deferred.clear();
    deferred.push_back(r1cs::witness_assignment(pce, c, ThreadPool::global()));
    EXPECT_TRUE(prover.prove_from_assignments(deferred, r, s) == want) << "the prover works after a refused witness";
}

// The witness form's prefetch in two halves (HComputer::prefetch_witness / prefetch_products: the shared slot of a
// one-slot device takes the next witness while the running proof's H query's MSM still reads H's array): the
// witness half leaves the H in the arrays as it was, the products half and run_prefetched then give the CPU's H of
// the new witness; products without a witness, or after a run replaced it, are a logic error.
TEST(GpuGroth16, WitnessPrefetchInTwoHalves) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    uint64_t seed = 0;
    auto rng = fresh_rng(seed);
    SCOPED_TRACE(seed);
    const auto pce = r1cs::compile_r1cs(circuits::MulChainCircuit(12, 2, std::nullopt));
    const circuits::MulChainCircuit before(12, 2, rng()), next(12, 2, rng());
    const EvaluationDomain domain = EvaluationDomain::for_size(pce.num_constraints);
    const unsigned k = domain.log_size();
    auto cpu_h = [&](const circuits::MulChainCircuit& c) {
        auto full = synthesize(c);
        return groth16::compute_h(domain, full.a(), full.b(), full.c());
    };
    const auto want_before = cpu_h(before), want_next = cpu_h(next);
    gpu::DeviceMatrices m(pce, 0);
    m.wait_copied();
    gpu::HComputer hc(k, groth16::HConvention::Bellman);
    EXPECT_THROW(hc.prefetch_products(), std::logic_error);
    auto full_before = synthesize(before);
    hc.run(full_before.a(), full_before.b(), full_before.c());
    std::vector<Fr> got(gpu::h_gpu_length(k, groth16::HConvention::Bellman));
    hc.copy_h_to_host(got);
    ASSERT_TRUE(got == want_before) << "the running proof's H";
    const auto w = r1cs::witness_assignment(pce, next, ThreadPool::global());
    TimingSink sink;
    hc.prefetch_witness(m, w.inputs(), w.aux(), {&sink, "h", 1});
    hc.copy_h_to_host(got);
    EXPECT_TRUE(got == want_before) << "the witness half wrote into H's arrays";
    hc.prefetch_products();
    hc.run_prefetched({&sink, "h", 1});
    hc.copy_h_to_host(got);
    EXPECT_TRUE(got == want_next) << "H of the witness prefetched in two halves";
    EXPECT_GT(sink.total(TimingLayer::Kernel, "h.upload"), 0.0);
    EXPECT_GT(sink.total(TimingLayer::Kernel, "h.products"), 0.0);
    hc.prefetch_witness(m, w.inputs(), w.aux());
    hc.run(full_before.a(), full_before.b(), full_before.c());  // replaces the witness
    EXPECT_THROW(hc.prefetch_products(), std::logic_error);
    EXPECT_THROW(hc.run_prefetched(), std::logic_error);
}

// The engine with compiled matrices (JobSpec::pce) on the GPU backend: it holds them on the device for the job, the
// partitions are prepared from their witnesses (prepare: z up and the products into the free H slot while the
// partition before is proven), and the proofs equal the CPU engine's for the same randomness, each verified.
TEST(GpuGroth16, EngineWithDeviceProductsEqualsCpu) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    const ChainJobs jobs;
    SCOPED_TRACE(jobs.seed);
    const auto pce = r1cs::compile_r1cs(circuits::MulChainCircuit(12, 2, std::nullopt));
    gpu::GpuBackend gpu_backend(jobs.params);
    groth16::CpuBackend cpu_backend(jobs.params);
    const auto got = expect_engine_jobs_agree(jobs, gpu_backend, cpu_backend, &pce);
    EXPECT_GT(got.timeline->total(TimingLayer::Prover, "h.prefetch"), 0.0);
}

// GpuProverConfig::own_split_first: through the engine, with the products on the CPU and on the device, the proofs
// equal the CPU's, partitions are prepared, and no prepared circuit's 0/1 split ran beside the split of a proof that
// was not prepared and had started before it (its span starts after theirs end).
TEST(GpuGroth16, OwnSplitFirstProvesTheSame) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    const ChainJobs jobs;
    SCOPED_TRACE(jobs.seed);
    const auto pce = r1cs::compile_r1cs(circuits::MulChainCircuit(12, 2, std::nullopt));
    gpu::GpuProverConfig gc;
    EXPECT_FALSE(gc.own_split_first) << "the default";
    gc.own_split_first = true;
    for (const r1cs::PrecompiledR1cs* products : {static_cast<const r1cs::PrecompiledR1cs*>(nullptr), &pce}) {
        SCOPED_TRACE(products ? "products on the device" : "products on the CPU");
        gpu::GpuBackend gpu_backend(jobs.params, gc);
        groth16::CpuBackend cpu_backend(jobs.params);
        const auto got = expect_engine_jobs_agree(jobs, gpu_backend, cpu_backend, products);
        std::set<int64_t> prepared;
        for (const auto& sp : got.timeline->spans())
            if (sp.layer == TimingLayer::Prover && sp.name == "h.prefetch") prepared.insert(sp.item);
        EXPECT_FALSE(prepared.empty()) << "partitions prepared";
        std::vector<TimingSpan> own, theirs;
        for (const auto& sp : got.timeline->spans())
            if (sp.layer == TimingLayer::Prover && sp.name == "msm.split")
                (prepared.count(sp.item) ? theirs : own).push_back(sp);
        EXPECT_FALSE(own.empty()) << "the first partition's own split";
        for (const auto& p : theirs) {
            for (const auto& o : own) {
                if (o.start_s > p.start_s) continue;
                EXPECT_GE(p.start_s, o.start_s + o.duration_s)
                    << "partition " << p.item << "'s split beside partition " << o.item << "'s";
            }
        }
    }
}

// GpuProverConfig::share_slot on a device with room for one H slot (h_slots = 1 stands in for it): prepare() waits
// until the running proof has computed H, puts the next circuit's witness into that slot's scratch and its products
// into H's arrays once the running proof's H query's MSM has read them (the running proofs equal the CPU's: nothing
// overwrote their H early). Through the engine every partition after the first is prepared so, and the proofs
// equal the CPU's; a proof that claims the
// slot in between (an urgent partition) takes the hold back and the prepared proof uploads its witness again; a
// prepare with no proof running holds the slot once its short wait is over.
TEST(GpuGroth16, SharedSlotPreparesBesideTheProofBefore) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    const ChainJobs jobs;
    SCOPED_TRACE(jobs.seed);
    const auto pce = r1cs::compile_r1cs(circuits::MulChainCircuit(12, 2, std::nullopt));
    gpu::GpuProverConfig gc;
    gc.h_slots = 1;
    gc.share_slot = true;
    {
        gpu::GpuBackend gpu_backend(jobs.params, gc);
        groth16::CpuBackend cpu_backend(jobs.params);
        const auto got = expect_engine_jobs_agree(jobs, gpu_backend, cpu_backend, &pce);
        EXPECT_GT(got.timeline->total(TimingLayer::Prover, "h.prefetch"), 0.0) << "partitions prepared in the slot";
    }
    std::mt19937_64 rng(jobs.seed + 2);
    gpu::GpuProver prover(jobs.params, gc);
    const auto hold = prover.hold_products(pce);
    ASSERT_NE(hold, nullptr);
    prover.await_products(pce);
    const circuits::MulChainCircuit c0(12, 2, rng()), c1(12, 2, rng()), c2(12, 2, rng()), c3(12, 2, rng());
    auto deferred = [&](const circuits::MulChainCircuit& c) {
        return r1cs::witness_assignment(pce, c, ThreadPool::global());
    };
    auto cpu_proof = [&](const circuits::MulChainCircuit& c, const Fr& r, const Fr& s) {
        std::vector<r1cs::ProvingAssignment> full;
        full.push_back(synthesize(c));
        return groth16::prove_from_assignments(jobs.params, full, std::vector<Fr>{r}, std::vector<Fr>{s}).at(0);
    };
    const Fr r0 = Fr::random(rng), s0 = Fr::random(rng), r1 = Fr::random(rng), s1 = Fr::random(rng);
    const Fr r2 = Fr::random(rng), s2 = Fr::random(rng), r3 = Fr::random(rng), s3 = Fr::random(rng);
    {  // the first proof makes the slot (prepare gives no ticket before)
        std::vector<r1cs::ProvingAssignment> b3;
        b3.push_back(deferred(c3));
        EXPECT_TRUE(prover.prove_from_assignments(b3, std::vector<Fr>{r2}, std::vector<Fr>{s2}).at(0) ==
                    cpu_proof(c3, r2, s2));
    }
    // c0 proven while c1 is prepared beside it (in c0's slot, after its H), then c2 as an urgent proof in between.
    std::vector<r1cs::ProvingAssignment> b0;
    b0.push_back(deferred(c0));
    auto first = std::async(std::launch::async, [&] {
        return prover.prove_from_assignments(b0, std::vector<Fr>{r0}, std::vector<Fr>{s0}).at(0);
    });
    auto a1 = deferred(c1);
    auto ticket = prover.prepare(a1, nullptr, 1);
    const groth16::Proof p0 = first.get();
    EXPECT_TRUE(p0 == cpu_proof(c0, r0, s0));
    ASSERT_NE(ticket, nullptr) << "a shared ticket";
    std::vector<r1cs::ProvingAssignment> b2;
    b2.push_back(deferred(c2));
    EXPECT_TRUE(prover.prove_from_assignments(b2, std::vector<Fr>{r2}, std::vector<Fr>{s2}).at(0) ==
                cpu_proof(c2, r2, s2))
        << "the urgent proof takes the slot back";
    EXPECT_TRUE(prover.prove_prepared(std::move(ticket), a1, r1, s1, nullptr, 1) == cpu_proof(c1, r1, s1))
        << "the prepared proof taken back uploads its witness again";
    // No proof running: the hold comes after the short wait, and its proof is the same.
    auto a3 = deferred(c3);
    auto t3 = prover.prepare(a3, nullptr, 3);
    ASSERT_NE(t3, nullptr);
    EXPECT_TRUE(prover.prove_prepared(std::move(t3), a3, r3, s3, nullptr, 3) == cpu_proof(c3, r3, s3));
}

TEST(GpuGroth16, ProverRejectsWhatTheCpuRejects) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    const auto p = groth16::generate_parameters(circuits::MulChainCircuit(6, 2, std::nullopt),
                                                groth16::ToxicWaste::from_seed(9));
    const auto other = groth16::generate_parameters(circuits::MulChainCircuit(7, 2, std::nullopt),
                                                    groth16::ToxicWaste::from_seed(9));
    gpu::GpuProver prover(p);
    circuits::MulChainCircuit big(7, 2, 5);
    std::vector<r1cs::ProvingAssignment> asg;
    asg.push_back(synthesize(big));
    std::vector<Fr> one{Fr::one()};
    EXPECT_THROW(prover.prove_from_assignments(asg, one, one), std::invalid_argument) << "a circuit of another size";
    std::vector<Fr> two(2, Fr::one());
    EXPECT_THROW(prover.prove_from_assignments(asg, two, two), std::invalid_argument) << "r, s counts";
    (void)other;
}
#else
TEST(GpuGroth16, ComputeHMatchesCpu) { GTEST_SKIP() << "built without CUDA"; }
#endif

namespace {

// Three zero/one witnesses (random, all ones, all zeros) through the GPU prover under gc, byte-identical to the CPU;
// the spans of their proofs in `sink`.
void zero_one_witnesses(std::mt19937_64& rng, const gpu::GpuProverConfig& gc, TimingSink& sink) {
    const auto p = groth16::generate_parameters(Bits(std::vector<uint64_t>(40, 0)), groth16::ToxicWaste::from_seed(7));
    const auto pce = r1cs::compile_r1cs(Bits(std::vector<uint64_t>(40, 0)));
    std::vector<uint64_t> w1(40), w2(40, ~0ull), w3(40, 0);
    for (auto& x : w1) x = rng() & rng();
    Bits b1(w1), b2(w2), b3(w3);
    check_device_products(p, pce, {&b1, &b2, &b3}, rng, gc, &sink);
}
// Three partitions of Filecoin's 2 KiB PoRep circuit (whose witnesses go up packed) and a dense mul chain (whose
// witness goes up as it is) through the GPU prover under gc, byte-identical to the CPU.
void porep_and_dense_witnesses(std::mt19937_64& rng, const gpu::GpuProverConfig& gc) {
    {
        TimingSink sink;
        check_porep_2k_device_products(rng, gc, &sink);
        EXPECT_GT(sink.total(TimingLayer::Kernel, "h.expand"), 0.0) << "a PoRep witness went up unpacked";
    }
    const auto p = groth16::generate_parameters(circuits::MulChainCircuit(12, 3, std::nullopt),
                                                groth16::ToxicWaste::from_seed(rng()));
    const auto pce = r1cs::compile_r1cs(circuits::MulChainCircuit(12, 3, std::nullopt));
    circuits::MulChainCircuit c1(12, 3, rng()), c2(12, 3, rng());
    TimingSink sink;
    check_device_products(p, pce, {&c1, &c2}, rng, gc, &sink);
    EXPECT_EQ(sink.total(TimingLayer::Kernel, "h.expand"), 0.0) << "a dense witness went up packed";
}

}  // namespace

// Witnesses sent packed (GpuProverConfig::pack_witness: the ones' bitmap and the other values with their positions,
// expanded on the device): zero/one witnesses and three partitions of the 2 KiB PoRep circuit go up packed (the
// "h.expand" span), a dense mul chain's witness as it is; every proof byte-identical to the CPU's.
TEST(GpuGroth16, PackedWitnessProvesAsTheCpu) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    uint64_t seed = 0;
    auto rng = fresh_rng(seed);
    SCOPED_TRACE(seed);
    gpu::GpuProverConfig gc;
    gc.pack_witness = true;
    gc.upload_from_split = false;  // every proof's witness through pack_witness (the first one's too)
    TimingSink sink;
    zero_one_witnesses(rng, gc, sink);
    EXPECT_GT(sink.total(TimingLayer::Kernel, "h.expand"), 0.0) << "a zero/one witness went up unpacked";
    porep_and_dense_witnesses(rng, gc);
}

// A proof that was not prepared splits first and sends L's split as its packed witness
// (GpuProverConfig::upload_from_split, on by default: the first circuit of each batch here): proofs byte-identical to
// the CPU's for zero/one witnesses (packed: spans "h.pack", "h.expand"; with the setting off, the witness goes up as
// it is and is split beside H), three partitions of Filecoin's 2 KiB PoRep circuit, and a dense witness, whose split
// does not pack (sent as it is).
TEST(GpuGroth16, UploadFromSplitProvesAsTheCpu) {
    if (gpu::devices().empty()) GTEST_SKIP() << "no CUDA device";
    uint64_t seed = 0;
    auto rng = fresh_rng(seed);
    SCOPED_TRACE(seed);
    gpu::GpuProverConfig gc;
    EXPECT_TRUE(gc.upload_from_split) << "the default";
    for (const bool on : {true, false}) {
        SCOPED_TRACE(on ? "from the split" : "as it is");
        gc.upload_from_split = on;
        TimingSink sink;
        zero_one_witnesses(rng, gc, sink);
        EXPECT_EQ(sink.total(TimingLayer::Prover, "h.pack") > 0.0, on) << "the split packed";
        EXPECT_EQ(sink.total(TimingLayer::Kernel, "h.expand") > 0.0, on) << "the witness went up packed";
    }
    gc.upload_from_split = true;
    porep_and_dense_witnesses(rng, gc);
}
