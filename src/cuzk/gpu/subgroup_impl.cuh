// The device part of the batched subgroup check (gpu/subgroup.hpp): a round's bucket sums. Included by msm.cu and
// msm_g2.cu after msm_impl.cuh, whose sort and accumulation kernels it reuses (one instantiation per curve).
//
// Per batch: the points go up packed as the MSM's bases (BaseDev, upload_bases), or are already there (an
// MsmContext's device_bases(), read in place: the resident check). Per round of m trits:
//   1. subgroup_labels: one thread per ChaCha20 block (16 points), the CPU's labels exactly (batch_subgroup.cpp:
//      word i of the stream with nonce (round, 0, "bsub"), Lemire's multiply-and-reject with retries from the
//      streams of later attempts), turned into key = bucket of {u, -u} (sentinel K for u = 0, sorted last and
//      skipped) and value = point << 1 | negate;
//   2. cub::DeviceRadixSort over the keys' 17 bits;
//   3. accumulate_chunks / join_runs: the sum of each bucket's run, as for an MSM window;
//   4. the K bucket sums (XYZZ) come back to the host.
#pragma once

#include <cub/device/device_radix_sort.cuh>

#include <string>
#include <vector>

#include "cuzk/gpu/msm_impl.cuh"
#include "cuzk/gpu/subgroup.hpp"

namespace cuzk::gpu {

namespace {

struct ChachaKey {
    uint32_t w[8];
};

constexpr uint32_t kLabelNonceTag = 0x62737562;  // "bsub": batch_subgroup.cpp's streams

__device__ __forceinline__ void chacha_qr(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d) {
    a += b;
    d = __funnelshift_l(d ^ a, d ^ a, 16);
    c += d;
    b = __funnelshift_l(b ^ c, b ^ c, 12);
    a += b;
    d = __funnelshift_l(d ^ a, d ^ a, 8);
    c += d;
    b = __funnelshift_l(b ^ c, b ^ c, 7);
}

// RFC 8439 section 2.3, as chacha20_block on the CPU.
__device__ void chacha20_block_dev(const ChachaKey& key, uint32_t counter, uint32_t n0, uint32_t n1, uint32_t n2,
                                   uint32_t out[16]) {
    const uint32_t init[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574, key.w[0], key.w[1], key.w[2],
                               key.w[3],   key.w[4],   key.w[5],   key.w[6],   key.w[7], counter,  n0,
                               n1,         n2};
    uint32_t x[16];
#pragma unroll
    for (int k = 0; k < 16; k++) x[k] = init[k];
#pragma unroll 1
    for (int r = 0; r < 10; r++) {
        chacha_qr(x[0], x[4], x[8], x[12]);
        chacha_qr(x[1], x[5], x[9], x[13]);
        chacha_qr(x[2], x[6], x[10], x[14]);
        chacha_qr(x[3], x[7], x[11], x[15]);
        chacha_qr(x[0], x[5], x[10], x[15]);
        chacha_qr(x[1], x[6], x[11], x[12]);
        chacha_qr(x[2], x[7], x[8], x[13]);
        chacha_qr(x[3], x[4], x[9], x[14]);
    }
#pragma unroll
    for (int k = 0; k < 16; k++) out[k] = x[k] + init[k];
}

// Labels of points [16 t, 16 t + 16) of a round with range = 3^m labels (reject = 2^32 mod range), as keys and
// values for the sort: key = bucket (< K = (range - 1) / 2) or K for the zero vector, value = i << 1 | negate.
__global__ void subgroup_labels(ChachaKey key, uint32_t round, uint32_t range, uint32_t reject, uint32_t n,
                                uint32_t* __restrict__ keys, uint32_t* __restrict__ vals) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if ((uint64_t)t * 16 >= n) return;
    uint32_t block[16];
    chacha20_block_dev(key, t, round, 0, kLabelNonceTag, block);
    const uint32_t K = (range - 1) / 2;
    for (uint32_t l = 0; l < 16; l++) {
        const uint32_t i = t * 16 + l;
        if (i >= n) break;
        uint64_t prod = (uint64_t)block[l] * range;
        // A rejected word (probability < 3^11 / 2^32) is replaced by the same word of the next attempt's stream.
        for (uint32_t attempt = 1; (uint32_t)prod < reject; attempt++) {
            uint32_t retry[16];
            chacha20_block_dev(key, t, round, attempt, kLabelNonceTag, retry);
            prod = (uint64_t)retry[l] * range;
        }
        const uint32_t label = (uint32_t)(prod >> 32);
        uint32_t k = K, v = 0;
        if (label < K) k = label, v = i << 1;
        else if (label > K) k = range - 1 - label, v = i << 1 | 1;
        keys[i] = k;
        vals[i] = v;
    }
}

uint32_t pow3_u32(unsigned m) {
    uint32_t v = 1;
    for (unsigned i = 0; i < m; i++) v *= 3;
    return v;
}

// The largest trits of a round, after checking the batch size and every round's trits.
unsigned check_rounds(size_t n, std::span<const unsigned> trits) {
    if (n > kGpuSubgroupMaxBatch)
        throw std::invalid_argument("gpu subgroup check: at most 2^27 points per batch, got " + std::to_string(n));
    unsigned max_m = 1;
    for (unsigned m : trits) {
        if (m == 0 || m > kGpuSubgroupMaxTrits) throw std::invalid_argument("gpu subgroup check: 1..11 trits per round");
        max_m = std::max(max_m, m);
    }
    return max_m;
}

// The rounds' device memory for n > 0 points besides the bases: sort keys and values (double-buffered), cub's
// temporary space, the chunks' partial runs and the largest round's buckets.
template <class F>
struct RoundSpace {
    uint32_t kmax, L, chunks;
    size_t cub_bytes, bytes;
};

template <class F>
RoundSpace<F> round_space(size_t n, unsigned max_m) {
    using P = Xyzz<F>;
    RoundSpace<F> sp{};
    sp.kmax = (pow3_u32(max_m) - 1) / 2;
    sp.L = std::max<uint32_t>(kDefaultPiece, pow2_ceil((n + (1u << 21) - 1) >> 21));
    sp.chunks = (uint32_t)((n + sp.L - 1) / sp.L);
    cub::DoubleBuffer<uint32_t> kb(nullptr, nullptr), vb(nullptr, nullptr);
    CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sp.cub_bytes, kb, vb, (int64_t)n, 0,
                                                    32 - __builtin_clz(sp.kmax)));
    // Per chunk: its head and tail keys and points; then the buckets; then a byte a chunk, which covers join_runs'
    // two words and its list of long runs (long_list_size: chunks / 65 + 1 words), and a margin.
    sp.bytes = 16 * n + sp.cub_bytes + (size_t)sp.chunks * (8 + 2 * sizeof(P)) + (size_t)sp.kmax * sizeof(P) +
               sp.chunks + 256;
    return sp;
}

