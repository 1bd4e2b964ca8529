// The GPU prover's packed witness (backends/cuda/witness_pack.hpp): host code only, run wherever the CUDA library
// is built, with or without a GPU (the device's expansion is GpuGroth16.PackedWitnessProvesAsTheCpu).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

#include "cuzk/backends/cuda/witness_pack.hpp"
#include "seeded_rng.hpp"

using namespace cuzk;

namespace {

// n values: zeros, ones and random others in the given shares, in random places.
std::vector<Fr> witness(size_t n, double ones, double others, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<Fr> v(n);
    for (auto& x : v) {
        const double t = u(rng);
        x = t < others ? Fr::random(rng) : t < others + ones ? Fr::one() : Fr::zero();
    }
    return v;
}

void check_packing(const std::vector<Fr>& v, ThreadPool& pool) {
    const auto p = gpu::pack_witness(v, v.size(), pool);
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->size, v.size());
    EXPECT_EQ(p->ones.size(), (v.size() + 63) / 64);
    EXPECT_TRUE(std::is_sorted(p->other_indices.begin(), p->other_indices.end()));
    EXPECT_EQ(std::adjacent_find(p->other_indices.begin(), p->other_indices.end()), p->other_indices.end());
    for (const Fr& x : p->other_values) EXPECT_TRUE(!x.is_zero() && x != Fr::one());
    size_t ones = 0;
    for (uint64_t w : p->ones) ones += (size_t)__builtin_popcountll(w);
    EXPECT_EQ(ones, (size_t)std::count(v.begin(), v.end(), Fr::one()));
    EXPECT_EQ(p->bytes(), p->ones.size() * 8 + p->other_indices.size() * 4 + p->other_values.size() * sizeof(Fr));
    EXPECT_TRUE(gpu::unpack_witness(*p) == v);
}

}  // namespace

TEST(WitnessPack, RoundTripsEveryMix) {
    auto rng = cuzk::testing::seeded_rng("WitnessPack.RoundTripsEveryMix");
    ThreadPool pool(3);
    for (size_t n : {0, 1, 63, 64, 65, 127, 1000, 4096 + 17, 100000}) {
        SCOPED_TRACE(n);
        check_packing(witness(n, 0.48, 0.02, rng), pool);  // a PoRep witness's mix
        check_packing(witness(n, 0.0, 0.0, rng), pool);     // all zeros
        check_packing(witness(n, 1.0, 0.0, rng), pool);     // all ones
        check_packing(witness(n, 0.0, 1.0, rng), pool);     // all others (packed when allowed)
    }
    // One thread, and more chunks than words.
    ThreadPool one(0);
    check_packing(witness(200, 0.3, 0.3, rng), one);
}

TEST(WitnessPack, GivesUpWhereTooManyAreOthers) {
    auto rng = cuzk::testing::seeded_rng("WitnessPack.GivesUpWhereTooManyAreOthers");
    ThreadPool pool(3);
    const auto v = witness(100000, 0.4, 0.1, rng);
    const size_t others = (size_t)std::count_if(v.begin(), v.end(), [](const Fr& x) {
        return !x.is_zero() && x != Fr::one();
    });
    ASSERT_GT(others, 0u);
    EXPECT_FALSE(gpu::pack_witness(v, others - 1, pool).has_value());
    const auto p = gpu::pack_witness(v, others, pool);
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->other_indices.size(), others);
    EXPECT_FALSE(gpu::pack_witness(witness(1000, 0.0, 1.0, rng), 0, pool).has_value());
    EXPECT_TRUE(gpu::pack_witness(witness(1000, 0.5, 0.0, rng), 0, pool).has_value()) << "no others: always packs";
}

TEST(WitnessPack, UnpackRefusesAnInconsistentPacking) {
    gpu::PackedWitness p;
    p.size = 100;
    p.ones.resize(1);  // two words are needed
    EXPECT_THROW(gpu::unpack_witness(p), std::invalid_argument);
    p.ones.resize(2);
    p.other_indices = {100};
    p.other_values = {Fr::one() + Fr::one()};
    EXPECT_THROW(gpu::unpack_witness(p), std::invalid_argument);
    p.other_values.clear();
    EXPECT_THROW(gpu::unpack_witness(p), std::invalid_argument);
}

// L's 0/1 split (every aux value) in each layout packs to the same values: its ones, its others and its tail.
TEST(WitnessPack, FromASplitInEveryLayout) {
    auto rng = cuzk::testing::seeded_rng("WitnessPack.FromASplitInEveryLayout");
    ThreadPool pool(3);
    for (size_t n : {0, 1, 64, 65, 1000, 30000 + 7}) {
        SCOPED_TRACE(n);
        const auto v = witness(n, 0.47, 0.03, rng);
        const std::span<const Fr> values[] = {v};
        const uint64_t* const sel[] = {kAllValues};
        // The others of a first split as the tail of the next, as the GPU prover reuses them.
        const auto first = split_scalars_multi(values, 1, sel, &pool, true);
        const std::shared_ptr<const SplitTail> tails[] = {make_split_tail(n, first[0].other_indices, 1)};
        for (const SplitChoice ch : {SplitChoice{false, true, false}, SplitChoice{false, false, false},
                                     SplitChoice{false, true, true}, SplitChoice{false, false, true}}) {
            SCOPED_TRACE(::testing::Message() << "bitmap " << ch.ones_bitmap << ", tail " << ch.use_tail);
            const SplitHook hook{tails, [&](size_t, const SplitCounts&) { return ch; }};
            const auto s = split_scalars_multi(values, 1, sel, &pool, true, hook);
            const auto p = gpu::pack_from_split(s[0], n);
            ASSERT_TRUE(p.has_value());
            EXPECT_EQ(p->size, n);
            EXPECT_EQ(p->ones.size(), (n + 63) / 64);
            EXPECT_TRUE(gpu::unpack_witness(*p) == v);
            if (!s[0].other_indices.empty()) {
                EXPECT_FALSE(gpu::pack_from_split(s[0], s[0].other_indices.size() - 1).has_value()) << "too many others";
            }
        }
    }
    // A dense split is not packed; a canonical one is refused.
    const auto v = witness(500, 0.4, 0.1, rng);
    const std::span<const Fr> values[] = {v};
    const uint64_t* const sel[] = {kAllValues};
    const SplitHook dense{{}, [](size_t, const SplitCounts&) { return SplitChoice{true, false, false}; }};
    EXPECT_FALSE(gpu::pack_from_split(split_scalars_multi(values, 1, sel, &pool, true, dense)[0], 500).has_value());
    EXPECT_THROW(gpu::pack_from_split(split_scalars_multi(values, 1, sel, &pool, false)[0], 500),
                 std::invalid_argument);
}
