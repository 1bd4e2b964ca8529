#include "cuzk/filecoin/tree.hpp"

#include <bit>
#include <stdexcept>
#include <string>
#include <utility>

#include "cuzk/gadgets/poseidon.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::filecoin {

namespace {

void require_binary_leaves(size_t n, const char* who) {
    if (n < 2 || !std::has_single_bit(n))
        throw std::invalid_argument(std::string(who) +
                                    ": a binary tree needs a power-of-two number of leaves >= 2, got " +
                                    std::to_string(n));
}

// The root of `leaves` through rows of n/2, n/4, ... alternating between two scratch rows, every row with the
// batched (two-lane) node hash; scratch is reused across calls on one thread.
Domain reduce_serial(std::span<const Domain> leaves, std::vector<Domain>& scratch) {
    size_t n = leaves.size();
    if (n == 1) return leaves[0];
    scratch.resize(n / 2 + n / 4);
    std::span<Domain> a = std::span(scratch).first(n / 2), b = std::span(scratch).subspan(n / 2);
    sha256_nodes_serial(leaves, a);
    for (size_t m = n / 2; m > 1; m /= 2) {
        sha256_nodes_serial(a.first(m), b.first(m / 2));
        std::swap(a, b);
    }
    return a[0];
}

}  // namespace

// ---- binary SHA-256 tree ------------------------------------------------------------------------------------

BinaryTree::BinaryTree(std::span<const Domain> leaves) {
    require_binary_leaves(leaves.size(), "BinaryTree");
    rows_.emplace_back(leaves.begin(), leaves.end());
    while (rows_.back().size() > 1) {
        const auto& below = rows_.back();
        std::vector<Domain> above(below.size() / 2);
        sha256_nodes(below, above);
        rows_.push_back(std::move(above));
    }
}

std::span<const Domain> BinaryTree::row(unsigned level) const {
    if (level > height())
        throw std::invalid_argument("BinaryTree::row: level " + std::to_string(level) + " above the root (height " +
                                    std::to_string(height()) + ")");
    return rows_[level];
}

BinaryPath BinaryTree::path(uint64_t leaf_index) const {
    if (leaf_index >= leaf_count())
        throw std::invalid_argument("BinaryTree::path: leaf " + std::to_string(leaf_index) + " of a tree with " +
                                    std::to_string(leaf_count()) + " leaves");
    BinaryPath p;
    p.index = leaf_index;
    uint64_t pos = leaf_index;
    for (unsigned l = 0; l < height(); l++, pos >>= 1) p.siblings.push_back(rows_[l][pos ^ 1]);
    return p;
}

Domain binary_tree_root(std::span<const Domain> leaves) {
    require_binary_leaves(leaves.size(), "binary_tree_root");
    // Subtrees of 2^15 leaves (1 MiB) are reduced one per task with a private 768 KiB scratch, so the rows a task
    // works on stay in L2/L3; their roots then form a small tree of their own.
    constexpr size_t kSubtree = size_t(1) << 15;
    if (leaves.size() <= kSubtree || num_threads() == 1) {
        std::vector<Domain> scratch;
        return reduce_serial(leaves, scratch);
    }
    size_t subtrees = leaves.size() / kSubtree;
    std::vector<Domain> roots(subtrees);
    parallel_for(
        subtrees,
        [&](size_t b, size_t e) {
            std::vector<Domain> scratch;
            for (size_t s = b; s < e; s++) roots[s] = reduce_serial(leaves.subspan(s * kSubtree, kSubtree), scratch);
        },
        subtrees);
    std::vector<Domain> scratch;
    return reduce_serial(roots, scratch);
}

Domain binary_path_root(const Domain& leaf, const BinaryPath& path) {
    Domain cur = leaf;
    for (size_t l = 0; l < path.siblings.size(); l++) {
        bool right = (path.index >> l) & 1;
        cur = right ? sha256_node(path.siblings[l], cur) : sha256_node(cur, path.siblings[l]);
    }
    return cur;
}

bool verify_binary_path(const Domain& root, const Domain& leaf, const BinaryPath& path) {
    // An index with bits above the path's height names a leaf outside the tree (the circuit packs exactly
    // height bits), so it does not prove that leaf even if the hashes agree.
    if (path.siblings.size() < 64 && (path.index >> path.siblings.size()) != 0) return false;
    return binary_path_root(leaf, path) == root;
}

// ---- all-zero trees -----------------------------------------------------------------------------------------

Domain zero_subtree_root(unsigned height) {
    Domain z{};
    for (unsigned h = 0; h < height; h++) z = sha256_node(z, z);
    return z;
}

Domain zero_comm_d(uint64_t padded_size) {
    if (padded_size < 2 * kNodeBytes || !std::has_single_bit(padded_size))
        throw std::invalid_argument("zero_comm_d: padded size must be a power of two >= 64 bytes, got " +
                                    std::to_string(padded_size));
    // log2(padded_size / 32) levels above the 32-byte zero leaves.
    return zero_subtree_root((unsigned)std::countr_zero(padded_size) - 5);
}

// ---- Poseidon trees -----------------------------------------------------------------------------------------

namespace {

bool valid_arity(uint32_t a) { return a >= 2 && a <= 16 && std::has_single_bit(a); }

std::string shape_text(TreeShape s) {
    return std::to_string(s.base) + "-" + std::to_string(s.sub) + "-" + std::to_string(s.top);
}

}  // namespace

