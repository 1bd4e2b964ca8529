// Eight Fq (or Fq2) elements at a time on AVX-512 IFMA (vpmadd52luq / vpmadd52huq): the representation and the
// primitive operations shared by the batched affine additions (msm/batch_add_ifma.cpp) and the batched point
// decoder (formats/point_decode.cpp). Internal: include only from a translation unit that checks
// msm_detail::ifma_supported() at run time before calling any of it; every function carries the target attribute,
// so the rest of the translation unit is compiled for the baseline architecture.
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#include <array>
#include <cstdint>

#include "cuzk/ff/fq.hpp"

namespace cuzk::ifma {

// ---- representation ---------------------------------------------------------------------------------------------
// An Fq element x is held as its Montgomery integer X = x * 2^384 mod p (the same integer Fq stores in six 64-bit
// limbs) in eight limbs of 48 bits: limb k = bits [48k, 48k + 48). Eight elements form a V8: register k holds limb k
// of all eight (lane l = element l). Values are kept below a small multiple of p (each operation states its bound)
// with every limb normalized below 2^48, so every limb is a valid 52-bit IFMA input.
//
// Montgomery multiplication, R = 2^384 = (2^48)^8. Products a_i * b_j < 2^96 are split by IFMA into lo (bits
// 0..51) and hi (bits 52..103): lo belongs to column i + j and hi to column i + j + 1 with weight 2^4, so the hi
// parts are summed apart (H) and shifted once per column. Eight reduction steps then add m_i * p at column i with
// m_i = -col_i / p mod 2^48, which clears column i; its carry moves up. With R / p = 9.84, inputs a < 4p and
// b < 2p give (a b + m p) / R < (8 / 9.84 + 1) p < 2p: every product in the addition formulas below has one factor
// below 2p and the other below 4p, and every product is < 2p. Column sums stay below 2^57 (16 lo terms < 2^52,
// 16 hi terms < 2^44 shifted by 4), so 64-bit lanes never overflow.
using limbs48 = std::array<uint64_t, 8>;
inline constexpr uint64_t kMask48 = (uint64_t(1) << 48) - 1;

constexpr limbs48 to48(const limbs_t<6>& x) {
    limbs48 r{};
    for (int k = 0; k < 8; k++) {
        int bit = 48 * k, w = bit / 64, s = bit % 64;
        uint64_t v = x[w] >> s;
        if (s != 0 && w + 1 < 6) v |= x[w + 1] << (64 - s);
        r[k] = v & kMask48;
    }
    return r;
}

constexpr limbs_t<6> from48(const limbs48& l) {
    limbs_t<6> r{};
    for (int k = 0; k < 8; k++) {
        int bit = 48 * k, w = bit / 64, s = bit % 64;
        r[w] |= l[k] << s;
        if (s > 16 && w + 1 < 6) r[w + 1] |= l[k] >> (64 - s);
    }
    return r;
}

constexpr limbs_t<6> twice(const limbs_t<6>& x) {
    limbs_t<6> r{};
    bigint::add(r, x, x);  // 4p < 2^384: no carry out
    return r;
}

inline constexpr limbs48 kP = to48(FqConfig::MODULUS);
inline constexpr limbs48 k2P = to48(twice(FqConfig::MODULUS));
inline constexpr limbs48 k4P = to48(twice(twice(FqConfig::MODULUS)));
inline constexpr limbs48 kOne = to48(Fq::R);
inline constexpr uint64_t kNInv = Fq::INV & kMask48;  // -1/p mod 2^48
static_assert(from48(kP) == FqConfig::MODULUS, "48-bit limb round trip");
static_assert(sizeof(Fq) == 48 && sizeof(limbs_t<6>) == 48, "Fq is its six limbs");

#define CUZK_IFMA_FN __attribute__((target("avx512f,avx512ifma"))) static inline
#define CUZK_IFMA_INL __attribute__((target("avx512f,avx512ifma"), always_inline)) static inline

struct V8 {
    __m512i l[8];
};

CUZK_IFMA_INL __m512i bc(uint64_t x) { return _mm512_set1_epi64((long long)x); }

CUZK_IFMA_INL V8 constant(const limbs48& c) {
    V8 r;
    for (int k = 0; k < 8; k++) r.l[k] = bc(c[k]);
    return r;
}

// Montgomery product a * b / 2^384 (bounds above: a < 4p, b < 2p or the other way round; result < 2p, normalized).
CUZK_IFMA_INL void mul(V8& r, const V8& a, const V8& b) {
    const __m512i z = _mm512_setzero_si512(), mask = bc(kMask48);
    __m512i T[16], H[16];
    for (int k = 0; k < 16; k++) T[k] = z, H[k] = z;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            T[i + j] = _mm512_madd52lo_epu64(T[i + j], a.l[i], b.l[j]);
            H[i + j + 1] = _mm512_madd52hi_epu64(H[i + j + 1], a.l[i], b.l[j]);
        }
    const __m512i ninv = bc(kNInv);
    __m512i carry = z;
    for (int i = 0; i < 8; i++) {
        __m512i c = _mm512_add_epi64(_mm512_add_epi64(T[i], _mm512_slli_epi64(H[i], 4)), carry);
        __m512i m = _mm512_and_si512(_mm512_madd52lo_epu64(z, c, ninv), mask);
        c = _mm512_madd52lo_epu64(c, m, bc(kP[0]));  // now 0 mod 2^48
        for (int j = 1; j < 8; j++) T[i + j] = _mm512_madd52lo_epu64(T[i + j], m, bc(kP[j]));
        for (int j = 0; j < 8; j++) {
            if (i + j + 1 < 16) H[i + j + 1] = _mm512_madd52hi_epu64(H[i + j + 1], m, bc(kP[j]));
        }
        carry = _mm512_srli_epi64(c, 48);
    }
    // The result (< 2p < 2^384) is columns 8..15; nothing reaches column 16 (H[16] would be the hi part of
    // a_7 b_7 and m_7 p_7, which the bound on the result makes zero together with the last carry).
    for (int k = 8; k < 16; k++) {
        __m512i c = _mm512_add_epi64(_mm512_add_epi64(T[k], _mm512_slli_epi64(H[k], 4)), carry);
        r.l[k - 8] = _mm512_and_si512(c, mask);
        carry = _mm512_srli_epi64(c, 48);
    }
}

