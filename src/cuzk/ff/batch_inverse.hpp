// Montgomery's trick for any field type with *, is_zero, one, inverse: n inversions for one inversion and
// 3(n - 1) multiplications. Zeros are left as zero (and do not poison the others).
#pragma once

#include <span>
#include <vector>

namespace cuzk {

// kVartime: the one inversion in variable time (F::inverse_vartime), for values whose timing may leak.
template <class F, bool kVartime = false>
void batch_inverse_in_place(std::span<F> v) {
    std::vector<F> prefix(v.size());
    F acc = F::one();
    for (size_t i = 0; i < v.size(); i++) {
        prefix[i] = acc;
        if (!v[i].is_zero()) acc *= v[i];
    }
    // acc is a product of nonzero elements, so it is nonzero.
    F inv;
    if constexpr (kVartime) inv = acc.inverse_vartime().value();
    else inv = acc.inverse().value();
    for (size_t i = v.size(); i-- > 0;) {
        if (v[i].is_zero()) continue;
        F t = inv * prefix[i];
        inv *= v[i];
        v[i] = t;
    }
}

}  // namespace cuzk
