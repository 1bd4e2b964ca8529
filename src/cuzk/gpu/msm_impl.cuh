// GPU multi-scalar multiplication, the template shared by G1 (msm.cu) and G2 (msm_g2.cu); each curve is its own
// translation unit so the two (slow to compile) instantiations build in parallel. See msm.hpp for the API.
//
// One call, for the m scalars that go through Pippenger (all of them, or the "others" of a ScalarSplit):
//   1. digits_kernel: each thread takes one scalar (leaving Montgomery form on the device when it came as a cuzk::Fr)
//      and writes, for every window j of the current window group, the pair (key, value) with
//      key = j * H + |d_j| - 1 (H = 2^(c-1) buckets per window, signed digit d_j in [-H, H]), value = base index << 1
//      | [d_j < 0]. A zero digit gets key = sentinel (wg * H), which sorts last and is skipped.
//   2. cub::DeviceRadixSort over the keys (only the bits the sentinel needs): the pairs of each bucket are adjacent.
//   3. The sorted pairs are cut into chunks of L entries (GpuMsmConfig::piece_points), one thread per chunk, which
//      sums each run of equal keys from the affine bases (mixed XYZZ additions); runs that cross chunk boundaries
//      are joined by walk_runs (by a tree of merge_blocks launches where runs are long: see accumulate_chunks).
//      Every thread runs the same number of iterations, and a bucket holding every point (all scalars equal) is
//      spread over n / L threads.
//   4. Bucket reduction: window sum = sum_{k=1..H} k B_k. The H buckets of a window are cut into T segments of S;
//      the thread of segment [lo, lo + S) runs the suffix sums from the top (running += B_k; acc += running), which
//      gives sum (k - lo) B_k, then adds lo * running (double-and-add, lo < 2^(c-1)); for G2 and long G1 segments
//      a lane pair walks each segment, half a point a lane (window_segment_pairs, GpuMsmConfig::reduce_lanes).
//      The T segment sums of each window are added by a halving tree (log2 T launches). Where segments are short
//      (at most kTwoLevelS buckets, no table: G2, small G1 calls) the walks keep their plain sums R_t instead of
//      multiplying them by lo, and a second pass of the same kernels over the R_t (segments of kSecondS) gives
//      sum_t t R_t, which the host adds S times (GpuMsmConfig::reduce_levels).
//   5. The window sums come back to the host (W points), and Horner's rule (c doublings per window) combines them:
//      ~256 doublings on the CPU cost ~0.2 ms, less than one single-thread device launch of the same chain with the
//      64-bit-limb device field.
// Scalars equal to one (msm_split): one thread per 64 indexed bases sums them, then a halving tree.
// Precomputed window multiples (GpuMsmConfig::precompute_windows): the constructor builds table entry w n + i =
// 2^(w c) B_i (times_two_pow_c: c doublings, then affine through one inversion per 16 points); the digits of every
// window then index that table and share one set of H buckets, so step 4 runs once per group of windows and step 5
// is a plain sum. Costs W times the bases' memory; saves the W - 1 other reductions, and the cheaper reduction
// moves the best c up (gpu_msm_window_bits(n, sm, true)), which cuts the additions m W.
// Field: dev_field.cuh (32-bit PTX Montgomery multiplication, kept out of line; why is explained there).
//
// The bound: random scalars cost m * W mixed additions (8M + 2S each in F) for the buckets, plus ~2 W H full XYZZ
// additions (12M + 2S) for the reduction; c is chosen to minimise W (m + 4 H) (gpu_msm_window_bits).
#pragma once

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/gpu/cuda_check.cuh"
#include "cuzk/gpu/dev_field.cuh"
#include "cuzk/gpu/field.cuh"
#include "cuzk/gpu/kernel_timer.cuh"
#include "cuzk/gpu/pinned_upload.cuh"
#include "cuzk/gpu/msm.hpp"
#include "cuzk/gpu/msm_point.cuh"

namespace cuzk::gpu {

using namespace msm_detail;

namespace {

using Limbs4 = limbs_t<4>;

constexpr unsigned kMinWindow = 2, kMaxWindow = 24;
// A window group's (key, value) pairs: 16 bytes each across the sort's double buffers, so 2^30 pairs hold 16 GiB;
// larger MSMs run their windows in several groups (CUB's run-length encoder counts items in an int, too).
constexpr size_t kMaxPairsPerGroup = size_t(1) << 30;
// Sorted entries per accumulation thread at least: the subgroup check's chunks, and the window model's floor on a
// thread's work (an MSM's chunk length is make_plan's).
constexpr unsigned kDefaultPiece = 32;
// An MSM's chunk at least: each chunk boundary costs walk_runs a full addition, and longer chunks fewer threads for
// the accumulation. H100, G1 / G2 2^20 (runs of ~32 entries) with the walks: 32 entries 10.69 / 29.65 ms, 64
// 10.54 / 28.51, 128 10.55 / 28.31, 256 12.28 / 28.39 (docs/perf.md).
template <class F>
constexpr unsigned kMinPiece = sizeof(F) <= 48 ? 64 : 128;
// Listed ones: a warp adds 32 * 64 bases, 64 per lane; 2^20 ones then take 16384 threads, enough to fill the GPU.
constexpr unsigned kOnesPiece = 64;
// Ones as a bitmap: a warp reads 32 * 2 words (4096 positions; ~60 ones per lane at Filecoin's 48% ones).
constexpr unsigned kOnesWords = 2;
constexpr unsigned kThreads = 128;
// Threads per point in the reduction's segment walks (GpuMsmConfig::reduce_lanes = 0): two (window_segment_pairs)
// for G2, and for G1 where a segment has at least 64 buckets. H100, one run: G2 2^20 (S = 8) 5.21 against 5.52-5.64
// ms, G1 2^26 (S = 128) 8.84 against 11.13 ms, but G1 2^20 (S = 8) 1.80 against 1.69 ms (docs/perf.md).
template <class F>
unsigned default_reduce_lanes(uint32_t S) {
    return sizeof(F) > 48 || S >= 64 ? 2 : 1;
}
// Bucket reduction: about 2^16 segment threads in all (the H200 holds ~400 such register-heavy threads per SM).
constexpr uint32_t kSegmentThreads = 1u << 16;
// Reduction segments of at most kTwoLevelS buckets reduce in two levels, the second in segments of kSecondS.
constexpr uint32_t kTwoLevelS = 32, kSecondS = 4;

unsigned num_windows(unsigned c) { return (256 + c - 1) / c; }

size_t align_up(size_t x) { return (x + 255) & ~size_t(255); }

uint32_t pow2_ceil(uint64_t x) {
    uint32_t p = 1;
    while (p < x) p <<= 1;
    return p;
}
uint32_t pow2_floor(uint64_t x) {
    uint32_t p = 1;
    while ((uint64_t)p * 2 <= x) p <<= 1;
    return p;
}

unsigned blocks_for(size_t n) { return (unsigned)((n + kThreads - 1) / kThreads); }

// ---- digits ---------------------------------------------------------------------------------------------------
// Same digit rule as the CPU (msm.cpp): raw_j = bits [j c, (j + 1) c), hi_j = [raw_j >= H], d_j = raw_j - 2^c hi_j +
// hi_{j-1} in [-H, H]; with W = ceil(256 / c) and s < r < 2^255 the top hi is 0, so the digits represent s exactly.
__device__ __forceinline__ uint64_t window_raw(const Limbs4& s, unsigned bit, unsigned c) {
    if (bit >= 256) return 0;
    unsigned w = bit / 64, sh = bit % 64;
    uint64_t v = s[w] >> sh;
    if (sh != 0 && w + 1 < 4) v |= s[w + 1] << (64 - sh);
    return v & ((uint64_t(1) << c) - 1);
}

// With precomputed window multiples (pre_stride = number of bases, table entry w * pre_stride + i = 2^(w c) B_i),
// every window uses the same H buckets (key = |d_j| - 1, sentinel H) and the value names the table entry.
template <bool kMont>
__global__ void digits_kernel(const Limbs4* __restrict__ scalars, const uint32_t* __restrict__ index, uint32_t m,
                              unsigned c, unsigned w0, unsigned wg, uint32_t pre_stride, uint32_t* __restrict__ keys,
                              uint32_t* __restrict__ vals) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    Limbs4 s = scalars[i];
    if constexpr (kMont) s = Fr::from_mont_limbs(s).to_canonical();
    const uint32_t base = index ? index[i] : i;  // < 2^31 (checked on the host), so base << 1 fits
    const uint32_t H = 1u << (c - 1);
    const uint32_t sentinel = pre_stride ? H : wg * H;
    for (unsigned j = 0; j < wg; j++) {
        const unsigned w = w0 + j;
        const uint64_t raw = window_raw(s, w * c, c);
        int64_t d = raw >= H ? (int64_t)raw - ((int64_t)1 << c) : (int64_t)raw;
        if (w > 0 && window_raw(s, (w - 1) * c, c) >= H) d += 1;
        // W * pre_stride < 2^31 (checked when the table is built), so the table index << 1 fits
        uint32_t key = sentinel, val = (pre_stride ? w * pre_stride + base : base) << 1;
        if (d != 0) {
            const uint32_t mag = (uint32_t)(d < 0 ? -d : d);  // 1 .. H
            key = (pre_stride ? 0 : j * H) + mag - 1;
            val |= d < 0 ? 1u : 0u;
        }
        keys[(size_t)j * m + i] = key;
        vals[(size_t)j * m + i] = val;
    }
}

// ---- bases on the device ---------------------------------------------------------------------------------------
// Affine (x, y) in the device field, 16-byte aligned (G1: 96 B = six 16-byte loads); the point at infinity is
// x = y = 0, which is on neither curve (0 = 0^3 + b needs b = 0), so no flag byte is needed.
template <class DF>
struct alignas(16) BaseDev {
    DF x, y;
};

template <class DF>
__device__ __forceinline__ BaseDev<DF> load_base(const BaseDev<DF>* __restrict__ bases, uint32_t i) {
    static_assert(sizeof(BaseDev<DF>) % 16 == 0);
    constexpr unsigned kWords = sizeof(BaseDev<DF>) / 16;
    uint4 w[kWords];
    const uint4* src = reinterpret_cast<const uint4*>(bases + i);
#pragma unroll
    for (unsigned k = 0; k < kWords; k++) w[k] = __ldg(src + k);
    BaseDev<DF> b;
    memcpy(&b, w, sizeof(b));
    return b;
}

template <class DF>
__device__ __forceinline__ bool base_is_infinity(const BaseDev<DF>& b) {
    return b.x.is_zero() && b.y.is_zero();
}

// One base in the device layout (BaseDev: x, y as the host holds them, Montgomery; the point at infinity as (0, 0);
// no flag byte) at `to`.
template <class Cfg, class DF>
inline void pack_base(const Affine<Cfg>& p, unsigned char* to) {
    static_assert(sizeof(DF) == sizeof(typename Cfg::F) && sizeof(BaseDev<DF>) == 2 * sizeof(DF));
    if (p.infinity) {
        std::memset(to, 0, 2 * sizeof(DF));
    } else {
        std::memcpy(to, &p.x, sizeof(DF));
        std::memcpy(to + sizeof(DF), &p.y, sizeof(DF));
    }
}

// Queues dst <- src in the device layout on `stream`: the uploader's copy threads pack the points straight into its
// pinned buffers, so the bases take one host pass and one DMA, with no staging array or packing kernel on the device.
template <class Cfg, class DF>
void upload_bases(BaseDev<DF>* dst, std::span<const Affine<Cfg>> src, cudaStream_t stream) {
    const Affine<Cfg>* const in = src.data();
    PinnedUploader::shared().upload_items(
        dst, src.size(), sizeof(BaseDev<DF>),
        [in](size_t lo, size_t hi, unsigned char* to) {
            for (size_t i = lo; i < hi; i++, to += sizeof(BaseDev<DF>)) pack_base<Cfg, DF>(in[i], to);
        },
        stream);
}

// The same for n bases that fill(lo, hi, out) makes on the way (MsmContext::Fill: a file decoded as it goes up),
// a block at a time in each copy thread.
template <class Cfg, class DF>
void upload_bases(BaseDev<DF>* dst, size_t n, const typename MsmContext<Cfg>::Fill& fill, cudaStream_t stream) {
    static constexpr size_t kBlock = 1024;
    PinnedUploader::shared().upload_items(
        dst, n, sizeof(BaseDev<DF>),
        [&fill](size_t lo, size_t hi, unsigned char* to) {
            std::vector<Affine<Cfg>> block(std::min(kBlock, hi - lo));
            for (size_t b = lo; b < hi; b += kBlock) {
                const size_t e = std::min(hi, b + kBlock);
                fill(b, e, block.data());
                for (size_t i = b; i < e; i++, to += sizeof(BaseDev<DF>)) pack_base<Cfg, DF>(block[i - b], to);
            }
        },
        stream);
}

// ---- precomputed window multiples ------------------------------------------------------------------------------
// out[i] = 2^c in[i] for i < n (affine; infinity = (0, 0)), K points per thread: c doublings in XYZZ each, then one
// inversion for the thread's K points (Montgomery's trick on ZZZ): x = X / ZZ = X (ZZ / ZZZ)^2 (ZZ^3 = ZZZ^2),
// y = Y / ZZZ. tmp and prefix hold each point's XYZZ result and the running product of the ZZZs. A result at
// infinity (no finite point of these curves has order dividing 2^c: both group orders are odd, and a base that is
// not on the curve at all gives garbage but never touches its neighbours) stays out of the product.
template <class DF>
__global__ void times_two_pow_c(const BaseDev<DF>* __restrict__ in, BaseDev<DF>* __restrict__ out, uint32_t n,
                                unsigned c, uint32_t K, Xyzz<DF>* __restrict__ tmp, DF* __restrict__ prefix) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t b = (uint64_t)t * K;
    if (b >= n) return;
    const uint32_t e = (uint32_t)(b + K < n ? b + K : n);
    DF run = DF::one();
    for (uint32_t i = (uint32_t)b; i < e; i++) {
        const BaseDev<DF> p = load_base(in, i);
        Xyzz<DF> q = identity<DF>();
        if (!base_is_infinity(p)) {
            q = dbl_affine(p.x, p.y);
            for (unsigned k = 1; k < c; k++) q = dbl(q);
        }
        tmp[i] = q;
        if (!q.ZZZ.is_zero()) run = run * q.ZZZ;
        prefix[i] = run;
    }
    DF inv = inverse(run);  // 1 / (product of the nonzero ZZZs)
    for (uint32_t i = e; i-- > (uint32_t)b;) {
        const Xyzz<DF> q = tmp[i];
        BaseDev<DF> r;
        if (q.ZZZ.is_zero() || q.ZZ.is_zero()) {
            r.x = DF::zero();
            r.y = DF::zero();
        } else {
            const DF iz3 = i > (uint32_t)b ? inv * prefix[i - 1] : inv;  // 1 / ZZZ_i
            inv = inv * q.ZZZ;
            const DF iz = q.ZZ * iz3;  // 1 / Z
            r.x = q.X * iz.square();
            r.y = q.Y * iz3;
        }
        out[i] = r;
    }
}

