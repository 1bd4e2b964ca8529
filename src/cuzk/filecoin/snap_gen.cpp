#include "cuzk/filecoin/snap_gen.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <stdexcept>

#include "cuzk/filecoin/challenges_snap.hpp"
#include "cuzk/filecoin/hashers.hpp"
#include "cuzk/filecoin/tree.hpp"
#include "cuzk/gadgets/poseidon.hpp"

namespace cuzk::filecoin {
namespace {

constexpr uint64_t kMaxPeriod = 64;  // the patterns' length in nodes (a whole 2 KiB sector)

Fr random_fr(std::mt19937_64& rng) {
    Domain d;
    for (size_t i = 0; i < 32; i += 8) {
        const uint64_t v = rng();
        std::memcpy(d.data() + i, &v, 8);
    }
    trim_to_fr32(d);  // < 2^254 < r
    return fr_from_domain(d);
}

Domain to_domain(const Fr& x) { return domain_from_fr(x); }
Domain to_domain(const Domain& d) { return d; }

// A tree over leaves leaf(i) = leaf_fn(i mod period, i >> chunk_bits), every node computed once per distinct value
// class: below the chunk size a node's subtree lies in one chunk, so (level, chunk, first leaf mod period) fixes
// it; above, (level, index). Paths and rows come from the same memo.
template <class Node>
class PeriodicTree {
  public:
    using LeafFn = std::function<Node(uint64_t phase, uint64_t chunk)>;
    using HashFn = std::function<Node(std::span<const Node>)>;

    PeriodicTree(std::vector<uint32_t> arities, uint64_t period, unsigned chunk_bits, LeafFn leaf, HashFn hash)
        : arities_(std::move(arities)), period_(period), chunk_bits_(chunk_bits), leaf_(std::move(leaf)),
          hash_(std::move(hash)) {
        span_.push_back(1);
        for (uint32_t a : arities_) span_.push_back(span_.back() * a);
    }

    size_t height() const { return arities_.size(); }
    Node root() { return node(height(), 0); }

    Node node(size_t level, uint64_t j) {
        const uint64_t first = j * span_[level];
        if (level == 0) return leaf_(first % period_, first >> chunk_bits_);
        const std::array<uint64_t, 3> key =
            span_[level] <= (uint64_t(1) << chunk_bits_)
                ? std::array<uint64_t, 3>{level * 2, first >> chunk_bits_, first % period_}
                : std::array<uint64_t, 3>{level * 2 + 1, j, 0};
        if (auto it = memo_.find(key); it != memo_.end()) return it->second;
        const uint32_t a = arities_[level - 1];
        std::vector<Node> kids(a);
        for (uint32_t t = 0; t < a; t++) kids[t] = node(level - 1, j * a + t);
        return memo_.emplace(key, hash_(kids)).first->second;
    }

    // merkle/proof.rs's elements from the leaf up: the siblings in position order and the node's position.
    std::vector<MerklePathElement> path(uint64_t leaf) {
        std::vector<MerklePathElement> out;
        uint64_t i = leaf;
        for (size_t l = 0; l < height(); l++) {
            const uint64_t a = arities_[l];
            MerklePathElement e;
            e.index = i % a;
            for (uint64_t t = 0; t < a; t++)
                if (t != e.index) e.hashes.push_back(to_domain(node(l, i - i % a + t)));
            out.push_back(std::move(e));
            i /= a;
        }
        return out;
    }

