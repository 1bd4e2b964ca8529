// The zkcrypto bls12_381 encoding vectors (../shared/vectors/bls12_381/): file k holds the encodings of i*G for
// i = 0..999 (i = 0 is the point at infinity). Each one must decode (checked and unchecked) to the i*G computed
// here, and re-encode to the same bytes.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cuzk/ec/encoding.hpp"

#ifndef CUZK_VECTORS_DIR
#error "CUZK_VECTORS_DIR must name the shared vectors directory"
#endif

namespace cuzk {
namespace {

constexpr size_t kPoints = 1000;

std::vector<uint8_t> read_vector_file(const std::string& name) {
    std::string path = std::string(CUZK_VECTORS_DIR) + "/bls12_381/" + name;
    std::ifstream f(path, std::ios::binary);
    EXPECT_TRUE(f.good()) << "cannot open " << path;
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// 0*G, 1*G, ..., (n-1)*G by repeated addition, converted with one inversion.
template <class Jac>
auto multiples_of_generator(size_t n) {
    std::vector<Jac> pts(n);
    pts[0] = Jac::identity();
    for (size_t i = 1; i < n; i++) pts[i] = pts[i - 1] + Jac::generator();
    return Jac::batch_to_affine(pts);
}

template <class Affine, size_t BYTES>
void check_file(const std::string& name, const std::vector<Affine>& expected,
                Decoded<Affine> (*decode)(std::span<const uint8_t>),
                Decoded<Affine> (*decode_unchecked)(std::span<const uint8_t>),
                std::array<uint8_t, BYTES> (*encode)(const Affine&)) {
    std::vector<uint8_t> data = read_vector_file(name);
    ASSERT_EQ(data.size(), kPoints * BYTES) << name;
    for (size_t i = 0; i < kPoints; i++) {
        std::span<const uint8_t> bytes(data.data() + i * BYTES, BYTES);
        auto p = decode(bytes);
        ASSERT_TRUE(p.has_value()) << name << " point " << i << ": " << decode_error_message(*p.error());
        EXPECT_EQ(*p, expected[i]) << name << " point " << i;
        EXPECT_EQ(p->is_identity(), i == 0) << name << " point " << i;
        auto enc = encode(*p);
        EXPECT_TRUE(std::equal(enc.begin(), enc.end(), bytes.begin())) << name << " re-encoding of point " << i;
        auto u = decode_unchecked(bytes);
        ASSERT_TRUE(u.has_value()) << name << " point " << i;
        EXPECT_EQ(*u, *p);
    }
}

TEST(ZcashVectors, G1Uncompressed) {
    auto expected = multiples_of_generator<G1Jacobian>(kPoints);
    check_file<G1Affine, G1_UNCOMPRESSED_BYTES>("g1_uncompressed_valid_test_vectors.dat", expected,
                                                g1_from_uncompressed, g1_from_uncompressed_unchecked,
                                                g1_to_uncompressed);
}

TEST(ZcashVectors, G1Compressed) {
    auto expected = multiples_of_generator<G1Jacobian>(kPoints);
    check_file<G1Affine, G1_COMPRESSED_BYTES>("g1_compressed_valid_test_vectors.dat", expected, g1_from_compressed,
                                              g1_from_compressed_unchecked, g1_to_compressed);
}

TEST(ZcashVectors, G2Uncompressed) {
    auto expected = multiples_of_generator<G2Jacobian>(kPoints);
    check_file<G2Affine, G2_UNCOMPRESSED_BYTES>("g2_uncompressed_valid_test_vectors.dat", expected,
                                                g2_from_uncompressed, g2_from_uncompressed_unchecked,
                                                g2_to_uncompressed);
}

TEST(ZcashVectors, G2Compressed) {
    auto expected = multiples_of_generator<G2Jacobian>(kPoints);
    check_file<G2Affine, G2_COMPRESSED_BYTES>("g2_compressed_valid_test_vectors.dat", expected, g2_from_compressed,
                                              g2_from_compressed_unchecked, g2_to_compressed);
}

// A flipped sort bit selects -P, which is still a valid point: the vectors must not decode to the same point.
TEST(ZcashVectors, SortBitSelectsTheRoot) {
    std::vector<uint8_t> data = read_vector_file("g1_compressed_valid_test_vectors.dat");
    ASSERT_EQ(data.size(), kPoints * G1_COMPRESSED_BYTES);
    for (size_t i = 1; i < 20; i++) {
        std::vector<uint8_t> b(data.begin() + i * 48, data.begin() + (i + 1) * 48);
        auto p = g1_from_compressed(b).value();
        b[0] ^= ENCODING_FLAG_SORT;
        EXPECT_EQ(g1_from_compressed(b).value(), -p) << i;
    }
}

}  // namespace
}  // namespace cuzk
