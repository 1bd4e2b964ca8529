// Test helpers for subgroup membership (tests/test_subgroup.cpp, tests/test_batch_subgroup.cpp): small
// multiprecision arithmetic and the BLS12-381 cofactors derived from the BLS parameter, with the prime
// factorisations of their smooth parts (checked against the cofactors in test_subgroup.cpp).
#pragma once

#include <gtest/gtest.h>

#include <utility>

#include "cuzk/ff/bls_param.hpp"
#include "cuzk/ff/bigint.hpp"

namespace cuzk::testing {

// ---- small multiprecision helpers (cofactors and group orders exceed the field widths) ------------------------
template <size_t N>
limbs_t<N> mul_u64(const limbs_t<N>& a, uint64_t b) {
    limbs_t<N> r{};
    uint64_t carry = 0;
    for (size_t i = 0; i < N; i++) {
        u128 t = (u128)a[i] * b + carry;
        r[i] = (uint64_t)t;
        carry = (uint64_t)(t >> 64);
    }
    EXPECT_EQ(carry, 0u) << "mul_u64 overflow";
    return r;
}

template <size_t A, size_t B>
limbs_t<A + B> mul_wide(const limbs_t<A>& a, const limbs_t<B>& b) {
    limbs_t<A + B> r{};
    for (size_t i = 0; i < A; i++) {
        uint64_t carry = 0;
        for (size_t j = 0; j < B; j++) {
            u128 t = (u128)a[i] * b[j] + r[i + j] + carry;
            r[i + j] = (uint64_t)t;
            carry = (uint64_t)(t >> 64);
        }
        r[i + B] = carry;
    }
    return r;
}

// (quotient, remainder) of a / d.
template <size_t N>
std::pair<limbs_t<N>, uint64_t> div_u64(const limbs_t<N>& a, uint64_t d) {
    limbs_t<N> q{};
    u128 rem = 0;
    for (size_t i = N; i-- > 0;) {
        u128 cur = (rem << 64) | a[i];
        q[i] = (uint64_t)(cur / d);
        rem = cur % d;
    }
    return {q, (uint64_t)rem};
}

template <size_t M, size_t N>
limbs_t<M> widen(const limbs_t<N>& a) {
    static_assert(M >= N);
    limbs_t<M> r{};
    for (size_t i = 0; i < N; i++) r[i] = a[i];
    return r;
}

template <size_t N>
limbs_t<N> pow_u64(uint64_t base, unsigned e) {
    limbs_t<N> r{};
    r[0] = 1;
    for (unsigned i = 0; i < e; i++) r = mul_u64(r, base);
    return r;
}

// ---- cofactors, derived from the BLS parameter (a = |x|, x = -a) ----------------------------------------------
// h1 = (x - 1)^2 / 3 = (a + 1)^2 / 3
inline limbs_t<2> g1_cofactor() {
    u128 s = (u128)(BLS_X_ABS + 1) * (BLS_X_ABS + 1);
    EXPECT_EQ((uint64_t)(s % 3), 0u);
    u128 h = s / 3;
    return {(uint64_t)h, (uint64_t)(h >> 64)};
}

// h2 = (x^8 - 4x^7 + 5x^6 - 4x^4 + 6x^3 - 4x^2 - 4x + 13) / 9
//    = (a^8 + 4a^7 + 5a^6 + 4a + 13 - (4a^4 + 6a^3 + 4a^2)) / 9
inline limbs_t<8> g2_cofactor() {
    using L = limbs_t<9>;
    L ap[9];
    ap[0] = L{};
    ap[0][0] = 1;
    for (int i = 1; i <= 8; i++) ap[i] = mul_u64(ap[i - 1], BLS_X_ABS);
    L c13{};
    c13[0] = 13;
    L pos{}, neg{};
    bigint::add(pos, ap[8], mul_u64(ap[7], 4));
    bigint::add(pos, pos, mul_u64(ap[6], 5));
    bigint::add(pos, pos, mul_u64(ap[1], 4));
    bigint::add(pos, pos, c13);
    bigint::add(neg, mul_u64(ap[4], 4), mul_u64(ap[3], 6));
    bigint::add(neg, neg, mul_u64(ap[2], 4));
    L nine_h2{};
    EXPECT_EQ(bigint::sub(nine_h2, pos, neg), 0u);
    auto [h2, rem] = div_u64(nine_h2, 9);
    EXPECT_EQ(rem, 0u);
    EXPECT_EQ(h2[8], 0u);
    limbs_t<8> out{};
    for (size_t i = 0; i < 8; i++) out[i] = h2[i];
    return out;
}

// Prime factorisations of the cofactors' smooth parts, (prime, exponent). Checked against the cofactors below.
inline constexpr std::pair<uint64_t, unsigned> G1_COFACTOR_FACTORS[] = {
    {3, 1}, {11, 2}, {10177, 2}, {859267, 2}, {52437899, 2}};
// h2 = 13^2 * 23^2 * 2713 * 11953 * 262069 * q with q a 446-bit prime (not needed: random points exercise it).
inline constexpr std::pair<uint64_t, unsigned> G2_COFACTOR_SMALL_FACTORS[] = {
    {13, 2}, {23, 2}, {2713, 1}, {11953, 1}, {262069, 1}};

}  // namespace cuzk::testing
