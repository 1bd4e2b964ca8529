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

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "cuzk/filecoin/label.hpp"
#include "cuzk/filecoin/por.hpp"
#include "cuzk/filecoin/proof_types.hpp"
#include "cuzk/filecoin/tree.hpp"
#include "cuzk/gadgets/boolean.hpp"
#include "cuzk/gadgets/multipack.hpp"
#include "cuzk/gadgets/num.hpp"
#include "cuzk/gadgets/poseidon.hpp"
#include "cuzk/gadgets/uint32.hpp"
#include "cuzk/gadgets/uint64.hpp"
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

namespace detail {

// params.rs enforce_inclusion: a PoR of an allocated leaf under an allocated root, private root.
template <class CS>
void enforce_inclusion(CS& cs, const PorPath& path, const gadgets::AllocatedNum& root,
                       const gadgets::AllocatedNum& leaf, TreeHasher hasher) {
    por_circuit(cs, hasher, PorRoot::of(leaf), path, PorRoot::of(root), true);
}

// column.rs Column::alloc ("column/column_num_row_i").
template <class CS>
std::vector<gadgets::AllocatedNum> alloc_column(CS& cs, const PorepColumnProof& column) {
    r1cs::Namespace<CS> ns(cs, "column");
    std::vector<gadgets::AllocatedNum> rows;
    rows.reserve(column.rows.size());
    for (size_t i = 0; i < column.rows.size(); i++)
        rows.push_back(gadgets::AllocatedNum::alloc(
            cs, [i] { return "column_num_row_" + std::to_string(i); }, column.rows[i]));
    return rows;
}

// hash.rs hash_single_column: Poseidon of arity L (2 or 11, MerkleTree constants) in the caller's namespace.
template <class CS>
gadgets::AllocatedNum hash_single_column(CS& cs, std::span<const gadgets::AllocatedNum> column) {
    return gadgets::poseidon_hash_gadget(cs, column);
}

// reverse_bit_numbering(x.to_bits_le()): a label as the 256 bits SHA-256 reads its 32 bytes in.
template <class CS, class N>
std::vector<gadgets::Boolean> label_bits(CS& cs, N&& name, const gadgets::AllocatedNum& x) {
    return gadgets::reverse_bit_numbering(x.to_bits_le(cs, std::forward<N>(name)));
}

}  // namespace detail

// proof.rs StackedCircuit::synthesize up to the challenges.
template <class CS>
StackedPorepTop synthesize_stacked_porep_top(CS& cs, const StackedPorepPartition& w) {
    using gadgets::AllocatedNum;
    auto alloc = [&](const char* name, const std::optional<Fr>& v) {
        r1cs::Namespace<CS> ns(cs, name);
        return AllocatedNum::alloc(cs, "num", v);
    };
    StackedPorepTop top;
    AllocatedNum replica_id = alloc("replica_id", w.replica_id);
    replica_id.inputize(cs, "replica_id_input");
    top.replica_id_bits = detail::label_bits(cs, "replica_id_bits", replica_id);
    top.comm_d = alloc("comm_d", w.comm_d);
    top.comm_d.inputize(cs, "comm_d_input");
    AllocatedNum comm_r = alloc("comm_r", w.comm_r);
    comm_r.inputize(cs, "comm_r_input");
    top.comm_r_last = alloc("comm_r_last", w.comm_r_last);
    top.comm_c = alloc("comm_c", w.comm_c);
    // comm_r = H(comm_c || comm_r_last)
    AllocatedNum hash;
    {
        r1cs::Namespace<CS> ns(cs, "H_comm_c_comm_r_last");
        const std::array<AllocatedNum, 2> preimage{top.comm_c, top.comm_r_last};
        hash = gadgets::poseidon_hash_gadget(cs, std::span<const AllocatedNum>(preimage));
    }
    gadgets::constraint::equal(cs, "enforce comm_r = H(comm_c || comm_r_last)", comm_r, hash);
    return top;
}

