// Filecoin's Merkle-inclusion gadgets, row for row as rust-fil-proofs synthesizes them
// (storage-proofs-core gadgets/insertion.rs, gadgets/por.rs, filecoin-hashers sha256.rs / poseidon.rs circuits).
//
//   pick(cond, a, b)   cond ? a : b as a fresh number c with the row (b - a) * cond = b - c               1 row
//   insert_2 / 4 / 8   a node placed among its arity - 1 siblings at the position its index bits say:
//                      insert_2 = 2 picks; insert_4 = 8 picks; insert_8 = b0 NOR b1, b0 AND b1 (1 row each) and
//                      20 picks = 22 rows. The bits must be allocated, unnegated bits (upstream panics otherwise).
//   one path level     the index bits (AllocatedBit each: 1 row), the siblings (aux), the insertion, the node hash:
//                      8-ary Poseidon 3 + 22 + 505 = 530 rows; binary SHA-256 1 + 2 + 2 x 256 (to_bits_le) +
//                      sha256 of 512 bits + 1 (pack) rows.
//   PoR (PoRCircuit)   the leaf (a fresh number, or one already allocated), the base levels ("base/merkle tree hash
//                      i"), the sub level ("sub/..."), the top level ("top/..."), the path bits packed into one
//                      public input ("path": the leaf index), the root (fresh or given), the row computed * 1 = root,
//                      and, when the root is public, its inputize.
//
// A node hash of a binary SHA-256 tree takes its two children as numbers: each to_bits_le (255 bits), padded to 256
// with a constant 0, each byte's bits reversed (the node's little-endian bytes in SHA-256's bit order), sha256 of the
// 512 bits (two blocks, the second constant), the digest's bytes bit-reversed back and the first 254 bits packed into
// one number (the digest with its top two bits dropped, Filecoin's trim_to_fr32).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/filecoin/proof_types.hpp"
#include "cuzk/filecoin/tree.hpp"
#include "cuzk/gadgets/boolean.hpp"
#include "cuzk/gadgets/multipack.hpp"
#include "cuzk/gadgets/num.hpp"
#include "cuzk/gadgets/poseidon.hpp"
#include "cuzk/gadgets/sha256.hpp"

