// EmptySectorUpdate (SnapDeals), row for row as rust-fil-proofs synthesizes it: the SHA-256 tree-D circuit of one
// partition (storage-proofs-update circuit.rs, gadgets.rs) and the single-partition EmptySectorUpdate-Poseidon
// circuit (poseidon/circuit.rs). H(a, b) below is Poseidon-2 under the SnapDeals tag 2^40 (311 rows); Poseidon-2
// without a tag name is the MerkleTree one.
//
// SHA-256 variant, one partition k (public inputs: k_and_h_select, comm_r_old, comm_d_new, comm_r_new):
//   k_and_h_select                 alloc, inputize; its low partition_bit_len + 6 bits as AllocatedBits and the row
//                                  (sum 2^i b_i) * ONE = k_and_h_select; the partition bits packed into `partition`
//   comm_r_old, comm_d_new, comm_r_new   alloc + inputize each
//   phi = H(comm_d_new, comm_r_old)
//   comm_c, root_r_old, root_r_new, the partition's apex_leaf_count apex leaves, the partition path's siblings
//   comm_r_old = Poseidon-2(comm_c, root_r_old), comm_r_new = Poseidon-2(comm_c, root_r_new) (each + 1 row)
//   apex tree                      SHA-256 node hashes up to the apex root (apex_leaf_count - 1 hashes), then its
//                                  path along the partition bits to comm_d_new (por_no_challenge_input)
//   challenge digests              per digest j: digest_index = k * digests_per_partition + j (1 row),
//                                  H(comm_r_new, digest_index), its 255 bits (255 + 1 rows); each run of
//                                  random_bits_per_challenge bits, the partition bits above them, is a challenge
//   per challenge (c_index)        c_high: the h high bits of the challenge for each of the 6 hs, scaled by its
//                                  h_select bit, summed (13 rows); rho = H(phi, c_high); leaf_r_old, leaf_d_new;
//                                  leaf_r_new = leaf_r_old + leaf_d_new * rho (2 rows); tree R old and new paths
//                                  (siblings allocated first, then por_no_challenge_input along the challenge bits);
//                                  the apex leaf the challenge's bits above the tree-D path select (apex_leaf_count
//                                  - 1 picks); the tree-D path up to that apex leaf (SHA-256,
//                                  challenge_bit_len - partition_bit_len - apex_leaf_bit_len levels)
// Poseidon variant (public inputs: h_select, comm_r_old, comm_d_new, comm_r_new): h_select and its 6 bits, the
// three commitments, phi, comm_c / root_r_old / root_r_new and their two checks, a zero `partition` (an aux
// number with no row), digests over challenge_count x partition_count challenges of challenge_bit_len bits, and
// per challenge the same as above except that tree D is a Poseidon tree of tree R's shape, proven to comm_d_new
// directly (no apex tree).
//
// The challenges depend only on the head (everything before them), so they are synthesized with
// r1cs::synthesize_parts (in parallel for the prover) and counted in parallel; rows and variables stay in
// upstream's order.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "cuzk/filecoin/challenges_snap.hpp"
#include "cuzk/filecoin/circuit_support.hpp"
#include "cuzk/filecoin/por.hpp"
#include "cuzk/filecoin/proof_types.hpp"
#include "cuzk/filecoin/tree.hpp"
#include "cuzk/r1cs/circuit.hpp"

namespace cuzk::filecoin {

// One challenge's Merkle proofs (circuit.rs ChallengeProof): the leaves and the sibling lists of the three trees.
// path_d_new: the SHA-256 variant's binary tree D (challenge_bit_len levels of 1 sibling; the circuit uses the
// levels below the apex leaves, and challenge 0's top partition_bit_len levels as the partition path), or the
// Poseidon variant's tree D of tree R's shape.
struct SnapChallengeWitness {
    std::optional<Fr> leaf_r_old, leaf_d_new, leaf_r_new;
    SiblingPath path_r_old, path_d_new, path_r_new;
};

// A partition's public and private inputs (circuit.rs PublicInputs + PrivateInputs); values absent for key
// generation and counting.
struct SnapWitness {
    std::optional<Fr> selector;  // SHA-256 variant: k_and_h_select; Poseidon variant: h_select
    std::optional<Fr> comm_r_old, comm_d_new, comm_r_new;
    std::optional<Fr> comm_c, root_r_old, root_r_new;
    std::vector<std::optional<Fr>> apex_leaves;  // SHA-256 variant: the partition's apex_leaf_count tree-D nodes
    std::vector<SnapChallengeWitness> challenges;
};

// Challenges in one circuit: challenge_count (SHA-256, per partition) or challenge_count x partition_count
// (Poseidon, one partition).
uint32_t snap_circuit_challenge_count(const SnapShape& shape, UpdateCircuit variant);

class EmptySectorUpdateCircuit : public r1cs::CircuitImpl<EmptySectorUpdateCircuit> {
public:
    // std::invalid_argument when the witness does not have the shape's sizes, or (values present) a selector
    // upstream would refuse, partition paths that differ between challenges, or a leaf_r_new other than
    // leaf_r_old + leaf_d_new * rho (upstream asserts all of these).
    EmptySectorUpdateCircuit(SnapShape shape, UpdateCircuit variant, SnapWitness witness);
    static EmptySectorUpdateCircuit blank(const SnapShape& shape, UpdateCircuit variant);

