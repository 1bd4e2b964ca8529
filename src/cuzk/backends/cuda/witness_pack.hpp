// A witness packed for its trip to the GPU (plain C++, no CUDA). Filecoin's circuits keep every intermediate bit:
// a 32 GiB PoRep partition's 130 M aux values are ~50 % zeros and ~48 % ones, so the 4.2 GB the GPU prover sends
// for its sparse products (HComputer's z) are ~96 % redundant. Packed, they are the ones' bitmap (16 MB) and the
// other values with their positions (~2.6 M: ~94 MB), which the device expands into z (h_gpu.cu). One parallel
// read of the values here replaces the staged copy of all of them (GpuProverConfig::pack_witness).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "cuzk/ff/fr.hpp"
#include "cuzk/msm/msm.hpp"
#include "cuzk/util/thread_pool.hpp"
#include "cuzk/util/uninit_vector.hpp"

namespace cuzk::gpu {

struct PackedWitness {
    size_t size = 0;                           // values
    uninit_vector<uint64_t> ones;              // bit i of word i / 64: value i is one; ceil(size / 64) words
    // Positions of the values neither 0 nor 1 (pack_witness: increasing; pack_from_split: a split's tail first,
    // whose values may also be 0 or 1), each once, and their values (Montgomery form, as Fr is), same order. The
    // values here win over the bitmap.
    std::vector<uint32_t> other_indices;
    std::vector<Fr> other_values;
    size_t bytes() const {
        return ones.size() * sizeof(uint64_t) + other_indices.size() * sizeof(uint32_t) +
               other_values.size() * sizeof(Fr);
    }
};

// The values packed, or nullopt where more than max_others of them are neither 0 nor 1 (then packing would not
// pay: a dense witness goes up as it is), after one read of all of them. Throws std::invalid_argument for 2^32
// values or more (32-bit positions).
std::optional<PackedWitness> pack_witness(std::span<const Fr> values, size_t max_others,
                                          ThreadPool& pool = ThreadPool::global());

// The same packing from a 0/1 split of the values already made (msm.hpp's ScalarSplit with Montgomery scalars, one
// position a value: the GPU prover's L list is every aux value): its ones (bitmap or listed), its others and its
// tail's entries; no value is read again. nullopt for a dense split or more than max_others others (tail
// included); std::invalid_argument for a split in canonical form or with 2^32 positions or more.
std::optional<PackedWitness> pack_from_split(const ScalarSplit& split, size_t max_others);

// The values again: what the device's expansion makes of them (the reference its test compares with).
std::vector<Fr> unpack_witness(const PackedWitness& p);

}  // namespace cuzk::gpu
