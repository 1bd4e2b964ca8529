// Group laws of G1 and G2 in every coordinate system, encoding round trips (zcash and EIP-2537), and one crafted
// input per DecodeError for every decoder. Random inputs come from a fixed seed so a failure reproduces.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cuzk/ec/eip2537.hpp"
#include "cuzk/ec/encoding.hpp"
#include "cuzk/ec/subgroup.hpp"

namespace cuzk {
namespace {

std::mt19937_64& rng() {
    static std::mt19937_64 g(0xc0ffee17ULL);
    return g;
}

// What the typed tests need to know about each group.
struct G1Kind {
    using Affine = G1Affine;
    using Jac = G1Jacobian;
    using Xyzz = G1XYZZ;
    using F = Fq;
    static F b() { return G1Config::b(); }
    static F random_field() { return Fq::random(rng()); }
};
struct G2Kind {
    using Affine = G2Affine;
    using Jac = G2Jacobian;
    using Xyzz = G2XYZZ;
    using F = Fq2;
    static F b() { return G2Config::b(); }
    static F random_field() { return Fq2::random(rng()); }
};

template <class K>
typename K::Jac random_subgroup_point() {
    return K::Jac::generator().mul(Fr::random(rng()).to_canonical());
}

// A random curve point without cofactor clearing (outside the subgroup with overwhelming probability).
template <class K>
typename K::Affine random_curve_point() {
    for (;;) {
        auto x = K::random_field();
        if (auto y = (x.square() * x + K::b()).sqrt()) return K::Affine::from_xy(x, *y);
    }
}

template <class K>
class CurveLaws : public ::testing::Test {};
using Kinds = ::testing::Types<G1Kind, G2Kind>;
TYPED_TEST_SUITE(CurveLaws, Kinds);

TYPED_TEST(CurveLaws, GeneratorIsOnCurveAndHasOrderR) {
    using K = TypeParam;
    auto g = K::Jac::generator();
    EXPECT_TRUE(K::Affine::generator().is_on_curve());
    EXPECT_FALSE(g.is_identity());
    EXPECT_TRUE(g.mul(Fr::P).is_identity());
    // r - 1 is not a multiple of the order: [r - 1]G = -G.
    EXPECT_EQ(g.mul(Fr::sub_one(Fr::P)), -g);
}

TYPED_TEST(CurveLaws, IdentityAndNegation) {
    using K = TypeParam;
    using Jac = typename K::Jac;
    using Affine = typename K::Affine;
    for (int i = 0; i < 4; i++) {
        Jac p = random_subgroup_point<K>();
        Affine pa = p.to_affine();
        EXPECT_EQ(p + Jac::identity(), p);
        EXPECT_EQ(Jac::identity() + p, p);
        EXPECT_TRUE((p - p).is_identity());
        EXPECT_TRUE((p + (-p)).is_identity());
        EXPECT_TRUE(p.add_mixed(-pa).is_identity());
        EXPECT_EQ(Jac::identity().add_mixed(pa), p);
        EXPECT_EQ(p.add_mixed(Affine::identity()), p);
        EXPECT_EQ((-p).to_affine(), -pa);
        EXPECT_EQ(-(-pa), pa);
        EXPECT_TRUE((-pa).is_on_curve());
        EXPECT_NE(pa, -pa);  // no point of order 2 on either curve
        EXPECT_TRUE((K::Xyzz::from_affine(pa).add_mixed(-pa)).is_identity());
        EXPECT_TRUE((K::Xyzz::from_affine(pa) + -K::Xyzz::from_affine(pa)).is_identity());
    }
    EXPECT_TRUE(Jac::identity().dbl().is_identity());
    EXPECT_TRUE(Affine::identity().is_on_curve());
    EXPECT_TRUE(Jac::identity().to_affine().is_identity());
    EXPECT_TRUE(K::Xyzz::identity().to_affine().is_identity());
}

TYPED_TEST(CurveLaws, AdditionIsCommutativeAndAssociativeAcrossCoordinateSystems) {
    using K = TypeParam;
    using Jac = typename K::Jac;
    using Xyzz = typename K::Xyzz;
    for (int i = 0; i < 6; i++) {
        Jac p = random_subgroup_point<K>(), q = random_subgroup_point<K>(), s = random_subgroup_point<K>();
        auto pa = p.to_affine(), qa = q.to_affine();
        Jac sum = p + q;
        EXPECT_TRUE(sum.is_on_curve());
        EXPECT_EQ(sum, q + p);
        EXPECT_EQ((p + q) + s, p + (q + s));
        EXPECT_EQ(p.add_mixed(qa), sum);
        EXPECT_EQ((Xyzz::from_affine(pa) + Xyzz::from_affine(qa)).to_affine(), sum.to_affine());
        EXPECT_EQ(Xyzz::from_affine(pa).add_mixed(qa).to_jacobian(), sum);
        EXPECT_EQ(Xyzz::from_affine(pa).sub_mixed(qa).to_jacobian(), p - q);
        // Projective inputs with Z != 1 (p + q, s + p) through every formula.
        Xyzz x1 = Xyzz::from_affine(pa).add_mixed(qa);
        Xyzz x2 = Xyzz::from_affine(s.to_affine()).add_mixed(pa);
        EXPECT_EQ((x1 + x2).to_jacobian(), sum + (s + p));
    }
}

TYPED_TEST(CurveLaws, DoublingEqualsAddingToItself) {
    using K = TypeParam;
    using Jac = typename K::Jac;
    using Xyzz = typename K::Xyzz;
    for (int i = 0; i < 4; i++) {
        Jac p = random_subgroup_point<K>();
        auto pa = p.to_affine();
        Jac d = p.dbl();
        EXPECT_TRUE(d.is_on_curve());
        EXPECT_EQ(d, p + p);
        EXPECT_EQ(d, p.add_mixed(pa));  // the exceptional "equal inputs" case of the mixed formula
        EXPECT_EQ(Xyzz::dbl_affine(pa).to_jacobian(), d);
        EXPECT_EQ(Xyzz::from_affine(pa).add_mixed(pa).to_jacobian(), d);
        EXPECT_EQ((Xyzz::from_affine(pa) + Xyzz::from_affine(pa)).to_jacobian(), d);
        EXPECT_EQ(Xyzz::from_affine(pa).dbl().to_jacobian(), d);
        EXPECT_EQ(p.mul(2), d);
        EXPECT_EQ(p.mul(3), d + p);
    }
}

TYPED_TEST(CurveLaws, ScalarMultiplicationDistributes) {
    using K = TypeParam;
    using Jac = typename K::Jac;
    for (int i = 0; i < 3; i++) {
        Jac p = random_subgroup_point<K>(), q = random_subgroup_point<K>();
        Fr a = Fr::random(rng()), b = Fr::random(rng());
        auto ka = a.to_canonical(), kb = b.to_canonical();
        // [a + b]P = [a]P + [b]P (mod r, since [r]P = O); [a]([b]P) = [ab]P; [a](P + Q) = [a]P + [a]Q.
        EXPECT_EQ(p.mul((a + b).to_canonical()), p.mul(ka) + p.mul(kb));
        EXPECT_EQ(p.mul(kb).mul(ka), p.mul((a * b).to_canonical()));
        EXPECT_EQ((p + q).mul(ka), p.mul(ka) + q.mul(ka));
        EXPECT_TRUE(p.mul(Fr::P).is_identity());
        EXPECT_TRUE(p.mul(limbs_t<4>{}).is_identity());
        EXPECT_EQ(p.mul(1), p);
        // An unreduced scalar a + r acts like a.
        limbs_t<5> a_plus_r{};
        bigint::add(a_plus_r, limbs_t<5>{ka[0], ka[1], ka[2], ka[3], 0},
                    limbs_t<5>{Fr::P[0], Fr::P[1], Fr::P[2], Fr::P[3], 0});
        EXPECT_EQ(p.mul(a_plus_r), p.mul(ka));
    }
}

TYPED_TEST(CurveLaws, BatchToAffineMatchesOneByOne) {
    using K = TypeParam;
    using Jac = typename K::Jac;
    std::vector<Jac> pts;
    for (int i = 0; i < 5; i++) pts.push_back(random_subgroup_point<K>());
    pts.insert(pts.begin() + 2, Jac::identity());
    auto aff = Jac::batch_to_affine(pts);
    ASSERT_EQ(aff.size(), pts.size());
    for (size_t i = 0; i < pts.size(); i++) EXPECT_EQ(aff[i], pts[i].to_affine()) << i;
}

TYPED_TEST(CurveLaws, NonSubgroupPointsFollowTheSameLaws) {
    using K = TypeParam;
    using Jac = typename K::Jac;
    auto pa = random_curve_point<K>(), qa = random_curve_point<K>();
    Jac p = pa.to_jacobian(), q = qa.to_jacobian();
    EXPECT_TRUE((p + q).is_on_curve());
    EXPECT_EQ(p + q, p.add_mixed(qa));
    EXPECT_EQ(p.dbl(), p + p);
    EXPECT_FALSE(p.mul(Fr::P).is_identity());
}

// ---- encodings --------------------------------------------------------------------------------------------------
template <class K>
struct Codec;
template <>
struct Codec<G1Kind> {
    static auto compress(const G1Affine& p) { return g1_to_compressed(p); }
    static auto uncompress(const G1Affine& p) { return g1_to_uncompressed(p); }
    static auto eip(const G1Affine& p) { return eip2537_encode_g1(p); }
    static Decoded<G1Affine> from_c(std::span<const uint8_t> s) { return g1_from_compressed(s); }
    static Decoded<G1Affine> from_u(std::span<const uint8_t> s) { return g1_from_uncompressed(s); }
    static Decoded<G1Affine> from_c_unchecked(std::span<const uint8_t> s) { return g1_from_compressed_unchecked(s); }
    static Decoded<G1Affine> from_u_unchecked(std::span<const uint8_t> s) { return g1_from_uncompressed_unchecked(s); }
    static G1Affine from_c_throw(std::span<const uint8_t> s) { return g1_from_compressed_or_throw(s); }
    static G1Affine from_u_throw(std::span<const uint8_t> s) { return g1_from_uncompressed_or_throw(s); }
    static Decoded<G1Affine> from_eip(std::span<const uint8_t> s) { return eip2537_decode_g1(s); }
    static Decoded<G1Affine> from_eip_unchecked(std::span<const uint8_t> s) { return eip2537_decode_g1_unchecked(s); }
    static G1Affine from_eip_throw(std::span<const uint8_t> s) { return eip2537_decode_g1_or_throw(s); }
};
template <>
struct Codec<G2Kind> {
    static auto compress(const G2Affine& p) { return g2_to_compressed(p); }
    static auto uncompress(const G2Affine& p) { return g2_to_uncompressed(p); }
    static auto eip(const G2Affine& p) { return eip2537_encode_g2(p); }
    static Decoded<G2Affine> from_c(std::span<const uint8_t> s) { return g2_from_compressed(s); }
    static Decoded<G2Affine> from_u(std::span<const uint8_t> s) { return g2_from_uncompressed(s); }
    static Decoded<G2Affine> from_c_unchecked(std::span<const uint8_t> s) { return g2_from_compressed_unchecked(s); }
    static Decoded<G2Affine> from_u_unchecked(std::span<const uint8_t> s) { return g2_from_uncompressed_unchecked(s); }
    static G2Affine from_c_throw(std::span<const uint8_t> s) { return g2_from_compressed_or_throw(s); }
    static G2Affine from_u_throw(std::span<const uint8_t> s) { return g2_from_uncompressed_or_throw(s); }
    static Decoded<G2Affine> from_eip(std::span<const uint8_t> s) { return eip2537_decode_g2(s); }
    static Decoded<G2Affine> from_eip_unchecked(std::span<const uint8_t> s) { return eip2537_decode_g2_unchecked(s); }
    static G2Affine from_eip_throw(std::span<const uint8_t> s) { return eip2537_decode_g2_or_throw(s); }
};

// The field bytes of p (canonical, big-endian) in the zcash order of the encodings.
void put_field_be(uint8_t* out, const limbs_t<6>& v) {
    for (size_t i = 0; i < 48; i++) out[47 - i] = (uint8_t)(v[i / 8] >> (8 * (i % 8)));
}

template <class K>
class CurveEncoding : public ::testing::Test {};
TYPED_TEST_SUITE(CurveEncoding, Kinds);

TYPED_TEST(CurveEncoding, RoundTripsIncludingInfinity) {
    using K = TypeParam;
    using C = Codec<K>;
    std::vector<typename K::Affine> pts{K::Affine::identity(), K::Affine::generator(), -K::Affine::generator()};
    for (int i = 0; i < 12; i++) pts.push_back(random_subgroup_point<K>().to_affine());
    bool saw_sort[2] = {false, false};
    for (const auto& p : pts) {
        auto c = C::compress(p);
        auto u = C::uncompress(p);
        auto e = C::eip(p);
        EXPECT_EQ(c[0] & ENCODING_FLAG_COMPRESSED, ENCODING_FLAG_COMPRESSED);
        EXPECT_EQ(u[0] & ENCODING_FLAG_COMPRESSED, 0);
        EXPECT_EQ((c[0] & ENCODING_FLAG_INFINITY) != 0, p.is_identity());
        EXPECT_EQ((u[0] & ENCODING_FLAG_INFINITY) != 0, p.is_identity());
        if (!p.is_identity()) saw_sort[(c[0] & ENCODING_FLAG_SORT) ? 1 : 0] = true;
        EXPECT_EQ(C::from_c(c).value(), p);
        EXPECT_EQ(C::from_u(u).value(), p);
        EXPECT_EQ(C::from_c_unchecked(c).value(), p);
        EXPECT_EQ(C::from_u_unchecked(u).value(), p);
        EXPECT_EQ(C::from_c_throw(c), p);
        EXPECT_EQ(C::from_u_throw(u), p);
        EXPECT_EQ(C::from_eip(e).value(), p);
        EXPECT_EQ(C::from_eip_unchecked(e).value(), p);
        EXPECT_EQ(C::from_eip_throw(e), p);
        EXPECT_FALSE(C::from_c(c).error().has_value());
        // Each encoding is a function of the point: re-encoding reproduces the bytes.
        EXPECT_EQ(C::compress(C::from_c(c).value()), c);
        EXPECT_EQ(C::uncompress(C::from_u(u).value()), u);
        EXPECT_EQ(C::eip(C::from_eip(e).value()), e);
    }
    EXPECT_TRUE(saw_sort[0] && saw_sort[1]) << "both roots should occur among the test points";
    // Canonical infinity bytes.
    auto ci = C::compress(K::Affine::identity());
    EXPECT_EQ(ci[0], 0xc0);
    EXPECT_TRUE(std::all_of(ci.begin() + 1, ci.end(), [](uint8_t b) { return b == 0; }));
    auto ui = C::uncompress(K::Affine::identity());
    EXPECT_EQ(ui[0], 0x40);
    EXPECT_TRUE(std::all_of(ui.begin() + 1, ui.end(), [](uint8_t b) { return b == 0; }));
    auto ei = C::eip(K::Affine::identity());
    EXPECT_TRUE(std::all_of(ei.begin(), ei.end(), [](uint8_t b) { return b == 0; }));
}

TYPED_TEST(CurveEncoding, UncheckedDecodersAcceptCurvePointsOutsideTheSubgroup) {
    using K = TypeParam;
    using C = Codec<K>;
    auto p = random_curve_point<K>();
    auto c = C::compress(p);
    auto u = C::uncompress(p);
    auto e = C::eip(p);
    EXPECT_EQ(C::from_c_unchecked(c).value(), p);
    EXPECT_EQ(C::from_u_unchecked(u).value(), p);
    EXPECT_EQ(C::from_eip_unchecked(e).value(), p);
    EXPECT_EQ(C::from_c(c).error(), DecodeError::NotInSubgroup);
    EXPECT_EQ(C::from_u(u).error(), DecodeError::NotInSubgroup);
    EXPECT_EQ(C::from_eip(e).error(), DecodeError::NotInSubgroup);
}

// Every DecodeError from a crafted input, for each decoder it applies to.
TYPED_TEST(CurveEncoding, EachDecodeErrorFromACraftedInput) {
    using K = TypeParam;
    using C = Codec<K>;
    using Bytes = std::vector<uint8_t>;
    const auto g = K::Affine::generator();
    const auto c_ok = C::compress(g);
    const auto u_ok = C::uncompress(g);
    const auto e_ok = C::eip(g);
    auto bytes = [](const auto& a) { return Bytes(a.begin(), a.end()); };
    auto expect_all = [&](const Bytes& in, DecodeError want, bool compressed) {
        if (compressed) {
            EXPECT_EQ(C::from_c(in).error(), want);
            EXPECT_EQ(C::from_c_unchecked(in).error(), want);
        } else {
            EXPECT_EQ(C::from_u(in).error(), want);
            EXPECT_EQ(C::from_u_unchecked(in).error(), want);
        }
    };

    // BadLength: one byte short, one byte long, empty; the zcash sizes swapped between forms.
    for (bool compressed : {true, false}) {
        Bytes ok = compressed ? bytes(c_ok) : bytes(u_ok);
        Bytes shorter(ok.begin(), ok.end() - 1), longer = ok;
        longer.push_back(0);
        expect_all(shorter, DecodeError::BadLength, compressed);
        expect_all(longer, DecodeError::BadLength, compressed);
        expect_all(Bytes{}, DecodeError::BadLength, compressed);
    }
    EXPECT_EQ(C::from_c(bytes(u_ok)).error(), DecodeError::BadLength);

    // BadFlags: compressed bit missing in a compressed encoding, present in an uncompressed one; sort bit in an
    // uncompressed encoding.
    {
        Bytes b = bytes(c_ok);
        b[0] &= (uint8_t)~ENCODING_FLAG_COMPRESSED;
        expect_all(b, DecodeError::BadFlags, true);
        Bytes u = bytes(u_ok);
        u[0] |= ENCODING_FLAG_COMPRESSED;
        expect_all(u, DecodeError::BadFlags, false);
        u = bytes(u_ok);
        u[0] |= ENCODING_FLAG_SORT;
        expect_all(u, DecodeError::BadFlags, false);
        // A compressed-infinity first byte at the uncompressed length: the compressed bit is what is wrong.
        Bytes ci(u_ok.size(), 0);
        ci[0] = 0xc0;
        expect_all(ci, DecodeError::BadFlags, false);
    }

    // NonCanonicalInfinity: infinity with x bits, with the sort bit, with a low bit of byte 0.
    {
        Bytes c(c_ok.size(), 0);
        c[0] = 0xc0;
        EXPECT_TRUE(C::from_c(c).value().is_identity());
        c.back() = 1;
        expect_all(c, DecodeError::NonCanonicalInfinity, true);
        c.back() = 0;
        c[0] = 0xe0;
        expect_all(c, DecodeError::NonCanonicalInfinity, true);
        c[0] = 0xc1;
        expect_all(c, DecodeError::NonCanonicalInfinity, true);
        Bytes u(u_ok.size(), 0);
        u[0] = 0x40;
        EXPECT_TRUE(C::from_u(u).value().is_identity());
        u[u.size() / 2] = 0x80;
        expect_all(u, DecodeError::NonCanonicalInfinity, false);
        // An infinity flag on the encoding of a real point.
        Bytes gi = bytes(u_ok);
        gi[0] |= ENCODING_FLAG_INFINITY;
        expect_all(gi, DecodeError::NonCanonicalInfinity, false);
    }

    // CoordinateNotInField: p itself in each 48-byte slot (flags preserved in byte 0).
    {
        const size_t slots_c = c_ok.size() / 48, slots_u = u_ok.size() / 48;
        for (size_t s = 0; s < slots_c; s++) {
            Bytes c = bytes(c_ok);
            uint8_t flags = c[0] & 0xe0;
            put_field_be(c.data() + 48 * s, Fq::P);
            if (s == 0) c[0] |= flags;
            expect_all(c, DecodeError::CoordinateNotInField, true);
        }
        for (size_t s = 0; s < slots_u; s++) {
            Bytes u = bytes(u_ok);
            put_field_be(u.data() + 48 * s, Fq::P);
            expect_all(u, DecodeError::CoordinateNotInField, false);
        }
        // All 381 value bits set (2^381 - 1 > p) in a compressed encoding.
        Bytes c = bytes(c_ok);
        std::fill(c.begin(), c.begin() + 48, 0xff);
        c[0] = 0x9f;
        expect_all(c, DecodeError::CoordinateNotInField, true);
    }

    // NotOnCurve: y + 1 in the uncompressed encoding.
    {
        auto bad = K::Affine::from_xy(g.x, g.y + K::F::one());
        expect_all(bytes(C::uncompress(bad)), DecodeError::NotOnCurve, false);
        EXPECT_EQ(C::from_eip(bytes(C::eip(bad))).error(), DecodeError::NotOnCurve);
        EXPECT_EQ(C::from_eip_unchecked(bytes(C::eip(bad))).error(), DecodeError::NotOnCurve);
    }

    // NotASquare: an x with x^3 + b a non-square (about half of all x).
    {
        typename K::F x;
        do x = K::random_field();
        while ((x.square() * x + K::b()).legendre() != -1);
        auto fake = K::Affine::from_xy(x, K::F::one());  // y is not encoded in the compressed form
        Bytes c = bytes(C::compress(fake));
        c[0] &= (uint8_t)~ENCODING_FLAG_SORT;
        expect_all(c, DecodeError::NotASquare, true);
        c[0] |= ENCODING_FLAG_SORT;
        expect_all(c, DecodeError::NotASquare, true);
    }

    // NotInSubgroup: only the checked decoders test it (see UncheckedDecodersAcceptCurvePointsOutsideTheSubgroup).
    {
        auto p = random_curve_point<K>();
        EXPECT_EQ(C::from_c(bytes(C::compress(p))).error(), DecodeError::NotInSubgroup);
        EXPECT_EQ(C::from_u(bytes(C::uncompress(p))).error(), DecodeError::NotInSubgroup);
        EXPECT_THROW(C::from_c_throw(bytes(C::compress(p))), DecodeException);
    }

    // EIP-2537: BadLength, NonZeroPadding (any of the 16 bytes above each Fq), CoordinateNotInField.
    {
        Bytes e = bytes(e_ok);
        EXPECT_EQ(C::from_eip(Bytes(e.begin(), e.end() - 1)).error(), DecodeError::BadLength);
        EXPECT_EQ(C::from_eip(Bytes(c_ok.begin(), c_ok.end())).error(), DecodeError::BadLength);
        for (size_t fp = 0; fp < e.size() / 64; fp++) {
            for (size_t at : {size_t{0}, size_t{15}}) {
                Bytes b = e;
                b[64 * fp + at] = 1;
                EXPECT_EQ(C::from_eip(b).error(), DecodeError::NonZeroPadding) << fp << " " << at;
                EXPECT_EQ(C::from_eip_unchecked(b).error(), DecodeError::NonZeroPadding);
            }
            Bytes b = e;
            put_field_be(b.data() + 64 * fp + 16, Fq::P);
            EXPECT_EQ(C::from_eip(b).error(), DecodeError::CoordinateNotInField) << fp;
        }
        // The zero padding of an all-zero infinity is what makes it infinity; a stray bit breaks it.
        Bytes zero(e.size(), 0);
        EXPECT_TRUE(C::from_eip(zero).value().is_identity());
        zero[3] = 0x10;
        EXPECT_EQ(C::from_eip(zero).error(), DecodeError::NonZeroPadding);
    }
}

TEST(CurveDecodeError, ExceptionsNameTheReason) {
    std::vector<uint8_t> short_input(47, 0);
    try {
        (void)g1_from_compressed_or_throw(short_input);
        ADD_FAILURE() << "no exception";
    } catch (const DecodeException& e) {
        EXPECT_EQ(e.error(), DecodeError::BadLength);
        std::string what = e.what();
        EXPECT_NE(what.find(decode_error_message(DecodeError::BadLength)), std::string::npos) << what;
        EXPECT_NE(what.find("G1 compressed"), std::string::npos) << what;
    }
    // Decoded::value() on a failure throws with the reason too.
    auto d = g2_from_uncompressed(std::vector<uint8_t>(192, 0));  // no infinity flag, (0, 0) is not on E'
    EXPECT_EQ(d.error(), DecodeError::NotOnCurve);
    EXPECT_FALSE(d.has_value());
    EXPECT_THROW((void)d.value(), DecodeException);
    // Every reason has a distinct message.
    std::vector<std::string> msgs;
    for (auto e : {DecodeError::BadLength, DecodeError::BadFlags, DecodeError::NonCanonicalInfinity,
                   DecodeError::CoordinateNotInField, DecodeError::NotOnCurve, DecodeError::NotInSubgroup,
                   DecodeError::NotASquare, DecodeError::NonZeroPadding}) {
        std::string m(decode_error_message(e));
        EXPECT_FALSE(m.empty());
        EXPECT_EQ(std::count(msgs.begin(), msgs.end(), m), 0) << m;
        msgs.push_back(m);
    }
}

// Arbitrary bytes never crash a decoder; whatever the checked decoders accept is a subgroup point.
TEST(CurveDecodeError, RandomBytesAreRejectedOrValid) {
    std::uniform_int_distribution<int> byte(0, 255);
    size_t accepted = 0;
    for (int i = 0; i < 400; i++) {
        const size_t sizes[] = {0, 1, 47, 48, 49, 95, 96, 97, 128, 191, 192, 256};
        std::vector<uint8_t> in(sizes[i % 12]);
        for (auto& b : in) b = (uint8_t)byte(rng());
        // Bias toward plausible flags so the deeper checks run too.
        if (!in.empty() && i % 3 == 0) in[0] = (uint8_t)((in[0] & 0x1f) | 0x80);
        if (auto p = g1_from_compressed(in)) {
            accepted++;
            EXPECT_TRUE(g1_in_subgroup_naive(*p));
        }
        if (auto p = g2_from_compressed(in)) {
            accepted++;
            EXPECT_TRUE(g2_in_subgroup_naive(*p));
        }
        EXPECT_FALSE(g1_from_uncompressed(in).has_value() && !g1_from_uncompressed(in)->is_identity());
        EXPECT_FALSE(g2_from_uncompressed(in).has_value() && !g2_from_uncompressed(in)->is_identity());
        EXPECT_FALSE(eip2537_decode_g1(in).has_value());
        EXPECT_FALSE(eip2537_decode_g2(in).has_value());
        if (auto p = g1_from_compressed_unchecked(in)) {
            EXPECT_TRUE(p->is_on_curve());
        }
        if (auto p = g2_from_compressed_unchecked(in)) {
            EXPECT_TRUE(p->is_on_curve());
        }
    }
    // A random x gives a subgroup point with probability ~1/h: random bytes must essentially never be accepted.
    EXPECT_EQ(accepted, 0u);
}

}  // namespace
}  // namespace cuzk
