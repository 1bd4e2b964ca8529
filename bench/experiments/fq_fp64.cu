// A Montgomery product over Fq built on the FP64 pipe (DFMA), beside mont32.cuh's on the integer pipe: is the H200's
// full-rate DFMA (63 per clock per SM, against ~28 for IMAD.WIDE) a faster multiplier, alone or together with IMAD?
// A measurement program, not part of the build:
//   nvcc -std=c++20 --expt-relaxed-constexpr -O3 -arch=sm_90 -I src -Xcompiler -frounding-math \
//        -o fq_fp64 bench/experiments/fq_fp64.cu
//   ./fq_fp64 [--host-only]     (the host run checks the same code against the CPU field first)
//
// The product (same interface as mont32_t: 12 32-bit limbs, R = 2^384, inputs < 2p, output < p):
//  - inputs split into eight 52-bit limbs held exactly as doubles;
//  - each limb product p = a_i b_j < 2^104 in two DFMAs: h = fma_rz(a_i, b_j, 2^104) has floor(p / 2^52) in its
//    mantissa bits, l = fma(a_i, b_j, (2^104 + 2^52) - h) = 2^52 + (p mod 2^52) exactly has p mod 2^52 in its
//    mantissa bits; the bit patterns go into 64-bit column sums, each column's constant exponent bits taken out once;
//  - Montgomery's reduction by seven 52-bit words and one of 20 bits (R = 2^384, as the CPU's), q from the integer
//    pipe; the last column's low product is not made (its sum is known to be 0 mod 2^52: only its carry is needed);
//  - the result repacked into 32-bit limbs and reduced once.
//
// Result (H200, 2026-12-03; docs/perf.md "A field product on the FP64 pipe"): exact (GPU == mont32 on 2^16
// products, the host run of the same code == the CPU field), but slower: 23.6 G/s against mont32's 27.3 G/s
// (394 FP64 and ~540 other instructions per product). And the pipes do not add up: chains of DFMA and IMAD.WIDE in
// one thread take the sum of their separate times, while DFMA beside 64-bit adds overlaps fully. So a product split
// between FP64 and the integer multiplier gains nothing either (mont32 + f52 chains: 10.0 clocks per product per SM
// against 9.6 for mont32 alone).
#include <cstdio>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_runtime.h>
#include "cuzk/ff/fq.hpp"
#include "cuzk/gpu/mont32.cuh"
#include "event_timing.cuh"

using namespace cuzk::gpu;
using FqD = mont32_t<cuzk::FqConfig>;