// ---- bucket accumulation --------------------------------------------------------------------------------------
// The sorted pairs are cut into chunks of L consecutive entries, one thread per chunk, whatever the bucket
// boundaries: every thread of a warp runs the same number of iterations (the first version gave each bucket run its
// own threads and lost most of its time to divergence and instruction fetch). A thread sums each run of equal keys
// in its chunk (mixed XYZZ additions from the affine bases). Runs strictly inside the chunk are whole buckets and go
// straight to them; the chunk's first run (head) and last run (tail) may continue into the neighbours, so the chunk
// leaves a block {head key, head sum, tail key, tail sum, single} (single: one run, head = tail).
// walk_runs then joins the runs the chunks cut, in one launch: the chunk a run starts in walks right over the chunks
// it continues into, adding their heads, and writes the bucket (a run spans one or two chunks for random scalars).
// A run longer than the walks' cap (few digit values: all scalars equal, a narrow top window, tiny chunks) sets the
// blocks' long_runs word instead, and then merge_blocks joins every block in a tree (log2(chunks) launches, in place
// with doubling strides; each launch returns at once while the word is clear): where L's tail and R's head share a
// key, they are added; a run that can no longer grow (it has other runs on both sides) is written to its bucket. So
// a bucket holding every point costs log-depth, not a serial walk. Sentinel keys (zero digits) sort last, end a
// chunk's runs, and are never written. (The tree alone, every launch a level, took 3.4 of a G2 2^20 MSM's 30.3 ms
// and 1.5 of G1 2^20's 11.2 ms on the H200: docs/perf.md.)
template <class DF>
__device__ __forceinline__ void xyzz_from_affine(Xyzz<DF>& p, const BaseDev<DF>& b, bool neg) {
    if (base_is_infinity(b)) {
        p = identity<DF>();
        return;
    }
    p.X = b.x;
    p.Y = neg ? -b.y : b.y;
    p.ZZ = DF::one();
    p.ZZZ = DF::one();
}

template <class DF>
struct Blocks {
    Xyzz<DF>* head;
    Xyzz<DF>* tail;
    uint32_t* key_head;
    uint32_t* key_tail;  // == key_head for a single-run block
    // [0]: set where a run spans more chunks than the warps' walks reach (the tree then joins every block);
    // [1]: how many runs walk_runs left to join_long_runs, whose first chunks `long_list` holds.
    uint32_t* long_runs;
    uint32_t* long_list;
};

// Blocks of 128 per SM the accumulation is compiled for (register cap 65536 / (128 * blocks)). G1: 3 (cap 170;
// uncapped it takes 208 registers, 2 blocks, 12.5% occupancy, and ncu shows it stalled on fixed-latency
// dependencies 63% of the time); H200, 2026-11-29, same run: 2^26 419 ms with 3 blocks, 444 ms with 2, 415 ms with
// 4 (cap 128, spills). G2: uncapped (3 blocks: 41.3 ms against 38.1, 4: 46.7; its Fq2 state spills).
template <class DF>
struct AccMinBlocks {
    static constexpr int value = sizeof(DF) <= 48 ? 3 : 1;
};
template <class DF>
__global__ void __launch_bounds__(128, AccMinBlocks<DF>::value) accumulate_chunks(const BaseDev<DF>* __restrict__ bases,
                                                                    const uint32_t* __restrict__ keys,
                                                                    const uint32_t* __restrict__ vals, size_t count,
                                                                    uint32_t L, uint32_t sentinel,
                                                                    uint32_t num_chunks,
                                                                    Xyzz<DF>* __restrict__ buckets, Blocks<DF> bl) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= num_chunks) return;
    const size_t b = (size_t)t * L;
    const size_t e = b + L < count ? b + L : count;
    uint32_t cur = keys[b];
    bl.key_head[t] = cur;
    if (cur == sentinel) {
        bl.key_tail[t] = sentinel;
        return;
    }
    bool first = true;
    Xyzz<DF> acc;
    {
        const uint32_t v = vals[b];
        xyzz_from_affine(acc, load_base(bases, v >> 1), v & 1);
    }
    for (size_t i = b + 1; i < e; i++) {
        const uint32_t k = keys[i];
        if (k == sentinel) break;
        const uint32_t v = vals[i];
        const BaseDev<DF> pt = load_base(bases, v >> 1);
        if (k != cur) {  // the run `cur` ended inside this chunk
            if (first) bl.head[t] = acc;
            else buckets[cur] = acc;
            first = false;
            cur = k;
            xyzz_from_affine(acc, pt, v & 1);
        } else if (!base_is_infinity(pt)) {
            add_affine(acc, pt.x, (v & 1) ? -pt.y : pt.y);
        }
    }
    if (first) bl.head[t] = acc;
    else bl.tail[t] = acc;
    bl.key_tail[t] = cur;
}

// Thread t: the runs that start in chunk t and continue past it, summed over the chunks they reach (at most `cap`
// after t), and written to their buckets; chunk t's head is written here too when it starts and ends in chunk t.
template <class DF>
__global__ void __launch_bounds__(128, AccMinBlocks<DF>::value) walk_runs(Blocks<DF> bl, uint32_t n,
                                                                           uint32_t sentinel, uint32_t cap,
                                                                           Xyzz<DF>* __restrict__ buckets) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    const uint32_t h = bl.key_head[t], tl = bl.key_tail[t];
    if (h == sentinel) return;
    const bool from_left = t > 0 && bl.key_tail[t - 1] == h;  // the chunk the run starts in owns it
    uint32_t k;
    Xyzz<DF> acc;
    if (h != tl) {
        if (!from_left) buckets[h] = bl.head[t];  // began and ended in this chunk
        k = tl;
        acc = bl.tail[t];
    } else {
        if (from_left) return;
        k = h;
        acc = bl.head[t];
    }
    for (uint32_t j = t + 1, steps = 0; j < n && bl.key_head[j] == k; j++) {
        if (++steps > cap) {  // a long run: a warp joins it (join_long_runs)
            bl.long_list[atomicAdd(&bl.long_runs[1], 1u)] = t;
            return;
        }
        acc = add(acc, bl.head[j]);
        if (bl.key_tail[j] != k) break;  // the run ends in chunk j
    }
    buckets[k] = acc;
}

// v from lane + off (a whole point, word by word; every lane of the warp calls it).
template <class T>
__device__ __forceinline__ T shfl_down_point(const T& v, unsigned off) {
    return shuffle_words(v, [off](uint32_t x) { return __shfl_down_sync(0xffffffffu, x, off); });
}

