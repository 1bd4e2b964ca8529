// Shoup's product by a precomputed constant for Fr (32-bit limbs, PTX carry chains): the NTT's products by table
// twiddles (ntt.cu). For a constant w < p and w' = floor(w 2^256 / p): q = floor(a w' / 2^256) (here from the
// partial products of columns >= N - 2 only), r = a w - q p, computed mod 2^256, is in [0, 2p) for a < 2p, and one
// conditional subtraction leaves a w mod p, fully reduced. With a in Montgomery form (x R) and w canonical, r is
// the Montgomery form of x w: exactly mont32_t's a * (w R). Wide multiply-adds: 43 (q) + 28 + 28 (the two low
// halves) and 16 low halves alone, against CIOS's 128 + 8; H100, 2026-12-07: 72.3 against 52.0 G products/s in a
// dependent chain, 59.5 against 45.8 in radix-2 butterflies (bench/experiments/fr_shoup.cu, docs/gpu-ntt-notes.md).
//
// The same code runs on the host with the carry flag emulated (Cc below), so the arithmetic is tested without a GPU
// (tests/test_shoup.cpp); on the device every step is one `asm volatile` statement, as in mont32.cuh.
#pragma once

#include <cstddef>
#include <cstdint>

// Host and device (nvcc), or host only (a C++ compiler: the tests). The loops are unrolled on the device only.
#ifdef __CUDACC__
#define CUZK_SHOUP_FN __host__ __device__ __forceinline__
#else
#define CUZK_SHOUP_FN inline
#endif
#ifdef __CUDA_ARCH__
#define CUZK_SHOUP_UNROLL _Pragma("unroll")
#else
#define CUZK_SHOUP_UNROLL
#endif

