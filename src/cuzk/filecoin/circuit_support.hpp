// What Filecoin's PoSt and SnapDeals circuits share beyond por.hpp:
//
//   por_no_challenge_input   storage-proofs-core gadgets/por.rs `por_no_challenge_input` (SnapDeals' Merkle proofs):
//                            the path's index bits are bits the caller already holds (a challenge's bits), the
//                            siblings are numbers the caller already allocated, and nothing becomes a public input.
//                            Per level "merkle proof insert (height=h)" (insert_2/4/8 of the current node among the
//                            siblings at the position the next log2(arity) challenge bits say) and "merkle proof
//                            hash (height=h)" (the tree's node hash); then "calculated root == provided root":
//                            computed * ONE = root. 8-ary Poseidon level: 22 + 505 = 527 rows (530 in por_levels,
//                            which also allocates the three index bits).
//   SiblingPath              a Merkle path as the circuits take it (upstream's Vec<Vec<Option<Fr>>>): per level from
//                            the leaf up, the arity - 1 siblings in position order; from the native paths of
//                            tree.hpp, or blank (values absent) for a tree shape.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/filecoin/por.hpp"
#include "cuzk/filecoin/proof_types.hpp"
#include "cuzk/filecoin/tree.hpp"
#include "cuzk/r1cs/counting_cs.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::filecoin {

// ---- counts -------------------------------------------------------------------------------------------------------

using r1cs::CircuitCounts;
using r1cs::count_parts;

// ---- paths --------------------------------------------------------------------------------------------------------

// Per level from the leaf up: the arity - 1 siblings in position order.
using SiblingPath = std::vector<std::vector<std::optional<Fr>>>;

// upstream's ChallengeProof::empty for one tree: the sub and top levels take their index bits off the challenge's
// `challenge_bit_len`, the base levels the rest (log2(base) bits each).
inline SiblingPath blank_sibling_path(uint32_t challenge_bit_len, TreeShape shape) {
    auto log2 = [](uint32_t a) { return (uint32_t)__builtin_ctz(a); };
    uint32_t bits = challenge_bit_len;
    if (shape.sub) bits -= log2(shape.sub);
    if (shape.top) bits -= log2(shape.top);
    SiblingPath p(bits / log2(shape.base), std::vector<std::optional<Fr>>(shape.base - 1));
    if (shape.sub) p.emplace_back(shape.sub - 1);
    if (shape.top) p.emplace_back(shape.top - 1);
    return p;
}

inline SiblingPath sibling_path(const PoseidonPath& native) {
    SiblingPath p;
    p.reserve(native.levels.size());
    for (const PoseidonPathLevel& level : native.levels) p.emplace_back(level.siblings.begin(), level.siblings.end());
    return p;
}

inline SiblingPath sibling_path(const BinaryPath& native) {
    SiblingPath p;
    p.reserve(native.siblings.size());
    for (const Domain& s : native.siblings) p.push_back({fr_from_domain(s, "tree D sibling")});
    return p;
}

// ---- the gadget ---------------------------------------------------------------------------------------------------

// Allocates every sibling of `path` in order (level by level, position by position), each as "<name>/num" inside
// the namespace `sibling_name(level, position)` (upstream allocates a path's siblings up front, before the
// Merkle gadget).
template <class CS, class N>
std::vector<std::vector<AllocatedNum>> alloc_sibling_path(CS& cs, const SiblingPath& path, N&& sibling_name) {
    std::vector<std::vector<AllocatedNum>> out(path.size());
    for (size_t l = 0; l < path.size(); l++) {
        out[l].reserve(path[l].size());
        for (size_t j = 0; j < path[l].size(); j++) {
            Namespace<CS> ns(cs, [&] { return sibling_name(l, j); });
            out[l].push_back(AllocatedNum::alloc(cs, "num", path[l][j]));
        }
    }
    return out;
}

// por.rs `por_no_challenge_input` in the namespace `name`: `leaf` lies under `root` along `path` (allocated
// siblings, the tree's levels from the leaf up) at the position the little-endian `challenge_bits` say; the bits
// must number exactly the path's index bits. `shape` is the tree's (tree D: {2, 0, 0}).
template <class CS, class N>
void por_no_challenge_input(CS& cs, N&& name, TreeHasher hasher, TreeShape shape,
                            std::span<const AllocatedBit> challenge_bits, const AllocatedNum& leaf,
                            const std::vector<std::vector<AllocatedNum>>& path, const AllocatedNum& root) {
    Namespace<CS> ns(cs, std::forward<N>(name));
    const std::vector<uint32_t> arities = path_level_arities(shape, path.size());
    AllocatedNum cur = leaf;
    size_t next_bit = 0;
    for (size_t height = 0; height < path.size(); height++) {
        const uint32_t arity = arities[height];
        if (path[height].size() + 1 != arity)
            throw std::invalid_argument("por_no_challenge_input: level " + std::to_string(height) + " has " +
                                        std::to_string(path[height].size()) + " siblings, arity " +
                                        std::to_string(arity));
        const size_t bit_count = (size_t)__builtin_ctz(arity);
        if (next_bit + bit_count > challenge_bits.size())
            throw std::invalid_argument("por_no_challenge_input: " + std::to_string(challenge_bits.size()) +
                                        " challenge bits are too few for the path");
        std::vector<Boolean> index_bits(challenge_bits.begin() + next_bit,
                                        challenge_bits.begin() + next_bit + bit_count);
        next_bit += bit_count;
        std::vector<AllocatedNum> preimage;
        {
            Namespace<CS> ins(cs, [&] { return "merkle proof insert (height=" + std::to_string(height) + ")"; });
            preimage = insert(cs, cur, std::span<const Boolean>(index_bits),
                              std::span<const AllocatedNum>(path[height]));
        }
        Namespace<CS> hns(cs, [&] { return "merkle proof hash (height=" + std::to_string(height) + ")"; });
        cur = node_hash_gadget(cs, hasher, std::span<const AllocatedNum>(preimage));
    }
    if (next_bit != challenge_bits.size())
        throw std::invalid_argument("por_no_challenge_input: " + std::to_string(challenge_bits.size()) +
                                    " challenge bits for a path of " + std::to_string(next_bit) + " index bits");
    if constexpr (r1cs::records_constraints<CS>())
        cs.enforce("calculated root == provided root", cur.as_lc(), LC(Variable::one()), root.as_lc());
}

}  // namespace cuzk::filecoin
