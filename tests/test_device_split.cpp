// The device's split layouts (backends/cuda/device_split.hpp): the cost model's choice, bitmap ones, dense, shared
// tails. Host code only: these run wherever the CUDA library is built, with or without a GPU.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cuzk/backends/cuda/device_split.hpp"
#include "cuzk/ec/random_points.hpp"
#include "cuzk/msm/msm.hpp"
#include "split_checks.hpp"

using namespace cuzk;
using cuzk::testing::mixed;
using cuzk::testing::rebuild;

namespace {

using Rng = std::mt19937_64;

std::vector<ScalarSplit> device_split(const std::vector<Fr>& v, std::span<const std::shared_ptr<const SplitTail>> tails,
                                      ThreadPool& pool) {
    const std::span<const Fr> values[] = {v};
    const uint64_t* const sel[] = {kAllValues};
    gpu::SplitOptions o;
    o.tails = tails;
    return gpu::split_scalars_for_device(values, 1, sel, o, &pool);
}

}  // namespace

TEST(SplitLayout, CheaperLayoutByTheCosts) {
    const gpu::SplitCosts c;
    const size_t n = 1 << 20;
    // Filecoin's witnesses: half zeros, half ones, a few others: the ones as a bitmap, split.
    auto lay = gpu::choose_split_layout(n, n / 2, n / 200, c);
    EXPECT_TRUE(lay.ones_bitmap);
    EXPECT_FALSE(lay.dense);
    // A handful of ones: listed.
    lay = gpu::choose_split_layout(n, 100, n / 2, c);
    EXPECT_FALSE(lay.ones_bitmap);
    EXPECT_FALSE(lay.dense);
    // A dense random witness: no split.
    EXPECT_TRUE(gpu::choose_split_layout(n, 3, n - 10, c).dense);
    // A third of zeros: the split skips them.
    EXPECT_FALSE(gpu::choose_split_layout(n, 0, 2 * n / 3, c).dense);
    // The crossing follows the costs: with free uploads the indices cost nothing, so the split always wins.
    gpu::SplitCosts free_upload = c;
    free_upload.upload_per_byte = 0;
    EXPECT_FALSE(gpu::choose_split_layout(n, 3, n - 10, free_upload).dense);
    EXPECT_FALSE(gpu::choose_split_layout(0, 0, 0, c).dense);
}

TEST(SplitLayout, DeviceSplitsRebuildTheScalars) {
    Rng rng(31);
    ThreadPool pool(3);
    for (auto [z, o] : {std::pair{50u, 49u}, {0u, 0u}, {10u, 1u}, {97u, 0u}, {0u, 100u}}) {
        for (size_t n : {1u, 63u, 64u, 65u, 5000u}) {
            auto v = mixed(n, z, o, rng);
            auto s = device_split(v, {}, pool);
            ASSERT_EQ(s.size(), 1u);
            EXPECT_EQ(rebuild(s[0]), v) << "z=" << z << " o=" << o << " n=" << n;
            EXPECT_NO_THROW(check_split_indices(s[0], "test"));
            if (n == 5000) {
                EXPECT_EQ(s[0].dense, z == 0 && o == 0) << z << " " << o;
                EXPECT_EQ(!s[0].one_bits.empty(), o >= 49) << z << " " << o;
                if (!s[0].one_bits.empty()) {
                    EXPECT_EQ(s[0].one_bit_count, s[0].one_count());
                }
            }
        }
    }
    // Gathered lists (Groth16's shape) rebuild the selected values in order.
    std::vector<Fr> v0 = mixed(70, 40, 40, rng), v1 = mixed(3000, 50, 45, rng);
    std::vector<uint64_t> d1(47);
    for (auto& w : d1) w = rng();
    const std::span<const Fr> values[] = {v0, v1};
    const uint64_t* const sel[] = {kAllValues, d1.data(), kNoValues, kAllValues};
    auto multi = gpu::split_scalars_for_device(values, 2, sel, gpu::SplitOptions{}, &pool);
    std::vector<Fr> want0(v0);
    for (size_t i = 0; i < v1.size(); i++)
        if ((d1[i / 64] >> (i % 64)) & 1) want0.push_back(v1[i]);
    EXPECT_EQ(rebuild(multi[0]), want0);
    EXPECT_EQ(rebuild(multi[1]), v1);
}

