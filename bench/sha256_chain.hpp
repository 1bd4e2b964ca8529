// The synthesis and PCE benchmarks' SHA-256 workload (SHA-256 is 81% of a PoRep partition): `blocks` chained
// compressions over freshly allocated random message bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "cuzk/circuits/standin/sha256.hpp"
#include "cuzk/r1cs/circuit.hpp"

namespace cuzk::bench {

template <class CS>
void sha256_chain(CS& cs, size_t blocks, uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto state = standin::sha256_iv();
    for (size_t b = 0; b < blocks; b++) {
        std::vector<standin::Boolean> block;
        block.reserve(512);
        for (size_t i = 0; i < 512; i++) {
            std::optional<bool> v;
            if constexpr (CS::kNeedsValues) v = (rng() & 1) != 0;
            block.push_back(standin::Boolean(standin::AllocatedBit::alloc(cs, "bit", v)));
        }
        state = standin::sha256_compression(cs, "compression", block, state);
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
