// Multi-scalar multiplication on the GPU (host API; no CUDA headers, so CPU code can include it). Built into
// cuzk_cuda only; callers guard with CUZK_HAVE_CUDA.
//
// Pippenger's bucket method with signed c-bit digits, buckets found by sorting (bucket, point) pairs on the device,
// buckets accumulated in XYZZ coordinates from the affine bases, a parallel suffix-sum bucket reduction per window,
// and the windows combined on the host (msm.cu has the details and the measured reasons). Results equal the CPU's
// cuzk::msm exactly (same group element; tests/test_gpu_msm.cpp checks it on fresh random inputs).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "cuzk/ec/g1.hpp"
#include "cuzk/ec/g2.hpp"
#include "cuzk/ff/fr.hpp"
#include "cuzk/msm/msm.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::gpu {

class MsmScratch;

// Tuning of the GPU MSM; every default is documented in msm.cu.
struct GpuMsmConfig {
    // Device ordinal the context lives on.
    int device = 0;
    // Pippenger window width c in bits (2..24). 0: gpu_msm_window_bits(number of Pippenger scalars, SM count).
    unsigned window_bits = 0;
    // Sorted (bucket, point) entries per accumulation thread (a chunk; runs that cross chunks are combined after),
    // so one huge bucket (e.g. every scalar equal) does not serialise on one thread. 0: 64 for G1, 128 for G2, more
    // where a bucket's expected run is longer or the call is large (make_plan in msm_impl.cuh).
    unsigned piece_points = 0;
    // Threads per point in the bucket reduction's segment walks: 1, or 2 (a lane pair holds one point, half its
    // coordinates each, and splits each addition's products: fewer registers a thread, twice the threads). 0: the
    // measured best for the curve and segment length.
    unsigned reduce_lanes = 0;
    // Chunks a cut run may span and still be joined by one thread's walk; longer runs get a warp each, and runs of
    // more than 2,048 chunks the merge tree (msm_impl.cuh, join_runs). 0: 4 where the top window's few digit values
    // make runs of more than 16 chunks (2^27 at c = 22), else 64 (gpu_msm_default_walk; docs/perf.md).
    unsigned walk_chunks = 0;
    // Levels of the bucket reduction where its segments are short (at most 32 buckets): 1 multiplies each
    // segment's sum by its offset, 2 weighs those sums by a second, smaller reduction instead. 0: 2.
    unsigned reduce_levels = 0;
    // Precomputed window multiples: the constructor also keeps 2^(j c) B_i for every window j on the device (W =
    // ceil(256 / c) times the bases' memory: MsmContext::precomputed_table_bytes), so every window of a call feeds
    // one set of buckets, reduced once, with no doublings between windows; wider windows then pay off. c is fixed
    // when the table is built (window_bits, or gpu_msm_window_bits(n, SM count, true) for the n bases); later
    // changes of window_bits are ignored. Memory the table does not fit in is a CudaError from the constructor that
    // names the bytes; n * W must stay below 2^31.
    bool precompute_windows = false;
    // The context's stream at the device's highest priority: while other streams' kernels fill the GPU, the blocks
    // of this context's kernels start first as SMs free up (the GPU prover's short A, B, L and B_G2 calls beside the
    // H query's long accumulation: GpuProverConfig::query_msm_priority).
    bool high_priority = false;
    // Device scratch shared with other contexts on the same device (MsmScratch); nullptr: the context has its own.
    std::shared_ptr<MsmScratch> scratch;
};

// Device scratch for MSM calls, which several contexts on one device may share (GpuMsmConfig::scratch): a call
// holds it from start to end (a call of another context waits), it grows to the largest call and is freed with
// its last owner. A Groth16 prover's G1 MSMs run one after another, so one scratch serves them all; at Filecoin's
// sizes each context would otherwise keep up to ~20 GB of its own.
class MsmScratch {
public:
    explicit MsmScratch(int device = 0);
    // A scratch whose calls run in `fallback` instead (waiting for its turn there) when they do not fit this one's
    // room, even with one window per sort: the bytes it holds plus the device's free memory, and at most `limit`
    // bytes (0: no limit). Its own bytes are then given back. A second scratch beside a busy one
    // (GpuProverConfig::overlap_query_msms) so costs the overlap, never a failed call, on a card short of memory.
    MsmScratch(int device, std::shared_ptr<MsmScratch> fallback, size_t limit = 0);
    ~MsmScratch();
    MsmScratch(const MsmScratch&) = delete;
    MsmScratch& operator=(const MsmScratch&) = delete;

