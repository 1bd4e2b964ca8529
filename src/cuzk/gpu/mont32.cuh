// Device-only Montgomery field arithmetic on 32-bit limbs with PTX carry chains, for the same fields as the CPU's
// MontField<Cfg>: the modulus and every constant come from the CPU config (one source of truth), split into 32-bit
// limbs at compile time. R = 2^(32 * 2N) = 2^(64N) is the CPU's R, so the memory layout of mont32_t<Cfg> is exactly
// that of MontField<Cfg> (little-endian limbs, Montgomery form, fully reduced): arrays move between host and device
// without conversion.
//
// Why PTX: a 32x32 multiply-add with carry-in/out (mad.lo.cc / madc.hi.cc) is the GPU's native big-integer step;
// the CPU's 64-bit code compiled for the device emulates each 64x64 product with four of them plus carry fix-ups.
//
// The multiplication is CIOS on two accumulators that trade roles every row (mul_rshift): each product's low and
// high half form one 64-bit multiply-add into an aligned register pair, which ptxas emits as one IMAD.WIDE.U32(.X),
// and the row's shift by one word is a renaming. H200, 2026-11-29, same run (Gmul/s in a dependent chain, Fq / Fr):
// this schedule 27.6 / 52.4; CIOS with each product's halves adjacent but one accumulator 23.3 / 47.9 (its shift
// misaligned the pairs: ~290 of its 880 SASS instructions per Fq product were register moves); CIOS with a pass of
// low halves then one of high halves 17.5 / 36.6; plain C++ on 64-bit intermediates 16.7 / 37.4; two accumulators
// merged by an addition chain every row 26.2 / 49.4. In the kernels the gap is larger (fewer live registers): G1
// MSM 2^26 468 against 580 ms, NTT 2^24 6.3 against 11.2 ms.
//
// Carry chains span several asm statements inside fully unrolled loops, with nothing between them that writes the
// condition code. Every statement is `asm volatile`: the carry flag is invisible to the compiler, so without it
// independent statements of one chain were reordered (seen on the H200: wrong products, while sums were right).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuzk/ff/mont_field.hpp"

namespace cuzk::gpu {

// Two variants of the product, off by default: each is faster in a dependent chain of products and slower in the
// kernels (H200, 2026-12-04, same run, scripts/gpu-field-ab.sh: with the variant / without):
//  - CUZK_MONT32_LOW01 (kLow01): Fr chain 56.9 / 53.2 G/s; NTT 2^24 6.47 / 5.37 ms, 2^26 22.3 / 21.9, 2^27 45.6 / 44.9;
//  - CUZK_MONT32_KARATSUBA (kKaratsuba): Fq chain 28.8 / 27.5 G/s; G1 MSM 2^22 37.1 / 35.7 ms, 2^24 121.9 / 117.6,
//    2^26 436.9 / 418.6; G2 MSM 2^20 35.6 / 33.7.
// They stay as switches (-D...=1) for the same A/B on other GPUs, whose integer pipes differ.
#ifndef CUZK_MONT32_LOW01
#define CUZK_MONT32_LOW01 0
#endif
#ifndef CUZK_MONT32_KARATSUBA
#define CUZK_MONT32_KARATSUBA 0
#endif

template <class Cfg>
struct mont32_t {
    using Cpu = MontField<Cfg>;
    static constexpr size_t N = 2 * Cfg::N;  // 32-bit limbs

    uint32_t l[N];

    // ---- constants, derived from the CPU field at compile time -------------------------------------------------
    struct Consts {
        uint32_t p[N];
        uint32_t one[N];  // R mod p
        uint32_t inv;     // -p^{-1} mod 2^32 (the low half of the CPU's -p^{-1} mod 2^64)
    };
    static constexpr Consts consts() {
        Consts c{};
        for (size_t i = 0; i < Cfg::N; i++) {
            c.p[2 * i] = (uint32_t)Cpu::P[i];
            c.p[2 * i + 1] = (uint32_t)(Cpu::P[i] >> 32);
            c.one[2 * i] = (uint32_t)Cpu::R[i];
            c.one[2 * i + 1] = (uint32_t)(Cpu::R[i] >> 32);
        }
        c.inv = (uint32_t)Cpu::INV;  // -p^{-1} mod 2^64 reduced mod 2^32 is -p^{-1} mod 2^32
        return c;
    }
    // The no-carry bound of MontField (p's top limb < 2^63 - 1) gives p's top 32-bit limb < 2^31 - 1: the running
    // value of the multiplication below stays < 2p < 2^(32N) and a + b < 2^(32N).
    static_assert(Cpu::P[Cfg::N - 1] < 0x7fffffffffffffffULL);
    // mul_rshift's odd accumulator has no carry out if p's top 32-bit limb is at most 2^31 - 3 (bound below).
    static constexpr uint32_t kTopLimb = (uint32_t)(Cpu::P[Cfg::N - 1] >> 32);
    static_assert(kTopLimb <= 0x7ffffffdu);

