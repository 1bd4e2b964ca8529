// Batched subgroup membership with the bucket sums formed on the GPU (host API; no CUDA headers). Built into
// cuzk_cuda only; callers guard with CUZK_HAVE_CUDA.
//
// The test is msm/batch_subgroup.hpp's, unchanged: per round every point draws a uniform trit vector (the same
// ChaCha20 labels, computed on the device), goes to the bucket of {u, -u} (negated when needed), and the m
// combinations Q_j folded from the K = (3^m - 1) / 2 bucket sums are tested exactly. Only the bucket sums move:
// the points go up once per batch (or are on the device already: the resident check), and each round is the MSM's
// pipeline for one window whose digits are the labels (sort the (bucket, point) pairs, sum runs of equal buckets in
// XYZZ, gpu/msm_impl.cuh). The fold, the exact tests and the search for the first bad point run on the CPU
// (batch_subgroup.cpp), so the 2^-64 bound argued there holds as it is. A device round costs about one mixed
// addition per point and the fold grows with 3^m, so rounds here are smaller than the CPU's: at most 11 trits
// (88,573 buckets; 4 rounds for 64 bits).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "cuzk/ec/g1.hpp"
#include "cuzk/ec/g2.hpp"
#include "cuzk/msm/batch_subgroup.hpp"

namespace cuzk::gpu {

// Points per device batch (larger spans are checked in independent batches) and trits per device round.
inline constexpr size_t kGpuSubgroupMaxBatch = size_t(1) << 27;
inline constexpr unsigned kGpuSubgroupMaxTrits = 11;

// The first point of `points` outside G1 (G2), or nullopt when all are in it (wrong with probability at most
// 2^-options.security_bits), with the bucket sums formed on `device`. A batch is at most 2^27 points (G1: 12 GiB of
// device memory, G2: 24 GiB, plus 20 bytes per point of sort space); a device without that much free memory is a
// gpu::CudaError naming the bytes.
std::optional<size_t> g1_first_not_in_subgroup_gpu(std::span<const G1Affine> points,
                                                   const BatchSubgroupOptions& options = {}, int device = 0);
std::optional<size_t> g2_first_not_in_subgroup_gpu(std::span<const G2Affine> points,
                                                   const BatchSubgroupOptions& options = {}, int device = 0);

// The check of points already on `device` in the MSM's base layout (n entries of gpu/msm_impl.cuh's BaseDev, e.g. an
// MsmContext's device_bases()): nothing is uploaded. True when every point is in G1 (G2); a point outside passes with
// probability at most 2^-options.security_bits (batch_subgroup.hpp). Points must be on their curve.
// Always device rounds, whatever n (the bound does not depend on n; there is no host copy for a per-point test), in
// batches of at most 2^27 points, each with its own key. The bases must be complete when the call starts and stay
// unchanged until it returns; besides them a batch needs 20 bytes per point of device memory (a gpu::CudaError
// naming the bytes when it is not free). No index of a bad point: the caller names it from its own copy.
bool g1_resident_in_subgroup_gpu(const void* d_bases, size_t n, const BatchSubgroupOptions& options = {},
                                 int device = 0);
bool g2_resident_in_subgroup_gpu(const void* d_bases, size_t n, const BatchSubgroupOptions& options = {},
                                 int device = 0);

// The rounds' bucket sums for a given key (the BatchRoundSource contract in batch_subgroup.hpp), for tests that
// compare them with the CPU's rounds.
std::vector<std::vector<G1Affine>> g1_batch_round_sums_gpu(std::span<const G1Affine> points,
                                                           std::span<const unsigned> trits, const uint32_t key[8],
                                                           int device = 0);
std::vector<std::vector<G2Affine>> g2_batch_round_sums_gpu(std::span<const G2Affine> points,
                                                           std::span<const unsigned> trits, const uint32_t key[8],
                                                           int device = 0);

namespace subgroup_detail {
// Bases [first, first + count) of the BaseDev array at `bases`, on the device already (the resident check).
struct ResidentBatch {
    const void* bases;
    size_t first;
    size_t count;
};

// The device rounds (subgroup_impl.cuh, in msm.cu / msm_g2.cu, the units that compile each curve's kernels): the
// bucket sums as XYZZ points, of host points uploaded for the call or of a resident batch read in place.
std::vector<std::vector<XYZZ<G1Config>>> g1_round_sums(std::span<const G1Affine> points,
                                                       std::span<const unsigned> trits, const uint32_t key[8],
                                                       int device);
std::vector<std::vector<XYZZ<G2Config>>> g2_round_sums(std::span<const G2Affine> points,
                                                       std::span<const unsigned> trits, const uint32_t key[8],
                                                       int device);
std::vector<std::vector<XYZZ<G1Config>>> g1_resident_round_sums(const ResidentBatch& batch,
                                                                std::span<const unsigned> trits,
                                                                const uint32_t key[8], int device);
std::vector<std::vector<XYZZ<G2Config>>> g2_resident_round_sums(const ResidentBatch& batch,
                                                                std::span<const unsigned> trits,
                                                                const uint32_t key[8], int device);
}  // namespace subgroup_detail

// Trits per round on the device for t trits in all: ceil(t / 11) rounds, as even as possible.
std::vector<unsigned> gpu_batch_subgroup_plan(unsigned t);

}  // namespace cuzk::gpu
