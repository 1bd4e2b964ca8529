#include "cuzk/circuits/porep.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>
#include <tuple>

#include "cuzk/util/thread_pool.hpp"

namespace cuzk::circuits {

using standin::Boolean;

// ================================================================================================================
// Parameters and presets
// ================================================================================================================

void PorepParams::validate() const {
    auto bad = [](const std::string& what) { throw std::invalid_argument("porep parameters: " + what); };
    if (challenges < 1) bad("challenges must be >= 1");
    if (layers < 1) bad("layers must be >= 1");
    if (partitions < 1) bad("partitions must be >= 1");
    if (tree_d_height < 1 || tree_d_height > 60) bad("tree_d_height must be in [1, 60]");
    for (auto [name, h] : {std::pair{"tree_c_height", tree_c_height}, std::pair{"tree_r_height", tree_r_height}}) {
        if (h < 1 || 3 * (uint64_t)h > 63) bad(std::string(name) + " must be in [1, 21]");
        if (3 * (uint64_t)h < tree_d_height)
            bad(std::string(name) + ": 8^height leaf slots are fewer than the 2^tree_d_height nodes");
    }
}

namespace {
struct Preset {
    const char* name;
    PorepParams params;
};
// Each preset's constraints (input constraints included) lie in (2^(k-1), 2^k], checked by the tests: porep-128k
// 95% of 2^17, porep-1m 99.9% of 2^20, porep-16m (the 32 GiB shape with 2 challenges) 86% of 2^24, porep-32g 97%
// of 2^27.
const Preset kPresets[] = {
    {"porep-128k", {.challenges = 1, .layers = 1, .parents = 3, .tree_d_height = 1, .tree_c_height = 1,
                    .tree_r_height = 1, .partitions = 2}},
    {"porep-1m", {.challenges = 2, .layers = 2, .parents = 6, .tree_d_height = 6, .tree_c_height = 2,
                  .tree_r_height = 2, .partitions = 2}},
    {"porep-16m", {.challenges = 2, .layers = 11, .parents = 37, .tree_d_height = 30, .tree_c_height = 10,
                   .tree_r_height = 10, .partitions = 10}},
    {"porep-32g", {.challenges = 18, .layers = 11, .parents = 37, .tree_d_height = 30, .tree_c_height = 10,
                   .tree_r_height = 10, .partitions = 10}},
};
}  // namespace

PorepParams porep_preset(std::string_view name) {
    for (const Preset& p : kPresets)
        if (name == p.name) return p.params;
    std::string names;
    for (const Preset& p : kPresets) names += std::string(names.empty() ? "" : ", ") + p.name;
    throw std::invalid_argument("unknown porep preset '" + std::string(name) + "' (" + names + ")");
}

std::vector<std::string> porep_preset_names() {
    std::vector<std::string> out;
    for (const Preset& p : kPresets) out.emplace_back(p.name);
    return out;
}

bool is_porep_preset(std::string_view name) {
    for (const Preset& p : kPresets)
        if (name == p.name) return true;
    return false;
}

// ================================================================================================================
// Constraint counts
// ================================================================================================================

namespace {

// A constraint system that only counts (what the key generator would record, without recording it).
class ConstraintCounter {
public:
    static constexpr bool kNeedsValues = false;
    template <class N, class V>
    r1cs::Variable alloc(N&&, V&&) {
        return r1cs::Variable::aux((uint32_t)(aux_++ & r1cs::Variable::kMaxIndex));
    }
    template <class N, class V>
    r1cs::Variable alloc_input(N&&, V&&) {
        return r1cs::Variable::input((uint32_t)(inputs_++ & r1cs::Variable::kMaxIndex));
    }
    template <class N>
    void enforce(N&&, const r1cs::LC&, const r1cs::LC&, const r1cs::LC&) {
        constraints_++;
    }
    template <class N>
    void push_namespace(N&&) {}
    void pop_namespace() {}
    uint64_t constraints() const { return constraints_; }
    uint64_t inputs() const { return inputs_; }

private:
    uint64_t constraints_ = 0, aux_ = 0, inputs_ = 0;
};

// One label's constraints (parent bits, SHA-256, packing). The SHA-256 gadget folds constant message bits (the
// layer, the node index's high bytes, the zero bytes, the padding), and what a constant saves depends on its
// value and position, so this is counted by synthesizing one label with the circuit's own code (no values,
// nothing stored); memoized per (parents, tree_d_height, layer).
uint64_t label_constraints(size_t parents, unsigned tree_d_height, uint32_t layer) {
    static std::mutex mu;
    static std::map<std::tuple<size_t, unsigned, uint32_t>, uint64_t> memo;
    auto key = std::tuple{parents, tree_d_height, layer};
    {
        std::lock_guard<std::mutex> lk(mu);
        if (auto it = memo.find(key); it != memo.end()) return it->second;
    }
    ConstraintCounter cs;
    std::vector<Boolean> replica_le, node_bits;
    for (size_t i = 0; i < 254; i++) replica_le.emplace_back(standin::AllocatedBit::alloc(cs, "r", std::nullopt));
    for (unsigned i = 0; i < tree_d_height; i++) node_bits.emplace_back(standin::AllocatedBit::alloc(cs, "n", std::nullopt));
    auto replica_bits = detail::le_fr_message_bits(replica_le);
    uint64_t before = cs.constraints();
    detail::porep_label(cs, std::span<const Boolean>(replica_bits), layer, std::span<const Boolean>(node_bits), parents,
                        nullptr);
    uint64_t n = cs.constraints() - before;
    std::lock_guard<std::mutex> lk(mu);
    memo[key] = n;
    return n;
}

// poseidon.hpp: 3 constraints per S-box, t per full round and 1 per partial round, and 1 for the output.
uint64_t poseidon_constraints(size_t arity) {
    const standin::PoseidonParams& p = standin::poseidon_params(arity);
    return 3 * (p.t * p.full_rounds + p.partial_rounds) + 1;
}

uint64_t column_hash_constraints(size_t layers) {
    if (layers <= 11) return poseidon_constraints(layers <= 2 ? 2 : layers <= 8 ? 8 : 11);
    return (1 + (layers - 11 + 9) / 10) * poseidon_constraints(11);
}

// An arity-8 inclusion proof of `height` levels whose first tree_d_height index bits are variables and the rest
// constant zeros (merkle.hpp): per level the insertion's 7 R constraints, its AND constraints (b0b1, b0b2, b1b2,
// b0b1b2: 4 with 3 variable bits; only b0b1 with 2; none with 0 or 1, a constant-zero operand folds), and the
// arity-8 hash; then 1 root equality.
uint64_t poseidon8_path_constraints(unsigned height, unsigned tree_d_height) {
    static constexpr uint64_t kAnds[4] = {0, 0, 1, 4};
    uint64_t n = 1;
    for (unsigned k = 0; k < height; k++) {
        unsigned var_bits = (unsigned)std::clamp<int>((int)tree_d_height - 3 * (int)k, 0, 3);
        n += kAnds[var_bits] + 7 + poseidon_constraints(8);
    }
    return n;
}

// merkle.hpp: 512 (swap) + 25,773 (data block) + 19,036 (constant padding block on a variable state).
constexpr uint64_t kSha256MerkleLevel = 45321;

}  // namespace

// circuit = 245 (comm_r: Poseidon-2 244 + equality 1) + 255 (replica id: 254 bits + packing)
//         + challenges x [ (h_D + 1)                 challenge index bits + packing (the range check)
//                          + 254                       data leaf bits
//                          + h_D x (256 + 45,321)      tree D sibling bits and levels
//                          + 1                         comm_d equality
//                          + sum_l label(l)            P x 254 parent bits + SHA-256 + 1 packing (counted)
//                          + column(L)                 Poseidon, see porep_column_hash_native
//                          + path(h_C) + 1 + path(h_R) tree C, replica leaf, tree R ]
// input constraints = public inputs (3 + challenges) + 1 for the constant one.
PorepConstraintCount porep_constraint_count(const PorepParams& p) {
    p.validate();
    const uint64_t hd = p.tree_d_height;
    uint64_t per_challenge = (hd + 1) + 254 + hd * (256 + kSha256MerkleLevel) + 1;
    for (size_t l = 1; l <= p.layers; l++) per_challenge += label_constraints(p.parents, p.tree_d_height, (uint32_t)l);
    per_challenge += column_hash_constraints(p.layers);
    per_challenge += poseidon8_path_constraints(p.tree_c_height, p.tree_d_height) + 1 +
                     poseidon8_path_constraints(p.tree_r_height, p.tree_d_height);
    PorepConstraintCount c;
    c.circuit = poseidon_constraints(2) + 1 + 255 + p.challenges * per_challenge;
    c.public_inputs = 3 + p.challenges;
    c.input_constraints = c.public_inputs + 1;
    return c;
}

PorepConstraintCount porep_constraint_count_by_synthesis(const PorepParams& p) {
    PorepCircuit circuit(p);
    ConstraintCounter cs;
    circuit.synthesize(cs);
    PorepConstraintCount c;
    c.circuit = cs.constraints();
    c.public_inputs = cs.inputs();
    c.input_constraints = cs.inputs() + 1;
    return c;
}

// ================================================================================================================
// Native functions
// ================================================================================================================

std::vector<Fr> PorepPublicInputs::field_elements() const {
    std::vector<Fr> out = {replica_id, comm_d, comm_r};
    for (uint64_t c : challenges) out.push_back(Fr::from_u64(c));
    return out;
}

Fr fr_from_digest_254(const Sha256Digest& d) {
    Sha256Digest t = d;
    t[31] &= 0x3f;
    return Fr::from_canonical_unchecked(Fr::limbs_from_bytes_le(t.data()));
}

namespace {
bool below_2_254(const Fr& x) { return (x.to_canonical()[3] >> 62) == 0; }
}  // namespace

Sha256Digest sha256_native(std::span<const uint8_t> bytes) {
    std::array<uint32_t, 8> state = standin::kSha256Iv;
    size_t full = bytes.size() / 64;
    for (size_t b = 0; b < full; b++) standin::sha256_compress_native(state, bytes.data() + 64 * b);
    // The tail, 0x80, zeros, and the 64-bit big-endian bit length: one or two more blocks.
    uint8_t tail[128] = {};
    size_t rest = bytes.size() - 64 * full;
    if (rest) std::memcpy(tail, bytes.data() + 64 * full, rest);
    tail[rest] = 0x80;
    size_t tail_len = rest + 9 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)bytes.size() * 8;
    for (int i = 0; i < 8; i++) tail[tail_len - 1 - i] = uint8_t(bits >> (8 * i));
    for (size_t off = 0; off < tail_len; off += 64) standin::sha256_compress_native(state, tail + off);
    Sha256Digest out;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) out[4 * i + j] = uint8_t(state[i] >> (24 - 8 * j));
    return out;
}