    int device() const;
    // Bytes held now (waits for a call in progress).
    size_t bytes() const;
    // Calls that ran in the fallback scratch.
    uint64_t fallbacks() const;

    struct Impl;
    Impl& impl() { return *impl_; }

private:
    std::unique_ptr<Impl> impl_;
};

// The window width the cost model in msm.cu picks for n Pippenger scalars on a GPU with sm_count SMs, without or
// with a precomputed table (one bucket set for all windows).
unsigned gpu_msm_window_bits(size_t n, unsigned sm_count = 132, bool precomputed = false);
// The walks' cap (GpuMsmConfig::walk_chunks) a G1 MSM of n Pippenger scalars gets by default, its window groups at
// most max_pairs pairs (0: the scratch's largest): 4 where the top window's runs span tens of chunks, else 64.
unsigned gpu_msm_default_walk(size_t n, size_t max_pairs = 0, unsigned sm_count = 132);
// How many of `windows` windows of c bits one sort takes for n scalars, at most `most` (what the scratch holds):
// fewer when that saves a radix pass over the pairs (msm.cu has the cost model).
unsigned gpu_msm_windows_per_group(unsigned windows, unsigned c, unsigned most, size_t n);

// Bases resident on the device across calls: uploaded once by the constructor, then any number of MSMs over
// (a prefix of) them with scalars streamed from host memory. Device scratch (its own, or the MsmScratch it shares)
// is kept between calls and grows to the largest call seen. When a call's full plan does not fit in the scratch
// held plus the device's free memory, its windows run in smaller groups (fewer sorted pairs at a time) down to one
// window per group. Not thread-safe: one call at a time per context.
//
// Errors: a failed CUDA call (out of memory included) throws gpu::CudaError; a call whose memory need exceeds the
// device's free memory throws gpu::CudaError before launching anything. Never a wrong result.
template <class Cfg>
class MsmContext {
public:
    explicit MsmContext(std::span<const Affine<Cfg>> bases, const GpuMsmConfig& cfg = {});
    // n bases made by `fill` as they are uploaded: fill(lo, hi, out) writes bases [lo, hi) to out (called from the
    // uploader's copy threads, concurrently for disjoint ranges, in no particular order; an exception it throws is
    // rethrown here, and nothing of the context is kept). A file's points decoded straight into the pinned staging
    // buffers: one host pass, one DMA, no host copy of all n.
    using Fill = std::function<void(size_t lo, size_t hi, Affine<Cfg>* out)>;
    MsmContext(size_t n, const Fill& fill, const GpuMsmConfig& cfg = {});
    ~MsmContext();
    MsmContext(MsmContext&&) noexcept;
    MsmContext& operator=(MsmContext&&) noexcept;
    MsmContext(const MsmContext&) = delete;
    MsmContext& operator=(const MsmContext&) = delete;

    // sum_i scalars[i] * bases[i] over the first scalars.size() bases (scalars in Montgomery form, as cuzk::Fr is;
    // converted on the device). Throws std::invalid_argument when there are more scalars than bases. Every scalar
    // goes through Pippenger (zero digits cost no addition).
    // spans (every call): kernel-layer spans "<name>.upload", ".ones", ".digits_sort", ".accumulate", ".reduce"
    // (the last three once per window group), measured with CUDA events.
    Jacobian<Cfg> msm(std::span<const Fr> scalars, const KernelSpans& spans = {});

    // The same with the m scalars already in device memory on this context's device (e.g. an NTT's output): read in
    // place, nothing uploaded. They must be complete when the call starts (the context's stream does not wait for
    // other streams) and stay unchanged until it returns.
    Jacobian<Cfg> msm_device(const Fr* d_scalars, size_t m, const KernelSpans& spans = {});

