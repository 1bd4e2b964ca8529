// A real bellman parameter file: Zcash's Sapling output-circuit parameters (../shared/vectors/bellman/), produced by
// bellman and a phase-2 MPC ceremony, so it checks the reader against bytes cuzk did not write itself.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/pairing/pairing.hpp"

#ifndef CUZK_VECTORS_DIR
#error "CUZK_VECTORS_DIR must name the shared vectors directory"
#endif

namespace cuzk {
namespace {

const std::string kSapling = std::string(CUZK_VECTORS_DIR) + "/bellman/sapling-output.params";
constexpr size_t kSaplingSize = 3592860;
constexpr size_t kTranscriptBytes = 52836;  // the phase-2 transcript after the parameters

// Loaded once (fully checked) and shared by the tests below, so the suite pays for one decode.
const formats::ParamsReadResult& sapling() {
    static const formats::ParamsReadResult r = [] {
        auto t0 = std::chrono::steady_clock::now();
        auto res = formats::read_parameters(kSapling);
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        std::printf("[ info ] sapling-output.params: checked load %.1f ms\n", ms);
        return res;
    }();
    return r;
}

TEST(FormatsVectorsSapling, LoadsWithFullChecksAndReportsTheTranscript) {
    const auto& r = sapling();
    EXPECT_EQ(r.params.vk.ic.size(), 6u);
    EXPECT_EQ(r.params.h.size(), 8191u);
    EXPECT_EQ(r.params.l.size(), 7821u);
    EXPECT_EQ(r.params.a.size(), 6298u);
    EXPECT_EQ(r.params.b_g1.size(), 4850u);
    EXPECT_EQ(r.params.b_g2.size(), 4850u);
    EXPECT_EQ(r.trailing_bytes, kTranscriptBytes);
    EXPECT_EQ(r.parameters_bytes + r.trailing_bytes, kSaplingSize);

    // Asked to, the reader refuses the transcript instead of reporting it.
    formats::ParamsReadOptions strict;
    strict.reject_trailing_bytes = true;
    try {
        formats::read_parameters(kSapling, strict);
        ADD_FAILURE() << "trailing bytes were not rejected";
    } catch (const formats::FormatError& e) {
        EXPECT_EQ(e.kind(), formats::FormatErrorKind::TrailingBytes);
        EXPECT_NE(std::string(e.what()).find("52836 bytes follow the parameters"), std::string::npos) << e.what();
    }
}

TEST(FormatsVectorsSapling, VerifyingKeyRelations) {
    const auto& vk = sapling().params.vk;
    EXPECT_EQ(vk.gamma_g2, G2Affine::generator());
    // beta_g1 and beta_g2 (and the two deltas) are the same secret times each generator:
    // e(beta_g1, G2) * e(-G1, beta_g2) == 1.
    const G1Affine g1 = G1Affine::generator();
    const G2Affine g2 = G2Affine::generator();
    std::vector<G1Affine> p = {vk.beta_g1, -g1};
    std::vector<G2Affine> q = {g2, vk.beta_g2};
    EXPECT_TRUE(pairing_product_is_one(p, q));
    p = {vk.delta_g1, -g1};
    q = {g2, vk.delta_g2};
    EXPECT_TRUE(pairing_product_is_one(p, q));
    // The check can fail: beta against delta does not hold.
    p = {vk.beta_g1, -g1};
    q = {g2, vk.delta_g2};
    EXPECT_FALSE(pairing_product_is_one(p, q));
}

TEST(FormatsVectorsSapling, WritingReproducesTheFileExactly) {
    formats::MappedFile file(kSapling);
    ASSERT_EQ(file.bytes().size(), kSaplingSize);
    auto written = formats::parameters_to_bytes(sapling().params);
    ASSERT_EQ(written.size(), kSaplingSize - kTranscriptBytes);
    EXPECT_TRUE(std::equal(written.begin(), written.end(), file.bytes().begin()));
}

TEST(FormatsVectorsSapling, VerifyingKeyAloneAndUncheckedLoadAgree) {
    const auto& r = sapling();
    auto vk = formats::read_verifying_key(kSapling);
    EXPECT_EQ(vk.vk, r.params.vk);
    EXPECT_EQ(vk.verifying_key_bytes, 3 * 96 + 3 * 192 + 4 + 6 * 96u);
    EXPECT_EQ(vk.trailing_bytes, kSaplingSize - vk.verifying_key_bytes);

    formats::ParamsReadOptions unchecked;
    unchecked.check_subgroup = false;
    auto t0 = std::chrono::steady_clock::now();
    auto u = formats::read_parameters(kSapling, unchecked);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("[ info ] sapling-output.params: unchecked load %.1f ms\n", ms);
    EXPECT_EQ(u.params, r.params);
}

}  // namespace
}  // namespace cuzk
