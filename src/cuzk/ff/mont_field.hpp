// A prime field in Montgomery form on N 64-bit limbs, parameterised by a config that names the modulus.
// Every other constant (R, R^2, -p^-1 mod 2^64, the 2-adic decomposition, roots of unity) is derived from the
// modulus in constant expressions below; tests/ff re-derive each with GMP.
//
// Representation invariant: `l` holds a*R mod p with 0 <= l < p (fully reduced), R = 2^(64N).
#pragma once

#include <array>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cuzk/ff/batch_inverse.hpp"
#include "cuzk/ff/bigint.hpp"
#include "cuzk/ff/inverse_vartime.hpp"
#include "cuzk/ff/pow.hpp"

// The hand-scheduled x86-64 multiplication needs BMI2 (mulx) and ADX (adcx/adox); device code and other
// targets use the portable loop. CUZK_MONT_ASM=0 forces the portable loop (for comparison benchmarks).
#if defined(__x86_64__) && !defined(__CUDA_ARCH__)
#include <immintrin.h>
#define CUZK_X86_CARRY 1
#else
#define CUZK_X86_CARRY 0
#endif

#ifndef CUZK_MONT_ASM
#if defined(__x86_64__) && defined(__BMI2__) && defined(__ADX__) && !defined(__CUDA_ARCH__)
#define CUZK_MONT_ASM 1
#else
#define CUZK_MONT_ASM 0
#endif
#endif

namespace cuzk {

template <class Cfg>
struct MontField {
    static constexpr size_t N = Cfg::N;
    using limbs = limbs_t<N>;

    // p, the modulus.
    static constexpr limbs P = Cfg::MODULUS;
    // The no-carry Montgomery multiplication below needs p's top limb < 2^63 - 1: then every intermediate of the
    // interleaved loop fits in N limbs plus the two running carries, and the result is < 2p.
    static_assert(P[N - 1] < 0x7fffffffffffffffULL, "modulus needs a spare top bit");
    static_assert((P[0] & 1) == 1, "modulus must be odd");
    // -p^{-1} mod 2^64
    static constexpr uint64_t INV = bigint::neg_inv64(P[0]);
    // R = 2^(64N) mod p  (the Montgomery form of 1)
    static constexpr limbs R = bigint::pow2_mod<N>(64 * N, P);
    // R2 = 2^(128N) mod p  (multiplying by it converts into Montgomery form)
    static constexpr limbs R2 = bigint::pow2_mod<N>(128 * N, P);
    // R3 = 2^(192N) mod p  (inverse_vartime's correction)
    static constexpr limbs R3 = bigint::pow2_mod<N>(192 * N, P);
    // Bit length of p.
    static constexpr size_t BITS = bigint::num_bits(P);
    static constexpr size_t BYTES = 8 * N;

    static constexpr limbs sub_one(limbs a) {
        limbs one{};
        one[0] = 1;
        bigint::sub(a, a, one);
        return a;
    }
    static constexpr limbs add_one(limbs a) {
        limbs one{};
        one[0] = 1;
        bigint::add(a, a, one);
        return a;
    }
    // p - 1 = 2^S * T with T odd.
    static constexpr size_t two_adicity() {
        limbs t = sub_one(P);
        size_t s = 0;
        while ((t[0] & 1) == 0) t = bigint::shr1(t), s++;
        return s;
    }
    static constexpr size_t S = two_adicity();
    static constexpr limbs T = [] {
        limbs t = sub_one(P);
        for (size_t i = 0; i < S; i++) t = bigint::shr1(t);
        return t;
    }();
    // (p - 1) / 2, the Legendre exponent; also the largest "lexicographically small" value.
    static constexpr limbs P_MINUS_1_OVER_2 = bigint::shr1(sub_one(P));
    // (T - 1) / 2, used by Tonelli-Shanks.
    static constexpr limbs T_MINUS_1_OVER_2 = bigint::shr1(sub_one(T));
    // (p + 1) / 4, the square-root exponent when p = 3 mod 4.
    static constexpr limbs P_PLUS_1_OVER_4 = bigint::shr1(bigint::shr1(add_one(P)));
    // p - 2, the Fermat inversion exponent.
    static constexpr limbs P_MINUS_2 = sub_one(sub_one(P));