std::vector<uint32_t> poseidon_tree_arities(TreeShape shape, uint64_t leaves) {
    auto fail = [&](const std::string& why) {
        throw std::invalid_argument("Poseidon tree " + shape_text(shape) + " over " + std::to_string(leaves) +
                                    " leaves: " + why);
    };
    if (!valid_arity(shape.base)) fail("the base arity must be 2, 4, 8 or 16");
    if (shape.sub != 0 && !valid_arity(shape.sub)) fail("the sub arity must be 0 (none), 2, 4, 8 or 16");
    if (shape.top != 0 && !valid_arity(shape.top)) fail("the top arity must be 0 (none), 2, 4, 8 or 16");
    if (shape.top != 0 && shape.sub == 0) fail("a top level needs a sub level");
    uint64_t trees = uint64_t(shape.sub ? shape.sub : 1) * (shape.top ? shape.top : 1);
    if (leaves == 0 || leaves % trees != 0)
        fail("the leaves do not split into " + std::to_string(trees) + " base trees");
    uint64_t base_leaves = leaves / trees;
    std::vector<uint32_t> arities;
    for (uint64_t n = base_leaves; n > 1; n /= shape.base) {
        if (n % shape.base != 0) break;
        arities.push_back(shape.base);
    }
    uint64_t check = 1;
    for (size_t i = 0; i < arities.size(); i++) check *= shape.base;
    if (arities.empty() || check != base_leaves)
        fail("each base tree must have base^k leaves with k >= 1, not " + std::to_string(base_leaves));
    if (shape.sub) arities.push_back(shape.sub);
    if (shape.top) arities.push_back(shape.top);
    return arities;
}

uint64_t PoseidonPath::leaf_index() const {
    uint64_t index = 0, scale = 1;
    for (const auto& lv : levels) {
        index += lv.index * scale;
        scale *= lv.arity;
    }
    return index;
}

std::vector<bool> PoseidonPath::index_bits() const {
    std::vector<bool> bits;
    for (const auto& lv : levels) {
        unsigned width = (unsigned)std::countr_zero(lv.arity);
        for (unsigned b = 0; b < width; b++) bits.push_back((lv.index >> b) & 1);
    }
    return bits;
}

PoseidonTree::PoseidonTree(TreeShape shape, std::span<const Fr> leaves)
    : shape_(shape), arities_(poseidon_tree_arities(shape, leaves.size())) {
    rows_.reserve(arities_.size() + 1);
    rows_.emplace_back(leaves.begin(), leaves.end());
    for (uint32_t a : arities_) {
        const auto& below = rows_.back();
        std::vector<Fr> above(below.size() / a);
        gadgets::poseidon_hash_many(a, below, above);
        rows_.push_back(std::move(above));
    }
}

std::span<const Fr> PoseidonTree::row(size_t level) const {
    if (level >= rows_.size())
        throw std::invalid_argument("PoseidonTree::row: level " + std::to_string(level) + " of " +
                                    std::to_string(rows_.size()) + " rows");
    return rows_[level];
}

PoseidonPath PoseidonTree::path(uint64_t leaf_index) const {
    if (leaf_index >= leaf_count())
        throw std::invalid_argument("PoseidonTree::path: leaf " + std::to_string(leaf_index) + " of a tree with " +
                                    std::to_string(leaf_count()) + " leaves");
    PoseidonPath p;
    uint64_t pos = leaf_index;
    for (size_t l = 0; l < arities_.size(); l++) {
        uint32_t a = arities_[l];
        PoseidonPathLevel lv;
        lv.arity = a;
        lv.index = (uint32_t)(pos % a);
        uint64_t first = pos - lv.index;
        for (uint32_t j = 0; j < a; j++)
            if (j != lv.index) lv.siblings.push_back(rows_[l][first + j]);
        p.levels.push_back(std::move(lv));
        pos /= a;
    }
    return p;
}

Fr poseidon_tree_root(TreeShape shape, std::span<const Fr> leaves) {
    auto arities = poseidon_tree_arities(shape, leaves.size());
    // Alternate between two scratch rows; the first level reads the caller's leaves directly.
    std::vector<Fr> a(leaves.size() / arities[0]), b;
    gadgets::poseidon_hash_many(arities[0], leaves, a);
    for (size_t l = 1; l < arities.size(); l++) {
        b.resize(a.size() / arities[l]);
        gadgets::poseidon_hash_many(arities[l], a, b);
        std::swap(a, b);
    }
    return a.front();
}

Fr poseidon_path_root(const Fr& leaf, const PoseidonPath& path) {
    Fr cur = leaf;
    std::vector<Fr> children;
    for (const auto& lv : path.levels) {
        if (!valid_arity(lv.arity) || lv.index >= lv.arity || lv.siblings.size() + 1 != lv.arity)
            throw std::invalid_argument("poseidon_path_root: a path level of arity " + std::to_string(lv.arity) +
                                        " with index " + std::to_string(lv.index) + " and " +
                                        std::to_string(lv.siblings.size()) + " siblings");
        children.assign(lv.siblings.begin(), lv.siblings.end());
        children.insert(children.begin() + lv.index, cur);
        cur = gadgets::poseidon_hash(children);
    }
    return cur;
}

bool verify_poseidon_path(const Fr& root, const Fr& leaf, const PoseidonPath& path) {
    for (const auto& lv : path.levels)
        if (!valid_arity(lv.arity) || lv.index >= lv.arity || lv.siblings.size() + 1 != lv.arity) return false;
    return poseidon_path_root(leaf, path) == root;
}

Fr comm_r(const Fr& comm_c, const Fr& comm_r_last) {
    const Fr in[2] = {comm_c, comm_r_last};
    return gadgets::poseidon_hash(std::span<const Fr>(in));
}

}  // namespace cuzk::filecoin
