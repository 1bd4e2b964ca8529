// Device-only Montgomery field arithmetic on 32-bit limbs with PTX carry chains, for the same fields as the CPU's
// MontField<Cfg>: the modulus and every constant come from the CPU config (one source of truth), split into 32-bit
// limbs at compile time. R = 2^(32 * 2N) = 2^(64N) is the CPU's R, so the memory layout of mont32_t<Cfg> is exactly
// that of MontField<Cfg> (little-endian limbs, Montgomery form, fully reduced): arrays move between host and device
// without conversion.
//
// Why PTX: a 32x32 multiply-add with carry-in/out (mad.lo.cc / madc.hi.cc) is the GPU's native big-integer step;
// the CPU's 64-bit code compiled for the device emulates each 64x64 product with four of them plus carry fix-ups.
//
// Carry chains span several asm statements inside fully unrolled loops, with nothing between them that writes the
// condition code. Every statement is `asm volatile`: the carry flag is invisible to the compiler, so without it
// independent statements of one chain were reordered (seen on the H200: wrong products, while sums were right).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuzk/ff/mont_field.hpp"

namespace cuzk::gpu {

// kMul picks the multiplication's instruction schedule (same result; see operator*): 0 = CIOS with a pass of low
// halves then a pass of high halves per row; 1 = the same CIOS with the low and high half of each product adjacent
// (even limbs, then odd limbs), the pattern a 64-bit multiply-add with carry covers; 2 = CIOS in plain C++ on
// 64-bit intermediates (a * b + t + carry < 2^64), leaving instruction selection to the compiler; 3 = paired
// products into two accumulators (even / odd limbs) so that every 64-bit multiply-add writes an aligned register
// pair in every row (mul_even_odd).
template <class Cfg, int kMul = 0>
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

    // Montgomery product a * b * 2^(-32N) mod p, CIOS: for each limb b_i, t += a * b_i, then t += m * p with
    // m = t_0 * (-1/p) mod 2^32, which zeroes t_0, and t >>= 32. Invariant: t < 2p after every row (a, b < p), so
    // t fits N limbs plus the top word t[N] that the shift brings down, and the result needs one conditional
    // subtraction. The variants differ only in the order of the same additions.
    __device__ __forceinline__ friend mont32_t operator*(const mont32_t& a, const mont32_t& b) {
        uint32_t t[N + 2];
        if constexpr (kMul == 2) mul_wide(t, a, b);
        else if constexpr (kMul == 3) mul_even_odd(t, a, b);
        else mul_cc(t, a, b);
        return reduce_once(t);
    }

    // t[N + 1] ... t[0] = a * b * 2^(-32N) (< 2p), carry-flag chains.
    __device__ __forceinline__ static void mul_cc(uint32_t (&t)[N + 2], const mont32_t& a, const mont32_t& b) {
        constexpr Consts c = consts();
#pragma unroll
        for (size_t j = 0; j < N + 2; j++) t[j] = 0;
#pragma unroll
        for (size_t i = 0; i < N; i++) {
            const uint32_t bi = b.l[i];
            mac_row(t, a.l, bi);  // t += a * bi
            const uint32_t m = t[0] * c.inv;
            mac_row(t, c.p, m);  // t += m * p; t_0 becomes 0
            // t >>= 32
#pragma unroll
            for (size_t j = 0; j < N + 1; j++) t[j] = t[j + 1];
            t[N + 1] = 0;
        }
    }

    // t[0 .. N+1] += x * y for an N-limb x and one limb y (t[N + 1] absorbs the carry out).
    __device__ __forceinline__ static void mac_row(uint32_t (&t)[N + 2], const uint32_t* x, uint32_t y) {
        if constexpr (kMul == 0) {
            // all low halves (into t[j]), then all high halves (into t[j + 1])
            asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(x[0]), "r"(y));
#pragma unroll
            for (size_t j = 1; j < N; j++) asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(x[j]), "r"(y));
            asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[N]));
            asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
            asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(x[0]), "r"(y));