    // Fr's modulus has p_0 = 1 and p_1 = 2^32 - 1 (so -p^{-1} = -1 mod 2^32): in a reduction row m = -E_0, and
    // m p_0 = m and m p_1 = 2^32 m - m can come from integer adds instead of two wide multiplies (16 of Fr's 64
    // reduction products). Fq's modulus has no such limbs. Off unless CUZK_MONT32_LOW01 (above: slower NTTs).
    static constexpr bool kLow01 = CUZK_MONT32_LOW01 &&
        (uint32_t)Cpu::P[0] == 1 && (uint32_t)(Cpu::P[0] >> 32) == 0xffffffffu && (uint32_t)Cpu::INV == 0xffffffffu;
    // m p_1 = 2^32 m - m as two words, without a multiply.
    __device__ __forceinline__ static void times_p1(uint32_t m, uint32_t& lo, uint32_t& hi) {
        lo = 0u - m;
        hi = m - (m != 0);
    }

    // Lazy reduction (kLazy): when 4p < R and 3 top + 5 < 2^32 (top = p's top 32-bit limb; Fq: p < 2^381 in
    // R = 2^384, top = 0x1a0111ea; not Fr, whose 4p exceeds 2^256), the product and the square accept inputs below
    // 2p, not only below p, and still return fully reduced values:
    //  - mul_rshift returns (a b + M p) / R < (4p^2 + R p) / R = p (4p / R + 1) < 2p, so reduce_once suffices;
    //  - its O accumulator: a < 2p has top limb <= 2 top + 1, so O < 2^(32(N-2)) + (3 top + 5) 2^(32(N-1)) <
    //    2^(32N): still no carry out (the bound in mul_rshift with x_odd < (2 top + 2) 2^(32(N-2)));
    //  - square: the cross products and T = a^2 < 4p^2 < 2^(64N) are exact, T_hi < 4p^2 / R < p and the reduction
    //    of T_lo is <= p, so the sum is < 2p.
    // add_lazy(a, b) = a + b < 2p (a, b < p) without the conditional subtraction: for a sum whose only use is as a
    // factor (Fq2's Karatsuba and complex squaring sums; 3x in a doubling). It saves N subtractions and N selects.
    static constexpr bool kLazy = Cpu::P[Cfg::N - 1] < (uint64_t(1) << 62) && 3ull * kTopLimb + 5 < (1ull << 32);
    __device__ __forceinline__ static mont32_t add_lazy(const mont32_t& a, const mont32_t& b) {
        static_assert(kLazy, "lazy sums need 4p < R");
        mont32_t r;
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.l[0]) : "r"(a.l[0]), "r"(b.l[0]));
#pragma unroll
        for (size_t i = 1; i < N; i++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.l[i]) : "r"(a.l[i]), "r"(b.l[i]));
        return r;
    }

    __device__ __forceinline__ static mont32_t zero() {
        mont32_t r;
#pragma unroll
        for (size_t i = 0; i < N; i++) r.l[i] = 0;
        return r;
    }
    __device__ __forceinline__ static mont32_t one() {
        constexpr Consts c = consts();
        mont32_t r;
#pragma unroll
        for (size_t i = 0; i < N; i++) r.l[i] = c.one[i];
        return r;
    }
    __device__ __forceinline__ bool is_zero() const {
        uint32_t acc = 0;
#pragma unroll
        for (size_t i = 0; i < N; i++) acc |= l[i];
        return acc == 0;
    }
    __device__ __forceinline__ bool is_one() const { return *this == one(); }
    __device__ __forceinline__ friend bool operator==(const mont32_t& a, const mont32_t& b) {
        uint32_t acc = 0;
#pragma unroll
        for (size_t i = 0; i < N; i++) acc |= a.l[i] ^ b.l[i];
        return acc == 0;
    }
    __device__ __forceinline__ friend bool operator!=(const mont32_t& a, const mont32_t& b) { return !(a == b); }

    // a + b: the sum has no carry out (both < p < 2^(32N - 1)); subtract p and keep the difference unless it borrows.
    __device__ __forceinline__ friend mont32_t operator+(const mont32_t& a, const mont32_t& b) {
        constexpr Consts c = consts();
        uint32_t s[N], d[N], borrow;
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(a.l[0]), "r"(b.l[0]));
#pragma unroll
        for (size_t i = 1; i < N; i++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(s[i]) : "r"(a.l[i]), "r"(b.l[i]));
        asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(s[0]), "r"(c.p[0]));
#pragma unroll
        for (size_t i = 1; i < N; i++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[i]) : "r"(s[i]), "r"(c.p[i]));
        asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));  // 0xffffffff when s < p
        mont32_t r;
#pragma unroll
        for (size_t i = 0; i < N; i++) r.l[i] = (s[i] & borrow) | (d[i] & ~borrow);
        return r;
    }

    // a - b, plus p when it borrows.
    __device__ __forceinline__ friend mont32_t operator-(const mont32_t& a, const mont32_t& b) {
        constexpr Consts c = consts();
        uint32_t d[N], mask;
        asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(a.l[0]), "r"(b.l[0]));
