// Shoup's product by a precomputed constant (fr_shoup.cuh) against mont32.cuh's Fr product by the same constant in
// Montgomery form, on the device: equality on random and edge inputs, then throughput in a dependent chain, in four
// independent chains per thread and in radix-2 butterflies (the NTT's use: (a + b, (a - b) w) with w from shared
// memory). A measurement program, not part of the build:
//   nvcc -std=c++20 --expt-relaxed-constexpr -O3 -arch=sm_90 -I src -I bench/experiments -o fr_shoup \
//        bench/experiments/fr_shoup.cu && ./fr_shoup
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include "cuzk/ff/fr.hpp"
#include "cuzk/gpu/mont32.cuh"
#include "event_timing.cuh"
#include "cuzk/gpu/shoup.cuh"
namespace shoup = cuzk::gpu::shoup;

using F = cuzk::gpu::mont32_t<cuzk::FrConfig>;
using cuzk::Fr;
constexpr size_t N = 8;
constexpr int kTable = 256;  // twiddles in shared memory

struct Tw {
    uint32_t W[kTable][N];   // w R mod p (Montgomery form, for mont32)
    uint32_t w[kTable][N];   // w (canonical, for Shoup)
    uint32_t wp[kTable][N];  // floor(w 2^256 / p)
};

__constant__ uint32_t c_p[N];

// p from constant memory, or (kImmP) as immediates as mont32.cuh's constants are.
struct PWords {
    uint32_t w[N];
};
constexpr PWords p_words_const() {
    PWords r{};
    for (size_t k = 0; k < N / 2; k++) {
        r.w[2 * k] = (uint32_t)cuzk::MontField<cuzk::FrConfig>::P[k];
        r.w[2 * k + 1] = (uint32_t)(cuzk::MontField<cuzk::FrConfig>::P[k] >> 32);
    }
    return r;
}
template <bool kImmP = false>
__device__ __forceinline__ F shoup_mul(const F& a, const uint32_t* w, const uint32_t* wp) {
    uint32_t p[N];
    if constexpr (kImmP) {
        constexpr PWords c = p_words_const();
#pragma unroll
        for (size_t k = 0; k < N; k++) p[k] = c.w[k];
    } else {
#pragma unroll
        for (size_t k = 0; k < N; k++) p[k] = c_p[k];
    }
    F r;
    shoup::mul_shoup<N>(a.l, w, wp, p, r.l);
    return r;
}
// p in registers the compiler cannot fold (loaded from shared memory once a thread): kMode 3.
__device__ __forceinline__ F shoup_mul_preg(const F& a, const uint32_t* w, const uint32_t* wp, const uint32_t (&p)[N]) {
    F r;
    shoup::mul_shoup<N>(a.l, w, wp, p, r.l);
    return r;
}

__global__ void k_check(const F* a, const Tw* tw, const int* idx, F* o_mont, F* o_shoup, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int t = idx[i];
    F W;
    for (size_t k = 0; k < N; k++) W.l[k] = tw->W[t][k];
    o_mont[i] = a[i] * W;
    o_shoup[i] = shoup_mul(a[i], tw->w[t], tw->wp[t]);
}

// A block's twiddles in shared memory (the Montgomery ones for kMode 0, the Shoup pairs otherwise) and p.
template <int kMode>
struct TwSmem {
    uint32_t W[kMode == 0 ? kTable : 1][N], w[kMode != 0 ? kTable : 1][N], wp[kMode != 0 ? kTable : 1][N], p[N];
};
// Fills sm from g, then p into registers the compiler cannot fold (kMode 3's operand).
template <int kMode>
__device__ void stage(TwSmem<kMode>& sm, const Tw* g, uint32_t (&preg)[N]) {
    for (int e = threadIdx.x; e < kTable * (int)N; e += blockDim.x) {
        if (kMode == 0) sm.W[e / N][e % N] = g->W[e / N][e % N];
        else {
            sm.w[e / N][e % N] = g->w[e / N][e % N];
            sm.wp[e / N][e % N] = g->wp[e / N][e % N];
        }
    }
    if (threadIdx.x < N) sm.p[threadIdx.x] = c_p[threadIdx.x];
    __syncthreads();
#pragma unroll
    for (size_t k = 0; k < N; k++) preg[k] = sm.p[k];
}
// A thread's c-th starting value (below 2^254 < p).
__device__ F start_value(int tid, int c) {
    F x;
    for (size_t k = 0; k < N; k++) x.l[k] = (uint32_t)(tid * 2654435761u + c * 40503u + k) & (k == N - 1 ? 0x3fffffffu : ~0u);
    return x;
}
// x * the twiddle of index t in mode kMode.
template <int kMode>
__device__ __forceinline__ F times(const F& x, const TwSmem<kMode>& sm, int t, const uint32_t (&preg)[N]) {
    if constexpr (kMode == 0) {
        F W;
#pragma unroll
        for (size_t k = 0; k < N; k++) W.l[k] = sm.W[t][k];
        return x * W;
    } else if constexpr (kMode == 3) {
        return shoup_mul_preg(x, sm.w[t], sm.wp[t], preg);
    } else {
        return shoup_mul<kMode == 2>(x, sm.w[t], sm.wp[t]);
    }
}

