// EmptySectorUpdate's synthesis (snap_circuit.hpp declares these templates and describes the rows). Instantiated
// once, in snap_circuit.cpp, for the systems listed at the end (those snap_circuit.hpp names), and every other file
// links against that: the apex tree's SHA-256, Poseidon and the Merkle paths are most of a translation unit's compile
// time per system. Include this header only to synthesize the circuit into another system; the listed ones are
// declared extern here, so that such a file does not instantiate them again.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuzk/filecoin/challenges_snap.hpp"
#include "cuzk/filecoin/circuit_support.hpp"
#include "cuzk/filecoin/por.hpp"
#include "cuzk/filecoin/snap_circuit.hpp"
#include "cuzk/gadgets/multipack.hpp"
#include "cuzk/gadgets/num.hpp"
#include "cuzk/gadgets/poseidon.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/r1cs/counting_cs.hpp"

namespace cuzk::filecoin {

namespace snap_detail {

template <class CS, class N>
AllocatedNum alloc_num(CS& cs, N&& name, const std::optional<Fr>& value) {
    Namespace<CS> ns(cs, std::forward<N>(name));
    return AllocatedNum::alloc(cs, "num", value);
}

// H(a, b) with the SnapDeals tag.
template <class CS, class N>
AllocatedNum randomness_hash(CS& cs, N&& name, const AllocatedNum& a, const AllocatedNum& b) {
    Namespace<CS> ns(cs, std::forward<N>(name));
    const AllocatedNum preimage[2] = {a, b};
    return gadgets::poseidon_hash_gadget(cs, std::span<const AllocatedNum>(preimage, 2), snap_randomness_tag());
}

// Poseidon-2 MerkleTree (filecoin-hashers hash2_circuit).
template <class CS, class N>
AllocatedNum poseidon2(CS& cs, N&& name, const AllocatedNum& a, const AllocatedNum& b) {
    Namespace<CS> ns(cs, std::forward<N>(name));
    const AllocatedNum preimage[2] = {a, b};
    return gadgets::poseidon_hash_gadget(cs, std::span<const AllocatedNum>(preimage, 2));
}

// `bit_len` little-endian bits of `value` as AllocatedBits "<prefix>_i", then the row `row_name`:
// (sum 2^i b_i) * ONE = value (circuit.rs' k_and_h_select / h_select decomposition).
template <class CS>
std::vector<AllocatedBit> decompose(CS& cs, const AllocatedNum& num, size_t bit_len, const char* prefix,
                                    const char* row_name) {
    std::optional<limbs_t<4>> canon;
    if constexpr (CS::kNeedsValues) {
        if (num.value()) canon = num.value()->to_canonical();
    }
    std::vector<AllocatedBit> bits;
    for (size_t i = 0; i < bit_len; i++) {
        std::optional<bool> b;
        if (canon) b = (((*canon)[i / 64] >> (i % 64)) & 1) != 0;
        bits.push_back(AllocatedBit::alloc(cs, [&] { return std::string(prefix) + "_" + std::to_string(i); }, b));
    }
    if constexpr (r1cs::records_constraints<CS>()) {
        LC lc;
        for (size_t i = 0; i < bits.size(); i++) lc.add(gadgets::pow2_table()[i], bits[i].variable());
        cs.enforce(row_name, lc, LC(Variable::one()), num.as_lc());
    }
    return bits;
}

// insertion.rs `select`: from[n] for n the little-endian `bits`, by halving on the most significant bit first
// ("pick i, j" for round i, position j).
template <class CS, class N>
AllocatedNum select(CS& cs, N&& name, std::span<const AllocatedNum> from, std::span<const Boolean> bits) {
    if (from.size() != (size_t(1) << bits.size()))
        throw std::invalid_argument("select: " + std::to_string(from.size()) + " elements for " +
                                    std::to_string(bits.size()) + " bits");
    Namespace<CS> ns(cs, std::forward<N>(name));
    std::vector<AllocatedNum> state(from.begin(), from.end());
    size_t half = from.size() / 2;
    for (size_t i = 0; i < bits.size(); i++) {
        const Boolean& bit = bits[bits.size() - 1 - i];
        std::vector<AllocatedNum> next;
        next.reserve(half);
        for (size_t j = 0; j < half; j++)
            next.push_back(pick(cs, [&] { return "pick " + std::to_string(i) + ", " + std::to_string(j); }, bit,
                                state[half + j], state[j]));
        state = std::move(next);
        half /= 2;
    }
    return state[0];
}

inline std::vector<Boolean> booleans(std::span<const AllocatedBit> bits) {
    return std::vector<Boolean>(bits.begin(), bits.end());
}

}  // namespace snap_detail

template <class CS>
std::vector<std::vector<AllocatedBit>> EmptySectorUpdateCircuit::gen_challenge_bits(CS& cs,
                                                                                    const AllocatedNum& comm_r_new,
                                                                                    const AllocatedNum& partition,
                                                                                    uint32_t challenges,
                                                                                    uint32_t bits_per_challenge) const {
    // gadgets.rs gen_challenge_bits.
    Namespace<CS> ns(cs, "gen_challenge_bits");
    const uint32_t per_digest = uint32_t(gadgets::kFrCapacity) / bits_per_challenge;
    const uint32_t digests = (challenges + per_digest - 1) / per_digest;
    std::vector<std::vector<AllocatedBit>> out;
    out.reserve(challenges);
    for (uint32_t j = 0; j < digests; j++) {
        std::optional<Fr> index_value;
        if (partition.value()) index_value = *partition.value() * Fr::from_u64(digests) + Fr::from_u64(j);
        const AllocatedNum digest_index =
            snap_detail::alloc_num(cs, [&] { return "digest_index_" + std::to_string(j); }, index_value);
        if constexpr (r1cs::records_constraints<CS>()) {
            // digests and j are constants: (digests * k + j * ONE) * ONE = digest_index.
            LC lc;
            lc.add(Fr::from_u64(digests), partition.variable());
            lc.add(Fr::from_u64(j), Variable::one());
            cs.enforce([&] { return "digest_index_" + std::to_string(j) + " == k * digests_per_partition + " +
                                    std::to_string(j); },
                       lc, LC(Variable::one()), digest_index.as_lc());
        }
        const AllocatedNum digest = snap_detail::randomness_hash(
            cs, [&] { return "digest_" + std::to_string(j); }, comm_r_new, digest_index);
        // allocated_num_to_allocated_bits: 255 bits and (sum 2^i b_i) * ONE = digest.
        std::vector<AllocatedBit> bits;
        {
            Namespace<CS> bns(cs, [&] { return "digest_" + std::to_string(j) + "_bits"; });
            bits = gadgets::detail::field_into_allocated_bits_le(cs, digest.value());
            if constexpr (r1cs::records_constraints<CS>()) {
                LC lc;
                for (size_t i = 0; i < bits.size(); i++) lc.add(gadgets::pow2_table()[i], bits[i].variable());
                cs.enforce("binary decomp", lc, LC(Variable::one()), digest.as_lc());
            }
        }
        const uint32_t take = j + 1 == digests ? challenges - uint32_t(out.size()) : per_digest;
        for (uint32_t c = 0; c < take; c++)
            out.emplace_back(bits.begin() + size_t(c) * bits_per_challenge,
                             bits.begin() + size_t(c + 1) * bits_per_challenge);
    }
    return out;
}

template <class CS>
EmptySectorUpdateCircuit::Head EmptySectorUpdateCircuit::synthesize_head(CS& cs) const {
    using snap_detail::alloc_num;
    const bool sha = variant_ == UpdateCircuit::Sha256;
    const size_t h_select_bit_len = shape_.hs.size();
    Head head;

    AllocatedNum partition;
    AllocatedNum comm_r_old, comm_r_new;
    std::vector<std::vector<AllocatedNum>> partition_path;
    if (sha) {
        const AllocatedNum k_and_h_select = alloc_num(cs, "k_and_h_select", w_.selector);
        k_and_h_select.inputize(cs, "k_and_h_select (public input)");
        std::vector<AllocatedBit> bits =
            snap_detail::decompose(cs, k_and_h_select, shape_.partition_bit_len + h_select_bit_len,
                                   "k_and_h_select_bit", "k_and_h_select binary decomp");
        head.partition_bits.assign(bits.begin(), bits.begin() + shape_.partition_bit_len);
        head.h_select_bits.assign(bits.begin() + shape_.partition_bit_len, bits.end());
        const std::vector<Boolean> pb = snap_detail::booleans(head.partition_bits);
        partition = gadgets::pack_bits(cs, "pack partition bits", std::span<const Boolean>(pb));
    } else {
        const AllocatedNum h_select = alloc_num(cs, "h_select", w_.selector);
        h_select.inputize(cs, "h_select (public input)");
        head.h_select_bits =
            snap_detail::decompose(cs, h_select, h_select_bit_len, "h_select_bit", "h_select binary decomp");
    }
    comm_r_old = alloc_num(cs, "comm_r_old", w_.comm_r_old);
    comm_r_old.inputize(cs, "comm_r_old_input");
    head.comm_d_new = alloc_num(cs, "comm_d_new", w_.comm_d_new);
    head.comm_d_new.inputize(cs, "comm_d_new_input");
    comm_r_new = alloc_num(cs, "comm_r_new", w_.comm_r_new);
    comm_r_new.inputize(cs, "comm_r_new_input");

    head.phi = snap_detail::randomness_hash(cs, "phi", head.comm_d_new, comm_r_old);

    const AllocatedNum comm_c = alloc_num(cs, "comm_c", w_.comm_c);
    head.root_r_old = alloc_num(cs, "root_r_old", w_.root_r_old);
    head.root_r_new = alloc_num(cs, "root_r_new", w_.root_r_new);
    if (sha) {
        for (size_t i = 0; i < w_.apex_leaves.size(); i++)
            head.apex_leaves.push_back(
                alloc_num(cs, [&] { return "apex_leaf_" + std::to_string(i); }, w_.apex_leaves[i]));
        // The partition path: the top partition_bit_len levels of challenge 0's tree-D path.
        const SiblingPath& d = w_.challenges[0].path_d_new;
        for (size_t i = 0; i < shape_.partition_bit_len; i++)
            partition_path.push_back({alloc_num(cs, [&] { return "partition_path_sibling_" + std::to_string(i); },
                                                d[shape_.challenge_bit_len - shape_.partition_bit_len + i][0])});
    }

    const AllocatedNum comm_r_old_calc = snap_detail::poseidon2(cs, "comm_r_old_calc", comm_c, head.root_r_old);
    if constexpr (r1cs::records_constraints<CS>())
        cs.enforce("enforce comm_r_old_calc == comm_r_old", comm_r_old_calc.as_lc(), LC(Variable::one()),
                   comm_r_old.as_lc());
    const AllocatedNum comm_r_new_calc = snap_detail::poseidon2(cs, "comm_r_new_calc", comm_c, head.root_r_new);
    if constexpr (r1cs::records_constraints<CS>())
        cs.enforce("enforce comm_r_new_calc == comm_r_new", comm_r_new_calc.as_lc(), LC(Variable::one()),
                   comm_r_new.as_lc());

    if (sha) {
        // gadgets.rs apex_por: the apex tree row by row, then the partition path from its root to comm_d_new.
        Namespace<CS> ns(cs, "apex_gadget");
        std::vector<AllocatedNum> row = head.apex_leaves;
        for (size_t row_index = 0; row.size() > 1; row_index++) {
            std::vector<AllocatedNum> next;
            for (size_t i = 0; i + 1 < row.size(); i += 2) {
                Namespace<CS> hns(cs, [&] {
                    return "apex_tree generation hash (tree_row=" + std::to_string(row_index) +
                           ", siblings=" + std::to_string(i / 2) + ")";
                });
                const AllocatedNum pair[2] = {row[i], row[i + 1]};
                next.push_back(sha256_multi_leaf_gadget(cs, std::span<const AllocatedNum>(pair, 2)));
            }
            row = std::move(next);
        }
        por_no_challenge_input(cs, "partition-tree por", TreeHasher::Sha256, TreeShape{2, 0, 0},
                               std::span<const AllocatedBit>(head.partition_bits), row[0], partition_path,
                               head.comm_d_new);
        head.random_bits = gen_challenge_bits(cs, comm_r_new, partition, challenge_count(),
                                              shape_.random_bits_per_challenge);
    } else {
        partition = alloc_num(cs, "gen_challenge_bits partition zero", std::optional<Fr>(Fr::zero()));
        head.random_bits = gen_challenge_bits(cs, comm_r_new, partition, challenge_count(), shape_.challenge_bit_len);
    }
    return head;
}

template <class CS>
AllocatedNum EmptySectorUpdateCircuit::challenge_high_bits(CS& cs, size_t c_index,
                                                           std::span<const AllocatedBit> c_bits,
                                                           const Head& head) const {
    // gadgets.rs get_challenge_high_bits: for each h in hs the h high bits packed and multiplied by its h_select
    // bit; their sum is the selected one (exactly one h_select bit is set).
    Namespace<CS> ns(cs, [&] { return "get_challenge_high_bits (c_index=" + std::to_string(c_index) + ")"; });
    const std::vector<Boolean> bits = snap_detail::booleans(c_bits);
    std::vector<AllocatedNum> scaled;
    for (size_t k = 0; k < shape_.hs.size(); k++) {
        const uint32_t h = shape_.hs[k];
        auto suffix = [&] { return "(h=" + std::to_string(h) + ", k=" + std::to_string(k) + ")"; };
        const AllocatedNum c_high = gadgets::pack_bits(cs, [&] { return "c_high " + suffix(); },
                                                       std::span<const Boolean>(bits).last(h));
        const AllocatedBit& select_bit = head.h_select_bits[k];
        std::optional<Fr> v;
        if (select_bit.value() && c_high.value()) v = *select_bit.value() ? *c_high.value() : Fr::zero();
        const AllocatedNum c_high_or_zero = snap_detail::alloc_num(cs, [&] { return "c_high_or_zero " + suffix(); }, v);
        if constexpr (r1cs::records_constraints<CS>())
            cs.enforce([&] { return "c_high_or_zero == c_high * h_select_bit " + suffix(); }, c_high.as_lc(),
                       LC(select_bit.variable()), c_high_or_zero.as_lc());
        scaled.push_back(c_high_or_zero);
    }
    std::optional<Fr> sum = Fr::zero();
    for (const AllocatedNum& s : scaled) {
        if (!s.value()) sum.reset();
        if (sum) *sum += *s.value();
    }
    const AllocatedNum selected = snap_detail::alloc_num(cs, "c_high_selected", sum);
    if constexpr (r1cs::records_constraints<CS>()) {
        LC lc;
        for (const AllocatedNum& s : scaled) lc.add(s.variable());
        cs.enforce("c_high_selected == dot(c_highs, h_select_bits)", lc, LC(Variable::one()), selected.as_lc());
    }
    return selected;
}

template <class CS>
void EmptySectorUpdateCircuit::synthesize_challenge(CS& cs, const Head& head, size_t c_index) const {
    using snap_detail::alloc_num;
    const bool sha = variant_ == UpdateCircuit::Sha256;
    const SnapChallengeWitness& cw = w_.challenges[c_index];
    auto tag = [c_index] { return "(c_index=" + std::to_string(c_index) + ")"; };

    // The challenge's bits, little-endian: the random bits, then (SHA-256 variant) the partition bits.
    std::vector<AllocatedBit> c_bits = head.random_bits[c_index];
    c_bits.insert(c_bits.end(), head.partition_bits.begin(), head.partition_bits.end());

    const AllocatedNum c_high = challenge_high_bits(cs, c_index, c_bits, head);
    const AllocatedNum rho = snap_detail::randomness_hash(cs, [&] { return "rho " + tag(); }, head.phi, c_high);

    const AllocatedNum leaf_r_old = alloc_num(cs, [&] { return "leaf_r_old " + tag(); }, cw.leaf_r_old);
    const AllocatedNum leaf_d_new = alloc_num(cs, [&] { return "leaf_d_new " + tag(); }, cw.leaf_d_new);
    AllocatedNum leaf_r_new;
    {
        // gadgets.rs label_r_new.
        Namespace<CS> ns(cs, [&] { return "leaf_r_new " + tag(); });
        const AllocatedNum d_rho = leaf_d_new.mul(cs, "label_d_new * rho", rho);
        std::optional<Fr> v;
        if (leaf_r_old.value() && d_rho.value()) v = *leaf_r_old.value() + *d_rho.value();
        leaf_r_new = alloc_num(cs, "label_r_new", v);
        if constexpr (r1cs::records_constraints<CS>())
            cs.enforce("label_r_new == label_r_old + label_d_new * rho", leaf_r_old.as_lc() + d_rho.variable(),
                       LC(Variable::one()), leaf_r_new.as_lc());
    }
    if (leaf_r_new.value() && cw.leaf_r_new && *leaf_r_new.value() != *cw.leaf_r_new)
        throw std::invalid_argument("SnapDeals challenge " + std::to_string(c_index) +
                                    ": leaf_r_new is not leaf_r_old + leaf_d_new * rho");

    auto sibling_namer = [&](const char* path) {
        return [path, c_index](size_t row, size_t j) {
            return std::string(path) + " sibling (c_index=" + std::to_string(c_index) +
                   ", tree_row=" + std::to_string(row) + ", sibling_index=" + std::to_string(j) + ")";
        };
    };
    const std::span<const AllocatedBit> bits(c_bits);
    {
        const auto path = alloc_sibling_path(cs, cw.path_r_old, sibling_namer("path_r_old"));
        por_no_challenge_input(cs, [&] { return "por tree_r_old " + tag(); }, TreeHasher::Poseidon, shape_.tree_r,
                               bits, leaf_r_old, path, head.root_r_old);
    }
    {
        const auto path = alloc_sibling_path(cs, cw.path_r_new, sibling_namer("path_r_new"));
        por_no_challenge_input(cs, [&] { return "por tree_r_new " + tag(); }, TreeHasher::Poseidon, shape_.tree_r,
                               bits, leaf_r_new, path, head.root_r_new);
    }
    if (!sha) {
        const auto path = alloc_sibling_path(cs, cw.path_d_new, sibling_namer("path_d_new"));
        por_no_challenge_input(cs, [&] { return "por tree_d_new " + tag(); }, TreeHasher::Poseidon, shape_.tree_r,
                               bits, leaf_d_new, path, head.comm_d_new);
        return;
    }
    // The apex leaf above the challenge, then the tree-D path up to it.
    const size_t path_len = shape_.challenge_bit_len - shape_.partition_bit_len - shape_.apex_leaf_bit_len;
    const std::vector<Boolean> apex_bits = snap_detail::booleans(bits.subspan(path_len, shape_.apex_leaf_bit_len));
    const AllocatedNum apex_leaf =
        snap_detail::select(cs, [&] { return "select_apex_leaf " + tag(); },
                            std::span<const AllocatedNum>(head.apex_leaves), std::span<const Boolean>(apex_bits));
    std::vector<std::vector<AllocatedNum>> path;
    for (size_t row = 0; row < path_len; row++)
        path.push_back({alloc_num(cs, [&] {
            return "path_to_apex_leaf sibling (c_index=" + std::to_string(c_index) + ", tree_row=" +
                   std::to_string(row) + ")";
        }, cw.path_d_new[row][0])});
    por_no_challenge_input(cs, [&] { return "por to_apex_leaf " + tag(); }, TreeHasher::Sha256, TreeShape{2, 0, 0},
                           bits.first(path_len), leaf_d_new, path, apex_leaf);
}

template <class CS>
void EmptySectorUpdateCircuit::synthesize(CS& cs) const {
    const Head head = synthesize_head(cs);
    r1cs::synthesize_parts(cs, challenge_count(),
                           [&](auto& part, size_t c_index) { synthesize_challenge(part, head, c_index); });
}

// Every synthesis template for system CS: an explicit instantiation definition (snap_circuit.cpp, EXTERN empty) or
// declaration (EXTERN = extern).
#define CUZK_EMPTY_SECTOR_UPDATE_SYNTHESIS(EXTERN, CS)                                                   \
    EXTERN template void EmptySectorUpdateCircuit::synthesize(CS&) const;                                \
    EXTERN template EmptySectorUpdateCircuit::Head EmptySectorUpdateCircuit::synthesize_head(CS&) const; \
    EXTERN template void EmptySectorUpdateCircuit::synthesize_challenge(CS&, const Head&, size_t) const;

CUZK_EMPTY_SECTOR_UPDATE_SYNTHESIS(extern, r1cs::KeygenAssembly)
CUZK_EMPTY_SECTOR_UPDATE_SYNTHESIS(extern, r1cs::ProvingAssignment)
CUZK_EMPTY_SECTOR_UPDATE_SYNTHESIS(extern, r1cs::TestConstraintSystem)
CUZK_EMPTY_SECTOR_UPDATE_SYNTHESIS(extern, r1cs::WitnessAssignment)
CUZK_EMPTY_SECTOR_UPDATE_SYNTHESIS(extern, r1cs::CountingSystem)

}  // namespace cuzk::filecoin
