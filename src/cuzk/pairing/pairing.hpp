// The optimal ate pairing on BLS12-381: e(P, Q) = f_{x,Q}(P)^((p^12 - 1)/r) for P in G1, Q in G2, x the BLS parameter.
//
// Inputs are assumed to lie in their order-r subgroups (the decoders check that); the functions here reject points
// that are not on their curve (std::invalid_argument) but do not repeat the subgroup check. A point at infinity
// contributes the factor 1.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "cuzk/ec/g1.hpp"
#include "cuzk/ec/g2.hpp"
#include "cuzk/ff/fq12.hpp"

namespace cuzk {

// The Miller-loop lines of one G2 point, independent of the G1 point: for each doubling and addition step the line,
// scaled by a nonzero Fq2 factor (harmless: the final exponentiation kills every proper-subfield factor) and
// multiplied by w^3, is
//   c0 + (c1 * (-xP)) v + (c4 * yP) v w,
// sparse in slots 0, 1, 4 of Fq12 (see Fq12::mul_by_014).
struct G2Prepared {
    struct Line {
        Fq2 c0, c1, c4;
    };
    std::vector<Line> lines;  // in the order the Miller loop consumes them; empty for the point at infinity
    bool infinity = true;

    G2Prepared() = default;
    // Throws std::invalid_argument when q is not on the twist.
    explicit G2Prepared(const G2Affine& q);
    bool is_identity() const { return infinity; }
};

// f_{x,Q}(P) (up to factors the final exponentiation removes), conjugated because x < 0. One for an infinity input.
Fq12 miller_loop(const G1Affine& p, const G2Prepared& q);

// prod_i f_{x,Q_i}(P_i) with one shared chain of Fq12 squarings; pairs with an infinity point are skipped.
// Throws std::invalid_argument on mismatched lengths or an off-curve G1 point.
Fq12 multi_miller_loop(std::span<const G1Affine> p, std::span<const G2Prepared> q);

// f^(3 (p^12 - 1)/r): the hard part follows Hayashida-Hayasaka-Teruya (eprint 2020/875), whose chain computes the
// exponent 3 (p^4 - p^2 + 1)/r. Since gcd(3, r) = 1 this is still a non-degenerate bilinear pairing, and its value
// on the generators equals the published RELIC value (tests/vectors); tests/test_pairing pins the exact power.
// Throws std::invalid_argument for f = 0 (no Miller loop of valid points produces it).
Fq12 final_exponentiation(const Fq12& f);

Fq12 pairing(const G1Affine& p, const G2Affine& q);
Fq12 multi_pairing(std::span<const G1Affine> p, std::span<const G2Affine> q);
// prod_i e(P_i, Q_i) == 1, the Groth16 verification shape; one Miller loop, one final exponentiation.
bool pairing_product_is_one(std::span<const G1Affine> p, std::span<const G2Affine> q);

}  // namespace cuzk
