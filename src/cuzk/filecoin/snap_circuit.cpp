#include "cuzk/filecoin/snap_circuit.hpp"

#include <bit>
#include <stdexcept>
#include <string>

#include "cuzk/filecoin/snap_synthesis.hpp"
#include "cuzk/r1cs/counting_cs.hpp"

namespace cuzk::filecoin {

namespace {

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("EmptySectorUpdate: " + what); }

void check_path(const SiblingPath& path, const SiblingPath& blank, const char* name, size_t c_index) {
    bool ok = path.size() == blank.size();
    for (size_t l = 0; ok && l < path.size(); l++) ok = path[l].size() == blank[l].size();
    if (!ok)
        bad(std::string("challenge ") + std::to_string(c_index) + ": " + name + " has " +
            std::to_string(path.size()) + " levels, not the tree's " + std::to_string(blank.size()) +
            " levels of arity - 1 siblings");
}

// Bits lo .. hi of a canonical value, and whether any bit from hi up is set.
uint64_t bit_range(const limbs_t<4>& v, unsigned lo, unsigned hi) {
    uint64_t out = 0;
    for (unsigned i = lo; i < hi; i++) out |= ((v[i / 64] >> (i % 64)) & 1) << (i - lo);
    return out;
}
bool any_bit_from(const limbs_t<4>& v, unsigned from) {
    for (unsigned i = from; i < 256; i++)
        if ((v[i / 64] >> (i % 64)) & 1) return true;
    return false;
}

SiblingPath binary_blank_path(uint32_t levels) { return SiblingPath(levels, std::vector<std::optional<Fr>>(1)); }

void check_tree(const PoseidonTree& tree, const SnapShape& shape, const char* name) {
    if (tree.leaf_count() != shape.sector_nodes || !(tree.shape() == shape.tree_r))
        bad(std::string(name) + " has " + std::to_string(tree.leaf_count()) + " leaves of shape " +
            tree_shape_name(tree.shape()) + ", the sector " + std::to_string(shape.sector_nodes) + " of shape " +
            tree_shape_name(shape.tree_r));
}

}  // namespace

uint32_t snap_circuit_challenge_count(const SnapShape& shape, UpdateCircuit variant) {
    return variant == UpdateCircuit::Sha256 ? shape.challenge_count : shape.challenge_count * shape.partition_count;
}

EmptySectorUpdateCircuit::EmptySectorUpdateCircuit(SnapShape shape, UpdateCircuit variant, SnapWitness witness)
    : shape_(shape), variant_(variant), w_(std::move(witness)) {
    const bool sha = variant_ == UpdateCircuit::Sha256;
    const uint32_t n = challenge_count();
    if (w_.challenges.size() != n)
        bad(std::to_string(w_.challenges.size()) + " challenge proofs, the circuit has " + std::to_string(n));
    if (sha && w_.apex_leaves.size() != shape_.apex_leaf_count)
        bad(std::to_string(w_.apex_leaves.size()) + " apex leaves, the sector has " +
            std::to_string(shape_.apex_leaf_count) + " per partition");
    if (!sha && !w_.apex_leaves.empty()) bad("the Poseidon variant has no apex leaves");
    const SiblingPath blank_r = blank_sibling_path(shape_.challenge_bit_len, shape_.tree_r);
    const SiblingPath blank_d = sha ? binary_blank_path(shape_.challenge_bit_len) : blank_r;
    for (size_t i = 0; i < n; i++) {
        check_path(w_.challenges[i].path_r_old, blank_r, "path_r_old", i);
        check_path(w_.challenges[i].path_r_new, blank_r, "path_r_new", i);
        check_path(w_.challenges[i].path_d_new, blank_d, "path_d_new", i);
    }
    if (sha) {
        // Every challenge's tree-D path ends in the partition path (upstream asserts it).
        const size_t top = shape_.challenge_bit_len - shape_.partition_bit_len;
        const SiblingPath& first = w_.challenges[0].path_d_new;
        for (size_t i = 1; i < n; i++)
            for (size_t l = top; l < shape_.challenge_bit_len; l++)
                if (w_.challenges[i].path_d_new[l] != first[l])
                    bad("challenge " + std::to_string(i) + "'s tree-D path has another partition path");
    }
    if (w_.selector) {
        const limbs_t<4> v = w_.selector->to_canonical();
        const unsigned pbits = sha ? shape_.partition_bit_len : 0;
        const unsigned hbits = unsigned(shape_.hs.size());
        if (bit_range(v, 0, pbits) >= shape_.partition_count) bad("partition index exceeds the partition count");
        if (std::popcount(bit_range(v, pbits, pbits + hbits)) != 1) bad("h_select does not have exactly one bit set");
        if (any_bit_from(v, pbits + hbits)) bad("the selector has bits above k and h_select");
    }
}

EmptySectorUpdateCircuit EmptySectorUpdateCircuit::blank(const SnapShape& shape, UpdateCircuit variant) {
    const bool sha = variant == UpdateCircuit::Sha256;
    SnapWitness w;
    if (sha) w.apex_leaves.assign(shape.apex_leaf_count, std::nullopt);
    SnapChallengeWitness c;
    c.path_r_old = blank_sibling_path(shape.challenge_bit_len, shape.tree_r);
    c.path_r_new = c.path_r_old;
    c.path_d_new = sha ? binary_blank_path(shape.challenge_bit_len) : c.path_r_old;
    w.challenges.assign(snap_circuit_challenge_count(shape, variant), c);
    return EmptySectorUpdateCircuit(shape, variant, std::move(w));
}

