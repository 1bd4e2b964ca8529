// Uncompressed G1 and G2 points decoded in bulk, as the parameter loaders need them: exactly the results of
// g1_from_uncompressed_unchecked / g2_from_uncompressed_unchecked applied point by point (canonical flags and
// infinity, coordinates below p, on the curve; no subgroup test, which cuzk/msm/batch_subgroup.hpp does for a whole
// section at once), eight points at a time on AVX-512 IFMA where the CPU has it (the conversion to Montgomery form
// and the curve equation are the work: five Fq products per G1 point, thirteen per G2 point).
//
// A group of eight holding anything but eight finite, well-formed points (the point at infinity, bad flags, a
// coordinate >= p, a point off the curve) is decoded point by point by the scalar decoder, so every report is the
// scalar decoder's.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuzk/ec/g1.hpp"
#include "cuzk/ec/g2.hpp"

namespace cuzk::formats {

// Decodes `count` consecutive uncompressed points (96 bytes each for G1, 192 for G2) from `in` into out[0, count).
// Returns the index of the first point that does not decode, or is the point at infinity while !allow_infinity;
// `count` when every point passes. Every point below the returned index is written; the rest are unspecified.
size_t decode_g1_uncompressed(const uint8_t* in, size_t count, G1Affine* out, bool allow_infinity);
size_t decode_g2_uncompressed(const uint8_t* in, size_t count, G2Affine* out, bool allow_infinity);

}  // namespace cuzk::formats
