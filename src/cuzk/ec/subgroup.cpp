#include "cuzk/ec/subgroup.hpp"

namespace cuzk {

G1Jacobian g1_phi(const G1Jacobian& p) {
    G1Jacobian r = p;
    r.X = p.X * endo::g1_beta();
    return r;
}

G1Affine g1_phi(const G1Affine& p) {
    if (p.infinity) return p;
    return G1Affine::from_xy(p.x * endo::g1_beta(), p.y);
}

G2Jacobian g2_psi(const G2Jacobian& p) {
    G2Jacobian r;
    r.X = p.X.conjugate() * endo::g2_psi_x();
    r.Y = p.Y.conjugate() * endo::g2_psi_y();
    r.Z = p.Z.conjugate();
    return r;
}

G2Affine g2_psi(const G2Affine& p) {
    if (p.infinity) return p;
    return G2Affine::from_xy(p.x.conjugate() * endo::g2_psi_x(), p.y.conjugate() * endo::g2_psi_y());
}

G1Jacobian g1_mul_by_x(const G1Jacobian& p) {
    G1Jacobian r = p.mul(BLS_X_ABS);
    return BLS_X_IS_NEGATIVE ? -r : r;
}

G2Jacobian g2_mul_by_x(const G2Jacobian& p) {
    G2Jacobian r = p.mul(BLS_X_ABS);
    return BLS_X_IS_NEGATIVE ? -r : r;
}

bool g1_in_subgroup(const G1Jacobian& p) {
    if (!p.is_on_curve()) return false;
    if (p.is_identity()) return true;
    // phi(P) == -[x^2]P  <=>  phi(P) + [x]([x]P) == O
    G1Jacobian x2p = g1_mul_by_x(g1_mul_by_x(p));
    return (g1_phi(p) + x2p).is_identity();
}

bool g1_in_subgroup(const G1Affine& p) { return g1_in_subgroup(p.to_jacobian()); }

bool g2_in_subgroup(const G2Jacobian& p) {
    if (!p.is_on_curve()) return false;
    if (p.is_identity()) return true;
    return g2_psi(p) == g2_mul_by_x(p);
}

bool g2_in_subgroup(const G2Affine& p) { return g2_in_subgroup(p.to_jacobian()); }

bool g1_in_subgroup_naive(const G1Jacobian& p) { return p.is_on_curve() && p.mul(Fr::P).is_identity(); }
bool g1_in_subgroup_naive(const G1Affine& p) { return g1_in_subgroup_naive(p.to_jacobian()); }
bool g2_in_subgroup_naive(const G2Jacobian& p) { return p.is_on_curve() && p.mul(Fr::P).is_identity(); }
bool g2_in_subgroup_naive(const G2Affine& p) { return g2_in_subgroup_naive(p.to_jacobian()); }

}  // namespace cuzk