// The runs walk_runs listed, a warp a run: lane l adds the heads of chunks t + 1 + l + 32 i (a chunk after t is in
// the run exactly when its head key is the run's: the keys are sorted), at most `rounds` of them, then the warp
// adds its 32 sums by shuffles and lane 0 writes the bucket. A run longer than 32 rounds of chunks sets long_runs[0]
// (the tree). Warps loop over the list (its length is only known on the device).
template <class DF>
__global__ void __launch_bounds__(128) join_long_runs(Blocks<DF> bl, uint32_t n, uint32_t rounds,
                                                      Xyzz<DF>* __restrict__ buckets) {
    const uint32_t lane = threadIdx.x % 32;
    const uint32_t warps = gridDim.x * (blockDim.x / 32);
    const uint32_t count = bl.long_runs[1];
    for (uint32_t r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < count; r += warps) {
        const uint32_t t = bl.long_list[r];
        const uint32_t h = bl.key_head[t], tl = bl.key_tail[t];
        const uint32_t k = h != tl ? tl : h;  // the run that starts in chunk t and continues past it
        Xyzz<DF> acc = identity<DF>();
        if (lane == 0) acc = h != tl ? bl.tail[t] : bl.head[t];
        bool more = false;
        for (uint32_t i = 0; i <= rounds; i++) {
            const uint64_t j = (uint64_t)t + 1 + lane + 32ull * i;
            if (j >= n || bl.key_head[j] != k) break;
            if (i == rounds) {
                more = true;
                break;
            }
            acc = add(acc, bl.head[j]);
        }
        __syncwarp();
        if (__any_sync(0xffffffffu, more)) {
            if (lane == 0) bl.long_runs[0] = 1;
            continue;
        }
        for (unsigned off = 16; off > 0; off /= 2) {
            const Xyzz<DF> o = shfl_down_point(acc, off);
            acc = add(acc, o);
        }
        if (lane == 0) buckets[k] = acc;
    }
}

// Block a = merge(block a, block a + s) for a = 2 s j (one level of the tree, in place), when a walk gave up.
template <class DF>
__global__ void merge_blocks(Blocks<DF> bl, uint32_t n, uint32_t s, uint32_t sentinel,
                             Xyzz<DF>* __restrict__ buckets) {
    if (bl.long_runs[0] == 0) return;
    const uint64_t a = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) * 2 * s;
    const uint64_t c = a + s;
    if (c >= n) return;
    const uint32_t lh = bl.key_head[a], lt = bl.key_tail[a], rh = bl.key_head[c], rt = bl.key_tail[c];
    const bool l_single = lh == lt, r_single = rh == rt;
    if (lt == rh) {
        if (lt == sentinel) return;  // both end in zero digits: nothing to carry (r is then all sentinel too)
        // L's tail and R's head are one run.
        const Xyzz<DF> joined = add(l_single ? bl.head[a] : bl.tail[a], bl.head[c]);
        if (l_single && r_single) {
            bl.head[a] = joined;
        } else if (l_single) {
            bl.head[a] = joined;
            bl.tail[a] = bl.tail[c];
        } else if (r_single) {
            bl.tail[a] = joined;
        } else {
            buckets[lt] = joined;  // runs on both sides: complete
            bl.tail[a] = bl.tail[c];
        }
    } else {
        // Different keys meet: L's tail (unless it is also L's head) and R's head (unless also R's tail) are complete.
        if (!l_single && lt != sentinel) buckets[lt] = bl.tail[a];
        if (!r_single && rh != sentinel) buckets[rh] = bl.head[c];
        bl.tail[a] = r_single ? bl.head[c] : bl.tail[c];
    }
    bl.key_tail[a] = rt;
}

// The root block: its head and tail are complete.
template <class DF>
__global__ void finish_blocks(Blocks<DF> bl, uint32_t sentinel, Xyzz<DF>* __restrict__ buckets) {
    if (blockIdx.x != 0 || threadIdx.x != 0 || bl.long_runs[0] == 0) return;
    const uint32_t h = bl.key_head[0], t = bl.key_tail[0];
    if (h != sentinel) buckets[h] = bl.head[0];
    if (t != h && t != sentinel) buckets[t] = bl.tail[0];
}

// Accumulation threads the device runs at once (blocks of kThreads per SM, by the occupancy API; the compiled
// floor where it cannot answer).
template <class F>
size_t accumulation_threads(unsigned sm_count) {
    static const int per_sm = [] {
        int blocks = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, accumulate_chunks<F>, kThreads, 0) !=
                cudaSuccess ||
            blocks < 1) {
            (void)cudaGetLastError();
            blocks = AccMinBlocks<F>::value;
        }
        return blocks;
    }();
    return (size_t)per_sm * kThreads * std::max(sm_count, 1u);
}

// A chunk length of at least L whose chunks fill whole waves of `threads` (each thread one chunk, all chunks about
// equally long): a count just past a multiple of the threads otherwise leaves the last wave's SMs mostly idle while
// it takes as long as a full one (G2 2^20 with a table at c = 20: 3.15 waves of 128-entry chunks ran in 4). Calls
// of less than one wave keep L.
inline uint32_t whole_waves(size_t P, uint32_t L, size_t threads) {
    const size_t chunks = (P + L - 1) / L;
    if (threads == 0 || chunks <= threads) return L;
    const size_t waves = chunks / threads;
    return (uint32_t)std::max<size_t>(L, (P + waves * threads - 1) / (waves * threads));
}

// The cut runs of `chunks` blocks into their buckets: the walks, the long runs' warps, then the tree's launches
// (no-ops unless a warp gave up). One thread walks runs of a few chunks: where every warp has threads walking
// further than the others (G1 / G2 2^22 with runs of ~128 entries in 32-entry chunks, H100) the walks cost more than
// the tree, 8.4 / 21.6 against 3.8 / 8.5 ms, hence the chunk length (make_plan). The top window's runs are longer
// (its few digit values: ~2^15 for c = 20, ~2^13 for c = 22: ~35 chunks of 512 at 2^27, where one thread's walks of
// up to 64 chunks gained nothing over the tree). Runs of more than `walk` chunks go to a warp each (a few rounds of
// adds, then shuffles), runs of more than 32 kLongRounds chunks (equal scalars) to the tree. A warp for runs past 4
// chunks (GpuMsmConfig::walk_chunks = 4) is as fast as walks of up to kWalkCap up to 2^22 (H100), faster at 2^27
// (the top window's runs of ~32 chunks), slower at 2^26 (runs of ~4): default_walk chooses by the top window's
// expected run.
constexpr uint32_t kWalkCap = 64, kLongRounds = 64;
// Runs one thread may not finish (each spans more than `walk` chunks) at most.
inline uint32_t long_list_size(uint32_t chunks, uint32_t walk = kWalkCap) { return chunks / (walk + 1) + 1; }
template <class DF>
void join_runs(const Blocks<DF>& bl, uint32_t chunks, uint32_t sentinel, Xyzz<DF>* buckets, cudaStream_t stream,
               uint32_t walk = kWalkCap) {
    CUZK_CUDA_CHECK(cudaMemsetAsync(bl.long_runs, 0, 2 * sizeof(uint32_t), stream));
    walk_runs<DF><<<blocks_for(chunks), kThreads, 0, stream>>>(bl, chunks, sentinel, walk, buckets);
    CUZK_CUDA_CHECK(cudaGetLastError());
    const uint32_t warps = std::min<uint32_t>(long_list_size(chunks, walk), 8192);
    join_long_runs<DF><<<blocks_for((size_t)warps * 32), kThreads, 0, stream>>>(bl, chunks, kLongRounds, buckets);
    CUZK_CUDA_CHECK(cudaGetLastError());
    for (uint64_t st = 1; st < chunks; st *= 2) {
        const uint64_t pairs = (chunks + 2 * st - 1) / (2 * st);
        merge_blocks<DF><<<blocks_for(pairs), kThreads, 0, stream>>>(bl, chunks, (uint32_t)st, sentinel, buckets);
        CUZK_CUDA_CHECK(cudaGetLastError());
    }
    finish_blocks<DF><<<1, 1, 0, stream>>>(bl, sentinel, buckets);
    CUZK_CUDA_CHECK(cudaGetLastError());
}

// ---- bucket reduction -----------------------------------------------------------------------------------------
// runs: nullptr, or where a two-level reduction keeps each segment's plain sum R_t instead of adding lo R_t to its
// weighted sum: R_t at runs[w T + t - 1] for t >= 1, the identity at runs[w T + T - 1], so that a second pass of
// this kernel over runs (H = T) gives sum_t t R_t (the reduction in MsmContext::Impl::run).
template <class F>
__global__ void window_segments(const Xyzz<F>* __restrict__ buckets, uint32_t wg, uint32_t H, uint32_t S,
                                Xyzz<F>* __restrict__ seg, Xyzz<F>* __restrict__ runs) {
    const uint32_t T = H / S;
    uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= wg * T) return;
    const uint32_t w = tid / T, t = tid % T, lo = t * S;
    const Xyzz<F>* B = buckets + (size_t)w * H;  // B[k - 1] is bucket k (digit magnitude k)
    Xyzz<F> running = identity<F>(), acc = identity<F>();
    for (uint32_t k = lo + S; k > lo; k--) {
        running = add(running, B[k - 1]);
        acc = add(acc, running);
    }
    // acc = sum_{k in (lo, lo + S]} (k - lo) B_k; the missing lo * sum B_k:
    if (runs) {
        runs[(size_t)w * T + (t ? t - 1 : T - 1)] = t ? running : identity<F>();
    } else if (lo) {
        acc = add(acc, mul_small(running, lo));
    }
    seg[tid] = acc;
}

// window_segments on lane pairs (XyzzHalf, msm_point.cuh): threads 2t and 2t + 1 take segment t, the even one
// with every point's (X, ZZ), the odd one with (Y, ZZZ); they write their halves of the same record, so the
// halving tree reads what window_segments would have written. Fewer registers a thread and twice the threads for
// the same walks (docs/perf.md: faster for G2, and for G1 where segments are long).
template <class DF>
__device__ __forceinline__ XyzzHalf<DF> load_half(const Xyzz<DF>& p, bool odd) {
    return {odd ? p.Y : p.X, odd ? p.ZZZ : p.ZZ};
}
template <class DF>
__device__ __forceinline__ void store_half(Xyzz<DF>* dst, const XyzzHalf<DF>& h, bool odd) {
    (odd ? dst->Y : dst->X) = h.c;
    (odd ? dst->ZZZ : dst->ZZ) = h.z;
}
template <class F>
__global__ void __launch_bounds__(128, sizeof(F) <= 48 ? 4 : 2)
    window_segment_pairs(const Xyzz<F>* __restrict__ buckets, uint32_t wg, uint32_t H, uint32_t S,
                         Xyzz<F>* __restrict__ seg, Xyzz<F>* __restrict__ runs) {
    const uint32_t T = H / S;
    const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t tid = g >> 1;
    const bool odd = g & 1;
    const unsigned mask = 3u << (threadIdx.x & 30);
    if (tid >= wg * T) return;  // both lanes of a pair
    const uint32_t w = tid / T, t = tid % T, lo = t * S;
    const Xyzz<F>* B = buckets + (size_t)w * H;  // B[k - 1] is bucket k
    XyzzHalf<F> running{F::zero(), F::zero()}, acc{F::zero(), F::zero()};
    for (uint32_t k = lo + S; k > lo; k--) {
        running = add_pair(running, load_half(B[k - 1], odd), odd, mask);
        acc = add_pair(acc, running, odd, mask);
    }
    if (runs) {
        store_half(runs + (size_t)w * T + (t ? t - 1 : T - 1), t ? running : XyzzHalf<F>{F::zero(), F::zero()}, odd);
    } else if (lo) {
        acc = add_pair(acc, mul_small_pair(running, lo, odd, mask), odd, mask);
    }
    store_half(seg + tid, acc, odd);
}