// a + K - b, normalized; the caller guarantees a + K >= b (K a constant multiple of p).
CUZK_IFMA_INL V8 sub_k(const V8& a, const V8& b, const V8& K) {
    const __m512i mask = bc(kMask48);
    __m512i carry = _mm512_setzero_si512();
    V8 r;
    for (int k = 0; k < 8; k++) {
        __m512i t = _mm512_add_epi64(_mm512_sub_epi64(_mm512_add_epi64(a.l[k], K.l[k]), b.l[k]), carry);
        r.l[k] = _mm512_and_si512(t, mask);
        carry = _mm512_srai_epi64(t, 48);
    }
    return r;
}

// a + K - b - c, normalized; the caller guarantees a + K >= b + c.
CUZK_IFMA_INL V8 sub2_k(const V8& a, const V8& b, const V8& c, const V8& K) {
    const __m512i mask = bc(kMask48);
    __m512i carry = _mm512_setzero_si512();
    V8 r;
    for (int k = 0; k < 8; k++) {
        __m512i t = _mm512_add_epi64(a.l[k], K.l[k]);
        t = _mm512_sub_epi64(_mm512_sub_epi64(t, b.l[k]), c.l[k]);
        t = _mm512_add_epi64(t, carry);
        r.l[k] = _mm512_and_si512(t, mask);
        carry = _mm512_srai_epi64(t, 48);
    }
    return r;
}

// x >= K ? x - K : x, lane by lane.
CUZK_IFMA_INL V8 cond_sub(const V8& x, const V8& K) {
    const __m512i mask = bc(kMask48);
    __m512i carry = _mm512_setzero_si512();
    V8 t;
    for (int k = 0; k < 8; k++) {
        __m512i d = _mm512_add_epi64(_mm512_sub_epi64(x.l[k], K.l[k]), carry);
        t.l[k] = _mm512_and_si512(d, mask);
        carry = _mm512_srai_epi64(d, 48);
    }
    __mmask8 keep = _mm512_cmpeq_epi64_mask(carry, _mm512_setzero_si512());  // no borrow: x >= K
    V8 r;
    for (int k = 0; k < 8; k++) r.l[k] = _mm512_mask_blend_epi64(keep, x.l[k], t.l[k]);
    return r;
}