    // The same with the scalars split on the CPU (cuzk::split_scalars): zeros skipped, the bases of the ones summed
    // by a tree reduction on the device, the others through Pippenger. Throws std::invalid_argument when split.size
    // exceeds the number of bases or an index of the split is out of range.
    Jacobian<Cfg> msm_split(const ScalarSplit& split, const KernelSpans& spans = {});

    // The ones' sums of several 0/1 vectors over the same bases at once: result p = sum of bases[i] over the bits i
    // set in bitmaps[p] (i < count; ceil(count / 64) words each, bit i in word i / 64 at i % 64; bits from count on
    // are ignored). Each base is added once, into the bucket of its pattern (which of the bitmaps hold it: a
    // K-bit key), and result p is then the sum of the 2^(K-1) buckets whose pattern holds p. K vectors of about
    // half ones (the partitions of one Filecoin circuit) so cost ~count additions instead of ~K count / 2, plus a
    // sort of count K-bit keys. At most kMaxPatternSets bitmaps; std::invalid_argument for none, more, a bitmap
    // shorter than ceil(count / 64) words, or count above the number of bases. Spans as msm()'s ("upload",
    // "digits_sort": the keys and their sort, "accumulate", "merge", "reduce": the buckets into the K sums).
    static constexpr size_t kMaxPatternSets = 16;
    std::vector<Jacobian<Cfg>> sum_patterns(std::span<const std::span<const uint64_t>> bitmaps, size_t count,
                                            const KernelSpans& spans = {});
    // Device scratch bytes a sum_patterns call of `sets` bitmaps over `count` bases needs.
    size_t pattern_call_bytes(size_t sets, size_t count) const;

    // Tuning knobs (window_bits, piece_points) may be changed between calls; `device` may not.
    GpuMsmConfig& tuning();

    size_t num_bases() const;
    // The n resident bases in the device layout (gpu/msm_impl.cuh BaseDev: x, y in Montgomery form as the host's
    // field elements, the point at infinity as (0, 0)), for kernels that read them in place (the resident subgroup
    // check, gpu/subgroup.hpp); nullptr when n = 0.
    const void* device_bases() const;
    // Device bytes held by the bases.
    size_t resident_bytes() const;
    // Device scratch bytes one call with `pippenger_scalars` scalars through Pippenger and `ones` scalars equal to
    // one needs with full window groups (computed on the host before any launch; the same formula sizes the
    // allocation; a call that does not fit takes less, in smaller groups), with its scalars from the host: an
    // msm_device call needs 32 bytes a scalar less.
    size_t call_bytes(size_t pippenger_scalars, size_t ones = 0) const;
    // Grows the scratch to what an msm_device call of m scalars takes, where the device has room (best effort, and
    // the plan a call with this much free memory would make: the call itself still reserves what it needs). For a
    // prover's warm-up: the allocation (~0.1 s for the 2^27 H query's ~8 GB) then comes before its first proof.
    // Throws gpu::CudaError only for a failed CUDA call other than the allocation.
    void reserve_device_call(size_t m);
    // Scratch currently held (the largest call so far; with a shared scratch, the largest call of any context).
    size_t scratch_bytes() const;
    // The window width of the precomputed table, 0 without one.
    unsigned precomputed_window_bits() const;
    // Device bytes a table of precomputed window multiples for n bases and c-bit windows takes (the bases included).
    static size_t precomputed_table_bytes(size_t n, unsigned window_bits);

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

extern template class MsmContext<G1Config>;
extern template class MsmContext<G2Config>;

using G1MsmContext = MsmContext<G1Config>;
using G2MsmContext = MsmContext<G2Config>;

// One-shot versions: upload the bases, run one MSM, free everything. bases.size() must equal scalars.size().
G1Jacobian msm_g1_gpu(std::span<const G1Affine> bases, std::span<const Fr> scalars, const GpuMsmConfig& cfg = {});
G2Jacobian msm_g2_gpu(std::span<const G2Affine> bases, std::span<const Fr> scalars, const GpuMsmConfig& cfg = {});
G1Jacobian msm_g1_split_gpu(std::span<const G1Affine> bases, const ScalarSplit& split, const GpuMsmConfig& cfg = {});
G2Jacobian msm_g2_split_gpu(std::span<const G2Affine> bases, const ScalarSplit& split, const GpuMsmConfig& cfg = {});

}  // namespace cuzk::gpu
