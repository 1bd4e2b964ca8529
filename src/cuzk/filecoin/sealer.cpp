#include "cuzk/filecoin/sealer.hpp"

#include <cstring>
#include <string>

#include "cuzk/filecoin/graph.hpp"
#include "cuzk/filecoin/label.hpp"
#include "cuzk/filecoin/porep.hpp"
#include "cuzk/gadgets/poseidon.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::filecoin {
namespace {

// The label preimage's first block: replica_id ‖ layer u32 BE ‖ node u64 BE ‖ 20 zero bytes.
void put_header(uint8_t* out, const Bytes32& replica_id, uint32_t layer, uint64_t node) {
    std::memcpy(out, replica_id.data(), 32);
    for (int i = 0; i < 4; i++) out[32 + i] = uint8_t(layer >> (8 * (3 - i)));
    for (int i = 0; i < 8; i++) out[36 + i] = uint8_t(node >> (8 * (7 - i)));
    std::memset(out + 44, 0, 20);
}

// Labels of every layer. Within a layer node n needs node n - 1, so each layer is one sequential pass; the
// parents are read from the parent cache (built on all threads).
std::vector<std::vector<Domain>> label_layers(const PorepConfig& config, const Bytes32& replica_id) {
    const uint64_t nodes = config.nodes();
    const uint32_t layers = config.layers();
    const StackedGraph graph(config);
    const std::vector<uint32_t> parents = parent_cache(graph);
    std::vector<std::vector<Domain>> labels(layers, std::vector<Domain>(nodes));
    constexpr size_t kPreimage = 64 + kLabelTotalParents * 32;
    uint8_t pre[kPreimage];
    for (uint32_t layer = 1; layer <= layers; layer++) {
        std::vector<Domain>& cur = labels[layer - 1];
        const Domain* below = layer > 1 ? labels[layer - 2].data() : nullptr;
        put_header(pre, replica_id, layer, 0);
        cur[0] = sha256_trimmed(std::span<const uint8_t>(pre, 64));
        for (uint64_t node = 1; node < nodes; node++) {
            put_header(pre, replica_id, layer, node);
            const uint32_t* p = parents.data() + node * DEGREE;
            const Domain* src[DEGREE];
            size_t count = 0;
            for (size_t i = 0; i < BASE_DEGREE; i++) src[count++] = &cur[p[i]];
            if (layer > 1)
                for (size_t i = BASE_DEGREE; i < DEGREE; i++) src[count++] = &below[p[i]];
            // 37 parents: the list repeated (6 x 6 + 1, or 14 + 14 + 9).
            for (size_t k = 0; k < kLabelTotalParents; k++) std::memcpy(pre + 64 + 32 * k, src[k % count]->data(), 32);
            cur[node] = sha256_trimmed(std::span<const uint8_t>(pre, kPreimage));
        }
    }
    return labels;
}

std::vector<MerklePathElement> elements_of(std::span<const PoseidonPathLevel> levels) {
    std::vector<MerklePathElement> out;
    out.reserve(levels.size());
    for (const PoseidonPathLevel& l : levels) {
        MerklePathElement e;
        e.index = l.index;
        for (const Fr& s : l.siblings) e.hashes.push_back(domain_from_fr(s));
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace

// merkle/proof.rs try_from_proof: Single, Sub or Top by the tree's shape.
MerkleProof poseidon_proof(const PoseidonTree& tree, uint64_t leaf) {
    const PoseidonPath path = tree.path(leaf);
    return merkle_proof_of_levels(tree.shape(), elements_of(path.levels), domain_from_fr(tree.root()),
                                  domain_from_fr(tree.row(0)[leaf]));
}

namespace {

MerkleProof binary_proof(const BinaryTree& tree, uint64_t leaf) {
    const BinaryPath path = tree.path(leaf);
    MerkleProof p;
    p.kind = MerkleProofKind::Single;
    for (size_t l = 0; l < path.siblings.size(); l++)
        p.base.push_back(MerklePathElement{{path.siblings[l]}, (path.index >> l) & 1});
    p.root = tree.root();
    p.leaf = tree.row(0)[leaf];
    return p;
}

ColumnProof column_proof(const SealedReplica& r, uint64_t node) {
    ColumnProof c;
    c.index = uint32_t(node);
    c.rows = r.column(node);
    c.inclusion_proof = poseidon_proof(*r.tree_c, node);
    return c;
}

}  // namespace

std::vector<Domain> SealedReplica::column(uint64_t node) const {
    std::vector<Domain> rows;
    rows.reserve(labels.size());
    for (const auto& layer : labels) rows.push_back(layer.at(node));
    return rows;
}

SealedReplica seal_sector(const PorepConfig& config, std::span<const uint8_t> data, const Bytes32& prover_id,
                          uint64_t sector_id, const Bytes32& ticket) {
    const uint64_t nodes = config.nodes();  // FilecoinError(UnsupportedSectorSize)
    if (!data.empty() && data.size() != config.sector_size)
        throw FilecoinError(FilecoinErrorKind::OutOfRange, "sector data: " + std::to_string(data.size()) +
                                                               " bytes, expected " + std::to_string(config.sector_size));
    SealedReplica r;
    r.config = config;
    r.prover_id = prover_id;
    r.sector_id = sector_id;
    r.ticket = ticket;
    r.data.assign(nodes, Domain{});
    if (!data.empty())
        for (uint64_t n = 0; n < nodes; n++) {
            std::memcpy(r.data[n].data(), data.data() + 32 * n, 32);
            if (!is_canonical(r.data[n]))
                throw FilecoinError(FilecoinErrorKind::NonCanonical,
                                    "sector data: node " + std::to_string(n) + " (bytes " + std::to_string(32 * n) +
                                        "..) is not a canonical field element (fr32 padding keeps the top two bits 0)");
        }
    r.tree_d = std::make_shared<const BinaryTree>(r.data);
    r.replica_id = replica_id(prover_id, sector_id, ticket, r.tree_d->root(), config.porep_id);
    r.labels = label_layers(config, r.replica_id);

    const uint32_t layers = config.layers();
    std::vector<Fr> rows(nodes * layers);
    std::vector<Fr> replica(nodes);
    parallel_for(nodes, [&](size_t begin, size_t end) {
        for (size_t n = begin; n < end; n++) {
            for (uint32_t l = 0; l < layers; l++) rows[n * layers + l] = fr_from_domain(r.labels[l][n], "label");
            replica[n] = fr_from_domain(r.data[n]) + rows[n * layers + layers - 1];
        }
    });
    std::vector<Fr> columns(nodes);
    gadgets::poseidon_hash_many(layers, rows, columns);
    rows = {};
    const TreeShape shape = config.shape().tree;
    r.tree_c = std::make_shared<const PoseidonTree>(shape, columns);
    r.tree_r_last = std::make_shared<const PoseidonTree>(shape, replica);
    r.comm_c = r.tree_c->root();
    r.comm_r_last = r.tree_r_last->root();
    r.comm_r = filecoin::comm_r(r.comm_c, r.comm_r_last);
    return r;
}

VanillaSealProof vanilla_seal_proof(const SealedReplica& r, uint64_t challenge) {
    const PorepConfig& config = r.config;
    if (challenge == 0 || challenge >= config.nodes())
        throw FilecoinError(FilecoinErrorKind::OutOfRange, "challenge " + std::to_string(challenge) +
                                                               " outside [1, " + std::to_string(config.nodes()) + ")");
    const StackedGraph graph(config);
    const std::array<uint32_t, BASE_DEGREE> drg = graph.base_parents(challenge);
    const std::array<uint32_t, EXP_DEGREE> exp = graph.expander_parents(challenge);
    VanillaSealProof p;
    p.comm_d_proofs = binary_proof(*r.tree_d, challenge);
    p.comm_r_last_proof = poseidon_proof(*r.tree_r_last, challenge);
    p.replica_column_proofs.c_x = column_proof(r, challenge);
    for (uint32_t b : drg) p.replica_column_proofs.drg_parents.push_back(column_proof(r, b));
    for (uint32_t e : exp) p.replica_column_proofs.exp_parents.push_back(column_proof(r, e));
    const uint32_t layers = config.layers();
    for (uint32_t layer = 1; layer <= layers; layer++) {
        std::vector<Domain> parents;
        for (uint32_t b : drg) parents.push_back(r.labels[layer - 1][b]);
        if (layer > 1)
            for (uint32_t e : exp) parents.push_back(r.labels[layer - 2][e]);
        LabelingProof lp;
        lp.layer_index = layer;
        lp.node = challenge;
        for (size_t k = 0; k < kLabelTotalParents; k++) lp.parents.push_back(parents[k % parents.size()]);
        if (layer == layers) p.encoding_proof = lp;
        p.labeling_proofs.push_back(std::move(lp));
    }
    return p;
}

std::vector<std::vector<VanillaSealProof>> vanilla_seal_proofs(const SealedReplica& r, const Bytes32& seed) {
    std::vector<std::vector<VanillaSealProof>> out(r.config.partitions);
    for (uint32_t k = 0; k < r.config.partitions; k++)
        for (uint64_t c : porep_challenges(r.config, r.replica_id, seed, r.comm_r_bytes(), k))
            out[k].push_back(vanilla_seal_proof(r, c));
    return out;
}

std::optional<RegisteredSealProof> registered_seal_proof(const PorepConfig& config) {
    for (size_t id = 0; id < REGISTERED_SEAL_PROOF_COUNT; id++) {
        const RegisteredSealProof p = seal_proof_from_id(id);
        if (PorepConfig::from_registered(p) == config) return p;
    }
    return std::nullopt;
}

C1Output commit_phase1(const SealedReplica& r, const Bytes32& seed) {
    const std::optional<RegisteredSealProof> proof = registered_seal_proof(r.config);
    if (!proof)
        throw FilecoinError(FilecoinErrorKind::Unsupported,
                            "commit_phase1: the configuration (" + sector_size_name(r.config.sector_size) +
                                ", porep_id " + to_hex(r.config.porep_id) + ") is no registered seal proof");
    C1Output c1;
    c1.registered_proof = *proof;
    c1.vanilla_proofs = vanilla_seal_proofs(r, seed);
    c1.comm_r = r.comm_r_bytes();
    c1.comm_d = r.comm_d_bytes();
    c1.replica_id = r.replica_id;
    c1.seed = seed;
    c1.ticket = r.ticket;
    return c1;
}

}  // namespace cuzk::filecoin