namespace f52 {
using Cpu = cuzk::MontField<cuzk::FqConfig>;
constexpr uint64_t M52 = (1ull << 52) - 1;
constexpr uint64_t B52 = 0x4330000000000000ull;   // bits of 2^52
constexpr uint64_t B104 = 0x4670000000000000ull;  // bits of 2^104
struct Consts { uint64_t p[8]; uint64_t inv; };
constexpr Consts consts() {
    Consts c{};
    for (int k = 0; k < 8; k++) {
        int bit = 52 * k, w = bit / 64, sh = bit % 64;
        uint64_t v = Cpu::P[w] >> sh;
        if (sh > 12 && w + 1 < 6) v |= Cpu::P[w + 1] << (64 - sh);
        c.p[k] = v & M52;
    }
    c.inv = Cpu::INV & M52;  // -p^-1 mod 2^52
    return c;
}
// The same code runs on the host (std::fma in the rounding mode asked for) to check it before a device run.
#ifdef __CUDA_ARCH__
#define F52_HD __device__ __forceinline__
__device__ __forceinline__ double fma_rz(double x, double y, double z) { return __fma_rz(x, y, z); }
__device__ __forceinline__ double fma_rn(double x, double y, double z) { return __fma_rn(x, y, z); }
__device__ __forceinline__ double from_bits(uint32_t hi, uint32_t lo) { return __hiloint2double(hi, lo); }
__device__ __forceinline__ uint64_t bits(double x) { return (uint64_t)__double_as_longlong(x); }
__device__ __forceinline__ uint32_t shr(uint32_t lo, uint32_t hi, int sh) { return __funnelshift_r(lo, hi, sh); }
#else
#define F52_HD inline
inline double fma_rz(double x, double y, double z) {
    std::fesetround(FE_TOWARDZERO);
    const double r = std::fma(x, y, z);
    std::fesetround(FE_TONEAREST);
    return r;
}
inline double fma_rn(double x, double y, double z) { return std::fma(x, y, z); }
inline double from_bits(uint32_t hi, uint32_t lo) {
    const uint64_t u = (uint64_t)hi << 32 | lo;
    double d;
    std::memcpy(&d, &u, 8);
    return d;
}
inline uint64_t bits(double x) {
    uint64_t u;
    std::memcpy(&u, &x, 8);
    return u;
}
inline uint32_t shr(uint32_t lo, uint32_t hi, int sh) { return (uint32_t)((((uint64_t)hi << 32) | lo) >> sh); }
#endif
F52_HD double to_d(uint64_t x) {  // x < 2^52, exactly
    return from_bits(0x43300000u | (uint32_t)(x >> 32), (uint32_t)x) - 4503599627370496.0;
}
F52_HD void unpack(const uint32_t (&w)[12], double (&d)[8]) {
#pragma unroll
    for (int k = 0; k < 8; k++) {
        const int bit = 52 * k, i = bit / 32, sh = bit % 32;
        const uint32_t w0 = w[i], w1 = i + 1 < 12 ? w[i + 1] : 0, w2 = i + 2 < 12 ? w[i + 2] : 0;
        const uint32_t lo = shr(w0, w1, sh);
        const uint32_t hi = shr(w1, w2, sh) & 0xfffffu;
        d[k] = from_bits(0x43300000u | hi, lo) - 4503599627370496.0;
    }
}

// col[k + 1] += floor(x y / 2^52), col[k] += (x y) mod 2^52 (with their exponent bits; bias counts them)
template <bool kLow = true>
F52_HD void prod(uint64_t (&col)[17], uint64_t (&bias)[17], int k, double x, double y) {
    const double h = fma_rz(x, y, 20282409603651670423947251286016.0);  // 2^104
    col[k + 1] += bits(h);
    bias[k + 1] += B104;
    if constexpr (kLow) {
        const double l = fma_rn(x, y, 20282409603651674927546878656512.0 - h);  // 2^104 + 2^52, exact
        col[k] += bits(l);
        bias[k] += B52;
    }
}

// a b / 2^384 < 2p (a, b < 2p) in w[0..11], w[12] = w[13] = 0
F52_HD void mul_core(const uint32_t (&a)[12], const uint32_t (&b)[12], uint32_t (&w)[14]) {
    constexpr Consts C = consts();
    double x[8], y[8];
    unpack(a, x);
    unpack(b, y);
    uint64_t col[17], bias[17];
#pragma unroll
    for (int k = 0; k < 17; k++) col[k] = bias[k] = 0;
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++) prod(col, bias, i + j, x[i], y[j]);
    // reduction: seven 52-bit words, then 20 bits
#pragma unroll
    for (int s = 0; s < 8; s++) {
        const uint64_t t = col[s] - bias[s];
        const uint64_t q = (t * C.inv) & (s < 7 ? M52 : (1ull << 20) - 1);
        const double qd = to_d(q);
#pragma unroll
        for (int j = 0; j < 8; j++) {
            // in a 52-bit step, t + (q p_0 mod 2^52) is a multiple of 2^52: only its carry is needed
            if (j == 0 && s < 7) prod<false>(col, bias, s, qd, (double)C.p[0]);
            else prod(col, bias, s + j, qd, (double)C.p[j]);
        }
        if (s < 7) col[s + 1] += (t >> 52) + ((t & M52) != 0 ? 1 : 0);
    }
    // value = (sum_{k>=7} col[k] 2^(52(k-7))) / 2^20: normalize columns 7..15 into 52-bit limbs
    uint64_t r[9];
    {
        uint64_t carry = 0;
#pragma unroll
        for (int k = 7; k < 16; k++) {
            const uint64_t c = col[k] - bias[k] + carry;
            r[k - 7] = c & M52;
            carry = c >> 52;
        }
    }
    // result = (r >> 20) in 52-bit limbs r[0..8]; pack into 32-bit words, < 2p
#pragma unroll
    for (int i = 0; i < 12; i++) {
        const int bit = 20 + 32 * i, k = bit / 52, sh = bit % 52;
        uint64_t v = r[k] >> sh;
        if (k + 1 < 9) v |= r[k + 1] << (52 - sh);
        w[i] = (uint32_t)v;
    }
    w[12] = w[13] = 0;
}
__device__ __forceinline__ FqD mul(const FqD& a, const FqD& b) {
    uint32_t w[14];
    mul_core(a.l, b.l, w);
    return FqD::reduce_once(w);
}
}  // namespace f52