#pragma unroll
        for (size_t i = 1; i < N; i++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[i]) : "r"(a.l[i]), "r"(b.l[i]));
        asm volatile("subc.u32 %0, 0, 0;" : "=r"(mask));
        mont32_t r;
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.l[0]) : "r"(d[0]), "r"(c.p[0] & mask));
#pragma unroll
        for (size_t i = 1; i < N; i++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.l[i]) : "r"(d[i]), "r"(c.p[i] & mask));
        return r;
    }

    __device__ __forceinline__ mont32_t operator-() const { return zero() - *this; }
    __device__ __forceinline__ mont32_t dbl() const { return *this + *this; }

    // Montgomery product a * b * 2^(-32N) mod p (CIOS, mul_rshift below) and one conditional subtraction. Inputs
    // below p, or below 2p when kLazy.
    __device__ __forceinline__ friend mont32_t operator*(const mont32_t& a, const mont32_t& b) {
        if constexpr (kKaratsuba) {
            return mul_karatsuba(a, b);
        } else {
            uint32_t t[N + 2];
            mul_rshift(t, a, b);
            return reduce_once(t);
        }
    }

    // One level of subtractive Karatsuba for the product part (Fq, H = N / 2 = 6 words per half): z0 = a_lo b_lo,
    // z2 = a_hi b_hi, z1 = |a_lo - a_hi| |b_lo - b_hi|, T = z0 + 2^(32N) z2 + 2^(32H) (z0 + z2 -+ z1), then
    // Montgomery's reduction of the 2N-word T as the square's (redc_wide). 3 H^2 + N^2 = 252 wide multiplies
    // against the CIOS product's 2 N^2 = 288; the adds it trades them for run on another pipe. H200, 2026-12-04,
    // dependent chains (bench/experiments/mont_karatsuba.cu): Fq 28.8 against 27.5 G/s; Fr 52.7 against 53.2, so
    // never for Fr. operator* for Fq only with CUZK_MONT32_KARATSUBA (above: slower MSMs: it needs 116 registers
    // against 86 in a chain, and the accumulation kernels spill more). Exact for the same inputs as mul_rshift,
    // also lazy ones below 2p: T < 4p^2 < 2^(64N) and a_lo b_hi + a_hi b_lo < 2^(64H + 1).
    static constexpr bool kKaratsuba = CUZK_MONT32_KARATSUBA && N == 12;
    __device__ __forceinline__ static mont32_t mul_karatsuba(const mont32_t& a, const mont32_t& b) {
        constexpr size_t H = N / 2;
        uint32_t z0[N], z2[N], z1[N], da[H], db[H];
        half_product(a.l, b.l, z0);
        half_product(a.l + H, b.l + H, z2);
        const uint32_t sa = half_abs_diff(a.l, da), sb = half_abs_diff(b.l, db);
        half_product(da, db, z1);
        // (a_lo - a_hi)(b_lo - b_hi) = +z1 when the two signs agree: mid = z0 + z2 - z1 then, else z0 + z2 + z1;
        // mid < 2^(64H + 1) fits N + 1 words and is exact modulo 2^(32(N + 1)).
        const uint32_t f = ~(sa ^ sb);  // all ones: subtract z1
        uint32_t s[N + 1], mid[N + 1], unused;
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(z0[0]), "r"(z2[0]));
#pragma unroll
        for (size_t k = 1; k < N; k++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(s[k]) : "r"(z0[k]), "r"(z2[k]));
        asm volatile("addc.u32 %0, 0, 0;" : "=r"(s[N]));
        // mid = s + (z1 ^ f) + (f & 1): z1, or its two's complement over N + 1 words (z1's word N is 0); the carry
        // flag starts as f & 1 (f & 1 plus 2^32 - 1 carries exactly when f & 1 is 1).
        asm volatile("add.cc.u32 %0, %1, -1;" : "=r"(unused) : "r"(f & 1));
#pragma unroll
        for (size_t k = 0; k < N; k++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(mid[k]) : "r"(s[k]), "r"(z1[k] ^ f));
        asm volatile("addc.u32 %0, %1, %2;" : "=r"(mid[N]) : "r"(s[N]), "r"(f));
        uint32_t t[2 * N];
#pragma unroll
        for (size_t k = 0; k < N; k++) {
            t[k] = z0[k];
            t[N + k] = z2[k];
        }
        asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(t[H]) : "r"(mid[0]));
#pragma unroll
        for (size_t k = 1; k < N + 1; k++) asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(t[H + k]) : "r"(mid[k]));
