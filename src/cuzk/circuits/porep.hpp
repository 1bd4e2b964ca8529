// A PoRep-shaped circuit: the shape and cost profile of Filecoin's PoRep C2 partition circuit (SDR, "stacked DRG"),
// at any size, with a native generator of consistent replica data. It is a STAND-IN, not Filecoin's circuit: its
// proofs are not Filecoin proofs, its Poseidon instance is not neptune's (poseidon.hpp), its trees are not built
// from a sector, and the differences are listed in docs/porep-circuit.md.
//
// Public inputs (in this order): replica id, comm_d, comm_r, then one challenged node index per challenge.
// Private: comm_c, comm_r_last (with comm_r = Poseidon-2(comm_c, comm_r_last), as in Filecoin), and per challenge
// the data leaf, its tree D path, the parent labels of every layer and the tree C and tree R paths.
//
// Per challenge (node index i < 2^tree_d_height, decomposed into tree_d_height bits, which also range-checks it):
//   tree D   the data leaf d (32 bytes, a field element's little-endian bytes, so its top 2 bits are 0) lies at
//            index i of a binary SHA-256 tree whose root, truncated to 254 bits, is comm_d (merkle.hpp (1));
//   labels   for every layer l = 1..L the label is recomputed from the P parent labels (private, unconstrained
//            beyond this hash, as if taken from elsewhere):
//              label_l = trunc254(SHA-256(replica_id || l as u32 BE || i as u64 BE || 20 zero bytes
//                                         || parent_1 || ... || parent_P))
//            where replica_id and the parents are 32-byte little-endian field elements and trunc254 reads the
//            digest as a little-endian integer and drops its top 2 bits (Filecoin's Sha256 "truncated" domain).
//            The first 64 bytes are Filecoin's layout; 37 parents make 1,248 bytes, 20 compressions with padding;
//   tree C   the column hash of (label_1, ..., label_L) (porep_column_hash_native below) lies at index i of an
//            arity-8 Poseidon tree with root comm_c (merkle.hpp (2));
//   tree R   the replica leaf label_L + d (field addition: a stand-in for Filecoin's encoding) lies at index i of
//            an arity-8 Poseidon tree with root comm_r_last.
// The C and R trees have 8^height leaf slots, which must be >= the 2^tree_d_height nodes (Filecoin: equal); the
// index bits beyond the node's own are constant zeros.
//
// The generator (PorepReplica) never builds a full tree: it builds "virtual" trees in which every subtree that
// holds no challenged leaf (of any partition) has a pseudo-random root derived from (seed, tree, level,
// position), and the nodes above challenged leaves are hashed from their children. So a 2^30-leaf sector costs
// a few thousand hashes, and all partitions of a replica share one comm_d, comm_c, comm_r_last and comm_r, as
// the partitions of one Filecoin sector do; partition p's challenges are derived from (seed, p).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cuzk/circuits/standin/merkle.hpp"
#include "cuzk/circuits/standin/num.hpp"
#include "cuzk/circuits/standin/poseidon.hpp"
#include "cuzk/circuits/standin/sha256.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"

namespace cuzk::circuits {

struct PorepParams {
    size_t challenges = 1;        // challenged nodes per partition (Filecoin 32 GiB: 18)
    size_t layers = 1;            // L (11)
    size_t parents = 0;           // P parent labels per label (37 = 6 DRG + 8 expander, repeated)
    unsigned tree_d_height = 1;   // binary SHA-256 tree D; the sector has 2^tree_d_height nodes (30)
    unsigned tree_c_height = 1;   // arity-8 Poseidon tree C, in arity-8 levels (10)
    unsigned tree_r_height = 1;   // arity-8 Poseidon tree R (10)
    size_t partitions = 1;        // partitions (proofs) per replica (10)

