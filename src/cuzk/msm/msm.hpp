// Multi-scalar multiplication on the CPU: sum_i scalars[i] * bases[i] for G1 and G2.
//
// Pipeline (msm.cpp has the details and the reasons):
//   1. split_scalars: scalars 0 are dropped, scalars 1 are listed apart, the rest are converted out of Montgomery
//      form. Groth16 witnesses are mostly 0 and 1 (bits, booleans), so this split alone removes most of the work.
//   2. The ones are summed by plain point additions (batched affine additions, one inversion per batch).
//   3. The rest go to Pippenger's bucket method with signed c-bit digits in [-2^(c-1), 2^(c-1)] (half the buckets
//      of unsigned digits), buckets accumulated by batched affine additions (Montgomery's trick: a batch of
//      independent additions shares one field inversion, about 6 multiplications per addition instead of the 10
//      of an XYZZ mixed addition), windows and point ranges spread over the thread pool. In G1, on a CPU with
//      AVX-512 IFMA, the additions run eight at a time in vector registers (batch_add_ifma.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "cuzk/ec/g1.hpp"
#include "cuzk/ec/g2.hpp"
#include "cuzk/ff/fr.hpp"
#include "cuzk/util/thread_pool.hpp"
#include "cuzk/util/uninit_vector.hpp"

namespace cuzk {

// The positions of an earlier split's others (its "tail"), kept for the next split of the same shape: Filecoin's
// partitions have their non-0/1 values at (nearly) the same positions, so a consumer that keeps a tail's indices
// (the GPU MSM context remembers `id`) moves them once and per split only the tail's scalars. Immutable once made;
// shared by every split that uses it. Which list gets or reuses a tail is the caller's choice (SplitHook below;
// the GPU prover's rule is in backends/cuda/device_split.hpp).
struct SplitTail {
    uint64_t id = 0;                   // unique per tail (device_split.cpp numbers its tails process-wide)
    size_t size = 0;                   // number of positions of the splits it serves
    uninit_vector<uint32_t> indices;   // increasing
    std::vector<uint64_t> member;      // bit i set: position i is in the tail
    bool contains(size_t i) const { return ((member[i / 64] >> (i % 64)) & 1) != 0; }
};
// The tail of splits of `size` positions at `indices` (increasing, each < size), numbered `id`, its member bitmap
// made from them.
std::shared_ptr<const SplitTail> make_split_tail(size_t size, std::span<const uint32_t> indices, uint64_t id);

// The scalars of one MSM sorted by how they are handled. It depends on the scalars only, so one split serves every
// MSM over the same assignment (in Groth16 the aux assignment feeds the A, B_G1 and B_G2 queries).
//
// Two layouts; split_scalars_multi's SplitHook picks one per list (without a hook: indexed, listed ones, no tail):
//   - indexed (the default): zeros skipped, ones listed in one_indices or as the bitmap one_bits, others as
//     (other_indices, other_scalars). With a tail, other_indices starts with the tail's indices (tail_size of them,
//     whatever the values there, 0 and 1 included) and goes on with the "extras": others outside the tail; the ones
//     in the tail are not in the ones.
//   - dense: no split at all, other_scalars holds every scalar in order (other_indices empty, no ones): a witness
//     with almost no 0/1 values saves the indices.
struct ScalarSplit {
    size_t size = 0;                        // number of scalars, i.e. the number of bases the split applies to
    // Uninitialized on resize: split_scalars sizes them, then its threads write (and first touch) their own ranges.
    uninit_vector<uint32_t> one_indices;      // i with scalars[i] == 1, increasing
    uninit_vector<uint64_t> one_bits;         // or the same as a bitmap (bit i of word i / 64), one_indices empty
    size_t one_bit_count = 0;                 // ones in one_bits
    uninit_vector<uint32_t> other_indices;    // i with scalars[i] not in {0, 1}, increasing (see the tail above)
    uninit_vector<limbs_t<4>> other_scalars;  // canonical (not Montgomery) values of those scalars, same order
    // other_scalars hold the Montgomery limbs instead (split_scalars_gathered(..., true)): for the GPU MSM, which
    // converts on the device; the CPU MSM refuses such a split.
    bool montgomery = false;
    bool dense = false;                       // the dense layout (above)
    std::shared_ptr<const SplitTail> tail;    // the tail other_indices starts with (nullptr: none)
    size_t tail_size = 0;                     // == tail->indices.size() when tail is set

