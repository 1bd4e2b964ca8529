// FallbackPoSt's synthesis (post_circuit.hpp declares these templates and describes the rows). Instantiated once,
// in post_circuit.cpp, for the systems listed at the end (those post_circuit.hpp names), and every other file links
// against that: a sector's Poseidon and Merkle rows are most of a translation unit's compile time per system.
// Include this header only to synthesize a PoSt into another system; the listed ones are declared extern here, so
// that such a file does not instantiate them again.
#pragma once

#include <span>
#include <stdexcept>
#include <string>

#include "cuzk/filecoin/por.hpp"
#include "cuzk/filecoin/post_circuit.hpp"
#include "cuzk/gadgets/num.hpp"
#include "cuzk/gadgets/poseidon.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/r1cs/counting_cs.hpp"

namespace cuzk::filecoin {

// One sector's rows, in the caller's namespace (upstream's `Circuit for &Sector`).
template <class CS>
void post_sector_gadget(CS& cs, const PostSectorWitness& s) {
    if (s.leaves.size() != s.paths.size())
        throw std::invalid_argument("PoSt sector: " + std::to_string(s.leaves.size()) + " leaves and " +
                                    std::to_string(s.paths.size()) + " paths");
    auto alloc = [&](const char* name, const std::optional<Fr>& v) {
        Namespace<CS> ns(cs, name);
        return AllocatedNum::alloc(cs, "num", v);
    };
    const AllocatedNum comm_r_last = alloc("comm_r_last", s.comm_r_last);
    const AllocatedNum comm_c = alloc("comm_c", s.comm_c);
    const AllocatedNum comm_r = alloc("comm_r", s.comm_r);
    comm_r.inputize(cs, "comm_r_input");
    AllocatedNum hash;
    {
        Namespace<CS> ns(cs, "H_comm_c_comm_r_last");
        const AllocatedNum preimage[2] = {comm_c, comm_r_last};
        hash = gadgets::poseidon_hash_gadget(cs, std::span<const AllocatedNum>(preimage, 2));
    }
    gadgets::constraint::equal(cs, "enforce_comm_c_comm_r_last_hash_comm_r", comm_r, hash);
    for (size_t i = 0; i < s.leaves.size(); i++) {
        Namespace<CS> ns(cs, [&] { return "challenge_inclusion_" + std::to_string(i); });
        por_circuit(cs, TreeHasher::Poseidon, PorRoot::value(s.leaves[i]), s.paths[i], PorRoot::of(comm_r_last),
                    true);
    }
}

// The sectors are independent given nothing but their own values: they run as parallel parts (circuit.hpp
// synthesize_parts: appended in order, so the rows, variables and inputs are those of the loop upstream runs).
template <class CS>
void FallbackPostCircuit::synthesize(CS& cs) const {
    Namespace<CS> ns(cs, "outer namespace");
    r1cs::synthesize_parts(cs, config_.sector_count, [&](auto& part, size_t i) { synthesize_sector(part, i); });
}

template <class CS>
void FallbackPostCircuit::synthesize_sector(CS& cs, size_t i) const {
    Namespace<CS> ns(cs, [&] { return "sector_" + std::to_string(i); });
    post_sector_gadget(cs, sector(i));
}

// Every synthesis template for system CS: an explicit instantiation definition (post_circuit.cpp, EXTERN empty) or
// declaration (EXTERN = extern).
#define CUZK_FALLBACK_POST_SYNTHESIS(EXTERN, CS)                            \
    EXTERN template void post_sector_gadget(CS&, const PostSectorWitness&); \
    EXTERN template void FallbackPostCircuit::synthesize(CS&) const;        \
    EXTERN template void FallbackPostCircuit::synthesize_sector(CS&, size_t) const;

CUZK_FALLBACK_POST_SYNTHESIS(extern, r1cs::KeygenAssembly)
CUZK_FALLBACK_POST_SYNTHESIS(extern, r1cs::ProvingAssignment)
CUZK_FALLBACK_POST_SYNTHESIS(extern, r1cs::TestConstraintSystem)
CUZK_FALLBACK_POST_SYNTHESIS(extern, r1cs::WitnessAssignment)
CUZK_FALLBACK_POST_SYNTHESIS(extern, r1cs::CountingSystem)

}  // namespace cuzk::filecoin