    uint64_t nodes() const { return uint64_t{1} << tree_d_height; }
    // Throws std::invalid_argument naming the first bad field: challenges, layers, partitions >= 1;
    // 1 <= tree_d_height <= 60; tree C and R heights >= 1, with 8^height >= nodes and 3 * height <= 63.
    void validate() const;
    friend bool operator==(const PorepParams&, const PorepParams&) = default;
};

// The named presets: "porep-128k", "porep-1m", "porep-16m" (each just below its power of two, input constraints
// included; porep-16m is the 32 GiB shape with 2 challenges) and "porep-32g" (Filecoin's 32 GiB shape: 18
// challenges, 11 layers, 37 parents, 2^30 nodes, 10 partitions). Throws std::invalid_argument for another name.
// (No preset near 2^12 or 2^16: one SHA-256 tree level is 45,321 constraints and one label >= 25,773, so every
// circuit with both is above 2^16.)
PorepParams porep_preset(std::string_view name);
std::vector<std::string> porep_preset_names();
bool is_porep_preset(std::string_view name);

// Constraint counts from the parameters (porep.cpp states the formula). `circuit` is what the circuit's own
// synthesis enforces (TestConstraintSystem::num_constraints()); synthesize_groth16 adds one input constraint per
// public input and the constant one.
struct PorepConstraintCount {
    uint64_t circuit = 0;
    uint64_t input_constraints = 0;
    uint64_t total() const { return circuit + input_constraints; }
    uint64_t public_inputs = 0;  // without the constant one
};
PorepConstraintCount porep_constraint_count(const PorepParams& params);
// The same counts by synthesizing the whole circuit into a system that only counts (no values, nothing stored):
// the check of the formula for presets too large for a test's synthesis.
PorepConstraintCount porep_constraint_count_by_synthesis(const PorepParams& params);

// ---------------------------------------------------------------------------------------------------------------
// Data: public inputs and witness of one partition
// ---------------------------------------------------------------------------------------------------------------

using standin::Sha256Digest;

struct PorepPublicInputs {
    Fr replica_id, comm_d, comm_r;
    std::vector<uint64_t> challenges;
    // The public inputs as the verifier takes them (the constant one excluded), in the circuit's order.
    std::vector<Fr> field_elements() const;
};

struct PorepChallengeWitness {
    Sha256Digest data_leaf{};                        // top 2 bits of byte 31 zero
    std::vector<Sha256Digest> d_siblings;            // tree_d_height
    std::vector<std::vector<Fr>> parent_labels;      // layers x parents, each < 2^254
    std::vector<std::array<Fr, 7>> c_siblings;       // tree_c_height
    std::vector<std::array<Fr, 7>> r_siblings;       // tree_r_height
};

struct PorepWitness {
    Fr comm_c, comm_r_last;
    std::vector<PorepChallengeWitness> challenges;
};

// ---------------------------------------------------------------------------------------------------------------
// Native functions (the reference the gadgets are checked against)
// ---------------------------------------------------------------------------------------------------------------

// The digest as a little-endian integer without its top 2 bits (< 2^254 < r).
Fr fr_from_digest_254(const Sha256Digest& d);
// SHA-256 of a byte string (FIPS 180-4, with padding).
Sha256Digest sha256_native(std::span<const uint8_t> bytes);
// label_l as above. Throws std::invalid_argument for a replica id or parent label >= 2^254.
Fr porep_label_native(const Fr& replica_id, uint32_t layer, uint64_t node, std::span<const Fr> parent_labels);
// The column hash of L labels:
//   L <= 11: one Poseidon hash of the arity 2, 8 or 11 that is the smallest >= L, the labels padded with zeros
//            (L = 11 is Filecoin's arity-11 column hash);
//   L > 11:  h = H11(label_1..label_11), then h = H11(h, next 10 labels, zero padded) until all are absorbed.
Fr porep_column_hash_native(std::span<const Fr> labels);

// The consistent data of one replica (see the top of this file).
class PorepReplica {
public:
    // Throws std::invalid_argument for invalid parameters.
    PorepReplica(const PorepParams& params, uint64_t seed);

    const PorepParams& params() const { return params_; }
    const Fr& replica_id() const { return replica_id_; }
    const Fr& comm_d() const { return comm_d_; }
    const Sha256Digest& tree_d_root() const { return tree_d_root_; }
    const Fr& comm_c() const { return comm_c_; }
    const Fr& comm_r_last() const { return comm_r_last_; }
    const Fr& comm_r() const { return comm_r_; }

