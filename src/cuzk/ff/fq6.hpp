// Fq6 = Fq2[v] / (v^3 - xi), xi = u + 1, the middle layer of the BLS12-381 tower.
//
// The Frobenius coefficients of Fq6 and Fq12 are all powers of one Fq2 value, gamma_k = xi^((p^k - 1)/6):
//   w^(p^k)   = w   * gamma_k      (w^6 = xi in Fq12)
//   v^(p^k)   = v   * gamma_k^2    (v = w^2)
//   v^(2p^k)  = v^2 * gamma_k^4
// and gamma_k = prod_{j<k} gamma_1^(p^j), because (p^k - 1)/6 = (p - 1)/6 * (1 + p + ... + p^(k-1)) and raising an
// Fq2 element to p^j is conjugation j times. So only gamma_1 = xi^((p-1)/6) needs an exponentiation; the table is
// built once, on first use (tests/test_tower.cpp re-derives every entry by a direct exponentiation).
#pragma once

#include <array>
#include <optional>

#include "cuzk/ff/fq2.hpp"

namespace cuzk {

namespace tower_detail {

// a / d for a small divisor d; only for constant evaluation. Reports the remainder through `rem`.
template <size_t N>
constexpr limbs_t<N> div_small(const limbs_t<N>& a, uint64_t d, uint64_t& rem) {
    limbs_t<N> q{};
    u128 r = 0;
    for (size_t i = N; i-- > 0;) {
        u128 cur = (r << 64) | a[i];
        q[i] = (uint64_t)(cur / d);
        r = cur % d;
    }
    rem = (uint64_t)r;
    return q;
}

// (p - 1) / 6; exact because p = 1 mod 6 (p = 1 mod 3 for every BLS12 curve, and p is odd).
inline constexpr limbs_t<6> P_MINUS_1_OVER_6 = [] {
    uint64_t rem = 0;
    limbs_t<6> q = div_small(Fq::sub_one(Fq::P), 6, rem);
    return rem == 0 ? q : limbs_t<6>{};
}();
static_assert(!bigint::is_zero(P_MINUS_1_OVER_6), "p - 1 must be divisible by 6");

// Short names for the Fq2 operations the tower formulas are written in.
constexpr Fq2 add2(const Fq2& a, const Fq2& b) { return a + b; }
constexpr Fq2 sub2(const Fq2& a, const Fq2& b) { return a - b; }
constexpr Fq2 dbl2(const Fq2& a) { return a.dbl(); }
constexpr Fq2 neg2(const Fq2& a) { return -a; }
constexpr Fq2 nr2(const Fq2& a) { return a.mul_by_nonresidue(); }  // times xi = 1 + u
constexpr Fq2 mul2(const Fq2& a, const Fq2& b) { return a * b; }
constexpr Fq2 sqr2(const Fq2& a) { return a.square(); }

struct FrobeniusTable {
    std::array<Fq2, 12> w;   // gamma_k
    std::array<Fq2, 12> v1;  // gamma_k^2
    std::array<Fq2, 12> v2;  // gamma_k^4
};

inline const FrobeniusTable& frobenius_table() {
    static const FrobeniusTable table = [] {
        FrobeniusTable t{};
        const Fq2 xi = Fq2::one().mul_by_nonresidue();
        const Fq2 gamma1 = xi.pow(P_MINUS_1_OVER_6);
        Fq2 g = Fq2::one();
        for (size_t k = 0; k < 12; k++) {
            t.w[k] = g;
            t.v1[k] = g.square();
            t.v2[k] = t.v1[k].square();
            g *= gamma1.frobenius_map(k);
        }
        return t;
    }();
    return table;
}

}  // namespace tower_detail

// The Frobenius coefficient gamma_k = xi^((p^k - 1)/6) for k in [0, 12): w^(p^k) = gamma_k * w in Fq12.
inline const Fq2& tower_frobenius_gamma(size_t k) { return tower_detail::frobenius_table().w[k % 12]; }

struct Fq6 {
    Fq2 c0, c1, c2;  // c0 + c1*v + c2*v^2

    static constexpr Fq6 zero() { return {}; }
    static constexpr Fq6 one() { return {Fq2::one(), Fq2::zero(), Fq2::zero()}; }
    constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
    constexpr bool is_one() const { return c0.is_one() && c1.is_zero() && c2.is_zero(); }
    friend constexpr bool operator==(const Fq6& a, const Fq6& b) { return a.c0 == b.c0 && a.c1 == b.c1 && a.c2 == b.c2; }
    friend constexpr bool operator!=(const Fq6& a, const Fq6& b) { return !(a == b); }

    friend constexpr Fq6 operator+(const Fq6& a, const Fq6& b) {
        using namespace tower_detail;
        return {add2(a.c0, b.c0), add2(a.c1, b.c1), add2(a.c2, b.c2)};
    }
    friend constexpr Fq6 operator-(const Fq6& a, const Fq6& b) {
        using namespace tower_detail;
        return {sub2(a.c0, b.c0), sub2(a.c1, b.c1), sub2(a.c2, b.c2)};
    }
    constexpr Fq6 operator-() const {
        using namespace tower_detail;
        return {neg2(c0), neg2(c1), neg2(c2)};
    }
    constexpr Fq6 dbl() const {
        using namespace tower_detail;
        return {dbl2(c0), dbl2(c1), dbl2(c2)};
    }

