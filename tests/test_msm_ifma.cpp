// The AVX-512 IFMA batch-addition kernel of the G1 MSM against the scalar curve arithmetic, and the MSM with the
// kernel on and off against references. On a CPU without IFMA the kernel tests are skipped (the MSM tests still
// run the scalar path).
#include <gtest/gtest.h>

#include <random>
#include <type_traits>
#include <vector>

#include "cuzk/msm/batch_add_ifma.hpp"
#include "cuzk/msm/msm.hpp"

using namespace cuzk;
using cuzk::msm_detail::g1_batch_add_ifma;
using cuzk::msm_detail::ifma_supported;

namespace {

template <class Cfg = G1Config>
std::vector<Affine<Cfg>> random_points(size_t n, std::mt19937_64& rng) {
    std::vector<Jacobian<Cfg>> jac(n);
    for (auto& p : jac) p = Jacobian<Cfg>::generator().mul(Fr::random(rng).to_canonical());
    return Jacobian<Cfg>::batch_to_affine(jac);
}

// Restores the process-wide setting when a test ends.
struct IfmaSetting {
    explicit IfmaSetting(bool on) : prev(msm_detail::set_ifma_enabled(on)) {}
    ~IfmaSetting() { msm_detail::set_ifma_enabled(prev); }
    bool prev;
};

}  // namespace

namespace {

template <class Cfg>
void batch_add(const Affine<Cfg>* a, const Affine<Cfg>* b, Affine<Cfg>* const* out, const uint32_t* idx, size_t m,
               msm_detail::IfmaScratch& scratch) {
    if constexpr (std::is_same_v<Cfg, G1Config>) g1_batch_add_ifma(a, b, out, idx, m, scratch);
    else msm_detail::g2_batch_add_ifma(a, b, out, idx, m, scratch);
}

// For each size: random pairs (some points negated: y = p - y, coordinates from both ends of [0, p)), only every
// other pair listed and in reverse order (the kernel must follow the index list); each listed output must equal
// the Jacobian sum, each unlisted one stay untouched.
template <class Cfg>
void check_group_shapes(std::initializer_list<size_t> sizes, uint64_t seed) {
    std::mt19937_64 rng(seed);
    msm_detail::IfmaScratch scratch;
    for (size_t n : sizes) {
        auto a = random_points<Cfg>(n, rng), b = random_points<Cfg>(n, rng);
        for (size_t i = 0; i < n; i += 3) a[i] = -a[i];
        for (size_t i = 1; i < n; i += 4) b[i] = -b[i];
        std::vector<uint32_t> idx;
        for (size_t i = n; i-- > 0;)
            if (i % 2 == 0 || n < 4) idx.push_back((uint32_t)i);
        std::vector<Affine<Cfg>> out(n, Affine<Cfg>::identity());
        std::vector<Affine<Cfg>*> outp(n);
        for (size_t i = 0; i < n; i++) outp[i] = &out[i];
        batch_add<Cfg>(a.data(), b.data(), outp.data(), idx.data(), idx.size(), scratch);
        std::vector<bool> listed(n, false);
        for (uint32_t i : idx) listed[i] = true;
        for (size_t i = 0; i < n; i++) {
            if (!listed[i]) {
                EXPECT_TRUE(out[i].is_identity()) << "unlisted pair " << i << " written (n=" << n << ")";
                continue;
            }
            EXPECT_EQ(out[i], (a[i].to_jacobian() + b[i].to_jacobian()).to_affine()) << "pair " << i << " of " << n;
            EXPECT_TRUE(out[i].is_on_curve());
        }
    }
}

// Feeds outputs back as inputs `rounds` times, so values produced by the kernel (not only fresh points) are inputs
// too; compares with the same chain in Jacobian coordinates.
template <class Cfg>
void check_chain(size_t n, int rounds, uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto acc = random_points<Cfg>(n, rng), step = random_points<Cfg>(n, rng);
    std::vector<Jacobian<Cfg>> ref(n);
    for (size_t i = 0; i < n; i++) ref[i] = acc[i].to_jacobian();
    std::vector<uint32_t> idx(n);
    for (size_t i = 0; i < n; i++) idx[i] = (uint32_t)i;
    msm_detail::IfmaScratch scratch;
    for (int round = 0; round < rounds; round++) {
        std::vector<Affine<Cfg>> out(n);
        std::vector<Affine<Cfg>*> outp(n);
        for (size_t i = 0; i < n; i++) outp[i] = &out[i];
        batch_add<Cfg>(acc.data(), step.data(), outp.data(), idx.data(), n, scratch);
        for (size_t i = 0; i < n; i++) ref[i] += step[i].to_jacobian();
        acc = out;
    }
    for (size_t i = 0; i < n; i++) EXPECT_EQ(acc[i], ref[i].to_affine()) << i;
}

}  // namespace

