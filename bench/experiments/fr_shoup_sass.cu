// SASS of the Shoup prototype's pieces, one kernel each, for cuobjdump: which of them ptxas fuses into
// IMAD.WIDE.U32(.X). Compile only (docs/gpu-ntt-notes.md, forty-seventh session):
//   nvcc -std=c++20 --expt-relaxed-constexpr -O3 -arch=sm_90 -I src -I bench/experiments -cubin -o fr_shoup_sass.cubin \
//        bench/experiments/fr_shoup_sass.cu && cuobjdump -sass fr_shoup_sass.cubin
#include <cstdint>
#include "cuzk/ff/fr.hpp"
#include "cuzk/gpu/mont32.cuh"
#include "cuzk/gpu/shoup.cuh"
namespace shoup = cuzk::gpu::shoup;

using F = cuzk::gpu::mont32_t<cuzk::FrConfig>;

__device__ __forceinline__ void load8(const uint32_t* g, uint32_t (&v)[8]) {
#pragma unroll
    for (int k = 0; k < 8; k++) v[k] = g[threadIdx.x * 8 + k];
}
__device__ __forceinline__ void store8(uint32_t* g, const uint32_t (&v)[8]) {
#pragma unroll
    for (int k = 0; k < 8; k++) g[threadIdx.x * 8 + k] = v[k];
}
// the truncated high product (columns >= 6: 43 products)
__global__ void k_high6(const uint32_t* x, const uint32_t* y, uint32_t* o) {
    uint32_t a[8], b[8], r[8];
    load8(x, a), load8(y, b);
    shoup::high_product<8, 6>(a, b, r);
    store8(o, r);
}
// the exact high half by the same even/odd accumulators (64 products)
__global__ void k_high0(const uint32_t* x, const uint32_t* y, uint32_t* o) {
    uint32_t a[8], b[8], r[8];
    load8(x, a), load8(y, b);
    shoup::high_product<8, 0>(a, b, r);
    store8(o, r);
}
// the low half (28 products and 8 low halves)
__global__ void k_low(const uint32_t* x, const uint32_t* y, uint32_t* o) {
    uint32_t a[8], b[8], r[8];
    load8(x, a), load8(y, b);
    shoup::low_product<8>(a, b, r);
    store8(o, r);
}
// mont32's full product by rows (64 products), the reference pattern
__global__ void k_rows(const uint32_t* x, const uint32_t* y, uint32_t* o) {
    uint32_t a[8], b[8], r[16];
    load8(x, a), load8(y, b);
    F::product_rows<8>(a, b, r);
#pragma unroll
    for (int k = 0; k < 16; k++) o[threadIdx.x * 16 + k] = r[k];
}
// mont32's Montgomery product (128 + 8)
__global__ void k_mont(const uint32_t* x, const uint32_t* y, uint32_t* o) {
    F a, b;
    load8(x, a.l), load8(y, b.l);
    const F r = a * b;
    store8(o, r.l);
}
