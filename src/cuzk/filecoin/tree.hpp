// Filecoin's native Merkle trees (rust-fil-proofs storage-proofs-core merkle/, merkletree 0.23):
//
// - Tree D: a binary SHA-256 tree over the sector's 32-byte data nodes; node = trim(SHA-256(left ‖ right))
//   (hashers.hpp). Its root is comm_d. An all-zero sector has the comm_d of zero_comm_d(sector size).
// - Tree R / tree C: Poseidon trees over Fr leaves in a base-sub-top shape. The leaves are split into
//   sub·top contiguous base trees (8-ary: each 8^k leaves); a sub level of arity `sub` hashes each run of `sub`
//   base roots, and a top level of arity `top` hashes the sub roots. So 32 GiB (8-8-0) is 8 base trees of 8^9
//   leaves under one 8-ary node; 64 GiB (8-8-2) adds a 2-ary root over two such. Every node is the neptune
//   MerkleTree Poseidon of its children (arity = number of children, domain tag 2^arity − 1).
// - comm_r = Poseidon-2(comm_c, comm_r_last).
//
// Paths are listed from the leaf upwards, one element per level, as rust-fil-proofs' MerkleProof::path() gives
// them: the arity − 1 sibling hashes in position order without the current node, and the current node's position
// among its siblings (`index`). The circuit's path bits are each level's index as log2(arity) little-endian bits,
// level after level; packed, they are the leaf index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "cuzk/ff/fr.hpp"
#include "cuzk/filecoin/hashers.hpp"
#include "cuzk/filecoin/proof_types.hpp"

namespace cuzk::filecoin {

// ---- binary SHA-256 tree (tree D) ---------------------------------------------------------------------------

struct BinaryPath {
    std::vector<Domain> siblings;  // siblings[l]: the other child at level l (l = 0: the leaf level)
    uint64_t index = 0;            // the leaf index; bit l = 1 when the node at level l is a right child
};

// Every row of the tree, leaves included (2N − 1 nodes for N leaves). N must be a power of two ≥ 2.
class BinaryTree {
public:
    explicit BinaryTree(std::span<const Domain> leaves);

    size_t leaf_count() const { return rows_.front().size(); }
    unsigned height() const { return (unsigned)rows_.size() - 1; }  // levels above the leaves
    const Domain& root() const { return rows_.back().front(); }
    std::span<const Domain> row(unsigned level) const;  // 0 = leaves, height() = root
    BinaryPath path(uint64_t leaf_index) const;

private:
    std::vector<std::vector<Domain>> rows_;
};

// The root alone: subtrees of 2^15 leaves reduced one per task (768 KiB of scratch per thread), then their roots;
// beyond the leaves it holds one node per 2^15 leaves instead of BinaryTree's N.
Domain binary_tree_root(std::span<const Domain> leaves);

// The root a path leads to from `leaf`; false from verify when the index has bits above the path's height.
Domain binary_path_root(const Domain& leaf, const BinaryPath& path);
bool verify_binary_path(const Domain& root, const Domain& leaf, const BinaryPath& path);

// ---- all-zero trees -----------------------------------------------------------------------------------------

// The root of an all-zero binary tree with 2^height leaves (height 0: the zero node itself). Each level is one
// hash of the level below with itself, so any height costs `height` hashes and no memory.
Domain zero_subtree_root(unsigned height);
// comm_d of an all-zero piece or sector of `padded_size` bytes: a power of two from 64 B (two zero nodes) to
// 2^63 B. go-commp-utils' zerocomm table starts at 128 B and ends at 2 TiB.
Domain zero_comm_d(uint64_t padded_size);

// ---- Poseidon trees (tree R, tree C) ------------------------------------------------------------------------

// The arity of each level from the leaves up: base (repeated), then sub, then top when present. Checks that
// `leaves` fits the shape: leaves = base^k · sub · top with k ≥ 1 (zero arities count as 1); base, sub and top
// must be powers of two from 2 to 16 (the arities filecoin-hashers' multi_node accepts), top only with a sub
// level. std::invalid_argument otherwise.
std::vector<uint32_t> poseidon_tree_arities(TreeShape shape, uint64_t leaves);

struct PoseidonPathLevel {
    uint32_t arity = 0;
    uint32_t index = 0;         // position of the current node among its `arity` siblings
    std::vector<Fr> siblings;   // the arity − 1 others, in position order
};

struct PoseidonPath {
    std::vector<PoseidonPathLevel> levels;  // leaf level first; base levels, then sub, then top

    // The leaf index the path proves (Σ index_l · Π arity_{<l}), as rust-fil-proofs' path_index().
    uint64_t leaf_index() const;
    // The circuit's path bits: each level's index as log2(arity) little-endian bits, level after level.
    std::vector<bool> index_bits() const;
};

// Every row of the tree (leaves included), built level by level with the batched Poseidon.
class PoseidonTree {
public:
    PoseidonTree(TreeShape shape, std::span<const Fr> leaves);

    TreeShape shape() const { return shape_; }
    size_t leaf_count() const { return rows_.front().size(); }
    const Fr& root() const { return rows_.back().front(); }
    // The arity of each level (arities()[l] children per node of row l + 1).
    std::span<const uint32_t> arities() const { return arities_; }
    // Row l across the whole tree: for the base levels the base trees' rows side by side; row base_height() holds
    // the base roots, the next the sub roots, the last the root.
    std::span<const Fr> row(size_t level) const;
    size_t row_count() const { return rows_.size(); }
    PoseidonPath path(uint64_t leaf_index) const;

private:
    TreeShape shape_;
    std::vector<uint32_t> arities_;
    std::vector<std::vector<Fr>> rows_;
};

// The root alone (two scratch rows: N/8 and N/64 elements for a base arity of 8).
Fr poseidon_tree_root(TreeShape shape, std::span<const Fr> leaves);

// The root a path leads to from `leaf` (each level hashed with its own arity).
Fr poseidon_path_root(const Fr& leaf, const PoseidonPath& path);
// verify also requires each level's shape to be sound (index < arity, arity − 1 siblings).
bool verify_poseidon_path(const Fr& root, const Fr& leaf, const PoseidonPath& path);

// comm_r = Poseidon-2 MerkleTree(comm_c, comm_r_last) (filecoin-hashers PoseidonFunction::hash2).
Fr comm_r(const Fr& comm_c, const Fr& comm_r_last);

}  // namespace cuzk::filecoin