    limbs l{};

    // ---- construction -------------------------------------------------------------------------------------
    constexpr MontField() = default;

    static constexpr MontField zero() { return MontField{}; }
    // Device code note: a static constexpr array is host memory; functions that may run on the GPU read the
    // constants through local constexpr copies (folded into immediates) instead of binding references to them.
    static constexpr MontField one() {
        constexpr limbs r = R;
        return from_mont_limbs(r);
    }
    // Wraps limbs that already are in Montgomery form and < p (unchecked).
    static constexpr MontField from_mont_limbs(const limbs& m) {
        MontField r;
        r.l = m;
        return r;
    }
    static constexpr MontField from_u64(uint64_t v) {
        limbs a{};
        a[0] = v;
        constexpr limbs p = P;
        if (bigint::cmp(a, p) >= 0) bigint::sub(a, a, p);  // only for N == 1 style tiny moduli
        return from_canonical_unchecked(a);
    }
    // Converts a canonical integer < p into Montgomery form (to_mont). Unchecked: the caller guarantees a < p.
    static constexpr MontField from_canonical_unchecked(const limbs& a) {
        MontField r;
        constexpr limbs r2 = R2;
        mont_mul(r.l, a, r2);
        return r;
    }
    // Checked: nullopt when a >= p.
    static constexpr std::optional<MontField> from_canonical(const limbs& a) {
        if (bigint::cmp(a, P) >= 0) return std::nullopt;
        return from_canonical_unchecked(a);
    }
    // Reduces an arbitrary N-limb integer mod p (EIP-2537 scalars, hashing). p has at most 3 spare top bits for
    // the fields used here, so a few subtractions suffice: 2^(64N) / p < 2^(64N - BITS + 1).
    static constexpr MontField from_limbs_reduce(limbs a) {
        static_assert(64 * N - BITS <= 8, "use a real reduction for moduli with many spare bits");
        while (bigint::cmp(a, P) >= 0) bigint::sub(a, a, P);
        return from_canonical_unchecked(a);
    }
    constexpr limbs to_canonical() const {
        limbs one{};
        one[0] = 1;
        limbs r{};
        mont_mul(r, l, one);
        return r;
    }
    constexpr const limbs& mont_limbs() const { return l; }

    // ---- predicates ---------------------------------------------------------------------------------------
    constexpr bool is_zero() const { return bigint::is_zero(l); }
    constexpr bool is_one() const {
        constexpr limbs r = R;
        return l == r;
    }
    friend constexpr bool operator==(const MontField& a, const MontField& b) { return a.l == b.l; }
    friend constexpr bool operator!=(const MontField& a, const MontField& b) { return !(a == b); }
    // True when the canonical value is > (p-1)/2 (the zcash "lexicographically largest" flag).
    constexpr bool lexicographically_largest() const {
        return bigint::cmp(to_canonical(), P_MINUS_1_OVER_2) > 0;
    }

