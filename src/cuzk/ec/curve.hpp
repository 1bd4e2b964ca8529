// Short Weierstrass curves y^2 = x^3 + b (a = 0) over a field F, in three coordinate systems:
//   Affine   (x, y) plus an explicit infinity flag,
//   Jacobian (X, Y, Z):        x = X/Z^2,  y = Y/Z^3,   Z = 0 is infinity,
//   XYZZ     (X, Y, ZZ, ZZZ):  x = X/ZZ,   y = Y/ZZZ,   ZZ^3 = ZZZ^2, ZZ = 0 is infinity (MSM buckets).
// Formulas are the a = 0 cases from the Explicit-Formulas Database (names in comments). The group operations are
// constexpr, so device code compiled with --expt-relaxed-constexpr can use the same formulas (one source of truth).
#pragma once

#include <span>
#include <vector>

#include "cuzk/ff/bigint.hpp"

namespace cuzk {

template <class Cfg>
struct Jacobian;
template <class Cfg>
struct XYZZ;

template <class Cfg>
struct Affine {
    using F = typename Cfg::F;
    F x{}, y{};
    bool infinity = true;

    static constexpr Affine identity() { return Affine{}; }
    static constexpr Affine from_xy(const F& x, const F& y) { return Affine{x, y, false}; }
    static Affine generator() { return from_xy(Cfg::gen_x(), Cfg::gen_y()); }

    constexpr bool is_identity() const { return infinity; }
    // y^2 = x^3 + b; the point at infinity is on the curve.
    constexpr bool is_on_curve() const { return infinity || y.square() == x.square() * x + Cfg::b(); }
    constexpr Affine operator-() const { return infinity ? *this : Affine{x, -y, false}; }
    friend constexpr bool operator==(const Affine& a, const Affine& b) {
        if (a.infinity || b.infinity) return a.infinity == b.infinity;
        return a.x == b.x && a.y == b.y;
    }
    friend constexpr bool operator!=(const Affine& a, const Affine& b) { return !(a == b); }
    Jacobian<Cfg> to_jacobian() const { return Jacobian<Cfg>::from_affine(*this); }
};

template <class Cfg>
struct Jacobian {
    using F = typename Cfg::F;
    using AffineT = Affine<Cfg>;
    F X{}, Y = F::one(), Z{};

    static constexpr Jacobian identity() { return Jacobian{}; }
    static Jacobian generator() { return from_affine(AffineT::generator()); }
    static constexpr Jacobian from_affine(const AffineT& p) {
        if (p.infinity) return identity();
        return Jacobian{p.x, p.y, F::one()};
    }
    constexpr bool is_identity() const { return Z.is_zero(); }

    AffineT to_affine() const {
        if (is_identity()) return AffineT::identity();
        F zi = Z.inverse().value();
        F zi2 = zi.square();
        return AffineT::from_xy(X * zi2, Y * zi2 * zi);
    }

    // Y^2 = X^3 + b Z^6
    bool is_on_curve() const {
        if (is_identity()) return true;
        F z2 = Z.square();
        F z6 = z2.square() * z2;
        return Y.square() == X.square() * X + Cfg::b() * z6;
    }

    friend bool operator==(const Jacobian& a, const Jacobian& b) {
        if (a.is_identity() || b.is_identity()) return a.is_identity() == b.is_identity();
        F z1z1 = a.Z.square(), z2z2 = b.Z.square();
        return a.X * z2z2 == b.X * z1z1 && a.Y * z2z2 * b.Z == b.Y * z1z1 * a.Z;
    }
    friend bool operator!=(const Jacobian& a, const Jacobian& b) { return !(a == b); }

    constexpr Jacobian operator-() const { return Jacobian{X, -Y, Z}; }

