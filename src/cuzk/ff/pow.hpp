// Exponentiation by a public exponent (left-to-right square and multiply; variable time in the exponent, which is
// always a constant or public here: Frobenius and Legendre exponents, test oracles) for any field type of the tower.
#pragma once

#include "cuzk/ff/bigint.hpp"

namespace cuzk {

template <class F, size_t M>
constexpr F pow_vartime(const F& x, const limbs_t<M>& e) {
    F r = F::one();
    for (size_t i = bigint::num_bits(e); i-- > 0;) {
        r = r.square();
        if (bigint::bit(e, i)) r *= x;
    }
    return r;
}

}  // namespace cuzk