#pragma unroll
        for (size_t k = N + H + 1; k < 2 * N; k++) asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[k]));
        return redc_wide(t);
    }

    // r = x y (2K words) for K-word x, y (K even), by rows on two accumulators as mul_rshift's (without the
    // reduction): after row i, T = E + 2^32 O holds the product's words i and up and E_0 is word i, final. K^2 wide
    // multiply-adds. Karatsuba's halves (K = N / 2) and the full products of mul_sub (K = N).
    template <size_t K>
    __device__ __forceinline__ static void product_rows(const uint32_t* x, const uint32_t* y, uint32_t (&r)[2 * K]) {
        static_assert(K % 2 == 0);
        uint32_t e[K], o[K];
        const uint32_t y0 = y[0];
#pragma unroll
        for (size_t j = 0; j < K; j += 2) {
            asm volatile("mul.lo.u32 %0, %1, %2;" : "=r"(e[j]) : "r"(x[j]), "r"(y0));
            asm volatile("mul.hi.u32 %0, %1, %2;" : "=r"(e[j + 1]) : "r"(x[j]), "r"(y0));
            asm volatile("mul.lo.u32 %0, %1, %2;" : "=r"(o[j]) : "r"(x[j + 1]), "r"(y0));
            asm volatile("mul.hi.u32 %0, %1, %2;" : "=r"(o[j + 1]) : "r"(x[j + 1]), "r"(y0));
        }
        r[0] = e[0];
#pragma unroll
        for (size_t i = 1; i < K; i++) {
            if (i % 2 == 1) {
                product_row<K>(e, o, x, y[i]);  // E = o, O = e
                r[i] = o[0];
            } else {
                product_row<K>(o, e, x, y[i]);  // E = e, O = o
                r[i] = e[0];
            }
        }
        // K is even: after row K - 1, E = o and O = e; the words from K up are O + E / 2^32.
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r[K]) : "r"(e[0]), "r"(o[1]));
#pragma unroll
        for (size_t j = 1; j < K - 1; j++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r[K + j]) : "r"(e[j]), "r"(o[j + 1]));
        asm volatile("addc.u32 %0, %1, 0;" : "=r"(r[2 * K - 1]) : "r"(e[K - 1]));
    }
    __device__ __forceinline__ static void half_product(const uint32_t* x, const uint32_t* y, uint32_t (&r)[N]) {
        product_rows<N / 2>(x, y, r);
    }

    // rshift_row on K-word accumulators without the reduction: on entry T = e + 2^32 o; on exit o holds the new E
    // and e the new O. The O chain has no carry out: O < E_{2..} + x_odd y < 2^(32(K - 2)) + 2^(32 K) -
    // 2^(32 (K - 1)).
    template <size_t K>
    __device__ __forceinline__ static void product_row(uint32_t (&e)[K], uint32_t (&o)[K], const uint32_t* xs,
                                                       uint32_t yv) {
        asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(o[0]) : "r"(e[1]));
#pragma unroll
        for (size_t j = 0; j + 2 < K; j += 2) {
            asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(e[j]) : "r"(xs[j + 1]), "r"(yv), "r"(e[j + 2]));
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(e[j + 1]) : "r"(xs[j + 1]), "r"(yv), "r"(e[j + 3]));
        }
        asm volatile("madc.lo.cc.u32 %0, %1, %2, 0;" : "=r"(e[K - 2]) : "r"(xs[K - 1]), "r"(yv));
        asm volatile("madc.hi.u32 %0, %1, %2, 0;" : "=r"(e[K - 1]) : "r"(xs[K - 1]), "r"(yv));
        asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(o[0]) : "r"(xs[0]), "r"(yv));
        asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(o[1]) : "r"(xs[0]), "r"(yv));
#pragma unroll
        for (size_t j = 2; j < K; j += 2) {
            asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(o[j]) : "r"(xs[j]), "r"(yv));
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(o[j + 1]) : "r"(xs[j]), "r"(yv));
        }
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(e[K - 1]));
    }

    // ---- lazy reduction: differences of full products, reduced once ---------------------------------------------
    // Montgomery's reduction (redc_wide) accepts any T < p R, and T + k p (k >= 0) reduces to the same element, so
    // a b - c d can be reduced once: T = a b + W - c d with W = (s p)^2 >= c d, where s = 2 when the inputs may be
    // lazy (< 2p, kLazy) and 1 otherwise. T < 2 s^2 p^2 < p R needs 2 s^2 p < R (Fq: 8p < 2^384; Fr: 2p < 2^256).
    // One reduction (N^2 + N wide multiplies) less than two products and a difference.
    static constexpr uint32_t kWideScale = kLazy ? 2 : 1;  // s
    static_assert((uint64_t)kTopLimb * 2 * kWideScale * kWideScale + 2 * kWideScale * kWideScale < (1ull << 32),
                  "a b - c d + W must stay below p R");
    struct Wide {
        uint32_t w[2 * N];
    };
    // W = (s p)^2 as 2N words, at compile time.
    static constexpr Wide wide_offset() {
        constexpr Consts c = consts();
        uint64_t sp[N + 1] = {};
        uint64_t carry = 0;
        for (size_t i = 0; i < N; i++) {
            const uint64_t v = (uint64_t)c.p[i] * kWideScale + carry;
            sp[i] = (uint32_t)v;
            carry = v >> 32;
        }
        sp[N] = carry;  // 0: s p < R
        uint64_t acc[2 * N + 2] = {};
        for (size_t i = 0; i <= N; i++) {
            uint64_t cy = 0;
            for (size_t j = 0; j <= N; j++) {
                const uint64_t v = acc[i + j] + sp[i] * sp[j] + cy;  // < 2^32 + (2^32 - 1)^2 + 2^32: fits
                acc[i + j] = (uint32_t)v;
                cy = v >> 32;
            }
            for (size_t k = i + N + 1; k < 2 * N + 2; k++) {
                const uint64_t v = acc[k] + cy;
                acc[k] = (uint32_t)v;
                cy = v >> 32;
            }
        }
        Wide r{};
        for (size_t i = 0; i < 2 * N; i++) r.w[i] = (uint32_t)acc[i];
        return r;
    }

    // t += W - u over 2N words (W >= u, and the sum stays below p R: no borrow, no carry out).
    __device__ __forceinline__ static void add_offset_minus(uint32_t (&t)[2 * N], const uint32_t (&u)[2 * N]) {
        constexpr Wide W = wide_offset();
        uint32_t d[2 * N];
        asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(W.w[0]), "r"(u[0]));