template <int kMode>  // 0: mont32, 1: f52, 2: one chain each
__global__ void k_chain(FqD* v, int n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    FqD x = v[i], y = v[i] + v[i];
    FqD z = y + x, w = x;
    for (int k = 0; k < n; k++) {
        if constexpr (kMode == 0) x = x * y;
        if constexpr (kMode == 1) x = f52::mul(x, y);
        if constexpr (kMode == 2) { x = x * y; z = f52::mul(z, w); }
        if constexpr (kMode == 3) { x = f52::mul(x, y); z = f52::mul(z, w); }
    }
    if constexpr (kMode >= 2) x = x + z;
    v[i] = x;
}
__global__ void k_check(const FqD* a, const FqD* b, FqD* o52, FqD* o32, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    o52[i] = f52::mul(a[i], b[i]);
    o32[i] = a[i] * b[i];
}

// Do the pipes overlap? Independent chains of two instruction kinds in one thread (8 of each per iteration).
constexpr int ITER = 4096;
template <int kMix>  // bit 0: DFMA, bit 1: IMAD.WIDE.U32, bit 2: IADD3 (64-bit adds)
__global__ void k_pipes(uint64_t* out, uint32_t b) {
    double d[8];
    uint64_t w[8], s[8];
    for (int j = 0; j < 8; j++) { d[j] = threadIdx.x + j; w[j] = threadIdx.x * 7 + j; s[j] = threadIdx.x * 3 + j; }
    for (int i = 0; i < ITER; i++) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            if constexpr (kMix & 1) d[j] = fma(d[j], 1.0000001, 0.5);
            if constexpr (kMix & 2)
                asm volatile("{.reg .u32 t; cvt.u32.u64 t, %0; mad.wide.u32 %0, t, %1, %0;}" : "+l"(w[j]) : "r"(b));
            if constexpr (kMix & 4) asm volatile("add.u64 %0, %0, %1;" : "+l"(s[j]) : "l"(w[j] + j));
        }
    }
    uint64_t r = 0;
    for (int j = 0; j < 8; j++) r ^= (uint64_t)d[j] ^ w[j] ^ s[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}

// The host run of mul_core against the CPU field on random and edge inputs (also inputs in [p, 2p)).
static int host_check(int n) {
    using cuzk::Fq;
    uint64_t s = 0x9e3779b97f4a7c15ULL;
    auto rng = [&] { return s = s * 6364136223846793005ULL + 1442695040888963407ULL; };
    static_assert(sizeof(Fq) == 48);
    auto words = [](const Fq& x, uint32_t (&w)[12]) { std::memcpy(w, &x, 48); };
    auto add_p = [](uint32_t (&w)[12]) {  // w + p (w < p): an input in [p, 2p)
        uint64_t c = 0;
        for (int i = 0; i < 12; i++) {
            const uint64_t pi = (uint32_t)(f52::Cpu::P[i / 2] >> (32 * (i % 2)));
            c += (uint64_t)w[i] + pi;
            w[i] = (uint32_t)c;
            c >>= 32;
        }
    };
    int bad = 0;
    for (int k = 0; k < n; k++) {
        Fq a = Fq::random(rng), b = Fq::random(rng);
        if (k == 0) a = Fq::zero();
        if (k == 1) a = b = -Fq::one();
        if (k == 2) a = Fq::one();
        uint32_t wa[12], wb[12], w[14], want[12];
        words(a, wa);
        words(b, wb);
        if (k % 3 == 1) add_p(wa);
        if (k % 5 == 1) add_p(wb);
        f52::mul_core(wa, wb, w);
        // reduce once against p
        uint32_t d[12];
        int64_t br = 0;
        for (int i = 0; i < 12; i++) {
            const int64_t pi = (uint32_t)(f52::Cpu::P[i / 2] >> (32 * (i % 2)));
            const int64_t v = (int64_t)w[i] - pi + br;
            d[i] = (uint32_t)v;
            br = v < 0 ? -1 : 0;
        }
        const bool keep = br + (int64_t)w[12] < 0;
        words(a * b, want);
        for (int i = 0; i < 12; i++)
            if ((keep ? w[i] : d[i]) != want[i]) {
                if (bad < 3) printf("host: product %d differs at limb %d\n", k, i);
                bad++;
                break;
            }
    }
    printf("host check of %d products: %s\n", n, bad ? "DIFFER" : "EQUAL");
    return bad;
}

