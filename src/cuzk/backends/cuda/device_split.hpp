// The GPU prover's choice of how to split its scalars (plain C++, no CUDA): per list, the layout that the device's
// measured costs make cheaper, and the tails that consecutive splits of one shape share. The mechanism (ScalarSplit,
// SplitTail, split_scalars_multi and its SplitHook) is msm/msm.hpp's; this is the policy that drives it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "cuzk/ff/fr.hpp"
#include "cuzk/groth16/prover.hpp"
#include "cuzk/msm/msm.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::gpu {

// What one scalar costs the device in each layout, in nanoseconds. Defaults: fitted to `BM_GpuMsmG1Layout` on the
// H200 (docs/perf.md, "split layouts": 2^24 scalars, scalars from pageable memory through pinned staging).
struct SplitCosts {
    double upload_per_byte = 0.06;        // host-to-device through pinned staging (~17 GB/s)
    double pippenger_per_scalar = 6.5;    // a random scalar through Pippenger (digits, sort, bucket additions)
    double trivial_per_scalar = 0.6;      // a 0 or 1 scalar through Pippenger (dense layout: its digits are ~all 0)
    double one_per_scalar = 0.45;         // one base added by the ones' sum
    double bitmap_per_position = 0.01;    // reading the ones' bitmap, per position
};
struct SplitLayout {
    bool dense = false;        // the dense layout
    bool ones_bitmap = false;  // indexed layout: ones as one_bits
};
// The modelled device time (ns) of an MSM over n scalars with `ones` ones and `others` others (zeros: the rest) in
// a layout, and the cheaper layout.
double split_layout_ns(size_t n, size_t ones, size_t others, const SplitLayout& layout, const SplitCosts& costs);
SplitLayout choose_split_layout(size_t n, size_t ones, size_t others, const SplitCosts& costs);

// split_scalars_multi for the device, in Montgomery form (the GPU converts), with:
//   - costs: per list, the layout choose_split_layout picks;
//   - tails (one per list, or empty; an entry may be nullptr): the tail of an earlier split to reuse. It is used
//     when it covers the list (same size, at most max(1024, tail / 8) others outside it); otherwise, and for lists
//     without one, a list with others on at most a quarter of its positions gets a tail of its own (so the next
//     split can reuse it). A dense list never has a tail.
struct SplitOptions {
    SplitCosts costs;
    std::span<const std::shared_ptr<const SplitTail>> tails;
};
std::vector<ScalarSplit> split_scalars_for_device(std::span<const std::span<const Fr>> values, size_t lists,
                                                  std::span<const uint64_t* const> selection,
                                                  const SplitOptions& options, ThreadPool* pool = nullptr);

// groth16::split_queries for the device: Montgomery scalars, each query laid out as split_scalars_for_device lays
// out a list, with options.tails (A, B, L; or empty) reused where they still cover the query.
groth16::QuerySplits split_queries_for_device(const groth16::SplitInputs& in, const SplitOptions& options);

}  // namespace cuzk::gpu
