#include "cuzk/formats/point_decode.hpp"

#include <array>
#include <cstring>
#include <span>

#include "cuzk/ec/encoding.hpp"
#include "cuzk/msm/batch_add_ifma.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// GCC 12's AVX-512 intrinsics start some results from _mm512_undefined_epi32(), which -W(maybe-)uninitialized
// reports at every inlined use (GCC bug 105593); the values are fully written.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include "cuzk/ff/fq_ifma.hpp"
#define CUZK_DECODE_IFMA 1
#else
#define CUZK_DECODE_IFMA 0
#endif

namespace cuzk::formats {

namespace {

template <class A>
using ScalarDecoder = Decoded<A> (*)(std::span<const uint8_t>);

// Points [begin, end) one at a time; returns the first failing index or `end`.
template <class A>
size_t decode_scalar(ScalarDecoder<A> decode, size_t bytes, const uint8_t* in, size_t begin, size_t end, A* out,
                     bool allow_infinity) {
    for (size_t i = begin; i < end; i++) {
        Decoded<A> d = decode(std::span<const uint8_t>(in + i * bytes, bytes));
        if (!d || (!allow_infinity && d->is_identity())) return i;
        out[i] = *d;
    }
    return end;
}

#if CUZK_DECODE_IFMA

using Limbs = limbs_t<6>;

// A 48-byte big-endian integer as six little-endian limbs; false when it is not below p.
inline bool parse_fq(const uint8_t* b, Limbs& out) {
    for (int i = 0; i < 6; i++) {
        uint64_t w;
        std::memcpy(&w, b + 8 * (5 - i), 8);
        out[i] = __builtin_bswap64(w);
    }
    return bigint::cmp(out, FqConfig::MODULUS) < 0;
}

// The eight points of a group, canonical (not Montgomery) coordinates: x[j][l], y[j][l] = component j of lane l
// (G2: c0 then c1, where the encoding puts c1 first).
template <int D>
struct Canonical {
    std::array<std::array<Limbs, 8>, D> x, y;
};

// Parses a group of eight D-component points (uncompressed: no flag bits set, so neither infinity nor the
// compressed or sort flags); false when any point is not such a point or has a coordinate >= p: the caller then
// decodes the group point by point.
template <int D>
bool parse_group(const uint8_t* in, Canonical<D>& c) {
    constexpr size_t kField = 48 * D, kPoint = 2 * kField;
    for (int l = 0; l < 8; l++) {
        const uint8_t* p = in + kPoint * (size_t)l;
        if (p[0] & 0xe0) return false;  // compressed, infinity or sort flag
        for (int j = 0; j < D; j++) {
            const size_t at = 48 * (size_t)(D - 1 - j);  // c1 first in the encoding
            if (!parse_fq(p + at, c.x[j][l]) || !parse_fq(p + kField + at, c.y[j][l])) return false;
        }
    }
    return true;
}

using namespace cuzk::ifma;

CUZK_IFMA_INL V8 load_lanes(const std::array<Limbs, 8>& v) {
    V8 r;
    for (int l = 0; l < 8; l++) r.l[l] = load48(v[l].data());
    transpose(r.l);
    return r;
}

// Lane mask of a == b (both below p, normalized).
CUZK_IFMA_INL __mmask8 equal(const V8& a, const V8& b) {
    __mmask8 m = 0xff;
    for (int k = 0; k < 8; k++) m &= _mm512_cmpeq_epi64_mask(a.l[k], b.l[k]);
    return m;
}

// Montgomery form of the group's coordinates and the curve equation y^2 = x^3 + b in all eight lanes; writes the
// eight points and returns true when every lane is on the curve, else writes nothing and returns false.
template <int D, class A>
__attribute__((target("avx512f,avx512ifma"))) bool finish_group(const Canonical<D>& c, const limbs48 (&b)[D], A* out) {
    const V8 P = constant(kP), P2 = constant(k2P), R2 = constant(to48(Fq::R2));
    VE<D> x, y, x2, x3, y2;
    for (int j = 0; j < D; j++) {
        mul(x.c[j], load_lanes(c.x[j]), R2);  // x * 2^384 mod p, < 2p
        mul(y.c[j], load_lanes(c.y[j]), R2);
        x.c[j] = cond_sub(x.c[j], P);
        y.c[j] = cond_sub(y.c[j], P);
    }
    mul(x2, x, x);
    mul(x3, x2, x);
    mul(y2, y, y);
    __mmask8 on = 0xff;
    for (int j = 0; j < D; j++) {
        const V8 rhs = cond_sub(cond_sub(add(x3.c[j], constant(b[j])), P2), P);  // < 3p -> < p
        on &= equal(cond_sub(y2.c[j], P), rhs);
    }
    if (on != 0xff) return false;
    for (int j = 0; j < D; j++) {
        transpose(x.c[j].l);
        transpose(y.c[j].l);
    }
    for (int l = 0; l < 8; l++) {
        auto* xl = reinterpret_cast<uint64_t*>(&out[l].x);
        auto* yl = reinterpret_cast<uint64_t*>(&out[l].y);
        for (int j = 0; j < D; j++) {
            store48(xl + 6 * j, x.c[j].l[l]);
            store48(yl + 6 * j, y.c[j].l[l]);
        }
        out[l].infinity = false;
    }
    return true;
}

template <int D, class A>
size_t decode_vector(ScalarDecoder<A> scalar, const limbs48 (&b)[D], const uint8_t* in, size_t count, A* out,
                     bool allow_infinity) {
    static_assert(sizeof(typename A::F) == D * sizeof(Fq), "a coordinate is D consecutive Fq");
    constexpr size_t kPoint = 96 * D;
    Canonical<D> c;
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const uint8_t* g = in + kPoint * i;
        if (parse_group<D>(g, c) && finish_group<D>(c, b, out + i)) continue;
        const size_t bad = decode_scalar(scalar, kPoint, in, i, i + 8, out, allow_infinity);
        if (bad != i + 8) return bad;
    }
    return decode_scalar(scalar, kPoint, in, i, count, out, allow_infinity);
}

const limbs48 kG1B[1] = {to48(G1Config::b().mont_limbs())};
const limbs48 kG2B[2] = {to48(G2Config::b().c0.mont_limbs()), to48(G2Config::b().c1.mont_limbs())};

#endif

}  // namespace

size_t decode_g1_uncompressed(const uint8_t* in, size_t count, G1Affine* out, bool allow_infinity) {
#if CUZK_DECODE_IFMA
    if (msm_detail::ifma_enabled()) return decode_vector<1>(g1_from_uncompressed_unchecked, kG1B, in, count, out,
                                                           allow_infinity);
#endif
    return decode_scalar(g1_from_uncompressed_unchecked, G1_UNCOMPRESSED_BYTES, in, 0, count, out, allow_infinity);
}

size_t decode_g2_uncompressed(const uint8_t* in, size_t count, G2Affine* out, bool allow_infinity) {
#if CUZK_DECODE_IFMA
    if (msm_detail::ifma_enabled()) return decode_vector<2>(g2_from_uncompressed_unchecked, kG2B, in, count, out,
                                                           allow_infinity);
#endif
    return decode_scalar(g2_from_uncompressed_unchecked, G2_UNCOMPRESSED_BYTES, in, 0, count, out, allow_infinity);
}

}  // namespace cuzk::formats