std::vector<Fr> snap_public_inputs(const SnapShape& shape, uint32_t k, uint32_t h, const Fr& comm_r_old,
                                   const Fr& comm_d_new, const Fr& comm_r_new) {
    return {Fr::from_u64(snap_k_and_h_select(shape, k, h)), comm_r_old, comm_d_new, comm_r_new};
}

std::vector<Fr> snap_poseidon_public_inputs(const SnapShape& shape, uint32_t h, const Fr& comm_r_old,
                                            const Fr& comm_d_new, const Fr& comm_r_new) {
    return {Fr::from_u64(snap_h_select(shape, h)), comm_r_old, comm_d_new, comm_r_new};
}

SnapWitness snap_witness(const SnapShape& shape, uint32_t k, uint32_t h, const Fr& comm_c,
                         const PoseidonTree& tree_r_old, const BinaryTree& tree_d_new,
                         const PoseidonTree& tree_r_new) {
    check_tree(tree_r_old, shape, "tree R old");
    check_tree(tree_r_new, shape, "tree R new");
    if (tree_d_new.leaf_count() != shape.sector_nodes)
        bad("tree D new has " + std::to_string(tree_d_new.leaf_count()) + " leaves, the sector " +
            std::to_string(shape.sector_nodes));
    SnapWitness w;
    w.selector = Fr::from_u64(snap_k_and_h_select(shape, k, h));
    w.comm_c = comm_c;
    w.root_r_old = tree_r_old.root();
    w.root_r_new = tree_r_new.root();
    w.comm_r_old = comm_r(comm_c, tree_r_old.root());
    w.comm_d_new = fr_from_domain(tree_d_new.root(), "comm_d_new");
    w.comm_r_new = comm_r(comm_c, tree_r_new.root());
    // The partition's apex leaves: tree-D row challenge_bit_len - partition_bit_len - apex_leaf_bit_len.
    const std::span<const Domain> apex_row =
        tree_d_new.row(shape.challenge_bit_len - shape.partition_bit_len - shape.apex_leaf_bit_len);
    for (size_t i = 0; i < shape.apex_leaf_count; i++)
        w.apex_leaves.push_back(fr_from_domain(apex_row[size_t(k) * shape.apex_leaf_count + i], "apex leaf"));
    for (uint32_t c : snap_challenges(shape, *w.comm_r_new, k)) {
        SnapChallengeWitness cw;
        cw.leaf_r_old = tree_r_old.row(0)[c];
        cw.leaf_d_new = fr_from_domain(tree_d_new.row(0)[c], "tree D leaf");
        cw.leaf_r_new = tree_r_new.row(0)[c];
        cw.path_r_old = sibling_path(tree_r_old.path(c));
        cw.path_d_new = sibling_path(tree_d_new.path(c));
        cw.path_r_new = sibling_path(tree_r_new.path(c));
        w.challenges.push_back(std::move(cw));
    }
    return w;
}

SnapWitness snap_poseidon_witness(const SnapShape& shape, uint32_t h, const Fr& comm_c,
                                  const PoseidonTree& tree_r_old, const PoseidonTree& tree_d_new,
                                  const PoseidonTree& tree_r_new) {
    check_tree(tree_r_old, shape, "tree R old");
    check_tree(tree_d_new, shape, "tree D new");
    check_tree(tree_r_new, shape, "tree R new");
    SnapWitness w;
    w.selector = Fr::from_u64(snap_h_select(shape, h));
    w.comm_c = comm_c;
    w.root_r_old = tree_r_old.root();
    w.root_r_new = tree_r_new.root();
    w.comm_r_old = comm_r(comm_c, tree_r_old.root());
    w.comm_d_new = tree_d_new.root();
    w.comm_r_new = comm_r(comm_c, tree_r_new.root());
    for (uint32_t c : snap_challenges_poseidon(shape, *w.comm_r_new)) {
        SnapChallengeWitness cw;
        cw.leaf_r_old = tree_r_old.row(0)[c];
        cw.leaf_d_new = tree_d_new.row(0)[c];
        cw.leaf_r_new = tree_r_new.row(0)[c];
        cw.path_r_old = sibling_path(tree_r_old.path(c));
        cw.path_d_new = sibling_path(tree_d_new.path(c));
        cw.path_r_new = sibling_path(tree_r_new.path(c));
        w.challenges.push_back(std::move(cw));
    }
    return w;
}

CircuitCounts snap_circuit_info(const SnapShape& shape, UpdateCircuit variant) {
    const EmptySectorUpdateCircuit circuit = EmptySectorUpdateCircuit::blank(shape, variant);
    r1cs::CountingSystem cs;
    const EmptySectorUpdateCircuit::Head head = circuit.synthesize_head(cs);
    return count_parts(cs, circuit.challenge_count(), [&](r1cs::CountingSystem& part, size_t i) {
        circuit.synthesize_challenge(part, head, i);
    });
}

CircuitCounts snap_circuit_info(RegisteredUpdateProof p, UpdateCircuit variant) {
    return snap_circuit_info(SnapShape::from_sector_size(sector_size(p)), variant);
}

// ---- synthesis ----------------------------------------------------------------------------------------------------

// The systems snap_circuit.hpp names (snap_synthesis.hpp declares the same list extern).
CUZK_EMPTY_SECTOR_UPDATE_SYNTHESIS(, r1cs::KeygenAssembly)
CUZK_EMPTY_SECTOR_UPDATE_SYNTHESIS(, r1cs::ProvingAssignment)
CUZK_EMPTY_SECTOR_UPDATE_SYNTHESIS(, r1cs::TestConstraintSystem)
CUZK_EMPTY_SECTOR_UPDATE_SYNTHESIS(, r1cs::WitnessAssignment)
CUZK_EMPTY_SECTOR_UPDATE_SYNTHESIS(, r1cs::CountingSystem)

}  // namespace cuzk::filecoin
