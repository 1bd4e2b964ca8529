#include "cuzk/ec/encoding.hpp"

#include <algorithm>
#include <cstring>

#include "cuzk/ec/subgroup.hpp"

namespace cuzk {

std::string_view decode_error_message(DecodeError e) {
    switch (e) {
        case DecodeError::BadLength: return "input has the wrong length";
        case DecodeError::BadFlags: return "flag bits do not match the encoding";
        case DecodeError::NonCanonicalInfinity: return "point at infinity is not encoded canonically";
        case DecodeError::CoordinateNotInField: return "coordinate is not less than the field modulus";
        case DecodeError::NotOnCurve: return "point is not on the curve";
        case DecodeError::NotInSubgroup: return "point is not in the prime-order subgroup";
        case DecodeError::NotASquare: return "compressed x has no corresponding y (x^3 + b is not a square)";
        case DecodeError::NonZeroPadding: return "padding above a field element is not zero";
    }
    return "unknown decode error";
}

DecodeException::DecodeException(DecodeError e, std::string_view what_was_decoded)
    : std::runtime_error("cannot decode " + std::string(what_was_decoded) + ": " +
                         std::string(decode_error_message(e))),
      error_(e) {}

namespace {

constexpr uint8_t FLAG_MASK = ENCODING_FLAG_COMPRESSED | ENCODING_FLAG_INFINITY | ENCODING_FLAG_SORT;

bool all_zero(std::span<const uint8_t> s) {
    return std::all_of(s.begin(), s.end(), [](uint8_t b) { return b == 0; });
}

void put_fq(uint8_t* out, const Fq& v) { v.to_bytes_be(out); }

// Reads a 48-byte Fq at `at`; when `strip_flags`, the top 3 bits (zcash flags) are cleared first.
std::optional<Fq> get_fq(std::span<const uint8_t> in, size_t at, bool strip_flags) {
    uint8_t buf[FQ_BYTES];
    std::memcpy(buf, in.data() + at, FQ_BYTES);
    if (strip_flags) buf[0] &= (uint8_t)~FLAG_MASK;
    return Fq::from_bytes_be(buf);
}

// What differs between the two curves: the coordinate field, its byte order, b, and the subgroup test.
struct G1Traits {
    using Affine = G1Affine;
    using F = Fq;
    static constexpr size_t FIELD_BYTES = FQ_BYTES;
    static constexpr const char* NAME_COMPRESSED = "G1 compressed point";
    static constexpr const char* NAME_UNCOMPRESSED = "G1 uncompressed point";
    static void put(uint8_t* out, const Fq& v) { put_fq(out, v); }
    static std::optional<Fq> get(std::span<const uint8_t> in, size_t at, bool strip_flags) {
        return get_fq(in, at, strip_flags);
    }
    static Fq b() { return G1Config::b(); }
    static bool in_subgroup(const G1Affine& p) { return g1_in_subgroup(p); }
};

struct G2Traits {
    using Affine = G2Affine;
    using F = Fq2;
    static constexpr size_t FIELD_BYTES = 2 * FQ_BYTES;
    static constexpr const char* NAME_COMPRESSED = "G2 compressed point";
    static constexpr const char* NAME_UNCOMPRESSED = "G2 uncompressed point";
    // zcash order: c1 first.
    static void put(uint8_t* out, const Fq2& v) {
        put_fq(out, v.c1);
        put_fq(out + FQ_BYTES, v.c0);
    }
    static std::optional<Fq2> get(std::span<const uint8_t> in, size_t at, bool strip_flags) {
        auto c1 = get_fq(in, at, strip_flags);
        auto c0 = get_fq(in, at + FQ_BYTES, false);
        if (!c1 || !c0) return std::nullopt;
        return Fq2{*c0, *c1};
    }
    static Fq2 b() { return G2Config::b(); }
    static bool in_subgroup(const G2Affine& p) { return g2_in_subgroup(p); }
};

template <class Tr>
std::array<uint8_t, Tr::FIELD_BYTES> encode_compressed(const typename Tr::Affine& p) {
    std::array<uint8_t, Tr::FIELD_BYTES> out{};
    if (p.infinity) {
        out[0] = ENCODING_FLAG_COMPRESSED | ENCODING_FLAG_INFINITY;
        return out;
    }
    Tr::put(out.data(), p.x);
    out[0] |= ENCODING_FLAG_COMPRESSED;
    if (p.y.lexicographically_largest()) out[0] |= ENCODING_FLAG_SORT;
    return out;
}

template <class Tr>
std::array<uint8_t, 2 * Tr::FIELD_BYTES> encode_uncompressed(const typename Tr::Affine& p) {
    std::array<uint8_t, 2 * Tr::FIELD_BYTES> out{};
    if (p.infinity) {
        out[0] = ENCODING_FLAG_INFINITY;
        return out;
    }
    Tr::put(out.data(), p.x);
    Tr::put(out.data() + Tr::FIELD_BYTES, p.y);
    return out;
}

template <class Tr>
Decoded<typename Tr::Affine> decode_compressed(std::span<const uint8_t> in, bool check_subgroup) {
    using A = typename Tr::Affine;
    if (in.size() != Tr::FIELD_BYTES) return Decoded<A>::fail(DecodeError::BadLength);
    const uint8_t flags = in[0] & FLAG_MASK;
    if (!(flags & ENCODING_FLAG_COMPRESSED)) return Decoded<A>::fail(DecodeError::BadFlags);
    if (flags & ENCODING_FLAG_INFINITY) {
        // Canonical: exactly the compressed and infinity bits (no sort bit, no x).
        if ((flags & ENCODING_FLAG_SORT) || (in[0] & ~FLAG_MASK) || !all_zero(in.subspan(1)))
            return Decoded<A>::fail(DecodeError::NonCanonicalInfinity);
        return Decoded<A>::ok(A::identity());
    }
    auto x = Tr::get(in, 0, true);
    if (!x) return Decoded<A>::fail(DecodeError::CoordinateNotInField);
    auto y = (x->square() * *x + Tr::b()).sqrt();
    if (!y) return Decoded<A>::fail(DecodeError::NotASquare);
    // y != 0 here (E(Fq) and E'(Fq2) have odd order, so no point has y = 0): the two roots differ in the flag.
    const bool want_largest = (flags & ENCODING_FLAG_SORT) != 0;
    if (y->lexicographically_largest() != want_largest) *y = -*y;
    A p = A::from_xy(*x, *y);
    if (check_subgroup && !Tr::in_subgroup(p)) return Decoded<A>::fail(DecodeError::NotInSubgroup);
    return Decoded<A>::ok(p);
}

template <class Tr>
Decoded<typename Tr::Affine> decode_uncompressed(std::span<const uint8_t> in, bool check_subgroup) {
    using A = typename Tr::Affine;
    if (in.size() != 2 * Tr::FIELD_BYTES) return Decoded<A>::fail(DecodeError::BadLength);
    const uint8_t flags = in[0] & FLAG_MASK;
    if (flags & (ENCODING_FLAG_COMPRESSED | ENCODING_FLAG_SORT)) return Decoded<A>::fail(DecodeError::BadFlags);
    if (flags & ENCODING_FLAG_INFINITY) {
        if ((in[0] & ~FLAG_MASK) || !all_zero(in.subspan(1)))
            return Decoded<A>::fail(DecodeError::NonCanonicalInfinity);
        return Decoded<A>::ok(A::identity());
    }
    auto x = Tr::get(in, 0, false);  // the flag bits are zero here, so nothing to strip
    auto y = Tr::get(in, Tr::FIELD_BYTES, false);
    if (!x || !y) return Decoded<A>::fail(DecodeError::CoordinateNotInField);
    A p = A::from_xy(*x, *y);
    if (!p.is_on_curve()) return Decoded<A>::fail(DecodeError::NotOnCurve);
    if (check_subgroup && !Tr::in_subgroup(p)) return Decoded<A>::fail(DecodeError::NotInSubgroup);
    return Decoded<A>::ok(p);
}

template <class T>
T or_throw(Decoded<T>&& d, const char* what) {
    if (auto e = d.error()) throw DecodeException(*e, what);
    return *d;
}

}  // namespace

std::array<uint8_t, G1_COMPRESSED_BYTES> g1_to_compressed(const G1Affine& p) { return encode_compressed<G1Traits>(p); }
std::array<uint8_t, G1_UNCOMPRESSED_BYTES> g1_to_uncompressed(const G1Affine& p) {
    return encode_uncompressed<G1Traits>(p);
}
std::array<uint8_t, G2_COMPRESSED_BYTES> g2_to_compressed(const G2Affine& p) { return encode_compressed<G2Traits>(p); }
std::array<uint8_t, G2_UNCOMPRESSED_BYTES> g2_to_uncompressed(const G2Affine& p) {
    return encode_uncompressed<G2Traits>(p);
}

Decoded<G1Affine> g1_from_compressed(std::span<const uint8_t> in) { return decode_compressed<G1Traits>(in, true); }
Decoded<G1Affine> g1_from_uncompressed(std::span<const uint8_t> in) { return decode_uncompressed<G1Traits>(in, true); }
Decoded<G2Affine> g2_from_compressed(std::span<const uint8_t> in) { return decode_compressed<G2Traits>(in, true); }
Decoded<G2Affine> g2_from_uncompressed(std::span<const uint8_t> in) { return decode_uncompressed<G2Traits>(in, true); }

Decoded<G1Affine> g1_from_compressed_unchecked(std::span<const uint8_t> in) {
    return decode_compressed<G1Traits>(in, false);
}
Decoded<G1Affine> g1_from_uncompressed_unchecked(std::span<const uint8_t> in) {
    return decode_uncompressed<G1Traits>(in, false);
}
Decoded<G2Affine> g2_from_compressed_unchecked(std::span<const uint8_t> in) {
    return decode_compressed<G2Traits>(in, false);
}
Decoded<G2Affine> g2_from_uncompressed_unchecked(std::span<const uint8_t> in) {
    return decode_uncompressed<G2Traits>(in, false);
}

G1Affine g1_from_compressed_or_throw(std::span<const uint8_t> in) {
    return or_throw(g1_from_compressed(in), G1Traits::NAME_COMPRESSED);
}
G1Affine g1_from_uncompressed_or_throw(std::span<const uint8_t> in) {
    return or_throw(g1_from_uncompressed(in), G1Traits::NAME_UNCOMPRESSED);
}
G2Affine g2_from_compressed_or_throw(std::span<const uint8_t> in) {
    return or_throw(g2_from_compressed(in), G2Traits::NAME_COMPRESSED);
}
G2Affine g2_from_uncompressed_or_throw(std::span<const uint8_t> in) {
    return or_throw(g2_from_uncompressed(in), G2Traits::NAME_UNCOMPRESSED);
}

}  // namespace cuzk
