// Merkle inclusion proofs in a rank-1 constraint system, with native tree builders to produce and check paths.
//
// (1) Binary SHA-256 tree. Leaves and nodes are 32-byte digests; in the circuit a digest is 256 Booleans in the
//     SHA-256 gadget's order (big-endian: bit 0 is the most significant bit of byte 0). A parent is
//     SHA-256(left || right), the standard hash of 64 bytes: the data block, then a padding block (0x80, zeros,
//     the bit length 512) that is all constants, so its message schedule costs nothing, but its 64 rounds run on
//     the variable state from the first block and still cost constraints.
//     The path's direction bits are the challenged leaf index in little-endian bits: bit k = 1 means that at
//     level k the current node is the right child. Per bit, left = d ? sibling : node and right = d ? node :
//     sibling, each one `ch` constraint (d*(y - x) = out - x, which keeps out a bit): 512 constraints per level.
//     The computed root is enforced equal to the given root bits by packed differences (2 constraints).
//
// (2) Arity-8 Poseidon tree over Fr (poseidon.hpp, arity 8). At each level the node goes to slot pos = b0 + 2 b1 +
//     4 b2 (3 index bits, little-endian) and its 7 siblings fill the other slots in order: slot j holds sibling j
//     for j < pos and sibling j - 1 for j > pos. The insertion network (insert8 below) costs 11 constraints.
//
// Constraint counts (the caller's allocations, booleanity of index/sibling/leaf/root bits, not included):
//   SHA-256 level      512 (swap) + 25,773 (data block) + 19,036 (constant padding block, variable state) = 45,321
//                      (pinned in tests/test_standin_merkle.cpp)
//   SHA-256 root check 2
//   Poseidon-8 level   11 (insertion) + 388 (poseidon arity 8) = 399
//   Poseidon root check 1
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/circuits/standin/boolean.hpp"
#include "cuzk/circuits/standin/num.hpp"
#include "cuzk/circuits/standin/poseidon.hpp"
#include "cuzk/circuits/standin/sha256.hpp"

namespace cuzk::standin {

// ================================================================================================================
// Shared helpers
// ================================================================================================================

// n allocated bits (n booleanity constraints) holding `index` little-endian; named "<name>/bit k".
template <class CS, class N>
std::vector<Boolean> alloc_index_bits(CS& cs, N&& name, std::optional<uint64_t> index, size_t n) {
    if (n > 64) throw std::invalid_argument("alloc_index_bits: more than 64 bits");
    Namespace<CS> ns(cs, std::forward<N>(name));
    std::vector<Boolean> bits;
    bits.reserve(n);
    for (size_t k = 0; k < n; k++) {
        std::optional<bool> v;
        if (index) v = (*index >> k) & 1;
        bits.emplace_back(AllocatedBit::alloc(cs, [k] { return "bit " + std::to_string(k); }, v));
    }
    return bits;
}

// a == b for two equally long bit vectors, with one constraint per 128 bits: (sum 2^i (a_i - b_i)) * 1 = 0.
// Over bits each difference d_i is -1, 0 or 1, so the sum lies strictly between -2^128 and 2^128 (no wrap mod r)
// and is zero in Fr only if it is zero as an integer; and it is nonzero whenever some d_i is: the highest nonzero
// d_i contributes +-2^i, more than the lower ones can cancel (their magnitudes add up to at most 2^i - 1).
template <class CS, class N>
void enforce_equal_bits(CS& cs, N&& name, std::span<const Boolean> a, std::span<const Boolean> b) {
    if (a.size() != b.size()) throw std::invalid_argument("enforce_equal_bits: lengths differ");
    Namespace<CS> ns(cs, std::forward<N>(name));
    for (size_t start = 0, chunk = 0; start < a.size(); start += 128, chunk++) {
        size_t end = std::min(a.size(), start + 128);
        LC diff;
        Fr constant = Fr::zero();
        for (size_t i = start; i < end; i++) {
            a[i].add_to_lc_folding(diff, constant, pow2_table()[i - start]);
            b[i].add_to_lc_folding(diff, constant, -pow2_table()[i - start]);
        }
        if (!constant.is_zero()) diff.add(constant, Variable::one());
        cs.enforce([chunk] { return "chunk " + std::to_string(chunk); }, diff, LC(Variable::one()), LC());
    }
}

// ================================================================================================================
// (1) Binary SHA-256 tree
// ================================================================================================================

using Sha256Digest = std::array<uint8_t, 32>;

// SHA-256(left || right) natively: the 64-byte data block, then the padding block.
inline Sha256Digest sha256_node_native(const Sha256Digest& left, const Sha256Digest& right) {
    std::array<uint32_t, 8> state = kSha256Iv;
    uint8_t block[64];
    std::memcpy(block, left.data(), 32);
    std::memcpy(block + 32, right.data(), 32);
    sha256_compress_native(state, block);
    uint8_t pad[64] = {0x80};
    pad[62] = 0x02;  // bit length 512 = 0x0200, big-endian in the last 8 bytes
    sha256_compress_native(state, pad);
    Sha256Digest out;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) out[4 * i + j] = uint8_t(state[i] >> (24 - 8 * j));
    return out;
}

