// Host helpers of the Shoup-product experiment: Fr's modulus as 32-bit words, w' = floor(w 2^256 / p) by long
// division, a + p.
#pragma once

#include <cstdint>
#include <cstring>
#include "cuzk/ff/fr.hpp"

namespace fr_shoup {

inline void p_words(uint32_t (&p)[8]) {
    const auto P = cuzk::MontField<cuzk::FrConfig>::P;
    std::memcpy(p, &P, 32);
}

// q = floor(w 2^256 / p) for w < p (so q < 2^256): bit by bit over the 512-bit numerator.
inline void quotient(const uint32_t* w, const uint32_t* p, uint32_t* q) {
    uint64_t rem[9] = {};  // 32-bit words in 64-bit slots, < 2p
    std::memset(q, 0, 32);
    for (int bit = 511; bit >= 0; bit--) {
        // rem = 2 rem + numerator bit (the numerator is w 2^256: bits 256.. are w's)
        uint64_t carry = bit >= 256 ? (w[(bit - 256) / 32] >> ((bit - 256) % 32)) & 1 : 0;
        for (int k = 0; k < 9; k++) {
            const uint64_t v = (rem[k] << 1) | carry;
            rem[k] = v & 0xffffffffULL;
            carry = v >> 32;
        }
        // rem >= p ?
        bool ge = rem[8] != 0;
        if (!ge) {
            ge = true;
            for (int k = 7; k >= 0; k--) {
                if (rem[k] != p[k]) {
                    ge = rem[k] > p[k];
                    break;
                }
            }
        }
        if (ge) {
            int64_t br = 0;
            for (int k = 0; k < 9; k++) {
                int64_t v = (int64_t)rem[k] - (k < 8 ? p[k] : 0) - br;
                br = v < 0;
                rem[k] = (uint64_t)(v + (br << 32));
            }
            if (bit < 256) q[bit / 32] |= 1u << (bit % 32);
        }
    }
}

inline void add_p(uint32_t* a, const uint32_t* p) {
    uint64_t c = 0;
    for (int k = 0; k < 8; k++) {
        c += (uint64_t)a[k] + p[k];
        a[k] = (uint32_t)c;
        c >>= 32;
    }
}

}  // namespace fr_shoup
