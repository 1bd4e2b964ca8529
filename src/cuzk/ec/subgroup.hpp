// Prime-order subgroup membership for G1 and G2 of BLS12-381.
//
// E(Fq) has order h1 * r and the twist E'(Fq2) has order h2 * r with cofactors h1, h2 > 1, so a point on the curve
// is not necessarily in G1 / G2. The naive test is [r]P == O (about 255 doublings). The fast tests use an
// endomorphism whose eigenvalue on the subgroup is a power of the BLS parameter x, so only 64-bit multiplications
// by |x| are needed:
//   G1:  phi(x, y) = (beta * x, y) with beta a primitive cube root of unity in Fq;  P in G1  <=>  phi(P) == [-x^2]P
//   G2:  psi = twist o Frobenius o untwist;                                         P in G2  <=>  psi(P) == [x]P
// The "<=" directions (no point outside the subgroup passes) are proved for BLS12 curves in M. Scott, "A note on
// group membership tests for G1, G2 and GT on BLS pairing-friendly curves" (ePrint 2021/1130, section 4); the
// "=>" directions hold because phi and psi act on the order-r subgroup as multiplication by their eigenvalue.
// tests/test_subgroup.cpp re-derives every constant below and compares the fast and the naive tests, including on
// points whose order is a small prime factor of the cofactor (the points a wrong endomorphism would let through).
//
// Every function here is pure (no shared state), so callers may check many points in parallel.
#pragma once

#include <cstdint>

#include "cuzk/ec/g1.hpp"
#include "cuzk/ec/g2.hpp"
#include "cuzk/ff/bls_param.hpp"

namespace cuzk {

// BLS_X_ABS, BLS_X_IS_NEGATIVE: see cuzk/ff/bls_param.hpp.

namespace endo {

// beta = 2^((p - 1) / 3) mod p, a primitive cube root of unity (2 generates Fq^*, so beta != 1). Of the two
// primitive cube roots this is the one for which phi acts on G1 as [-x^2] (the other one gives [x^2 - 1]).
constexpr Fq g1_beta() {
    return Fq::from_hex("0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe");
}

// psi(x, y) = (conj(x) * PSI_X, conj(y) * PSI_Y). With Fq12 = Fq2[w] / (w^6 - xi), xi = u + 1, the untwist is
// (x, y) -> (x / w^2, y / w^3); the q-power Frobenius then twisting back multiplies x^q by w^(2 - 2q) = xi^(-(q-1)/3)
// and y^q by w^(3 - 3q) = xi^(-(q-1)/2) (q = p; p = 1 mod 6 makes both exponents integers). On Fq2, x^q = conj(x).
// PSI_X = 1 / (u + 1)^((p - 1) / 3)   (its c0 is 0)
constexpr Fq2 g2_psi_x() {
    return {Fq::zero(),
            Fq::from_hex("0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd0000"
                         "0000aaad")};
}
// PSI_Y = 1 / (u + 1)^((p - 1) / 2)
constexpr Fq2 g2_psi_y() {
    return {Fq::from_hex("0x135203e60180a68ee2e9c448d77a2cd91c3dedd930b1cf60ef396489f61eb45e304466cf3e67fa0af1ee7b04"
                         "121bdea2"),
            Fq::from_hex("0x06af0e0437ff400b6831e36d6bd17ffe48395dabc2d3435e77f76e17009241c5ee67992f72ec05f4c81084fb"
                         "ede3cc09")};
}

}  // namespace endo

// The GLV endomorphism phi(x, y) = (beta x, y) of E(Fq). In Jacobian coordinates x = X / Z^2, so only X is scaled.
G1Jacobian g1_phi(const G1Jacobian& p);
G1Affine g1_phi(const G1Affine& p);
// The untwist-Frobenius-twist endomorphism psi of E'(Fq2). In Jacobian coordinates the Frobenius commutes with
// the division by Z^2 / Z^3, so conj(X) PSI_X, conj(Y) PSI_Y, conj(Z) represents psi of the affine point.
G2Jacobian g2_psi(const G2Jacobian& p);
G2Affine g2_psi(const G2Affine& p);

// [x]P for the (negative) BLS parameter x.
G1Jacobian g1_mul_by_x(const G1Jacobian& p);
G2Jacobian g2_mul_by_x(const G2Jacobian& p);

// Fast subgroup tests. They return false for a point that is not on its curve (the endomorphism argument only
// applies to curve points), and true for the point at infinity.
bool g1_in_subgroup(const G1Affine& p);
bool g1_in_subgroup(const G1Jacobian& p);
bool g2_in_subgroup(const G2Affine& p);
bool g2_in_subgroup(const G2Jacobian& p);

// Reference tests: on the curve and [r]P == O (255 doublings and one addition per set bit of r); for tests.
bool g1_in_subgroup_naive(const G1Affine& p);
bool g1_in_subgroup_naive(const G1Jacobian& p);
bool g2_in_subgroup_naive(const G2Affine& p);
bool g2_in_subgroup_naive(const G2Jacobian& p);

}  // namespace cuzk