// The bucket reduction's first step on one or two lanes per point (Plan::lanes).
template <class F>
void launch_segments(unsigned lanes, const Xyzz<F>* buckets, uint32_t sets, uint32_t H, uint32_t S, uint32_t T,
                     Xyzz<F>* seg, cudaStream_t stream, Xyzz<F>* runs = nullptr) {
    if (lanes == 2)
        window_segment_pairs<F><<<blocks_for(2 * (size_t)sets * T), kThreads, 0, stream>>>(buckets, sets, H, S, seg,
                                                                                            runs);
    else
        window_segments<F><<<blocks_for((size_t)sets * T), kThreads, 0, stream>>>(buckets, sets, H, S, seg, runs);
    CUZK_CUDA_CHECK(cudaGetLastError());
}

// out[i] = in[2i] + in[2i+1]: one level of a tree over groups of a power-of-two size (pairs never straddle groups).
template <class F>
__global__ void halve(const Xyzz<F>* __restrict__ in, Xyzz<F>* __restrict__ out, uint32_t n_out) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_out) return;
    out[i] = add(in[2 * i], in[2 * i + 1]);
}

// The `cnt` (a power of two) points of each of `sets` windows at in, added by a halving tree (ping-ponging with
// out), and the sets sums copied to the host at `host` (queued on `stream`).
template <class F>
void halve_into(Xyzz<F>* in, Xyzz<F>* out, uint32_t sets, uint32_t cnt, Xyzz<F>* host, cudaStream_t stream) {
    for (; cnt > 1; cnt /= 2) {
        halve<F><<<blocks_for((size_t)sets * cnt / 2), kThreads, 0, stream>>>(in, out, sets * cnt / 2);
        CUZK_CUDA_CHECK(cudaGetLastError());
        std::swap(in, out);
    }
    CUZK_CUDA_CHECK(cudaMemcpyAsync(host, in, (size_t)sets * sizeof(Xyzz<F>), cudaMemcpyDeviceToHost, stream));
}

// ---- ones -----------------------------------------------------------------------------------------------------
// A warp takes 32 pieces of work at once and its lanes take the entries in turns (lane j the j-th, (j + 32)-th, ...
// of the warp's entries): every lane adds about as many bases, and consecutive lanes read nearby bases and indices.
// One sum per lane. Occupancy as the accumulation's (AccMinBlocks): the same point arithmetic.
constexpr unsigned kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;

// Listed ones: a warp takes kWarp * L consecutive indices.
template <class DF>
__global__ void __launch_bounds__(kThreads, AccMinBlocks<DF>::value)
    sum_indexed(const BaseDev<DF>* __restrict__ bases, const uint32_t* __restrict__ idx, uint32_t count, uint32_t L,
                uint32_t sums, Xyzz<DF>* __restrict__ out) {
    const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= sums) return;
    const uint64_t begin = (uint64_t)(p / kWarp) * kWarp * L + p % kWarp;
    const uint64_t stop = (uint64_t)(p / kWarp + 1) * kWarp * L;
    const uint64_t end = stop < count ? stop : count;
    Xyzz<DF> acc = identity<DF>();
    for (uint64_t e = begin; e < end; e += kWarp) {
        const BaseDev<DF> b = load_base(bases, idx[e]);
        if (!base_is_infinity(b)) add_affine(acc, b.x, b.y);
    }
    out[p] = acc;
}

// The position of the n-th (from 0) set bit of w, which has more than n set bits.
__device__ __forceinline__ uint32_t nth_set_bit(uint64_t w, uint32_t n) {
    uint32_t pos = 0;
#pragma unroll
    for (uint32_t width = 32; width; width >>= 1) {
        const uint32_t c = __popcll(w & ((uint64_t(1) << width) - 1));
        if (n >= c) {
            n -= c;
            w >>= width;
            pos += width;
        }
    }
    return pos;
}

// The ones as a bitmap: a warp takes kWarp * kOnesWords words, kWarp at a time; the lanes count the set bits of
// their word, a prefix sum over the warp numbers them, and each lane finds its turn's bit by a binary search over
// those sums (shuffles) and a search within the word.
template <class DF>
__global__ void __launch_bounds__(kThreads, AccMinBlocks<DF>::value)
    sum_bits(const BaseDev<DF>* __restrict__ bases, const uint64_t* __restrict__ bits, uint32_t words, uint32_t sums,
             Xyzz<DF>* __restrict__ out) {
    const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= sums) return;  // whole warps: sums is a multiple of kWarp
    const uint32_t lane = p % kWarp;
    const uint64_t first = (uint64_t)(p / kWarp) * kWarp * kOnesWords;  // the warp's first word
    Xyzz<DF> acc = identity<DF>();
    for (uint32_t g = 0; g < kOnesWords; g++) {
        const uint64_t w0 = first + g * kWarp;
        if (w0 >= words) break;  // the same for the whole warp
        const uint64_t word = w0 + lane < words ? bits[w0 + lane] : 0;
        const uint32_t cnt = __popcll(word);
        uint32_t incl = cnt;
#pragma unroll
        for (uint32_t d = 1; d < kWarp; d <<= 1) {
            const uint32_t t = __shfl_up_sync(kFullMask, incl, d);
            if (lane >= d) incl += t;
        }
        const uint32_t total = __shfl_sync(kFullMask, incl, kWarp - 1);
        const uint32_t excl = incl - cnt;
        for (uint32_t r = 0; r < total; r += kWarp) {
            const uint32_t n = r + lane;  // this lane's set bit, counted over the kWarp words
            uint32_t owner = 0;           // the last lane whose first set bit is at most n
#pragma unroll
            for (uint32_t step = kWarp / 2; step; step >>= 1)
                if (__shfl_sync(kFullMask, excl, owner + step) <= n) owner += step;
            const uint64_t ow = __shfl_sync(kFullMask, word, owner);
            const uint32_t oe = __shfl_sync(kFullMask, excl, owner);
            if (n < total) {
                const uint32_t i = (uint32_t)((w0 + owner) * 64 + nth_set_bit(ow, n - oe));
                const BaseDev<DF> b = load_base(bases, i);
                if (!base_is_infinity(b)) add_affine(acc, b.x, b.y);
            }
        }
    }
    out[p] = acc;
}

// ---- the ones of several vectors at once (MsmContext::sum_patterns) -------------------------------------------
// Base i's pattern: bit p set where bit i of bitmap p is (bitmap p at bits + p * words). Its key is pattern - 1, and
// a base in no bitmap gets the sentinel 2^K - 1, which sorts last and ends the accumulation's runs.
__global__ void pattern_keys(const uint64_t* __restrict__ bits, uint32_t words, uint32_t K, uint32_t count,
                             uint32_t* __restrict__ keys, uint32_t* __restrict__ vals) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const uint32_t w = i >> 6, b = i & 63;  // a warp's lanes read the same words
    uint32_t pattern = 0;
    for (uint32_t p = 0; p < K; p++) pattern |= (uint32_t)((bits[(size_t)p * words + w] >> b) & 1) << p;
    keys[i] = pattern ? pattern - 1 : (1u << K) - 1;
    vals[i] = i << 1;  // count < 2^31: the shift fits; sign bit 0
}

// rows[p 2^(K-1) + j] = the bucket of the j-th pattern that holds p (j's bits with a one put in at bit p), so that
// row p sums to vector p's ones.
template <class F>
__global__ void pattern_rows(const Xyzz<F>* __restrict__ buckets, uint32_t K, Xyzz<F>* __restrict__ rows) {
    const uint32_t half = 1u << (K - 1);
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= K * half) return;
    const uint32_t p = t / half, j = t % half;
    const uint32_t pattern = ((j >> p) << (p + 1)) | (1u << p) | (j & ((1u << p) - 1));
    rows[t] = buckets[pattern - 1];
}

// ---- planning -------------------------------------------------------------------------------------------------
// Partial sums (lanes of whole warps) of k listed ones or of a bitmap of ones_words words.
inline uint32_t ones_sums(size_t k, size_t ones_words) {
    const size_t per_warp = ones_words ? (size_t)kWarp * kOnesWords : (size_t)kWarp * kOnesPiece;
    const size_t items = ones_words ? ones_words : k;
    return (uint32_t)((items + per_warp - 1) / per_warp * kWarp);
}

// Pieces of a scratch allocation, each 256-byte aligned, in order; with base == nullptr it only counts the bytes.
struct Carver {
    std::byte* base;
    size_t off = 0;
    template <class T>
    T* take(size_t count) {
        T* r = base ? reinterpret_cast<T*>(base + off) : nullptr;
        off += align_up(count * sizeof(T));
        return r;
    }
};

// The sorted (key, value) pairs of a group of P entries (the sort's double buffers) and what the accumulation of
// their `chunks` chunks leaves for the joins (accumulate_chunks, join_runs): a Pippenger group's and
// sum_patterns' alike.
template <class F>
struct SortedRuns {
    uint32_t *keys0, *keys1, *vals0, *vals1;
    uint32_t *key_head, *key_tail, *long_runs, *long_list;
    Xyzz<F>*head, *tail;

    static SortedRuns carve(Carver& c, size_t P, uint32_t chunks, uint32_t walk) {
        SortedRuns r;
        r.keys0 = c.take<uint32_t>(P);
        r.keys1 = c.take<uint32_t>(P);
        r.vals0 = c.take<uint32_t>(P);
        r.vals1 = c.take<uint32_t>(P);
        r.key_head = c.take<uint32_t>(chunks);
        r.key_tail = c.take<uint32_t>(chunks);
        r.long_runs = c.take<uint32_t>(2);
        r.long_list = c.take<uint32_t>(long_list_size(chunks, walk));
        r.head = c.take<Xyzz<F>>(chunks);
        r.tail = c.take<Xyzz<F>>(chunks);
        return r;
    }
    Blocks<F> blocks() const { return {head, tail, key_head, key_tail, long_runs, long_list}; }
};

