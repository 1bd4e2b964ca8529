// Variable-time modular inversion by Bernstein-Yang "divsteps" (D. J. Bernstein, B.-Y. Yang, "Fast constant-time gcd
// computation and modular inversion", TCHES 2019), in the half-delta form and with early exit once g = 0.
//
// Why: Fermat's a^(p-2) costs ~450 multiplications (~20 us for Fq on the 2-vCPU VM); the batched affine additions
// of the MSM and of the subgroup check pay one inversion per batch, and their small late batches made it 12 % of
// a subgroup check. This costs ~10 batches of 62 divsteps on machine words plus a few dozen 64x64-bit products
// per batch.
//
// Timing depends on the input: use it for public or already-randomised values only (the MSM and subgroup check
// already branch on their data). MontField::inverse() stays Fermat's.
//
// The algorithm. f = p, g = x, delta = 1/2; a divstep maps (delta, f, g) to (1 - delta, g, (g - f) / 2) when
// delta > 0 and g is odd, else to (1 + delta, f, (g + (g mod 2) f) / 2). f stays odd, gcd(f, g) is preserved, and g
// reaches 0 with f = +-gcd = +-1. 62 divsteps depend only on the low 62 bits of f and g, so they run on one word
// each and yield a matrix T (entries scaled by 2^62, |u| + |v| <= 2^62 and |q| + |r| <= 2^62) that is then applied
// to the full f, g (exact division by 2^62) and to d, e with f = d x, g = e x (mod p) (division by 2^62 mod p: add
// the multiple of p that clears the low 62 bits). At the end x^-1 = d / f = +-d.
//
// Numbers are signed radix-2^62 arrays: limbs 0..K-2 in [0, 2^62), the top limb signed. |f|, |g| <= p throughout;
// |d|, |e| grow by at most p per batch, so K limbs leave room for far more batches than the ~16 the worst case
// needs (a cap falls back to Fermat if it were ever reached).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "cuzk/ff/bigint.hpp"

