// Fq: the 381-bit base field of BLS12-381.
#pragma once

#include "cuzk/ff/mont_field.hpp"

namespace cuzk {

struct FqConfig {
    static constexpr size_t N = 6;
    // p = (x - 1)^2 (x^4 - x^2 + 1) / 3 + x for the BLS parameter x = -0xd201000000010000.
    static constexpr limbs_t<6> MODULUS = bigint::from_hex<6>(
        "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");
    // 2 generates Fq^* (checked in tests/ff); p = 3 mod 4, so square roots use a^((p+1)/4) and need no generator.
    static constexpr uint64_t GENERATOR = 2;
};

using Fq = MontField<FqConfig>;

}  // namespace cuzk