    // Partition p's challenged nodes (< 2^tree_d_height), derived from (seed, p). Throws std::out_of_range for
    // p >= partitions.
    std::vector<uint64_t> challenges(size_t partition) const;
    PorepPublicInputs public_inputs(size_t partition) const;
    PorepWitness witness(size_t partition) const;
    // The labels of a challenged node (layers 1..L), for tests.
    const std::vector<Fr>& labels(uint64_t node) const;

    struct NodeData {
        Sha256Digest data_leaf;
        std::vector<std::vector<Fr>> parent_labels;  // layers x parents
        std::vector<Fr> labels;                      // layers
    };

private:
    template <class T>
    struct SparseTree {  // the nodes above challenged leaves, per level (0 = leaves)
        std::vector<std::map<uint64_t, T>> levels;
    };
    Sha256Digest d_node(unsigned level, uint64_t pos) const;
    Fr cr_node(const SparseTree<Fr>& tree, char which, unsigned level, uint64_t pos) const;
    std::vector<std::array<Fr, 7>> cr_path(const SparseTree<Fr>& tree, char which, unsigned height,
                                           uint64_t node) const;

    PorepParams params_;
    uint64_t seed_;
    Fr replica_id_, comm_d_, comm_c_, comm_r_last_, comm_r_;
    Sha256Digest tree_d_root_{};
    std::map<uint64_t, NodeData> nodes_;
    SparseTree<Sha256Digest> tree_d_;
    SparseTree<Fr> tree_c_, tree_r_;
};

// ---------------------------------------------------------------------------------------------------------------
// The circuit
// ---------------------------------------------------------------------------------------------------------------

namespace detail {

// Position, in the SHA-256 gadget's bit order (big-endian within each byte), of bit i of a little-endian value.
inline size_t sha_position_of_le_bit(size_t i) { return 8 * (i / 8) + 7 - i % 8; }

// 256 message bits of a 32-byte little-endian field element given as its low 254 bits (little-endian); the top
// 2 bits are constant zeros.
inline std::vector<standin::Boolean> le_fr_message_bits(std::span<const standin::Boolean> le_bits_254) {
    std::vector<standin::Boolean> out(256, standin::Boolean::constant(false));
    for (size_t i = 0; i < 254; i++) out[sha_position_of_le_bit(i)] = le_bits_254[i];
    return out;
}

// sum_{i < 254} 2^i digest_le_bit_i: the truncated digest as a linear combination (no constraint).
inline r1cs::LC trunc254_lc(std::span<const standin::Boolean> digest_bits) {
    r1cs::LC lc;
    Fr constant = Fr::zero();
    for (size_t i = 0; i < 254; i++)
        digest_bits[sha_position_of_le_bit(i)].add_to_lc_folding(lc, constant, standin::pow2_table()[i]);
    if (!constant.is_zero()) lc.add(constant, r1cs::Variable::one());
    return lc;
}

inline std::optional<Fr> trunc254_value(std::span<const standin::Boolean> digest_bits) {
    Fr acc = Fr::zero();
    for (size_t i = 0; i < 254; i++) {
        auto v = digest_bits[sha_position_of_le_bit(i)].value();
        if (!v) return std::nullopt;
        if (*v) acc += standin::pow2_table()[i];
    }
    return acc;
}

// 254 allocated bits (254 booleanity constraints) of a value < 2^254, little-endian.
template <class CS, class N>
std::vector<standin::Boolean> alloc_le_bits_254(CS& cs, N&& name, const std::optional<Fr>& value) {
    r1cs::Namespace<CS> ns(cs, std::forward<N>(name));
    std::optional<limbs_t<4>> canon;
    if (value) canon = value->to_canonical();
    std::vector<standin::Boolean> bits;
    bits.reserve(254);
    for (size_t i = 0; i < 254; i++) {
        std::optional<bool> v;
        if (canon) v = ((*canon)[i / 64] >> (i % 64)) & 1;
        bits.emplace_back(standin::AllocatedBit::alloc(cs, [i] { return "bit " + std::to_string(i); }, v));
    }
    return bits;
}

// One label: the parents' bits (P x 254 booleanity), the SHA-256 of the message, and the truncated digest packed
// into one variable (1 constraint). `replica_bits` are the replica id's 256 message bits, `node_bits` the node
// index's bits, little-endian (index bits beyond them are zeros).
template <class CS>
standin::AllocatedNum porep_label(CS& cs, std::span<const standin::Boolean> replica_bits, uint32_t layer,
                                  std::span<const standin::Boolean> node_bits, size_t parents,
                                  const std::vector<Fr>* parent_values) {
    using standin::Boolean;
    std::vector<Boolean> msg;
    msg.reserve((64 + 32 * parents) * 8);
    msg.insert(msg.end(), replica_bits.begin(), replica_bits.end());
    for (int i = 31; i >= 0; i--) msg.push_back(Boolean::constant((layer >> i) & 1));
    for (int i = 63; i >= 0; i--) msg.push_back((size_t)i < node_bits.size() ? node_bits[i] : Boolean::constant(false));
    msg.resize(64 * 8, Boolean::constant(false));
    for (size_t k = 0; k < parents; k++) {
        std::optional<Fr> v;
        if (parent_values) v = (*parent_values)[k];
        auto bits = alloc_le_bits_254(cs, [k] { return "parent " + std::to_string(k); }, v);
        auto m = le_fr_message_bits(bits);
        msg.insert(msg.end(), m.begin(), m.end());
    }
    std::vector<Boolean> digest;
    {
        r1cs::Namespace<CS> ns(cs, "sha256");
        digest = standin::sha256(cs, std::span<const Boolean>(msg));
    }
    std::optional<Fr> value;
    if constexpr (CS::kNeedsValues) value = trunc254_value(digest);
    auto label = standin::AllocatedNum::alloc(cs, "label", value);
    cs.enforce("label packing", trunc254_lc(digest), r1cs::LC(r1cs::Variable::one()), label.as_lc());
    return label;
}

// The gadget of porep_column_hash_native.
template <class CS>
standin::AllocatedNum porep_column_hash(CS& cs, std::span<const standin::AllocatedNum> labels) {
    using standin::AllocatedNum;
    auto hash = [&](size_t arity, std::span<const AllocatedNum> in) {
        std::vector<r1cs::LC> lcs(arity);
        std::vector<Fr> vals(arity, Fr::zero());
        bool have = true;
        for (size_t i = 0; i < in.size(); i++) {
            lcs[i] = in[i].as_lc();
            if (in[i].value()) vals[i] = *in[i].value();
            else have = false;
        }
        r1cs::Variable h = standin::poseidon_hash_gadget(cs, std::span<const r1cs::LC>(lcs));
        std::optional<Fr> v;
        if (have) v = standin::poseidon_hash(std::span<const Fr>(vals));
        return AllocatedNum(h, v);
    };
    const size_t L = labels.size();
    if (L <= 11) return hash(L <= 2 ? 2 : L <= 8 ? 8 : 11, labels);
    AllocatedNum acc;
    {
        r1cs::Namespace<CS> ns(cs, "chunk 0");
        acc = hash(11, labels.first(11));
    }
    for (size_t start = 11, chunk = 1; start < L; start += 10, chunk++) {
        r1cs::Namespace<CS> ns(cs, [chunk] { return "chunk " + std::to_string(chunk); });
        std::vector<AllocatedNum> in{acc};
        for (size_t i = start; i < std::min(L, start + 10); i++) in.push_back(labels[i]);
        acc = hash(11, in);
    }
    return acc;
}

}  // namespace detail

class PorepCircuit : public r1cs::CircuitImpl<PorepCircuit> {
public:
    // Without data the circuit can be synthesized for setup only. With data, throws std::invalid_argument when the
    // shapes do not fit the parameters, a challenge is >= 2^tree_d_height, or a value that must be below 2^254
    // (replica id, parent labels, data leaves) is not. The public inputs and the witness are not checked against
    // each other: a mismatch gives an unsatisfied system (what the tests check).
    explicit PorepCircuit(const PorepParams& params);
    PorepCircuit(const PorepParams& params, PorepPublicInputs pub, PorepWitness witness);

