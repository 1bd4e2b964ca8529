// The bulk point decoder (cuzk/formats/point_decode.hpp) against the point-by-point decoder it replaces in the
// parameter loaders: the same points and the same first failing index on random points with every kind of bad
// point planted at a random position (bad flags, a coordinate >= p, off the curve, infinity canonical or not,
// with and without infinity allowed), at lengths that are and are not multiples of eight. With AVX-512 IFMA on
// and off where the CPU has it (eight points at a time), else the scalar path only.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <span>
#include <vector>

#include "cuzk/ec/encoding.hpp"
#include "cuzk/ec/random_points.hpp"
#include "cuzk/formats/point_decode.hpp"
#include "cuzk/msm/batch_add_ifma.hpp"
#include "seeded_rng.hpp"

namespace cuzk {
namespace {

using testing::seeded_rng;

struct IfmaSetting {
    explicit IfmaSetting(bool on) : prev(msm_detail::set_ifma_enabled(on)) {}
    ~IfmaSetting() { msm_detail::set_ifma_enabled(prev); }
    bool prev;
};

std::vector<bool> ifma_modes() {
    if (msm_detail::ifma_supported()) return {false, true};
    return {false};
}

template <class A>
struct Codec;
template <>
struct Codec<G1Affine> {
    static constexpr size_t kBytes = G1_UNCOMPRESSED_BYTES;
    static std::array<uint8_t, kBytes> encode(const G1Affine& p) { return g1_to_uncompressed(p); }
    static Decoded<G1Affine> one(std::span<const uint8_t> b) { return g1_from_uncompressed_unchecked(b); }
    static size_t bulk(const uint8_t* in, size_t n, G1Affine* out, bool inf) {
        return formats::decode_g1_uncompressed(in, n, out, inf);
    }
    static std::vector<G1Affine> points(size_t n, uint64_t seed) { return random_points<G1Config>(n, seed); }
};
template <>
struct Codec<G2Affine> {
    static constexpr size_t kBytes = G2_UNCOMPRESSED_BYTES;
    static std::array<uint8_t, kBytes> encode(const G2Affine& p) { return g2_to_uncompressed(p); }
    static Decoded<G2Affine> one(std::span<const uint8_t> b) { return g2_from_uncompressed_unchecked(b); }
    static size_t bulk(const uint8_t* in, size_t n, G2Affine* out, bool inf) {
        return formats::decode_g2_uncompressed(in, n, out, inf);
    }
    static std::vector<G2Affine> points(size_t n, uint64_t seed) { return random_points<G2Config>(n, seed); }
};

// The reference: the first index the point-by-point decoder rejects (or finds at infinity when not allowed).
template <class A>
size_t reference_first_bad(const std::vector<uint8_t>& bytes, size_t n, bool allow_infinity) {
    for (size_t i = 0; i < n; i++) {
        auto d = Codec<A>::one(std::span<const uint8_t>(bytes.data() + i * Codec<A>::kBytes, Codec<A>::kBytes));
        if (!d || (!allow_infinity && d->is_identity())) return i;
    }
    return n;
}

// Plants a defect of kind k at point i (1: bad flags, 2: x >= p, 3: off the curve, 4: canonical infinity,
// 5: non-canonical infinity).
void plant(uint8_t* p, size_t bytes, int k, std::mt19937_64& rng) {
    switch (k) {
        case 1: p[0] |= (rng() & 1) ? 0x80 : 0x20; break;
        case 2: std::memset(p, 0x1f, bytes / 2); break;  // x = 0x1f1f...: above p in the top limb (p < 0x1a02 << 368)
        case 3: p[bytes - 1] ^= (uint8_t)(1 + rng() % 255); break;  // y changed: off the curve (or y >= p)
        case 4: std::memset(p, 0, bytes), p[0] = 0x40; break;
        case 5: std::memset(p, 0, bytes), p[0] = 0x40, p[bytes - 1] = 1; break;
    }
}

template <class A>
void check_against_reference(const char* name) {
    auto rng = seeded_rng(name);
    for (bool ifma : ifma_modes()) {
        IfmaSetting setting(ifma);
        for (size_t n : {size_t(0), size_t(1), size_t(7), size_t(8), size_t(9), size_t(64), size_t(203)}) {
            const auto pts = Codec<A>::points(n, rng());
            std::vector<uint8_t> bytes(n * Codec<A>::kBytes);
            for (size_t i = 0; i < n; i++) {
                auto e = Codec<A>::encode(pts[i]);
                std::memcpy(bytes.data() + i * Codec<A>::kBytes, e.data(), e.size());
            }
            for (int kind = 0; kind <= 5; kind++) {
                for (bool allow_infinity : {false, true}) {
                    std::vector<uint8_t> b = bytes;
                    size_t at = n;
                    if (kind && n) {
                        at = rng() % n;
                        plant(b.data() + at * Codec<A>::kBytes, Codec<A>::kBytes, kind, rng);
                    }
                    const size_t want = reference_first_bad<A>(b, n, allow_infinity);
                    if (kind == 0) {
                        ASSERT_EQ(want, n);
                    }
                    if (kind == 4 && n) {
                        ASSERT_EQ(want, allow_infinity ? n : at);
                    }
                    if (kind && kind != 4 && n) {
                        ASSERT_EQ(want, at) << "kind " << kind;
                    }
                    std::vector<A> out(n);
                    const size_t got = Codec<A>::bulk(b.data(), n, out.data(), allow_infinity);
                    ASSERT_EQ(got, want) << "ifma " << ifma << " n " << n << " kind " << kind;
                    for (size_t i = 0; i < got; i++) {
                        auto d = Codec<A>::one(std::span<const uint8_t>(b.data() + i * Codec<A>::kBytes,
                                                                        Codec<A>::kBytes));
                        ASSERT_TRUE(d);
                        ASSERT_EQ(out[i], *d) << "ifma " << ifma << " n " << n << " point " << i;
                        ASSERT_TRUE(out[i].is_on_curve());
                    }
                }
            }
        }
    }
}

TEST(PointDecode, G1MatchesThePointByPointDecoder) { check_against_reference<G1Affine>("PointDecode.G1"); }
TEST(PointDecode, G2MatchesThePointByPointDecoder) { check_against_reference<G2Affine>("PointDecode.G2"); }

// The vector path writes fully reduced Montgomery coordinates (x * 2^384 mod p below p), the Fq invariant, for
// points and their negations (y and p - y) alike.
TEST(PointDecode, ReducedCoordinatesAtTheirBound) {
    for (bool ifma : ifma_modes()) {
        IfmaSetting setting(ifma);
        auto pts = random_points<G1Config>(64, 7);
        for (size_t i = 0; i < pts.size(); i += 2) pts[i] = -pts[i];
        std::vector<uint8_t> b(pts.size() * G1_UNCOMPRESSED_BYTES);
        for (size_t i = 0; i < pts.size(); i++) {
            auto e = g1_to_uncompressed(pts[i]);
            std::memcpy(b.data() + i * G1_UNCOMPRESSED_BYTES, e.data(), e.size());
        }
        std::vector<G1Affine> out(pts.size());
        ASSERT_EQ(formats::decode_g1_uncompressed(b.data(), pts.size(), out.data(), false), pts.size());
        for (size_t i = 0; i < pts.size(); i++) {
            ASSERT_EQ(out[i], pts[i]) << "ifma " << ifma << " point " << i;
            ASSERT_LT(bigint::cmp(out[i].x.mont_limbs(), FqConfig::MODULUS), 0);
            ASSERT_LT(bigint::cmp(out[i].y.mont_limbs(), FqConfig::MODULUS), 0);
        }
    }
}

}  // namespace
}  // namespace cuzk