// Scratch layout of one call; the same function sizes the allocation (base == nullptr) and carves it.
template <class F>
struct Plan {
    // Pippenger
    uint32_t m = 0;
    unsigned c = 0, W = 0, wg = 0;  // window bits, windows, windows per group
    uint32_t pre_stride = 0;        // bases per window of the precomputed table (0: none)
    unsigned sets = 0;              // bucket sets per group: wg, or 1 with precomputed windows
    uint32_t H = 0, sentinel = 0;
    size_t P = 0;          // pairs per (full) group: m * wg
    uint32_t L = 0;        // sorted entries per accumulation chunk (thread)
    unsigned lanes = 1;    // threads per point in the reduction's segment walks (GpuMsmConfig::reduce_lanes)
    uint32_t walk = 0;     // chunks a run may span for one thread's walk (GpuMsmConfig::walk_chunks)
    uint32_t chunks = 0;   // chunks of a full group: ceil(P / L)
    uint32_t T = 0, S = 0;  // reduction segments per window, buckets per segment
    // A two-level reduction (short segments, no precomputed table): the second level's segments per window and
    // their length (0: one level; see launch_segments' `runs`).
    uint32_t T2 = 0, S2 = 0;
    size_t cub_bytes = 0;
    bool device_scalars = false;  // the call's scalars are read in place on the device: no room for them here
    // ones
    uint32_t k = 0, q2 = 0;  // ones, pieces rounded up to a power of two
    uint32_t words = 0;      // ones given as a bitmap of this many words (0: as k indices)
    size_t total = 0;

    struct Ptrs {
        Limbs4* scalars;
        uint32_t* index;
        SortedRuns<F> sorted;
        Xyzz<F>*buckets, *seg0, *seg1, *runs;
        void* cub;
        uint32_t* ones_idx;
        Xyzz<F>*ones0, *ones1;
    };

    Ptrs carve(std::byte* base) const {
        Ptrs p{};
        Carver c{base};
        if (m) {
            // The index list first, at the same address for every m: a tail uploaded by one call serves the next.
            p.index = c.take<uint32_t>(m);
            p.scalars = device_scalars ? nullptr : c.take<Limbs4>(m);
            p.sorted = SortedRuns<F>::carve(c, P, chunks, walk);
            p.buckets = c.take<Xyzz<F>>((size_t)sets * H);
            p.seg0 = c.take<Xyzz<F>>((size_t)sets * T);
            p.seg1 = c.take<Xyzz<F>>((size_t)sets * std::max<uint32_t>(T / 2, 1));
            p.runs = T2 ? c.take<Xyzz<F>>((size_t)sets * T) : nullptr;
            p.cub = c.take<std::byte>(cub_bytes);
        }
        if (k) {
            p.ones_idx = c.take<uint32_t>(words ? (size_t)words * 2 : (size_t)k);
            p.ones0 = c.take<Xyzz<F>>(q2);
            p.ones1 = c.take<Xyzz<F>>(std::max<uint32_t>(q2 / 2, 1));
        }
        const_cast<Plan*>(this)->total = c.off;
        return p;
    }
};

// Windows per group of a call of m scalars at c bits, its groups at most max_pairs pairs (make_plan): as many as
// fit, fewer where that saves a sort pass (gpu_msm_windows_per_group); with a table as many as fit.
inline unsigned group_windows(size_t m, unsigned c, size_t max_pairs, bool table) {
    const unsigned W = num_windows(c);
    const size_t fit = std::min(max_pairs, kMaxPairsPerGroup) / std::max<size_t>(m, 1);
    const auto most = (unsigned)std::min<size_t>(W, std::max<size_t>(1, fit));
    return table ? most : gpu_msm_windows_per_group(W, c, most, m);
}

// The default chunk of P pairs over sets bucket sets of H (make_plan).
template <class F>
uint32_t default_chunk(size_t P, unsigned sets, uint32_t H, unsigned sm_count) {
    return whole_waves(P,
                       std::max({kMinPiece<F>, pow2_ceil((P + (1u << 21) - 1) >> 21),
                                 pow2_ceil(std::max<size_t>(1, P / ((size_t)sets * H)))}),
                       accumulation_threads<F>(sm_count));
}

// The walks' cap where the call does not set one: a warp a run past 4 chunks where the top window's few digit
// values make runs of tens of chunks (2^27 at c = 22: ~2^13 values, runs of ~32 chunks of 512; H100, the same call:
// merge 8.2 -> 5.2 ms, the MSM 728.5 -> 725.4 ms), one thread's walk up to kWalkCap chunks elsewhere (2^26 at c = 20:
// runs of ~4 chunks, merge 2.0 ms against 2.7 with warps). A table's windows share one bucket set: kWalkCap.
inline uint32_t default_walk(size_t m, unsigned c, unsigned W, uint32_t L, bool table) {
    const int top = 255 - (int)((W - 1) * c);  // the top window's bits of a scalar below r < 2^255
    if (table || top <= 0 || top >= 32 || L == 0) return kWalkCap;
    const double run_chunks = (double)m / (double)(uint64_t{1} << top) / (double)L;
    return run_chunks > 16 ? 4 : kWalkCap;
}

// pre_c: the window width of the precomputed table (0: none; its stride is pre_stride).
// max_pairs: (key, value) pairs per window group at most (at least one window per group whatever it says).
// device_scalars: the scalars are device memory read in place (MsmContext::msm_device: the H query's 2^27 of a
// 32 GiB partition would otherwise take 4.3 GB of scratch for nothing).
template <class F>
Plan<F> make_plan(size_t m, size_t k, const GpuMsmConfig& cfg, unsigned sm_count, unsigned pre_c = 0,
                  uint32_t pre_stride = 0, size_t ones_words = 0, size_t max_pairs = kMaxPairsPerGroup,
                  bool device_scalars = false) {
    if (m >= (size_t(1) << 31) || k >= (size_t(1) << 31))
        throw std::invalid_argument("gpu msm: at most 2^31 - 1 scalars");
    Plan<F> pl;
    pl.device_scalars = device_scalars;
    pl.m = (uint32_t)m;
    pl.k = (uint32_t)k;
    pl.words = (uint32_t)ones_words;
    if (k) pl.q2 = pow2_ceil(ones_sums(k, ones_words));
    if (m) {
        pl.c = pre_c ? pre_c : cfg.window_bits ? cfg.window_bits : gpu_msm_window_bits(m, sm_count);
        if (pl.c < kMinWindow || pl.c > kMaxWindow)
            throw std::invalid_argument("gpu msm: window_bits must be in [2, 24]");
        pl.W = num_windows(pl.c);
        pl.wg = group_windows(m, pl.c, max_pairs, pre_c != 0);
        pl.pre_stride = pre_c ? pre_stride : 0;
        pl.sets = pre_c ? 1 : pl.wg;
        pl.H = 1u << (pl.c - 1);
        pl.sentinel = pl.sets * pl.H;  // < 2^28: at most 128 sets of H <= 2^23
        pl.P = (size_t)m * pl.wg;
        // Default chunk: kMinPiece entries, more for large calls so the blocks (2 points per chunk) stay <= 2^22,
        // and at least a bucket's expected run (P / (sets H) for random scalars: m / H, or wg times that where a
        // table's windows share one bucket set), so a cut run spans about two chunks (walk_runs; the narrow top
        // window's runs are longer); then stretched so the chunks fill whole waves of the accumulation.
        pl.L = cfg.piece_points ? cfg.piece_points : default_chunk<F>(pl.P, pl.sets, pl.H, sm_count);
        if ((pl.P + pl.L - 1) / pl.L >= (size_t(1) << 30))
            throw std::invalid_argument("gpu msm: too many accumulation chunks; raise piece_points");
        pl.chunks = (uint32_t)((pl.P + pl.L - 1) / pl.L);
        pl.T = std::min<uint32_t>(pl.H, pow2_floor(std::max<uint32_t>(1, kSegmentThreads / pl.sets)));
        pl.S = pl.H / pl.T;
        if (cfg.reduce_lanes > 2) throw std::invalid_argument("gpu msm: reduce_lanes must be 0, 1 or 2");
        pl.lanes = cfg.reduce_lanes ? cfg.reduce_lanes : default_reduce_lanes<F>(pl.S);
        pl.walk = cfg.walk_chunks ? cfg.walk_chunks : default_walk(pl.m, pl.c, pl.W, pl.L, pre_c != 0);
        // Segments of a few buckets spend more on multiplying their sums by their offsets (up to c - 1 doublings)
        // than on their walks: those sums go to a second, T / S2 times smaller reduction instead.
        if (cfg.reduce_levels > 2) throw std::invalid_argument("gpu msm: reduce_levels must be 0, 1 or 2");
        if (cfg.reduce_levels != 1 && pl.S <= kTwoLevelS && pl.T >= 2) {
            pl.S2 = std::min<uint32_t>(kSecondS, pl.T);
            pl.T2 = pl.T / pl.S2;
        }
        // CUB scratch, queried (no launch) for the largest group.
        size_t sort_b = 0;
        cub::DoubleBuffer<uint32_t> kb(nullptr, nullptr), vb(nullptr, nullptr);
        const int end_bit = 32 - __builtin_clz(pl.sentinel);
        CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_b, kb, vb, (int64_t)pl.P, 0, end_bit));
        pl.cub_bytes = sort_b;
    }
    pl.carve(nullptr);
    return pl;
}

// Scratch layout of a sum_patterns call of K bitmaps over `count` bases (carve as Plan's).
template <class F>
struct PatternPlan {
    uint32_t K = 0, count = 0, words = 0;
    uint32_t L = 0, chunks = 0;  // accumulation chunks, as a Pippenger group's
    size_t cub_bytes = 0, total = 0;

    struct Ptrs {
        uint64_t* bits;
        SortedRuns<F> sorted;
        Xyzz<F>*buckets, *rows0, *rows1;
        void* cub;
    };
    uint32_t sentinel() const { return (1u << K) - 1; }
    // Runs of more than 4 chunks go to a warp each: a pattern's run holds about count / 2^K bases, hundreds of
    // chunks at Filecoin's sizes.
    static constexpr uint32_t kWalk = 4;

    Ptrs carve(std::byte* base) const {
        Ptrs p{};
        Carver c{base};
        const size_t half = size_t{1} << (K - 1);
        p.bits = c.take<uint64_t>((size_t)K * words);
        p.sorted = SortedRuns<F>::carve(c, count, chunks, kWalk);
        p.buckets = c.take<Xyzz<F>>(sentinel());
        p.rows0 = c.take<Xyzz<F>>(K * half);
        p.rows1 = c.take<Xyzz<F>>(K * std::max<size_t>(half / 2, 1));
        p.cub = c.take<std::byte>(cub_bytes);
        const_cast<PatternPlan*>(this)->total = c.off;
        return p;
    }
};

