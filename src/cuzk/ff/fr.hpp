// Fr: the 255-bit scalar field of BLS12-381 (the order r of G1, G2 and GT).
#pragma once

#include "cuzk/ff/mont_field.hpp"

namespace cuzk {

struct FrConfig {
    static constexpr size_t N = 4;
    // r = x^4 - x^2 + 1 for the BLS parameter x = -0xd201000000010000.
    static constexpr limbs_t<4> MODULUS =
        bigint::from_hex<4>("0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
    // 7 generates Fr^* (the value bellman/zkcrypto use; checked in tests/ff); r - 1 = 2^32 * T, T odd, so
    // 7^T is a primitive 2^32-th root of unity and NTT domains go up to 2^32.
    static constexpr uint64_t GENERATOR = 7;
};

using Fr = MontField<FrConfig>;
static_assert(Fr::S == 32, "Fr two-adicity");

}  // namespace cuzk