Fr porep_label_native(const Fr& replica_id, uint32_t layer, uint64_t node, std::span<const Fr> parent_labels) {
    if (!below_2_254(replica_id)) throw std::invalid_argument("porep label: replica id must be below 2^254");
    std::vector<uint8_t> msg(64 + 32 * parent_labels.size(), 0);
    replica_id.to_bytes_le(msg.data());
    for (int i = 0; i < 4; i++) msg[32 + i] = uint8_t(layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++) msg[36 + i] = uint8_t(node >> (56 - 8 * i));
    for (size_t k = 0; k < parent_labels.size(); k++) {
        if (!below_2_254(parent_labels[k]))
            throw std::invalid_argument("porep label: parent label " + std::to_string(k) + " must be below 2^254");
        parent_labels[k].to_bytes_le(msg.data() + 64 + 32 * k);
    }
    return fr_from_digest_254(sha256_native(msg));
}

Fr porep_column_hash_native(std::span<const Fr> labels) {
    if (labels.empty()) throw std::invalid_argument("porep column hash: no labels");
    auto hash = [](size_t arity, std::span<const Fr> in) {
        std::vector<Fr> v(in.begin(), in.end());
        v.resize(arity, Fr::zero());
        return standin::poseidon_hash(std::span<const Fr>(v));
    };
    const size_t L = labels.size();
    if (L <= 11) return hash(L <= 2 ? 2 : L <= 8 ? 8 : 11, labels);
    Fr acc = hash(11, labels.first(11));
    for (size_t start = 11; start < L; start += 10) {
        std::vector<Fr> in{acc};
        for (size_t i = start; i < std::min(L, start + 10); i++) in.push_back(labels[i]);
        acc = hash(11, in);
    }
    return acc;
}