  private:
    std::vector<uint32_t> arities_;
    std::vector<uint64_t> span_;  // leaves under one node of each level
    uint64_t period_;
    unsigned chunk_bits_;
    LeafFn leaf_;
    HashFn hash_;
    std::map<std::array<uint64_t, 3>, Node> memo_;
};

Fr poseidon_node(std::span<const Fr> kids) { return gadgets::poseidon_hash(kids); }
Domain sha256_pair(std::span<const Domain> kids) { return sha256_node(kids[0], kids[1]); }

// A tree-R-shaped proof: Single, Sub or Top by the shape (as upstream's LCTree proofs).
MerkleProof tree_r_proof(PeriodicTree<Fr>& tree, TreeShape shape, uint64_t leaf) {
    return merkle_proof_of_levels(shape, tree.path(leaf), domain_from_fr(tree.root()),
                                  domain_from_fr(tree.node(0, leaf)));
}

MerkleProof binary_proof(PeriodicTree<Domain>& tree, uint64_t leaf) {
    MerkleProof p;
    p.kind = MerkleProofKind::Single;
    p.base = tree.path(leaf);
    p.root = tree.root();
    p.leaf = tree.node(0, leaf);
    return p;
}

}  // namespace

GeneratedSnap generate_snap_vanilla(const SnapShape& shape, UpdateCircuit variant, uint32_t h, uint64_t rng_seed) {
    if (std::find(shape.hs.begin(), shape.hs.end(), h) == shape.hs.end())
        throw std::invalid_argument("generate_snap_vanilla: h = " + std::to_string(h) + " is not one of the sector's hs");
    const bool sha = variant == UpdateCircuit::Sha256;
    const uint64_t nodes = shape.sector_nodes;
    const unsigned bits = shape.challenge_bit_len;
    const uint64_t period = std::min(nodes, kMaxPeriod);

    std::mt19937_64 rng(rng_seed ^ 0x736e617067656e00ull);
    std::vector<Fr> old_replica(period), data(period);
    for (Fr& x : old_replica) x = random_fr(rng);
    for (Fr& x : data) x = random_fr(rng);
    const Fr comm_c = random_fr(rng);

    GeneratedSnap g;
    g.shape = shape;
    g.variant = variant;
    g.h = h;
    const std::vector<uint32_t> r_arities = poseidon_tree_arities(shape.tree_r, nodes);
    PeriodicTree<Fr> tree_r_old(r_arities, period, bits, [&](uint64_t p, uint64_t) { return old_replica[p]; },
                                poseidon_node);
    g.comm_r_old = comm_r(comm_c, tree_r_old.root());

    std::optional<PeriodicTree<Domain>> tree_d_sha;
    std::optional<PeriodicTree<Fr>> tree_d_poseidon;
    if (sha) {
        tree_d_sha.emplace(std::vector<uint32_t>(bits, 2), period, bits,
                           [&](uint64_t p, uint64_t) { return domain_from_fr(data[p]); }, sha256_pair);
        g.comm_d_new = fr_from_domain(tree_d_sha->root());
    } else {
        tree_d_poseidon.emplace(r_arities, period, bits, [&](uint64_t p, uint64_t) { return data[p]; }, poseidon_node);
        g.comm_d_new = tree_d_poseidon->root();
    }

    const std::vector<Fr> rhos = snap_rho_table(snap_phi(g.comm_d_new, g.comm_r_old), h);
    PeriodicTree<Fr> tree_r_new(
        r_arities, period, bits - h, [&](uint64_t p, uint64_t chunk) { return old_replica[p] + data[p] * rhos[chunk]; },
        poseidon_node);
    g.comm_r_new = comm_r(comm_c, tree_r_new.root());

    const uint32_t partitions = sha ? shape.partition_count : 1;
    const size_t apex_height = bits - shape.partition_bit_len - shape.apex_leaf_bit_len;
    for (uint32_t k = 0; k < partitions; k++) {
        SnapPartitionProof p;
        p.comm_c = domain_from_fr(comm_c);
        if (sha)
            for (uint64_t i = 0; i < shape.apex_leaf_count; i++)
                p.apex_leafs.push_back(tree_d_sha->node(apex_height, uint64_t(k) * shape.apex_leaf_count + i));
        const std::vector<uint32_t> challenges =
            sha ? snap_challenges(shape, g.comm_r_new, k) : snap_challenges_poseidon(shape, g.comm_r_new);
        for (uint32_t c : challenges) {
            SnapChallengeProof cp;
            cp.proof_r_old = tree_r_proof(tree_r_old, shape.tree_r, c);
            cp.proof_d_new = sha ? binary_proof(*tree_d_sha, c) : tree_r_proof(*tree_d_poseidon, shape.tree_r, c);
            cp.proof_r_new = tree_r_proof(tree_r_new, shape.tree_r, c);
            p.challenge_proofs.push_back(std::move(cp));
        }
        g.partitions.push_back(std::move(p));
    }
    return g;
}

GeneratedSnap generate_snap_vanilla(RegisteredUpdateProof proof, UpdateCircuit variant, uint64_t rng_seed) {
    const SnapShape shape = SnapShape::from_sector_size(sector_size(proof));
    return generate_snap_vanilla(shape, variant, shape.h_default, rng_seed);
}

}  // namespace cuzk::filecoin
