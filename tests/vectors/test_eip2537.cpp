// Ethereum's EIP-2537 precompile vectors (../shared/vectors/eip2537/): the reference calls of cuzk/ec/eip2537 and
// the library's MSM and pairing must reproduce every Expected output, and every fail-* input must be rejected for
// the reason its ExpectedError names.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cuzk/ec/eip2537.hpp"
#include "cuzk/msm/msm.hpp"
#include "cuzk/pairing/pairing.hpp"

#ifndef CUZK_VECTORS_DIR
#error "CUZK_VECTORS_DIR must name the shared vectors directory"
#endif

namespace cuzk {
namespace {

using Bytes = std::vector<uint8_t>;

nlohmann::json load(const std::string& name) {
    std::string path = std::string(CUZK_VECTORS_DIR) + "/eip2537/" + name;
    std::ifstream f(path);
    EXPECT_TRUE(f.good()) << "cannot open " << path;
    if (!f.good()) return nlohmann::json::array();
    nlohmann::json j = nlohmann::json::parse(f);
    EXPECT_TRUE(j.is_array() && !j.empty()) << path;
    return j;
}

Bytes unhex(const std::string& s) {
    auto nib = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    size_t start = s.rfind("0x", 0) == 0 ? 2 : 0;
    EXPECT_EQ((s.size() - start) % 2, 0u) << "odd hex length";
    Bytes out;
    for (size_t i = start; i + 1 < s.size(); i += 2) {
        int hi = nib(s[i]), lo = nib(s[i + 1]);
        EXPECT_TRUE(hi >= 0 && lo >= 0) << "bad hex digit";
        out.push_back((uint8_t)(hi * 16 + lo));
    }
    return out;
}

template <size_t N>
Bytes to_bytes(const std::array<uint8_t, N>& a) {
    return Bytes(a.begin(), a.end());
}

// The reasons the vectors' ExpectedError strings name (go-ethereum's messages); nullopt for one we do not know,
// which fails the test so a new kind of case is looked at rather than passed.
std::optional<DecodeError> reason_of(const std::string& expected_error) {
    if (expected_error == "invalid input length") return DecodeError::BadLength;
    if (expected_error == "invalid point: not on curve") return DecodeError::NotOnCurve;
    if (expected_error == "invalid fp.Element encoding") return DecodeError::CoordinateNotInField;
    if (expected_error == "invalid field element top bytes") return DecodeError::NonZeroPadding;
    if (expected_error == "g1 point is not in the correct subgroup") return DecodeError::NotInSubgroup;
    if (expected_error == "g2 point is not in the correct subgroup") return DecodeError::NotInSubgroup;
    return std::nullopt;
}

template <class Call>
void check_expected(const std::string& file, Call call) {
    auto cases = load(file);
    for (const auto& c : cases) {
        const std::string name = c.at("Name");
        auto out = call(unhex(c.at("Input")));
        ASSERT_TRUE(out.has_value()) << file << " " << name << ": " << decode_error_message(*out.error());
        EXPECT_EQ(to_bytes(*out), unhex(c.at("Expected"))) << file << " " << name;
    }
}

// Each fail case must be rejected, for the named reason.
template <class Call>
void check_failures(const std::string& file, Call call) {
    auto cases = load(file);
    for (const auto& c : cases) {
        const std::string name = c.at("Name");
        const std::string err = c.at("ExpectedError");
        auto want = reason_of(err);
        ASSERT_TRUE(want.has_value()) << file << " " << name << ": unknown ExpectedError \"" << err << "\"";
        auto out = call(unhex(c.at("Input")));
        EXPECT_FALSE(out.has_value()) << file << " " << name << " was accepted";
        EXPECT_EQ(out.error(), want) << file << " " << name << ": want \"" << err << "\", got \""
                                     << (out.error() ? decode_error_message(*out.error()) : "accepted") << "\"";
    }
}

TEST(Eip2537Vectors, AddG1) {
    check_expected("add_G1_bls.json", [](const Bytes& in) { return eip2537_g1_add(in); });
}
TEST(Eip2537Vectors, AddG2) {
    check_expected("add_G2_bls.json", [](const Bytes& in) { return eip2537_g2_add(in); });
}
TEST(Eip2537Vectors, MulG1) {
    check_expected("mul_G1_bls.json", [](const Bytes& in) { return eip2537_g1_mul(in); });
}
TEST(Eip2537Vectors, MulG2) {
    check_expected("mul_G2_bls.json", [](const Bytes& in) { return eip2537_g2_mul(in); });
}

// The add vectors include a point outside G1 / G2: ADD must accept it (no subgroup check), MSM must not.
TEST(Eip2537Vectors, AddSkipsTheSubgroupCheckThatMsmDoes) {
    for (const auto& c : load("add_G1_bls.json")) {
        if (std::string(c.at("Name")).find("not_in_correct_subgroup") == std::string::npos) continue;
        Bytes in = unhex(c.at("Input"));
        std::span<const uint8_t> first(in.data(), EIP2537_G1_BYTES);
        EXPECT_TRUE(eip2537_decode_g1_unchecked(first).has_value());
        EXPECT_EQ(eip2537_decode_g1(first).error(), DecodeError::NotInSubgroup);
        Bytes as_mul(first.begin(), first.end());
        as_mul.resize(EIP2537_G1_MSM_PAIR_BYTES, 0);
        as_mul.back() = 1;
        EXPECT_EQ(eip2537_g1_mul(as_mul).error(), DecodeError::NotInSubgroup);
        return;
    }
    ADD_FAILURE() << "add_G1_bls.json has no not_in_correct_subgroup case";
}

// msm_G1: the library's Pippenger MSM (scalars reduced mod r, valid since every point is in G1, checked by the
// decoder) and, for the smaller cases, the naive reference call.
TEST(Eip2537Vectors, MsmG1) {
    auto cases = load("msm_G1_bls.json");
    size_t pairs = 0;
    for (const auto& c : cases) {
        const std::string name = c.at("Name");
        Bytes in = unhex(c.at("Input"));
        Bytes expected = unhex(c.at("Expected"));
        auto input = eip2537_g1_msm_input(in);
        ASSERT_TRUE(input.has_value()) << name << ": " << decode_error_message(*input.error());
        std::vector<Fr> scalars;
        for (const auto& k : input->scalars) scalars.push_back(Fr::from_limbs_reduce(k));
        G1Jacobian sum = msm_g1(input->points, scalars);
        EXPECT_EQ(to_bytes(eip2537_encode_g1(sum.to_affine())), expected) << name;
        if (input->points.size() <= 16) {
            auto ref = eip2537_g1_msm(in);
            ASSERT_TRUE(ref.has_value()) << name;
            EXPECT_EQ(to_bytes(*ref), expected) << name;
        }
        pairs += input->points.size();
    }
    EXPECT_GT(pairs, cases.size());
}

// No msm_G2 vectors are shipped: the G2 MSM over all mul_G2 inputs must equal the sum of their expected outputs,
// and so must the naive reference call over the concatenated input.
TEST(Eip2537Vectors, MsmG2AgainstSumOfMulG2) {
    auto cases = load("mul_G2_bls.json");
    Bytes all;
    G2Jacobian expected_sum = G2Jacobian::identity();
    for (const auto& c : cases) {
        Bytes in = unhex(c.at("Input"));
        all.insert(all.end(), in.begin(), in.end());
        expected_sum += eip2537_decode_g2(unhex(c.at("Expected"))).value().to_jacobian();
    }
    auto input = eip2537_g2_msm_input(all);
    ASSERT_TRUE(input.has_value());
    ASSERT_EQ(input->points.size(), cases.size());
    std::vector<Fr> scalars;
    for (const auto& k : input->scalars) scalars.push_back(Fr::from_limbs_reduce(k));
    EXPECT_EQ(msm_g2(input->points, scalars), expected_sum);
    auto ref = eip2537_g2_msm(all);
    ASSERT_TRUE(ref.has_value());
    EXPECT_EQ(to_bytes(*ref), to_bytes(eip2537_encode_g2(expected_sum.to_affine())));
}

TEST(Eip2537Vectors, PairingCheck) {
    auto cases = load("pairing_check_bls.json");
    for (const auto& c : cases) {
        const std::string name = c.at("Name");
        auto input = eip2537_pairing_input(unhex(c.at("Input")));
        ASSERT_TRUE(input.has_value()) << name << ": " << decode_error_message(*input.error());
        Bytes expected = unhex(c.at("Expected"));
        ASSERT_EQ(expected.size(), 32u) << name;
        Bytes got(32, 0);
        got[31] = pairing_product_is_one(input->g1, input->g2) ? 1 : 0;
        EXPECT_EQ(got, expected) << name;
    }
}

TEST(Eip2537Failures, Add) {
    check_failures("fail-add_G1_bls.json", [](const Bytes& in) { return eip2537_g1_add(in); });
    check_failures("fail-add_G2_bls.json", [](const Bytes& in) { return eip2537_g2_add(in); });
}

TEST(Eip2537Failures, Mul) {
    check_failures("fail-mul_G1_bls.json", [](const Bytes& in) { return eip2537_g1_mul(in); });
    check_failures("fail-mul_G2_bls.json", [](const Bytes& in) { return eip2537_g2_mul(in); });
}

TEST(Eip2537Failures, Msm) {
    check_failures("fail-msm_G1_bls.json", [](const Bytes& in) { return eip2537_g1_msm_input(in); });
    check_failures("fail-msm_G2_bls.json", [](const Bytes& in) { return eip2537_g2_msm_input(in); });
    // The reference calls reject the same inputs for the same reasons.
    check_failures("fail-msm_G1_bls.json", [](const Bytes& in) { return eip2537_g1_msm(in); });
    check_failures("fail-msm_G2_bls.json", [](const Bytes& in) { return eip2537_g2_msm(in); });
}

TEST(Eip2537Failures, PairingCheck) {
    check_failures("fail-pairing_check_bls.json", [](const Bytes& in) { return eip2537_pairing_input(in); });
}

// The point-level decoders give the same reasons as the calls: the first point of each fail-mul case (where the
// point, not the length, is what is wrong).
TEST(Eip2537Failures, PointDecodersGiveTheSameReason) {
    for (const auto& [file, g2] : {std::pair{"fail-mul_G1_bls.json", false}, std::pair{"fail-mul_G2_bls.json", true}}) {
        for (const auto& c : load(file)) {
            auto want = reason_of(c.at("ExpectedError"));
            ASSERT_TRUE(want.has_value());
            if (*want == DecodeError::BadLength) continue;
            Bytes in = unhex(c.at("Input"));
            const size_t n = g2 ? EIP2537_G2_BYTES : EIP2537_G1_BYTES;
            ASSERT_GE(in.size(), n);
            std::span<const uint8_t> point(in.data(), n);
            auto err = g2 ? eip2537_decode_g2(point).error() : eip2537_decode_g1(point).error();
            EXPECT_EQ(err, want) << file << " " << std::string(c.at("Name"));
        }
    }
}

}  // namespace
}  // namespace cuzk