// Checked on the current device before anything is allocated.
void require_free_memory(size_t n, size_t need) {
    size_t free_b = 0, total_b = 0;
    CUZK_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (need > free_b)
        throw CudaError("gpu subgroup check: " + std::to_string(n) + " points need " + std::to_string(need) +
                        " bytes of device memory, " + std::to_string(free_b) + " are free");
}

template <class Cfg>
std::vector<std::vector<XYZZ<Cfg>>> identity_sums(std::span<const unsigned> trits) {
    std::vector<std::vector<XYZZ<Cfg>>> out(trits.size());
    for (size_t r = 0; r < trits.size(); r++) out[r].assign((pow3_u32(trits[r]) - 1) / 2, XYZZ<Cfg>::identity());
    return out;
}

// The bucket sums of every round (host XYZZ points, K_r per round) of the n > 0 bases at `bases` on the current
// device, with the space `sp` (already checked free).
template <class Cfg, class F = typename DeviceFieldOf<typename Cfg::F>::type>
std::vector<std::vector<XYZZ<Cfg>>> rounds_on_device(const BaseDev<F>* bases, size_t n,
                                                     std::span<const unsigned> trits, const uint32_t key[8],
                                                     const RoundSpace<F>& sp) {
    using P = Xyzz<F>;
    static_assert(sizeof(P) == sizeof(XYZZ<Cfg>), "device XYZZ layout equals the CPU's");
    const uint32_t L = sp.L, chunks = sp.chunks;
    DeviceBuffer<uint32_t> keys0(n), keys1(n), vals0(n), vals1(n), key_head(chunks), key_tail(chunks), long_runs(2),
        long_list(long_list_size(chunks));
    DeviceBuffer<P> head(chunks), tail(chunks), buckets(sp.kmax);
    DeviceBuffer<std::byte> cub(std::max<size_t>(sp.cub_bytes, 1));
    // After the buffers: on every exit the stream is drained and destroyed before they are freed.
    const Stream owned_stream = Stream::create();
    const cudaStream_t stream = owned_stream.get();
    ChachaKey ck;
    for (int k = 0; k < 8; k++) ck.w[k] = key[k];
    const Blocks<F> blk{head.get(), tail.get(), key_head.get(), key_tail.get(), long_runs.get(),
                        long_list.get()};
    std::vector<std::vector<XYZZ<Cfg>>> out(trits.size());
    for (size_t r = 0; r < trits.size(); r++) {
        const uint32_t range = pow3_u32(trits[r]);
        const uint32_t K = (range - 1) / 2;
        const uint32_t reject = (uint32_t)((uint64_t(1) << 32) % range);
        subgroup_labels<<<blocks_for((n + 15) / 16), kThreads, 0, stream>>>(ck, (uint32_t)r, range, reject,
                                                                            (uint32_t)n, keys0.get(), vals0.get());
        CUZK_CUDA_CHECK(cudaGetLastError());
        cub::DoubleBuffer<uint32_t> kb(keys0.get(), keys1.get()), vb(vals0.get(), vals1.get());
        size_t tmp = sp.cub_bytes;
        CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(cub.get(), tmp, kb, vb, (int64_t)n, 0,
                                                        32 - __builtin_clz(K), stream));
        CUZK_CUDA_CHECK(cudaMemsetAsync(buckets.get(), 0, (size_t)K * sizeof(P), stream));
        accumulate_chunks<F><<<blocks_for(chunks), kThreads, 0, stream>>>(bases, kb.Current(), vb.Current(), n, L,
                                                                           K, chunks, buckets.get(), blk);
        CUZK_CUDA_CHECK(cudaGetLastError());
        join_runs<F>(blk, chunks, K, buckets.get(), stream);
        out[r].resize(K);
        CUZK_CUDA_CHECK(
            cudaMemcpyAsync(out[r].data(), buckets.get(), (size_t)K * sizeof(P), cudaMemcpyDeviceToHost, stream));
        CUZK_CUDA_CHECK(cudaStreamSynchronize(stream));  // the bucket array is reused by the next round
    }
    return out;
}