#pragma unroll
            for (size_t j = 1; j < N; j++)
                asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(x[j]), "r"(y));
            asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
        } else {
            // even limbs: (t[j + 1], t[j]) += x[j] * y for j = 0, 2, ..., the low and high half adjacent
            static_assert(N % 2 == 0);
            asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(x[0]), "r"(y));
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(x[0]), "r"(y));
#pragma unroll
            for (size_t j = 2; j < N; j += 2) {
                asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(x[j]), "r"(y));
                asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(x[j]), "r"(y));
            }
            asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[N]));
            asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
            // odd limbs: (t[j + 1], t[j]) += x[j] * y for j = 1, 3, ..., N - 1
            asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(x[1]), "r"(y));
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[2]) : "r"(x[1]), "r"(y));
#pragma unroll
            for (size_t j = 3; j < N; j += 2) {
                asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(x[j]), "r"(y));
                asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(x[j]), "r"(y));
            }
            asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
        }
    }

    // CIOS with T = E + 2^32 O: the products of even limbs go to E as (lo, hi) pairs at (j, j + 1), those of odd
    // limbs to O at (j - 1, j), so every pair is register-aligned the same way in every row (the paired schedule
    // shifts one accumulator by one word per row, which misaligns its pairs and costs register moves). After the
    // reduction E[0] = 0, and T / 2^32 = E[1..] + O becomes E' = O + E[1] (one carry chain) and O' = E[2..] (a
    // renaming by two words, which keeps pairs aligned). Bounds: E <= T and O <= T / 2^32, with T < 2^33 p before
    // the shift, so E fits N + 2 words and O N + 1.
    __device__ __forceinline__ static void mul_even_odd(uint32_t (&t)[N + 2], const mont32_t& a, const mont32_t& b) {
        static_assert(N % 2 == 0);
        constexpr Consts c = consts();
        uint32_t e[N + 2], o[N + 2];
#pragma unroll
        for (size_t j = 0; j < N + 2; j++) e[j] = o[j] = 0;
#pragma unroll
        for (size_t i = 0; i < N; i++) {
            const uint32_t bi = b.l[i];
            mac_half(e, a.l, 0, bi);  // even limbs of a * bi into E
            mac_half(o, a.l, 1, bi);  // odd limbs into O
            const uint32_t m = e[0] * c.inv;
            mac_half(e, c.p, 0, m);
            mac_half(o, c.p, 1, m);
            // E' = O + E[1], O' = E[2..]
            uint32_t ne[N + 2];
            asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(ne[0]) : "r"(o[0]), "r"(e[1]));
#pragma unroll
            for (size_t j = 1; j < N + 1; j++) asm volatile("addc.cc.u32 %0, %1, 0;" : "=r"(ne[j]) : "r"(o[j]));
            asm volatile("addc.u32 %0, %1, 0;" : "=r"(ne[N + 1]) : "r"(o[N + 1]));
#pragma unroll
            for (size_t j = 0; j < N; j++) o[j] = e[j + 2];
            o[N] = o[N + 1] = 0;
#pragma unroll
            for (size_t j = 0; j < N + 2; j++) e[j] = ne[j];
        }
        // T = E + 2^32 O (< 2p)
        t[0] = e[0];
        asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(t[1]) : "r"(e[1]), "r"(o[0]));
#pragma unroll
        for (size_t j = 2; j < N + 1; j++) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(t[j]) : "r"(e[j]), "r"(o[j - 1]));
        asm volatile("addc.u32 %0, %1, %2;" : "=r"(t[N + 1]) : "r"(e[N + 1]), "r"(o[N]));
    }

    // acc[0 .. N+1] += sum over limbs j = parity, parity + 2, ... of x[j] * y * 2^(32 (j - parity)), each product's
    // low and high half adjacent (one 64-bit multiply-add into the aligned pair acc[j - parity], acc[j - parity + 1]).
    __device__ __forceinline__ static void mac_half(uint32_t (&acc)[N + 2], const uint32_t* x, size_t parity,
                                                    uint32_t y) {
        asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(acc[0]) : "r"(x[parity]), "r"(y));
        asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(acc[1]) : "r"(x[parity]), "r"(y));
#pragma unroll
        for (size_t j = 2; j < N; j += 2) {
            asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(acc[j]) : "r"(x[j + parity]), "r"(y));
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(acc[j + 1]) : "r"(x[j + parity]), "r"(y));
        }
        asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(acc[N]));
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(acc[N + 1]));
    }

    // The same product with 64-bit intermediates and no carry flag: every step is x = u * v + t + carry, which is
    // at most (2^32 - 1)^2 + 2 (2^32 - 1) = 2^64 - 1.
    __device__ __forceinline__ static void mul_wide(uint32_t (&t)[N + 2], const mont32_t& a, const mont32_t& b) {
        constexpr Consts c = consts();
#pragma unroll
        for (size_t j = 0; j < N + 2; j++) t[j] = 0;
#pragma unroll
        for (size_t i = 0; i < N; i++) {
            const uint32_t bi = b.l[i];
            uint64_t carry = 0;
#pragma unroll
            for (size_t j = 0; j < N; j++) {
                const uint64_t x = (uint64_t)a.l[j] * bi + t[j] + carry;
                t[j] = (uint32_t)x;
                carry = x >> 32;
            }
            uint64_t s = (uint64_t)t[N] + carry;
            t[N] = (uint32_t)s;
            t[N + 1] += (uint32_t)(s >> 32);
            const uint32_t m = t[0] * c.inv;
            uint64_t x = (uint64_t)m * c.p[0] + t[0];  // low word 0
            carry = x >> 32;
#pragma unroll
            for (size_t j = 1; j < N; j++) {
                x = (uint64_t)m * c.p[j] + t[j] + carry;
                t[j - 1] = (uint32_t)x;  // shifted down by one word as it goes
                carry = x >> 32;
            }
            s = (uint64_t)t[N] + carry;
            t[N - 1] = (uint32_t)s;
            t[N] = t[N + 1] + (uint32_t)(s >> 32);
            t[N + 1] = 0;
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

    __device__ __forceinline__ mont32_t square() const { return *this * *this; }
    __device__ __forceinline__ mont32_t& operator+=(const mont32_t& b) { return *this = *this + b; }
    __device__ __forceinline__ mont32_t& operator-=(const mont32_t& b) { return *this = *this - b; }
    __device__ __forceinline__ mont32_t& operator*=(const mont32_t& b) { return *this = *this * b; }
};

}  // namespace cuzk::gpu