// ================================================================================================================
// The generator
// ================================================================================================================

namespace {
// SHA-256("cuzk-porep-v1" || tag || seed || a || b || c), integers as 8 little-endian bytes: every pseudo-random
// value of a replica, so each is a function of the seed and its place only.
Sha256Digest derive(uint64_t seed, char tag, uint64_t a, uint64_t b, uint64_t c) {
    static constexpr char kDomain[] = "cuzk-porep-v1";
    std::vector<uint8_t> msg(kDomain, kDomain + sizeof(kDomain) - 1);
    msg.push_back((uint8_t)tag);
    for (uint64_t x : {seed, a, b, c})
        for (int i = 0; i < 8; i++) msg.push_back(uint8_t(x >> (8 * i)));
    return sha256_native(msg);
}

// Fills the levels above the known leaves: a parent is hashed from its `arity` children, each either known
// (above a challenged leaf) or missing(level, position) (a subtree without challenged leaves).
template <class T, class Missing, class Hash>
void build_sparse(std::vector<std::map<uint64_t, T>>& levels, unsigned height, unsigned arity, Missing&& missing,
                  Hash&& hash) {
    levels.resize(height + 1);
    std::vector<T> children(arity);
    for (unsigned k = 0; k < height; k++) {
        for (const auto& [pos, _] : levels[k]) {
            uint64_t q = pos / arity;
            if (levels[k + 1].count(q)) continue;
            for (unsigned j = 0; j < arity; j++) {
                uint64_t c = q * arity + j;
                auto it = levels[k].find(c);
                children[j] = it != levels[k].end() ? it->second : missing(k, c);
            }
            levels[k + 1][q] = hash(std::span<const T>(children));
        }
    }
}
}  // namespace

