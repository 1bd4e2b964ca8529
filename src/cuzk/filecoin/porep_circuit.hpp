// Filecoin's SDR PoRep partition circuit (the C2 circuit, "StackedCircuit"), synthesized exactly as rust-fil-proofs
// storage-proofs-porep stacked/circuit/{proof.rs, params.rs, column.rs, column_proof.rs, hash.rs} does: the same
// variables and rows in the same order, so that it is the R1CS Filecoin's published parameter files encode.
//
// Top level (proof.rs StackedCircuit::synthesize):
//   replica_id      aux, inputized (input 1); to_bits_le (255 bits + unpacking) and reverse_bit_numbering: the
//                   SHA-256 bit order of its 32 bytes, shared by every label
//   comm_d, comm_r  aux, each inputized (inputs 2, 3)
//   comm_r_last, comm_c  aux
//   comm_r = Poseidon-2(comm_c, comm_r_last)   311 rows + 1 equality
// Per challenge i, namespace "challenge_i" (params.rs Proof::synthesize), every PoR with an allocated leaf and an
// allocated, private root (por.rs PoRCircuit: one public input = the packed path bits = the leaf index):
//   a. data_leaf (aux)
//   b. PoR of data_leaf in tree D (binary SHA-256) under comm_d
//   c. for each of the 6 DRG parents, then the 8 expander parents: the column (L aux), its Poseidon-L hash, the
//      hash's PoR in tree C under comm_c
//   d. the challenge as a UInt64 (64 AllocatedBits) packed into one public input
//   e. for layer l = 1..L: the parents' labels as bits (to_bits_le + reverse_bit_numbering of the 6 DRG columns'
//      row l, and for l > 1 the 8 expander columns' row l - 1), expanded to 37 (l = 1: the 6 six times and the
//      first once more; l > 1: the 14 twice and the first 9), and create_label_circuit (label.hpp) with the
//      layer as a constant UInt32 and the challenge's bits
//   f. encoding: label_L + data_leaf (1 aux, 1 row), its PoR in tree R under comm_r_last
//   g. the Poseidon-L hash of the L labels, its PoR in tree C under comm_c
// Public inputs: 3 + 18 per challenge (porep.hpp porep_public_inputs computes the same natively).
//
// The witness is what upstream's circuit Proof takes from a C1 vanilla proof (params.rs `From<VanillaProof>`): the
// data leaf and its tree-D path, the challenge, the tree-R path of the replica node, the tree-C path of the
// challenged column, and the 14 parents' columns with their tree-C paths. The challenged node's labels and its
// encoding are not inputs: the circuit recomputes them (the vanilla proof's labeling and encoding proofs are what
// the native verifier checks). Every value is optional; a partition with no values (blank_stacked_porep_partition)
// synthesizes the same rows, for key generation and counting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "cuzk/filecoin/por.hpp"
#include "cuzk/filecoin/proof_types.hpp"
#include "cuzk/filecoin/tree.hpp"
#include "cuzk/gadgets/boolean.hpp"
#include "cuzk/gadgets/num.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/r1cs/counting_cs.hpp"

namespace cuzk::filecoin {

// stacked/vanilla BASE_DEGREE and EXP_DEGREE as the circuit uses them (graph.hpp has the same numbers).
inline constexpr size_t kPorepDrgParents = 6;
inline constexpr size_t kPorepExpParents = 8;

// ---- shape ------------------------------------------------------------------------------------------------------

// What the circuit's rows depend on: the sector's nodes (tree D has log2(nodes) levels; trees R and C have `tree`'s
// shape over `nodes` leaves), the layers (2 or 11: the column hash is Poseidon-2 or Poseidon-11) and the challenges
// per partition. Filecoin's sizes come from a PorepConfig; rust-fil-proofs' stacked_circuit test uses shapes
// (2-0-0, 8-4-0, 8-4-2) no sector size has, hence the separate type.
struct StackedPorepShape {
    uint64_t nodes = 0;
    uint32_t layers = 0;
    uint32_t challenges = 0;
    TreeShape tree;

