// The Ethereum BLS12-381 precompile encoding (EIP-2537, final version):
//   Fq      64 B: 16 zero bytes, then the 48-byte big-endian canonical value
//   G1     128 B: x || y                      G2 256 B: x.c0 || x.c1 || y.c0 || y.c1   (c0 first, unlike zcash)
//   infinity: all zero bytes ((0, 0) is on neither curve, so this is unambiguous)
//   scalar  32 B: big-endian, NOT reduced modulo r
// The decoders reuse DecodeError; NonZeroPadding is specific to this encoding. There are no flag bits.
//
// The call-level functions below follow the precompiles' input rules (lengths, which checks apply) and compute
// with the straightforward algorithms: they are references for tests and tools, not fast paths. The pairing check
// itself belongs to the pairing layer (above ec): decode its input with eip2537_pairing_input and pass the points
// to cuzk::pairing_product_is_one.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "cuzk/ec/encoding.hpp"
#include "cuzk/ec/g1.hpp"
#include "cuzk/ec/g2.hpp"

namespace cuzk {

inline constexpr size_t EIP2537_FP_BYTES = 64;
inline constexpr size_t EIP2537_FP_PADDING = 16;
inline constexpr size_t EIP2537_G1_BYTES = 128;
inline constexpr size_t EIP2537_G2_BYTES = 256;
inline constexpr size_t EIP2537_SCALAR_BYTES = 32;
inline constexpr size_t EIP2537_G1_MSM_PAIR_BYTES = EIP2537_G1_BYTES + EIP2537_SCALAR_BYTES;  // 160
inline constexpr size_t EIP2537_G2_MSM_PAIR_BYTES = EIP2537_G2_BYTES + EIP2537_SCALAR_BYTES;  // 288
inline constexpr size_t EIP2537_PAIRING_PAIR_BYTES = EIP2537_G1_BYTES + EIP2537_G2_BYTES;     // 384

// ---- elements --------------------------------------------------------------------------------------------------
std::array<uint8_t, EIP2537_FP_BYTES> eip2537_encode_fp(const Fq& v);
std::array<uint8_t, EIP2537_G1_BYTES> eip2537_encode_g1(const G1Affine& p);
std::array<uint8_t, EIP2537_G2_BYTES> eip2537_encode_g2(const G2Affine& p);

// Checks length, zero padding (NonZeroPadding) and value < p (CoordinateNotInField).
Decoded<Fq> eip2537_decode_fp(std::span<const uint8_t> in);
// Checked: everything of eip2537_decode_fp for each coordinate, then on the curve, then in the subgroup (what
// MSM and pairing inputs require).
Decoded<G1Affine> eip2537_decode_g1(std::span<const uint8_t> in);
Decoded<G2Affine> eip2537_decode_g2(std::span<const uint8_t> in);
// Unchecked: the same except the subgroup test; still rejects bad length, padding, coordinates >= p and points off
// the curve (what the ADD precompiles require).
Decoded<G1Affine> eip2537_decode_g1_unchecked(std::span<const uint8_t> in);
Decoded<G2Affine> eip2537_decode_g2_unchecked(std::span<const uint8_t> in);
// Throwing wrappers of the checked decoders.
G1Affine eip2537_decode_g1_or_throw(std::span<const uint8_t> in);
G2Affine eip2537_decode_g2_or_throw(std::span<const uint8_t> in);

// A 32-byte big-endian scalar as little-endian limbs, unreduced (any 256-bit value is valid; only the length can
// be wrong).
Decoded<limbs_t<4>> eip2537_decode_scalar(std::span<const uint8_t> in);

// ---- call inputs -----------------------------------------------------------------------------------------------
template <class Point>
struct Eip2537MsmInput {
    std::vector<Point> points;        // in the subgroup (checked)
    std::vector<limbs_t<4>> scalars;  // unreduced
};
struct Eip2537PairingInput {
    std::vector<G1Affine> g1;  // in G1 (checked)
    std::vector<G2Affine> g2;  // in G2 (checked)
};

// k >= 1 (point, scalar) pairs; BadLength for an empty input or a length that is not a multiple of the pair size.
// Pairs are decoded in order and the first failure is reported.
Decoded<Eip2537MsmInput<G1Affine>> eip2537_g1_msm_input(std::span<const uint8_t> in);
Decoded<Eip2537MsmInput<G2Affine>> eip2537_g2_msm_input(std::span<const uint8_t> in);
// k >= 1 (G1, G2) pairs, each G1 decoded before its G2.
Decoded<Eip2537PairingInput> eip2537_pairing_input(std::span<const uint8_t> in);

// ---- reference calls (output in the EIP-2537 encoding) ---------------------------------------------------------
// ADD: exactly two points, on the curve, no subgroup test (per the EIP).
Decoded<std::array<uint8_t, EIP2537_G1_BYTES>> eip2537_g1_add(std::span<const uint8_t> in);
Decoded<std::array<uint8_t, EIP2537_G2_BYTES>> eip2537_g2_add(std::span<const uint8_t> in);
// MSM: sum of [scalar_i] P_i by double-and-add with the unreduced scalars.
Decoded<std::array<uint8_t, EIP2537_G1_BYTES>> eip2537_g1_msm(std::span<const uint8_t> in);
Decoded<std::array<uint8_t, EIP2537_G2_BYTES>> eip2537_g2_msm(std::span<const uint8_t> in);
// MUL (the draft precompile, now the MSM with k = 1): exactly one pair.
Decoded<std::array<uint8_t, EIP2537_G1_BYTES>> eip2537_g1_mul(std::span<const uint8_t> in);
Decoded<std::array<uint8_t, EIP2537_G2_BYTES>> eip2537_g2_mul(std::span<const uint8_t> in);

}  // namespace cuzk
