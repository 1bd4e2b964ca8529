// The G2 bucket accumulation with one Fq2 component a lane (lanes 2k, 2k + 1 hold c0 and c1 of every value of
// one point's addition; a product swaps both operands' other halves by shuffles and each lane forms its component
// by one mont32_t::mul_sub: re = a0 b0 - a1 b1, im = a0 b1 - (-a1) b0), against the MSM's accumulate_chunks over
// fq2_dev_t (one thread a point, the lazy Fq2 product), on the same sorted runs: 2^24 entries in chunks of 32, one
// run a chunk, bases 2^20 random Fq2 pairs (not curve points: both kernels run the same formulas, so their sums
// must be equal word for word). A measurement program, not part of the build:
//   nvcc -std=c++20 --expt-relaxed-constexpr --extended-lambda -O3 -arch=sm_90 -I src -o fq2_lanes \
//     bench/experiments/fq2_lanes.cu && ./fq2_lanes
// ptxas (CUDA 13.0, sm_90): the lane kernel 220 registers uncapped without spills, 168 at 3 blocks of 128 with
// 4 bytes spilled; accumulate_chunks over fq2_dev_t 255 with 618 / 956 bytes (docs/gpu-msm-notes.md).
// H100, 2026-12-05 (the version without the merge part): one thread a point 19.16-19.18 ms, a component a lane
// 22.73-22.77 ms at 3 blocks, 24.49-24.51 uncapped; the lane kernel's sums did not match (not pursued: a wrong
// branch could only have made it cheaper, and it is slower by its 19 % of extra products). The merge part below
// (the accumulation span's other launches), H200: accumulate_chunks 18.88-18.90 ms, with the merge tree 22.25-22.27;
// the line with the walks (join_runs) is built, not yet run.
#include <cstdio>
#include <random>
#include <vector>

#include "event_timing.cuh"
#include "cuzk/gpu/msm_impl.cuh"
namespace cuzk::gpu {
using Fq32 = mont32_t<FqConfig>;
__device__ __noinline__ Fq32 mul_sub_ool(Fq32 a, Fq32 b, Fq32 c, Fq32 d) { return Fq32::mul_sub(a, b, c, d); }
__device__ __noinline__ Fq32 mul_ool(Fq32 a, Fq32 b) { return a * b; }
__device__ __forceinline__ unsigned lane_id() { unsigned l; asm("mov.u32 %0, %%laneid;" : "=r"(l)); return l; }
__device__ __forceinline__ unsigned pair_mask() { return 3u << (lane_id() & 30); }
__device__ __forceinline__ bool odd_lane() { return lane_id() & 1; }
__device__ __forceinline__ Fq32 other(const Fq32& v) { Fq32 r; for (int i = 0; i < 12; i++) r.l[i] = __shfl_xor_sync(pair_mask(), v.l[i], 1); return r; }
struct fq2_lane {
    Fq32 v;
    __device__ static fq2_lane zero() { return {Fq32::zero()}; }
    __device__ static fq2_lane one() { return {odd_lane() ? Fq32::zero() : Fq32::one()}; }
    __device__ bool is_zero() const { const bool z = v.is_zero(); return z && __shfl_xor_sync(pair_mask(), (int)z, 1); }
    __device__ friend fq2_lane operator+(const fq2_lane& a, const fq2_lane& b) { return {a.v + b.v}; }
    __device__ friend fq2_lane operator-(const fq2_lane& a, const fq2_lane& b) { return {a.v - b.v}; }
    __device__ fq2_lane operator-() const { return {-v}; }
    __device__ fq2_lane dbl() const { return {v + v}; }
    __device__ static fq2_lane add_lazy(const fq2_lane& a, const fq2_lane& b) { return a + b; }
    __device__ friend fq2_lane operator*(const fq2_lane& a, const fq2_lane& b) {
        const bool o = odd_lane();
        const Fq32 ao = other(a.v), bo = other(b.v);
        return {mul_sub_ool(o ? ao : a.v, b.v, o ? -a.v : ao, bo)};
    }
    __device__ fq2_lane square() const {
        const bool o = odd_lane();
        const Fq32 vo = other(v);
        return {mul_ool(o ? vo : Fq32::add_lazy(v, vo), o ? v + v : v - vo)};
    }
    __device__ static void mul2(fq2_lane& r0, fq2_lane& r1, const fq2_lane& a, const fq2_lane& b, const fq2_lane& c, const fq2_lane& d) { r0 = a * b; r1 = c * d; }
    __device__ static void sqr2(fq2_lane& r0, fq2_lane& r1, const fq2_lane& a, const fq2_lane& b) { r0 = a.square(); r1 = b.square(); }
};
// Run `cur`'s sum in the layout of Xyzz<fq2_dev_t> (X.c0, X.c1, Y.c0, ...): each lane its components.
__device__ void store(Fq32* out, uint32_t cur, unsigned par, const Xyzz<fq2_lane>& a) {
    Fq32* o = out + 8 * (size_t)cur + par;
    o[0] = a.X.v;
    o[2] = a.Y.v;
    o[4] = a.ZZ.v;
    o[6] = a.ZZZ.v;
}
template <int MinBlocks>
__global__ void __launch_bounds__(128, MinBlocks) acc_lanes(const BaseDev<fq2_dev_t>* __restrict__ bases, const uint32_t* __restrict__ keys,
                               const uint32_t* __restrict__ vals, size_t count, uint32_t L, uint32_t sentinel,
                               uint32_t num_chunks, Fq32* __restrict__ out) {
    const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x, t = g >> 1;
    const unsigned par = g & 1;
    if (t >= num_chunks) return;
    const size_t b = (size_t)t * L, e = b + L < count ? b + L : count;
    uint32_t cur = keys[b];
    if (cur == sentinel) return;
    auto load = [&](uint32_t v, fq2_lane& x, fq2_lane& y) {
        const Fq32* p = reinterpret_cast<const Fq32*>(bases + (v >> 1));
        x.v = p[par]; y.v = p[2 + par]; if (v & 1) y = -y;
    };
    Xyzz<fq2_lane> acc;
    fq2_lane x, y;
    load(vals[b], x, y);
    acc.X = x; acc.Y = y; acc.ZZ = fq2_lane::one(); acc.ZZZ = fq2_lane::one();
    for (size_t i = b + 1; i < e; i++) {
        const uint32_t k = keys[i];
        if (k == sentinel) break;
        load(vals[i], x, y);
        if (k != cur) {
            store(out, cur, par, acc);
            cur = k;
            acc.X = x;
            acc.Y = y;
            acc.ZZ = fq2_lane::one();
            acc.ZZZ = fq2_lane::one();
        } else {
            add_affine(acc, x, y);
        }
    }
    store(out, cur, par, acc);
}
}  // namespace cuzk::gpu