    size_t one_count() const { return one_bits.empty() ? one_indices.size() : one_bit_count; }
    // Zeros skipped (0 for a dense split, which skips nothing).
    size_t zero_count() const { return dense ? 0 : size - one_count() - other_indices.size(); }
    // Host bytes of its own arrays (the shared tail not included).
    size_t bytes() const {
        return one_indices.size() * sizeof(uint32_t) + one_bits.size() * sizeof(uint64_t) +
               other_indices.size() * sizeof(uint32_t) + other_scalars.size() * sizeof(limbs_t<4>);
    }
};

// Tuning of one MSM; every default is what the measurements in msm.cpp chose.
struct MsmConfig {
    // Pippenger window width c in bits (1..20). 0: msm_window_bits(number of Pippenger scalars, pool threads, whether
    // the additions run on the IFMA kernel).
    unsigned window_bits = 0;
    // Route scalars 0 and 1 around Pippenger (default). false: every scalar goes through Pippenger (zero digits
    // still cost nothing there); meant for comparisons and tests.
    bool split_zero_one = true;
    // Pippenger processes a task's points in chunks of this many; each bucket's sum enters the next chunk as one
    // more point, so chunking costs no extra additions. The scratch of one running task is about 60 bytes (G1) or
    // 110 bytes (G2) per chunk point plus 300 (G1) or 580 (G2) bytes per bucket. 0: 2^18.
    size_t chunk_points = 0;
    // Independent affine additions that share one inversion. 0: 2048 for G1, 1024 for G2 (the gathered inputs of
    // one batch then stay within the 1 MiB L2 cache, and the inversion costs ~3% of the batch). G1 2^16 single-thread
    // CPU time with batches of 512 .. 8192: 411, 390, 382, 382, 379 ms.
    size_t batch_size = 0;
    // A round of bucket additions with fewer independent pairs than this finishes with XYZZ additions instead (one
    // inversion costs ~570 field multiplications, which fewer pairs do not repay). 0: 128 for G1, 48 for G2.
    size_t min_batch_pairs = 0;
    // The pool that runs the MSM; nullptr: ThreadPool::global().
    ThreadPool* pool = nullptr;
};

// Sorts scalars into zeros, ones and the rest (see ScalarSplit). Throws std::invalid_argument when there are
// 2^31 or more scalars (indices are 32-bit and Pippenger keeps a sign bit next to them).
ScalarSplit split_scalars(std::span<const Fr> scalars, ThreadPool* pool = nullptr);

// One piece of a gathered scalar list: the values whose bit is set in `density` (bit i of word i / 64; every value
// when density is null), in order. density must hold at least ceil(values.size() / 64) words.
struct ScalarSource {
    std::span<const Fr> values;
    const uint64_t* density = nullptr;
};
// split_scalars of the concatenation of the selected values of every source, without building that list (Groth16
// gathers the A and B queries' scalars from the inputs and the aux values by density): one parallel pass counts,
// one writes.
// keep_montgomery: leave the other scalars in Montgomery form (ScalarSplit::montgomery), saving one multiplication
// per scalar when a GPU does the conversion.
ScalarSplit split_scalars_gathered(std::span<const ScalarSource> sources, ThreadPool* pool = nullptr,
                                   bool keep_montgomery = false);

// What split_scalars_multi's first pass counted in one list, for a SplitHook to choose the list's layout from.
struct SplitCounts {
    size_t size = 0;    // positions (selected values)
    size_t ones = 0;    // values 1
    size_t others = 0;  // values not in {0, 1}
    // The list's candidate tail (SplitHook::tails) when it has the list's size (else nullptr), and the ones and
    // others at positions outside it (the same as ones and others without a tail).
    const SplitTail* tail = nullptr;
    size_t ones_outside_tail = 0, others_outside_tail = 0;
};
// The layout of one list (see ScalarSplit).
struct SplitChoice {
    bool dense = false;        // the dense layout (neither of the others then)
    bool ones_bitmap = false;  // indexed layout: the ones as one_bits
    bool use_tail = false;     // indexed layout: other_indices start with SplitCounts::tail (which must be set)
};
// Lets a caller of split_scalars_multi lay out each list from the counts of its values, between the pass that
// counts and the pass that writes. tails: one candidate per list, or empty (an entry may be nullptr; one of
// another size than its list is not offered). choose: the layout of list q; null: indexed, listed ones, no tail.
struct SplitHook {
    std::span<const std::shared_ptr<const SplitTail>> tails;
    std::function<SplitChoice(size_t list, const SplitCounts& counts)> choose;
};

// Several gathered lists over the same value arrays, split in one pass: every value is read, classified and
// converted once however many lists select it (Groth16's A, B and L lists all draw on the aux values; at 2^27
// that is 4 GB read once instead of three times). selection[q * values.size() + k] selects the values of array k
// for list q: a density bitmap as in ScalarSource, kAllValues, or kNoValues. Returns one split per list, laid out
// as `hook` chooses. Throws std::invalid_argument when the selections or tails do not match the lists, or a choice
// contradicts itself (dense with a bitmap or a tail; a tail without a candidate).
inline constexpr const uint64_t* kAllValues = nullptr;
extern const uint64_t* const kNoValues;
std::vector<ScalarSplit> split_scalars_multi(std::span<const std::span<const Fr>> values, size_t lists,
                                             std::span<const uint64_t* const> selection, ThreadPool* pool = nullptr,
                                             bool keep_montgomery = false, const SplitHook& hook = {});

// Throws std::invalid_argument ("<who>: split index I out of range", or what else is wrong) when an index of the
// split is >= split.size, or its layout is inconsistent (other lists of different lengths, a bitmap of the wrong
// size, with bits past the end or another count, a dense split that is not one scalar per position, other indices
// that do not start with the split's tail): a split built by hand could make a device read past the bases. One
// parallel pass (a 2^27 split holds ~10^8 indices).
void check_split_indices(const ScalarSplit& split, const char* who, ThreadPool* pool = nullptr);

// The part of a split that covers positions [lo, hi), as a split of hi - lo positions (its indices less lo): what
// an MSM over bases lo .. hi - 1 alone needs (gpu::StreamedMsm runs one per chunk of bases; the chunks' sums add up
// to the whole split's). Same layout and scalar form; the other indices come out increasing and without a tail (a
// tail's positions keep their values, 0 and 1 included, and go through Pippenger as before). A bitmap split is cut
// on whole words: lo a multiple of 64, and hi too unless it is split.size (an empty range may lie anywhere). Throws
// std::invalid_argument for a range outside the split or a bitmap cut inside a word.
ScalarSplit split_range(const ScalarSplit& split, size_t lo, size_t hi);

// The window width the cost model picks for n Pippenger points on `threads` threads (see msm.cpp), for the scalar
// batched additions or for the AVX-512 IFMA ones (G1 on a CPU that has them).
unsigned msm_window_bits(size_t n, size_t threads, bool vector_additions = false);

// sum_i scalars[i] * bases[i]. Throws std::invalid_argument when the spans differ in length. Bases may be the
// point at infinity, repeat or be opposite to one another; every scalar is a valid Fr (reduced), so any value works.
template <class Cfg>
Jacobian<Cfg> msm(std::span<const Affine<Cfg>> bases, std::span<const Fr> scalars, const MsmConfig& cfg = {});

// The same with the scalars already split; throws std::invalid_argument when split.size != bases.size() or an index
// of the split is out of range.
template <class Cfg>
Jacobian<Cfg> msm_split(std::span<const Affine<Cfg>> bases, const ScalarSplit& split, const MsmConfig& cfg = {});

extern template Jacobian<G1Config> msm<G1Config>(std::span<const G1Affine>, std::span<const Fr>, const MsmConfig&);
extern template Jacobian<G2Config> msm<G2Config>(std::span<const G2Affine>, std::span<const Fr>, const MsmConfig&);
extern template Jacobian<G1Config> msm_split<G1Config>(std::span<const G1Affine>, const ScalarSplit&,
                                                       const MsmConfig&);
extern template Jacobian<G2Config> msm_split<G2Config>(std::span<const G2Affine>, const ScalarSplit&,
                                                       const MsmConfig&);

inline G1Jacobian msm_g1(std::span<const G1Affine> bases, std::span<const Fr> scalars, const MsmConfig& cfg = {}) {
    return msm<G1Config>(bases, scalars, cfg);
}
inline G2Jacobian msm_g2(std::span<const G2Affine> bases, std::span<const Fr> scalars, const MsmConfig& cfg = {}) {
    return msm<G2Config>(bases, scalars, cfg);
}
inline G1Jacobian msm_g1_split(std::span<const G1Affine> bases, const ScalarSplit& split,
                               const MsmConfig& cfg = {}) {
    return msm_split<G1Config>(bases, split, cfg);
}
inline G2Jacobian msm_g2_split(std::span<const G2Affine> bases, const ScalarSplit& split,
                               const MsmConfig& cfg = {}) {
    return msm_split<G2Config>(bases, split, cfg);
}

}  // namespace cuzk