// kMode 0: mont32, 1: Shoup, 2: Shoup with p as immediates, 3: Shoup with p in registers. kChains independent
// values per thread, iters products each.
template <int kMode, int kChains>
__global__ void __launch_bounds__(256) k_chain(const Tw* g_tw, F* out, int iters) {
    __shared__ TwSmem<kMode> sm;
    uint32_t preg[N];
    stage(sm, g_tw, preg);
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    F x[kChains];
    for (int c = 0; c < kChains; c++) x[c] = start_value(tid, c);
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int c = 0; c < kChains; c++) x[c] = times<kMode>(x[c], sm, (tid + it * 7 + c * 13) & (kTable - 1), preg);
    }
    F s = x[0];
    for (int c = 1; c < kChains; c++) s = s + x[c];
    out[tid] = s;
}

// Radix-2 butterflies on 8 values per thread: three levels a round, (a + b, (a - b) w), 12 products a round.
template <int kMode>
__global__ void __launch_bounds__(256) k_butterfly(const Tw* g_tw, F* out, int rounds) {
    __shared__ TwSmem<kMode> sm;
    uint32_t preg[N];
    stage(sm, g_tw, preg);
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    F x[8];
    for (int c = 0; c < 8; c++) x[c] = start_value(tid, c);
    for (int r = 0; r < rounds; r++) {
#pragma unroll
        for (int h = 4; h >= 1; h /= 2) {
#pragma unroll
            for (int j = 0; j < 8; j++) {
                if (j & h) continue;
                const F a = x[j], b = x[j + h];
                x[j] = a + b;
                x[j + h] = times<kMode>(a - b, sm, (tid + r * 5 + j * 3 + h) & (kTable - 1), preg);
            }
        }
    }
    F s = x[0];
    for (int c = 1; c < 8; c++) s = s + x[c];
    out[tid] = s;
}