    // ---- arithmetic ---------------------------------------------------------------------------------------
    // Montgomery product a*b*R^-1 mod p for a, b < p (CIOS, "no-carry" variant: valid because P's top limb is
    // < 2^63 - 1, so the running value t stays < 2p < 2^(64N) and the two carries A, C never overflow a limb).
    static constexpr void mont_mul(limbs& out, const limbs& a, const limbs& b) {
#if CUZK_MONT_ASM
        if constexpr (N == 6 || N == 4) {
            if (!std::is_constant_evaluated()) {
                mont_mul_adx(out, a, b);
                return;
            }
        }
#endif
        mont_mul_portable(out, a, b);
    }
#if CUZK_MONT_ASM
    // BMI2/ADX version of the same CIOS loop (see scripts/gen/mont_mul_adx.py): per dependent multiplication on
    // Zen 4, Fq 29 ns instead of 48 ns (bench/bench_ff.cpp, fq_mul), because GCC does not interleave two carry
    // chains on its own.
    static void mont_mul_adx(limbs& out, const limbs& a, const limbs& b) {
        if constexpr (N == 6) {
            uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, z, rdx;
            __asm__(
#include "cuzk/ff/mont_mul_x86_adx_6.inc"
                : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5),
                  [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi), [z] "=&r"(z), "=&d"(rdx)
                : [a] "r"(a.data()), [b] "r"(b.data()), [p] "r"(P.data()), [inv] "m"(INV)
                : "cc", "memory");
            (void)lo, (void)hi, (void)z, (void)rdx;
            // Generated order: limb k of the result is in t[(k + N) mod (N + 1)].
            out = {t6, t0, t1, t2, t3, t4};
        } else {
            uint64_t t0, t1, t2, t3, t4, lo, hi, z, rdx;
            __asm__(
#include "cuzk/ff/mont_mul_x86_adx_4.inc"
                : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [lo] "=&r"(lo),
                  [hi] "=&r"(hi), [z] "=&r"(z), "=&d"(rdx)
                : [a] "r"(a.data()), [b] "r"(b.data()), [p] "r"(P.data()), [inv] "m"(INV)
                : "cc", "memory");
            (void)lo, (void)hi, (void)z, (void)rdx;
            out = {t4, t0, t1, t2};
        }
        reduce_once(out);
    }
#endif
    static constexpr void mont_mul_portable(limbs& out, const limbs& a, const limbs& b) {
        constexpr limbs p = P;
        limbs t{};
        for (size_t i = 0; i < N; i++) {
            u128 x = (u128)a[0] * b[i] + t[0];
            uint64_t A = (uint64_t)(x >> 64);
            uint64_t t0 = (uint64_t)x;
            uint64_t m = t0 * INV;
            u128 y = (u128)m * p[0] + t0;
            uint64_t C = (uint64_t)(y >> 64);
            for (size_t j = 1; j < N; j++) {
                x = (u128)a[j] * b[i] + t[j] + A;
                A = (uint64_t)(x >> 64);
                y = (u128)m * p[j] + (uint64_t)x + C;
                C = (uint64_t)(y >> 64);
                t[j - 1] = (uint64_t)y;
            }
            t[N - 1] = C + A;
        }
        reduce_once(t);
        out = t;
    }
    // x < 2p  ->  x mod p
    static constexpr void reduce_once(limbs& x) {
        limbs d{};
        constexpr limbs p = P;
        uint64_t borrow = bigint::sub(d, x, p);
        if (!borrow) x = d;
    }

    friend constexpr MontField operator*(const MontField& a, const MontField& b) {
        MontField r;
        mont_mul(r.l, a.l, b.l);
        return r;
    }

