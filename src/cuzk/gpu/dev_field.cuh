// The field types of the GPU point kernels (MSM): the 32-bit PTX Montgomery field (mont32.cuh) with its
// multiplication and squaring kept out of line, and Fq2 over it.
//
// Why out of line: a point addition inlines ~10 multiplications of ~650 instructions each, so an inlined mixed
// addition is ~100 KB of machine code. On the H200 the first GPU MSM (CPU MontField inlined, 64-bit limbs emulated)
// spent 86% of its warp cycles stalled on instruction fetch (ncu, 2026-11-29, accumulate kernel: "no instruction"
// 22.8 of 26.4 cycles per issued instruction, IPC 0.45). With one out-of-line multiplication the hot code is that one
// ~10 KB function, which stays in the instruction caches; the call costs a few instructions against ~650. With this
// field (and chunks that give every thread the same trip count, msm_impl.cuh) the accumulation at 2^20 takes 11 ms
// where the first version took 140 ms; ncu then shows 2.44 instructions issued per cycle per SM (59% of issue
// slots, 31 of 32 threads active): bound by the instruction count of the multiplication, no longer by fetch.
//
// Memory layout equals the CPU's MontField / Fq2 (little-endian limbs, Montgomery form, R = 2^(64N)), so device
// arrays of these types are read back as CPU values without conversion (static_asserts below).
#pragma once

#include <cstdint>

#include "cuzk/ff/fq.hpp"
#include "cuzk/ff/fq2.hpp"
#include "cuzk/ff/fr.hpp"
#include "cuzk/gpu/mont32.cuh"

namespace cuzk::gpu {

template <class Base>
__device__ __noinline__ Base mul_out_of_line(Base a, Base b) {
    return a * b;
}
template <class Base>
__device__ __noinline__ Base sqr_out_of_line(Base a) {
    return a.square();
}

// Two independent products (squares) in one out-of-line call: half the calls, and ptxas may overlap the two (the
// carry chains of one product are serial, and a point kernel keeps few warps per scheduler). Measured gain is
// small because both chains share the one carry flag of PTX: H200, 2026-11-29, same run, G1 MSM 2^26 444 vs
// 452 ms, G2 2^20 38.1 vs 40.3 ms.
template <class Base>
struct Two {
    Base a, b;
};
template <class Base>
__device__ __noinline__ Two<Base> mul2_out_of_line(Base a, Base b, Base c, Base d) {
    return {a * b, c * d};
}
template <class Base>
__device__ __noinline__ Two<Base> sqr2_out_of_line(Base a, Base b) {
    return {a.square(), b.square()};
}

// Fq2's product with lazy reduction (mont32_t::fq2_mul): one reduction per component.
template <class Base>
__device__ __noinline__ Two<Base> fq2_mul_out_of_line(Base a0, Base a1, Base b0, Base b1) {
    Two<Base> r;
    Base::fq2_mul(r.a, r.b, a0, a1, b0, b1);
    return r;
}

// A field type (mont32_t, or the CPU's MontField compiled for the device) with multiplication and squaring through
// one non-inlined function; everything else inline.
template <class Base>
struct field_ool {
    Base v;