// K in [1, 16] bitmaps, 0 < count < 2^31. The chunk (piece, where GpuMsmConfig::piece_points sets one): a Pippenger
// call's default floor (kMinPiece, at most ~2^21 chunks), up to a 512th of a pattern's expected run (runs within a
// warp's join) while the chunks still fill four waves of the accumulation, stretched to whole waves. H100, 4
// bitmaps over 2^26 G1 bases (runs of 2^22): chunks of a 512th of a run (8,192, a sixth of a wave) took 175 ms
// to accumulate, against 61 ms for the four ones' sums one call each.
template <class F>
PatternPlan<F> make_pattern_plan(size_t K, size_t count, unsigned sm_count, unsigned piece = 0) {
    PatternPlan<F> pl;
    pl.K = (uint32_t)K;
    pl.count = (uint32_t)count;
    pl.words = (uint32_t)((count + 63) / 64);
    const size_t run = std::max<size_t>(1, count / pl.sentinel());
    const size_t threads = accumulation_threads<F>(sm_count);
    const uint32_t fill = pow2_floor(std::max<size_t>(1, count / (4 * threads)));
    pl.L = piece ? piece
                 : whole_waves(count,
                               std::max({kMinPiece<F>, pow2_ceil((count + (1u << 21) - 1) >> 21),
                                         std::min(pow2_ceil((run + 511) / 512), fill)}),
                               threads);
    pl.chunks = (uint32_t)((count + pl.L - 1) / pl.L);
    cub::DoubleBuffer<uint32_t> kb(nullptr, nullptr), vb(nullptr, nullptr);
    CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, pl.cub_bytes, kb, vb, (int64_t)count, 0, (int)K));
    pl.carve(nullptr);
    return pl;
}

}  // namespace

// The scratch bytes and who used them last; `mu` is held by a call from start to end.
struct MsmScratch::Impl {
    int device = 0;
    std::mutex mu;
    DeviceBuffer<std::byte> mem;
    // Bumped whenever the bytes are reallocated or another context takes them: a context's cached tail indices
    // (MsmContext::Impl::cached_generation) are valid only while it stays the same.
    uint64_t generation = 0;
    const void* user = nullptr;  // the context of the last call
    std::shared_ptr<MsmScratch> fallback;  // where calls go that do not fit (MsmScratch's second constructor)
    size_t limit = 0;                      // bytes at most (0: what the device has)
    std::atomic<uint64_t> fallbacks{0};

    explicit Impl(int d) : device(d) {}
    ~Impl() {
        if (mem) (void)cudaSetDevice(device);  // then `mem` frees its bytes
    }
    std::byte* ptr() const { return mem.get(); }
    size_t size() const { return mem.size(); }
    // Room for `bytes`, checked against free memory first so that an MSM too large for the card fails with a
    // message that says so. Caller holds mu.
    void reserve(size_t bytes) {
        if (bytes <= size()) return;
        const size_t avail = available();
        if (bytes > avail)
            throw CudaError("gpu msm: a call needs " + std::to_string(bytes) + " bytes of device scratch, " +
                            std::to_string(avail) + " are available");
        CUZK_CUDA_CHECK(mem.reset());  // the old bytes go first: both might not fit
        generation++;  // a tail uploaded into the old bytes is gone
        mem = DeviceBuffer<std::byte>(bytes);
    }
    // reserve(), answering false instead of throwing where the room is not there (too little free memory, or
    // another thread's allocation took the bytes available() counted; the allocator's error is cleared). Caller
    // holds mu.
    bool try_reserve(size_t bytes) {
        try {
            reserve(bytes);
            return true;
        } catch (const CudaError&) {
            (void)cudaGetLastError();  // a failed cudaMalloc's status; later launch checks would report it
            return false;
        }
    }
    // The largest call that fits: the bytes held plus the device's free memory, at most the limit.
    size_t available() const {
        size_t free_b = 0, total_b = 0;
        CUZK_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        return limit ? std::min(limit, free_b + size()) : free_b + size();
    }
};

template <class Cfg>
struct MsmContext<Cfg>::Impl {
    using F = typename DeviceFieldOf<typename Cfg::F>::type;
    using P = Xyzz<F>;
    using Base = BaseDev<F>;
    static_assert(sizeof(P) == sizeof(XYZZ<Cfg>), "device XYZZ layout equals the CPU's");

    GpuMsmConfig cfg;
    size_t n = 0;
    unsigned sm_count = 0;
    unsigned pre_c = 0;  // window width of the precomputed table, 0 without one
    unsigned pre_windows = 1;  // bases entries per base held on the device (W with the table)
    DeviceBuffer<BaseDev<F>> bases_mem;  // n entries, or n * W: entry w * n + i = 2^(w pre_c) B_i
    std::shared_ptr<MsmScratch> scratch;  // cfg.scratch, or this context's own
    // The tail (SplitTail::id, 0: none) whose indices the front of a scratch's index list holds, that scratch (its
    // own or its fallback) and the scratch generation it was uploaded in.
    uint64_t cached_tail = 0, cached_generation = 0;
    const MsmScratch::Impl* cached_in = nullptr;
    // Page-locked room for the window sums (or the ones' sum) coming back: a copy into pageable memory holds the
    // calling thread until the stream has drained, and goes through the driver's staging, which other threads'
    // allocations and frees can hold up (stalls of 0.15-0.19 s seen once in a C2). Made on first use.
    PinnedBuffer<P> h_sums;
    // Created on cfg.device by the constructor. Declared last: destroyed first, once its queued work is done, before
    // the bases and the scratch that work reads.
    Stream owned_stream;