    // FilecoinError (UnsupportedSectorSize, InvalidConfig) as the config's own accessors.
    static StackedPorepShape of(const PorepConfig& config);
    // std::invalid_argument unless nodes is a power of two >= 2 that the tree shape fits, layers is 2 or 11.
    void validate() const;
    friend bool operator==(const StackedPorepShape&, const StackedPorepShape&) = default;
};

// ---- witness ----------------------------------------------------------------------------------------------------

// column_proof.rs ColumnProof: a node's labels in layers 1..L (row l - 1 = layer l) and the tree-C path of the
// column's hash (the vanilla ColumnProof's `column.rows` and `inclusion_proof`).
struct PorepColumnProof {
    std::vector<std::optional<Fr>> rows;
    PorPath path;
};

// params.rs Proof: one challenge of a partition.
struct PorepChallengeProof {
    std::optional<uint64_t> challenge;         // the challenged node (labeling_proofs[0].node)
    std::optional<Fr> data_leaf;               // comm_d_proofs.leaf()
    PorPath comm_d_path;                       // binary tree D, levels of arity 2 (no sub/top)
    std::vector<PorepColumnProof> drg_parents; // 6, in the graph's base-parent order
    std::vector<PorepColumnProof> exp_parents; // 8, in the expander's order
    PorPath comm_r_last_path;                  // tree R, at the challenge
    PorPath comm_c_path;                       // tree C, at the challenge (replica_column_proofs.c_x)
};

// proof.rs StackedCircuit: one partition.
struct StackedPorepPartition {
    std::optional<Fr> replica_id;
    std::optional<Fr> comm_d;
    std::optional<Fr> comm_r;
    std::optional<Fr> comm_r_last;
    std::optional<Fr> comm_c;
    std::vector<PorepChallengeProof> challenges;

    // std::invalid_argument naming the first problem upstream would panic on or that would change the rows'
    // shape: a challenge without 6 DRG and 8 expander columns, columns of different lengths or of a length other
    // than 2 or 11, a tree-D path with a level of arity other than 2 or with sub/top levels.
    void validate() const;
};

// compound_proof.rs blank_circuit: the partition of `shape` with no values (paths of the right lengths, columns of
// `layers` rows), for key generation and counting.
StackedPorepPartition blank_stacked_porep_partition(const StackedPorepShape& shape);

// ---- synthesis --------------------------------------------------------------------------------------------------

// What the challenges share: the numbers allocated at the top level and replica_id's bits.
struct StackedPorepTop {
    gadgets::AllocatedNum comm_d;
    gadgets::AllocatedNum comm_c;
    gadgets::AllocatedNum comm_r_last;
    std::vector<gadgets::Boolean> replica_id_bits;  // 256, SHA-256 bit order
};

// The synthesis templates are defined in porep_synthesis.hpp and instantiated in porep_circuit.cpp for every
// constraint system the code base synthesizes a partition into: r1cs::KeygenAssembly, ProvingAssignment,
// TestConstraintSystem, WitnessAssignment, CountingSystem and CanonicalStream (their fragments, AssignmentFragment,
// WitnessFragment and KeygenFragment, through synthesize_parts). A file that needs another system includes
// porep_synthesis.hpp; the others link against those instantiations instead of compiling the synthesis again.

// proof.rs StackedCircuit::synthesize up to the challenges.
template <class CS>
StackedPorepTop synthesize_stacked_porep_top(CS& cs, const StackedPorepPartition& w);

// params.rs Proof::synthesize: challenge `p` in the caller's namespace (synthesize_stacked_porep puts it in
// "challenge_i").
template <class CS>
void synthesize_stacked_porep_challenge(CS& cs, const PorepChallengeProof& p, const StackedPorepTop& top);

// The whole partition, in upstream's order. Validates first (StackedPorepPartition::validate). The challenges are
// independent given the top level: r1cs::synthesize_parts synthesizes them in parallel into the systems that fork
// (the prover's, the witness-only and the compact key-generation systems) with the rows, variables and inputs
// numbered as in order, and in order into the others.
template <class CS>
void synthesize_stacked_porep(CS& cs, const StackedPorepPartition& w);

// The partition as an r1cs::Circuit (key generation, proving, the test system, the witness-only system).
class StackedPorepCircuit : public r1cs::CircuitImpl<StackedPorepCircuit> {
public:
    explicit StackedPorepCircuit(StackedPorepPartition partition) : partition_(std::move(partition)) {
        partition_.validate();
    }
    const StackedPorepPartition& partition() const { return partition_; }

    // synthesize_stacked_porep of the partition (defined in porep_synthesis.hpp, instantiated as above).
    template <class CS>
    void synthesize(CS& cs) const;

private:
    StackedPorepPartition partition_;
};

// ---- counts -----------------------------------------------------------------------------------------------------

// The partition circuit's size (constraints without bellperson's appended input rows, inputs with ONE, aux, and
// with count_nonzeros the non-zero terms of A, B, C).
using PorepCircuitInfo = r1cs::CircuitCounts;

// Synthesizes the blank partition into r1cs::CountingSystem: the top level once, then the challenges in parallel
// (r1cs::count_parts: each range into a copy of the top level's system, so the non-zero counts are exact too).
PorepCircuitInfo porep_circuit_info(const StackedPorepShape& shape, bool count_nonzeros = false);
PorepCircuitInfo porep_circuit_info(const PorepConfig& config, bool count_nonzeros = false);

}  // namespace cuzk::filecoin
