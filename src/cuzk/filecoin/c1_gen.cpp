#include "cuzk/filecoin/c1_gen.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cuzk/filecoin/graph.hpp"
#include "cuzk/filecoin/hashers.hpp"
#include "cuzk/filecoin/label.hpp"
#include "cuzk/filecoin/porep.hpp"
#include "cuzk/filecoin/challenges_post.hpp"
#include "cuzk/filecoin/tree.hpp"
#include "cuzk/gadgets/poseidon.hpp"

namespace cuzk::filecoin {
namespace {

constexpr unsigned kMaxPeriodLog2 = 12;  // the data pattern: at most 4096 nodes (128 KiB)

Domain random_domain(std::mt19937_64& rng) {
    Domain d;
    for (size_t i = 0; i < 32; i += 8) {
        const uint64_t v = rng();
        std::memcpy(d.data() + i, &v, 8);
    }
    trim_to_fr32(d);  // < 2^254 < r: a canonical field element
    return d;
}

Fr random_fr(std::mt19937_64& rng) { return fr_from_domain(random_domain(rng)); }

// The label preimage's first block: replica_id ‖ layer u32 BE ‖ node u64 BE ‖ 20 zero bytes (as the sealer).
void put_header(uint8_t* out, const Bytes32& replica_id, uint32_t layer, uint64_t node) {
    std::memcpy(out, replica_id.data(), 32);
    for (int i = 0; i < 4; i++) out[32 + i] = uint8_t(layer >> (8 * (3 - i)));
    for (int i = 0; i < 8; i++) out[36 + i] = uint8_t(node >> (8 * (7 - i)));
    std::memset(out + 44, 0, 20);
}

// Tree D of a sector whose data repeats a pattern of 2^p nodes: the pattern's tree below level p, one node per
// level above it.
class PeriodicTreeD {
  public:
    PeriodicTreeD(std::vector<Domain> pattern, unsigned height)
        : pattern_(std::move(pattern)), tree_(pattern_), height_(height) {
        upper_.push_back(tree_.root());  // level p
        for (unsigned l = tree_.height(); l < height_; l++) upper_.push_back(sha256_node(upper_.back(), upper_.back()));
    }
    const Domain& root() const { return upper_.back(); }
    const Domain& leaf(uint64_t node) const { return pattern_[node % pattern_.size()]; }

    MerkleProof proof(uint64_t node) const {
        const BinaryPath low = tree_.path(node % pattern_.size());
        MerkleProof p;
        p.kind = MerkleProofKind::Single;
        for (unsigned l = 0; l < height_; l++) {
            const Domain& sibling = l < tree_.height() ? low.siblings[l] : upper_[l - tree_.height()];
            p.base.push_back(MerklePathElement{{sibling}, (node >> l) & 1});
        }
        p.root = root();
        p.leaf = leaf(node);
        return p;
    }

  private:
    std::vector<Domain> pattern_;
    BinaryTree tree_;
    unsigned height_;
    std::vector<Domain> upper_;  // upper_[j]: every node of level p + j
};

// A Poseidon tree of the proof's shape of which only the given leaves' paths exist: the known leaves hashed
// upwards, every missing child a random field element drawn once.
class SparsePoseidonTree {
  public:
    SparsePoseidonTree(TreeShape shape, uint64_t leaves, const std::map<uint64_t, Fr>& known, std::mt19937_64& rng)
        : shape_(shape), arities_(poseidon_tree_arities(shape, leaves)) {
        rows_.resize(arities_.size() + 1);
        rows_[0] = known;
        for (size_t l = 0; l < arities_.size(); l++) {
            const uint64_t a = arities_[l];
            std::vector<uint64_t> parents;
            for (const auto& [i, v] : rows_[l])
                if (parents.empty() || parents.back() != i / a) parents.push_back(i / a);  // rows are ordered maps
            std::vector<Fr> in(parents.size() * a);
            for (size_t k = 0; k < parents.size(); k++)
                for (uint64_t j = 0; j < a; j++) {
                    const uint64_t child = parents[k] * a + j;
                    auto it = rows_[l].find(child);
                    if (it == rows_[l].end()) it = rows_[l].emplace(child, random_fr(rng)).first;
                    in[k * a + j] = it->second;
                }
            std::vector<Fr> out(parents.size());
            gadgets::poseidon_hash_many(a, in, out);
            for (size_t k = 0; k < parents.size(); k++) rows_[l + 1].emplace(parents[k], out[k]);
        }
        if (rows_.back().size() != 1) throw std::logic_error("SparsePoseidonTree: no single root");
    }

    const Fr& root() const { return rows_.back().begin()->second; }
    const Fr& leaf(uint64_t i) const { return rows_[0].at(i); }

