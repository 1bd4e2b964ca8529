// Groth16's H on the GPU (issue 7, first part): the same values as the CPU's compute_h / compute_h_odd_coset
// (cuzk/groth16/prover.hpp), bit for bit, from the a, b, c evaluations of one circuit.
//
//   bellman (groth16::HConvention::Bellman): a, b, c -> inverse NTT; a, b -> coset NTT (g = 7) -> a b pointwise ->
//     inverse coset NTT -> minus C's coefficients, times 1 / Z(g): bellman's (a b - c) / Z(g) on the coset, inverse
//     coset NTT, by linearity with one transform fewer. Returns the n - 1 coefficients of H (the top one, zero for
//     a satisfied assignment, is dropped as bellman does).
//   snarkjs (groth16::HConvention::Snarkjs): each of a, b, c re-evaluated on the odd coset s <w> (s^2 = w, snarkjs's roots:
//     a gather into cuzk's root order, inverse NTT, times s^k, NTT, gather back), then a b - c pointwise; returns
//     the n evaluations (snarkjs's H points are the odd-coset Lagrange basis, so no division by Z).
//
// No CUDA headers here. Errors: std::invalid_argument for sizes (a, b, c of different lengths or longer than the
// domain, log_n > gpu::NTT_MAX_LOG_SIZE), gpu::CudaError for a device failure, including too little device memory
// (checked before anything is allocated: h_gpu_device_bytes).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "cuzk/backends/cuda/products_gpu.hpp"
#include "cuzk/backends/cuda/witness_pack.hpp"
#include "cuzk/ff/fr.hpp"
#include "cuzk/groth16/types.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::gpu {

// Device bytes one call at 2^log_n needs (three arrays, two when lean, the snarkjs gather buffer, NTT scratch
// unless lean at a size with the in-place NTT, tables).
size_t h_gpu_device_bytes(unsigned log_n, groth16::HConvention convention, bool lean = false);

// H with its device memory kept between calls (the prover's form): the constructor allocates the arrays for one
// domain size and convention (memory checked first); run() computes H from host a, b, c and leaves it on the
// device, synchronized, for an MSM to read (h_device()) or for copy_h_to_host. One call at a time.
//
// Lean (bellman only; std::invalid_argument for snarkjs): two arrays instead of three and no NTT scratch (the
// transforms in place, NttConfig::in_place, where the size allows: 2^19 .. 2^27 and the even sizes below), half the
// memory (8.6 instead of 17.2 GB at 2^27), for a card that has no room for the full form: C goes up into B's array
// once A*B on the coset is formed, so its upload overlaps only the coset inverse, each transform makes one more
// pass over its array, and only run() with host a, b, c is offered (prefetch and the witness form throw
// std::logic_error: they put all three on the device ahead of the transforms).
class HComputer {
public:
    HComputer(unsigned log_n, groth16::HConvention convention, bool lean = false);
    ~HComputer();
    HComputer(const HComputer&) = delete;
    HComputer& operator=(const HComputer&) = delete;

    unsigned log_n() const;
    groth16::HConvention convention() const;
    bool lean() const;
    // The witness form's aux values sent packed (witness_pack.hpp: the ones' bitmap and the other values with their
    // positions, expanded on the device) where at most a quarter of them are neither 0 nor 1, as they are
    // otherwise. Off by default (GpuProverConfig::pack_witness).
    void pack_witness(bool on);
    // Pageable a, b, c are copied through pinned staging buffers (allocated on first need, 128 MiB) so their upload
    // overlaps the transforms of the arrays before them. Kernel-layer spans: "<name>.upload" and
    // "<name>.transforms" per array, "<name>.pointwise_final".
    void run(std::span<const Fr> a, std::span<const Fr> b, std::span<const Fr> c, const KernelSpans& spans = {});
    // run() in two halves, for a pipeline: prefetch() queues the uploads of a, b, c and returns once the host's part
    // is done (pageable a, b, c may then be freed; pinned ones are read by the DMA engine until run_prefetched
    // returns) while the device may still be busy with other work; run_prefetched()
    // then computes H from them (the upload spans are reported with its spans). Any other call in between is fine
    // except another prefetch or run, which replace the data.
    void prefetch(std::span<const Fr> a, std::span<const Fr> b, std::span<const Fr> c, const KernelSpans& spans = {});
    void run_prefetched(const KernelSpans& spans = {});
    // The witness form of run() and prefetch(): z = (inputs, aux) goes up instead of a, b, c, which `m` computes on
    // the device (DeviceMatrices::evaluate, its rows at most the domain; m must be on this computer's device and
    // outlive the call that finishes H). Kernel-layer spans "<name>.upload" (z) and "<name>.products". Then
    // run / run_prefetched throw r1cs::SynthesisError (Unsatisfiable), naming the first row, when the witness
    // does not satisfy a row.
    void run(const DeviceMatrices& m, std::span<const Fr> inputs, std::span<const Fr> aux,
             const KernelSpans& spans = {});
    // `packed` (optional): the aux values already packed (witness_pack.hpp, e.g. pack_from_split of the proof's L
    // split), sent instead of aux (std::invalid_argument when its size differs; aux goes up as it is where the
    // device has no room for the packed form).
    void prefetch(const DeviceMatrices& m, std::span<const Fr> inputs, std::span<const Fr> aux,
                  const KernelSpans& spans = {}, const PackedWitness* packed = nullptr);
    // That prefetch in two halves, for a computer whose arrays another proof still reads: prefetch_witness() puts z
    // up (where the transforms' scratch is: free once that proof's H is computed) and returns as prefetch() does;
    // prefetch_products() then queues a, b, c from it into H's arrays (only once that proof's H query's MSM has
    // read them). run_prefetched() needs both; a prefetch or run in between replaces the witness.
    void prefetch_witness(const DeviceMatrices& m, std::span<const Fr> inputs, std::span<const Fr> aux,
                          const KernelSpans& spans = {});
    void prefetch_products();
    // h_gpu_length(log_n, convention) values in device memory, valid until the next run().
    const Fr* h_device() const;
    void copy_h_to_host(std::span<Fr> h) const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

// The length of H: n - 1 coefficients (bellman) or n evaluations (snarkjs).
size_t h_gpu_length(unsigned log_n, groth16::HConvention convention);

// a, b, c: evaluations over the 2^log_n domain (shorter vectors are zero-padded, as the CPU does), in host memory;
// h: h_gpu_length(log_n, convention) elements of host memory for the result. Pinned (cudaMallocHost) arrays move
// at full PCIe speed, and the uploads of b and c overlap the transforms of a. Runs on the current device.
void compute_h_gpu(unsigned log_n, std::span<const Fr> a, std::span<const Fr> b, std::span<const Fr> c,
                   std::span<Fr> h, groth16::HConvention convention = groth16::HConvention::Bellman);
// The same, returning the result in a new vector.
std::vector<Fr> compute_h_gpu(unsigned log_n, std::span<const Fr> a, std::span<const Fr> b, std::span<const Fr> c,
                              groth16::HConvention convention = groth16::HConvention::Bellman);

}  // namespace cuzk::gpu
