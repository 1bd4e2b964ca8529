// Fq12 = Fq6[w] / (w^2 - v), the top of the BLS12-381 tower and the home of GT.
//
// Coefficient order (also that of ../shared/vectors): c<i>.c<j>.c<k> is the k-th Fq of the j-th Fq2 of the i-th Fq6,
// i.e. the Fq2 coefficient of w^i v^j = w^(i + 2j).
#pragma once

#include "cuzk/ff/bls_param.hpp"
#include <optional>

#include "cuzk/ff/fq6.hpp"

namespace cuzk {

// BLS_X_ABS, BLS_X_IS_NEGATIVE: see cuzk/ff/bls_param.hpp.

struct Fq12 {
    Fq6 c0, c1;  // c0 + c1*w

    static constexpr Fq12 zero() { return {}; }
    static constexpr Fq12 one() { return {Fq6::one(), Fq6::zero()}; }
    constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
    friend constexpr bool operator==(const Fq12& a, const Fq12& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
    friend constexpr bool operator!=(const Fq12& a, const Fq12& b) { return !(a == b); }

    friend constexpr Fq12 operator+(const Fq12& a, const Fq12& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
    friend constexpr Fq12 operator-(const Fq12& a, const Fq12& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
    constexpr Fq12 operator-() const { return {-c0, -c1}; }

    // Karatsuba: 3 Fq6 multiplications; w^2 = v turns the a1 b1 term into a multiplication by v.
    friend constexpr Fq12 operator*(const Fq12& a, const Fq12& b) {
        Fq6 t0 = a.c0 * b.c0;
        Fq6 t1 = a.c1 * b.c1;
        return {t0 + t1.mul_by_nonresidue(), (a.c0 + a.c1) * (b.c0 + b.c1) - (t0 + t1)};
    }
    constexpr Fq12& operator+=(const Fq12& b) { return *this = *this + b; }
    constexpr Fq12& operator-=(const Fq12& b) { return *this = *this - b; }
    constexpr Fq12& operator*=(const Fq12& b) { return *this = *this * b; }

    // "Complex" squaring: (c0 + c1 w)^2 = (c0 + c1)(c0 + v c1) - (1 + v) c0 c1 + 2 c0 c1 w. 2 Fq6 multiplications.
    constexpr Fq12 square() const {
        Fq6 ab = c0 * c1;
        Fq6 t = (c0 + c1) * (c0 + c1.mul_by_nonresidue()) - ab - ab.mul_by_nonresidue();
        return {t, ab.dbl()};
    }

    // x -> x^(p^6): Fq6 is fixed and w^(p^6) = -w (w is not in Fq6 but w^2 = v is, so w^(p^6) = +-w, and not +w).
    // On the cyclotomic subgroup (every pairing value) this is the inverse.
    constexpr Fq12 conjugate() const { return {c0, -c1}; }

    // (c0 + c1 w)^-1 = (c0 - c1 w) / (c0^2 - v c1^2).
    constexpr std::optional<Fq12> inverse() const {
        auto t = (c0.square() - c1.square().mul_by_nonresidue()).inverse();
        if (!t) return std::nullopt;
        return Fq12{c0 * *t, -(c1 * *t)};
    }

    // x -> x^(p^k): w^(p^k) = gamma_k w (see fq6.hpp).
    Fq12 frobenius_map(size_t k) const {
        const Fq2& g = tower_frobenius_gamma(k);
        return {c0.frobenius_map(k), c1.frobenius_map(k) * g};
    }

    // (c0 + c1 w)(b0 + b1 v + b4 v w): a Miller-loop line, whose only nonzero slots are 1, v and v w (slots 0, 1 and
    // 4 of the Fq2 coefficients in the order c0.c0, c0.c1, c0.c2, c1.c0, c1.c1, c1.c2). Karatsuba over Fq6 with the
    // sparse halves L0 = b0 + b1 v and L1 = b4 v: 13 Fq2 multiplications instead of 18.
    constexpr Fq12 mul_by_014(const Fq2& b0, const Fq2& b1, const Fq2& b4) const {
        Fq6 t0 = c0.mul_by_01(b0, b1);
        Fq6 t1 = c1.mul_by_1(b4);
        Fq6 s = (c0 + c1).mul_by_01(b0, tower_detail::add2(b1, b4));
        return {t0 + t1.mul_by_nonresidue(), s - t0 - t1};
    }

    // Granger-Scott squaring ("Faster Squaring in the Cyclotomic Subgroup of Sixth Degree Extensions", PKC 2010),
    // valid only when this^(p^6 + 1) = 1. View Fq12 = Fq4[z]/(z^3 - s) with z = w, s = w^3, Fq4 = Fq2[s]/(s^2 - xi):
    //   f = A + B z + C z^2,  A = g0 + g3 s,  B = g1 + g4 s,  C = g2 + g5 s   (g_i = Fq2 coefficient of w^i).
    // Since f^(p^6) = conj(A) - conj(B) z + conj(C) z^2 is f^-1, f^2 = (3A^2 - 2 conj A) + (3 s C^2 + 2 conj B) z
    // + (3B^2 - 2 conj C) z^2: three Fq4 squarings, i.e. 9 Fq2 squarings.
    Fq12 cyclotomic_square() const {
        using namespace tower_detail;
        // (a + b s)^2 = (a^2 + xi b^2) + ((a + b)^2 - a^2 - b^2) s
        auto fq4_square = [](const Fq2& a, const Fq2& b, Fq2& r0, Fq2& r1) {
            Fq2 t0 = sqr2(a);
            Fq2 t1 = sqr2(b);
            r0 = add2(nr2(t1), t0);
            r1 = sub2(sub2(sqr2(add2(a, b)), t0), t1);
        };
        // 3x - 2y and 3x + 2y
        auto three_minus_two = [](const Fq2& x, const Fq2& y) { return add2(dbl2(sub2(x, y)), x); };
        auto three_plus_two = [](const Fq2& x, const Fq2& y) { return add2(dbl2(add2(x, y)), x); };
        const Fq2 &g0 = c0.c0, &g1 = c1.c0, &g2 = c0.c1, &g3 = c1.c1, &g4 = c0.c2, &g5 = c1.c2;
        Fq2 a0, a1, b0, b1, d0, d1;
        fq4_square(g0, g3, a0, a1);  // A^2
        fq4_square(g1, g4, b0, b1);  // B^2
        fq4_square(g2, g5, d0, d1);  // C^2
        Fq12 r;
        // 3A^2 - 2 conj(A)
        r.c0.c0 = three_minus_two(a0, g0);
        r.c1.c1 = three_plus_two(a1, g3);
        // 3 s C^2 + 2 conj(B), with s (d0 + d1 s) = xi d1 + d0 s
        r.c1.c0 = three_plus_two(nr2(d1), g1);
        r.c0.c2 = three_minus_two(d0, g4);
        // 3B^2 - 2 conj(C)
        r.c0.c1 = three_minus_two(b0, g2);
        r.c1.c2 = three_plus_two(b1, g5);
        return r;
    }

    // this^|x| for the BLS parameter, conjugated since x < 0; valid only on the cyclotomic subgroup (there the
    // conjugate is the inverse and cyclotomic_square is the square). |x| has 64 bits and Hamming weight 6, so this
    // is 63 cyclotomic squarings and 5 multiplications.
    Fq12 cyclotomic_exp_by_x() const {
        Fq12 r = *this;
        for (int i = 62; i >= 0; i--) {
            r = r.cyclotomic_square();
            if ((BLS_X_ABS >> i) & 1) r *= *this;
        }
        return BLS_X_IS_NEGATIVE ? r.conjugate() : r;
    }

    template <size_t M>
    constexpr Fq12 pow(const limbs_t<M>& e) const { return pow_vartime(*this, e); }

    template <class Rng>
    static Fq12 random(Rng& rng) {
        Fq6 a = Fq6::random(rng);
        return {a, Fq6::random(rng)};
    }
};

}  // namespace cuzk