    __device__ __forceinline__ static field_ool zero() { return {Base::zero()}; }
    __device__ __forceinline__ static field_ool one() { return {Base::one()}; }
    __device__ __forceinline__ bool is_zero() const { return v.is_zero(); }
    __device__ __forceinline__ friend bool operator==(const field_ool& a, const field_ool& b) { return a.v == b.v; }
    __device__ __forceinline__ friend bool operator!=(const field_ool& a, const field_ool& b) { return !(a == b); }
    __device__ __forceinline__ friend field_ool operator+(const field_ool& a, const field_ool& b) {
        return {a.v + b.v};
    }
    __device__ __forceinline__ friend field_ool operator-(const field_ool& a, const field_ool& b) {
        return {a.v - b.v};
    }
    __device__ __forceinline__ field_ool operator-() const { return {-v}; }
    __device__ __forceinline__ field_ool dbl() const { return {v + v}; }
    // a + b for use only as a factor of a product or square: < 2p without reduction where the field allows it
    // (mont32_t::kLazy), else the reduced sum.
    __device__ __forceinline__ static field_ool add_lazy(const field_ool& a, const field_ool& b) {
        if constexpr (requires { Base::kLazy; }) {
            if constexpr (Base::kLazy) return {Base::add_lazy(a.v, b.v)};
        }
        return a + b;
    }
    __device__ __forceinline__ friend field_ool operator*(const field_ool& a, const field_ool& b) {
        return {mul_out_of_line<Base>(a.v, b.v)};
    }
    // Through mont32_t's dedicated squaring (a second out-of-line function).
    __device__ __forceinline__ field_ool square() const { return {sqr_out_of_line<Base>(v)}; }
    // r0 = a * b, r1 = c * d through one out-of-line function (independent: the two chains may interleave).
    __device__ __forceinline__ static void mul2(field_ool& r0, field_ool& r1, const field_ool& a, const field_ool& b,
                                                const field_ool& c, const field_ool& d) {
        const Two<Base> t = mul2_out_of_line<Base>(a.v, b.v, c.v, d.v);
        r0.v = t.a;
        r1.v = t.b;
    }
    // r0 = a^2, r1 = b^2, the same way.
    __device__ __forceinline__ static void sqr2(field_ool& r0, field_ool& r1, const field_ool& a, const field_ool& b) {
        const Two<Base> t = sqr2_out_of_line<Base>(a.v, b.v);
        r0.v = t.a;
        r1.v = t.b;
    }
    // Whether this field has the lazy Fq2 product (mont32_t::fq2_mul), and that product: (a0 + a1 u)(b0 + b1 u).
    static constexpr bool kFq2Lazy = requires(Base x) {
        Base::fq2_mul(x, x, x, x, x, x);
        requires Base::kLazy;
    };
    __device__ __forceinline__ static void fq2_mul(field_ool& re, field_ool& im, const field_ool& a0,
                                                   const field_ool& a1, const field_ool& b0, const field_ool& b1) {
        const Two<Base> t = fq2_mul_out_of_line<Base>(a0.v, a1.v, b0.v, b1.v);
        re.v = t.a;
        im.v = t.b;
    }
};

// Fq2 = Fq[u] / (u^2 + 1) over a device Fq type F: the CPU Fq2's formulas (Karatsuba product, complex squaring).
template <class F>
struct fq2_dev {
    F c0, c1;