CUZK_IFMA_INL __m512i vec(const uint64_t (&v)[8]) { return _mm512_loadu_si512(v); }

// Transposes eight rows of eight 64-bit values in place (an involution: rows of elements <-> rows of limbs).
CUZK_IFMA_INL void transpose(__m512i r[8]) {
    static constexpr uint64_t kLo2[8] = {0, 1, 8, 9, 4, 5, 12, 13}, kHi2[8] = {2, 3, 10, 11, 6, 7, 14, 15};
    static constexpr uint64_t kLo4[8] = {0, 1, 2, 3, 8, 9, 10, 11}, kHi4[8] = {4, 5, 6, 7, 12, 13, 14, 15};
    const __m512i lo2 = vec(kLo2), hi2 = vec(kHi2), lo4 = vec(kLo4), hi4 = vec(kHi4);
    __m512i t[8], u[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm512_unpacklo_epi64(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi64(r[2 * i], r[2 * i + 1]);
    }
    // u[0..3]: rows 0-3 with columns {0,4}, {1,5}, {2,6}, {3,7}; u[4..7]: the same for rows 4-7.
    for (int h = 0; h < 2; h++) {
        const __m512i* s = t + 4 * h;
        __m512i* d = u + 4 * h;
        d[0] = _mm512_permutex2var_epi64(s[0], lo2, s[2]);
        d[2] = _mm512_permutex2var_epi64(s[0], hi2, s[2]);
        d[1] = _mm512_permutex2var_epi64(s[1], lo2, s[3]);
        d[3] = _mm512_permutex2var_epi64(s[1], hi2, s[3]);
    }
    for (int c = 0; c < 4; c++) {
        r[c] = _mm512_permutex2var_epi64(u[c], lo4, u[c + 4]);
        r[c + 4] = _mm512_permutex2var_epi64(u[c], hi4, u[c + 4]);
    }
}

// Six 64-bit limbs -> eight 48-bit limbs of one element (lane k = limb k).
CUZK_IFMA_INL __m512i load48(const uint64_t* w) {
    static constexpr uint64_t kIdxLo[8] = {0, 0, 1, 2, 3, 3, 4, 5}, kIdxHi[8] = {0, 1, 2, 3, 3, 4, 5, 5};
    static constexpr uint64_t kShR[8] = {0, 48, 32, 16, 0, 48, 32, 16}, kShL[8] = {64, 16, 32, 48, 64, 16, 32, 48};
    __m512i v = _mm512_maskz_loadu_epi64(0x3f, w);
    __m512i lo = _mm512_srlv_epi64(_mm512_permutexvar_epi64(vec(kIdxLo), v), vec(kShR));
    __m512i hi = _mm512_sllv_epi64(_mm512_permutexvar_epi64(vec(kIdxHi), v), vec(kShL));
    return _mm512_and_si512(_mm512_or_si512(lo, hi), bc(kMask48));
}

// Eight normalized 48-bit limbs of one element (< 2^384) -> six 64-bit limbs.
CUZK_IFMA_INL void store48(uint64_t* w, __m512i v) {
    static constexpr uint64_t kIdxA[8] = {0, 1, 2, 4, 5, 6, 0, 0}, kIdxB[8] = {1, 2, 3, 5, 6, 7, 0, 0};
    static constexpr uint64_t kShA[8] = {0, 16, 32, 0, 16, 32, 0, 0}, kShB[8] = {48, 32, 16, 48, 32, 16, 0, 0};
    __m512i a = _mm512_srlv_epi64(_mm512_permutexvar_epi64(vec(kIdxA), v), vec(kShA));
    __m512i b = _mm512_sllv_epi64(_mm512_permutexvar_epi64(vec(kIdxB), v), vec(kShB));
    _mm512_mask_storeu_epi64(w, 0x3f, _mm512_or_si512(a, b));
}

CUZK_IFMA_INL const uint64_t* limbs_of(const Fq& f) { return reinterpret_cast<const uint64_t*>(&f); }
CUZK_IFMA_INL uint64_t* limbs_of(Fq& f) { return reinterpret_cast<uint64_t*>(&f); }

CUZK_IFMA_INL void store_v8(uint64_t* dst, const V8& v) {
    for (int k = 0; k < 8; k++) _mm512_storeu_si512(dst + 8 * k, v.l[k]);
}
CUZK_IFMA_INL void load_v8(V8& v, const uint64_t* src) {
    for (int k = 0; k < 8; k++) v.l[k] = _mm512_loadu_si512(src + 8 * k);
}

// An element of F = Fq (D = 1) or Fq2 (D = 2, c0 then c1) in eight lanes.
template <int D>
struct VE {
    V8 c[D];
};

// a + b, normalized (a, b normalized; no reduction).
CUZK_IFMA_INL V8 add(const V8& a, const V8& b) {
    const __m512i mask = bc(kMask48);
    __m512i carry = _mm512_setzero_si512();
    V8 r;
    for (int k = 0; k < 8; k++) {
        __m512i t = _mm512_add_epi64(_mm512_add_epi64(a.l[k], b.l[k]), carry);
        r.l[k] = _mm512_and_si512(t, mask);
        carry = _mm512_srli_epi64(t, 48);
    }
    return r;
}

template <int D>
CUZK_IFMA_INL VE<D> sub_k(const VE<D>& a, const VE<D>& b, const V8& K) {
    VE<D> r;
    for (int j = 0; j < D; j++) r.c[j] = sub_k(a.c[j], b.c[j], K);
    return r;
}
template <int D>
CUZK_IFMA_INL VE<D> sub2_k(const VE<D>& a, const VE<D>& b, const VE<D>& c, const V8& K) {
    VE<D> r;
    for (int j = 0; j < D; j++) r.c[j] = sub2_k(a.c[j], b.c[j], c.c[j], K);
    return r;
}
template <int D>
CUZK_IFMA_INL VE<D> cond_sub(const VE<D>& x, const V8& K) {
    VE<D> r;
    for (int j = 0; j < D; j++) r.c[j] = cond_sub(x.c[j], K);
    return r;
}

// Products: every call below has one factor with components < 2p and the other < 4p, and gives components < 2p.
CUZK_IFMA_INL void mul(VE<1>& r, const VE<1>& a, const VE<1>& b) { mul(r.c[0], a.c[0], b.c[0]); }
// Fq2 (u^2 = -1) by Karatsuba: t0 = a0 b0, t1 = a1 b1, t2 = (a0 + a1)(b0 + b1); r0 = t0 - t1, r1 = t2 - t0 - t1.
// The sums (< 8p) are brought below 2p first, so t2's factors are < 2p too.
CUZK_IFMA_INL void mul(VE<2>& r, const VE<2>& a, const VE<2>& b) {
    const V8 P2 = constant(k2P), P4 = constant(k4P);
    V8 t0, t1, t2;
    mul(t0, a.c[0], b.c[0]);
    mul(t1, a.c[1], b.c[1]);
    const V8 sa = cond_sub(cond_sub(add(a.c[0], a.c[1]), P4), P2);
    const V8 sb = cond_sub(cond_sub(add(b.c[0], b.c[1]), P4), P2);
    mul(t2, sa, sb);
    r.c[0] = cond_sub(sub_k(t0, t1, P2), P2);                   // (0, 4p) -> < 2p
    r.c[1] = cond_sub(cond_sub(sub2_k(t2, t0, t1, P4), P4), P2);  // (0, 6p) -> < 2p
}

template <int D>
CUZK_IFMA_INL void store_ve(uint64_t* dst, const VE<D>& v) {
    for (int j = 0; j < D; j++) store_v8(dst + 64 * j, v.c[j]);
}
template <int D>
CUZK_IFMA_INL void load_ve(VE<D>& v, const uint64_t* src) {
    for (int j = 0; j < D; j++) load_v8(v.c[j], src + 64 * j);
}
// One coordinate (F = D consecutive Fq) of the eight points of a group.
template <int D>
CUZK_IFMA_INL void gather_ve(VE<D>& out, const Fq* const* f) {
    for (int j = 0; j < D; j++) {
        for (int l = 0; l < 8; l++) out.c[j].l[l] = load48(limbs_of(f[l][j]));
        transpose(out.c[j].l);
    }
}

}  // namespace cuzk::ifma

#endif