PorepReplica::PorepReplica(const PorepParams& params, uint64_t seed) : params_(params), seed_(seed) {
    params_.validate();
    replica_id_ = fr_from_digest_254(derive(seed_, 'I', 0, 0, 0));
    std::set<uint64_t> challenged;
    for (size_t p = 0; p < params_.partitions; p++)
        for (uint64_t c : challenges(p)) challenged.insert(c);

    tree_d_.levels.resize(1);
    tree_c_.levels.resize(1);
    tree_r_.levels.resize(1);
    for (uint64_t node : challenged) {
        NodeData nd;
        nd.data_leaf = d_node(0, node);
        nd.parent_labels.resize(params_.layers);
        for (size_t l = 0; l < params_.layers; l++) {
            for (size_t k = 0; k < params_.parents; k++)
                nd.parent_labels[l].push_back(fr_from_digest_254(derive(seed_, 'P', l + 1, node, k)));
            nd.labels.push_back(porep_label_native(replica_id_, (uint32_t)(l + 1), node, nd.parent_labels[l]));
        }
        tree_d_.levels[0][node] = nd.data_leaf;
        tree_c_.levels[0][node] = porep_column_hash_native(nd.labels);
        tree_r_.levels[0][node] = nd.labels.back() + fr_from_digest_254(nd.data_leaf);
        nodes_.emplace(node, std::move(nd));
    }
    build_sparse(tree_d_.levels, params_.tree_d_height, 2, [&](unsigned k, uint64_t pos) { return d_node(k, pos); },
                 [](std::span<const Sha256Digest> c) { return standin::sha256_node_native(c[0], c[1]); });
    auto poseidon8 = [](std::span<const Fr> c) { return standin::poseidon_hash(c); };
    build_sparse(tree_c_.levels, params_.tree_c_height, 8,
                 [&](unsigned k, uint64_t pos) { return cr_node(tree_c_, 'C', k, pos); }, poseidon8);
    build_sparse(tree_r_.levels, params_.tree_r_height, 8,
                 [&](unsigned k, uint64_t pos) { return cr_node(tree_r_, 'R', k, pos); }, poseidon8);
    tree_d_root_ = tree_d_.levels.back().at(0);
    comm_d_ = fr_from_digest_254(tree_d_root_);
    comm_c_ = tree_c_.levels.back().at(0);
    comm_r_last_ = tree_r_.levels.back().at(0);
    std::array<Fr, 2> in = {comm_c_, comm_r_last_};
    comm_r_ = standin::poseidon_hash(std::span<const Fr>(in));
}