// The 256 bits of a digest in the gadget's order (big-endian within each byte).
inline std::array<bool, 256> sha256_digest_bits(const Sha256Digest& d) {
    std::array<bool, 256> bits;
    for (size_t i = 0; i < 256; i++) bits[i] = (d[i / 8] >> (7 - i % 8)) & 1;
    return bits;
}

// A digest as 256 allocated bits (256 booleanity constraints); named "<name>/bit i".
template <class CS, class N>
std::vector<Boolean> alloc_sha256_digest(CS& cs, N&& name, const std::optional<Sha256Digest>& d) {
    Namespace<CS> ns(cs, std::forward<N>(name));
    std::optional<std::array<bool, 256>> bits;
    if (d) bits = sha256_digest_bits(*d);
    std::vector<Boolean> out;
    out.reserve(256);
    for (size_t i = 0; i < 256; i++) {
        std::optional<bool> v;
        if (bits) v = (*bits)[i];
        out.emplace_back(AllocatedBit::alloc(cs, [i] { return "bit " + std::to_string(i); }, v));
    }
    return out;
}

struct Sha256MerklePath {
    uint64_t index = 0;                   // the leaf's position; bit k is the direction at level k
    std::vector<Sha256Digest> siblings;   // siblings[k]: the other child at level k (k = 0 next to the leaf)
};

class Sha256MerkleTree {
public:
    // leaves.size() must be a power of two (height = log2 of it; a single leaf is a tree of height 0).
    explicit Sha256MerkleTree(std::vector<Sha256Digest> leaves) {
        if (leaves.empty() || (leaves.size() & (leaves.size() - 1)))
            throw std::invalid_argument("Sha256MerkleTree: leaf count must be a power of two");
        levels_.push_back(std::move(leaves));
        while (levels_.back().size() > 1) {
            const auto& below = levels_.back();
            std::vector<Sha256Digest> up(below.size() / 2);
            for (size_t i = 0; i < up.size(); i++) up[i] = sha256_node_native(below[2 * i], below[2 * i + 1]);
            levels_.push_back(std::move(up));
        }
    }
    size_t height() const { return levels_.size() - 1; }
    const Sha256Digest& root() const { return levels_.back()[0]; }
    const Sha256Digest& leaf(uint64_t i) const { return levels_[0].at(i); }
    Sha256MerklePath path(uint64_t index) const {
        if (index >= levels_[0].size()) throw std::out_of_range("Sha256MerkleTree::path: index");
        Sha256MerklePath p{index, {}};
        for (size_t k = 0; k < height(); k++) p.siblings.push_back(levels_[k][(index >> k) ^ 1]);
        return p;
    }
    // The root a path leads to from `leaf` (a check independent of the stored levels).
    static Sha256Digest root_from_path(const Sha256Digest& leaf, const Sha256MerklePath& p) {
        Sha256Digest cur = leaf;
        for (size_t k = 0; k < p.siblings.size(); k++)
            cur = ((p.index >> k) & 1) ? sha256_node_native(p.siblings[k], cur) : sha256_node_native(cur, p.siblings[k]);
        return cur;
    }

private:
    std::vector<std::vector<Sha256Digest>> levels_;
};

