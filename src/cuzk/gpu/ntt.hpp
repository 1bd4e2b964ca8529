// Number-theoretic transforms over Fr on the GPU, natural order in and out, bit-identical to the CPU functions of
// cuzk/poly/ntt.hpp (same Montgomery representation; field arithmetic is exact, so any correct schedule agrees):
//
//   NttKind::forward        coefficients -> f(omega^i)                         (cuzk::ntt)
//   NttKind::inverse        f(omega^i)   -> coefficients, includes 1/n         (cuzk::intt)
//   NttKind::coset_forward  coefficients -> f(g * omega^i), g = 7              (cuzk::coset_ntt)
//   NttKind::coset_inverse  f(g * omega^i) -> coefficients                     (cuzk::coset_intt)
//
// Sizes 2^0 .. 2^MAX_LOG_SIZE. No CUDA headers here: the stream is an opaque handle (a cudaStream_t cast to
// void*), device arrays are cuzk::Fr* (gpu::fr_t has exactly Fr's layout, see gpu/field.cuh). Design notes and
// measurements: src/cuzk/gpu/ntt.cu and docs/gpu-ntt-notes.md.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "cuzk/ff/fr.hpp"

namespace cuzk::gpu {

enum class NttKind { forward, inverse, coset_forward, coset_inverse };

// The largest supported log2(size). The exponent tables are split in two 14-bit halves (ntt.cu), so 2^28 is
// the bound; 2^28 Fr is 8 GiB, plus 8 GiB of scratch.
inline constexpr unsigned NTT_MAX_LOG_SIZE = 28;

// The size-independent twiddle / coset-power tables of one device (ntt_twiddle_bytes() of device memory), freed
// with their last holder. Each device has one set in a registry: ntt_tables() hands it out (building it on first
// use), transforms without NttConfig::tables use it, and it stays there until release_ntt_tables(). Objects that
// run transforms repeatedly (the GPU H computer) hold a shared_ptr and pass it in NttConfig::tables.
class NttTables;

struct NttConfig {
    NttKind kind = NttKind::forward;
    // cudaStream_t as an opaque handle; nullptr is the legacy default stream. Work is enqueued on it.
    void* stream = nullptr;
    // Optional caller-owned device scratch of at least ntt_scratch_elements(log_n) elements (on the same device
    // as the values). When null and scratch is needed, the call allocates it (cudaMalloc, which synchronizes)
    // and frees it before returning: pass one for repeated transforms of the same size.
    Fr* d_scratch = nullptr;
    // Block the host until the transform is done (and report any asynchronous kernel error from it).
    bool synchronize = true;
    // Tables of the current device (ntt_tables()), kept alive by the caller until the transform is done; null:
    // the registry's. Tables of another device are std::invalid_argument.
    const NttTables* tables = nullptr;
    // Every pass in the values' own buffer, no scratch (d_scratch unused), for a device with no room for one:
    // the radices are made symmetric, so the digit reversal the passes leave is a transpose of square blocks,
    // undone by one more pass over the array (read and written in place). Same results. A size without such a
    // schedule (ntt_in_place_exists false) runs as without the flag, with its scratch.
    bool in_place = false;
    // Pointwise work around the transform, fused into its first and last passes where the schedule has two or more
    // passes with a scratch (2^12 and up, not in_place), else run as kernels of their own before and after it:
    // the input multiplied element by element by pre_mul first, and each output y_k (natural order, after every
    // scaling of the kind) replaced by (y_k - post_sub[k]) * post_scale. Device arrays of 2^log_n elements on the
    // values' device, neither the values' own buffer nor the scratch; null: no such step (post_scale unused).
    // Bellman's H final step fits one such transform: coset_inverse with pre_mul = B, post_sub = C's coefficients,
    // post_scale = 1/Z (h_gpu.cu's finish()).
    const Fr* pre_mul = nullptr;
    const Fr* post_sub = nullptr;
    Fr post_scale = Fr::one();
    // false: the pointwise steps as kernels of their own at every size (what the fusion saves, for benchmarks).
    bool fuse_steps = true;
};

// Whether 2^log_n has an in-place schedule (NttConfig::in_place): every size up to 2^11 (one pass, no scratch
// anyway), even sizes up to 2^18 (two equal radices) and 2^19 .. 2^27 (three passes, the outer two equal).
bool ntt_in_place_exists(unsigned log_n);
// Scratch elements a transform of size 2^log_n needs: 0 for log_n <= 11 (one thread block does everything
// in shared memory) and for an in-place transform of a size that has that schedule, else n (the last pass writes
// its permuted output out of place).
size_t ntt_scratch_elements(unsigned log_n, bool in_place = false);
// Bytes of device memory a call allocates when neither scratch nor tables are passed, counting the twiddle tables
// when the registry does not hold them for the current device. Checked against cudaMemGetInfo before anything is
// allocated.
size_t ntt_device_bytes_needed(unsigned log_n, bool in_place = false);
// Bytes of the size-independent twiddle / coset-power tables of one device (NttTables).
size_t ntt_twiddle_bytes();

// The current device's tables from the registry, built there on first use (gpu::CudaError when that fails).
std::shared_ptr<const NttTables> ntt_tables();
// Drops the registry's tables of every device: each set is freed now, or by its last other holder (a transform in
// progress holds the set it uses); cudaFree waits for the device's queued work first. The next transform without
// tables builds a new set. Not for the hot path: for a process that is done with the GPU NTT.
void release_ntt_tables();

// In-place transform of d_values[0 .. 2^log_n) on the current device. Throws std::invalid_argument when
// log_n > NTT_MAX_LOG_SIZE, gpu::CudaError for any CUDA failure, including out of memory (checked before the
// first launch, so the values are untouched then).
void ntt_device(Fr* d_values, unsigned log_n, const NttConfig& cfg = {});

// NttConfig's pointwise steps alone, with no transform, queued on `stream` (a cudaStream_t as in NttConfig): the
// values multiplied element by element by pre_mul where it is given, then each replaced by (value - post_sub[k]) *
// post_scale where post_sub is given. The same kernels a transform runs when it cannot fuse them; for work that
// must keep them apart from its transform (h_gpu.cu's lean slot, whose C arrives after the coset inverse).
void ntt_pointwise(Fr* d_values, unsigned log_n, const Fr* pre_mul, const Fr* post_sub, const Fr& post_scale,
                   void* stream);

// Convenience: copy to the current device, transform, copy back (synchronous). values.size() must be a power of
// two <= 2^NTT_MAX_LOG_SIZE (else std::invalid_argument).
void ntt_host(std::span<Fr> values, NttKind kind);

// Several transforms of host arrays (all of one power-of-two size, one kind), pipelined: up to `in_flight`
// transforms are on the device at once, each on its own stream with its own device buffers, so the uploads, the
// kernels and the downloads of different arrays overlap — when the arrays are in pinned (page-locked) host memory
// (cudaMallocHost / cudaHostRegister), which is how the GPU prover keeps them; pageable arrays give the same
// results one at a time (the driver stages such copies synchronously). Results equal ntt_host on each array. The
// device memory needed is checked before anything is allocated (gpu::CudaError when it does not fit);
// std::invalid_argument for sizes that differ or are not powers of two.
void ntt_host_batch(std::span<const std::span<Fr>> arrays, NttKind kind, unsigned in_flight = 3);

}  // namespace cuzk::gpu