// A tree D node: known above a challenged leaf, otherwise pseudo-random (a leaf as a field element's bytes).
Sha256Digest PorepReplica::d_node(unsigned level, uint64_t pos) const {
    if (level < tree_d_.levels.size())
        if (auto it = tree_d_.levels[level].find(pos); it != tree_d_.levels[level].end()) return it->second;
    Sha256Digest d = derive(seed_, 'D', level, pos, 0);
    if (level == 0) d[31] &= 0x3f;
    return d;
}

Fr PorepReplica::cr_node(const SparseTree<Fr>& tree, char which, unsigned level, uint64_t pos) const {
    if (level < tree.levels.size())
        if (auto it = tree.levels[level].find(pos); it != tree.levels[level].end()) return it->second;
    return fr_from_digest_254(derive(seed_, which, level, pos, 0));
}

std::vector<std::array<Fr, 7>> PorepReplica::cr_path(const SparseTree<Fr>& tree, char which, unsigned height,
                                                     uint64_t node) const {
    std::vector<std::array<Fr, 7>> out;
    uint64_t i = node;
    for (unsigned k = 0; k < height; k++, i /= 8) {
        std::array<Fr, 7> s;
        uint64_t base = i & ~uint64_t{7};
        for (unsigned j = 0, m = 0; j < 8; j++)
            if (base + j != i) s[m++] = cr_node(tree, which, k, base + j);
        out.push_back(s);
    }
    return out;
}

std::vector<uint64_t> PorepReplica::challenges(size_t partition) const {
    if (partition >= params_.partitions)
        throw std::out_of_range("porep replica: partition " + std::to_string(partition) + " of " +
                                std::to_string(params_.partitions));
    std::vector<uint64_t> out;
    for (size_t j = 0; j < params_.challenges; j++) {
        Sha256Digest d = derive(seed_, 'X', partition, j, 0);
        uint64_t x = 0;
        for (int i = 0; i < 8; i++) x |= uint64_t(d[i]) << (8 * i);
        out.push_back(x & (params_.nodes() - 1));
    }
    return out;
}

PorepPublicInputs PorepReplica::public_inputs(size_t partition) const {
    return PorepPublicInputs{replica_id_, comm_d_, comm_r_, challenges(partition)};
}

