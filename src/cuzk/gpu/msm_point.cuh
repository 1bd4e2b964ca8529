// Device point arithmetic for the GPU MSM: XYZZ coordinates over a field type F (dev_field.cuh: gpu::fq_dev for
// G1, gpu::fq2_dev_t for G2), y^2 = x^3 + b with a = 0. The formulas are the a = 0 cases of the Explicit-Formulas
// Database, the same ones as the CPU's XYZZ in cuzk/ec/curve.hpp (whose members are not constexpr, so not callable on the device); the
// memory layout {X, Y, ZZ, ZZZ} equals cuzk::XYZZ<Cfg>, so sums copied back are read as CPU points directly.
// Identity: ZZ = 0 (all-zero bytes are the identity, so cudaMemset initialises buckets).
#pragma once

#include <cstdint>
#include <cstring>

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

// ---- one point on two lanes ----------------------------------------------------------------------------------
// The lane-pair layout (the bucket reduction's window_segment_pairs): lanes 2k and 2k + 1 of a warp hold one XYZZ
// point, the even lane (X, ZZ) and the odd lane (Y, ZZZ), so a thread holds half a point. An addition gives each
// lane 7 of its 14 products and swaps four intermediate values between the two by warp shuffles (4 x sizeof(F) / 4
// of them against ~7 products' worth of wide multiplies a lane). What it buys is registers and threads: the
// one-thread Fq2 walk spills 8.9 KB (docs/gpu-msm-notes.md has the mixed addition's pair form, measured no faster).
template <class F>
struct XyzzHalf {
    F c;  // X on the even lane, Y on the odd one
    F z;  // ZZ on the even lane, ZZZ on the odd one (both 0 for the identity: ZZ^3 = ZZZ^2)
};

// v moved between lanes word by word: shfl(word) is one warp shuffle of a 32-bit word (every lane it names calls
// it).
template <class T, class Shfl>
__device__ __forceinline__ T shuffle_words(const T& v, Shfl shfl) {
    static_assert(sizeof(T) % 4 == 0);
    constexpr unsigned kWords = sizeof(T) / 4;
    uint32_t w[kWords];
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (unsigned i = 0; i < kWords; i++) w[i] = shfl(w[i]);
    T r;
    memcpy(&r, w, sizeof(T));
    return r;
}

// The other lane's v (lanes 2k, 2k + 1; mask: the pair's two bits, both lanes call it).
template <class F>
__device__ __forceinline__ F pair_swap(const F& v, unsigned mask) {
    return shuffle_words(v, [mask](uint32_t x) { return __shfl_xor_sync(mask, x, 1); });
}

// c ? a : b word by word (a select per register, no branch).
template <class F>
__device__ __forceinline__ F pick(bool c, const F& a, const F& b) {
    constexpr unsigned kWords = sizeof(F) / 4;
    uint32_t wa[kWords], wb[kWords];
    memcpy(wa, &a, sizeof(F));
    memcpy(wb, &b, sizeof(F));
#pragma unroll
    for (unsigned i = 0; i < kWords; i++) wa[i] = c ? wa[i] : wb[i];
    F r;
    memcpy(&r, wa, sizeof(F));
    return r;
}

// dbl-2008-s-1 on a lane pair (even: X^2, S = X V, ZZ3 = ZZ V, M (S - X3); odd: V = (2Y)^2, W = 2Y V, M^2,
// W Y, ZZZ3 = W ZZZ): 5 products a lane, one of them spare (the even lane's second in the last step).
template <class F>
__device__ XyzzHalf<F> dbl_pair(const XyzzHalf<F>& p, bool odd, unsigned mask) {
    if (p.z.is_zero()) return p;
    const F a = pick(odd, p.c.dbl(), p.c);  // even: X, odd: U = 2Y
    const F s1 = a.square();                // even: X^2, odd: V
    const F o1 = pair_swap(s1, mask);
    const F V = pick(odd, s1, o1), X2 = pick(odd, o1, s1);
    const F M = F::add_lazy(X2.dbl(), X2);  // 3 X^2, a factor only: < 2p
    F r0, r1;
    F::mul2(r0, r1, a, V, pick(odd, M, p.z), pick(odd, M, V));  // even: S, ZZ3; odd: W, M^2
    const F o2 = pair_swap(pick(odd, r1, r0), mask);             // even gets M^2, odd gets S
    const F S = pick(odd, o2, r0), MM = pick(odd, r1, o2);
    const F X3 = MM - S.dbl();
    F t0, t1;
    F::mul2(t0, t1, pick(odd, r0, M), pick(odd, p.c, S - X3), pick(odd, r0, M), pick(odd, p.z, S - X3));
    // even: t0 = M (S - X3) (t1 spare); odd: t0 = W Y, t1 = ZZZ3
    XyzzHalf<F> r;
    r.c = pick(odd, pair_swap(t0, mask) - t0, X3);
    r.z = pick(odd, t1, r1);
    return r;
}

// add-2008-s on a lane pair (p + q, both as halves): 6 products and a squaring a lane, exceptional cases handled.
template <class F>
__device__ XyzzHalf<F> add_pair(const XyzzHalf<F>& p, const XyzzHalf<F>& q, bool odd, unsigned mask) {
    if (p.z.is_zero()) return q;
    if (q.z.is_zero()) return p;
    const F zz = p.z * q.z;  // even: ZZ1 ZZ2, odd: ZZZ1 ZZZ2
    F u1, u2;
    F::mul2(u1, u2, p.c, q.z, q.c, p.z);  // even: U1 = X1 ZZ2, U2 = X2 ZZ1; odd: S1, S2
    const F D = u2 - u1;                  // even: P, odd: R
    const F oD = pair_swap(D, mask);
    const bool dz = D.is_zero(), odz = oD.is_zero();
    if (odd ? odz : dz) {
        if (odd ? dz : odz) return dbl_pair(p, odd, mask);
        return XyzzHalf<F>{F::zero(), F::zero()};
    }
    const F sq = D.square();                            // even: PP, odd: RR
    const F pp = pick(odd, pair_swap(sq, mask), sq);    // PP on both
    const F a3 = pick(odd, oD, u1);                     // even: U1, odd: P
    const F k1 = pick(odd, u1, oD);                     // kept: even R, odd S1
    const F m3 = a3 * pp;                               // even: Q = U1 PP, odd: PPP
    const F X3 = pair_swap(sq - m3, mask) - m3.dbl();   // even: RR - PPP - 2 Q
    F nz, m5;
    F::mul2(nz, m5, zz, pick(odd, m3, sq), k1, pick(odd, m3, m3 - X3));
    // nz: ZZ1 ZZ2 PP (even), ZZZ1 ZZZ2 PPP (odd); m5: R (Q - X3) (even), S1 PPP (odd)
    return XyzzHalf<F>{pick(odd, pair_swap(m5, mask) - m5, X3), nz};
}

// [k] p on a lane pair (k is the same on both lanes).
template <class F>
__device__ XyzzHalf<F> mul_small_pair(const XyzzHalf<F>& p, uint32_t k, bool odd, unsigned mask) {
    XyzzHalf<F> r{F::zero(), F::zero()};
    if (k == 0) return r;
    for (int bit = 31 - __clz(k); bit >= 0; bit--) {
        r = dbl_pair(r, odd, mask);
        if ((k >> bit) & 1) r = add_pair(r, p, odd, mask);
    }
    return r;
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