// A resident batch (subgroup_detail::ResidentBatch): bases first .. first + count - 1 of the array at `bases` on
// `device`, read in place. The pointer is checked to be device memory of that device (a host pointer would fault
// in a kernel and leave the context unusable) and aligned as BaseDev is.
template <class Cfg>
std::vector<std::vector<XYZZ<Cfg>>> resident_round_sums(const subgroup_detail::ResidentBatch& batch,
                                                        std::span<const unsigned> trits, const uint32_t key[8],
                                                        int device) {
    using F = typename DeviceFieldOf<typename Cfg::F>::type;
    const size_t n = batch.count;
    const unsigned max_m = check_rounds(n, trits);
    if (n == 0) return identity_sums<Cfg>(trits);
    CUZK_CUDA_CHECK(cudaSetDevice(device));
    cudaPointerAttributes attr{};
    CUZK_CUDA_CHECK(cudaPointerGetAttributes(&attr, batch.bases));
    const bool on_device = (attr.type == cudaMemoryTypeDevice && attr.device == device) ||
                           attr.type == cudaMemoryTypeManaged;
    if (!on_device || reinterpret_cast<uintptr_t>(batch.bases) % alignof(BaseDev<F>) != 0)
        throw std::invalid_argument("gpu subgroup check: the resident bases are not aligned device memory of device " +
                                    std::to_string(device));
    const RoundSpace<F> sp = round_space<F>(n, max_m);
    require_free_memory(n, sp.bytes);
    return rounds_on_device<Cfg>(static_cast<const BaseDev<F>*>(batch.bases) + batch.first, n, trits, key, sp);
}

// The bucket sums of every round of one batch (host XYZZ points, K_r per round): the points go up once, then the
// rounds run on them as on resident bases.
template <class Cfg>
std::vector<std::vector<XYZZ<Cfg>>> subgroup_round_sums(std::span<const Affine<Cfg>> pts,
                                                       std::span<const unsigned> trits, const uint32_t key[8],
                                                       int device) {
    using F = typename DeviceFieldOf<typename Cfg::F>::type;
    const size_t n = pts.size();
    const unsigned max_m = check_rounds(n, trits);
    if (n == 0) return identity_sums<Cfg>(trits);
    CUZK_CUDA_CHECK(cudaSetDevice(device));
    const RoundSpace<F> sp = round_space<F>(n, max_m);
    require_free_memory(n, n * sizeof(BaseDev<F>) + sp.bytes);
    DeviceBuffer<BaseDev<F>> bases(n);
    {
        const Stream upload_stream = Stream::create();
        upload_bases<Cfg, F>(bases.get(), pts, upload_stream.get());
        CUZK_CUDA_CHECK(cudaStreamSynchronize(upload_stream.get()));
    }
    return rounds_on_device<Cfg>(bases.get(), n, trits, key, sp);
}

}  // namespace

}  // namespace cuzk::gpu
