// The field types device kernels are written against: gpu::fr_t (scalar field), gpu::fq_t (base field) and
// gpu::fq2_t. Their memory layout is exactly the CPU types' (Montgomery form, R = 2^(64N), little-endian limbs),
// so arrays of cuzk::Fr / cuzk::Fq / cuzk::Fq2 are copied to the device as they are, with no conversion.
//
// Today they are the CPU's MontField compiled for the device (constexpr, --expt-relaxed-constexpr); the 32-bit-limb
// PTX implementation replaces them behind these names with the same operators (+, -, *, square(), dbl(), unary -,
// zero(), one(), is_zero(), ==), so kernels written against this header need no change.
#pragma once

#include "cuzk/ff/fq.hpp"
#include "cuzk/ff/fq2.hpp"
#include "cuzk/ff/fr.hpp"

namespace cuzk::gpu {

using fr_t = cuzk::Fr;
using fq_t = cuzk::Fq;
using fq2_t = cuzk::Fq2;

static_assert(sizeof(fr_t) == 32 && sizeof(fq_t) == 48 && sizeof(fq2_t) == 96, "layout shared with the CPU");

}  // namespace cuzk::gpu
