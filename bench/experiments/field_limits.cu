// What bounds a field multiplication on the GPU: throughput of the integer multiply-add flavours and of DFMA, the
// Fq product of mont32.cuh with one and two chains per thread, and a prototype Fq product on 28-bit limbs with
// 64-bit column sums (no carry flags) checked against mont32.cuh. A measurement program, not part of the build:
//   nvcc -std=c++20 --expt-relaxed-constexpr -O3 -arch=sm_90 -I src -o field_limits bench/experiments/field_limits.cu
//   ./field_limits          (and cuobjdump -sass field_limits for the instruction counts)
// Figures (H200, 2026-12-03) and what they mean: docs/perf.md, "What bounds a field multiplication".
#include <cstdio>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>
#include "cuzk/ff/fq.hpp"
#include "cuzk/gpu/mont32.cuh"
#include "event_timing.cuh"
// Prototype: Fq Montgomery product (R = 2^384, the CPU's) on 28-bit limbs in 32-bit registers, columns accumulated
// in 64-bit registers by IMAD.WIDE without carry flags (independent multiply-adds: instruction-level parallelism).

namespace exp28 {
using Cpu = cuzk::MontField<cuzk::FqConfig>;
constexpr int L = 14;
constexpr uint32_t M28 = (1u << 28) - 1, M20 = (1u << 20) - 1;
struct Consts { uint32_t p[L]; uint32_t inv; };
constexpr Consts consts() {
    Consts c{};
    for (int k = 0; k < L; k++) {
        int bit = 28 * k, w = bit / 64, sh = bit % 64;
        uint64_t v = Cpu::P[w] >> sh;
        if (sh > 36 && w + 1 < 6) v |= Cpu::P[w + 1] << (64 - sh);
        c.p[k] = (uint32_t)(v & M28);
    }
    c.inv = (uint32_t)Cpu::INV;
    return c;
}
struct F28 { uint32_t l[L]; };

__device__ __forceinline__ F28 unpack(const uint32_t (&w)[12]) {
    F28 r;
#pragma unroll
    for (int k = 0; k < L; k++) {
        const int bit = 28 * k, i = bit / 32, sh = bit % 32;
        const uint32_t hi = i + 1 < 12 ? w[i + 1] : 0;
        r.l[k] = __funnelshift_r(w[i], hi, sh) & M28;
    }
    return r;
}
// limbs (value < 2^384) -> 12 words, no reduction
__device__ __forceinline__ void pack(const F28& a, uint32_t (&w)[12]) {
#pragma unroll
    for (int i = 0; i < 12; i++) {
        const int bit = 32 * i, k = bit / 28, sh = bit % 28;
        uint64_t v = (uint64_t)a.l[k] >> sh;
        if (k + 1 < L) v |= (uint64_t)a.l[k + 1] << (28 - sh);
        if (k + 2 < L && 56 - sh < 32) v |= (uint64_t)a.l[k + 2] << (56 - sh);
        w[i] = (uint32_t)v;
    }
}

template <bool kSquare>
__device__ __forceinline__ F28 mul28(const F28& a, const F28& b) {
    constexpr Consts C = consts();
    uint64_t c[2 * L];
#pragma unroll
    for (int k = 0; k < 2 * L; k++) c[k] = 0;
    if constexpr (kSquare) {
#pragma unroll
        for (int i = 0; i < L; i++) {
            const uint32_t a2 = a.l[i] << 1;
#pragma unroll
            for (int j = i + 1; j < L; j++) c[i + j] += (uint64_t)a2 * a.l[j];
            c[2 * i] += (uint64_t)a.l[i] * a.l[i];
        }
    } else {
#pragma unroll
        for (int i = 0; i < L; i++)
#pragma unroll
            for (int j = 0; j < L; j++) c[i + j] += (uint64_t)a.l[i] * b.l[j];
    }
#pragma unroll
    for (int i = 0; i < L; i++) {
        const uint32_t m = ((uint32_t)c[i] * C.inv) & (i < L - 1 ? M28 : M20);
#pragma unroll
        for (int j = 0; j < L; j++) c[i + j] += (uint64_t)m * C.p[j];
        if (i < L - 1) c[i + 1] += c[i] >> 28;
    }
    uint32_t e[L + 1];
    uint64_t d = c[L - 1];
    e[0] = (uint32_t)d & M28;
#pragma unroll
    for (int k = L; k < 2 * L - 1; k++) {
        d = c[k] + (d >> 28);
        e[k - L + 1] = (uint32_t)d & M28;
    }
    e[L] = (uint32_t)(d >> 28);
    F28 r;
#pragma unroll
    for (int j = 0; j < L; j++) r.l[j] = (e[j] >> 20) | ((e[j + 1] & M20) << 8);
    return r;
}
}  // namespace exp28