#pragma unroll
        for (size_t k = 1; k < 2 * N; k++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[k]) : "r"(W.w[k]), "r"(u[k]));
        asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(t[0]) : "r"(d[0]));
#pragma unroll
        for (size_t k = 1; k < 2 * N; k++) asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(t[k]) : "r"(d[k]));
    }

    // a b - c d, fully reduced, with one Montgomery reduction. Inputs below p, or below 2p when kLazy. Not used by
    // the G1 MSM: its Y3 through it was slower (H200, 2026-12-04: G1 2^26 431.3 against 418.9 ms; the accumulation
    // kernel, capped at 168 registers, spilled more), and the same for Fq2's a b - c d with two reductions (G2
    // 2^20 33.9 against 31.0 ms, 2^22 112.8 against 96.9). Its pieces make fq2_mul.
    __device__ __forceinline__ static mont32_t mul_sub(const mont32_t& a, const mont32_t& b, const mont32_t& c,
                                                       const mont32_t& d) {
        uint32_t t[2 * N], u[2 * N];
        product_rows<N>(a.l, b.l, t);
        product_rows<N>(c.l, d.l, u);
        add_offset_minus(t, u);
        return redc_wide(t);
    }

    // (a0 + a1 u)(b0 + b1 u) over Fq[u] / (u^2 + 1): re = a0 b0 - a1 b1 and im = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1
    // (= a0 b1 + a1 b0, exact), three full products and two reductions instead of three of each. Inputs below 2p:
    // re < 4p^2 + W = 8p^2 < p R, im < 8p^2, and a0 + a1 < 4p < R.
    __device__ __forceinline__ static void fq2_mul(mont32_t& re, mont32_t& im, const mont32_t& a0,
                                                   const mont32_t& a1, const mont32_t& b0, const mont32_t& b1) {
        static_assert(kLazy, "the Fq2 product's lazy sums need 4p < R");
        uint32_t t0[2 * N], t1[2 * N], sum[2 * N];
        product_rows<N>(a0.l, b0.l, t0);
        product_rows<N>(a1.l, b1.l, t1);
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(sum[0]) : "r"(t0[0]), "r"(t1[0]));
#pragma unroll
        for (size_t k = 1; k < 2 * N; k++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(sum[k]) : "r"(t0[k]), "r"(t1[k]));
        add_offset_minus(t0, t1);
        re = redc_wide(t0);
        const mont32_t sa = add_lazy(a0, a1), sb = add_lazy(b0, b1);
        uint32_t m[2 * N];
        product_rows<N>(sa.l, sb.l, m);
        asm volatile("sub.cc.u32 %0, %0, %1;" : "+r"(m[0]) : "r"(sum[0]));
#pragma unroll
        for (size_t k = 1; k < 2 * N; k++) asm volatile("subc.cc.u32 %0, %0, %1;" : "+r"(m[k]) : "r"(sum[k]));
        im = redc_wide(m);
    }

    // d = |x_lo - x_hi| over half-length words; returns all ones when x_lo < x_hi, else 0.
    __device__ __forceinline__ static uint32_t half_abs_diff(const uint32_t* x, uint32_t (&d)[N / 2]) {
        constexpr size_t H = N / 2;
        uint32_t m;
        asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(x[0]), "r"(x[H]));
#pragma unroll
        for (size_t k = 1; k < H; k++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[k]) : "r"(x[k]), "r"(x[H + k]));
        asm volatile("subc.u32 %0, 0, 0;" : "=r"(m));
        asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(d[0] ^ m), "r"(m));  // (d ^ m) - m