    // The n bases go up packed into the device layout on the way: upload(dst, stream) queues them (upload_bases).
    Impl(size_t count, const std::function<void(BaseDev<F>*, cudaStream_t)>& upload, const GpuMsmConfig& c)
        : cfg(c), n(count), scratch(c.scratch ? c.scratch : std::make_shared<MsmScratch>(c.device)) {
        if (n >= (size_t(1) << 31)) throw std::invalid_argument("gpu msm: at most 2^31 - 1 bases");
        if (scratch->device() != cfg.device)
            throw std::invalid_argument("gpu msm: a scratch of device " + std::to_string(scratch->device()) +
                                        " for a context on device " + std::to_string(cfg.device));
        cfg.scratch.reset();  // held in `scratch`; tuning() hands out the knobs only
        CUZK_CUDA_CHECK(cudaSetDevice(cfg.device));
        int sms = 0;
        CUZK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, cfg.device));
        sm_count = (unsigned)std::max(sms, 1);
        if (cfg.precompute_windows && n) {
            pre_c = cfg.window_bits ? cfg.window_bits : gpu_msm_window_bits(n, sm_count, true);
            if (pre_c < kMinWindow || pre_c > kMaxWindow)
                throw std::invalid_argument("gpu msm: window_bits must be in [2, 24]");
            pre_windows = num_windows(pre_c);
            if ((uint64_t)n * pre_windows >= (uint64_t(1) << 31))
                throw std::invalid_argument("gpu msm: a precomputed table of " + std::to_string(pre_windows) +
                                            " windows of " + std::to_string(n) +
                                            " bases exceeds 2^31 entries; use wider windows or no table");
        }
        owned_stream = Stream::create(cudaStreamNonBlocking, cfg.high_priority ? highest_stream_priority() : 0);
        const cudaStream_t stream = owned_stream.get();
        if (n) {
            size_t free_b = 0, total_b = 0;
            CUZK_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
            const size_t slice = std::min<size_t>(n, size_t(1) << 20);
            const size_t need = n * pre_windows * sizeof(BaseDev<F>) + (pre_c ? table_tmp_bytes(slice) : 0);
            if (need > free_b)
                throw CudaError("gpu msm: " + std::to_string(n) + " bases" +
                                (pre_c ? " with " + std::to_string(pre_windows) + " precomputed windows" : "") +
                                " need " + std::to_string(need) + " bytes of device memory, " +
                                std::to_string(free_b) + " are free");
            bases_mem = DeviceBuffer<BaseDev<F>>(n * pre_windows);
            try {
                upload(bases_mem.get(), stream);
            } catch (...) {
                (void)cudaStreamSynchronize(stream);  // the chunks queued before the failure still read the buffers
                throw;
            }
            CUZK_CUDA_CHECK(cudaStreamSynchronize(stream));
            if (pre_c) build_table(slice);
        }
    }

    // Scratch for the table: one slice's XYZZ results and running products (build_table).
    static size_t table_tmp_bytes(size_t slice) { return slice * (sizeof(Xyzz<F>) + sizeof(F)); }

    // Window w of the table from window w - 1, one slice of bases at a time.
    void build_table(size_t slice) {
        constexpr uint32_t kPerThread = 16;
        const cudaStream_t stream = owned_stream.get();
        BaseDev<F>* const d_bases = bases_mem.get();
        DeviceBuffer<std::byte> tmp(slice * (sizeof(Xyzz<F>) + sizeof(F)));
        auto* q = reinterpret_cast<Xyzz<F>*>(tmp.get());
        auto* pre = reinterpret_cast<F*>(tmp.get() + slice * sizeof(Xyzz<F>));
        for (unsigned w = 1; w < pre_windows; w++) {
            for (size_t off = 0; off < n; off += slice) {
                const uint32_t cnt = (uint32_t)std::min(slice, n - off);
                times_two_pow_c<F><<<blocks_for((cnt + kPerThread - 1) / kPerThread), kThreads, 0, stream>>>(
                    d_bases + (w - 1) * n + off, d_bases + w * n + off, cnt, pre_c, kPerThread, q, pre);
                CUZK_CUDA_CHECK(cudaGetLastError());
            }
        }
        CUZK_CUDA_CHECK(cudaStreamSynchronize(stream));
        CUZK_CUDA_CHECK(tmp.reset());
    }

    // The plan of a call with m Pippenger scalars and k ones, its window groups made smaller (halved, down to one
    // window) while it does not fit in what the scratch can hold. Caller holds the scratch.
    Plan<F> fitting_plan(size_t m, size_t k, size_t ones_words, MsmScratch::Impl& sc, bool on_device) const {
        Plan<F> pl = make_plan<F>(m, k, cfg, sm_count, pre_c, (uint32_t)n, ones_words, kMaxPairsPerGroup, on_device);
        if (pl.total <= sc.size() || !m) return pl;
        const size_t avail = sc.available();
        while (pl.total > avail && pl.wg > 1)
            pl = make_plan<F>(m, k, cfg, sm_count, pre_c, (uint32_t)n, ones_words, m * (pl.wg / 2), on_device);
        return pl;
    }

    // Pinned room for n points coming back from the device (grown as needed; calls on a context take turns).
    P* sums_room(size_t n) {
        if (h_sums.size() < n) h_sums = PinnedBuffer<P>(std::max<size_t>(n, 32));
        return h_sums.get();
    }

    // Sum of the bases listed in h_ones (k of them), or of those whose bit is set in h_ones read as pl.words
    // 64-bit words, as an XYZZ point on the host.
    XYZZ<Cfg> sum_ones(const Plan<F>& pl, const typename Plan<F>::Ptrs& b, const void* h_ones, KernelTimer& kt) {
        const uint32_t k = pl.k;
        const cudaStream_t stream = owned_stream.get();
        const BaseDev<F>* const d_bases = bases_mem.get();
        const int span = kt.start("ones", stream);
        PinnedUploader::shared().upload(b.ones_idx, h_ones, pl.words ? (size_t)pl.words * 8 : (size_t)k * 4,
                                        stream);
        CUZK_CUDA_CHECK(cudaMemsetAsync(b.ones0, 0, (size_t)pl.q2 * sizeof(P), stream));  // padding = identity
        const uint32_t q = ones_sums(k, pl.words);  // whole warps; kThreads is a multiple of kWarp
        static_assert(kThreads % kWarp == 0);
        if (pl.words)
            sum_bits<F><<<blocks_for(q), kThreads, 0, stream>>>(d_bases, reinterpret_cast<const uint64_t*>(b.ones_idx),
                                                                 pl.words, q, b.ones0);
        else
            sum_indexed<F><<<blocks_for(q), kThreads, 0, stream>>>(d_bases, b.ones_idx, k, kOnesPiece, q, b.ones0);
        CUZK_CUDA_CHECK(cudaGetLastError());
        P* in = b.ones0;
        P* out = b.ones1;
        for (uint32_t cnt = pl.q2; cnt > 1; cnt /= 2) {
            halve<F><<<blocks_for(cnt / 2), kThreads, 0, stream>>>(in, out, cnt / 2);
            CUZK_CUDA_CHECK(cudaGetLastError());
            std::swap(in, out);
        }
        P* const host = sums_room(1);
        CUZK_CUDA_CHECK(cudaMemcpyAsync(host, in, sizeof(P), cudaMemcpyDeviceToHost, stream));
        kt.stop(span, stream);
        CUZK_CUDA_CHECK(cudaStreamSynchronize(stream));
        XYZZ<Cfg> r;
        std::memcpy(&r, host, sizeof r);
        return r;
    }

    // Pippenger over m scalars (Montgomery cuzk::Fr when mont, else canonical limbs), base i or h_index[i].
    // on_device: h_scalars is device memory (read in place), else host memory (uploaded).
    // tail: the split's tail (h_index starts with its indices), or nullptr.
    // sc: the scratch the call holds (b is carved from it).
    Jacobian<Cfg> pippenger(const Plan<F>& pl, const typename Plan<F>::Ptrs& b, const MsmScratch::Impl& sc,
                            const Limbs4* h_scalars, bool mont, const uint32_t* h_index, KernelTimer& kt,
                            bool on_device = false, const SplitTail* tail = nullptr) {
        const uint32_t m = pl.m;
        const cudaStream_t stream = owned_stream.get();
        const BaseDev<F>* const d_bases = bases_mem.get();
        const Limbs4* d_scalars = on_device ? h_scalars : b.scalars;
        const int up = kt.start("upload", stream);
        // Pageable host arrays through pinned staging (pinned_upload.cuh).
        if (!on_device) PinnedUploader::shared().upload(b.scalars, h_scalars, (size_t)m * sizeof(Limbs4), stream);
        if (h_index) {
            // A tail this context uploaded last time (same tail, same scratch) is still at the front of the index
            // list: only the extras move.
            const bool cached =
                tail && tail->id == cached_tail && &sc == cached_in && sc.generation == cached_generation;
            const size_t skip = cached ? tail->indices.size() : 0;
            cached_tail = 0;  // until this call has finished
            if (m > skip) PinnedUploader::shared().upload(b.index + skip, h_index + skip, (m - skip) * 4, stream);
        }
        kt.stop(up, stream);
        // Window sums (Horner below), or with the precomputed table one sum per group (added up below).
        P* const host_sums = sums_room(pl.T2 ? 2 * pl.W : pl.W);
        for (unsigned w0 = 0; w0 < pl.W; w0 += pl.wg) {
            const unsigned wg = std::min(pl.wg, pl.W - w0);
            const unsigned sets = pl.pre_stride ? 1 : wg;
            const uint32_t sentinel = sets * pl.H;
            const size_t P_g = (size_t)m * wg;
            const uint32_t chunks = (uint32_t)((P_g + pl.L - 1) / pl.L);
            const int end_bit = 32 - __builtin_clz(sentinel);
            const int sort_span = kt.start("digits_sort", stream);
            if (mont)
                digits_kernel<true><<<blocks_for(m), kThreads, 0, stream>>>(
                    d_scalars, h_index ? b.index : nullptr, m, pl.c, w0, wg, pl.pre_stride, b.sorted.keys0,
                    b.sorted.vals0);
            else
                digits_kernel<false><<<blocks_for(m), kThreads, 0, stream>>>(
                    d_scalars, h_index ? b.index : nullptr, m, pl.c, w0, wg, pl.pre_stride, b.sorted.keys0,
                    b.sorted.vals0);
            CUZK_CUDA_CHECK(cudaGetLastError());
            cub::DoubleBuffer<uint32_t> kb(b.sorted.keys0, b.sorted.keys1), vb(b.sorted.vals0, b.sorted.vals1);
            size_t tmp = pl.cub_bytes;
            CUZK_CUDA_CHECK(
                cub::DeviceRadixSort::SortPairs(b.cub, tmp, kb, vb, (int64_t)P_g, 0, end_bit, stream));
            const uint32_t* keys = kb.Current();
            const uint32_t* vals = vb.Current();
            kt.stop(sort_span, stream);
            const int acc_span = kt.start("accumulate", stream);
            // Buckets no run reaches stay the identity (all-zero bytes).
            CUZK_CUDA_CHECK(cudaMemsetAsync(b.buckets, 0, (size_t)sentinel * sizeof(P), stream));
            const Blocks<F> blk = b.sorted.blocks();
            accumulate_chunks<F><<<blocks_for(chunks), kThreads, 0, stream>>>(d_bases, keys, vals, P_g, pl.L,
                                                                               sentinel, chunks, b.buckets, blk);
            CUZK_CUDA_CHECK(cudaGetLastError());
            kt.stop(acc_span, stream);
            // The runs the chunks cut, joined (walks, or a tree where runs are long): its own span.
            const int merge_span = kt.start("merge", stream);
            join_runs<F>(blk, chunks, sentinel, b.buckets, stream, pl.walk);
            kt.stop(merge_span, stream);
            const int red_span = kt.start("reduce", stream);
            launch_segments<F>(pl.lanes, b.buckets, sets, pl.H, pl.S, pl.T, b.seg0, stream, b.runs);
            halve_into(b.seg0, b.seg1, sets, pl.T, host_sums + w0, stream);
            if (pl.T2) {  // sum_t t R_t of every window, after its weighted sums (same stream: seg0 is free again)
                launch_segments<F>(pl.lanes, b.runs, sets, pl.T, pl.S2, pl.T2, b.seg0, stream);
                halve_into(b.seg0, b.seg1, sets, pl.T2, host_sums + pl.W + w0, stream);
            }
            kt.stop(red_span, stream);
        }
        CUZK_CUDA_CHECK(cudaStreamSynchronize(stream));
        if (h_index && tail) {
            cached_tail = tail->id;
            cached_generation = sc.generation;
            cached_in = &sc;
        }
        std::vector<XYZZ<Cfg>> sums(pl.T2 ? 2 * pl.W : pl.W);
        std::memcpy(sums.data(), host_sums, sums.size() * sizeof(P));
        Jacobian<Cfg> acc = Jacobian<Cfg>::identity();
        // With two levels a bucket set's sum is sum_t A_t + S sum_t t R_t.
        const auto set_sum = [&](size_t j) {
            Jacobian<Cfg> r = sums[j].to_jacobian();
            if (!pl.T2) return r;
            Jacobian<Cfg> second = sums[pl.W + j].to_jacobian();
            for (uint32_t s = pl.S; s > 1; s /= 2) second = second.dbl();
            return r + second;
        };
        if (pl.pre_stride) {
            // The table already scaled window j by 2^(j c): the groups' sums just add.
            for (unsigned w0 = 0; w0 < pl.W; w0 += pl.wg) acc += set_sum(w0);
            return acc;
        }
        // sum_j 2^(j c) S_j by Horner's rule from the top window.
        for (size_t j = pl.W; j-- > 0;) {
            for (unsigned t = 0; t < pl.c; t++) acc = acc.dbl();
            acc += set_sum(j);
        }
        return acc;
    }

    // MsmContext::msm_split.
    Jacobian<Cfg> run_split(const ScalarSplit& split, const KernelSpans& spans) {
        if (split.size > n)
            throw std::invalid_argument("gpu msm: a split of " + std::to_string(split.size) + " scalars for " +
                                        std::to_string(n) + " bases");
        // A split built by hand could index past the bases (or claim a tail it does not start with); the device
        // must never read outside them.
        check_split_indices(split, "gpu msm");
        if (split.dense)
            return run(split.size, split.other_scalars.data(), split.montgomery, nullptr, 0, nullptr, spans);
        const bool bits = !split.one_bits.empty();
        return run(split.other_indices.size(), split.other_scalars.data(), split.montgomery,
                   split.other_indices.data(), split.one_count(),
                   bits ? (const void*)split.one_bits.data() : (const void*)split.one_indices.data(), spans, false,
                   bits ? split.one_bits.size() : 0, split.tail.get());
    }

    // A context made with room for its bases but not their values (gpu::StreamedMsm's chunk buffers): queues the
    // copy of `count` bases, already in the device layout in page-locked host memory, into that room on the
    // context's stream, so the next call runs after it in stream order; the call's bases are then these.
    void load_async(const BaseDev<F>* host, size_t count) {
        if (count > bases_mem.size() || pre_c)
            throw std::invalid_argument("gpu msm: " + std::to_string(count) + " bases loaded into room for " +
                                        std::to_string(bases_mem.size()));
        CUZK_CUDA_CHECK(cudaSetDevice(cfg.device));
        n = count;
        cached_tail = 0;  // no tail cached against the old bases survives
        if (count)
            CUZK_CUDA_CHECK(cudaMemcpyAsync(bases_mem.get(), host, count * sizeof(BaseDev<F>), cudaMemcpyHostToDevice,
                                            owned_stream.get()));
    }

    // MsmContext::reserve_device_call.
    void reserve_device_call(size_t m) {
        CUZK_CUDA_CHECK(cudaSetDevice(cfg.device));
        MsmScratch::Impl& sc = scratch->impl();
        std::lock_guard<std::mutex> lk(sc.mu);
        (void)sc.try_reserve(fitting_plan(m, 0, 0, sc, true).total);
    }

    // The scratch a call of `bytes` runs in, locked by lk: sc, or where sc has a fallback and cannot hold them, the
    // fallback (sc's own bytes go back first, and lk then holds the fallback's lock).
    static MsmScratch::Impl* fall_back_if_short(MsmScratch::Impl* sc, std::unique_lock<std::mutex>& lk, size_t bytes) {
        if (!sc->fallback || sc->try_reserve(bytes)) return sc;
        CUZK_CUDA_CHECK(sc->mem.reset());
        sc->generation++;
        sc->fallbacks++;
        lk.unlock();
        MsmScratch::Impl* f = &sc->fallback->impl();
        lk = std::unique_lock<std::mutex>(f->mu);
        return f;
    }

    // ones_words: h_ones is a bitmap of that many words holding k ones (0: k indices).
    Jacobian<Cfg> run(size_t m, const Limbs4* h_scalars, bool mont, const uint32_t* h_index, size_t k,
                      const void* h_ones, const KernelSpans& spans, bool on_device = false, size_t ones_words = 0,
                      const SplitTail* tail = nullptr) {
        CUZK_CUDA_CHECK(cudaSetDevice(cfg.device));
        MsmScratch::Impl* sc = &scratch->impl();
        std::unique_lock<std::mutex> lk(sc->mu);
        Plan<F> pl = fitting_plan(m, k, ones_words, *sc, on_device);
        // Not even one window a sort fits here (or its bytes were taken between the count and the allocation): the
        // call runs in the fallback.
        if (MsmScratch::Impl* f = fall_back_if_short(sc, lk, pl.total); f != sc) {
            sc = f;
            pl = fitting_plan(m, k, ones_words, *sc, on_device);
        }
        if (sc->user != this) {
            sc->user = this;
            sc->generation++;  // another context's call wrote over the index list
        }
        sc->reserve(pl.total);
        auto b = pl.carve(sc->ptr());
        KernelTimer kt(spans);
        if (!m) cached_tail = 0;  // the ones' buffer now starts where the index list did
        Jacobian<Cfg> acc = Jacobian<Cfg>::identity();
        if (k) acc += sum_ones(pl, b, h_ones, kt).to_jacobian();
        if (m) acc += pippenger(pl, b, *sc, h_scalars, mont, h_index, kt, on_device, tail);
        kt.report();  // both stages synchronize the stream before they return
        return acc;
    }
    // MsmContext::sum_patterns.
    std::vector<Jacobian<Cfg>> run_patterns(std::span<const std::span<const uint64_t>> bitmaps, size_t count,
                                            const KernelSpans& spans) {
        const size_t K = bitmaps.size();
        if (K == 0 || K > MsmContext<Cfg>::kMaxPatternSets)
            throw std::invalid_argument("gpu msm: sum_patterns takes 1 to " +
                                        std::to_string(MsmContext<Cfg>::kMaxPatternSets) + " bitmaps, not " +
                                        std::to_string(K));
        if (count > n)
            throw std::invalid_argument("gpu msm: sum_patterns over " + std::to_string(count) + " of " +
                                        std::to_string(n) + " bases");
        const size_t words = (count + 63) / 64;
        for (size_t p = 0; p < K; p++)
            if (bitmaps[p].size() < words)
                throw std::invalid_argument("gpu msm: sum_patterns' bitmap " + std::to_string(p) + " has " +
                                            std::to_string(bitmaps[p].size()) + " words for " +
                                            std::to_string(count) + " bases");
        std::vector<Jacobian<Cfg>> out(K, Jacobian<Cfg>::identity());
        if (count == 0) return out;
        CUZK_CUDA_CHECK(cudaSetDevice(cfg.device));
        const PatternPlan<F> pl = make_pattern_plan<F>(K, count, sm_count, cfg.piece_points);
        MsmScratch::Impl* sc = &scratch->impl();
        std::unique_lock<std::mutex> lk(sc->mu);
        sc = fall_back_if_short(sc, lk, pl.total);
        sc->reserve(pl.total);
        sc->user = this;
        sc->generation++;  // the bitmaps go where a cached tail's indices were
        cached_tail = 0;
        const auto b = pl.carve(sc->ptr());
        const cudaStream_t stream = owned_stream.get();
        KernelTimer kt(spans);
        const int up = kt.start("upload", stream);
        for (size_t p = 0; p < K; p++)
            PinnedUploader::shared().upload(b.bits + p * words, bitmaps[p].data(), words * 8, stream);
        kt.stop(up, stream);
        const int sort_span = kt.start("digits_sort", stream);
        pattern_keys<<<blocks_for(count), kThreads, 0, stream>>>(b.bits, pl.words, pl.K, pl.count, b.sorted.keys0,
                                                                  b.sorted.vals0);
        CUZK_CUDA_CHECK(cudaGetLastError());
        cub::DoubleBuffer<uint32_t> kb(b.sorted.keys0, b.sorted.keys1), vb(b.sorted.vals0, b.sorted.vals1);
        size_t tmp = pl.cub_bytes;
        CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(b.cub, tmp, kb, vb, (int64_t)count, 0, (int)K, stream));
        kt.stop(sort_span, stream);
        const int acc_span = kt.start("accumulate", stream);
        CUZK_CUDA_CHECK(cudaMemsetAsync(b.buckets, 0, (size_t)pl.sentinel() * sizeof(P), stream));  // identities
        const Blocks<F> blk = b.sorted.blocks();
        accumulate_chunks<F><<<blocks_for(pl.chunks), kThreads, 0, stream>>>(
            bases_mem.get(), kb.Current(), vb.Current(), count, pl.L, pl.sentinel(), pl.chunks, b.buckets, blk);
        CUZK_CUDA_CHECK(cudaGetLastError());
        kt.stop(acc_span, stream);
        const int merge_span = kt.start("merge", stream);
        join_runs<F>(blk, pl.chunks, pl.sentinel(), b.buckets, stream, PatternPlan<F>::kWalk);
        kt.stop(merge_span, stream);
        // Row p: the buckets of the patterns holding p, halved down to one sum a row.
        const int red_span = kt.start("reduce", stream);
        const uint32_t half = 1u << (K - 1);
        pattern_rows<F><<<blocks_for(K * half), kThreads, 0, stream>>>(b.buckets, pl.K, b.rows0);
        CUZK_CUDA_CHECK(cudaGetLastError());
        P* const host = sums_room(K);
        halve_into(b.rows0, b.rows1, pl.K, half, host, stream);  // the K rows as K sets
        kt.stop(red_span, stream);
        CUZK_CUDA_CHECK(cudaStreamSynchronize(stream));
        kt.report();
        for (size_t p = 0; p < K; p++) {
            XYZZ<Cfg> r;
            std::memcpy(&r, host + p, sizeof r);
            out[p] = r.to_jacobian();
        }
        return out;
    }
};