TEST(SplitLayout, TailsAreSharedByLaterSplits) {
    Rng rng(37);
    ThreadPool pool(2);
    const size_t n = 6000;
    // Circuit 0: others at every 7th position, zeros and ones elsewhere.
    auto shaped = [&](size_t extra_others) {
        std::vector<Fr> v(n);
        for (size_t i = 0; i < n; i++) v[i] = i % 7 == 0 ? Fr::random(rng) : rng() % 2 ? Fr::one() : Fr::zero();
        for (size_t e = 0; e < extra_others; e++) v[(e * 7 + 3) % n] = Fr::random(rng);
        return v;
    };
    auto v0 = shaped(0);
    auto s0 = device_split(v0, {}, pool);
    ASSERT_TRUE(s0[0].tail) << "few others: a tail of its own";
    const auto tail = s0[0].tail;
    EXPECT_EQ(s0[0].tail_size, s0[0].other_indices.size());
    EXPECT_EQ(tail->size, n);
    EXPECT_EQ(rebuild(s0[0]), v0);
    // Circuit 1: same positions, and some of them now 0 or 1 (they stay in the tail), plus a few others outside.
    auto v1 = shaped(5);
    v1[0] = Fr::one();
    v1[7] = Fr::zero();
    const std::shared_ptr<const SplitTail> tails[] = {tail};
    auto s1 = device_split(v1, tails, pool);
    EXPECT_EQ(s1[0].tail, tail);
    EXPECT_EQ(s1[0].tail_size, tail->indices.size());
    EXPECT_EQ(s1[0].other_indices.size(), tail->indices.size() + 5);
    EXPECT_EQ(rebuild(s1[0]), v1);
    EXPECT_NO_THROW(check_split_indices(s1[0], "test"));
    // A tail of another size is ignored; one that no longer covers the values is replaced.
    auto v2 = mixed(n + 1, 50, 45, rng);
    auto s2 = device_split(v2, tails, pool);
    EXPECT_NE(s2[0].tail, tail);
    EXPECT_EQ(rebuild(s2[0]), v2);
    auto v3 = mixed(n, 40, 40, rng);  // others everywhere: 20% of positions, ~1000 outside the tail's 858
    v3.resize(n);
    for (size_t i = 0; i < 2000; i++) v3[(i * 3 + 1) % n] = Fr::random(rng);
    auto s3 = device_split(v3, tails, pool);
    EXPECT_NE(s3[0].tail, tail);
    EXPECT_EQ(rebuild(s3[0]), v3);
}

TEST(SplitLayout, MalformedDeviceSplitsAreRefused) {
    Rng rng(41);
    ThreadPool pool(2);
    auto v = mixed(1000, 50, 48, rng);
    auto good = device_split(v, {}, pool)[0];
    ASSERT_FALSE(good.one_bits.empty());
    ASSERT_TRUE(good.tail);
    auto bits_past_end = device_split(v, {}, pool)[0];
    bits_past_end.one_bits.back() |= uint64_t(1) << 63;  // 1000 % 64 = 40: bit 63 lies past the end
    bits_past_end.one_bit_count++;
    EXPECT_THROW(check_split_indices(bits_past_end, "test"), std::invalid_argument);
    auto bad_count = device_split(v, {}, pool)[0];
    bad_count.one_bit_count++;
    EXPECT_THROW(check_split_indices(bad_count, "test"), std::invalid_argument);
    auto bad_tail = device_split(v, {}, pool)[0];
    bad_tail.other_indices[0] ^= 1;
    EXPECT_THROW(check_split_indices(bad_tail, "test"), std::invalid_argument);
    auto dense = device_split(mixed(1000, 0, 0, rng), {}, pool)[0];
    ASSERT_TRUE(dense.dense);
    dense.other_scalars.resize(999);
    EXPECT_THROW(check_split_indices(dense, "test"), std::invalid_argument);
    // The CPU MSM takes the indexed layout with listed ones only.
    auto bases = random_points<G1Config>(1000, rng());
    good.montgomery = false;
    EXPECT_THROW(msm_g1_split(bases, good), std::invalid_argument);
    const std::shared_ptr<const SplitTail> wrong_count[] = {nullptr, nullptr};
    const std::span<const Fr> values[] = {v};
    const uint64_t* const sel[] = {kAllValues};
    gpu::SplitOptions o;
    o.tails = wrong_count;
    EXPECT_THROW(gpu::split_scalars_for_device(values, 1, sel, o, &pool), std::invalid_argument);
}

