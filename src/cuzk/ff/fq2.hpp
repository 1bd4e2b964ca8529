// Fq2 = Fq[u] / (u^2 + 1).
#pragma once

#include "cuzk/ff/fq.hpp"

namespace cuzk {

struct Fq2 {
    Fq c0, c1;  // c0 + c1*u

    static constexpr Fq2 zero() { return {}; }
    static constexpr Fq2 one() { return {Fq::one(), Fq::zero()}; }
    constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
    friend constexpr bool operator==(const Fq2& a, const Fq2& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
    friend constexpr bool operator!=(const Fq2& a, const Fq2& b) { return !(a == b); }

    friend constexpr Fq2 operator+(const Fq2& a, const Fq2& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
    friend constexpr Fq2 operator-(const Fq2& a, const Fq2& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
    constexpr Fq2 operator-() const { return {-c0, -c1}; }
    // Karatsuba: 3 base multiplications.
    friend constexpr Fq2 operator*(const Fq2& a, const Fq2& b) {
        Fq t0 = a.c0 * b.c0;
        Fq t1 = a.c1 * b.c1;
        Fq t2 = (a.c0 + a.c1) * (b.c0 + b.c1);
        return {t0 - t1, t2 - t0 - t1};
    }
    friend constexpr Fq2 operator*(const Fq2& a, const Fq& b) { return {a.c0 * b, a.c1 * b}; }
    constexpr Fq2& operator+=(const Fq2& b) { return *this = *this + b; }
    constexpr Fq2& operator-=(const Fq2& b) { return *this = *this - b; }
    constexpr Fq2& operator*=(const Fq2& b) { return *this = *this * b; }

    constexpr Fq2 dbl() const { return {c0.dbl(), c1.dbl()}; }
    // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: 2 base multiplications.
    constexpr Fq2 square() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }
    constexpr Fq2 conjugate() const { return {c0, -c1}; }
    // The Frobenius map x -> x^p is conjugation (u^p = -u since p = 3 mod 4); power k applies it k times.
    constexpr Fq2 frobenius_map(size_t k = 1) const { return (k & 1) ? conjugate() : *this; }
    // Multiplication by the Fq6 non-residue xi = u + 1: (c0 + c1 u)(1 + u) = (c0 - c1) + (c0 + c1) u.
    constexpr Fq2 mul_by_nonresidue() const { return {c0 - c1, c0 + c1}; }
    // Norm to Fq: c0^2 + c1^2.
    constexpr Fq norm() const { return c0.square() + c1.square(); }

    constexpr std::optional<Fq2> inverse() const {
        auto t = norm().inverse();
        if (!t) return std::nullopt;
        return Fq2{c0 * *t, -(c1 * *t)};
    }

    std::optional<Fq2> inverse_vartime() const {  // see MontField::inverse_vartime
        auto t = norm().inverse_vartime();
        if (!t) return std::nullopt;
        return Fq2{c0 * *t, -(c1 * *t)};
    }

    static void batch_inverse(std::span<Fq2> v) { batch_inverse_in_place(v); }

    template <size_t M>
    constexpr Fq2 pow(const limbs_t<M>& e) const { return pow_vartime(*this, e); }

    // 0 for 0, 1 for a nonzero square, -1 otherwise: x is a square in Fq2 iff its norm is a square in Fq.
    constexpr int legendre() const { return norm().legendre(); }

    // Square root for p = 3 mod 4 (Adj and Rodriguez-Henriquez, "Square root computation over even extension
    // fields", Algorithm 9); nullopt for a non-square.
    std::optional<Fq2> sqrt() const {
        if (is_zero()) return zero();
        constexpr limbs_t<6> P_MINUS_3_OVER_4 = Fq::sub_one(Fq::P_PLUS_1_OVER_4);  // (p+1)/4 - 1
        Fq2 a1 = pow(P_MINUS_3_OVER_4);
        Fq2 alpha = a1.square() * *this;  // a^((p-1)/2)
        Fq2 x0 = a1 * *this;              // a^((p+1)/4)
        Fq2 root;
        if (alpha == -one()) {
            root = Fq2{-x0.c1, x0.c0};  // u * x0
        } else {
            Fq2 b = (alpha + one()).pow(Fq::P_MINUS_1_OVER_2);
            root = b * x0;
        }
        if (root.square() != *this) return std::nullopt;
        return root;
    }

    // zcash flag: c1 > (p-1)/2, or c1 == 0 and c0 > (p-1)/2.
    bool lexicographically_largest() const {
        return c1.lexicographically_largest() || (c1.is_zero() && c0.lexicographically_largest());
    }

    template <class Rng>
    static Fq2 random(Rng& rng) {
        Fq a = Fq::random(rng);
        return {a, Fq::random(rng)};
    }
};

}  // namespace cuzk
