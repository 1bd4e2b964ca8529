// FallbackPoSt, the circuit of Winning and Window PoSt, row for row as rust-fil-proofs synthesizes it
// (storage-proofs-post fallback/circuit.rs, compound.rs; filecoin-proofs parameters.rs):
//
//   "outer namespace", then for each of the `sector_count` sectors ("sector_i"):
//     comm_r_last, comm_c, comm_r            three aux numbers, in this order
//     "comm_r_input"                         comm_r inputized (1 public input, 1 row)
//     "H_comm_c_comm_r_last"                 Poseidon-2 MerkleTree(comm_c, comm_r_last)            311 rows
//     "enforce_comm_c_comm_r_last_hash_comm_r"  comm_r * ONE = hash                                1 row
//     per challenge ("challenge_inclusion_i"): PoRCircuit of an allocated leaf in tree R_last with the root
//       comm_r_last (private): the path levels, the path bits packed into 1 public input (the leaf index),
//       computed root * ONE = comm_r_last. 32 GiB (8-8-0): 10 levels x 530 + 2 = 5,302 rows.
//   per sector 313 + challenges x (PoR); public inputs per sector: comm_r, then one leaf index per challenge.
//
// Sizes (filecoin-proofs parameters.rs): Window PoSt = the size's Window sector count (2 below 32 GiB, 2349 at
// 32 GiB, 2300 at 64 GiB) x 10 challenges; Winning PoSt (66 challenges of 1 sector) = 66 one-challenge sectors,
// all the same real sector. A partition with fewer real sectors than sector_count repeats its last one (witness and
// public inputs), as the vanilla prover and the compound proof do.
//
// For the proving system bellperson synthesizes groups of sectors apart and appends them (synthesize_extendable);
// the variables, rows and their order are those of the sequential synthesis done here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "cuzk/filecoin/circuit_support.hpp"
#include "cuzk/filecoin/hashers.hpp"
#include "cuzk/filecoin/por.hpp"
#include "cuzk/filecoin/proof_types.hpp"
#include "cuzk/filecoin/tree.hpp"
#include "cuzk/r1cs/circuit.hpp"

namespace cuzk::filecoin {

// fallback::PublicParams with the tree's shape: what fixes the circuit (and, with api_version, its inputs).
struct PostCircuitConfig {
    uint64_t sector_nodes = 0;
    TreeShape tree;                 // tree R_last's shape
    uint32_t challenge_count = 0;   // challenges per circuit sector
    uint32_t sector_count = 0;      // sectors per circuit (partition)
    ApiVersion api_version = ApiVersion::V1_2_0;  // challenge indexing only; the circuit is the same

    // filecoin-proofs' winning_post_setup_params / window_post_setup_params for a registered proof.
    static PostCircuitConfig from_registered(RegisteredPoStProof p);
    // The same from a sector size (any size filecoin-proofs supports, test sizes included) and the PoSt type.
    static PostCircuitConfig make(uint64_t sector_size, PoStType type, ApiVersion version = ApiVersion::V1_2_0);

    // sector_count x (1 + challenge_count), ONE not included.
    size_t public_input_count() const { return size_t(sector_count) * (1 + size_t(challenge_count)); }
};

// One sector of the circuit (fallback/circuit.rs `Sector`): values absent for key generation and counting.
struct PostSectorWitness {
    std::optional<Fr> comm_r, comm_c, comm_r_last;
    std::vector<std::optional<Fr>> leaves;  // the challenged leaves of tree R_last, one per challenge
    std::vector<PorPath> paths;             // their paths (with the index at every level)

    // Sector::blank_circuit: challenge_count blank paths of the config's tree.
    static PostSectorWitness blank(const PostCircuitConfig& config);
    // From the sector's tree R_last and comm_c: the leaves and paths of `challenges` (leaf indices).
    static PostSectorWitness from_tree(const PoseidonTree& tree_r_last, const Fr& comm_c,
                                       std::span<const uint64_t> challenges);
};

// FallbackPostCircuit's synthesis and post_sector_gadget are defined in post_synthesis.hpp and instantiated in
// post_circuit.cpp for every constraint system the code base synthesizes a PoSt into: r1cs::KeygenAssembly,
// ProvingAssignment, TestConstraintSystem, WitnessAssignment and CountingSystem. A file that needs another system
// includes post_synthesis.hpp; the others link against those instantiations instead of compiling them again.

// One sector's rows, in the caller's namespace (upstream's `Circuit for &Sector`).
template <class CS>
void post_sector_gadget(CS& cs, const PostSectorWitness& s);

// The FallbackPoSt circuit of one partition.
class FallbackPostCircuit : public r1cs::CircuitImpl<FallbackPostCircuit> {
public:
    // 1 .. sector_count sectors; the last one fills the remaining places. Each must have challenge_count leaves.
    FallbackPostCircuit(PostCircuitConfig config, std::vector<PostSectorWitness> sectors);
    // The key-generation circuit (no values).
    static FallbackPostCircuit blank(const PostCircuitConfig& config);

    const PostCircuitConfig& config() const { return config_; }
    // The witness of circuit sector i (the last real sector for i past them).
    const PostSectorWitness& sector(size_t i) const { return sectors_[std::min(i, sectors_.size() - 1)]; }

    // Every sector in "outer namespace" (post_synthesis.hpp, instantiated as above).
    template <class CS>
    void synthesize(CS& cs) const;
    // Circuit sector i ("sector_i").
    template <class CS>
    void synthesize_sector(CS& cs, size_t i) const;

private:
    PostCircuitConfig config_;
    std::vector<PostSectorWitness> sectors_;
};

// A sector of the PoSt's public inputs (fallback::PublicSector).
struct PostPublicSector {
    uint64_t id = 0;
    Fr comm_r;
};

// FallbackPoStCompound::generate_public_inputs for partition k: of `sectors` (all the proof's public sectors, in
// order) the k-th run of sector_count; per sector comm_r and its challenge_count leaf challenges (the sector's
// index in the proof = k * sector_count + position); the last sector's inputs repeated up to sector_count.
// Winning PoSt lists its one sector sector_count (66) times, as filecoin-proofs does. randomness must be canonical.
std::vector<Fr> post_public_inputs(const PostCircuitConfig& config, const Domain& randomness,
                                   std::span<const PostPublicSector> sectors, uint32_t partition = 0);
// The same for one partition's sectors alone (1 .. sector_count of them), the first being sector number
// `first_index` of the whole proof (partition * sector_count).
std::vector<Fr> post_partition_public_inputs(const PostCircuitConfig& config, const Domain& randomness,
                                             std::span<const PostPublicSector> sectors, uint64_t first_index);

// The circuit's size, every sector synthesized into a r1cs::CountingSystem (sectors counted in parallel).
CircuitCounts post_circuit_info(const PostCircuitConfig& config);
CircuitCounts post_circuit_info(RegisteredPoStProof p);
CircuitCounts post_circuit_info(uint64_t sector_size, PoStType type);

}  // namespace cuzk::filecoin