    const PorepParams& params() const { return params_; }
    const std::optional<PorepPublicInputs>& public_inputs() const { return pub_; }

    template <class CS>
    void synthesize(CS& cs) const {
        using standin::AllocatedNum;
        using standin::Boolean;
        using r1cs::LC;
        using r1cs::Namespace;
        using r1cs::Variable;
        const bool have = CS::kNeedsValues && pub_.has_value();
        auto val = [&](auto&& f) -> std::optional<Fr> {
            if (have) return f();
            return std::nullopt;
        };
        auto replica_id = AllocatedNum::alloc_input(cs, "replica id", val([&] { return pub_->replica_id; }));
        auto comm_d = AllocatedNum::alloc_input(cs, "comm_d", val([&] { return pub_->comm_d; }));
        auto comm_r = AllocatedNum::alloc_input(cs, "comm_r", val([&] { return pub_->comm_r; }));
        std::vector<AllocatedNum> challenge;
        for (size_t j = 0; j < params_.challenges; j++)
            challenge.push_back(AllocatedNum::alloc_input(cs, [j] { return "challenge index " + std::to_string(j); },
                                                          val([&] { return Fr::from_u64(pub_->challenges[j]); })));
        auto comm_c = AllocatedNum::alloc(cs, "comm_c", val([&] { return wit_->comm_c; }));
        auto comm_r_last = AllocatedNum::alloc(cs, "comm_r_last", val([&] { return wit_->comm_r_last; }));
        {
            Namespace<CS> ns(cs, "comm_r check");
            std::array<LC, 2> in = {comm_c.as_lc(), comm_r_last.as_lc()};
            Variable h = standin::poseidon_hash_gadget(cs, std::span<const LC>(in));
            cs.enforce("comm_r = H(comm_c, comm_r_last)", LC(h) - comm_r.variable(), LC(Variable::one()), LC());
        }
        std::vector<Boolean> replica_bits =
            detail::le_fr_message_bits(replica_id.to_bits_le(cs, "replica id bits", 254));
        // The challenges are independent given the variables above: into a ProvingAssignment they synthesize in
        // parallel (r1cs::synthesize_parts), with the same result as in order.
        r1cs::synthesize_parts(cs, params_.challenges, [&](auto& part_cs, size_t j) {
            using PartCS = std::remove_reference_t<decltype(part_cs)>;
            Namespace<PartCS> ns(part_cs, [j] { return "challenge " + std::to_string(j); });
            const PorepChallengeWitness* w = have ? &wit_->challenges[j] : nullptr;
            synthesize_challenge(part_cs, challenge[j], replica_bits, comm_d, comm_c, comm_r_last, w);
        }, constraints_per_challenge());
    }

private:
    // Constraints one challenge adds (from the counting formula; about as many variables), for reservations.
    size_t constraints_per_challenge() const {
        PorepParams one = params_, two = params_;
        one.challenges = 1;
        two.challenges = 2;
        return (size_t)(porep_constraint_count(two).circuit - porep_constraint_count(one).circuit);
    }

