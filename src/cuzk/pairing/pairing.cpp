// Optimal ate pairing on BLS12-381.
//
// Lines. The twist E': y^2 = x^3 + b', b' = 4 xi, is an M-type sextic twist: psi(x', y') = (x' w^-2, y' w^-3) maps
// it into E(Fq12) (w^6 = xi). The line through psi(T) with twist slope lambda', evaluated at P = (xP, yP) and
// multiplied by w^3 (w^3 lies in Fq4, a proper subfield, so the factor dies in the final exponentiation), is
//   yP w^3 - lambda' xP w^2 + (lambda' xT - yT)        with w^2 = v, w^3 = v w.
// T is kept in homogeneous projective coordinates (x = X/Z, y = Y/Z) so that no step inverts; the lines below are
// the one above times a nonzero Fq2 value (again killed by the final exponentiation). The formulas follow Costello,
// Lange and Naehrig, "Faster pairing computations on curves with high-degree twists" (eprint 2009/615), and Aranha
// et al., "Faster explicit formulas for computing pairings over ordinary curves" (eprint 2010/526); the derivations
// are repeated in the comments so they can be checked without the papers.
#include "cuzk/pairing/pairing.hpp"

#include <stdexcept>

namespace cuzk {

namespace {

struct G2Projective {
    Fq2 X, Y, Z;
};

using tower_detail::add2;
using tower_detail::dbl2;
using tower_detail::mul2;
using tower_detail::nr2;
using tower_detail::sqr2;
using tower_detail::sub2;

// 12 xi a = 3 b' a
Fq2 mul_by_3b(const Fq2& a) {
    Fq2 t = dbl2(dbl2(nr2(a)));
    return add2(dbl2(t), t);
}

// T <- 2T and the tangent line at T. With lambda' = 3x^2 / 2y, multiplying the line by 2YZ gives
//   v w: 2YZ yP,   v: -3X^2 xP,   1: (3X^3 - 2Y^2 Z)/Z = Y^2 - 3b' Z^2   (using Y^2 Z = X^3 + b' Z^3).
// The point is Aranha et al. (2010/526, eq. 10) scaled by 4 to avoid halving:
//   X3 = 2XY (Y^2 - 9b'Z^2),  Y3 = (Y^2 + 9b'Z^2)^2 - 108 b'^2 Z^4,  Z3 = 8 Y^3 Z.
G2Prepared::Line doubling_step(G2Projective& t) {
    Fq2 xx = sqr2(t.X);
    Fq2 b = sqr2(t.Y);
    Fq2 c = sqr2(t.Z);
    Fq2 e = mul_by_3b(c);                          // 3b' Z^2
    Fq2 f = add2(dbl2(e), e);                      // 9b' Z^2
    Fq2 h = sub2(sub2(sqr2(add2(t.Y, t.Z)), b), c);  // 2YZ
    Fq2 e2 = dbl2(dbl2(sqr2(e)));                  // 4 (3b'Z^2)^2
    G2Prepared::Line l{sub2(b, e), add2(dbl2(xx), xx), h};
    Fq2 xy2 = dbl2(mul2(t.X, t.Y));
    t.X = mul2(xy2, sub2(b, f));
    t.Y = sub2(sqr2(add2(b, f)), add2(dbl2(e2), e2));
    t.Z = dbl2(dbl2(mul2(b, h)));
    return l;
}

// T <- T + Q (Q affine) and the chord through T and Q. With theta = Y - yQ Z, lambda = X - xQ Z the slope is
// theta / lambda, and multiplying the line by lambda gives
//   v w: lambda yP,   v: -theta xP,   1: theta xQ - lambda yQ.
// The point is the homogeneous mixed addition (Cohen-Miyaji-Ono, EFD add-1998-cmo-2 with Z2 = 1, negated in all
// coordinates, which is the same projective point):
//   D = lambda^2, E = lambda^3, F = Z theta^2, G = X D, H = E + F - 2G,
//   X3 = lambda H, Y3 = theta (G - H) - E Y, Z3 = Z E.
// The Miller loop only adds Q to T = [m]Q with 1 < m < |x| < r, so T != +-Q for Q of order r (lambda != 0).
G2Prepared::Line addition_step(G2Projective& t, const G2Affine& q) {
    Fq2 theta = sub2(t.Y, mul2(q.y, t.Z));
    Fq2 lambda = sub2(t.X, mul2(q.x, t.Z));
    G2Prepared::Line l{sub2(mul2(theta, q.x), mul2(lambda, q.y)), theta, lambda};
    Fq2 d = sqr2(lambda);
    Fq2 e = mul2(lambda, d);
    Fq2 f = mul2(t.Z, sqr2(theta));
    Fq2 g = mul2(t.X, d);
    Fq2 h = sub2(add2(e, f), dbl2(g));
    t.X = mul2(lambda, h);
    t.Y = sub2(mul2(theta, sub2(g, h)), mul2(e, t.Y));
    t.Z = mul2(t.Z, e);
    return l;
}

// |x| has 64 bits; the loop walks bits 62..0 and adds on the 5 set bits below the top one.
constexpr int LOOP_TOP_BIT = 63;
static_assert((BLS_X_ABS >> LOOP_TOP_BIT) == 1, "loop length assumes a 64-bit |x|");

constexpr size_t num_lines() {
    size_t n = 0;
    for (int i = LOOP_TOP_BIT - 1; i >= 0; i--) n += 1 + ((BLS_X_ABS >> i) & 1);
    return n;
}

// One line evaluated at P: the G2-only coefficients times -xP and yP.
inline void mul_line(Fq12& f, const G2Prepared::Line& l, const Fq& neg_xp, const Fq& yp) {
    f = f.mul_by_014(l.c0, l.c1 * neg_xp, l.c4 * yp);
}

void require_on_curve(const G1Affine& p) {
    if (!p.is_on_curve()) throw std::invalid_argument("pairing: G1 point is not on the curve y^2 = x^3 + 4");
}

}  // namespace

G2Prepared::G2Prepared(const G2Affine& q) {
    if (!q.is_on_curve()) throw std::invalid_argument("G2Prepared: point is not on the twist y^2 = x^3 + 4(u + 1)");
    if (q.is_identity()) return;
    infinity = false;
    lines.reserve(num_lines());
    G2Projective t{q.x, q.y, Fq2::one()};
    for (int i = LOOP_TOP_BIT - 1; i >= 0; i--) {
        lines.push_back(doubling_step(t));
        if ((BLS_X_ABS >> i) & 1) lines.push_back(addition_step(t, q));
    }
}

Fq12 multi_miller_loop(std::span<const G1Affine> p, std::span<const G2Prepared> q) {
    if (p.size() != q.size())
        throw std::invalid_argument("multi_miller_loop: " + std::to_string(p.size()) + " G1 points but " +
                                    std::to_string(q.size()) + " G2 points");
    struct Term {
        const G2Prepared::Line* lines;
        Fq neg_xp, yp;
    };
    std::vector<Term> terms;
    terms.reserve(p.size());
    for (size_t i = 0; i < p.size(); i++) {
        require_on_curve(p[i]);
        if (p[i].is_identity() || q[i].is_identity()) continue;
        if (q[i].lines.size() != num_lines())
            throw std::invalid_argument("multi_miller_loop: G2Prepared #" + std::to_string(i) + " has " +
                                        std::to_string(q[i].lines.size()) + " lines, expected " +
                                        std::to_string(num_lines()));
        terms.push_back({q[i].lines.data(), -p[i].x, p[i].y});
    }
    Fq12 f = Fq12::one();
    if (terms.empty()) return f;
    size_t k = 0;
    for (int i = LOOP_TOP_BIT - 1; i >= 0; i--) {
        if (i != LOOP_TOP_BIT - 1) f = f.square();  // f = 1 before the first step
        for (const Term& t : terms) mul_line(f, t.lines[k], t.neg_xp, t.yp);
        k++;
        if ((BLS_X_ABS >> i) & 1) {
            for (const Term& t : terms) mul_line(f, t.lines[k], t.neg_xp, t.yp);
            k++;
        }
    }
    // f_{-|x|,Q} = 1 / (f_{|x|,Q} v_{[|x|]Q}); the vertical line lies in a proper subfield and, after the final
    // exponentiation, 1/f equals f^(p^6) = conj(f) because r divides p^6 + 1.
    return BLS_X_IS_NEGATIVE ? f.conjugate() : f;
}

Fq12 miller_loop(const G1Affine& p, const G2Prepared& q) {
    return multi_miller_loop(std::span<const G1Affine>(&p, 1), std::span<const G2Prepared>(&q, 1));
}

Fq12 final_exponentiation(const Fq12& f) {
    auto inv = f.inverse();
    if (!inv) throw std::invalid_argument("final_exponentiation: zero has no image in GT");
    // Easy part, f^((p^6 - 1)(p^2 + 1)); afterwards f lies in the cyclotomic subgroup (f^(p^6 + 1) = 1), where
    // conjugation inverts and cyclotomic_square squares.
    Fq12 t = f.conjugate() * *inv;
    t = t.frobenius_map(2) * t;
    // Hard part (eprint 2020/875, section 5): 3 (p^4 - p^2 + 1)/r = (x - 1)^2 (x + p) (x^2 + p^2 - 1) + 3.
    Fq12 a = t.cyclotomic_exp_by_x() * t.conjugate();   // t^(x - 1)
    a = a.cyclotomic_exp_by_x() * a.conjugate();        // t^((x - 1)^2)
    a = a.cyclotomic_exp_by_x() * a.frobenius_map(1);   // ...^(x + p)
    a = a.cyclotomic_exp_by_x().cyclotomic_exp_by_x() * a.frobenius_map(2) * a.conjugate();  // ...^(x^2 + p^2 - 1)
    return a * t.cyclotomic_square() * t;               // ... * t^3
}

Fq12 pairing(const G1Affine& p, const G2Affine& q) {
    require_on_curve(p);
    G2Prepared qp(q);
    return final_exponentiation(miller_loop(p, qp));
}

namespace {
std::vector<G2Prepared> prepare_all(std::span<const G1Affine> p, std::span<const G2Affine> q, const char* who) {
    if (p.size() != q.size())
        throw std::invalid_argument(std::string(who) + ": " + std::to_string(p.size()) + " G1 points but " +
                                    std::to_string(q.size()) + " G2 points");
    std::vector<G2Prepared> out;
    out.reserve(q.size());
    for (const auto& qi : q) out.emplace_back(qi);
    return out;
}
}  // namespace

Fq12 multi_pairing(std::span<const G1Affine> p, std::span<const G2Affine> q) {
    auto prepared = prepare_all(p, q, "multi_pairing");
    return final_exponentiation(multi_miller_loop(p, prepared));
}

bool pairing_product_is_one(std::span<const G1Affine> p, std::span<const G2Affine> q) {
    auto prepared = prepare_all(p, q, "pairing_product_is_one");
    return final_exponentiation(multi_miller_loop(p, prepared)).is_one();
}

}  // namespace cuzk