template <class Cfg>
MsmContext<Cfg>::MsmContext(std::span<const Affine<Cfg>> bases, const GpuMsmConfig& cfg)
    : impl_(std::make_unique<Impl>(
          bases.size(),
          [bases](typename Impl::Base* dst, cudaStream_t s) { upload_bases<Cfg, typename Impl::F>(dst, bases, s); },
          cfg)) {}
template <class Cfg>
MsmContext<Cfg>::MsmContext(size_t n, const Fill& fill, const GpuMsmConfig& cfg)
    : impl_(std::make_unique<Impl>(
          n,
          [&fill, n](typename Impl::Base* dst, cudaStream_t s) {
              if (!fill) throw std::invalid_argument("gpu msm: no fill for the bases");
              upload_bases<Cfg, typename Impl::F>(dst, n, fill, s);
          },
          cfg)) {}
template <class Cfg>
MsmContext<Cfg>::~MsmContext() = default;
template <class Cfg>
MsmContext<Cfg>::MsmContext(MsmContext&&) noexcept = default;
template <class Cfg>
MsmContext<Cfg>& MsmContext<Cfg>::operator=(MsmContext&&) noexcept = default;

template <class Cfg>
Jacobian<Cfg> MsmContext<Cfg>::msm(std::span<const Fr> scalars, const KernelSpans& spans) {
    if (scalars.size() > impl_->n)
        throw std::invalid_argument("gpu msm: " + std::to_string(scalars.size()) + " scalars for " +
                                    std::to_string(impl_->n) + " bases");
    static_assert(sizeof(Fr) == sizeof(Limbs4), "Fr is its Montgomery limbs");
    return impl_->run(scalars.size(), reinterpret_cast<const Limbs4*>(scalars.data()), true, nullptr, 0, nullptr,
                      spans);
}

template <class Cfg>
Jacobian<Cfg> MsmContext<Cfg>::msm_device(const Fr* d_scalars, size_t m, const KernelSpans& spans) {
    if (m > impl_->n)
        throw std::invalid_argument("gpu msm: " + std::to_string(m) + " scalars for " + std::to_string(impl_->n) +
                                    " bases");
    if (m && !d_scalars) throw std::invalid_argument("gpu msm: null device scalars");
    return impl_->run(m, reinterpret_cast<const Limbs4*>(d_scalars), true, nullptr, 0, nullptr, spans, true);
}

template <class Cfg>
Jacobian<Cfg> MsmContext<Cfg>::msm_split(const ScalarSplit& split, const KernelSpans& spans) {
    return impl_->run_split(split, spans);
}

template <class Cfg>
GpuMsmConfig& MsmContext<Cfg>::tuning() {
    return impl_->cfg;
}
template <class Cfg>
size_t MsmContext<Cfg>::num_bases() const {
    return impl_->n;
}
template <class Cfg>
const void* MsmContext<Cfg>::device_bases() const {
    return impl_->n ? impl_->bases_mem.get() : nullptr;
}
template <class Cfg>
size_t MsmContext<Cfg>::resident_bytes() const {
    return impl_->n * impl_->pre_windows * sizeof(BaseDev<typename Impl::F>);
}
template <class Cfg>
std::vector<Jacobian<Cfg>> MsmContext<Cfg>::sum_patterns(std::span<const std::span<const uint64_t>> bitmaps,
                                                         size_t count, const KernelSpans& spans) {
    return impl_->run_patterns(bitmaps, count, spans);
}
template <class Cfg>
size_t MsmContext<Cfg>::pattern_call_bytes(size_t sets, size_t count) const {
    if (sets == 0 || sets > kMaxPatternSets || count == 0) return 0;
    CUZK_CUDA_CHECK(cudaSetDevice(impl_->cfg.device));
    return make_pattern_plan<typename Impl::F>(sets, count, impl_->sm_count, impl_->cfg.piece_points).total;
}
template <class Cfg>
size_t MsmContext<Cfg>::call_bytes(size_t pippenger_scalars, size_t ones) const {
    CUZK_CUDA_CHECK(cudaSetDevice(impl_->cfg.device));
    return make_plan<typename Impl::F>(pippenger_scalars, ones, impl_->cfg, impl_->sm_count, impl_->pre_c,
                                       (uint32_t)impl_->n)
        .total;
}
template <class Cfg>
void MsmContext<Cfg>::reserve_device_call(size_t m) {
    if (m > impl_->n)
        throw std::invalid_argument("gpu msm: " + std::to_string(m) + " scalars for " + std::to_string(impl_->n) +
                                    " bases");
    if (m) impl_->reserve_device_call(m);
}
template <class Cfg>
size_t MsmContext<Cfg>::scratch_bytes() const {
    return impl_->scratch->bytes();
}
template <class Cfg>
unsigned MsmContext<Cfg>::precomputed_window_bits() const {
    return impl_->pre_c;
}
template <class Cfg>
size_t MsmContext<Cfg>::precomputed_table_bytes(size_t n, unsigned window_bits) {
    if (window_bits < kMinWindow || window_bits > kMaxWindow)
        throw std::invalid_argument("gpu msm: window_bits must be in [2, 24]");
    return n * num_windows(window_bits) * sizeof(BaseDev<typename Impl::F>);
}


}  // namespace cuzk::gpu