using namespace cuzk::gpu;
using FqD = mont32_t<cuzk::FqConfig>;

constexpr int ITER = 4096;

// mad.lo.u32 (kHi false) or mad.hi.u32 (kHi true), 8 independent chains per thread.
template <bool kHi>
__global__ void k_imad(uint32_t* out, uint32_t b) {
    uint32_t a[8];
    for (int j = 0; j < 8; j++) a[j] = threadIdx.x + j;
    for (int i = 0; i < ITER; i++) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            if constexpr (kHi) asm volatile("mad.hi.u32 %0, %0, %1, %2;" : "+r"(a[j]) : "r"(b), "r"(j));
            else asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(a[j]) : "r"(b), "r"(j));
        }
    }
    uint32_t s = 0; for (int j = 0; j < 8; j++) s ^= a[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
__global__ void k_imad_wide(uint64_t* out, uint32_t b) {
    uint64_t a[8];
    for (int j = 0; j < 8; j++) a[j] = threadIdx.x * 7 + j;
    for (int i = 0; i < ITER; i++) {
#pragma unroll
        for (int j = 0; j < 8; j++)  // the multiplicand is the accumulator's low word: no loop-invariant product
            asm volatile("{.reg .u32 t; cvt.u32.u64 t, %0; mad.wide.u32 %0, t, %1, %0;}" : "+l"(a[j]) : "r"(b));
    }
    uint64_t s = 0; for (int j = 0; j < 8; j++) s ^= a[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
// a carry chain: 8 (lo,hi) pairs per statement group, one CC chain
__global__ void k_madc(uint32_t* out, uint32_t b) {
    uint32_t a[16], x[8];
    for (int j = 0; j < 16; j++) a[j] = threadIdx.x + j;
    for (int j = 0; j < 8; j++) x[j] = threadIdx.x * 3 + j;
    for (int i = 0; i < ITER; i++) {
        asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(a[0]) : "r"(x[0]), "r"(b));
        asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(a[1]) : "r"(x[0]), "r"(b));
#pragma unroll
        for (int j = 1; j < 8; j++) {
            asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(a[2*j]) : "r"(x[j]), "r"(b));
            asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(a[2*j+1]) : "r"(x[j]), "r"(b));
        }
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(a[0]));
    }
    uint32_t s = 0; for (int j = 0; j < 16; j++) s ^= a[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
__global__ void k_dfma(double* out, double b) {
    double a[8];
    for (int j = 0; j < 8; j++) a[j] = threadIdx.x + j;
    for (int i = 0; i < ITER; i++) {
#pragma unroll
        for (int j = 0; j < 8; j++) a[j] = fma(a[j], b, 0.5);
    }
    double s = 0; for (int j = 0; j < 8; j++) s += a[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
template <int kChains>
__global__ void k_fq(FqD* v, int n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    FqD x = v[i], y = v[i] + v[i];
    FqD z = y + x, w = x;
    for (int k = 0; k < n; k++) {
        if constexpr (kChains != 3) x = x * y;
        if constexpr (kChains == 2) z = z * w;
        if constexpr (kChains == 3) x = x.square();
    }
    if constexpr (kChains == 2) x = x + z;
    v[i] = x;
}

template <int kChains, bool kSq>
__global__ void k_fq28(uint32_t* v, int n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t w[12];
    for (int k = 0; k < 12; k++) w[k] = v[i * 12 + k];
    w[11] &= 0x0fffffff;
    exp28::F28 x = exp28::unpack(w), y = x, z = x, u = x;
    y.l[0] ^= 5; z.l[1] ^= 7;
    for (int k = 0; k < n; k++) {
        x = exp28::mul28<kSq>(x, y);
        if constexpr (kChains == 2) z = exp28::mul28<kSq>(z, u);
    }
    if constexpr (kChains == 2) for (int k = 0; k < 14; k++) x.l[k] ^= z.l[k];
    exp28::pack(x, w);
    for (int k = 0; k < 12; k++) v[i * 12 + k] = w[k];
}
// correctness: out = mont28(a, b) packed, reduced to < p
__global__ void k_check(const FqD* a, const FqD* b, FqD* o28, FqD* o32, FqD* s28, FqD* s32, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t wa[12], wb[12];
    for (int k = 0; k < 12; k++) { wa[k] = a[i].l[k]; wb[k] = b[i].l[k]; }
    exp28::F28 x = exp28::unpack(wa), y = exp28::unpack(wb);
    exp28::F28 r = exp28::mul28<false>(x, y), s = exp28::mul28<true>(x, x);
    // lazy chain: feed result (< 2p) back in once more
    r = exp28::mul28<false>(r, y);
    s = exp28::mul28<true>(s, s);
    uint32_t w[12];
    FqD t;
    exp28::pack(r, w); for (int k = 0; k < 12; k++) t.l[k] = w[k];
    uint32_t tt[14] = {0}; for (int k = 0; k < 12; k++) tt[k] = t.l[k];
    o28[i] = FqD::reduce_once(tt);
    exp28::pack(s, w); for (int k = 0; k < 12; k++) tt[k] = w[k];
    s28[i] = FqD::reduce_once(tt);
    o32[i] = (a[i] * b[i]) * b[i];
    FqD q = a[i].square();
    s32[i] = q.square();
}

int main() {
    cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
    int clk = 0; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
    double ghz = clk / 1e6; int sms = p.multiProcessorCount;
    printf("%s SMs %d clock %.3f GHz\n", p.name, sms, ghz);
    const int blocks = sms * 8, threads = 256;
    void* buf; cudaMalloc(&buf, (size_t)blocks * threads * 64);
    auto rep = [&](const char* name, float ms, double ops) {
        double gops = ops / (ms * 1e-3) / 1e9;
        printf("%-28s %8.3f ms  %9.1f Gop/s  %6.1f /clk/SM\n", name, ms, gops, gops / (ghz * sms));
    };
    double n8 = (double)blocks * threads * ITER * 8;
    rep("mad.lo.u32 x8 indep", timeit([&] { k_imad<false><<<blocks, threads>>>((uint32_t*)buf, 12345); }), n8);
    rep("mad.hi.u32 x8 indep", timeit([&] { k_imad<true><<<blocks, threads>>>((uint32_t*)buf, 12345); }), n8);
    rep("mad.wide.u32 x8 indep", timeit([&] { k_imad_wide<<<blocks, threads>>>((uint64_t*)buf, 12345); }), n8);
    rep("madc lo/hi chain (per pair)", timeit([&] { k_madc<<<blocks, threads>>>((uint32_t*)buf, 12345); }), n8);
    rep("dfma x8 indep", timeit([&] { k_dfma<<<blocks, threads>>>((double*)buf, 1.0000001); }), n8);
    // Fq
    const size_t nt = (size_t)sms * 2048 * 4;
    FqD* v; cudaMalloc(&v, nt * sizeof(FqD)); cudaMemset(v, 1, nt * sizeof(FqD));
    // values not reduced mod p: fine for timing
    for (int bs : {128, 256}) {
        rep(bs == 128 ? "Fq mul 1 chain (bs128)" : "Fq mul 1 chain (bs256)",
            timeit([&] { k_fq<1><<<nt / bs, bs>>>(v, 256); }), (double)nt * 256);
        rep(bs == 128 ? "Fq mul 2 chains (bs128)" : "Fq mul 2 chains (bs256)",
            timeit([&] { k_fq<2><<<nt / bs, bs>>>(v, 128); }), (double)nt * 256);
    }
    uint32_t* v28; cudaMalloc(&v28, nt * 48); cudaMemset(v28, 3, nt * 48);
    for (int bs : {128, 256}) {
        printf("bs %d\n", bs);
        rep("Fq28 mul 1 chain", timeit([&] { k_fq28<1, false><<<nt / bs, bs>>>(v28, 256); }), (double)nt * 256);
        rep("Fq28 mul 2 chains", timeit([&] { k_fq28<2, false><<<nt / bs, bs>>>(v28, 128); }), (double)nt * 256);
        rep("Fq28 sqr 1 chain", timeit([&] { k_fq28<1, true><<<nt / bs, bs>>>(v28, 256); }), (double)nt * 256);
        rep("Fq sqr32 1 chain", timeit([&] { k_fq<3><<<nt / bs, bs>>>(v, 256); }), (double)nt * 256);
    }
    {
        const int n = 1 << 16;
        std::vector<cuzk::Fq> ha(n), hb(n);
        uint64_t s = 0x1234567;
        auto rng = [&] { return s = s * 6364136223846793005ULL + 1442695040888963407ULL; };
        for (auto& x : ha) x = cuzk::Fq::random(rng);
        for (auto& x : hb) x = cuzk::Fq::random(rng);
        ha[0] = cuzk::Fq::zero(); hb[1] = cuzk::Fq::zero(); ha[2] = -cuzk::Fq::one(); hb[2] = -cuzk::Fq::one();
        FqD *da, *db, *o1, *o2, *o3, *o4;
        cudaMalloc(&da, n * 48); cudaMalloc(&db, n * 48); cudaMalloc(&o1, n * 48); cudaMalloc(&o2, n * 48);
        cudaMalloc(&o3, n * 48); cudaMalloc(&o4, n * 48);
        cudaMemcpy(da, ha.data(), n * 48, cudaMemcpyHostToDevice);
        cudaMemcpy(db, hb.data(), n * 48, cudaMemcpyHostToDevice);
        k_check<<<n / 256, 256>>>(da, db, o1, o2, o3, o4, n);
        std::vector<uint32_t> r1(n * 12), r2(n * 12), r3(n * 12), r4(n * 12);
        cudaMemcpy(r1.data(), o1, n * 48, cudaMemcpyDeviceToHost);
        cudaMemcpy(r2.data(), o2, n * 48, cudaMemcpyDeviceToHost);
        cudaMemcpy(r3.data(), o3, n * 48, cudaMemcpyDeviceToHost);
        cudaMemcpy(r4.data(), o4, n * 48, cudaMemcpyDeviceToHost);
        printf("check: mul %s, sqr %s\n", r1 == r2 ? "EQUAL" : "DIFFER", r3 == r4 ? "EQUAL" : "DIFFER");
    }
    cudaFuncAttributes fa;
    cudaFuncGetAttributes(&fa, k_fq28<1, false>); printf("k_fq28 regs %d\n", fa.numRegs);
    cudaFuncGetAttributes(&fa, k_fq<1>); printf("k_fq<1> regs %d\n", fa.numRegs);
    cudaFuncGetAttributes(&fa, k_fq<2>); printf("k_fq<2> regs %d\n", fa.numRegs);
    return 0;
}