    // merkle/proof.rs try_from_proof's layout: Single, Sub or Top by the shape (as the sealer's poseidon_proof).
    MerkleProof proof(uint64_t leaf_index) const {
        std::vector<MerklePathElement> levels;
        uint64_t i = leaf_index;
        for (size_t l = 0; l < arities_.size(); l++) {
            const uint64_t a = arities_[l];
            MerklePathElement e;
            e.index = i % a;
            for (uint64_t j = 0; j < a; j++)
                if (j != e.index) e.hashes.push_back(domain_from_fr(rows_[l].at(i - i % a + j)));
            levels.push_back(std::move(e));
            i /= a;
        }
        return merkle_proof_of_levels(shape_, std::move(levels), domain_from_fr(root()),
                                      domain_from_fr(leaf(leaf_index)));
    }

  private:
    TreeShape shape_;
    std::vector<uint32_t> arities_;
    std::vector<std::map<uint64_t, Fr>> rows_;
};

}  // namespace

GeneratedC1 generate_c1_sector(RegisteredSealProof proof, uint64_t rng_seed, const std::optional<SectorIdentity>& identity) {
    const PorepConfig config = PorepConfig::from_registered(proof);
    if (config.synthetic() || config.non_interactive())
        throw FilecoinError(FilecoinErrorKind::Unsupported,
                            "c1-gen: " + std::string(proof_name(proof)) +
                                " derives its challenges from comm_r, which the challenged labels determine; only "
                                "interactive PoRep (V1, V1_1) can be generated without sealing");
    const uint64_t nodes = config.nodes();
    const uint32_t layers = config.layers();
    unsigned height = 0;
    while ((uint64_t(1) << height) < nodes) height++;

    std::mt19937_64 rng(rng_seed ^ 0x63317f67656e0000ull);
    GeneratedC1 g;
    g.prover_id = random_domain(rng);
    g.sector_id = rng() >> 1;
    if (identity) {  // drawn all the same: the rest of the sector comes from the same draws
        g.prover_id = identity->prover_id;
        g.sector_id = identity->sector_id;
    }
    C1Output& c1 = g.c1;
    c1.registered_proof = proof;
    c1.ticket = random_domain(rng);
    c1.seed = random_domain(rng);

    // Tree D of the periodic data, comm_d, replica_id, the challenges.
    const unsigned period_log2 = std::min(height, kMaxPeriodLog2);
    g.period_nodes = uint64_t(1) << period_log2;
    std::vector<Domain> pattern(g.period_nodes);
    for (Domain& d : pattern) d = random_domain(rng);
    const PeriodicTreeD tree_d(std::move(pattern), height);
    c1.comm_d = tree_d.root();
    c1.replica_id = replica_id(g.prover_id, g.sector_id, c1.ticket, c1.comm_d, config.porep_id);

    // Interactive challenges depend on replica_id and seed only (comm_r is not read).
    std::vector<std::vector<uint64_t>> challenges(config.partitions);
    std::set<uint64_t> challenged;
    for (uint32_t k = 0; k < config.partitions; k++) {
        challenges[k] = porep_challenges(config, c1.replica_id, c1.seed, Bytes32{}, k);
        challenged.insert(challenges[k].begin(), challenges[k].end());
    }

    // Labels: challenged nodes by SDR's function, layer after layer, increasing nodes; the rest random.
    const StackedGraph graph(config);
    std::map<uint64_t, std::array<uint32_t, BASE_DEGREE>> drg;
    std::map<uint64_t, std::array<uint32_t, EXP_DEGREE>> exp;
    for (uint64_t c : challenged) {
        drg[c] = graph.base_parents(c);
        exp[c] = graph.expander_parents(c);
    }
    std::vector<std::map<uint64_t, Domain>> labels(layers);  // [layer - 1][node]
    constexpr size_t kPreimage = 64 + kLabelTotalParents * 32;
    uint8_t pre[kPreimage];
    auto label = [&](uint32_t layer, uint64_t node) -> const Domain& {
        auto& row = labels[layer - 1];
        auto it = row.find(node);
        if (it != row.end()) return it->second;
        if (challenged.count(node))
            throw std::logic_error("c1-gen: label of challenged node " + std::to_string(node) + " needed early");
        Domain d;
        if (node == 0) {  // node 0 has no parents: its true label
            put_header(pre, c1.replica_id, layer, 0);
            d = sha256_trimmed(std::span<const uint8_t>(pre, 64));
        } else {
            d = random_domain(rng);
        }
        return row.emplace(node, d).first->second;
    };
    // The 37 parent labels of (layer, c), as the sealer's labeling proofs hold them.
    auto label_parents = [&](uint32_t layer, uint64_t c) {
        std::vector<Domain> parents;
        for (uint32_t b : drg.at(c)) parents.push_back(label(layer, b));
        if (layer > 1)
            for (uint32_t e : exp.at(c)) parents.push_back(label(layer - 1, e));
        std::vector<Domain> out;
        for (size_t k = 0; k < kLabelTotalParents; k++) out.push_back(parents[k % parents.size()]);
        return out;
    };
    for (uint32_t layer = 1; layer <= layers; layer++)
        for (uint64_t c : challenged) {
            const std::vector<Domain> parents = label_parents(layer, c);
            put_header(pre, c1.replica_id, layer, c);
            for (size_t k = 0; k < kLabelTotalParents; k++) std::memcpy(pre + 64 + 32 * k, parents[k].data(), 32);
            labels[layer - 1].emplace(c, sha256_trimmed(std::span<const uint8_t>(pre, kPreimage)));
        }

    // Columns (challenged nodes and their parents), their hashes: tree C's known leaves.
    std::set<uint64_t> column_nodes(challenged);
    for (uint64_t c : challenged) {
        column_nodes.insert(drg[c].begin(), drg[c].end());
        column_nodes.insert(exp[c].begin(), exp[c].end());
    }
    std::map<uint64_t, std::vector<Domain>> columns;
    std::vector<Fr> rows;
    rows.reserve(column_nodes.size() * layers);
    for (uint64_t n : column_nodes) {
        std::vector<Domain>& col = columns[n];
        for (uint32_t layer = 1; layer <= layers; layer++) {
            col.push_back(label(layer, n));
            rows.push_back(fr_from_domain(col.back(), "label"));
        }
    }
    std::vector<Fr> hashes(column_nodes.size());
    gadgets::poseidon_hash_many(layers, rows, hashes);
    std::map<uint64_t, Fr> c_leaves;
    {
        size_t i = 0;
        for (uint64_t n : column_nodes) c_leaves.emplace(n, hashes[i++]);
    }
    std::map<uint64_t, Fr> r_leaves;
    for (uint64_t c : challenged)
        r_leaves.emplace(c, fr_from_domain(tree_d.leaf(c)) + fr_from_domain(labels[layers - 1].at(c)));

    const TreeShape shape = config.shape().tree;
    const SparsePoseidonTree tree_c(shape, nodes, c_leaves, rng);
    const SparsePoseidonTree tree_r(shape, nodes, r_leaves, rng);
    c1.comm_r = fr_to_bytes32(filecoin::comm_r(tree_c.root(), tree_r.root()));

    auto column_proof = [&](uint64_t n) {
        ColumnProof cp;
        cp.index = uint32_t(n);
        cp.rows = columns.at(n);
        cp.inclusion_proof = tree_c.proof(n);
        return cp;
    };
    c1.vanilla_proofs.resize(config.partitions);
    for (uint32_t k = 0; k < config.partitions; k++)
        for (uint64_t c : challenges[k]) {
            VanillaSealProof p;
            p.comm_d_proofs = tree_d.proof(c);
            p.comm_r_last_proof = tree_r.proof(c);
            p.replica_column_proofs.c_x = column_proof(c);
            for (uint32_t b : drg[c]) p.replica_column_proofs.drg_parents.push_back(column_proof(b));
            for (uint32_t e : exp[c]) p.replica_column_proofs.exp_parents.push_back(column_proof(e));
            for (uint32_t layer = 1; layer <= layers; layer++) {
                LabelingProof lp;
                lp.layer_index = layer;
                lp.node = c;
                lp.parents = label_parents(layer, c);
                if (layer == layers) p.encoding_proof = lp;
                p.labeling_proofs.push_back(std::move(lp));
            }
            c1.vanilla_proofs[k].push_back(std::move(p));
        }
    return g;
}

C1Output generate_c1(RegisteredSealProof proof, uint64_t rng_seed) {
    return generate_c1_sector(proof, rng_seed).c1;
}

FallbackPostSectorProof generate_post_vanilla(RegisteredPoStProof proof, const Domain& randomness, uint64_t sector_id,
                                              uint64_t sector_index, uint64_t rng_seed) {
    const PostCircuitConfig circuit = PostCircuitConfig::from_registered(proof);
    const bool winning = post_type(proof) == PoStType::Winning;
    // The vanilla prover's challenges (generate_fallback_sector_challenges): Window, challenge_count at the sector's
    // place in the proof; Winning, its 66 at place 0.
    const std::vector<uint64_t> challenges =
        post_sector_leaf_challenges(circuit.api_version, randomness, sector_id, winning ? 0 : sector_index,
                                    winning ? circuit.sector_count : circuit.challenge_count, circuit.sector_nodes);
    std::mt19937_64 rng(rng_seed ^ 0x706f737467656e00ull);
    std::map<uint64_t, Fr> known;
    for (uint64_t c : challenges) known.emplace(c, random_fr(rng));
    const SparsePoseidonTree tree(circuit.tree, circuit.sector_nodes, known, rng);
    const Fr comm_c = random_fr(rng);
    FallbackPostSectorProof p;
    p.sector_id = sector_id;
    p.comm_r = domain_from_fr(comm_r(comm_c, tree.root()));
    PostSectorProof s;
    for (uint64_t c : challenges) s.inclusion_proofs.push_back(tree.proof(c));
    s.comm_c = domain_from_fr(comm_c);
    s.comm_r_last = domain_from_fr(tree.root());
    p.sectors = {std::move(s)};
    return p;
}

}  // namespace cuzk::filecoin