    template <class CS>
    void synthesize_challenge(CS& cs, const standin::AllocatedNum& challenge, std::span<const standin::Boolean> replica_bits,
                              const standin::AllocatedNum& comm_d, const standin::AllocatedNum& comm_c,
                              const standin::AllocatedNum& comm_r_last, const PorepChallengeWitness* w) const {
        using standin::AllocatedNum;
        using standin::Boolean;
        using r1cs::LC;
        using r1cs::Namespace;
        using r1cs::Variable;
        const unsigned hd = params_.tree_d_height;
        std::vector<Boolean> node_bits = challenge.to_bits_le(cs, "index bits", hd);

        // Tree D: the data leaf's bits, the path, the root against comm_d.
        std::optional<Fr> data_value;
        if (w) data_value = fr_from_digest_254(w->data_leaf);
        std::vector<Boolean> data_le = detail::alloc_le_bits_254(cs, "data leaf", data_value);
        std::vector<Boolean> data_msg = detail::le_fr_message_bits(data_le);
        std::vector<std::vector<Boolean>> d_siblings;
        for (unsigned k = 0; k < hd; k++) {
            std::optional<Sha256Digest> s;
            if (w) s = w->d_siblings[k];
            d_siblings.push_back(standin::alloc_sha256_digest(cs, [k] { return "tree d sibling " + std::to_string(k); }, s));
        }
        std::vector<Boolean> d_root =
            standin::sha256_merkle_root(cs, "tree d", std::span<const Boolean>(data_msg),
                                        std::span<const std::vector<Boolean>>(d_siblings), std::span<const Boolean>(node_bits));
        cs.enforce("comm_d = trunc254(tree d root)", detail::trunc254_lc(d_root) - comm_d.variable(),
                   LC(Variable::one()), LC());

        // Labels of the L layers.
        std::vector<AllocatedNum> labels;
        for (size_t l = 1; l <= params_.layers; l++) {
            Namespace<CS> ns(cs, [l] { return "layer " + std::to_string(l); });
            labels.push_back(detail::porep_label(cs, replica_bits, (uint32_t)l, node_bits, params_.parents,
                                                 w ? &w->parent_labels[l - 1] : nullptr));
        }

        // Tree C: the column hash under comm_c.
        AllocatedNum column;
        {
            Namespace<CS> ns(cs, "column hash");
            column = detail::porep_column_hash(cs, std::span<const AllocatedNum>(labels));
        }
        standin::poseidon8_merkle_verify(cs, "tree c", column, alloc_poseidon_path(cs, "tree c path", node_bits,
                                                                                    params_.tree_c_height, w ? &w->c_siblings : nullptr),
                                         comm_c);

        // Tree R: the replica leaf label_L + d under comm_r_last.
        std::optional<Fr> leaf_value;
        if (w && labels.back().value()) leaf_value = *labels.back().value() + *data_value;
        auto leaf = AllocatedNum::alloc(cs, "replica leaf", leaf_value);
        cs.enforce("replica leaf = label_L + data", labels.back().as_lc() + detail::trunc254_lc(data_msg),
                   LC(Variable::one()), leaf.as_lc());
        standin::poseidon8_merkle_verify(cs, "tree r", leaf, alloc_poseidon_path(cs, "tree r path", node_bits,
                                                                                  params_.tree_r_height, w ? &w->r_siblings : nullptr),
                                         comm_r_last);
    }