namespace cuzk::gpu::shoup {

// One PTX step with the carry flag: d = op(a, b) or op(x, y, z), returned.
#define CUZK_SHOUP_PTX2(op, a, b)                                         \
    uint32_t d;                                                           \
    asm volatile(op " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); \
    return d
#define CUZK_SHOUP_PTX3(op, x, y, z)                                                 \
    uint32_t d;                                                                      \
    asm volatile(op " %0, %1, %2, %3;" : "=r"(d) : "r"(x), "r"(y), "r"(z)); \
    return d

// One carry chain's steps. The device's carry flag is invisible to the compiler; the host keeps it in `c`.
struct Cc {
#ifndef __CUDA_ARCH__
    uint32_t c = 0;
#endif
    CUZK_SHOUP_FN uint32_t add_cc(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
        CUZK_SHOUP_PTX2("add.cc.u32", a, b);
#else
        const uint64_t s = (uint64_t)a + b;
        c = (uint32_t)(s >> 32);
        return (uint32_t)s;
#endif
    }
    CUZK_SHOUP_FN uint32_t addc_cc(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
        CUZK_SHOUP_PTX2("addc.cc.u32", a, b);
#else
        const uint64_t s = (uint64_t)a + b + c;
        c = (uint32_t)(s >> 32);
        return (uint32_t)s;
#endif
    }
    CUZK_SHOUP_FN uint32_t addc(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
        CUZK_SHOUP_PTX2("addc.u32", a, b);
#else
        return (uint32_t)((uint64_t)a + b + c);
#endif
    }
    CUZK_SHOUP_FN uint32_t sub_cc(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
        CUZK_SHOUP_PTX2("sub.cc.u32", a, b);
#else
        c = a < b;
        return a - b;
#endif
    }
    CUZK_SHOUP_FN uint32_t subc_cc(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
        CUZK_SHOUP_PTX2("subc.cc.u32", a, b);
#else
        const uint64_t t = (uint64_t)b + c;
        c = (uint64_t)a < t;
        return (uint32_t)((uint64_t)a - t);
#endif
    }
    CUZK_SHOUP_FN uint32_t subc(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
        CUZK_SHOUP_PTX2("subc.u32", a, b);
#else
        return (uint32_t)((uint64_t)a - b - c);
#endif
    }
    // lo(x y) + z, hi(x y) + z, with and without the carry in and out.
    CUZK_SHOUP_FN uint32_t mad_lo_cc(uint32_t x, uint32_t y, uint32_t z) {
#ifdef __CUDA_ARCH__
        CUZK_SHOUP_PTX3("mad.lo.cc.u32", x, y, z);
#else
        return add_cc((uint32_t)((uint64_t)x * y), z);
#endif
    }
    CUZK_SHOUP_FN uint32_t madc_lo_cc(uint32_t x, uint32_t y, uint32_t z) {
#ifdef __CUDA_ARCH__
        CUZK_SHOUP_PTX3("madc.lo.cc.u32", x, y, z);
#else
        return addc_cc((uint32_t)((uint64_t)x * y), z);
#endif
    }
    CUZK_SHOUP_FN uint32_t madc_lo(uint32_t x, uint32_t y, uint32_t z) {
#ifdef __CUDA_ARCH__
        CUZK_SHOUP_PTX3("madc.lo.u32", x, y, z);
#else
        return addc((uint32_t)((uint64_t)x * y), z);
#endif
    }
    CUZK_SHOUP_FN uint32_t mad_hi_cc(uint32_t x, uint32_t y, uint32_t z) {
#ifdef __CUDA_ARCH__
        CUZK_SHOUP_PTX3("mad.hi.cc.u32", x, y, z);
#else
        return add_cc((uint32_t)(((uint64_t)x * y) >> 32), z);
#endif
    }
    CUZK_SHOUP_FN uint32_t madc_hi_cc(uint32_t x, uint32_t y, uint32_t z) {
#ifdef __CUDA_ARCH__
        CUZK_SHOUP_PTX3("madc.hi.cc.u32", x, y, z);
#else
        return addc_cc((uint32_t)(((uint64_t)x * y) >> 32), z);
#endif
    }
    CUZK_SHOUP_FN uint32_t madc_hi(uint32_t x, uint32_t y, uint32_t z) {
#ifdef __CUDA_ARCH__
        CUZK_SHOUP_PTX3("madc.hi.u32", x, y, z);
#else
        return addc((uint32_t)(((uint64_t)x * y) >> 32), z);
#endif
    }
};

// Products are split by the parity of their column k = i + j: even columns go into E as the aligned word pairs
// (E[k], E[k + 1]), odd ones into D, which holds the words from 1 up (D[k - 1] = word k), so that their pairs
// (D[k - 1], D[k]) are aligned too: every partial product is one madc.lo.cc / madc.hi.cc pair on an aligned
// register pair (one IMAD.WIDE.U32.X). The value is E + 2^32 D.
//
// Row i (multiplier y[i]) adds the products x[j] y[i] whose column has the row's parity (j even) to one of E, D
// and those with j odd to the other, each as one carry chain over consecutive pairs. A chain's carry out goes into
// the word above its last pair, which no product has reached yet (only carries: at most 2 there).

// r = x y mod 2^(32 N) (N even): the products of columns <= N - 1, those of column N - 1 as their low half only.
template <size_t N>
CUZK_SHOUP_FN void low_product(const uint32_t* x, const uint32_t* y, uint32_t (&r)[N]) {
    static_assert(N % 2 == 0);
    uint32_t E[N], D[N];
CUZK_SHOUP_UNROLL
    for (size_t k = 0; k < N; k++) E[k] = D[k] = 0;
CUZK_SHOUP_UNROLL
    for (size_t i = 0; i < N; i++) {
CUZK_SHOUP_UNROLL
        for (size_t par = 0; par < 2; par++) {
            // j = par, par + 2, ... with i + j <= N - 1; column k = i + j. The chain ends in word N - 1: with the
            // product of column N - 1 (its low half only) or with the high half of column N - 2's (no carry out).
            Cc cc;
CUZK_SHOUP_UNROLL
            for (size_t j = par; i + j < N; j += 2) {
                const size_t k = i + j;
                uint32_t* W = (k % 2 == 0) ? E : D;
                const size_t lo = (k % 2 == 0) ? k : k - 1;  // index of word k in W
                const bool first = j == par;
                if (k == N - 1) {
                    W[lo] = first ? W[lo] + x[j] * y[i] : cc.madc_lo(x[j], y[i], W[lo]);
                    break;
                }
                W[lo] = first ? cc.mad_lo_cc(x[j], y[i], W[lo]) : cc.madc_lo_cc(x[j], y[i], W[lo]);
                W[lo + 1] = k + 2 == N ? cc.madc_hi(x[j], y[i], W[lo + 1]) : cc.madc_hi_cc(x[j], y[i], W[lo + 1]);
            }
        }
    }
    // r = E + 2^32 D mod 2^(32 N)
    Cc cc;
    r[0] = E[0];
    r[1] = cc.add_cc(E[1], D[0]);
CUZK_SHOUP_UNROLL
    for (size_t k = 2; k + 1 < N; k++) r[k] = cc.addc_cc(E[k], D[k - 1]);
    r[N - 1] = cc.addc(E[N - 1], D[N - 2]);
}

// q = floor(S / 2^(32 N)) for S = the sum of the products x[j] y[i] with i + j >= N - 2: words N - 2 .. 2N - 1 of S
// kept exactly. q is x y / 2^(32 N) less at most one: the products left out sum to less than 2^(32 (N - 1)) N^2.
// (B: the lowest column kept, even; B = 0 gives the exact high half.)
template <size_t N, size_t B = N - 2>
CUZK_SHOUP_FN void high_product(const uint32_t* x, const uint32_t* y, uint32_t (&q)[N]) {
    static_assert(N % 2 == 0 && B % 2 == 0 && B <= N - 2);
    // E word k at E[k - B] (k = B .. 2N - 1; B even); D word k at D[k - 1 - B] (k = B + 1 .. 2N - 1).
    constexpr size_t M = 2 * N - B;  // words kept
    uint32_t E[M], D[M];
CUZK_SHOUP_UNROLL
    for (size_t k = 0; k < M; k++) E[k] = D[k] = 0;
CUZK_SHOUP_UNROLL
    for (size_t i = 0; i < N; i++) {
CUZK_SHOUP_UNROLL
        for (size_t par = 0; par < 2; par++) {
            // j = par, par + 2, ... < N with i + j >= B.
            size_t j0 = par;
            while (B > 0 && i + j0 < B) j0 += 2;
            if (j0 >= N) continue;
            Cc cc;
            bool first = true;
            size_t last_hi = 0;
            uint32_t* Wl = nullptr;
CUZK_SHOUP_UNROLL
            for (size_t j = j0; j < N; j += 2) {
                const size_t k = i + j;
                uint32_t* W = (k % 2 == 0) ? E : D;
                const size_t lo = (k % 2 == 0) ? k - B : k - 1 - B;
                W[lo] = first ? cc.mad_lo_cc(x[j], y[i], W[lo]) : cc.madc_lo_cc(x[j], y[i], W[lo]);
                W[lo + 1] = cc.madc_hi_cc(x[j], y[i], W[lo + 1]);
                first = false;
                last_hi = lo + 1;
                Wl = W;
            }
            // The carry into the word above the chain's last pair (word i + j_last + 2 <= 2N: kept when < 2N),
            // written as the whole pair above: a pair whose low word alone held a value (and whose high word is a
            // known zero) cannot be the addend of one IMAD.WIDE.U32.X, and ptxas split every later product on it
            // into IMAD, IMAD.HI and IADD3.X (H100, first version: 28 of the 99 products paired).
            if (last_hi + 2 < M) {
                Wl[last_hi + 1] = cc.addc_cc(Wl[last_hi + 1], 0);
                Wl[last_hi + 2] = cc.addc(Wl[last_hi + 2], 0);
            } else if (last_hi + 1 < M) {
                Wl[last_hi + 1] = cc.addc(Wl[last_hi + 1], 0);
            }
        }
    }
    // S's words B .. 2N - 1 = E + 2^32 D; q = words N .. 2N - 1.
    Cc cc;
    uint32_t s[M];
    s[0] = E[0];
    s[1] = cc.add_cc(E[1], D[0]);
CUZK_SHOUP_UNROLL
    for (size_t k = 2; k + 1 < M; k++) s[k] = cc.addc_cc(E[k], D[k - 1]);
    s[M - 1] = cc.addc(E[M - 1], D[M - 2]);
CUZK_SHOUP_UNROLL
    for (size_t k = 0; k < N; k++) q[k] = s[k + N - B];
}

// a w mod p, fully reduced, for a < 2p, w < p canonical, wp = floor(w 2^(32 N) / p); p < 2^(32 N - 1).
template <size_t N>
CUZK_SHOUP_FN void mul_shoup(const uint32_t (&a)[N], const uint32_t* w, const uint32_t* wp,
                                                   const uint32_t* p, uint32_t (&r)[N]) {
    // The constants into registers first, fenced: a shared-memory load that the compiler places between the two
    // halves of a partial product keeps ptxas from fusing them into one IMAD.WIDE.U32.X (H100: 28 of 99 fused
    // when the rows read w and w' through the pointers).
    uint32_t wr[N], wpr[N];
CUZK_SHOUP_UNROLL
    for (size_t k = 0; k < N; k++) wr[k] = w[k], wpr[k] = wp[k];
#ifdef __CUDA_ARCH__
    asm volatile("" ::: "memory");
#endif
    uint32_t q[N], aw[N], qp[N];
    high_product<N>(a, wpr, q);
    low_product<N>(a, wr, aw);
    low_product<N>(q, p, qp);
    Cc cc;
    r[0] = cc.sub_cc(aw[0], qp[0]);
CUZK_SHOUP_UNROLL
    for (size_t k = 1; k + 1 < N; k++) r[k] = cc.subc_cc(aw[k], qp[k]);
    r[N - 1] = cc.subc(aw[N - 1], qp[N - 1]);
    // r < 2p: subtract p where r >= p
    uint32_t t[N];
    Cc cb;
    t[0] = cb.sub_cc(r[0], p[0]);
CUZK_SHOUP_UNROLL
    for (size_t k = 1; k < N; k++) t[k] = cb.subc_cc(r[k], p[k]);
    const uint32_t borrow = cb.subc(0, 0);  // all ones when r < p
CUZK_SHOUP_UNROLL
    for (size_t k = 0; k < N; k++) r[k] = borrow ? r[k] : t[k];
}

// w' = floor(w 2^(32 N) / p) for w < p (so w' < 2^(32 N)), bit by bit over the numerator: the definition, kept as
// the check of quotient_from_montgomery (tests, experiments); the tables use that (N = 8: ~0.1 ms an entry here).
template <size_t N>
inline void quotient(const uint32_t* w, const uint32_t* p, uint32_t* q) {
    uint64_t rem[N + 1] = {};  // 32-bit words in 64-bit slots; < 2p
    for (size_t k = 0; k < N; k++) q[k] = 0;
    for (int bit = (int)(64 * N) - 1; bit >= 0; bit--) {
        const int nb = bit - (int)(32 * N);  // the numerator's bits from 32 N up are w's
        uint64_t carry = nb >= 0 ? (w[nb / 32] >> (nb % 32)) & 1 : 0;
        for (size_t k = 0; k <= N; k++) {
            const uint64_t v = (rem[k] << 1) | carry;
            rem[k] = v & 0xffffffffULL;
            carry = v >> 32;
        }
        bool ge = rem[N] != 0;
        if (!ge) {
            ge = true;  // equal counts as >=
            for (size_t k = N; k-- > 0;)
                if (rem[k] != p[k]) {
                    ge = rem[k] > p[k];
                    break;
                }
        }
        if (!ge) continue;
        uint64_t borrow = 0;
        for (size_t k = 0; k <= N; k++) {
            const uint64_t sub = (k < N ? p[k] : 0) + borrow;
            borrow = rem[k] < sub;
            rem[k] = (rem[k] - sub) & 0xffffffffULL;
        }
        if (nb < 0) q[bit / 32] |= 1u << (bit % 32);
    }
}

// r = x y mod 2^(32 N), on the host.
template <size_t N>
inline void low_product_host(const uint32_t* x, const uint32_t* y, uint32_t* r) {
    uint64_t acc[N] = {};
    for (size_t i = 0; i < N; i++) {
        uint64_t c = 0;
        for (size_t j = 0; i + j < N; j++) {
            const uint64_t v = (uint64_t)x[i] * y[j] + acc[i + j] + c;
            acc[i + j] = v & 0xffffffffULL;
            c = v >> 32;
        }
    }
    for (size_t k = 0; k < N; k++) r[k] = (uint32_t)acc[k];
}

// -p^-1 mod 2^(32 N) for odd p, by Newton's iteration x <- x (2 - p x) (each step doubles the correct low bits;
// bigint.hpp has the same for one 64-bit word, MontField's INV).
template <size_t N>
inline void neg_inverse(const uint32_t* p, uint32_t* out) {
    uint32_t x[N] = {1}, t[N], u[N];
    for (size_t bits = 1; bits < 32 * N; bits *= 2) {
        low_product_host<N>(p, x, t);
        uint64_t borrow = 0;  // u = 2 - t
        for (size_t k = 0; k < N; k++) {
            const uint64_t v = (uint64_t)(k == 0 ? 2 : 0) - t[k] - borrow;
            u[k] = (uint32_t)v;
            borrow = (v >> 32) & 1;
        }
        low_product_host<N>(x, u, t);
        for (size_t k = 0; k < N; k++) x[k] = t[k];
    }
    uint64_t borrow = 0;  // out = -x
    for (size_t k = 0; k < N; k++) {
        const uint64_t v = (uint64_t)0 - x[k] - borrow;
        out[k] = (uint32_t)v;
        borrow = (v >> 32) & 1;
    }
}

// w' from w's Montgomery form m = w 2^(32 N) mod p: w 2^(32 N) = w' p + m, so w' = m (-p^-1) mod 2^(32 N) (w' <
// 2^(32 N)): one product instead of quotient()'s division. neg_pinv: neg_inverse(p).
template <size_t N>
inline void quotient_from_montgomery(const uint32_t* m, const uint32_t* neg_pinv, uint32_t* q) {
    low_product_host<N>(m, neg_pinv, q);
}

}  // namespace cuzk::gpu::shoup