    __device__ __forceinline__ static fq2_dev zero() { return {F::zero(), F::zero()}; }
    __device__ __forceinline__ static fq2_dev one() { return {F::one(), F::zero()}; }
    __device__ __forceinline__ bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    __device__ __forceinline__ friend bool operator==(const fq2_dev& a, const fq2_dev& b) {
        return a.c0 == b.c0 && a.c1 == b.c1;
    }
    __device__ __forceinline__ friend fq2_dev operator+(const fq2_dev& a, const fq2_dev& b) {
        return {a.c0 + b.c0, a.c1 + b.c1};
    }
    __device__ __forceinline__ friend fq2_dev operator-(const fq2_dev& a, const fq2_dev& b) {
        return {a.c0 - b.c0, a.c1 - b.c1};
    }
    __device__ __forceinline__ fq2_dev operator-() const { return {-c0, -c1}; }
    __device__ __forceinline__ fq2_dev dbl() const { return {c0.dbl(), c1.dbl()}; }
    // Reduced: a lazy component (< 2p) would break the bound of the Karatsuba sums and subtractions inside.
    __device__ __forceinline__ static fq2_dev add_lazy(const fq2_dev& a, const fq2_dev& b) { return a + b; }
    // Where the base field has it, the lazy product (F::fq2_mul: three full products, two reductions); otherwise
    // three products, the sums that only feed products lazy (F::add_lazy: < 2p, no reduction).
    static constexpr bool kLazyProduct = requires { requires F::kFq2Lazy; };
    __device__ __forceinline__ friend fq2_dev operator*(const fq2_dev& a, const fq2_dev& b) {
        if constexpr (kLazyProduct) {
            fq2_dev r;
            F::fq2_mul(r.c0, r.c1, a.c0, a.c1, b.c0, b.c1);
            return r;
        } else {
            F t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
            return {t0 - t1, F::add_lazy(a.c0, a.c1) * F::add_lazy(b.c0, b.c1) - t0 - t1};
        }
    }
    __device__ __forceinline__ fq2_dev square() const {
        F t0, t1;
        F::mul2(t0, t1, F::add_lazy(c0, c1), c0 - c1, c0, c1);
        return {t0, t1.dbl()};
    }
    // Two independent products (squares): the base field's products paired up, three (two) calls instead of six
    // (four).
    __device__ __forceinline__ static void mul2(fq2_dev& r0, fq2_dev& r1, const fq2_dev& a, const fq2_dev& b,
                                                const fq2_dev& c, const fq2_dev& d) {
        if constexpr (kLazyProduct) {
            r0 = a * b;
            r1 = c * d;
            return;
        }
        F a00, c00, a11, c11, am, cm;
        F::mul2(a00, c00, a.c0, b.c0, c.c0, d.c0);
        F::mul2(a11, c11, a.c1, b.c1, c.c1, d.c1);
        F::mul2(am, cm, F::add_lazy(a.c0, a.c1), F::add_lazy(b.c0, b.c1), F::add_lazy(c.c0, c.c1),
                F::add_lazy(d.c0, d.c1));
        r0 = {a00 - a11, am - a00 - a11};
        r1 = {c00 - c11, cm - c00 - c11};
    }
    __device__ __forceinline__ static void sqr2(fq2_dev& r0, fq2_dev& r1, const fq2_dev& a, const fq2_dev& b) {
        F ap, bp, ax, bx;
        F::mul2(ap, bp, F::add_lazy(a.c0, a.c1), a.c0 - a.c1, F::add_lazy(b.c0, b.c1), b.c0 - b.c1);
        F::mul2(ax, bx, a.c0, a.c1, b.c0, b.c1);
        r0 = {ap, ax.dbl()};
        r1 = {bp, bx.dbl()};
    }
};

// The PTX field: with MontField<FqConfig> (nvcc's code for the CPU's 64-bit-limb loop) behind the same wrapper the
// MSM measured 5% slower for G1 and 15% slower for G2 (H200, 2026-11-29: G1 2^20 17.5 vs 16.7 ms, 2^24 189 vs
// 179 ms, G2 2^20 65.4 vs 57.0 ms). mont32.cuh records how its multiplication schedule was chosen.
using fq_dev = field_ool<mont32_t<FqConfig>>;
// Fr on the device: the PTX field inline (the NTT and H kernels; docs/perf.md has the schedules measured).
using fr_dev = mont32_t<FrConfig>;
using fq2_dev_t = fq2_dev<fq_dev>;

static_assert(sizeof(fq_dev) == sizeof(Fq) && sizeof(fq2_dev_t) == sizeof(Fq2) && sizeof(fr_dev) == sizeof(Fr),
              "layout shared with the CPU");

// a^(-1) (0 for a = 0) by Fermat's little theorem, a^(p - 2): one squaring per bit of p and one product per set
// bit, so ~381 squarings and ~190 products for Fq. For one-off work (the precomputed MSM tables invert once per
// batch of points), not for hot loops.
template <class Cfg>
__device__ __noinline__ field_ool<mont32_t<Cfg>> inverse(const field_ool<mont32_t<Cfg>>& a) {
    using Cpu = MontField<Cfg>;
    struct Exp {
        uint64_t w[Cfg::N];
    };
    constexpr Exp e = [] {
        Exp x{};
        uint64_t borrow = 2;
        for (size_t i = 0; i < Cfg::N; i++) {
            x.w[i] = Cpu::P[i] - borrow;
            borrow = Cpu::P[i] < borrow ? 1 : 0;
        }
        return x;
    }();
    using F = field_ool<mont32_t<Cfg>>;
    F r = F::one();
    int top = 64 * (int)Cfg::N - 1;
    while (top > 0 && ((e.w[top / 64] >> (top % 64)) & 1) == 0) top--;
    for (int bit = top; bit >= 0; bit--) {
        r = r.square();
        if ((e.w[bit / 64] >> (bit % 64)) & 1) r = r * a;
    }
    return r;
}

// (c0 + c1 u)^(-1) = (c0 - c1 u) / (c0^2 + c1^2) (u^2 = -1); 0 for 0.
template <class Cfg>
__device__ fq2_dev<field_ool<mont32_t<Cfg>>> inverse(const fq2_dev<field_ool<mont32_t<Cfg>>>& a) {
    const auto t = inverse<Cfg>(a.c0.square() + a.c1.square());
    return {a.c0 * t, -(a.c1 * t)};
}

// The device field of a curve's coordinates: Fq for G1, Fq2 for G2.
template <class CpuField>
struct DeviceFieldOf;
template <>
struct DeviceFieldOf<Fq> {
    using type = fq_dev;
};
template <>
struct DeviceFieldOf<Fq2> {
    using type = fq2_dev_t;
};

}  // namespace cuzk::gpu
