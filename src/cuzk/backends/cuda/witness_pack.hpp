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
#include "cuzk/util/thread_pool.hpp"
#include "cuzk/util/uninit_vector.hpp"

namespace cuzk::gpu {

struct PackedWitness {
    size_t size = 0;                           // values
    uninit_vector<uint64_t> ones;              // bit i of word i / 64: value i is one; ceil(size / 64) words
    std::vector<uint32_t> other_indices;       // positions of the values neither 0 nor 1, increasing
    std::vector<Fr> other_values;              // those values (Montgomery form, as Fr is), same order
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

// The values again: what the device's expansion makes of them (the reference its test compares with).
std::vector<Fr> unpack_witness(const PackedWitness& p);

}  // namespace cuzk::gpu