namespace cuzk::filecoin {

using gadgets::AllocatedBit;
using gadgets::AllocatedNum;
using gadgets::Boolean;
using r1cs::LC;
using r1cs::Namespace;
using r1cs::Variable;

// ---- insertion ------------------------------------------------------------------------------------------------------

// insertion.rs `pick`: condition ? a : b as "<name>/pick result", with the row "<name>/pick":
// (b - a) * condition = b - result.
template <class CS, class N>
AllocatedNum pick(CS& cs, N&& name, const Boolean& condition, const AllocatedNum& a, const AllocatedNum& b) {
    Namespace<CS> ns(cs, std::forward<N>(name));
    std::optional<Fr> v;
    if constexpr (CS::kNeedsValues) {
        const auto c = condition.value();
        if (c && a.value() && b.value()) v = *c ? *a.value() : *b.value();
    }
    AllocatedNum result = AllocatedNum::alloc(cs, "pick result", v);
    if constexpr (r1cs::records_constraints<CS>())
        cs.enforce("pick", b.as_lc() - a.variable(), condition.lc(), b.as_lc() - result.variable());
    return result;
}

namespace detail {
inline const AllocatedBit& unnegated_bit(const Boolean& b, const char* what) {
    if (b.kind() != Boolean::Kind::Is)
        throw std::invalid_argument(std::string("insert_8: ") + what + " must be an allocated, unnegated bit");
    return b.bit();
}
}  // namespace detail

// `element` inserted among `siblings` at the position (bits, least significant first) says; returns the arity
// numbers in position order. arity = siblings.size() + 1 = 2^bits.size(), one of 2, 4, 8.
template <class CS>
std::vector<AllocatedNum> insert(CS& cs, const AllocatedNum& element, std::span<const Boolean> bits,
                                 std::span<const AllocatedNum> siblings) {
    const size_t size = siblings.size() + 1;
    if (bits.size() >= 8 || size != (size_t(1) << bits.size()))
        throw std::invalid_argument("insert: " + std::to_string(siblings.size()) + " siblings and " +
                                    std::to_string(bits.size()) + " index bits do not make a power-of-two arity");
    const AllocatedNum& a = element;
    if (size == 2) {
        // insert_2: position 0 holds the sibling when the bit is set, the element otherwise; position 1 the reverse.
        return {pick(cs, "binary insert 0", bits[0], siblings[0], a), pick(cs, "binary insert 1", bits[0], a, siblings[0])};
    }
    if (size == 4) {
        // insert_4: each position picked on b0 among its two candidates, then on b1.
        const Boolean &b0 = bits[0], &b1 = bits[1];
        const AllocatedNum &b = siblings[0], &c = siblings[1], &d = siblings[2];
        AllocatedNum p0_x0 = pick(cs, "p0_x0", b0, b, a);
        AllocatedNum p0 = pick(cs, "p0", b1, b, p0_x0);
        AllocatedNum p1_x0 = pick(cs, "p1_x0", b0, a, b);
        AllocatedNum p1 = pick(cs, "p1", b1, c, p1_x0);
        AllocatedNum p2_x1 = pick(cs, "p2_x1", b0, d, a);
        AllocatedNum p2 = pick(cs, "p2", b1, p2_x1, c);
        AllocatedNum p3_x1 = pick(cs, "p3_x1", b0, a, d);
        AllocatedNum p3 = pick(cs, "p3", b1, p3_x1, d);
        return {p0, p1, p2, p3};
    }
    if (size != 8) throw std::invalid_argument("insert: arity " + std::to_string(size) + " (only 2, 4 and 8 are used)");
    // insert_8: two helper bits (b0 NOR b1, b0 AND b1) share the work of the positions whose candidates depend on
    // both low bits; every position is then at most three picks deep. The pick order is upstream's (rows follow it).
    const Boolean &b0 = bits[0], &b1 = bits[1], &b2 = bits[2];
    const Boolean b0_nor_b1 = AllocatedBit::nor(cs, "b0 nor b1", detail::unnegated_bit(b0, "bit 0"),
                                                detail::unnegated_bit(b1, "bit 1"));
    const Boolean b0_and_b1 = AllocatedBit::and_(cs, "b0 and b1", detail::unnegated_bit(b0, "bit 0"),
                                                 detail::unnegated_bit(b1, "bit 1"));
    const AllocatedNum &b = siblings[0], &c = siblings[1], &d = siblings[2], &e = siblings[3], &f = siblings[4],
                       &g = siblings[5], &h = siblings[6];
    std::vector<AllocatedNum> out;
    out.reserve(8);
    {
        AllocatedNum p0_xx0 = pick(cs, "p0_xx0", b0_nor_b1, a, b);
        out.push_back(pick(cs, "p0", b2, b, p0_xx0));
    }
    {
        AllocatedNum p1_x00 = pick(cs, "p1_x00", b0, a, b);
        AllocatedNum p1_xx0 = pick(cs, "p1_xx0", b1, c, p1_x00);
        out.push_back(pick(cs, "p1", b2, c, p1_xx0));
    }
    {
        AllocatedNum p2_x10 = pick(cs, "p2_x10", b0, d, a);
        AllocatedNum p2_xx0 = pick(cs, "p2_xx0", b1, p2_x10, c);
        out.push_back(pick(cs, "p2", b2, d, p2_xx0));
    }
    {
        AllocatedNum p3_xx0 = pick(cs, "p3_xx0", b0_and_b1, a, d);
        out.push_back(pick(cs, "p3", b2, e, p3_xx0));
    }
    {
        AllocatedNum p4_xx1 = pick(cs, "p4_xx1", b0_nor_b1, a, f);
        out.push_back(pick(cs, "p4", b2, p4_xx1, e));
    }
    {
        AllocatedNum p5_x01 = pick(cs, "p5_x01", b0, a, f);
        AllocatedNum p5_xx1 = pick(cs, "p5_xx1", b1, g, p5_x01);
        out.push_back(pick(cs, "p5", b2, p5_xx1, f));
    }
    {
        AllocatedNum p6_x11 = pick(cs, "p6_x11", b0, h, a);
        AllocatedNum p6_xx1 = pick(cs, "p6_xx1", b1, p6_x11, g);
        out.push_back(pick(cs, "p6", b2, p6_xx1, g));
    }
    {
        AllocatedNum p7_xx1 = pick(cs, "p7_xx1", b0_and_b1, a, h);
        out.push_back(pick(cs, "p7", b2, p7_xx1, h));
    }
    return out;
}

// ---- node hashes ----------------------------------------------------------------------------------------------------

enum class TreeHasher { Sha256, Poseidon };

// filecoin-hashers sha256.rs `hash_multi_leaf_circuit`: SHA-256 of the children's little-endian bytes, trimmed to
// 254 bits, as a fresh number ("<i>_num_into_bits/...", "hash/...", "pack_le/...").
template <class CS>
AllocatedNum sha256_multi_leaf_gadget(CS& cs, std::span<const AllocatedNum> leaves) {
    std::vector<Boolean> bits;
    bits.reserve(leaves.size() * 256);
    for (size_t i = 0; i < leaves.size(); i++) {
        std::vector<Boolean> le = leaves[i].to_bits_le(cs, [&] { return std::to_string(i) + "_num_into_bits"; });
        for (Boolean& b : gadgets::reverse_bit_numbering(std::move(le))) bits.push_back(std::move(b));
    }
    std::vector<Boolean> be = gadgets::sha256(cs, "hash", std::span<const Boolean>(bits));
    // The digest's bytes with each byte's bits reversed: its little-endian bits; the first 254 (Fr::CAPACITY).
    std::vector<Boolean> le = gadgets::reverse_bit_numbering(std::move(be));
    le.resize(254);
    return gadgets::pack_bits(cs, "pack_le", std::span<const Boolean>(le));
}

// The hash of one tree node's children (`hash_multi_leaf_circuit` of the tree's hasher).
template <class CS>
AllocatedNum node_hash_gadget(CS& cs, TreeHasher hasher, std::span<const AllocatedNum> children) {
    if (hasher == TreeHasher::Poseidon) return gadgets::poseidon_hash_gadget(cs, children);
    return sha256_multi_leaf_gadget(cs, children);
}

// ---- paths ----------------------------------------------------------------------------------------------------------

// One level of a Merkle path as the circuit takes it: the arity - 1 siblings in position order (the node's own
// position left out) and the node's position among the arity children. Values absent for key generation.
struct PorLevel {
    uint32_t arity = 0;
    std::vector<std::optional<Fr>> siblings;  // arity - 1
    std::optional<uint32_t> index;            // < arity
};

// A whole path: `base` levels of the base arity, then at most one sub-tree level and one top-tree level
// (a tree shape's sub and top arities; 0 when absent).
struct PorPath {
    std::vector<PorLevel> base;
    std::optional<PorLevel> sub;
    std::optional<PorLevel> top;
};

// A blank path (no values) for a tree of `leaves` leaves with base/sub/top arities (sub/top 0 = none), for key
// generation and counting.
inline PorPath blank_por_path(uint64_t leaves, uint32_t base_arity, uint32_t sub_arity, uint32_t top_arity) {
    auto level = [](uint32_t arity) {
        PorLevel l;
        l.arity = arity;
        l.siblings.assign(arity - 1, std::nullopt);
        return l;
    };
    uint64_t base_leaves = leaves;
    if (sub_arity) base_leaves /= sub_arity;
    if (top_arity) base_leaves /= top_arity;
    PorPath p;
    for (uint64_t n = 1; n < base_leaves; n *= base_arity) p.base.push_back(level(base_arity));
    if (sub_arity) p.sub = level(sub_arity);
    if (top_arity) p.top = level(top_arity);
    return p;
}

// The arity of each of the `levels` levels of a path in a tree of `shape` (base levels, then sub, then top).
inline std::vector<uint32_t> path_level_arities(TreeShape shape, size_t levels) {
    const size_t extra = (shape.sub ? 1 : 0) + (shape.top ? 1 : 0);
    if (levels < extra)
        throw std::invalid_argument("path of " + std::to_string(levels) + " levels is too short for tree shape " +
                                    tree_shape_name(shape));
    std::vector<uint32_t> out(levels - extra, shape.base);
    if (shape.sub) out.push_back(shape.sub);
    if (shape.top) out.push_back(shape.top);
    return out;
}

// A native Poseidon path as por_circuit takes it (base levels, then the sub and top levels of `shape`).
inline PorPath por_path(const PoseidonPath& native, TreeShape shape) {
    const std::vector<uint32_t> arities = path_level_arities(shape, native.levels.size());
    PorPath p;
    const size_t base_levels = arities.size() - (shape.sub ? 1 : 0) - (shape.top ? 1 : 0);
    for (size_t l = 0; l < native.levels.size(); l++) {
        const PoseidonPathLevel& n = native.levels[l];
        if (n.arity != arities[l])
            throw std::invalid_argument("path level " + std::to_string(l) + " has arity " + std::to_string(n.arity) +
                                        ", tree shape " + tree_shape_name(shape) + " says " +
                                        std::to_string(arities[l]));
        PorLevel level;
        level.arity = n.arity;
        level.index = n.index;
        level.siblings.assign(n.siblings.begin(), n.siblings.end());
        if (l < base_levels) p.base.push_back(std::move(level));
        else if (shape.sub && !p.sub) p.sub = std::move(level);
        else p.top = std::move(level);
    }
    return p;
}

// A native binary (tree D) path as por_circuit takes it: one level of arity 2 per sibling, the index bit by bit.
inline PorPath por_path(const BinaryPath& native) {
    PorPath p;
    for (size_t l = 0; l < native.siblings.size(); l++) {
        PorLevel level;
        level.arity = 2;
        level.index = uint32_t((native.index >> l) & 1);
        level.siblings.push_back(fr_from_domain(native.siblings[l], "tree D sibling"));
        p.base.push_back(std::move(level));
    }
    return p;
}

// por.rs `SubPath::synthesize`: for each level i ("merkle tree hash i"): the index bits ("index bit j"), the
// siblings ("path element j"), the insertion and the node hash ("computation of commitment hash"). Appends the index
// bits to `path_bits` and returns the computed node.
template <class CS>
AllocatedNum por_levels(CS& cs, TreeHasher hasher, std::span<const PorLevel> levels, AllocatedNum cur,
                        std::vector<Boolean>& path_bits) {
    for (size_t i = 0; i < levels.size(); i++) {
        const PorLevel& level = levels[i];
        if (level.arity < 2 || (level.arity & (level.arity - 1)) || level.siblings.size() + 1 != level.arity)
            throw std::invalid_argument("PoR level " + std::to_string(i) + ": arity " + std::to_string(level.arity) +
                                        " with " + std::to_string(level.siblings.size()) + " siblings");
        if (level.index && *level.index >= level.arity)
            throw std::invalid_argument("PoR level " + std::to_string(i) + ": index " + std::to_string(*level.index) +
                                        " >= arity " + std::to_string(level.arity));
        Namespace<CS> ns(cs, [&] { return "merkle tree hash " + std::to_string(i); });
        const unsigned index_bits = unsigned(__builtin_ctz(level.arity));
        std::vector<Boolean> bits;
        for (unsigned j = 0; j < index_bits; j++) {
            std::optional<bool> v;
            if (level.index) v = ((*level.index >> j) & 1) != 0;
            bits.emplace_back(AllocatedBit::alloc(cs, [&] { return "index bit " + std::to_string(j); }, v));
        }
        path_bits.insert(path_bits.end(), bits.begin(), bits.end());
        std::vector<AllocatedNum> siblings;
        for (size_t j = 0; j < level.siblings.size(); j++)
            siblings.push_back(AllocatedNum::alloc(cs, [&] { return "path element " + std::to_string(j); },
                                                   level.siblings[j]));
        std::vector<AllocatedNum> inserted = insert(cs, cur, std::span<const Boolean>(bits),
                                                    std::span<const AllocatedNum>(siblings));
        Namespace<CS> hash_ns(cs, "computation of commitment hash");
        cur = node_hash_gadget(cs, hasher, std::span<const AllocatedNum>(inserted));
    }
    return cur;
}

// por.rs `Root`: a number already allocated, or a value to allocate (absent for key generation).
struct PorRoot {
    std::optional<AllocatedNum> var;
    std::optional<Fr> val;