    // sum_k a[k] * b[k * b_stride] for k < n <= kMaxSumTerms with one Montgomery reduction instead of n: the 2N-limb
    // products are summed exactly in 2N + 1 limbs (T < n p^2 < 2^(128N + 4)), T is reduced once (REDC of any T is
    // (T + m p) / R with m < R, so below T / R + p < (n p / R + 1) p, and p / R < 1/2), and conditional
    // subtractions of 2^j p bring it below p. About half the work of n products and n - 1 additions (Poseidon's
    // matrix products).
    static constexpr size_t kMaxSumTerms = 64;
    // 2^j p in N + 1 limbs for j = 0..5 (sum_of_products' final subtractions).
    static constexpr std::array<limbs_t<N + 1>, 6> shifted_moduli() {
        std::array<limbs_t<N + 1>, 6> out{};
        for (size_t i = 0; i < N; i++) out[0][i] = P[i];
        for (size_t j = 1; j < 6; j++) bigint::add(out[j], out[j - 1], out[j - 1]);  // 32p < 2^(64N + 5): no carry
        return out;
    }
    // t += prod over 2N limbs, the carry into t[2N].
    static void add_into(uint64_t (&t)[2 * N + 1], const uint64_t (&prod)[2 * N]) {
#if CUZK_X86_CARRY
        unsigned char c = 0;
        for (size_t i = 0; i < 2 * N; i++) {
            unsigned long long r;
            c = _addcarry_u64(c, t[i], prod[i], &r);
            t[i] = r;
        }
        t[2 * N] += c;
#else
        uint64_t c = 0;
        for (size_t i = 0; i < 2 * N; i++) {
            const u128 z = (u128)t[i] + prod[i] + c;
            t[i] = (uint64_t)z;
            c = (uint64_t)(z >> 64);
        }
        t[2 * N] += c;
#endif
    }
    static MontField sum_of_products(const MontField* a, const MontField* b, size_t n, size_t b_stride = 1) {
        static_assert(64 * N - BITS >= 1, "the bound below needs p < R / 2");
        if (n > kMaxSumTerms) throw std::invalid_argument("sum_of_products: more than kMaxSumTerms terms");
        uint64_t t[2 * N + 1] = {};
        for (size_t k = 0; k < n; k++) {
            const limbs& x = a[k].l;
            const limbs& y = b[k * b_stride].l;
            uint64_t prod[2 * N];
            for (size_t i = 0; i < N; i++) {
                uint64_t carry = 0;
                for (size_t j = 0; j < N; j++) {
                    const u128 z = (u128)x[i] * y[j] + (i ? prod[i + j] : 0) + carry;
                    prod[i + j] = (uint64_t)z;
                    carry = (uint64_t)(z >> 64);
                }
                prod[i + N] = carry;
            }
            add_into(t, prod);
        }
        // REDC: N steps clear the low limbs; the value left is t[N .. 2N] (N + 1 limbs).
        constexpr limbs p = P;
        for (size_t i = 0; i < N; i++) {
            const uint64_t m = t[i] * INV;
            uint64_t carry = 0;
            for (size_t j = 0; j < N; j++) {
                const u128 z = (u128)m * p[j] + t[i + j] + carry;
                t[i + j] = (uint64_t)z;
                carry = (uint64_t)(z >> 64);
            }
            for (size_t j = i + N; carry && j <= 2 * N; j++) {
                const u128 z = (u128)t[j] + carry;
                t[j] = (uint64_t)z;
                carry = (uint64_t)(z >> 64);
            }
        }
        // Below (n p / R + 1) p < (n / 2 + 1) p: subtract 2^j p for j = floor(log2(n / 2 + 1)) down to 0 where it
        // fits (at most 32p for n <= 64).
        limbs_t<N + 1> v, d;
        for (size_t i = 0; i <= N; i++) v[i] = t[N + i];
        constexpr auto kp = shifted_moduli();
        for (int j = (int)std::bit_width(n / 2 + 1) - 1; j >= 0; j--) {
            const uint64_t borrow = bigint::sub(d, v, kp[j]);
            const uint64_t keep = 0 - borrow;  // all ones where it did not fit (branch-free: either is likely)
            for (size_t i = 0; i <= N; i++) v[i] = (v[i] & keep) | (d[i] & ~keep);
        }
        MontField r;
        for (size_t i = 0; i < N; i++) r.l[i] = v[i];
        return r;
    }
    // Addition and subtraction run on the carry flag where it is available: GCC 12 compiles the portable 128-bit
    // limb loops below into a non-inlined call with vector shuffles, and additions are about half the instructions
    // of an Fq12 product (measured: pairing 1.31 -> 0.88 ms when the tower switched to carry-flag additions).
    friend constexpr MontField operator+(const MontField& a, const MontField& b) {
        MontField r;
#if CUZK_X86_CARRY
        if (!std::is_constant_evaluated()) {
            // s = a + b, d = s - p; the result is s where that borrows (a + b < p), else d.
            unsigned long long s[N], d[N];
            unsigned char c = 0, br = 0;
            // a + b < 2p < 2^(64N) because p has a spare top bit: no carry out of the top limb.
            for (size_t i = 0; i < N; i++) c = _addcarry_u64(c, a.l[i], b.l[i], &s[i]);
            for (size_t i = 0; i < N; i++) br = _subborrow_u64(br, s[i], P[i], &d[i]);
            if constexpr (N == 4) {
                // For 4 limbs the select is one 256-bit operation and is faster (NTT 2^20: 265 vs 357 ms).
                uint64_t keep = 0 - (uint64_t)br;
                for (size_t i = 0; i < N; i++) r.l[i] = (s[i] & keep) | (d[i] & ~keep);
            } else {
                // For 6 limbs it stalled (pairing: 848 vs 673 us, MSM G1 2^16 unchanged).
                uint64_t m = 0 - (uint64_t)br;
                c = 0;
                for (size_t i = 0; i < N; i++) {
                    unsigned long long t;
                    c = _addcarry_u64(c, d[i], P[i] & m, &t);
                    r.l[i] = t;
                }
            }
            return r;
        }
#endif
        // a + b < 2p < 2^(64N) because p has a spare top bit: no carry out.
        bigint::add(r.l, a.l, b.l);
        reduce_once(r.l);
        return r;
    }
    friend constexpr MontField operator-(const MontField& a, const MontField& b) {
        MontField r;
#if CUZK_X86_CARRY
        if (!std::is_constant_evaluated()) {
            // Each limb goes straight to r.l: building the result in a temporary made GCC 12 copy it with one
            // 256-bit load right after scalar stores, a store-forwarding stall worth ~20% of an MSM. The final loop
            // repeats operator+'s on purpose: sharing it through an always_inline helper slowed the Fr NTT 2^20
            // from 232 to 330 ms (measured 2026-11-29).
            unsigned long long d[N];
            unsigned char c = 0, br = 0;
            for (size_t i = 0; i < N; i++) br = _subborrow_u64(br, a.l[i], b.l[i], &d[i]);
            uint64_t m = 0 - (uint64_t)br;  // borrow: a < b, add p back (a - b + p lies in [0, p))
            for (size_t i = 0; i < N; i++) {
                unsigned long long t;
                c = _addcarry_u64(c, d[i], P[i] & m, &t);
                r.l[i] = t;
            }
            return r;
        }
#endif
        uint64_t borrow = bigint::sub(r.l, a.l, b.l);
        constexpr limbs p = P;
        if (borrow) bigint::add(r.l, r.l, p);
        return r;
    }
    constexpr MontField operator-() const {
        if (is_zero()) return *this;
        MontField r;
        constexpr limbs p = P;
        bigint::sub(r.l, p, l);
        return r;
    }
    constexpr MontField& operator+=(const MontField& b) { return *this = *this + b; }
    constexpr MontField& operator-=(const MontField& b) { return *this = *this - b; }
    constexpr MontField& operator*=(const MontField& b) { return *this = *this * b; }

