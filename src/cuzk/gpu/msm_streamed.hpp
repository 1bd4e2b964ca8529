// MSMs over bases that stay in host memory: for a GPU smaller than its parameter set (a 32 GiB PoRep key is ~44 GB;
// most Filecoin hosts have 16-24 GB cards). Host API, no CUDA headers; built into cuzk_cuda only.
//
// The bases are kept once in page-locked host memory, already in the device layout, so a chunk of them goes up as
// one DMA at the link's speed with no CPU work. Each call runs chunk by chunk through two device buffers: the next
// chunk is copied into one while the MSM over the other runs (copy engine and SMs side by side), and the chunks'
// sums are added on the host. A call takes several scalar sets (the partitions of one job): each chunk goes up once
// for all of them. Calls alternate the direction they walk the chunks, so the two chunks the last call left on the
// device are used first. Each chunk is an MsmContext call (same kernels, same results: the exact group element);
// its window width is the model's for the chunk's size. Not thread-safe: one call at a time.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "cuzk/gpu/msm.hpp"

namespace cuzk::gpu {

struct StreamedMsmConfig {
    // Device, window width (0: the model's for each chunk), piece size and a scratch to share (GpuMsmConfig; the
    // precomputed table is refused: std::invalid_argument).
    GpuMsmConfig msm;
    // Bases per chunk, rounded up to a multiple of 64 (a split's ones bitmap is cut on whole words). 0: at most
    // 2^24 (G1) or 2^23 (G2), at most what an eighth of the device's free memory holds per buffer, at least 2^16.
    size_t chunk_points = 0;
};

// The order in which a call walks its chunks through the two device buffers (host logic, StreamedMsm's plan):
// the direction whose first chunk is already on the device (else `descending`), each chunk in the buffer that
// holds it or gets it, the next chunk's copy queued into the other buffer before this chunk's MSMs run.
struct ChunkWalk {
    static constexpr size_t kNone = ~size_t(0);
    struct Step {
        size_t chunk = kNone;     // the chunk whose MSMs run at this step
        unsigned buffer = 0;      // the buffer that holds it
        size_t prefetch = kNone;  // the chunk copied into the other buffer before they run, kNone: none
    };
    size_t first_load = kNone;  // the chunk copied into first_buffer before the first step, kNone: held already
    unsigned first_buffer = 0;
    std::vector<Step> steps;
    size_t holds_after[2] = {kNone, kNone};  // what each buffer holds once the walk is done
    bool descending_next = false;            // the direction of a next call that finds neither end held
};
// The walk of `chunks` chunks when the buffers hold holds[0], holds[1] (chunk numbers, ChunkWalk::kNone: nothing).
ChunkWalk plan_chunk_walk(size_t chunks, const size_t holds[2], bool descending);

// Bases in page-locked host memory, in the device layout (portable: the StreamedMsm of every device can share one).
template <class Cfg>
class HostBases {
public:
    // Packs the bases on the global thread pool. gpu::CudaError when the page-locked allocation fails.
    explicit HostBases(std::span<const Affine<Cfg>> bases);
    // n bases made by fill(lo, hi, out) (concurrently for disjoint ranges); its exceptions come through.
    using Fill = typename MsmContext<Cfg>::Fill;
    HostBases(size_t n, const Fill& fill);
    ~HostBases();
    HostBases(const HostBases&) = delete;
    HostBases& operator=(const HostBases&) = delete;

    size_t size() const;
    size_t bytes() const;
    const void* data() const;  // size() entries of the device layout

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

template <class Cfg>
class StreamedMsm {
public:
    // Copies the bases into page-locked host memory in the device layout (on the global thread pool) and makes the
    // two chunk buffers on the device. Throws gpu::CudaError when either allocation fails.
    explicit StreamedMsm(std::span<const Affine<Cfg>> bases, const StreamedMsmConfig& cfg = {});
    // The same for n bases made by fill(lo, hi, out) (concurrently for disjoint ranges); its exceptions come through.
    using Fill = typename MsmContext<Cfg>::Fill;
    StreamedMsm(size_t n, const Fill& fill, const StreamedMsmConfig& cfg = {});
    // Over bases already in host memory, shared (with other devices' StreamedMsm); only the chunk buffers are made.
    explicit StreamedMsm(std::shared_ptr<const HostBases<Cfg>> host, const StreamedMsmConfig& cfg = {});
    ~StreamedMsm();
    StreamedMsm(StreamedMsm&&) noexcept;
    StreamedMsm& operator=(StreamedMsm&&) noexcept;
    StreamedMsm(const StreamedMsm&) = delete;
    StreamedMsm& operator=(const StreamedMsm&) = delete;

    // One result per scalar set: sum_i set[i] * bases[i] over the first set.size() bases (Montgomery scalars).
    // std::invalid_argument when a set is longer than the bases.
    std::vector<Jacobian<Cfg>> msm(std::span<const std::span<const Fr>> sets, const KernelSpans& spans = {});
    Jacobian<Cfg> msm(std::span<const Fr> scalars, const KernelSpans& spans = {});
    // The same with each set's m scalars in device memory on this device (complete when the call starts, unchanged
    // until it returns).
    std::vector<Jacobian<Cfg>> msm_device(std::span<const Fr* const> d_sets, size_t m, const KernelSpans& spans = {});
    // The same with split scalars (cuzk::split_scalars or split_scalars_multi; any layout, a tail included: each
    // chunk gets its split_range). std::invalid_argument when a split is larger than the bases or inconsistent.
    std::vector<Jacobian<Cfg>> msm_split(std::span<const ScalarSplit* const> splits, const KernelSpans& spans = {});

    // fn(d_bases, first, count) for every chunk in turn (BaseDev layout, as MsmContext::device_bases; the copy
    // complete when fn runs), until fn returns false; returns whether every call returned true. For checks that
    // read the bases in place (gpu::g1_resident_in_subgroup_gpu).
    bool for_each_chunk(const std::function<bool(const void* d_bases, size_t first, size_t count)>& fn);

    size_t num_bases() const;
    size_t chunk_points() const;
    // Page-locked host bytes of the bases (shared or not), and device bytes of the two chunk buffers (the scratch
    // not included: MsmContext::call_bytes of a chunk).
    size_t host_bytes() const;
    size_t device_bytes() const;
    // The device bytes of the chunk buffers of n bases in chunks of chunk_points (> 0), before making them.
    static size_t device_bytes(size_t n, size_t chunk_points);
    // Chunks copied to the device so far (what the calls' reuse of the last chunks saves shows here).
    size_t chunks_loaded() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

extern template class HostBases<G1Config>;
extern template class HostBases<G2Config>;
extern template class StreamedMsm<G1Config>;
extern template class StreamedMsm<G2Config>;

using G1StreamedMsm = StreamedMsm<G1Config>;
using G2StreamedMsm = StreamedMsm<G2Config>;

}  // namespace cuzk::gpu
