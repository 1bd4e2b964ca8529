// The StackedDrg PoRep partition's synthesis (porep_circuit.hpp declares these templates and describes the
// circuit row by row). The synthesis (create_label's SHA-256, Poseidon, the Merkle paths) is most of a translation
// unit's compile time for each constraint system it is instantiated for, so it is instantiated once, in
// porep_circuit.cpp, for the systems listed at the end (those porep_circuit.hpp names), and every other file links
// against that. Include this header only to synthesize a partition into another system; the listed ones are
// declared extern here, so that such a file does not instantiate them again.
#pragma once

#include <array>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuzk/filecoin/label.hpp"
#include "cuzk/filecoin/por.hpp"
#include "cuzk/filecoin/porep_circuit.hpp"
#include "cuzk/gadgets/boolean.hpp"
#include "cuzk/gadgets/multipack.hpp"
#include "cuzk/gadgets/num.hpp"
#include "cuzk/gadgets/poseidon.hpp"
#include "cuzk/gadgets/uint32.hpp"
#include "cuzk/gadgets/uint64.hpp"
#include "cuzk/r1cs/canonical.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/r1cs/counting_cs.hpp"

namespace cuzk::filecoin {

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

// The whole partition: the top level, then the challenges as parts (in parallel into the systems that fork).
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

template <class CS>
void StackedPorepCircuit::synthesize(CS& cs) const {
    synthesize_stacked_porep(cs, partition_);
}

// Every synthesis template for system CS: an explicit instantiation definition (porep_circuit.cpp,
// EXTERN empty) or declaration (EXTERN = extern).
#define CUZK_STACKED_POREP_SYNTHESIS(EXTERN, CS)                                                                      \
    EXTERN template StackedPorepTop synthesize_stacked_porep_top(CS&, const StackedPorepPartition&);                  \
    EXTERN template void synthesize_stacked_porep_challenge(CS&, const PorepChallengeProof&, const StackedPorepTop&); \
    EXTERN template void synthesize_stacked_porep(CS&, const StackedPorepPartition&);                                 \
    EXTERN template void StackedPorepCircuit::synthesize(CS&) const;

CUZK_STACKED_POREP_SYNTHESIS(extern, r1cs::KeygenAssembly)
CUZK_STACKED_POREP_SYNTHESIS(extern, r1cs::ProvingAssignment)
CUZK_STACKED_POREP_SYNTHESIS(extern, r1cs::TestConstraintSystem)
CUZK_STACKED_POREP_SYNTHESIS(extern, r1cs::WitnessAssignment)
CUZK_STACKED_POREP_SYNTHESIS(extern, r1cs::CountingSystem)
CUZK_STACKED_POREP_SYNTHESIS(extern, r1cs::CanonicalStream)

}  // namespace cuzk::filecoin