#pragma unroll
        for (size_t k = 1; k < H; k++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[k]) : "r"(d[k] ^ m), "r"(m));
        return m;
    }

    // CIOS on two accumulators that trade roles. After row i (products with b_i and the reduction by m_i):
    // T = E + 2^32 O, E and O of N words each, E's pairs (2k, 2k+1) collecting the products of even limbs x_2k, O's
    // pairs (2k, 2k+1) those of odd limbs x_2k+1 (O sits one word up), and E_0 = 0. The next row needs
    // T / 2^32 = (O + E_1) + 2^32 (E_2 .. E_{N-1}): O, with E_1 added to its word 0, becomes the new E, and E's words
    // from 2 up, renamed two words down, become the new O; the renaming happens inside the first multiply-add
    // chain of the row (d = x * y + E_{j+2} written to E_j), so it costs nothing.
    //
    // Carries: the E chains end with a carry of weight 2^(32N), added to O's top word. The O chains end without
    // one: O = E_old[2..] + x_odd * b_i + p_odd * m_i + carries, with x_odd < (top + 1) 2^(32(N-2)) for the top
    // limb `top` of p (x < p), so O < 2^(32(N-2)) + (2 top + 4) 2^(32(N-1)) < 2^(32N) when top <= 2^31 - 3
    // (static_assert above; partial sums are smaller). The result O + E / 2^32 is the usual CIOS value < 2p.
    __device__ __forceinline__ static void mul_rshift(uint32_t (&t)[N + 2], const mont32_t& a, const mont32_t& b) {
        static_assert(N % 2 == 0);
        uint32_t x[N], y[N];  // row 0: E = x, O = y; then the roles alternate
        const uint32_t b0 = b.l[0];
#pragma unroll
        for (size_t j = 0; j < N; j += 2) {
            asm volatile("mul.lo.u32 %0, %1, %2;" : "=r"(x[j]) : "r"(a.l[j]), "r"(b0));
            asm volatile("mul.hi.u32 %0, %1, %2;" : "=r"(x[j + 1]) : "r"(a.l[j]), "r"(b0));
            asm volatile("mul.lo.u32 %0, %1, %2;" : "=r"(y[j]) : "r"(a.l[j + 1]), "r"(b0));
            asm volatile("mul.hi.u32 %0, %1, %2;" : "=r"(y[j + 1]) : "r"(a.l[j + 1]), "r"(b0));
        }
        redc_row(x, y);
#pragma unroll
        for (size_t i = 1; i < N; i++) {
            if (i % 2 == 1) {
                rshift_row(x, y, a.l, b.l[i]);  // E = y, O = x
                redc_row(y, x);
            } else {
                rshift_row(y, x, a.l, b.l[i]);  // E = x, O = y
                redc_row(x, y);
            }
        }
        // N is even: after row N - 1, E = y and O = x. t = O + E / 2^32.
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(t[0]) : "r"(x[0]), "r"(y[1]));
#pragma unroll
        for (size_t j = 1; j < N - 1; j++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(t[j]) : "r"(x[j]), "r"(y[j + 1]));
        asm volatile("addc.u32 %0, %1, 0;" : "=r"(t[N - 1]) : "r"(x[N - 1]));
        t[N] = t[N + 1] = 0;
    }

    // One row's products: on entry T = e + 2^32 o (previous row, e_0 = 0); on exit o holds the new E (o + e_1 +
    // x_even * y) and e the new O (e_2.. renamed + x_odd * y).
    __device__ __forceinline__ static void rshift_row(uint32_t (&e)[N], uint32_t (&o)[N], const uint32_t* xs,
                                                      uint32_t yv) {
        asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(o[0]) : "r"(e[1]));  // its carry has weight 2^32: new O's word 0
#pragma unroll
        for (size_t j = 0; j + 2 < N; j += 2) {
            asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(e[j]) : "r"(xs[j + 1]), "r"(yv), "r"(e[j + 2]));
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(e[j + 1]) : "r"(xs[j + 1]), "r"(yv), "r"(e[j + 3]));
        }
        asm volatile("madc.lo.cc.u32 %0, %1, %2, 0;" : "=r"(e[N - 2]) : "r"(xs[N - 1]), "r"(yv));
        asm volatile("madc.hi.u32 %0, %1, %2, 0;" : "=r"(e[N - 1]) : "r"(xs[N - 1]), "r"(yv));  // hi <= 2^32 - 2
        pair_chain(o, xs, 0, yv);
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(e[N - 1]));
    }

    // The reduction of one row: m = E_0 / -p mod 2^32; O += p_odd * m (no carry out, see mul_rshift), E += p_even * m
    // with its carry into O's top word. E_0 becomes 0.
    __device__ __forceinline__ static void redc_row(uint32_t (&e)[N], uint32_t (&o)[N]) {
        constexpr Consts c = consts();
        const uint32_t m = e[0] * c.inv;
        if constexpr (kLow01) {
            uint32_t lo, hi;
            times_p1(m, lo, hi);
            asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(o[0]) : "r"(lo));
            asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(o[1]) : "r"(hi));
        } else {
            asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(o[0]) : "r"(c.p[1]), "r"(m));
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(o[1]) : "r"(c.p[1]), "r"(m));
        }