// params.rs Proof::synthesize: challenge `p` in the caller's namespace (synthesize_stacked_porep puts it in
// "challenge_i").
template <class CS>
void synthesize_stacked_porep_challenge(CS& cs, const PorepChallengeProof& p, const StackedPorepTop& top) {
    using gadgets::AllocatedNum;
    using gadgets::Boolean;
    using r1cs::Namespace;
    if (p.drg_parents.size() != kPorepDrgParents || p.exp_parents.size() != kPorepExpParents)
        throw std::invalid_argument("stacked PoRep: a challenge needs 6 DRG and 8 expander parent columns");
    const size_t layers = p.drg_parents[0].rows.size();

    // a, b: the data leaf in tree D.
    AllocatedNum data_leaf;
    {
        Namespace<CS> ns(cs, "data_leaf");
        data_leaf = AllocatedNum::alloc(cs, "num", p.data_leaf);
    }
    {
        Namespace<CS> ns(cs, "comm_d_inclusion");
        detail::enforce_inclusion(cs, p.comm_d_path, top.comm_d, data_leaf, TreeHasher::Sha256);
    }

    // c: the parents' columns in tree C.
    auto parent_columns = [&](const std::vector<PorepColumnProof>& proofs, const char* kind) {
        std::vector<std::vector<AllocatedNum>> columns;
        columns.reserve(proofs.size());
        for (size_t i = 0; i < proofs.size(); i++) {
            const std::string prefix = std::string(kind) + "_parent_" + std::to_string(i);
            if (proofs[i].rows.size() != layers)
                throw std::invalid_argument("stacked PoRep: " + prefix + " has " +
                                            std::to_string(proofs[i].rows.size()) + " rows, not " +
                                            std::to_string(layers));
            std::vector<AllocatedNum> column;
            {
                Namespace<CS> ns(cs, [&] { return prefix + "_num"; });
                column = detail::alloc_column(cs, proofs[i]);
            }
            AllocatedNum hash;
            {
                Namespace<CS> ns(cs, [&] { return prefix + "_constraint"; });
                hash = detail::hash_single_column(cs, std::span<const AllocatedNum>(column));
            }
            {
                Namespace<CS> ns(cs, [&] { return prefix + "_inclusion"; });
                detail::enforce_inclusion(cs, proofs[i].path, top.comm_c, hash, TreeHasher::Poseidon);
            }
            columns.push_back(std::move(column));
        }
        return columns;
    };
    const std::vector<std::vector<AllocatedNum>> drg = parent_columns(p.drg_parents, "drg");
    const std::vector<std::vector<AllocatedNum>> exp = parent_columns(p.exp_parents, "exp");

    // d: the challenge, public.
    const gadgets::UInt64 challenge = gadgets::UInt64::alloc(cs, "challenge", p.challenge);
    challenge.pack_into_input(cs, "challenge input");

    // e: the labels of the challenged node, layer by layer.
    std::vector<AllocatedNum> labels;
    labels.reserve(layers);
    for (size_t layer = 1; layer <= layers; layer++) {
        Namespace<CS> ns(cs, [layer] { return "labeling_" + std::to_string(layer); });
        std::vector<std::vector<Boolean>> parents;
        parents.reserve(kLabelTotalParents);
        for (const auto& column : drg)
            parents.push_back(detail::label_bits(
                cs, [&] { return "drg_parent_" + std::to_string(parents.size()) + "_bits"; }, column[layer - 1]));
        // Layer 1 has no expander parents; the others take the expander parents' labels of the layer below.
        if (layer > 1)
            for (const auto& column : exp)
                parents.push_back(detail::label_bits(
                    cs, [&] { return "exp_parent_" + std::to_string(parents.size()) + "_bits"; }, column[layer - 2]));
        const size_t base = parents.size();
        if (layer > 1) {
            for (size_t i = 0; i < base; i++) parents.push_back(parents[i]);  // 28
            for (size_t i = 0; i < 9; i++) parents.push_back(parents[i]);     // 37
        } else {
            for (int rep = 0; rep < 5; rep++)
                for (size_t i = 0; i < base; i++) parents.push_back(parents[i]);  // 36
            parents.push_back(parents[0]);                                      // 37
        }
        labels.push_back(create_label_circuit(cs, "create_label", std::span<const Boolean>(top.replica_id_bits),
                                              std::span<const std::vector<Boolean>>(parents),
                                              gadgets::UInt32::constant(uint32_t(layer)), challenge));
    }

    // f: the encoded node in tree R.
    {
        const AllocatedNum encoded = gadgets::constraint::encode(cs, "encode_node", labels.back(), data_leaf);
        Namespace<CS> ns(cs, "comm_r_last_data_inclusion");
        detail::enforce_inclusion(cs, p.comm_r_last_path, top.comm_r_last, encoded, TreeHasher::Poseidon);
    }

    // g: the challenged column in tree C.
    {
        AllocatedNum column_hash;
        {
            Namespace<CS> ns(cs, "c_x_column_hash");
            column_hash = detail::hash_single_column(cs, std::span<const AllocatedNum>(labels));
        }
        Namespace<CS> ns(cs, "c_x_inclusion");
        detail::enforce_inclusion(cs, p.comm_c_path, top.comm_c, column_hash, TreeHasher::Poseidon);
    }
}

// The whole partition, in upstream's order. Validates first (StackedPorepPartition::validate). The challenges are
// independent given the top level: r1cs::synthesize_parts synthesizes them in parallel into the systems that fork
// (the prover's, the witness-only and the compact key-generation systems) with the rows, variables and inputs
// numbered as in order, and in order into the others.
template <class CS>
void synthesize_stacked_porep(CS& cs, const StackedPorepPartition& w) {
    w.validate();
    const StackedPorepTop top = synthesize_stacked_porep_top(cs, w);
    r1cs::synthesize_parts(cs, w.challenges.size(), [&](auto& part, size_t i) {
        using PartCS = std::remove_reference_t<decltype(part)>;
        r1cs::Namespace<PartCS> ns(part, [i] { return "challenge_" + std::to_string(i); });
        synthesize_stacked_porep_challenge(part, w.challenges[i], top);
    });
}

// The partition as an r1cs::Circuit (key generation, proving, the test system, the witness-only system).
class StackedPorepCircuit : public r1cs::CircuitImpl<StackedPorepCircuit> {
public:
    explicit StackedPorepCircuit(StackedPorepPartition partition) : partition_(std::move(partition)) {
        partition_.validate();
    }
    const StackedPorepPartition& partition() const { return partition_; }

    template <class CS>
    void synthesize(CS& cs) const {
        synthesize_stacked_porep(cs, partition_);
    }

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