// A path's witness in the circuit: siblings as allocated bits and the index's direction bits.
struct Sha256PathVars {
    std::vector<std::vector<Boolean>> siblings;  // height x 256
    std::vector<Boolean> index_bits;             // height, little-endian
};

// Allocates a path of `height` levels (values from `path` when given; a key generator passes nullopt).
// Costs height * 257 booleanity constraints.
template <class CS, class N>
Sha256PathVars alloc_sha256_path(CS& cs, N&& name, const std::optional<Sha256MerklePath>& path, size_t height) {
    if (path && path->siblings.size() != height) throw std::invalid_argument("alloc_sha256_path: height");
    Namespace<CS> ns(cs, std::forward<N>(name));
    Sha256PathVars vars;
    for (size_t k = 0; k < height; k++) {
        std::optional<Sha256Digest> s;
        if (path) s = path->siblings[k];
        vars.siblings.push_back(alloc_sha256_digest(cs, [k] { return "sibling " + std::to_string(k); }, s));
    }
    std::optional<uint64_t> index;
    if (path) index = path->index;
    vars.index_bits = alloc_index_bits(cs, "index", index, height);
    return vars;
}

// The root computed from `leaf` (256 bits) along the path. Per level k (namespace "level k"): the conditional swap
// (512 `ch` constraints, namespace "swap") and SHA-256 of left || right (namespace "hash").
template <class CS, class N>
std::vector<Boolean> sha256_merkle_root(CS& cs, N&& name, std::span<const Boolean> leaf,
                                        std::span<const std::vector<Boolean>> siblings,
                                        std::span<const Boolean> index_bits) {
    if (leaf.size() != 256) throw std::invalid_argument("sha256_merkle_root: leaf must be 256 bits");
    if (siblings.size() != index_bits.size()) throw std::invalid_argument("sha256_merkle_root: path length");
    Namespace<CS> ns(cs, std::forward<N>(name));
    std::vector<Boolean> cur(leaf.begin(), leaf.end());
    for (size_t k = 0; k < siblings.size(); k++) {
        if (siblings[k].size() != 256) throw std::invalid_argument("sha256_merkle_root: sibling must be 256 bits");
        Namespace<CS> lns(cs, [k] { return "level " + std::to_string(k); });
        const Boolean& d = index_bits[k];
        std::vector<Boolean> input(512);
        {
            Namespace<CS> sns(cs, "swap");
            for (size_t i = 0; i < 256; i++) {
                input[i] = Boolean::ch(cs, [i] { return "left " + std::to_string(i); }, d, siblings[k][i], cur[i]);
                input[256 + i] =
                    Boolean::ch(cs, [i] { return "right " + std::to_string(i); }, d, cur[i], siblings[k][i]);
            }
        }
        Namespace<CS> hns(cs, "hash");
        cur = sha256(cs, std::span<const Boolean>(input));
    }
    return cur;
}

// Enforces that `leaf` lies at the path's index under `root` (namespace "<name>/root": the 2 equality constraints).
template <class CS, class N>
void sha256_merkle_verify(CS& cs, N&& name, std::span<const Boolean> leaf, const Sha256PathVars& path,
                          std::span<const Boolean> root) {
    Namespace<CS> ns(cs, std::forward<N>(name));
    std::vector<Boolean> computed =
        sha256_merkle_root(cs, "path", leaf, std::span<const std::vector<Boolean>>(path.siblings),
                           std::span<const Boolean>(path.index_bits));
    enforce_equal_bits(cs, "root", std::span<const Boolean>(computed), root);
}