#pragma unroll
        for (size_t j = 2; j + 2 < N; j += 2) {
            asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(o[j]) : "r"(c.p[j + 1]), "r"(m));
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(o[j + 1]) : "r"(c.p[j + 1]), "r"(m));
        }
        asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(o[N - 2]) : "r"(c.p[N - 1]), "r"(m));
        asm volatile("madc.hi.u32 %0, %1, %2, %0;" : "+r"(o[N - 1]) : "r"(c.p[N - 1]), "r"(m));
        low_pair_chain(e, m);
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(o[N - 1]));
    }

    // acc's pairs += p_even * m (pair_chain), with the product by p_0 = 1 an addition when kLow01.
    __device__ __forceinline__ static void low_pair_chain(uint32_t (&acc)[N], uint32_t m) {
        constexpr Consts c = consts();
        if constexpr (kLow01) {
            asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(acc[0]) : "r"(m));
            asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(acc[1]));
#pragma unroll
            for (size_t j = 2; j < N; j += 2) {
                asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(acc[j]) : "r"(c.p[j]), "r"(m));
                asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(acc[j + 1]) : "r"(c.p[j]), "r"(m));
            }
        } else {
            pair_chain(acc, c.p, 0, m);
        }
    }

    // acc's pairs (2k, 2k + 1) += xs[2k + parity] * y in one carry chain; the carry out is left in the flag.
    __device__ __forceinline__ static void pair_chain(uint32_t (&acc)[N], const uint32_t* xs, size_t parity,
                                                      uint32_t yv) {
        asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(acc[0]) : "r"(xs[parity]), "r"(yv));
        asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(acc[1]) : "r"(xs[parity]), "r"(yv));
#pragma unroll
        for (size_t j = 2; j < N; j += 2) {
            asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(acc[j]) : "r"(xs[j + parity]), "r"(yv));
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(acc[j + 1]) : "r"(xs[j + parity]), "r"(yv));
        }
    }

    // t (< 2p, in t[0 .. N]) minus p unless that borrows.
    __device__ __forceinline__ static mont32_t reduce_once(const uint32_t (&t)[N + 2]) {
        constexpr Consts c = consts();
        uint32_t d[N], borrow;
        asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(t[0]), "r"(c.p[0]));
#pragma unroll
        for (size_t i = 1; i < N; i++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[i]) : "r"(t[i]), "r"(c.p[i]));
        asm volatile("subc.cc.u32 %0, %1, 0;" : "=r"(borrow) : "r"(t[N]));
        asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));
        mont32_t r;
#pragma unroll
        for (size_t i = 0; i < N; i++) r.l[i] = (t[i] & borrow) | (d[i] & ~borrow);
        return r;
    }

    // a^2 * 2^(-32N) mod p with each cross product a_i a_j (i < j) computed once: T = 2 sum_{i<j} a_i a_j 2^(32(i+j))
    // + sum a_i^2 2^(64i) (2N words), then Montgomery's reduction of T. N(N+1)/2 products instead of N^2 for the
    // square itself; the reduction is the multiplication's.
    __device__ __forceinline__ mont32_t square() const {
        static_assert(N % 2 == 0);
        // Cross products at position i + j: odd positions into o (o[k] is word k + 1, so its pairs start at even
        // indices), even positions into e. Each row's chain ends with a carry into the word above its last pair;
        // that word holds at most an earlier row's carry (0 or 1), so the addition cannot overflow.
        uint32_t e[2 * N], o[2 * N];
#pragma unroll
        for (size_t k = 0; k < 2 * N; k++) e[k] = o[k] = 0;
#pragma unroll
        for (size_t i = 0; i + 1 < N; i++) {
            cross_chain(o, i, i + 1, i + i);      // j = i + 1, i + 3, ...: position i + j odd, o index i + j - 1
            if (i + 2 < N) cross_chain(e, i, i + 2, i + i + 2);  // j = i + 2, i + 4, ...: even positions
        }
        // t = 2 (e + 2^32 o) + sum a_i^2 2^(64i) = a^2 < p^2 < 2^(64N): no carry leaves the top word.
        uint32_t t[2 * N];
        t[0] = e[0];
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(t[1]) : "r"(e[1]), "r"(o[0]));
#pragma unroll
        for (size_t k = 2; k < 2 * N; k++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(t[k]) : "r"(e[k]), "r"(o[k - 1]));
        asm volatile("add.cc.u32 %0, %0, %0;" : "+r"(t[0]));
#pragma unroll
        for (size_t k = 1; k < 2 * N; k++) asm volatile("addc.cc.u32 %0, %0, %0;" : "+r"(t[k]));
        asm volatile("mad.lo.cc.u32 %0, %1, %1, %0;" : "+r"(t[0]) : "r"(l[0]));
        asm volatile("madc.hi.cc.u32 %0, %1, %1, %0;" : "+r"(t[1]) : "r"(l[0]));
