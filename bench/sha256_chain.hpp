// The synthesis and PCE benchmarks' SHA-256 workload (SHA-256, in the labels and tree D, is most of a PoRep
// partition's rows): `blocks` chained compressions (gadgets/sha256.hpp, bellperson's rows) over freshly allocated
// random message bits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuzk/r1cs/circuit.hpp"

namespace cuzk::bench {

// Defined and instantiated in sha256_chain.cpp for r1cs::KeygenAssembly, ProvingAssignment, TestConstraintSystem and
// WitnessAssignment (bench_synthesis and bench_pce use it with those), so that the compressions are compiled once.
template <class CS>
void sha256_chain(CS& cs, size_t blocks, uint64_t seed);

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