    // The siblings (no constraints) and the node's index bits padded with constant zeros to 3 * height.
    template <class CS, class N>
    static standin::Poseidon8PathVars alloc_poseidon_path(CS& cs, N&& name, std::span<const standin::Boolean> node_bits,
                                                          unsigned height, const std::vector<std::array<Fr, 7>>* siblings) {
        r1cs::Namespace<CS> ns(cs, std::forward<N>(name));
        standin::Poseidon8PathVars vars;
        for (unsigned k = 0; k < height; k++) {
            std::array<standin::AllocatedNum, 7> s;
            for (size_t j = 0; j < 7; j++) {
                std::optional<Fr> v;
                if (siblings) v = (*siblings)[k][j];
                s[j] = standin::AllocatedNum::alloc(
                    cs, [k, j] { return "sibling " + std::to_string(k) + "." + std::to_string(j); }, v);
            }
            vars.siblings.push_back(s);
        }
        vars.index_bits.assign(node_bits.begin(), node_bits.end());
        vars.index_bits.resize(3 * (size_t)height, standin::Boolean::constant(false));
        return vars;
    }

    PorepParams params_;
    std::optional<PorepPublicInputs> pub_;
    std::optional<PorepWitness> wit_;
};

// Partition p of a replica as a circuit with its data.
PorepCircuit porep_partition_circuit(const PorepReplica& replica, size_t partition);

// Synthesizes every circuit (synthesize_groth16, as the prover does) into its own ProvingAssignment, in parallel on
// the global thread pool (one task per circuit), for prove_from_assignments. The result is the same as
// synthesizing them one after another. Throws std::invalid_argument for a null circuit; a SynthesisError of any
// circuit is rethrown.
std::vector<r1cs::ProvingAssignment> synthesize_parallel(std::span<const r1cs::Circuit* const> circuits);

}  // namespace cuzk::circuits