// ================================================================================================================
// (2) Arity-8 Poseidon tree
// ================================================================================================================

inline constexpr size_t kMerkleArity = 8;

// The 8 hash inputs with `node` at slot pos and the siblings in order around it.
inline std::array<Fr, 8> poseidon8_insert_native(const Fr& node, std::span<const Fr, 7> siblings, unsigned pos) {
    if (pos >= 8) throw std::invalid_argument("poseidon8_insert_native: position");
    std::array<Fr, 8> slots;
    for (unsigned j = 0; j < 8; j++) slots[j] = j < pos ? siblings[j] : j == pos ? node : siblings[j - 1];
    return slots;
}

struct Poseidon8MerklePath {
    uint64_t index = 0;                       // base-8 digit k is the slot at level k
    std::vector<std::array<Fr, 7>> siblings;  // siblings[k]: the other 7 children at level k, in slot order
};

class Poseidon8MerkleTree {
public:
    // leaves.size() must be a power of 8.
    explicit Poseidon8MerkleTree(std::vector<Fr> leaves) {
        size_t n = leaves.size();
        while (n > 1 && n % 8 == 0) n /= 8;
        if (leaves.empty() || n != 1) throw std::invalid_argument("Poseidon8MerkleTree: leaf count must be a power of 8");
        levels_.push_back(std::move(leaves));
        while (levels_.back().size() > 1) {
            const auto& below = levels_.back();
            std::vector<Fr> up(below.size() / 8);
            for (size_t i = 0; i < up.size(); i++) up[i] = poseidon_hash(std::span<const Fr>(below.data() + 8 * i, 8));
            levels_.push_back(std::move(up));
        }
    }
    size_t height() const { return levels_.size() - 1; }
    const Fr& root() const { return levels_.back()[0]; }
    const Fr& leaf(uint64_t i) const { return levels_[0].at(i); }
    Poseidon8MerklePath path(uint64_t index) const {
        if (index >= levels_[0].size()) throw std::out_of_range("Poseidon8MerkleTree::path: index");
        Poseidon8MerklePath p{index, {}};
        uint64_t i = index;
        for (size_t k = 0; k < height(); k++, i /= 8) {
            std::array<Fr, 7> s;
            uint64_t base = i & ~uint64_t{7};
            for (unsigned j = 0, m = 0; j < 8; j++)
                if (base + j != i) s[m++] = levels_[k][base + j];
            p.siblings.push_back(s);
        }
        return p;
    }
    static Fr root_from_path(const Fr& leaf, const Poseidon8MerklePath& p) {
        Fr cur = leaf;
        for (size_t k = 0; k < p.siblings.size(); k++) {
            auto slots = poseidon8_insert_native(cur, std::span<const Fr, 7>(p.siblings[k]), (p.index >> (3 * k)) & 7);
            cur = poseidon_hash(std::span<const Fr>(slots));
        }
        return cur;
    }

private:
    std::vector<std::vector<Fr>> levels_;
};

struct Poseidon8PathVars {
    std::vector<std::array<AllocatedNum, 7>> siblings;  // height x 7
    std::vector<Boolean> index_bits;                    // 3 * height, little-endian
};