int main() {
    int dev = 0;
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, dev);
    std::printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
    uint32_t p[N];
    std::memcpy(p, cuzk::MontField<cuzk::FrConfig>::P.data(), sizeof p);
    cudaMemcpyToSymbol(c_p, p, sizeof p);
    uint64_t s = 0x51f7e3a5d1c2b4a9ULL;
    std::printf("seed 0x51f7e3a5d1c2b4a9\n");
    auto rng = [&] { return s = s * 6364136223846793005ULL + 1442695040888963407ULL; };
    // twiddles: random w (and 0, 1, p - 1)
    std::vector<Tw> htw(1);
    for (int t = 0; t < kTable; t++) {
        Fr w = Fr::random(rng);
        if (t == 0) w = Fr::zero();
        if (t == 1) w = Fr::one();
        if (t == 2) w = -Fr::one();
        const auto wl = w.to_canonical();
        std::memcpy(htw[0].w[t], &wl, 32);
        std::memcpy(htw[0].W[t], &w.l, 32);
        shoup::quotient<N>(htw[0].w[t], p, htw[0].wp[t]);
    }
    Tw* dtw;
    cudaMalloc(&dtw, sizeof(Tw));
    cudaMemcpy(dtw, htw.data(), sizeof(Tw), cudaMemcpyHostToDevice);
    // equality: 2^16 inputs below 2p
    const int n = 1 << 16;
    std::vector<F> ha(n);
    std::vector<int> hi(n);
    for (int i = 0; i < n; i++) {
        Fr a = Fr::random(rng);
        if (i % 97 == 0) a = Fr::zero();
        if (i % 89 == 0) a = -Fr::one();
        std::memcpy(ha[i].l, &a.l, 32);
        hi[i] = (int)(rng() % kTable);
    }
    F *da, *om, *os;
    int* di;
    cudaMalloc(&da, n * sizeof(F));
    cudaMalloc(&om, n * sizeof(F));
    cudaMalloc(&os, n * sizeof(F));
    cudaMalloc(&di, n * sizeof(int));
    cudaMemcpy(da, ha.data(), n * sizeof(F), cudaMemcpyHostToDevice);
    cudaMemcpy(di, hi.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    k_check<<<n / 256, 256>>>(da, dtw, di, om, os, n);
    if (cudaDeviceSynchronize() != cudaSuccess) {
        std::printf("device: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    std::vector<F> hm(n), hs(n);
    cudaMemcpy(hm.data(), om, n * sizeof(F), cudaMemcpyDeviceToHost);
    cudaMemcpy(hs.data(), os, n * sizeof(F), cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        Fr a, W;
        std::memcpy(&a.l, ha[i].l, 32);
        std::memcpy(&W.l, htw[0].W[hi[i]], 32);
        const Fr want = a * W;
        if (std::memcmp(hm[i].l, &want.l, 32) || std::memcmp(hs[i].l, &want.l, 32)) {
            if (bad < 3) std::printf("product %d differs\n", i);
            bad++;
        }
    }
    std::printf("device: Shoup and mont32 vs the CPU on %d products: %s (%d differ)\n", n, bad ? "DIFFER" : "EQUAL", bad);
    // throughput
    const int blocks = prop.multiProcessorCount * 32, threads = 256;  // 1,081,344 threads on 132 SMs
    F* out;
    cudaMalloc(&out, (size_t)blocks * threads * sizeof(F));
    const double tot = (double)blocks * threads;
    auto report = [&](const char* what, float ms, double products) {
        std::printf("%-44s %8.3f ms  %6.1f G products/s\n", what, ms, products / (ms * 1e6));
    };
    for (int rep = 0; rep < 2; rep++) {
        const int iters = 256;
        report("mont32, 1 chain", timeit([&] { k_chain<0, 1><<<blocks, threads>>>(dtw, out, iters); }), tot * iters);
        report("shoup,  1 chain", timeit([&] { k_chain<1, 1><<<blocks, threads>>>(dtw, out, iters); }), tot * iters);
        report("mont32, 4 chains", timeit([&] { k_chain<0, 4><<<blocks, threads>>>(dtw, out, iters / 4); }), tot * iters);
        report("shoup,  4 chains", timeit([&] { k_chain<1, 4><<<blocks, threads>>>(dtw, out, iters / 4); }), tot * iters);
        const int rounds = 24;
        report("mont32, butterflies (8 values, 12 a round)", timeit([&] { k_butterfly<0><<<blocks, threads>>>(dtw, out, rounds); }),
               tot * rounds * 12);
        report("shoup imm p, 1 chain", timeit([&] { k_chain<2, 1><<<blocks, threads>>>(dtw, out, iters); }), tot * iters);
        report("shoup imm p, butterflies", timeit([&] { k_butterfly<2><<<blocks, threads>>>(dtw, out, rounds); }),
               tot * rounds * 12);
        report("shoup p in registers, 1 chain", timeit([&] { k_chain<3, 1><<<blocks, threads>>>(dtw, out, iters); }), tot * iters);
        report("shoup p in registers, 4 chains", timeit([&] { k_chain<3, 4><<<blocks, threads>>>(dtw, out, iters / 4); }), tot * iters);
        report("shoup p in registers, butterflies", timeit([&] { k_butterfly<3><<<blocks, threads>>>(dtw, out, rounds); }),
               tot * rounds * 12);
        report("shoup,  butterflies (8 values, 12 a round)", timeit([&] { k_butterfly<1><<<blocks, threads>>>(dtw, out, rounds); }),
               tot * rounds * 12);
    }
    return bad != 0;
}