// The Groth16 queries split for the device stand for the same scalars as groth16::split_queries' plain split, and a
// second circuit of the same shape reuses the first one's tails.
TEST(SplitLayout, QuerySplitsForTheDeviceReuseTails) {
    Rng rng(53);
    const size_t n = 6000;
    r1cs::DensityTracker a_aux, b_in, b_aux;
    for (size_t i = 0; i < 5; i++) b_in.add_element();
    for (size_t i = 0; i < 5; i++)
        if (rng() % 2) b_in.mark(i);
    for (size_t i = 0; i < n; i++) {
        a_aux.add_element();
        b_aux.add_element();
        if (i % 5) a_aux.mark(i);
        if (i % 3) b_aux.mark(i);
    }
    auto circuit = [&] {
        r1cs::AuxValues aux(n);  // others at every 7th position, zeros and ones elsewhere
        for (size_t i = 0; i < n; i++) aux[i] = i % 7 == 0 ? Fr::random(rng) : rng() % 2 ? Fr::one() : Fr::zero();
        return r1cs::ProvingAssignment::from_parts(mixed(5, 30, 30, rng), std::move(aux), {}, {}, {}, a_aux, b_in,
                                                   b_aux);
    };
    auto same_scalars = [](const groth16::QuerySplits& dev, const groth16::QuerySplits& plain) {
        EXPECT_EQ(rebuild(dev.a), rebuild(plain.a));
        EXPECT_EQ(rebuild(dev.b), rebuild(plain.b));
        EXPECT_EQ(rebuild(dev.l), rebuild(plain.l));
        for (const ScalarSplit* s : {&dev.a, &dev.b, &dev.l}) EXPECT_NO_THROW(check_split_indices(*s, "test"));
    };
    const auto c0 = circuit(), c1 = circuit();
    const gpu::SplitOptions none;
    const auto q0 = gpu::split_queries_for_device(c0, none);
    same_scalars(q0, groth16::split_queries(c0, true));
    ASSERT_TRUE(q0.a.tail && q0.b.tail && q0.l.tail) << "few others: a tail of its own for every query";
    const std::shared_ptr<const SplitTail> tails[] = {q0.a.tail, q0.b.tail, q0.l.tail};
    gpu::SplitOptions reuse;
    reuse.tails = tails;
    const auto q1 = gpu::split_queries_for_device(c1, reuse);
    same_scalars(q1, groth16::split_queries(c1, true));
    EXPECT_EQ(q1.a.tail, q0.a.tail);
    EXPECT_EQ(q1.b.tail, q0.b.tail);
    EXPECT_EQ(q1.l.tail, q0.l.tail);
}

// What a split reads is taken from the assignment when its SplitInputs is made, and stays valid when the assignment
// is moved (as the engine moves a prepared partition while its split may still be starting on another thread): the
// split from the inputs taken before the move is the split of the moved assignment, not of the empty moved-from one.
TEST(SplitLayout, SplitInputsOutliveAMoveOfTheAssignment) {
    Rng rng(59);
    const size_t n = 4000;
    r1cs::DensityTracker a_aux, b_in, b_aux;
    for (size_t i = 0; i < 3; i++) b_in.add_element();
    b_in.mark(1);
    for (size_t i = 0; i < n; i++) {
        a_aux.add_element();
        b_aux.add_element();
        if (i % 4) a_aux.mark(i);
        if (i % 2) b_aux.mark(i);
    }
    r1cs::AuxValues aux(n);
    for (size_t i = 0; i < n; i++) aux[i] = i % 9 == 0 ? Fr::random(rng) : rng() % 2 ? Fr::one() : Fr::zero();
    std::optional<r1cs::ProvingAssignment> first;
    first.emplace(r1cs::ProvingAssignment::from_parts(mixed(3, 20, 20, rng), std::move(aux), {}, {}, {}, a_aux, b_in,
                                                      b_aux));
    const groth16::SplitInputs in(*first);
    r1cs::ProvingAssignment moved = std::move(*first);
    first.reset();
    const auto q = gpu::split_queries_for_device(in, {});
    const auto want = groth16::split_queries(moved, true);
    EXPECT_EQ(rebuild(q.a), rebuild(want.a));
    EXPECT_EQ(rebuild(q.b), rebuild(want.b));
    EXPECT_EQ(rebuild(q.l), rebuild(want.l));
    EXPECT_EQ(rebuild(q.l).size(), n) << "the moved assignment's values, not an empty one's";
}