    // Karatsuba over three coefficients: 6 Fq2 multiplications instead of 9, using v^3 = xi for the wrapped terms
    // (v^3 -> xi*1, v^4 -> xi*v).
    friend constexpr Fq6 operator*(const Fq6& a, const Fq6& b) {
        using namespace tower_detail;
        Fq2 t0 = mul2(a.c0, b.c0);
        Fq2 t1 = mul2(a.c1, b.c1);
        Fq2 t2 = mul2(a.c2, b.c2);
        Fq6 r;
        r.c0 = add2(nr2(sub2(sub2(mul2(add2(a.c1, a.c2), add2(b.c1, b.c2)), t1), t2)), t0);
        r.c1 = add2(sub2(sub2(mul2(add2(a.c0, a.c1), add2(b.c0, b.c1)), t0), t1), nr2(t2));
        r.c2 = add2(sub2(sub2(mul2(add2(a.c0, a.c2), add2(b.c0, b.c2)), t0), t2), t1);
        return r;
    }
    friend constexpr Fq6 operator*(const Fq6& a, const Fq2& b) {
        using namespace tower_detail;
        return {mul2(a.c0, b), mul2(a.c1, b), mul2(a.c2, b)};
    }
    constexpr Fq6& operator+=(const Fq6& b) { return *this = *this + b; }
    constexpr Fq6& operator-=(const Fq6& b) { return *this = *this - b; }
    constexpr Fq6& operator*=(const Fq6& b) { return *this = *this * b; }

    // Chung-Hasan SQR2 ("Asymmetric squaring formulae", 2007): 2 multiplications and 3 squarings in Fq2.
    // With s2 = (c0 - c1 + c2)^2 the v^2 coefficient 2 c0 c2 + c1^2 equals s1 + s2 + s3 - s0 - s4.
    constexpr Fq6 square() const {
        using namespace tower_detail;
        Fq2 s0 = sqr2(c0);
        Fq2 s1 = dbl2(mul2(c0, c1));
        Fq2 s2 = sqr2(add2(sub2(c0, c1), c2));
        Fq2 s3 = dbl2(mul2(c1, c2));
        Fq2 s4 = sqr2(c2);
        return {add2(nr2(s3), s0), add2(nr2(s4), s1), sub2(sub2(add2(add2(s1, s2), s3), s0), s4)};
    }

    // Multiplication by v: (c0 + c1 v + c2 v^2) v = xi c2 + c0 v + c1 v^2.
    constexpr Fq6 mul_by_nonresidue() const { return {tower_detail::nr2(c2), c0, c1}; }

    // this * (b1 v): the sparse factor of a Miller-loop line that has only a v coefficient. 3 Fq2 multiplications.
    constexpr Fq6 mul_by_1(const Fq2& b1) const {
        using namespace tower_detail;
        return {nr2(mul2(c2, b1)), mul2(c0, b1), mul2(c1, b1)};
    }

    // this * (b0 + b1 v): the general product with b2 = 0, so the Karatsuba cross term (a1 + a2)(b1 + b2) - t1 - t2
    // becomes (a1 + a2) b1 - t1. 5 Fq2 multiplications.
    constexpr Fq6 mul_by_01(const Fq2& b0, const Fq2& b1) const {
        using namespace tower_detail;
        Fq2 t0 = mul2(c0, b0);
        Fq2 t1 = mul2(c1, b1);
        Fq6 r;
        r.c0 = add2(nr2(sub2(mul2(add2(c1, c2), b1), t1)), t0);
        r.c1 = sub2(sub2(mul2(add2(c0, c1), add2(b0, b1)), t0), t1);
        r.c2 = add2(sub2(mul2(add2(c0, c2), b0), t0), t1);
        return r;
    }

    // Inverse through the adjugate: for a = c0 + c1 v + c2 v^2, a * (t0 + t1 v + t2 v^2) = N with
    //   t0 = c0^2 - xi c1 c2, t1 = xi c2^2 - c0 c1, t2 = c1^2 - c0 c2, N = c0 t0 + xi (c2 t1 + c1 t2) in Fq2.
    constexpr std::optional<Fq6> inverse() const {
        Fq2 t0 = c0.square() - (c1 * c2).mul_by_nonresidue();
        Fq2 t1 = c2.square().mul_by_nonresidue() - c0 * c1;
        Fq2 t2 = c1.square() - c0 * c2;
        Fq2 n = c0 * t0 + (c2 * t1 + c1 * t2).mul_by_nonresidue();
        auto ni = n.inverse();
        if (!ni) return std::nullopt;
        return Fq6{t0 * *ni, t1 * *ni, t2 * *ni};
    }

    // x -> x^(p^k): conjugate-power each Fq2 coefficient, then v^i picks up gamma_k^(2i) (see the file comment).
    Fq6 frobenius_map(size_t k) const {
        const auto& t = tower_detail::frobenius_table();
        k %= 12;
        return {c0.frobenius_map(k), c1.frobenius_map(k) * t.v1[k], c2.frobenius_map(k) * t.v2[k]};
    }

    template <size_t M>
    constexpr Fq6 pow(const limbs_t<M>& e) const { return pow_vartime(*this, e); }

    template <class Rng>
    static Fq6 random(Rng& rng) {
        Fq2 a = Fq2::random(rng);
        Fq2 b = Fq2::random(rng);
        return {a, b, Fq2::random(rng)};
    }
};

}  // namespace cuzk