    constexpr MontField dbl() const { return *this + *this; }
    constexpr MontField square() const { return *this * *this; }
    constexpr MontField neg() const { return -*this; }

    // this^e for an exponent given as little-endian limbs (any width), left to right.
    template <size_t M>
    constexpr MontField pow(const limbs_t<M>& e) const { return pow_vartime(*this, e); }
    constexpr MontField pow(uint64_t e) const { return pow(limbs_t<1>{e}); }

    // Inverse by Fermat's little theorem; the inverse of 0 is reported as nullopt.
    constexpr std::optional<MontField> inverse() const {
        if (is_zero()) return std::nullopt;
        return pow(P_MINUS_2);
    }
    // The same in variable time (inverse_vartime.hpp, ~10x faster): only for values whose timing may leak (public
    // or randomised ones: the MSM's and the subgroup check's batched additions). Host only.
    std::optional<MontField> inverse_vartime() const {
        if (is_zero()) return std::nullopt;
        // l = x R, so the integer inverse of l is x^-1 R^-1; one Montgomery product with R^3 makes it x^-1 R.
        if (auto raw = inverse_detail::inverse_vartime<N>(l, P)) return from_mont_limbs(*raw) * from_mont_limbs(R3);
        return inverse();
    }
    // Inverse that maps 0 to 0 (for batch code that has already excluded zero).
    constexpr MontField inverse_or_zero() const { return is_zero() ? zero() : pow(P_MINUS_2); }

    // Legendre symbol: 0 for 0, 1 for a nonzero square, -1 otherwise.
    constexpr int legendre() const {
        if (is_zero()) return 0;
        MontField s = pow(P_MINUS_1_OVER_2);
        return s.is_one() ? 1 : -1;
    }

