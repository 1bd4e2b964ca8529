// mont32_t's two Fq/Fr products side by side: CIOS on two accumulators (mul_rshift) and one level of subtractive
// Karatsuba for the product part (mul_karatsuba: 3 H^2 + N^2 wide multiplies against 2 N^2, the rest integer
// adds on another pipe; Fq 252 against 288, Fr 112 against 128). Does trading IMAD.WIDE (the H200's bound: ~29 per
// clock per SM, half the 32-bit IMAD rate) for adds make the product faster? A measurement program, not part of
// the build (CMake compiles it to PTX with both variants on, to keep them building). Built with
// -DCUZK_MONT32_LOW01=1, Fr's CIOS product takes its reduction rows by p_0 and p_1 from adds (scripts/gpu-field-ab.sh
// builds it both ways):
//   nvcc -std=c++20 --expt-relaxed-constexpr -O3 -arch=sm_90 -I src -o mont_karatsuba bench/experiments/mont_karatsuba.cu
//   ./mont_karatsuba
// Checked first: Karatsuba == CIOS on random and edge inputs (also inputs in [p, 2p) for Fq, whose product accepts
// them), mont32_t's operator* and square == the CPU field (inputs below p); then timed in dependent chains.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_runtime.h>
#include "cuzk/ff/fq.hpp"
#include "cuzk/ff/fr.hpp"
#include "cuzk/gpu/mont32.cuh"
#include "event_timing.cuh"

using namespace cuzk::gpu;

// 0: mont32_t's CIOS product (mul_rshift; for Fr with kLow01's rows when built with -DCUZK_MONT32_LOW01=1);
// 1: mont32_t's Karatsuba product (mul_karatsuba; operator* for Fq when built with -DCUZK_MONT32_KARATSUBA=1).
template <class F, int kMode>
__device__ __forceinline__ F prod(const F& a, const F& b) {
    if constexpr (kMode == 0) {
        uint32_t t[F::N + 2];
        F::mul_rshift(t, a, b);
        return F::reduce_once(t);
    } else {
        return F::mul_karatsuba(a, b);
    }
}
template <class F, int kMode>
__global__ void k_chain(F* v, int n, int chains) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    F x = v[i], y = v[i] + v[i];
    F z = y + x, w = x;
    if (chains == 1) {
        for (int k = 0; k < n; k++) x = prod<F, kMode>(x, y);
    } else {
        for (int k = 0; k < n; k++) {
            x = prod<F, kMode>(x, y);
            z = prod<F, kMode>(z, w);
        }
        x = x + z;
    }
    v[i] = x;
}
template <class F>
__global__ void k_check(const F* a, const F* b, F* ok, F* ref, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    ok[i] = prod<F, 1>(a[i], b[i]);
    ref[i] = prod<F, 0>(a[i], b[i]);
    ok[n + i] = a[i].square();  // mont32_t's square and product (below), checked against the CPU's
    ok[2 * n + i] = a[i] * b[i];
}