#pragma unroll
        for (size_t i = 1; i < N; i++) {
            asm volatile("madc.lo.cc.u32 %0, %1, %1, %0;" : "+r"(t[2 * i]) : "r"(l[i]));
            asm volatile("madc.hi.cc.u32 %0, %1, %1, %0;" : "+r"(t[2 * i + 1]) : "r"(l[i]));
        }
        return redc_wide(t);
    }

    // Montgomery's reduction of a 2N-word T with T_hi = T / 2^(32N) < p: (T_lo + M p) / 2^(32N) <= p with the
    // multiplication's two accumulators (x = E, y = O in row 0, then the roles alternate), plus T_hi: the sum is
    // < 2p, reduced once.
    __device__ __forceinline__ static mont32_t redc_wide(const uint32_t (&t)[2 * N]) {
        uint32_t x[N], y[N];
#pragma unroll
        for (size_t j = 0; j < N; j++) {
            x[j] = t[j];
            y[j] = 0;
        }
        redc_row(x, y);
#pragma unroll
        for (size_t i = 1; i < N; i++) {
            if (i % 2 == 1) redc_shift_row(x, y);
            else redc_shift_row(y, x);
        }
        uint32_t r[N + 2];
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r[0]) : "r"(x[0]), "r"(y[1]));
#pragma unroll
        for (size_t j = 1; j < N - 1; j++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r[j]) : "r"(x[j]), "r"(y[j + 1]));
        asm volatile("addc.u32 %0, %1, 0;" : "=r"(r[N - 1]) : "r"(x[N - 1]));
        asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(r[0]) : "r"(t[N]));
#pragma unroll
        for (size_t j = 1; j < N - 1; j++) asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(r[j]) : "r"(t[N + j]));
        asm volatile("addc.u32 %0, %0, %1;" : "+r"(r[N - 1]) : "r"(t[2 * N - 1]));
        r[N] = r[N + 1] = 0;
        return reduce_once(r);
    }

    // acc's pairs (idx, idx + 1), idx = first_idx, first_idx + 2, ... += l[i] * l[j] for j = j0, j0 + 2, ... < N,
    // in one carry chain, whose carry goes into the word above the last pair.
    __device__ __forceinline__ void cross_chain(uint32_t (&acc)[2 * N], size_t i, size_t j0, size_t first_idx) const {
        size_t idx = first_idx;
#pragma unroll
        for (size_t j = j0; j < N; j += 2, idx += 2) {
            if (j == j0) {
                asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(acc[idx]) : "r"(l[i]), "r"(l[j]));
            } else {
                asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(acc[idx]) : "r"(l[i]), "r"(l[j]));
            }
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(acc[idx + 1]) : "r"(l[i]), "r"(l[j]));
        }
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(acc[idx]));
    }

    // One row of the reduction without products: as rshift_row (new E = o + e_1, new O = e_2.. renamed), then
    // m from the new E's word 0 and the new E, O += p * m. The carry of the first addition is still pending when m is
    // computed; mul.lo does not touch the condition code.
    __device__ __forceinline__ static void redc_shift_row(uint32_t (&e)[N], uint32_t (&o)[N]) {
        constexpr Consts c = consts();
        uint32_t m, lo = 0, hi = 0;
        if constexpr (kLow01) {  // m and m p_1 from plain adds, before the chain starts
            m = 0u - (o[0] + e[1]);
            times_p1(m, lo, hi);
        }
        asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(o[0]) : "r"(e[1]));
        if constexpr (kLow01) {
            asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(e[0]) : "r"(lo), "r"(e[2]));
            asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(e[1]) : "r"(hi), "r"(e[3]));
        } else {
            asm volatile("mul.lo.u32 %0, %1, %2;" : "=r"(m) : "r"(o[0]), "r"(c.inv));
            asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(e[0]) : "r"(c.p[1]), "r"(m), "r"(e[2]));
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(e[1]) : "r"(c.p[1]), "r"(m), "r"(e[3]));
        }
#pragma unroll
        for (size_t j = 2; j + 2 < N; j += 2) {
            asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(e[j]) : "r"(c.p[j + 1]), "r"(m), "r"(e[j + 2]));
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(e[j + 1]) : "r"(c.p[j + 1]), "r"(m), "r"(e[j + 3]));
        }
        asm volatile("madc.lo.cc.u32 %0, %1, %2, 0;" : "=r"(e[N - 2]) : "r"(c.p[N - 1]), "r"(m));
        asm volatile("madc.hi.u32 %0, %1, %2, 0;" : "=r"(e[N - 1]) : "r"(c.p[N - 1]), "r"(m));
        low_pair_chain(o, m);
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(e[N - 1]));
    }

    // The square through the general product (for comparison in the benchmark).
    __device__ __forceinline__ mont32_t square_by_mul() const { return *this * *this; }
    __device__ __forceinline__ mont32_t& operator+=(const mont32_t& b) { return *this = *this + b; }
    __device__ __forceinline__ mont32_t& operator-=(const mont32_t& b) { return *this = *this - b; }
    __device__ __forceinline__ mont32_t& operator*=(const mont32_t& b) { return *this = *this * b; }
};

}  // namespace cuzk::gpu