int main(int argc, char** argv) {
    if (host_check(1 << 14)) return 1;
    if (argc > 1 && std::string(argv[1]) == "--host-only") return 0;
    cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
    int clk = 0; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
    double ghz = clk / 1e6; int sms = p.multiProcessorCount;
    printf("%s SMs %d clock %.3f GHz\n", p.name, sms, ghz);
    auto rep = [&](const char* name, float ms, double ops) {
        double gops = ops / (ms * 1e-3) / 1e9;
        printf("%-34s %8.3f ms  %7.2f G/s  %6.2f clk/op/SM\n", name, ms, gops, ghz * sms / gops);
    };
    {
        const int n = 1 << 16;
        std::vector<cuzk::Fq> ha(n), hb(n);
        uint64_t s = 0x1234567;
        auto rng = [&] { return s = s * 6364136223846793005ULL + 1442695040888963407ULL; };
        for (auto& x : ha) x = cuzk::Fq::random(rng);
        for (auto& x : hb) x = cuzk::Fq::random(rng);
        ha[0] = cuzk::Fq::zero(); hb[1] = cuzk::Fq::zero(); ha[2] = -cuzk::Fq::one(); hb[2] = -cuzk::Fq::one();
        ha[3] = cuzk::Fq::one(); hb[4] = cuzk::Fq::one(); ha[5] = hb[5] = -cuzk::Fq::one();
        FqD *da, *db, *o1, *o2;
        cudaMalloc(&da, n * 48); cudaMalloc(&db, n * 48); cudaMalloc(&o1, n * 48); cudaMalloc(&o2, n * 48);
        cudaMemcpy(da, ha.data(), n * 48, cudaMemcpyHostToDevice);
        cudaMemcpy(db, hb.data(), n * 48, cudaMemcpyHostToDevice);
        k_check<<<n / 256, 256>>>(da, db, o1, o2, n);
        if (cudaDeviceSynchronize() != cudaSuccess) { printf("device: %s\n", cudaGetErrorString(cudaGetLastError())); return 1; }
        std::vector<uint32_t> r1(n * 12), r2(n * 12);
        cudaMemcpy(r1.data(), o1, n * 48, cudaMemcpyDeviceToHost);
        cudaMemcpy(r2.data(), o2, n * 48, cudaMemcpyDeviceToHost);
        int bad = 0;
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 12; k++)
                if (r1[i * 12 + k] != r2[i * 12 + k]) { if (bad < 3) printf("differ at %d limb %d\n", i, k); bad++; break; }
        printf("check f52 vs mont32 on %d products: %s (%d differ)\n", n, bad ? "DIFFER" : "EQUAL", bad);
    }
    {
        const int blocks = sms * 8, threads = 256;
        uint64_t* buf;
        cudaMalloc(&buf, (size_t)blocks * threads * 8);
        const double n8 = (double)blocks * threads * ITER * 8;
        auto pr = [&](const char* name, float ms) {
            printf("%-34s %8.3f ms  %6.1f chain-steps /clk/SM\n", name, ms, n8 / (ms * 1e-3) / (ghz * 1e9 * sms));
        };
        pr("DFMA", timeit([&] { k_pipes<1><<<blocks, threads>>>(buf, 12345); }));
        pr("IMAD.WIDE", timeit([&] { k_pipes<2><<<blocks, threads>>>(buf, 12345); }));
        pr("DFMA + IMAD.WIDE (per pair)", timeit([&] { k_pipes<3><<<blocks, threads>>>(buf, 12345); }));
        pr("64-bit add", timeit([&] { k_pipes<4><<<blocks, threads>>>(buf, 12345); }));
        pr("DFMA + 64-bit add (per pair)", timeit([&] { k_pipes<5><<<blocks, threads>>>(buf, 12345); }));
        pr("IMAD.WIDE + 64-bit add", timeit([&] { k_pipes<6><<<blocks, threads>>>(buf, 12345); }));
        pr("all three (per triple)", timeit([&] { k_pipes<7><<<blocks, threads>>>(buf, 12345); }));
        cudaFree(buf);
    }
    const size_t nt = (size_t)sms * 2048 * 4;
    FqD* v; cudaMalloc(&v, nt * sizeof(FqD)); cudaMemset(v, 1, nt * sizeof(FqD));
    for (int bs : {64, 128, 256}) {
        printf("block %d\n", bs);
        rep("mont32 1 chain", timeit([&] { k_chain<0><<<nt / bs, bs>>>(v, 256); }), (double)nt * 256);
        rep("f52 1 chain", timeit([&] { k_chain<1><<<nt / bs, bs>>>(v, 256); }), (double)nt * 256);
        rep("mont32 + f52 chains", timeit([&] { k_chain<2><<<nt / bs, bs>>>(v, 128); }), (double)nt * 256);
        rep("f52 2 chains", timeit([&] { k_chain<3><<<nt / bs, bs>>>(v, 128); }), (double)nt * 256);
    }
    cudaFuncAttributes fa;
    for (auto [name, f] : {std::pair{"mont32", (const void*)k_chain<0>}, {"f52", (const void*)k_chain<1>},
                           {"mix", (const void*)k_chain<2>}, {"f52x2", (const void*)k_chain<3>}}) {
        cudaFuncGetAttributes(&fa, f);
        printf("%s regs %d local %zu\n", name, fa.numRegs, fa.localSizeBytes);
    }
    return 0;
}