// 1..9 cover a partly filled group, one full group and one lane beyond; 300 many groups.
TEST(IfmaBatchAdd, MatchesScalarAdditionForEveryGroupShape) {
    if (!ifma_supported()) GTEST_SKIP() << "no AVX-512 IFMA on this CPU";
    check_group_shapes<G1Config>({1, 2, 7, 8, 9, 16, 17, 300}, 2026);
}

TEST(IfmaBatchAdd, ChainsOfAdditionsStayExact) {
    if (!ifma_supported()) GTEST_SKIP() << "no AVX-512 IFMA on this CPU";
    check_chain<G1Config>(24, 40, 11);
}

TEST(MsmG1, VectorAndScalarBatchAdditionsAgree) {
    std::mt19937_64 rng(5);
    const size_t n = 3000;
    auto bases = random_points(n, rng);
    std::vector<Fr> scalars(n);
    for (auto& s : scalars) s = Fr::random(rng);
    // Repeated, opposite and infinite bases with equal scalars: doublings and cancellations inside batches that
    // also hold generic additions (those go to the vector kernel when it is on).
    for (size_t i = 0; i + 3 < n; i += 50) {
        bases[i + 1] = bases[i];
        bases[i + 2] = -bases[i];
        bases[i + 3] = G1Affine::identity();
        scalars[i + 1] = scalars[i + 2] = scalars[i];
    }
    ThreadPool pool(2);
    MsmConfig cfg;
    cfg.pool = &pool;
    MsmConfig small = cfg;
    small.min_batch_pairs = 1;
    small.batch_size = 5;  // batches that end mid-group and mid-round
    G1Jacobian scalar, vector, scalar_small, vector_small;
    {
        IfmaSetting off(false);
        EXPECT_FALSE(msm_detail::ifma_enabled());
        scalar = msm_g1(bases, scalars, cfg);
        scalar_small = msm_g1(bases, scalars, small);
    }
    {
        IfmaSetting on(true);
        EXPECT_EQ(msm_detail::ifma_enabled(), ifma_supported());
        vector = msm_g1(bases, scalars, cfg);
        vector_small = msm_g1(bases, scalars, small);
    }
    // An independent reference: the plain sum of scalar multiplications.
    G1Jacobian naive = G1Jacobian::identity();
    for (size_t i = 0; i < n; i++) naive += bases[i].to_jacobian().mul(scalars[i].to_canonical());
    EXPECT_EQ(scalar, naive);
    EXPECT_EQ(vector, naive);
    EXPECT_EQ(scalar_small, naive);
    EXPECT_EQ(vector_small, naive);
}

TEST(IfmaBatchAdd, G2MatchesScalarAdditionForEveryGroupShapeAndChain) {
    if (!ifma_supported()) GTEST_SKIP() << "no AVX-512 IFMA on this CPU";
    check_group_shapes<G2Config>({1, 7, 8, 9, 17, 100}, 2027);
    check_chain<G2Config>(16, 20, 2028);
}

TEST(MsmG2, VectorAndScalarBatchAdditionsAgree) {
    std::mt19937_64 rng(6);
    const size_t n = 600;
    auto bases = random_points<G2Config>(n, rng);
    std::vector<Fr> scalars(n);
    for (auto& s : scalars) s = Fr::random(rng);
    for (size_t i = 0; i + 3 < n; i += 40) {
        bases[i + 1] = bases[i];
        bases[i + 2] = -bases[i];
        bases[i + 3] = G2Affine::identity();
        scalars[i + 1] = scalars[i + 2] = scalars[i];
    }
    ThreadPool pool(2);
    MsmConfig cfg;
    cfg.pool = &pool;
    cfg.min_batch_pairs = 1;
    cfg.batch_size = 13;
    G2Jacobian scalar, vector;
    {
        IfmaSetting off(false);
        scalar = msm_g2(bases, scalars, cfg);
    }
    {
        IfmaSetting on(true);
        vector = msm_g2(bases, scalars, cfg);
    }
    G2Jacobian naive = G2Jacobian::identity();
    for (size_t i = 0; i < n; i++) naive += bases[i].to_jacobian().mul(scalars[i].to_canonical());
    EXPECT_EQ(scalar, naive);
    EXPECT_EQ(vector, naive);
}
