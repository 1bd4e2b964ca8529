// Multi-scalar multiplication on the GPU (host API; no CUDA headers, so CPU code can include it). Built into
// cuzk_cuda only; callers guard with CUZK_HAVE_CUDA.
//
// Pippenger's bucket method with signed c-bit digits, buckets found by sorting (bucket, point) pairs on the device,
// buckets accumulated in XYZZ coordinates from the affine bases, a parallel suffix-sum bucket reduction per window,
// and the windows combined on the host (msm.cu has the details and the measured reasons). Results equal the CPU's
// cuzk::msm exactly (same group element; tests/test_gpu_msm.cpp checks it on fresh random inputs).
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "cuzk/ec/g1.hpp"
#include "cuzk/ec/g2.hpp"
#include "cuzk/ff/fr.hpp"
#include "cuzk/msm/msm.hpp"

namespace cuzk::gpu {

// Tuning of the GPU MSM; every default is documented in msm.cu.
struct GpuMsmConfig {
    // Device ordinal the context lives on.
    int device = 0;
    // Pippenger window width c in bits (2..24). 0: gpu_msm_window_bits(number of Pippenger scalars).
    unsigned window_bits = 0;
    // Sorted (bucket, point) entries per accumulation thread (a chunk; runs that cross chunks are combined after),
    // so one huge bucket (e.g. every scalar equal) does not serialise on one thread. 0: 32.
    unsigned piece_points = 0;
};

// The window width the cost model in msm.cu picks for n Pippenger scalars.
unsigned gpu_msm_window_bits(size_t n);

// Bases resident on the device across calls: uploaded once by the constructor, then any number of MSMs over
// (a prefix of) them with scalars streamed from host memory. Device scratch is kept between calls and grows to the
// largest call seen. Not thread-safe: one call at a time per context.
//
// Errors: a failed CUDA call (out of memory included) throws gpu::CudaError; a call whose memory need exceeds the
// device's free memory throws gpu::CudaError before launching anything. Never a wrong result.
template <class Cfg>
class MsmContext {
public:
    explicit MsmContext(std::span<const Affine<Cfg>> bases, const GpuMsmConfig& cfg = {});
    ~MsmContext();
    MsmContext(MsmContext&&) noexcept;
    MsmContext& operator=(MsmContext&&) noexcept;
    MsmContext(const MsmContext&) = delete;
    MsmContext& operator=(const MsmContext&) = delete;

    // sum_i scalars[i] * bases[i] over the first scalars.size() bases (scalars in Montgomery form, as cuzk::Fr is;
    // converted on the device). Throws std::invalid_argument when there are more scalars than bases. Every scalar
    // goes through Pippenger (zero digits cost no addition).
    Jacobian<Cfg> msm(std::span<const Fr> scalars);

    // The same with the scalars split on the CPU (cuzk::split_scalars): zeros skipped, the bases of the ones summed
    // by a tree reduction on the device, the others through Pippenger. Throws std::invalid_argument when split.size
    // exceeds the number of bases or an index of the split is out of range.
    Jacobian<Cfg> msm_split(const ScalarSplit& split);

    // Tuning knobs (window_bits, piece_points) may be changed between calls; `device` may not.
    GpuMsmConfig& tuning();

    size_t num_bases() const;
    // Device bytes held by the bases.
    size_t resident_bytes() const;
    // Device scratch bytes one call with `pippenger_scalars` scalars through Pippenger and `ones` scalars equal to
    // one needs (computed on the host before any launch; the same formula sizes the allocation).
    size_t call_bytes(size_t pippenger_scalars, size_t ones = 0) const;
    // Scratch currently held (the largest call so far).
    size_t scratch_bytes() const;

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