// Allocates a path of `height` levels (values from `path` when given). Costs 3 * height booleanity constraints.
template <class CS, class N>
Poseidon8PathVars alloc_poseidon8_path(CS& cs, N&& name, const std::optional<Poseidon8MerklePath>& path,
                                       size_t height) {
    if (path && path->siblings.size() != height) throw std::invalid_argument("alloc_poseidon8_path: height");
    Namespace<CS> ns(cs, std::forward<N>(name));
    Poseidon8PathVars vars;
    for (size_t k = 0; k < height; k++) {
        std::array<AllocatedNum, 7> s;
        for (size_t j = 0; j < 7; j++) {
            std::optional<Fr> v;
            if (path) v = path->siblings[k][j];
            s[j] = AllocatedNum::alloc(cs, [k, j] { return "sibling " + std::to_string(k) + "." + std::to_string(j); }, v);
        }
        vars.siblings.push_back(s);
    }
    std::optional<uint64_t> index;
    if (path) index = path->index;
    vars.index_bits = alloc_index_bits(cs, "index", index, 3 * height);
    return vars;
}

// The 8 slots of one level as linear combinations (and their values, when the system needs values).
struct Poseidon8Slots {
    std::array<LC, 8> lc;
    std::optional<std::array<Fr, 8>> values;
};

// Places `node` at slot pos = b0 + 2 b1 + 4 b2 among `siblings`, with 11 constraints (bits must be constrained).
//
// Write G_i = [pos > i] (i = 0..6; a "thermometer" code: the one-hot selector of slot j is G_{j-1} - G_j, with
// G_{-1} = 1 and G_7 = 0). Slot j holds sibling j while pos > j, the node when pos = j, sibling j - 1 when
// pos < j, so
//     slot_j = sib_{j-1} + G_{j-1} (node - sib_{j-1}) + G_j (sib_j - node)
//            = sib_{j-1} - R_{j-1} + R_j,           with R_i = G_i (sib_i - node),
// where the undefined ends read slot_0 = node + R_0 and slot_7 = sib_6 - R_6. Each R_i is one constraint
// G_i * (sib_i - node) = R_i (7), and every slot is then a free linear combination. The G_i are linear in the
// bits and four of their products:
//     G_0 = b0 + b1 + b2 - b0b1 - b0b2 - b1b2 + b0b1b2   (pos >= 1: not all bits zero)
//     G_1 = b1 + b2 - b1b2                               (pos >= 2)
//     G_2 = b2 + b0b1 - b0b1b2                           (pos >= 3)
//     G_3 = b2                                           (pos >= 4)
//     G_4 = b0b2 + b1b2 - b0b1b2                         (pos >= 5)
//     G_5 = b1b2                                         (pos >= 6)
//     G_6 = b0b1b2                                       (pos  = 7)
// b0b1, b0b2, b1b2 and (b0b1)b2 are 4 AND constraints, so the insertion costs 4 + 7 = 11. (A one-hot selector
// times the node per slot plus a shift per sibling would be 4 + 7 + 7 = 18; the thermometer form pairs them.)
template <class CS, class N>
Poseidon8Slots poseidon8_insert(CS& cs, N&& name, const AllocatedNum& node, std::span<const AllocatedNum, 7> sib,
                                std::span<const Boolean, 3> bits) {
    Namespace<CS> ns(cs, std::forward<N>(name));
    const Boolean &b0 = bits[0], &b1 = bits[1], &b2 = bits[2];
    Boolean p01 = Boolean::and_(cs, "b0 and b1", b0, b1);
    Boolean p02 = Boolean::and_(cs, "b0 and b2", b0, b2);
    Boolean p12 = Boolean::and_(cs, "b1 and b2", b1, b2);
    Boolean p012 = Boolean::and_(cs, "b0b1 and b2", p01, b2);
    const Fr one = Fr::one(), minus = -Fr::one();
    auto lc_of = [](std::initializer_list<std::pair<const Boolean*, Fr>> terms) {
        LC lc;
        for (auto& [b, c] : terms) b->add_to_lc(lc, c);
        return lc;
    };
    std::array<LC, 7> g = {
        lc_of({{&b0, one}, {&b1, one}, {&b2, one}, {&p01, minus}, {&p02, minus}, {&p12, minus}, {&p012, one}}),
        lc_of({{&b1, one}, {&b2, one}, {&p12, minus}}),
        lc_of({{&b2, one}, {&p01, one}, {&p012, minus}}),
        lc_of({{&b2, one}}),
        lc_of({{&p02, one}, {&p12, one}, {&p012, minus}}),
        lc_of({{&p12, one}}),
        lc_of({{&p012, one}}),
    };

    std::optional<unsigned> pos;
    if (auto v0 = b0.value(), v1 = b1.value(), v2 = b2.value(); v0 && v1 && v2) pos = *v0 + 2 * *v1 + 4 * *v2;
    bool have_values = pos && node.value().has_value();
    for (const AllocatedNum& s : sib) have_values = have_values && s.value().has_value();

    std::array<Variable, 7> r;
    for (size_t i = 0; i < 7; i++) {
        std::optional<Fr> v;
        if (have_values) v = *pos > i ? *sib[i].value() - *node.value() : Fr::zero();
        AllocatedNum ri = AllocatedNum::alloc(cs, [i] { return "R " + std::to_string(i); }, v);
        cs.enforce([i] { return "G " + std::to_string(i) + " * (sibling - node)"; }, g[i], sib[i].as_lc() - node.variable(),
                   ri.as_lc());
        r[i] = ri.variable();
    }

    Poseidon8Slots out;
    out.lc[0] = node.as_lc() + r[0];
    for (size_t j = 1; j < 7; j++) out.lc[j] = (sib[j - 1].as_lc() - r[j - 1]) + r[j];
    out.lc[7] = sib[6].as_lc() - r[6];
    if (have_values) {
        std::array<Fr, 7> s;
        for (size_t i = 0; i < 7; i++) s[i] = *sib[i].value();
        out.values = poseidon8_insert_native(*node.value(), std::span<const Fr, 7>(s), *pos);
    }
    return out;
}

