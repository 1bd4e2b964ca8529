// The zcash / bellman point encodings of BLS12-381 (also used by bellperson parameter and proof files):
//   G1 compressed 48 B: x                          G1 uncompressed  96 B: x || y
//   G2 compressed 96 B: x.c1 || x.c0               G2 uncompressed 192 B: x.c1 || x.c0 || y.c1 || y.c0
// Every Fq is 48 bytes big-endian, canonical (< p). p < 2^381 leaves the top 3 bits of byte 0 free for flags:
//   bit 7  compressed     set in the compressed forms, clear in the uncompressed forms
//   bit 6  infinity       the point at infinity; then every other bit of the encoding is zero
//   bit 5  sort           compressed only: y is the lexicographically larger of the two roots (Fq::P_MINUS_1_OVER_2
//                         for Fq; for Fq2 the c1 part decides unless it is zero)
//
// The checked decoders accept exactly the encodings the encoders produce for points of G1 / G2, and report why they
// reject anything else. All decoders are pure functions of their input, so a parameter file can be decoded in
// parallel.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "cuzk/ec/g1.hpp"
#include "cuzk/ec/g2.hpp"

namespace cuzk {

// Why an encoding was rejected. Shared by the zcash and the EIP-2537 decoders.
enum class DecodeError : uint8_t {
    BadLength = 1,         // the input is not the encoding's fixed size (or, for EIP-2537 calls, not a multiple of it)
    BadFlags,              // compressed bit does not match the decoder, or the sort bit in an uncompressed encoding
    NonCanonicalInfinity,  // infinity flag set but some other bit set (including the sort bit)
    CoordinateNotInField,  // a coordinate (or a half of an Fq2 coordinate) is >= p
    NotOnCurve,            // (x, y) does not satisfy the curve equation
    NotInSubgroup,         // on the curve, but not in the order-r subgroup
    NotASquare,            // compressed: x^3 + b has no square root, so no point has this x
    NonZeroPadding,        // EIP-2537: one of the 16 bytes above a 48-byte Fq is not zero
};

// A short lower-case sentence naming the reason, e.g. "point is not in the prime-order subgroup".
std::string_view decode_error_message(DecodeError e);

// Thrown by the *_or_throw wrappers and by Decoded::value(); what() names the reason and the encoding.
class DecodeException : public std::runtime_error {
  public:
    DecodeException(DecodeError e, std::string_view what_was_decoded);
    DecodeError error() const { return error_; }

  private:
    DecodeError error_;
};

// The result of a decoder: a value, or the reason there is none (C++20 has no std::expected).
template <class T>
class Decoded {
  public:
    static Decoded ok(T v) {
        Decoded d;
        d.value_ = std::move(v);
        return d;
    }
    static Decoded fail(DecodeError e) {
        Decoded d;
        d.error_ = e;
        return d;
    }

    bool has_value() const { return value_.has_value(); }
    explicit operator bool() const { return has_value(); }
    // nullopt exactly when there is a value.
    std::optional<DecodeError> error() const { return value_ ? std::nullopt : std::optional<DecodeError>(error_); }
    // Throws DecodeException naming the reason when there is no value.
    const T& value() const {
        if (!value_) throw DecodeException(error_, "value");
        return *value_;
    }
    const T& operator*() const { return value(); }
    const T* operator->() const { return &value(); }

  private:
    Decoded() = default;
    std::optional<T> value_;
    DecodeError error_ = DecodeError::BadLength;
};

inline constexpr size_t FQ_BYTES = 48;
inline constexpr size_t G1_COMPRESSED_BYTES = 48;
inline constexpr size_t G1_UNCOMPRESSED_BYTES = 96;
inline constexpr size_t G2_COMPRESSED_BYTES = 96;
inline constexpr size_t G2_UNCOMPRESSED_BYTES = 192;

inline constexpr uint8_t ENCODING_FLAG_COMPRESSED = 0x80;
inline constexpr uint8_t ENCODING_FLAG_INFINITY = 0x40;
inline constexpr uint8_t ENCODING_FLAG_SORT = 0x20;

// ---- encoders (any affine point; the result decodes back to it when the point is in its subgroup) -----------
std::array<uint8_t, G1_COMPRESSED_BYTES> g1_to_compressed(const G1Affine& p);
std::array<uint8_t, G1_UNCOMPRESSED_BYTES> g1_to_uncompressed(const G1Affine& p);
std::array<uint8_t, G2_COMPRESSED_BYTES> g2_to_compressed(const G2Affine& p);
std::array<uint8_t, G2_UNCOMPRESSED_BYTES> g2_to_uncompressed(const G2Affine& p);

// ---- checked decoders: length, flags, canonical infinity, coordinates < p, on the curve, in the subgroup -------
Decoded<G1Affine> g1_from_compressed(std::span<const uint8_t> in);
Decoded<G1Affine> g1_from_uncompressed(std::span<const uint8_t> in);
Decoded<G2Affine> g2_from_compressed(std::span<const uint8_t> in);
Decoded<G2Affine> g2_from_uncompressed(std::span<const uint8_t> in);

// ---- unchecked decoders: everything above EXCEPT the subgroup test --------------------------------------------
// They still reject a wrong length, wrong flags, a non-canonical infinity, a coordinate >= p, and a point that is
// not on the curve (uncompressed) or whose x has no y (compressed): the result is always a point of E(Fq) / E'(Fq2),
// possibly of order h*r. Use only for input whose subgroup membership is established otherwise (e.g. a batch check
// after loading, or a file whose hash is pinned); never for data from an untrusted peer.
Decoded<G1Affine> g1_from_compressed_unchecked(std::span<const uint8_t> in);
Decoded<G1Affine> g1_from_uncompressed_unchecked(std::span<const uint8_t> in);
Decoded<G2Affine> g2_from_compressed_unchecked(std::span<const uint8_t> in);
Decoded<G2Affine> g2_from_uncompressed_unchecked(std::span<const uint8_t> in);

// ---- throwing wrappers of the checked decoders (DecodeException names the encoding and the reason) ------------
G1Affine g1_from_compressed_or_throw(std::span<const uint8_t> in);
G1Affine g1_from_uncompressed_or_throw(std::span<const uint8_t> in);
G2Affine g2_from_compressed_or_throw(std::span<const uint8_t> in);
G2Affine g2_from_uncompressed_or_throw(std::span<const uint8_t> in);

}  // namespace cuzk