    // Square root (either root), nullopt for a non-square.
    constexpr std::optional<MontField> sqrt() const {
        if (is_zero()) return zero();
        if constexpr (S == 1) {
            MontField r = pow(P_PLUS_1_OVER_4);
            if (r.square() == *this) return r;
            return std::nullopt;
        } else {
            // Tonelli-Shanks with z = the 2^S-th primitive root of unity.
            MontField w = pow(T_MINUS_1_OVER_2);
            MontField x = *this * w;       // a^((T+1)/2)
            MontField b = x * w;           // a^T
            MontField z = root_of_unity();
            size_t v = S;
            while (!b.is_one()) {
                size_t k = 0;
                MontField b2k = b;
                while (!b2k.is_one()) {
                    b2k = b2k.square();
                    k++;
                    if (k == v) return std::nullopt;  // not a square
                }
                MontField w2 = z;
                for (size_t j = 0; j + 1 < v - k; j++) w2 = w2.square();
                z = w2.square();
                b *= z;
                x *= w2;
                v = k;
            }
            return x;
        }
    }

    // The multiplicative generator g given by the config; g^T is a primitive 2^S-th root of unity.
    static constexpr MontField generator() { return from_u64(Cfg::GENERATOR); }
    static constexpr MontField root_of_unity() { return generator().pow(T); }

    // Replaces each nonzero element by its inverse using one inversion (Montgomery's trick); zeros stay zero.
    static void batch_inverse(std::span<MontField> v) { batch_inverse_in_place(v); }

    // ---- random -------------------------------------------------------------------------------------------
    // Uniform in [0, p) by rejection; rng() returns uniformly random 64-bit words.
    template <class Rng>
    static MontField random(Rng& rng) {
        for (;;) {
            limbs a{};
            for (auto& w : a) w = (uint64_t)rng();
            if (BITS % 64) a[N - 1] &= (~0ULL) >> (64 - BITS % 64);
            if (bigint::cmp(a, P) < 0) return from_canonical_unchecked(a);
        }
    }

    // ---- bytes and text (canonical, i.e. not Montgomery) --------------------------------------------------
    void to_bytes_be(uint8_t out[BYTES]) const {
        limbs c = to_canonical();
        for (size_t i = 0; i < N; i++)
            for (size_t j = 0; j < 8; j++) out[BYTES - 1 - (8 * i + j)] = (uint8_t)(c[i] >> (8 * j));
    }
    void to_bytes_le(uint8_t out[BYTES]) const {
        limbs c = to_canonical();
        for (size_t i = 0; i < N; i++)
            for (size_t j = 0; j < 8; j++) out[8 * i + j] = (uint8_t)(c[i] >> (8 * j));
    }
    static limbs limbs_from_bytes_be(const uint8_t in[BYTES]) {
        limbs c{};
        for (size_t i = 0; i < N; i++)
            for (size_t j = 0; j < 8; j++) c[i] |= (uint64_t)in[BYTES - 1 - (8 * i + j)] << (8 * j);
        return c;
    }
    static limbs limbs_from_bytes_le(const uint8_t in[BYTES]) {
        limbs c{};
        for (size_t i = 0; i < N; i++)
            for (size_t j = 0; j < 8; j++) c[i] |= (uint64_t)in[8 * i + j] << (8 * j);
        return c;
    }
    // nullopt when the encoded integer is >= p.
    static std::optional<MontField> from_bytes_be(const uint8_t in[BYTES]) {
        return from_canonical(limbs_from_bytes_be(in));
    }
    static std::optional<MontField> from_bytes_le(const uint8_t in[BYTES]) {
        return from_canonical(limbs_from_bytes_le(in));
    }
    std::string to_decimal() const { return bigint::to_decimal(to_canonical()); }
    std::string to_hex() const { return bigint::to_hex(to_canonical()); }
    // nullopt for a malformed string or a value >= p.
    static std::optional<MontField> from_decimal(std::string_view s) {
        limbs a{};
        if (!bigint::from_decimal(s, a)) return std::nullopt;
        return from_canonical(a);
    }
    static constexpr MontField from_hex(std::string_view s) {
        return from_canonical_unchecked(bigint::from_hex<N>(s));
    }
};

}  // namespace cuzk
