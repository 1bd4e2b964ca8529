// What the tensor cores and the warp shuffle would give a field product's Montgomery reduction on the GPU: the issue
// rate of int8 mma.sync (m16n8k32, u8 x u8 -> s32), of warp shuffles, and of each beside integer multiply-adds (the
// loops' mad.wide.u32 on a 64-bit accumulator fed by its own low word: ptxas lowers most of them to IMAD / IMAD.HI
// pairs, so this is the integer-multiply pipe but not IMAD.WIDE.U32's own rate, which field_limits.cu measures).
// A measurement program, not part of the build:
//   nvcc -std=c++20 -O3 -arch=sm_90 -o tensor_limits bench/experiments/tensor_limits.cu && ./tensor_limits
// Figures (H200) and what they mean: docs/gpu-msm-notes.md, "Tensor cores for the reduction: the issue rates".
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>
#include "event_timing.cuh"

constexpr int ITER = 4096;

// One m16n8k32 MMA: A 4 regs (16x32 u8), B 2 regs (32x8 u8), C/D 4 regs (16x8 s32).
__device__ __forceinline__ void mma_u8(int (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// kChains independent accumulators per warp; kWide wide multiply-adds per MMA beside them (0: MMAs alone).
template <int kChains, int kWide>
__global__ void k_mma(int* out, uint32_t seed) {
    uint32_t a[4], b[2];
    for (int i = 0; i < 4; i++) a[i] = seed * (threadIdx.x + i);
    for (int i = 0; i < 2; i++) b[i] = seed ^ (threadIdx.x * 7 + i);
    int d[kChains][4] = {};
    uint64_t w[8];
    for (int j = 0; j < 8; j++) w[j] = threadIdx.x + j;
    for (int it = 0; it < ITER; it++) {
#pragma unroll
        for (int c = 0; c < kChains; c++) {
            mma_u8(d[c], a, b);
#pragma unroll
            for (int k = 0; k < kWide; k++) {
                uint64_t& x = w[(c * kWide + k) % 8];
                asm volatile("mad.wide.u32 %0, %1, %2, %0;" : "+l"(x) : "r"((uint32_t)x), "r"(seed));
            }
        }
    }
    int s = 0;
    for (int c = 0; c < kChains; c++) s += d[c][0] + d[c][1] + d[c][2] + d[c][3];
    for (int j = 0; j < 8; j++) s += (int)w[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// kWide wide multiply-adds alone (8 independent chains), the reference for the pair above.
template <int kWide>
__global__ void k_wide(int* out, uint32_t seed) {
    uint64_t w[8];
    for (int j = 0; j < 8; j++) w[j] = threadIdx.x + j;
    for (int it = 0; it < ITER; it++) {
#pragma unroll
        for (int k = 0; k < kWide; k++) {
            uint64_t& x = w[k % 8];
            asm volatile("mad.wide.u32 %0, %1, %2, %0;" : "+l"(x) : "r"((uint32_t)x), "r"(seed));
        }
    }
    int s = 0;
    for (int j = 0; j < 8; j++) s += (int)w[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// 8 independent shuffle chains per thread; kWide wide multiply-adds per shuffle beside them.
template <int kWide>
__global__ void k_shfl(int* out, uint32_t seed) {
    uint32_t v[8];
    uint64_t w[8];
    for (int j = 0; j < 8; j++) { v[j] = threadIdx.x * seed + j; w[j] = threadIdx.x + j; }
    for (int it = 0; it < ITER; it++) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            v[j] = __shfl_xor_sync(0xffffffffu, v[j], 1 + (j & 3));
#pragma unroll
            for (int k = 0; k < kWide; k++) {
                uint64_t& x = w[(j * kWide + k) % 8];
                asm volatile("mad.wide.u32 %0, %1, %2, %0;" : "+l"(x) : "r"((uint32_t)x), "r"(seed));
            }
        }
    }
    int s = 0;
    for (int j = 0; j < 8; j++) s += (int)(v[j] + w[j]);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

int main() {
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    int clk = 0;
    cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
    const double ghz = clk / 1e6;
    const int sms = p.multiProcessorCount;
    printf("%s SMs %d clock %.3f GHz\n", p.name, sms, ghz);
    const int threads = 256;
    int* buf;
    cudaMalloc(&buf, (size_t)sms * 16 * threads * sizeof(int));
    // per clock per SM: warp-level MMAs, thread-level shuffles and wide multiply-adds
    auto rate = [&](float ms, double ops) { return ops / (ms * 1e-3) / (ghz * 1e9 * sms); };
    for (int bps : {2, 4, 8}) {
        const int blocks = sms * bps;
        const double warps = (double)blocks * threads / 32, thr = (double)blocks * threads;
        printf("-- %d blocks of %d per SM\n", bps, threads);
        float ms = timeit([&] { k_mma<4, 0><<<blocks, threads>>>(buf, 12345); });
        printf("mma m16n8k32 u8, 4 chains        %8.3f ms  %6.3f MMA/clk/SM  (%5.0f MAC/clk/SM)\n", ms,
               rate(ms, warps * ITER * 4), rate(ms, warps * ITER * 4) * 4096);
        ms = timeit([&] { k_mma<8, 0><<<blocks, threads>>>(buf, 12345); });
        printf("mma m16n8k32 u8, 8 chains        %8.3f ms  %6.3f MMA/clk/SM  (%5.0f MAC/clk/SM)\n", ms,
               rate(ms, warps * ITER * 8), rate(ms, warps * ITER * 8) * 4096);
        ms = timeit([&] { k_wide<16><<<blocks, threads>>>(buf, 12345); });
        printf("mad.wide.u32 alone               %8.3f ms  %6.1f /clk/SM\n", ms, rate(ms, thr * ITER * 16));
        for (int kw : {4, 8, 16}) {
            ms = kw == 4 ? timeit([&] { k_mma<4, 4><<<blocks, threads>>>(buf, 12345); })
               : kw == 8 ? timeit([&] { k_mma<4, 8><<<blocks, threads>>>(buf, 12345); })
                         : timeit([&] { k_mma<4, 16><<<blocks, threads>>>(buf, 12345); });
            const float alone_w = timeit([&] {
                if (kw == 4) k_wide<16><<<blocks, threads>>>(buf, 12345);
                else if (kw == 8) k_wide<32><<<blocks, threads>>>(buf, 12345);
                else k_wide<64><<<blocks, threads>>>(buf, 12345);
            });
            const float alone_m = timeit([&] { k_mma<4, 0><<<blocks, threads>>>(buf, 12345); });
            printf("mma + %2d mad.wide each           %8.3f ms  (alone: mma %.3f + wide %.3f = %.3f ms)\n", kw, ms,
                   alone_m, alone_w, alone_m + alone_w);
        }
        ms = timeit([&] { k_shfl<0><<<blocks, threads>>>(buf, 12345); });
        printf("shfl.xor, 8 chains               %8.3f ms  %6.1f /clk/SM (threads)\n", ms, rate(ms, thr * ITER * 8));
        const float sh4 = timeit([&] { k_shfl<4><<<blocks, threads>>>(buf, 12345); });
        const float w32 = timeit([&] { k_wide<32><<<blocks, threads>>>(buf, 12345); });
        printf("shfl + 4 mad.wide each           %8.3f ms  (alone: shfl %.3f + wide %.3f = %.3f ms)\n", sh4, ms, w32,
               ms + w32);
    }
    cudaFuncAttributes fa;
    cudaFuncGetAttributes(&fa, k_mma<8, 0>);
    printf("k_mma<8,0> regs %d\n", fa.numRegs);
    return 0;
}