// Random and edge inputs (0, 1, p - 1; for a lazy field also values in [p, 2p): x + p), Karatsuba == mont32_t.
template <class Cfg>
int check(const char* name) {
    using Cpu = cuzk::MontField<Cfg>;
    using F = mont32_t<Cfg>;
    constexpr size_t W = F::N;
    const int n = 1 << 16;
    uint64_t s = 0x1234567;
    auto rng = [&] { return s = s * 6364136223846793005ULL + 1442695040888963407ULL; };
    std::vector<uint32_t> ha(n * W), hb(n * W);
    auto put = [&](std::vector<uint32_t>& v, int i, const Cpu& x, bool plus_p) {
        std::memcpy(&v[i * W], &x, W * 4);
        if (!plus_p) return;
        uint64_t c = 0;
        for (size_t k = 0; k < W; k++) {
            c += (uint64_t)v[i * W + k] + (uint32_t)(Cpu::P[k / 2] >> (32 * (k % 2)));
            v[i * W + k] = (uint32_t)c;
            c >>= 32;
        }
    };
    for (int i = 0; i < n; i++) {
        Cpu a = Cpu::random(rng), b = Cpu::random(rng);
        if (i % 97 == 0) a = Cpu::zero();
        if (i % 89 == 0) b = -Cpu::one();
        if (i % 83 == 0) a = -Cpu::one();
        if (i % 79 == 0) b = Cpu::one();
        put(ha, i, a, F::kLazy && i % 3 == 1);
        put(hb, i, b, F::kLazy && i % 5 == 1);
    }
    F *da, *db, *o1, *o2;
    cudaMalloc(&da, n * W * 4);
    cudaMalloc(&db, n * W * 4);
    cudaMalloc(&o1, 3 * n * W * 4);
    cudaMalloc(&o2, n * W * 4);
    cudaMemcpy(da, ha.data(), n * W * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(db, hb.data(), n * W * 4, cudaMemcpyHostToDevice);
    k_check<F><<<n / 256, 256>>>(da, db, o1, o2, n);
    if (cudaDeviceSynchronize() != cudaSuccess) {
        printf("device: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    std::vector<uint32_t> r1(3 * n * W), r2(n * W);
    cudaMemcpy(r1.data(), o1, 3 * n * W * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(r2.data(), o2, n * W * 4, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++) {
            if (F::kLazy && (i % 3 == 1 || i % 5 == 1)) continue;  // inputs in [p, 2p): not the CPU's domain
            Cpu a, b;
            std::memcpy(&a, &ha[i * W], W * 4);
            std::memcpy(&b, &hb[i * W], W * 4);
            const Cpu want = a * b, want_sq = a.square();
            if (std::memcmp(&r1[(2 * n + i) * W], &want, W * 4) || std::memcmp(&r1[(n + i) * W], &want_sq, W * 4)) {
                if (bad < 3) printf("%s: mont32 product or square %d differs from the CPU's\n", name, i);
                bad++;
            }
        }
    for (int i = 0; i < n; i++)
        if (std::memcmp(&r1[i * W], &r2[i * W], W * 4)) {
            if (bad < 3) printf("%s: product %d differs\n", name, i);
            bad++;
        }
    printf("%s: Karatsuba vs CIOS, operator* and square vs the CPU on %d products: %s (%d differ)\n", name, n, bad ? "DIFFER" : "EQUAL", bad);
    cudaFree(da), cudaFree(db), cudaFree(o1), cudaFree(o2);
    return bad;
}

template <class Cfg, int kMode>
void time_mode(const char* name, int sms, double ghz) {
    using F = mont32_t<Cfg>;
    const size_t nt = (size_t)sms * 2048 * 4;
    F* v;
    cudaMalloc(&v, nt * sizeof(F));
    cudaMemset(v, 1, nt * sizeof(F));
    const char* what[] = {"cios", "karatsuba"};
    for (int bs : {128, 256})
        for (int chains : {1, 2}) {
            const float ms = timeit([&] { k_chain<F, kMode><<<nt / bs, bs>>>(v, 256 / chains, chains); });
            const double g = nt * 256.0 / (ms * 1e-3) / 1e9;
            printf("%s %-18s %d chain(s) block %3d %8.3f ms %7.2f G/s %6.2f clk/op/SM\n", name, what[kMode], chains,
                   bs, ms, g, ghz * sms / g);
        }
    cudaFuncAttributes fa;
    cudaFuncGetAttributes(&fa, k_chain<F, kMode>);
    printf("%s %s regs %d local %zu\n", name, what[kMode], fa.numRegs, fa.localSizeBytes);
    cudaFree(v);
}

int main() {
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    int clk = 0;
    cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
    const double ghz = clk / 1e6;
    printf("%s SMs %d clock %.3f GHz\n", p.name, p.multiProcessorCount, ghz);
    int bad = check<cuzk::FqConfig>("Fq") + check<cuzk::FrConfig>("Fr");
    const int sms = p.multiProcessorCount;
    time_mode<cuzk::FqConfig, 0>("Fq", sms, ghz);
    time_mode<cuzk::FqConfig, 1>("Fq", sms, ghz);
    time_mode<cuzk::FrConfig, 0>("Fr", sms, ghz);
    time_mode<cuzk::FrConfig, 1>("Fr", sms, ghz);
    return bad ? 1 : 0;
}
