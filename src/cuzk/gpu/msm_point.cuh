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
// Independent products are computed in pairs (F::mul2 / F::sqr2, dev_field.cuh), which lets their carry chains
// interleave.
template <class F>
__device__ Xyzz<F> dbl_affine(const F& x, const F& y) {
    F U = y.dbl();
    F V, X2, W, S;
    F::sqr2(V, X2, U, x);
    F::mul2(W, S, U, V, x, V);
    F M = F::add_lazy(X2.dbl(), X2);  // 3 x^2, a factor only: < 2p
    Xyzz<F> r;
    r.X = M.square() - S.dbl();
    F t0, t1;
    F::mul2(t0, t1, M, S - r.X, W, y);
    r.Y = t0 - t1;
    r.ZZ = V;
    r.ZZZ = W;
    return r;
}

// dbl-2008-s-1 (6M + 3S).
template <class F>
__device__ Xyzz<F> dbl(const Xyzz<F>& p) {
    if (is_identity(p)) return p;
    F U = p.Y.dbl();
    F V, X2, W, S;
    F::sqr2(V, X2, U, p.X);
    F::mul2(W, S, U, V, p.X, V);
    F M = F::add_lazy(X2.dbl(), X2);  // 3 x^2, a factor only: < 2p
    F MM;
    Xyzz<F> r;
    F::mul2(MM, r.ZZ, M, M, V, p.ZZ);
    r.X = MM - S.dbl();
    F t0, t1;
    F::mul2(t0, t1, M, S - r.X, W, p.Y);
    r.Y = t0 - t1;
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
    F U2, S2;
    F::mul2(U2, S2, x, p.ZZ, y, p.ZZZ);
    F P = U2 - p.X;
    F R = S2 - p.Y;
    if (P.is_zero()) {
        p = R.is_zero() ? dbl_affine(x, y) : identity<F>();
        return;
    }
    F PP, RR, PPP, Q;
    F::sqr2(PP, RR, P, R);
    F::mul2(PPP, Q, P, PP, p.X, PP);
    F X3 = RR - PPP - Q.dbl();
    F t0, t1;
    F::mul2(t0, t1, R, Q - X3, p.Y, PPP);
    p.Y = t0 - t1;
    p.X = X3;
    F::mul2(p.ZZ, p.ZZZ, p.ZZ, PP, p.ZZZ, PPP);
}

// add-2008-s: p + q (12M + 2S), exceptional cases handled.
template <class F>
__device__ Xyzz<F> add(const Xyzz<F>& p, const Xyzz<F>& q) {
    if (is_identity(p)) return q;
    if (is_identity(q)) return p;
    F U1, U2, S1, S2;
    F::mul2(U1, U2, p.X, q.ZZ, q.X, p.ZZ);
    F::mul2(S1, S2, p.Y, q.ZZZ, q.Y, p.ZZZ);
    F P = U2 - U1;
    F R = S2 - S1;
    if (P.is_zero()) return R.is_zero() ? dbl(p) : identity<F>();
    F PP, RR, PPP, Q, ZZ12, ZZZ12;
    F::sqr2(PP, RR, P, R);
    F::mul2(PPP, Q, P, PP, U1, PP);
    F::mul2(ZZ12, ZZZ12, p.ZZ, q.ZZ, p.ZZZ, q.ZZZ);
    Xyzz<F> r;
    r.X = RR - PPP - Q.dbl();
    F t0, t1;
    F::mul2(t0, t1, R, Q - r.X, S1, PPP);
    r.Y = t0 - t1;
    F::mul2(r.ZZ, r.ZZZ, ZZ12, PP, ZZZ12, PPP);
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
