// The synthesis and PCE benchmarks' SHA-256 workload (SHA-256, in the labels and tree D, is most of a PoRep
// partition's rows): `blocks` chained compressions (gadgets/sha256.hpp, bellperson's rows) over freshly allocated
// random message bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "cuzk/gadgets/boolean.hpp"
#include "cuzk/gadgets/sha256.hpp"
#include "cuzk/r1cs/circuit.hpp"

namespace cuzk::bench {

template <class CS>
void sha256_chain(CS& cs, size_t blocks, uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto state = gadgets::sha256_iv();
    for (size_t b = 0; b < blocks; b++) {
        std::vector<gadgets::Boolean> block;
        block.reserve(512);
        for (size_t i = 0; i < 512; i++) {
            std::optional<bool> v;
            if constexpr (CS::kNeedsValues) v = (rng() & 1) != 0;
            block.push_back(gadgets::Boolean(gadgets::AllocatedBit::alloc(cs, "bit", v)));
        }
        state = gadgets::sha256_compression_function(cs, "compression", std::span<const gadgets::Boolean>(block), state);
    }
}

// The same as a Circuit, so that it can be compiled (pce.hpp) and run through synthesize_groth16.
struct Sha256ChainCircuit : r1cs::CircuitImpl<Sha256ChainCircuit> {
    size_t blocks = 40;
    uint64_t seed = 7;
    template <class CS>
    void synthesize(CS& cs) const {
        sha256_chain(cs, blocks, seed);
    }
};

}  // namespace cuzk::bench