PorepWitness PorepReplica::witness(size_t partition) const {
    PorepWitness w{comm_c_, comm_r_last_, {}};
    for (uint64_t node : challenges(partition)) {
        const NodeData& nd = nodes_.at(node);
        PorepChallengeWitness cw;
        cw.data_leaf = nd.data_leaf;
        for (unsigned k = 0; k < params_.tree_d_height; k++) cw.d_siblings.push_back(d_node(k, (node >> k) ^ 1));
        cw.parent_labels = nd.parent_labels;
        cw.c_siblings = cr_path(tree_c_, 'C', params_.tree_c_height, node);
        cw.r_siblings = cr_path(tree_r_, 'R', params_.tree_r_height, node);
        w.challenges.push_back(std::move(cw));
    }
    return w;
}

const std::vector<Fr>& PorepReplica::labels(uint64_t node) const {
    auto it = nodes_.find(node);
    if (it == nodes_.end()) throw std::out_of_range("porep replica: node " + std::to_string(node) + " is not challenged");
    return it->second.labels;
}

// ================================================================================================================
// The circuit
// ================================================================================================================

PorepCircuit::PorepCircuit(const PorepParams& params) : params_(params) { params_.validate(); }

PorepCircuit::PorepCircuit(const PorepParams& params, PorepPublicInputs pub, PorepWitness witness)
    : params_(params), pub_(std::move(pub)), wit_(std::move(witness)) {
    params_.validate();
    auto bad = [](const std::string& what) { throw std::invalid_argument("porep circuit: " + what); };
    if (!below_2_254(pub_->replica_id)) bad("replica id must be below 2^254");
    if (pub_->challenges.size() != params_.challenges)
        bad(std::to_string(pub_->challenges.size()) + " challenges for " + std::to_string(params_.challenges));
    for (size_t j = 0; j < pub_->challenges.size(); j++)
        if (pub_->challenges[j] >= params_.nodes())
            bad("challenge " + std::to_string(j) + " (node " + std::to_string(pub_->challenges[j]) +
                ") is out of range: the sector has 2^" + std::to_string(params_.tree_d_height) + " nodes");
    if (wit_->challenges.size() != params_.challenges)
        bad("witness for " + std::to_string(wit_->challenges.size()) + " challenges, expected " +
            std::to_string(params_.challenges));
    for (size_t j = 0; j < wit_->challenges.size(); j++) {
        const PorepChallengeWitness& w = wit_->challenges[j];
        std::string where = "challenge " + std::to_string(j) + ": ";
        if (w.data_leaf[31] & 0xc0) bad(where + "data leaf must be below 2^254");
        if (w.d_siblings.size() != params_.tree_d_height) bad(where + "tree D path length");
        if (w.c_siblings.size() != params_.tree_c_height) bad(where + "tree C path length");
        if (w.r_siblings.size() != params_.tree_r_height) bad(where + "tree R path length");
        if (w.parent_labels.size() != params_.layers) bad(where + "parent labels for " + std::to_string(w.parent_labels.size()) + " layers");
        for (size_t l = 0; l < w.parent_labels.size(); l++) {
            if (w.parent_labels[l].size() != params_.parents)
                bad(where + "layer " + std::to_string(l + 1) + " has " + std::to_string(w.parent_labels[l].size()) +
                    " parent labels, expected " + std::to_string(params_.parents));
            for (const Fr& x : w.parent_labels[l])
                if (!below_2_254(x)) bad(where + "a parent label of layer " + std::to_string(l + 1) + " is >= 2^254");
        }
    }
}

PorepCircuit porep_partition_circuit(const PorepReplica& replica, size_t partition) {
    return PorepCircuit(replica.params(), replica.public_inputs(partition), replica.witness(partition));
}

std::vector<r1cs::ProvingAssignment> synthesize_parallel(std::span<const r1cs::Circuit* const> circuits) {
    for (size_t i = 0; i < circuits.size(); i++)
        if (!circuits[i]) throw std::invalid_argument("synthesize_parallel: circuit " + std::to_string(i) + " is null");
    std::vector<r1cs::ProvingAssignment> out(circuits.size());
    ThreadPool::global().run_tasks(circuits.size(), [&](size_t i) { r1cs::synthesize_groth16(out[i], *circuits[i]); });
    return out;
}

}  // namespace cuzk::circuits