namespace cuzk::inverse_detail {

using i128 = __int128;
constexpr uint64_t kM62 = (uint64_t(1) << 62) - 1;

// Limbs for an N-limb modulus: 64 N bits, 8 bits of growth for d and e, a sign bit.
constexpr size_t limbs62(size_t n) { return (64 * n + 9 + 61) / 62; }

template <size_t K>
struct S62 {
    int64_t v[K];
};

template <size_t K, size_t N>
constexpr S62<K> to_s62(const limbs_t<N>& a) {
    S62<K> r{};
    for (size_t k = 0; k < K; k++) {
        const size_t bit = 62 * k, w = bit / 64, sh = bit % 64;
        uint64_t x = w < N ? a[w] >> sh : 0;
        if (sh > 2 && w + 1 < N) x |= a[w + 1] << (64 - sh);
        r.v[k] = (int64_t)(x & kM62);
    }
    return r;
}

// The value as N limbs; it must lie in [0, 2^(64 N)).
template <size_t N, size_t K>
limbs_t<N> from_s62(const S62<K>& a) {
    limbs_t<N> r{};
    for (size_t k = 0; k < K; k++) {
        const uint64_t x = (uint64_t)a.v[k];
        const size_t bit = 62 * k, w = bit / 64, sh = bit % 64;
        if (w < N) r[w] |= x << sh;
        if (sh > 2 && w + 1 < N) r[w + 1] |= x >> (64 - sh);
    }
    return r;
}

// The transition matrix of 62 divsteps, scaled by 2^62: 2^62 (f', g') = (u f + v g, q f + r g).
struct Trans {
    int64_t u, v, q, r;
};

// 62 divsteps on the low words of f (odd) and g; delta2 is 2 delta. Returns the new delta2.
inline int64_t divsteps62(int64_t delta2, uint64_t f, uint64_t g, Trans& t) {
    uint64_t u = 1, v = 0, q = 0, r = 1;  // modulo 2^64; the true values fit in int64
    int left = 62;
    while (left > 0) {
        if ((g & 1) == 0) {
            // A run of even g: each step halves g and doubles (u, v). The sentinel bit caps the run at `left`.
            const int z = __builtin_ctzll(g | (uint64_t(1) << left));
            g >>= z, u <<= z, v <<= z;
            delta2 += 2 * z;
            left -= z;
            continue;
        }
        if (delta2 > 0) {
            // (f, g) <- (g, (g - f) / 2)
            delta2 = 2 - delta2;
            const uint64_t nf = g, nu = q << 1, nv = r << 1;
            g = (g - f) >> 1;
            q -= u, r -= v;
            f = nf, u = nu, v = nv;
        } else {
            // (f, g) <- (f, (g + f) / 2)
            delta2 += 2;
            g = (g + f) >> 1;
            q += u, r += v;
            u <<= 1, v <<= 1;
        }
        left--;
    }
    t = {(int64_t)u, (int64_t)v, (int64_t)q, (int64_t)r};
    return delta2;
}

// (f, g) <- (u f + v g, q f + r g) / 2^62, both divisions exact.
template <size_t K>
inline void update_fg(S62<K>& f, S62<K>& g, const Trans& t) {
    i128 cf = (i128)t.u * f.v[0] + (i128)t.v * g.v[0];
    i128 cg = (i128)t.q * f.v[0] + (i128)t.r * g.v[0];
    cf >>= 62, cg >>= 62;
    for (size_t k = 1; k < K; k++) {
        cf += (i128)t.u * f.v[k] + (i128)t.v * g.v[k];
        cg += (i128)t.q * f.v[k] + (i128)t.r * g.v[k];
        f.v[k - 1] = (int64_t)((uint64_t)cf & kM62), cf >>= 62;
        g.v[k - 1] = (int64_t)((uint64_t)cg & kM62), cg >>= 62;
    }
    f.v[K - 1] = (int64_t)cf, g.v[K - 1] = (int64_t)cg;
}

// (d, e) <- (u d + v e, q d + r e) / 2^62 mod p: md, me in [0, 2^62) are the multiples of p that make the sums
// divisible by 2^62 (pinv = p^-1 mod 2^62).
template <size_t K>
inline void update_de(S62<K>& d, S62<K>& e, const Trans& t, const S62<K>& p, uint64_t pinv) {
    const uint64_t ld = (uint64_t)t.u * (uint64_t)d.v[0] + (uint64_t)t.v * (uint64_t)e.v[0];
    const uint64_t le = (uint64_t)t.q * (uint64_t)d.v[0] + (uint64_t)t.r * (uint64_t)e.v[0];
    const int64_t md = (int64_t)((0 - ld * pinv) & kM62), me = (int64_t)((0 - le * pinv) & kM62);
    i128 cd = (i128)t.u * d.v[0] + (i128)t.v * e.v[0] + (i128)md * p.v[0];
    i128 ce = (i128)t.q * d.v[0] + (i128)t.r * e.v[0] + (i128)me * p.v[0];
    cd >>= 62, ce >>= 62;
    for (size_t k = 1; k < K; k++) {
        cd += (i128)t.u * d.v[k] + (i128)t.v * e.v[k] + (i128)md * p.v[k];
        ce += (i128)t.q * d.v[k] + (i128)t.r * e.v[k] + (i128)me * p.v[k];
        d.v[k - 1] = (int64_t)((uint64_t)cd & kM62), cd >>= 62;
        e.v[k - 1] = (int64_t)((uint64_t)ce & kM62), ce >>= 62;
    }
    d.v[K - 1] = (int64_t)cd, e.v[K - 1] = (int64_t)ce;
}

template <size_t K>
inline bool is_zero(const S62<K>& a) {
    int64_t acc = 0;
    for (size_t k = 0; k < K; k++) acc |= a.v[k];
    return acc == 0;
}

// a + s b for s = +1 or -1, limbs renormalised.
template <size_t K>
inline S62<K> add_signed(const S62<K>& a, const S62<K>& b, int64_t s) {
    S62<K> r;
    i128 c = 0;
    for (size_t k = 0; k + 1 < K; k++) {
        c += (i128)a.v[k] + (i128)s * b.v[k];
        r.v[k] = (int64_t)((uint64_t)c & kM62), c >>= 62;
    }
    r.v[K - 1] = (int64_t)(c + a.v[K - 1] + s * b.v[K - 1]);
    return r;
}

// x^-1 mod p as an integer in [0, p) for 0 < x < p and p an odd prime of N limbs; nullopt only if the batch cap is
// reached (never observed; the caller then uses Fermat).
template <size_t N>
std::optional<limbs_t<N>> inverse_vartime(const limbs_t<N>& x, const limbs_t<N>& modulus) {
    constexpr size_t K = limbs62(N);
    const S62<K> p = to_s62<K>(modulus);
    // p^-1 mod 2^64 by Newton's iteration (each step doubles the correct low bits).
    uint64_t pinv = 1;
    for (int i = 0; i < 7; i++) pinv *= 2 - modulus[0] * pinv;
    S62<K> f = p, g = to_s62<K>(x), d{}, e{};
    e.v[0] = 1;
    int64_t delta2 = 1;
    // hddivsteps need at most ~2.3 bits(p) + 30 steps; the cap is twice that and keeps |d| < 2^(64 N + 8).
    constexpr int kMaxBatches = (int)((2 * (23 * 64 * N / 10 + 30)) / 62 + 2);
    for (int batch = 0;; batch++) {
        if (batch == kMaxBatches) return std::nullopt;
        Trans t;
        const uint64_t f0 = (uint64_t)f.v[0] | (uint64_t)f.v[1] << 62, g0 = (uint64_t)g.v[0] | (uint64_t)g.v[1] << 62;
        delta2 = divsteps62(delta2, f0, g0, t);
        update_de(d, e, t, p, pinv);
        update_fg(f, g, t);
        if (is_zero(g)) break;
    }
    // f = +-1 (x invertible): x^-1 = f d. Then into [0, p).
    if (f.v[K - 1] < 0) d = add_signed(S62<K>{}, d, -1);
    while (d.v[K - 1] < 0) d = add_signed(d, p, 1);
    for (;;) {
        S62<K> t = add_signed(d, p, -1);
        if (t.v[K - 1] < 0) break;
        d = t;
    }
    return from_s62<N>(d);
}

}  // namespace cuzk::inverse_detail