    const SnapShape& shape() const { return shape_; }
    UpdateCircuit variant() const { return variant_; }
    uint32_t challenge_count() const { return snap_circuit_challenge_count(shape_, variant_); }

    // What the challenges use of what comes before them.
    struct Head {
        std::vector<AllocatedBit> partition_bits;  // SHA-256 variant (little-endian k)
        std::vector<AllocatedBit> h_select_bits;   // 6
        AllocatedNum comm_d_new, phi, root_r_old, root_r_new;
        std::vector<AllocatedNum> apex_leaves;                // SHA-256 variant
        std::vector<std::vector<AllocatedBit>> random_bits;  // per challenge, without the partition bits
    };

    // The synthesis templates are defined in snap_synthesis.hpp and instantiated in snap_circuit.cpp for every
    // constraint system the code base synthesizes the circuit into: r1cs::KeygenAssembly, ProvingAssignment,
    // TestConstraintSystem, WitnessAssignment and CountingSystem (their fragments through synthesize_parts). A file
    // that needs another system includes snap_synthesis.hpp; the others link against those instantiations.

    // The head, then the challenges as parts (in parallel into the systems that fork).
    template <class CS>
    void synthesize(CS& cs) const;
    template <class CS>
    Head synthesize_head(CS& cs) const;
    template <class CS>
    void synthesize_challenge(CS& cs, const Head& head, size_t c_index) const;

private:
    template <class CS>
    std::vector<std::vector<AllocatedBit>> gen_challenge_bits(CS& cs, const AllocatedNum& comm_r_new,
                                                              const AllocatedNum& partition, uint32_t challenges,
                                                              uint32_t bits_per_challenge) const;
    template <class CS>
    AllocatedNum challenge_high_bits(CS& cs, size_t c_index, std::span<const AllocatedBit> c_bits,
                                     const Head& head) const;

    SnapShape shape_;
    UpdateCircuit variant_;
    SnapWitness w_;
};

// circuit.rs PublicInputs::to_vec: [k_and_h_select, comm_r_old, comm_d_new, comm_r_new] of partition k.
std::vector<Fr> snap_public_inputs(const SnapShape& shape, uint32_t k, uint32_t h, const Fr& comm_r_old,
                                   const Fr& comm_d_new, const Fr& comm_r_new);
// poseidon/circuit.rs PublicInputs::to_vec: [h_select, comm_r_old, comm_d_new, comm_r_new].
std::vector<Fr> snap_poseidon_public_inputs(const SnapShape& shape, uint32_t h, const Fr& comm_r_old,
                                            const Fr& comm_d_new, const Fr& comm_r_new);

// A partition's witness from the native trees (what the vanilla prover reads from them): tree R old and new over
// the old and new replica, tree D new over the new data; comm_r_old / comm_r_new = Poseidon-2(comm_c, root).
SnapWitness snap_witness(const SnapShape& shape, uint32_t k, uint32_t h, const Fr& comm_c,
                         const PoseidonTree& tree_r_old, const BinaryTree& tree_d_new, const PoseidonTree& tree_r_new);
SnapWitness snap_poseidon_witness(const SnapShape& shape, uint32_t h, const Fr& comm_c,
                                  const PoseidonTree& tree_r_old, const PoseidonTree& tree_d_new,
                                  const PoseidonTree& tree_r_new);

// The circuit's size (one partition), the challenges counted in parallel.
CircuitCounts snap_circuit_info(const SnapShape& shape, UpdateCircuit variant);
CircuitCounts snap_circuit_info(RegisteredUpdateProof p, UpdateCircuit variant = UpdateCircuit::Sha256);

}  // namespace cuzk::filecoin