    // dbl-2009-l
    constexpr Jacobian dbl() const {
        if (is_identity()) return *this;
        F A = X.square();
        F B = Y.square();
        F C = B.square();
        F D = ((X + B).square() - A - C).dbl();
        F E = A.dbl() + A;
        F Fv = E.square();
        Jacobian r;
        r.X = Fv - D.dbl();
        r.Y = E * (D - r.X) - C.dbl().dbl().dbl();
        r.Z = (Y * Z).dbl();
        return r;
    }

    // add-2007-bl, with the exceptional cases (identity, equal, opposite) handled.
    friend constexpr Jacobian operator+(const Jacobian& p, const Jacobian& q) {
        if (p.is_identity()) return q;
        if (q.is_identity()) return p;
        F Z1Z1 = p.Z.square();
        F Z2Z2 = q.Z.square();
        F U1 = p.X * Z2Z2;
        F U2 = q.X * Z1Z1;
        F S1 = p.Y * q.Z * Z2Z2;
        F S2 = q.Y * p.Z * Z1Z1;
        F H = U2 - U1;
        F rr = (S2 - S1).dbl();
        if (H.is_zero()) return rr.is_zero() ? p.dbl() : identity();
        F I = H.dbl().square();
        F J = H * I;
        F V = U1 * I;
        Jacobian r;
        r.X = rr.square() - J - V.dbl();
        r.Y = rr * (V - r.X) - (S1 * J).dbl();
        r.Z = ((p.Z + q.Z).square() - Z1Z1 - Z2Z2) * H;
        return r;
    }

    // madd-2007-bl: this + affine q.
    constexpr Jacobian add_mixed(const AffineT& q) const {
        if (q.infinity) return *this;
        if (is_identity()) return from_affine(q);
        F Z1Z1 = Z.square();
        F U2 = q.x * Z1Z1;
        F S2 = q.y * Z * Z1Z1;
        F H = U2 - X;
        F rr = (S2 - Y).dbl();
        if (H.is_zero()) return rr.is_zero() ? dbl() : identity();
        F HH = H.square();
        F I = HH.dbl().dbl();
        F J = H * I;
        F V = X * I;
        Jacobian r;
        r.X = rr.square() - J - V.dbl();
        r.Y = rr * (V - r.X) - (Y * J).dbl();
        r.Z = (Z + H).square() - Z1Z1 - HH;
        return r;
    }

    friend constexpr Jacobian operator-(const Jacobian& p, const Jacobian& q) { return p + (-q); }
    constexpr Jacobian& operator+=(const Jacobian& q) { return *this = *this + q; }
    constexpr Jacobian& operator-=(const Jacobian& q) { return *this = *this - q; }

    // [k]this for a little-endian integer k of any width (double-and-add, left to right; not constant time:
    // cuzk multiplies public points, or secrets on a machine the caller already trusts).
    template <size_t M>
    Jacobian mul(const limbs_t<M>& k) const {
        Jacobian r = identity();
        for (size_t i = bigint::num_bits(k); i-- > 0;) {
            r = r.dbl();
            if (bigint::bit(k, i)) r += *this;
        }
        return r;
    }
    Jacobian mul(uint64_t k) const { return mul(limbs_t<1>{k}); }

    // Converts many points with one field inversion (Montgomery's trick).
    static std::vector<AffineT> batch_to_affine(std::span<const Jacobian> pts) {
        std::vector<F> zs(pts.size());
        for (size_t i = 0; i < pts.size(); i++) zs[i] = pts[i].Z;
        F::batch_inverse(zs);
        std::vector<AffineT> out(pts.size());
        for (size_t i = 0; i < pts.size(); i++) {
            if (pts[i].is_identity()) continue;
            F zi2 = zs[i].square();
            out[i] = AffineT::from_xy(pts[i].X * zi2, pts[i].Y * zi2 * zs[i]);
        }
        return out;
    }
};

template <class Cfg>
struct XYZZ {
    using F = typename Cfg::F;
    using AffineT = Affine<Cfg>;
    F X{}, Y = F::one(), ZZ{}, ZZZ{};