// The root computed from `leaf` along the path: per level k (namespace "level k") the insertion (namespace
// "insert", 11 constraints) and poseidon_hash_gadget of the 8 slots (388 constraints).
template <class CS, class N>
AllocatedNum poseidon8_merkle_root(CS& cs, N&& name, const AllocatedNum& leaf,
                                   std::span<const std::array<AllocatedNum, 7>> siblings,
                                   std::span<const Boolean> index_bits) {
    if (index_bits.size() != 3 * siblings.size()) throw std::invalid_argument("poseidon8_merkle_root: path length");
    Namespace<CS> ns(cs, std::forward<N>(name));
    AllocatedNum cur = leaf;
    for (size_t k = 0; k < siblings.size(); k++) {
        Namespace<CS> lns(cs, [k] { return "level " + std::to_string(k); });
        Poseidon8Slots slots = poseidon8_insert(cs, "insert", cur, std::span<const AllocatedNum, 7>(siblings[k]),
                                                index_bits.subspan(3 * k).template first<3>());
        Variable h = poseidon_hash_gadget(cs, std::span<const LC>(slots.lc));
        std::optional<Fr> v;
        if (slots.values) v = poseidon_hash(std::span<const Fr>(*slots.values));
        cur = AllocatedNum(h, v);
    }
    return cur;
}

// Enforces that `leaf` lies at the path's index under `root` (the equality constraint is "<name>/root").
template <class CS, class N>
void poseidon8_merkle_verify(CS& cs, N&& name, const AllocatedNum& leaf, const Poseidon8PathVars& path,
                             const AllocatedNum& root) {
    Namespace<CS> ns(cs, std::forward<N>(name));
    AllocatedNum computed = poseidon8_merkle_root(cs, "path", leaf,
                                                  std::span<const std::array<AllocatedNum, 7>>(path.siblings),
                                                  std::span<const Boolean>(path.index_bits));
    AllocatedNum::enforce_equal(cs, "root", computed, root);
}

}  // namespace cuzk::standin