using namespace cuzk;
using namespace cuzk::gpu;

int main() {
    constexpr size_t kBases = size_t(1) << 20, kEntries = size_t(1) << 24;
    constexpr uint32_t kL = 32, kChunks = kEntries / kL;
    std::mt19937_64 rng(20261205);
    std::printf("seed 20261205\n");
    std::vector<BaseDev<fq2_dev_t>> bases(kBases);
    {
        // Random words below p: the top word below p's top word.
        using Cpu = MontField<FqConfig>;
        auto* w = reinterpret_cast<uint64_t*>(bases.data());
        for (size_t i = 0; i < kBases * 4 * 6; i++) w[i] = i % 6 == 5 ? rng() % Cpu::P[5] : rng();
    }
    std::vector<uint32_t> keys(kEntries), vals(kEntries);
    for (size_t i = 0; i < kEntries; i++) {
        keys[i] = (uint32_t)(i / kL);
        vals[i] = (uint32_t)((rng() % kBases) << 1 | (rng() & 1));
    }
    BaseDev<fq2_dev_t>* d_bases;
    uint32_t *d_keys, *d_vals, *d_kh, *d_kt;
    Xyzz<fq2_dev_t> *d_head, *d_tail, *d_buckets;
    Fq32* d_out;
    cudaMalloc(&d_bases, kBases * sizeof(bases[0]));
    cudaMalloc(&d_keys, kEntries * 4);
    cudaMalloc(&d_vals, kEntries * 4);
    cudaMalloc(&d_kh, kChunks * 4);
    cudaMalloc(&d_kt, kChunks * 4);
    cudaMalloc(&d_head, kChunks * sizeof(Xyzz<fq2_dev_t>));
    cudaMalloc(&d_tail, kChunks * sizeof(Xyzz<fq2_dev_t>));
    cudaMalloc(&d_buckets, kChunks * sizeof(Xyzz<fq2_dev_t>));
    cudaMalloc(&d_out, kChunks * sizeof(Xyzz<fq2_dev_t>));
    cudaMemcpy(d_bases, bases.data(), kBases * sizeof(bases[0]), cudaMemcpyHostToDevice);
    cudaMemcpy(d_keys, keys.data(), kEntries * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(d_vals, vals.data(), kEntries * 4, cudaMemcpyHostToDevice);
    uint32_t *d_long, *d_list;
    cudaMalloc(&d_long, 8);
    cudaMalloc(&d_list, (size_t)long_list_size(kChunks) * 4);
    const Blocks<fq2_dev_t> bl{d_head, d_tail, d_kh, d_kt, d_long, d_list};
    const uint32_t sentinel = kChunks;  // no key equals it
    auto one_thread = [&] {
        accumulate_chunks<fq2_dev_t><<<(kChunks + 127) / 128, 128>>>(d_bases, d_keys, d_vals, kEntries, kL, sentinel,
                                                                   kChunks, d_buckets, bl);
    };
    auto lanes3 = [&] { acc_lanes<3><<<(2 * kChunks + 127) / 128, 128>>>(d_bases, d_keys, d_vals, kEntries, kL, sentinel, kChunks, d_out); };
    auto lanes1 = [&] { acc_lanes<1><<<(2 * kChunks + 127) / 128, 128>>>(d_bases, d_keys, d_vals, kEntries, kL, sentinel, kChunks, d_out); };
    for (int round = 0; round < 3; round++) {
        const float a = timeit(one_thread), b = timeit(lanes3), c = timeit(lanes1);
        std::printf("2^24 mixed additions over Fq2: one thread a point %.2f ms, a component a lane (3 blocks) %.2f ms, "
                    "(uncapped) %.2f ms\n", a, b, c);
    }
    one_thread();
    lanes3();
    cudaDeviceSynchronize();
    std::vector<Xyzz<fq2_dev_t>> want(kChunks), got(kChunks);
    cudaMemcpy(want.data(), d_head, kChunks * sizeof(want[0]), cudaMemcpyDeviceToHost);
    cudaMemcpy(got.data(), d_out, kChunks * sizeof(got[0]), cudaMemcpyDeviceToHost);
    size_t differ = 0;
    for (size_t t = 0; t < kChunks; t++) differ += std::memcmp(&want[t], &got[t], sizeof(want[t])) != 0;
    std::printf("runs whose sums differ: %zu of %u\n", differ, kChunks);
    // The MSM's accumulation span is more than those additions: runs of 32 entries shifted by 16, so every chunk
    // boundary cuts a run, then the merge tree (one launch a level) as msm_impl.cuh runs it.
    for (size_t i = 0; i < kEntries; i++) keys[i] = (uint32_t)((i + 16) / kL);
    cudaMemcpy(d_keys, keys.data(), kEntries * 4, cudaMemcpyHostToDevice);
    const uint32_t sent2 = (uint32_t)((kEntries + 16) / kL + 1);
    Xyzz<fq2_dev_t>* d_b2;
    cudaMalloc(&d_b2, (size_t)sent2 * sizeof(Xyzz<fq2_dev_t>));
    auto chunks_only = [&] {
        accumulate_chunks<fq2_dev_t><<<(kChunks + 127) / 128, 128>>>(d_bases, d_keys, d_vals, kEntries, kL, sent2,
                                                                   kChunks, d_b2, bl);
    };
    auto merges = [&] {  // the tree alone (the long_runs word set: what every call ran before walk_runs)
        cudaMemsetAsync(d_long, 0xff, 4);
        for (uint64_t st = 1; st < kChunks; st *= 2) {
            const uint64_t pairs = (kChunks + 2 * st - 1) / (2 * st);
            merge_blocks<fq2_dev_t><<<(unsigned)((pairs + 127) / 128), 128>>>(bl, kChunks, (uint32_t)st, sent2, d_b2);
        }
    };
    for (int round = 0; round < 2; round++) {
        const float a = timeit(chunks_only);
        const float b = timeit([&] {  // the merges work in place: each timed call starts from fresh chunks
            chunks_only();
            merges();
        });
        const float c = timeit([&] {
            chunks_only();
            join_runs<fq2_dev_t>(bl, kChunks, sent2, d_b2, 0);
        });
        std::printf("runs cut by chunks: accumulate_chunks %.2f ms, with the merge tree (19 launches) %.2f ms, with "
                    "the walks (and the tree's launches, idle) %.2f ms\n", a, b, c);
    }
    return 0;  // a measurement: the lane kernel's mismatch is printed above, not an error of this program
}