    static constexpr XYZZ identity() { return XYZZ{}; }
    static constexpr XYZZ from_affine(const AffineT& p) {
        if (p.infinity) return identity();
        return XYZZ{p.x, p.y, F::one(), F::one()};
    }
    constexpr bool is_identity() const { return ZZ.is_zero(); }

    // Without an inversion: take Z_J = ZZ * ZZZ; then X_J = x Z_J^2 = X ZZ ZZZ^2 and Y_J = y Z_J^3 = Y ZZ^3 ZZZ^2.
    constexpr Jacobian<Cfg> to_jacobian() const {
        if (is_identity()) return Jacobian<Cfg>::identity();
        F zzz2 = ZZZ.square();
        Jacobian<Cfg> r;
        r.Z = ZZ * ZZZ;
        r.X = X * ZZ * zzz2;
        r.Y = Y * ZZ.square() * ZZ * zzz2;
        return r;
    }
    AffineT to_affine() const { return to_jacobian().to_affine(); }

    // dbl-2008-s-1
    constexpr XYZZ dbl() const {
        if (is_identity()) return *this;
        F U = Y.dbl();
        F V = U.square();
        F W = U * V;
        F S = X * V;
        F X2 = X.square();
        F M = X2.dbl() + X2;
        XYZZ r;
        r.X = M.square() - S.dbl();
        r.Y = M * (S - r.X) - W * Y;
        r.ZZ = V * ZZ;
        r.ZZZ = W * ZZZ;
        return r;
    }

    // mdbl-2008-s-1: 2q for affine q.
    static constexpr XYZZ dbl_affine(const AffineT& q) {
        if (q.infinity) return identity();
        F U = q.y.dbl();
        F V = U.square();
        F W = U * V;
        F S = q.x * V;
        F X2 = q.x.square();
        F M = X2.dbl() + X2;
        XYZZ r;
        r.X = M.square() - S.dbl();
        r.Y = M * (S - r.X) - W * q.y;
        r.ZZ = V;
        r.ZZZ = W;
        return r;
    }

    // madd-2008-s: this + affine q.
    constexpr XYZZ add_mixed(const AffineT& q) const {
        if (q.infinity) return *this;
        if (is_identity()) return from_affine(q);
        F U2 = q.x * ZZ;
        F S2 = q.y * ZZZ;
        F P = U2 - X;
        F R = S2 - Y;
        if (P.is_zero()) return R.is_zero() ? dbl_affine(q) : identity();
        F PP = P.square();
        F PPP = P * PP;
        F Q = X * PP;
        XYZZ r;
        r.X = R.square() - PPP - Q.dbl();
        r.Y = R * (Q - r.X) - Y * PPP;
        r.ZZ = ZZ * PP;
        r.ZZZ = ZZZ * PPP;
        return r;
    }
    constexpr XYZZ sub_mixed(const AffineT& q) const { return add_mixed(-q); }

    // add-2008-s
    friend constexpr XYZZ operator+(const XYZZ& p, const XYZZ& q) {
        if (p.is_identity()) return q;
        if (q.is_identity()) return p;
        F U1 = p.X * q.ZZ;
        F U2 = q.X * p.ZZ;
        F S1 = p.Y * q.ZZZ;
        F S2 = q.Y * p.ZZZ;
        F P = U2 - U1;
        F R = S2 - S1;
        if (P.is_zero()) return R.is_zero() ? p.dbl() : identity();
        F PP = P.square();
        F PPP = P * PP;
        F Q = U1 * PP;
        XYZZ r;
        r.X = R.square() - PPP - Q.dbl();
        r.Y = R * (Q - r.X) - S1 * PPP;
        r.ZZ = p.ZZ * q.ZZ * PP;
        r.ZZZ = p.ZZZ * q.ZZZ * PPP;
        return r;
    }
    constexpr XYZZ& operator+=(const XYZZ& q) { return *this = *this + q; }
    constexpr XYZZ operator-() const { return XYZZ{X, -Y, ZZ, ZZZ}; }
};

}  // namespace cuzk
