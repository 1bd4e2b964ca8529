// Device point arithmetic for the GPU MSM: XYZZ coordinates over a field type F (dev_field.cuh: gpu::fq_dev for
// G1, gpu::fq2_dev_t for G2), y^2 = x^3 + b with a = 0. The formulas are the a = 0 cases of the Explicit-Formulas
// Database, the same ones as the CPU's XYZZ in cuzk/ec/curve.hpp (whose members are not constexpr, so not callable on the device); the
// memory layout {X, Y, ZZ, ZZZ} equals cuzk::XYZZ<Cfg>, so sums copied back are read as CPU points directly.
// Identity: ZZ = 0 (all-zero bytes are the identity, so cudaMemset initialises buckets).
#pragma once

#include <cstdint>

namespace cuzk::gpu::msm_detail {

template <class F>
struct Xyzz {
    F X, Y, ZZ, ZZZ;
};

template <class F>
__device__ __forceinline__ bool is_identity(const Xyzz<F>& p) {
    return p.ZZ.is_zero();
}

template <class F>
__device__ __forceinline__ Xyzz<F> identity() {
    return Xyzz<F>{F::zero(), F::zero(), F::zero(), F::zero()};
}

// mdbl-2008-s-1: 2 (x, y) for an affine point (1M + 2S + ... : 4M + 2S over F).
template <class F>
__device__ Xyzz<F> dbl_affine(const F& x, const F& y) {
    F U = y.dbl();
    F V = U.square();
    F W = U * V;
    F S = x * V;
    F X2 = x.square();
    F M = X2.dbl() + X2;
    Xyzz<F> r;
    r.X = M.square() - S.dbl();
    r.Y = M * (S - r.X) - W * y;
    r.ZZ = V;
    r.ZZZ = W;
    return r;
}

// dbl-2008-s-1 (6M + 3S).
template <class F>
__device__ Xyzz<F> dbl(const Xyzz<F>& p) {
    if (is_identity(p)) return p;
    F U = p.Y.dbl();
    F V = U.square();
    F W = U * V;
    F S = p.X * V;
    F X2 = p.X.square();
    F M = X2.dbl() + X2;
    Xyzz<F> r;
    r.X = M.square() - S.dbl();
    r.Y = M * (S - r.X) - W * p.Y;
    r.ZZ = V * p.ZZ;
    r.ZZZ = W * p.ZZZ;
    return r;
}

// madd-2008-s: p += (x, y) for a finite affine point (8M + 2S), with the exceptional cases (p identity, p = q,
// p = -q) handled: buckets do receive equal points when a base repeats.
template <class F>
__device__ void add_affine(Xyzz<F>& p, const F& x, const F& y) {
    if (is_identity(p)) {
        p.X = x;
        p.Y = y;
        p.ZZ = F::one();
        p.ZZZ = F::one();
        return;
    }
    F U2 = x * p.ZZ;
    F S2 = y * p.ZZZ;
    F P = U2 - p.X;
    F R = S2 - p.Y;
    if (P.is_zero()) {
        p = R.is_zero() ? dbl_affine(x, y) : identity<F>();
        return;
    }
    F PP = P.square();
    F PPP = P * PP;
    F Q = p.X * PP;
    F X3 = R.square() - PPP - Q.dbl();
    p.Y = R * (Q - X3) - p.Y * PPP;
    p.X = X3;
    p.ZZ = p.ZZ * PP;
    p.ZZZ = p.ZZZ * PPP;
}

// add-2008-s: p + q (12M + 2S), exceptional cases handled.
template <class F>
__device__ Xyzz<F> add(const Xyzz<F>& p, const Xyzz<F>& q) {
    if (is_identity(p)) return q;
    if (is_identity(q)) return p;
    F U1 = p.X * q.ZZ;
    F U2 = q.X * p.ZZ;
    F S1 = p.Y * q.ZZZ;
    F S2 = q.Y * p.ZZZ;
    F P = U2 - U1;
    F R = S2 - S1;
    if (P.is_zero()) return R.is_zero() ? dbl(p) : identity<F>();
    F PP = P.square();
    F PPP = P * PP;
    F Q = U1 * PP;
    Xyzz<F> r;
    r.X = R.square() - PPP - Q.dbl();
    r.Y = R * (Q - r.X) - S1 * PPP;
    r.ZZ = p.ZZ * q.ZZ * PP;
    r.ZZZ = p.ZZZ * q.ZZZ * PPP;
    return r;
}

// [k] p for a small public k (double-and-add from the top set bit).
template <class F>
__device__ Xyzz<F> mul_small(const Xyzz<F>& p, uint32_t k) {
    Xyzz<F> r = identity<F>();
    if (k == 0) return r;
    for (int bit = 31 - __clz(k); bit >= 0; bit--) {
        r = dbl(r);
        if ((k >> bit) & 1) r = add(r, p);
    }
    return r;
}

}  // namespace cuzk::gpu::msm_detail