    static PorRoot of(const AllocatedNum& n) { return PorRoot{n, std::nullopt}; }
    static PorRoot value(std::optional<Fr> v) { return PorRoot{std::nullopt, v}; }

    template <class CS, class N>
    AllocatedNum allocated(CS& cs, N&& name) const {
        if (var) return *var;
        Namespace<CS> ns(cs, std::forward<N>(name));
        return AllocatedNum::alloc(cs, "num", val);
    }
};

// por.rs `PoRCircuit::synthesize`: proves `leaf` lies under `root` along `path`; the path bits become one public
// input (the leaf index); `private_root` = false also makes the root public. Returns the path input.
template <class CS>
AllocatedNum por_circuit(CS& cs, TreeHasher hasher, const PorRoot& leaf, const PorPath& path, const PorRoot& root,
                         bool private_root) {
    AllocatedNum cur = leaf.allocated(cs, "value");
    std::vector<Boolean> path_bits;
    {
        Namespace<CS> ns(cs, "base");
        cur = por_levels(cs, hasher, std::span<const PorLevel>(path.base), cur, path_bits);
    }
    {
        Namespace<CS> ns(cs, "sub");
        if (path.sub) cur = por_levels(cs, hasher, std::span<const PorLevel>(&*path.sub, 1), cur, path_bits);
    }
    {
        Namespace<CS> ns(cs, "top");
        if (path.top) cur = por_levels(cs, hasher, std::span<const PorLevel>(&*path.top, 1), cur, path_bits);
    }
    std::vector<AllocatedNum> inputs = gadgets::pack_into_inputs(cs, "path", std::span<const Boolean>(path_bits));
    if (inputs.size() != 1)
        throw std::invalid_argument("PoR: " + std::to_string(path_bits.size()) + " path bits do not fit one input");
    AllocatedNum rt = root.allocated(cs, "root_value");
    gadgets::constraint::equal(cs, "enforce root is correct", cur, rt);
    if (!private_root) rt.inputize(cs, "root");
    return inputs[0];
}

}  // namespace cuzk::filecoin
