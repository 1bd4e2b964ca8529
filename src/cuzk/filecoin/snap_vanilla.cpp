#include "cuzk/filecoin/snap_vanilla.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cuzk/filecoin/bincode.hpp"
#include "cuzk/filecoin/challenges_snap.hpp"
#include "cuzk/filecoin/vanilla_json.hpp"
#include "cuzk/gadgets/poseidon.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::filecoin {

namespace {

using bincode::idx;
using bincode::malformed;

// ---- shapes ---------------------------------------------------------------------------------------------------

// A tree as a proof of it must look: its kind and the arity of each level from the leaves up.
struct ProofShape {
    MerkleProofKind kind = MerkleProofKind::Single;
    std::vector<uint32_t> arities;
    size_t sub_levels = 0, top_levels = 0;  // 0 or 1 each
};

ProofShape tree_r_proof_shape(const SnapShape& shape) {
    ProofShape s;
    s.kind = merkle_proof_kind(shape.tree_r);
    s.arities = poseidon_tree_arities(shape.tree_r, shape.sector_nodes);
    s.sub_levels = shape.tree_r.sub ? 1 : 0;
    s.top_levels = shape.tree_r.top ? 1 : 0;
    return s;
}

ProofShape tree_d_proof_shape(const SnapShape& shape, UpdateCircuit variant) {
    if (variant == UpdateCircuit::Poseidon) return tree_r_proof_shape(shape);
    ProofShape s;
    s.arities.assign(shape.challenge_bit_len, 2);
    return s;
}

void check_canonical(const Domain& d, std::string_view label, const std::string& field) {
    if (!is_canonical(d)) malformed(label, field, "not a canonical field element");
}

void check_proof_shape(const MerkleProof& p, const ProofShape& want, std::string_view label, const std::string& field) {
    static constexpr const char* kKind[] = {"Single", "Sub", "Top"};
    if (p.kind != want.kind)
        malformed(label, field, std::string("a ") + kKind[(int)p.kind] + " proof, expected " + kKind[(int)want.kind]);
    if (p.levels() != want.arities.size())
        malformed(label, field,
                  std::to_string(p.levels()) + " levels, expected " + std::to_string(want.arities.size()));
    if (p.sub.size() != want.sub_levels || p.top.size() != want.top_levels)
        malformed(label, field,
                  std::to_string(p.sub.size()) + " sub and " + std::to_string(p.top.size()) + " top levels, expected " +
                      std::to_string(want.sub_levels) + " and " + std::to_string(want.top_levels));
    size_t level = 0;
    for (const auto* part : {&p.base, &p.sub, &p.top})
        for (const MerklePathElement& e : *part) {
            const uint32_t arity = want.arities[level];
            const std::string where = field + ".level " + std::to_string(level);
            if (e.hashes.size() != arity - 1)
                malformed(label, where,
                          std::to_string(e.hashes.size()) + " siblings, arity " + std::to_string(arity) + " has " +
                              std::to_string(arity - 1));
            if (e.index >= arity)
                malformed(label, where, "index " + std::to_string(e.index) + " >= arity " + std::to_string(arity));
            for (size_t j = 0; j < e.hashes.size(); j++) check_canonical(e.hashes[j], label, where + " sibling " + idx(j));
            level++;
        }
    check_canonical(p.leaf, label, field + ".leaf");
    check_canonical(p.root, label, field + ".root");
}

// ---- native paths ---------------------------------------------------------------------------------------------

// The node at every height of a proof's path (heights 0 = the leaf .. levels() = the computed root), hashing each
// level with Poseidon of its arity, or (binary tree D of the SHA-256 variant) the trimmed SHA-256 node hash.
// Shapes must have been checked.
std::vector<Domain> path_nodes(const MerkleProof& p, bool sha256) {
    std::vector<Domain> out{p.leaf};
    Domain cur = p.leaf;
    for (const auto* part : {&p.base, &p.sub, &p.top})
        for (const MerklePathElement& e : *part) {
            if (sha256) {
                cur = e.index == 0 ? sha256_node(cur, e.hashes[0]) : sha256_node(e.hashes[0], cur);
            } else {
                std::vector<Fr> in;
                in.reserve(e.hashes.size() + 1);
                for (size_t j = 0; j < e.hashes.size(); j++) {
                    if (j == e.index) in.push_back(fr_from_domain(cur));
                    in.push_back(fr_from_domain(e.hashes[j]));
                }
                if (e.index == e.hashes.size()) in.push_back(fr_from_domain(cur));
                cur = domain_from_fr(gadgets::poseidon_hash(in));
            }
            out.push_back(cur);
        }
    return out;
}

SiblingPath siblings_of(const MerkleProof& p) {
    SiblingPath out;
    out.reserve(p.levels());
    for (const auto* part : {&p.base, &p.sub, &p.top})
        for (const MerklePathElement& e : *part) {
            std::vector<std::optional<Fr>> level;
            level.reserve(e.hashes.size());
            for (const Domain& d : e.hashes) level.emplace_back(fr_from_domain(d));
            out.push_back(std::move(level));
        }
    return out;
}

std::string at_challenge(size_t i, std::string_view proof) {
    return "challenge_proofs" + idx(i) + "." + std::string(proof);
}

// The Poseidon variant's PartitionProof has no field for apex leaves: a writer refuses to drop them.
void check_writable(const SnapPartitionProof& proof, UpdateCircuit variant, const char* writer) {
    if (variant != UpdateCircuit::Sha256 && !proof.apex_leafs.empty())
        throw std::invalid_argument(std::string(writer) + ": the Poseidon variant's PartitionProof has no apex leaves");
}

}  // namespace

// ---- bincode --------------------------------------------------------------------------------------------------

SnapPartitionProof read_snap_vanilla_proof(std::span<const uint8_t> bytes, std::string_view label,
                                           UpdateCircuit variant) {
    return json::read_bincode_or_json(
        bytes, [&](std::span<const uint8_t> b) { return read_snap_vanilla_bincode(b, label, variant); },
        [&](std::string_view text) { return parse_snap_vanilla_json(text, label, variant); });
}

SnapPartitionProof read_snap_vanilla_bincode(std::span<const uint8_t> bytes, std::string_view label,
                                             UpdateCircuit variant) {
    using bincode::Reader;
    Reader r(bytes, label);
    SnapPartitionProof p;
    {
        Reader::Field f(r, "comm_c");
        p.comm_c = r.domain();
    }
    if (variant == UpdateCircuit::Sha256) {
        Reader::Field f(r, "apex_leafs");
        p.apex_leafs.resize(r.length(32));
        for (size_t i = 0; i < p.apex_leafs.size(); i++) {
            Reader::Field g(r, idx(i));
            p.apex_leafs[i] = r.domain();
        }
    }
    {
        Reader::Field f(r, "challenge_proofs");
        p.challenge_proofs.resize(r.length(3 * bincode::kMinMerkleProofBytes));
        for (size_t i = 0; i < p.challenge_proofs.size(); i++) {
            Reader::Field g(r, idx(i));
            SnapChallengeProof& c = p.challenge_proofs[i];
            for (auto [name, proof] : {std::pair{"proof_r_old", &c.proof_r_old}, std::pair{"proof_d_new", &c.proof_d_new},
                                       std::pair{"proof_r_new", &c.proof_r_new}}) {
                Reader::Field h(r, name);
                *proof = bincode::read_merkle_proof(r);
            }
        }
    }
    r.finish();
    return p;
}

std::vector<uint8_t> write_snap_vanilla_proof(const SnapPartitionProof& proof, UpdateCircuit variant) {
    check_writable(proof, variant, "write_snap_vanilla_proof");
    bincode::Writer w;
    w.domain(proof.comm_c);
    if (variant == UpdateCircuit::Sha256) {
        w.u64(proof.apex_leafs.size());
        for (const Domain& d : proof.apex_leafs) w.domain(d);
    }
    w.u64(proof.challenge_proofs.size());
    for (const SnapChallengeProof& c : proof.challenge_proofs) {
        bincode::write_merkle_proof(w, c.proof_r_old);
        bincode::write_merkle_proof(w, c.proof_d_new);
        bincode::write_merkle_proof(w, c.proof_r_new);
    }
    return w.take();
}

// ---- JSON -------------------------------------------------------------------------------------------------------

SnapPartitionProof parse_snap_vanilla_json(std::string_view text, std::string_view label, UpdateCircuit variant) {
    const bool sha = variant == UpdateCircuit::Sha256;
    return json::parse_vanilla<SnapPartitionProof>(text, label, [sha](json::Cursor& c) {
        SnapPartitionProof p;
        json::Required r = sha ? json::Required(c, {"comm_c", "apex_leafs", "challenge_proofs"})
                               : json::Required(c, {"comm_c", "challenge_proofs"});
        c.object([&](std::string_view k) {
            if (!r.take(k)) return false;
            if (k == "comm_c") {
                c.bytes32(p.comm_c.data());
            } else if (k == "apex_leafs") {
                p.apex_leafs = json::parse_domains(c);
            } else {
                c.array([&](size_t) {
                    SnapChallengeProof& cp = p.challenge_proofs.emplace_back();
                    json::Required f(c, {"proof_r_old", "proof_d_new", "proof_r_new"});
                    c.object([&](std::string_view kc) {
                        if (!f.take(kc)) return false;
                        (kc == "proof_r_old"   ? cp.proof_r_old
                         : kc == "proof_d_new" ? cp.proof_d_new
                                               : cp.proof_r_new) = json::parse_merkle_proof(c);
                        return true;
                    });
                    f.finish();
                });
            }
            return true;
        });
        r.finish();
        return p;
    });
}

std::string write_snap_vanilla_json(const SnapPartitionProof& proof, UpdateCircuit variant) {
    check_writable(proof, variant, "write_snap_vanilla_json");
    json::Writer w;
    w.raw("{\"comm_c\":");
    w.bytes32(proof.comm_c.data());
    if (variant == UpdateCircuit::Sha256) {
        w.raw(",\"apex_leafs\":");
        w.domains(proof.apex_leafs);
    }
    w.raw(",\"challenge_proofs\":");
    w.array(proof.challenge_proofs, [&](const SnapChallengeProof& c) {
        w.raw("{\"proof_r_old\":");
        w.merkle_proof(c.proof_r_old);
        w.raw(",\"proof_d_new\":");
        w.merkle_proof(c.proof_d_new);
        w.raw(",\"proof_r_new\":");
        w.merkle_proof(c.proof_r_new);
        w.out += '}';
    });
    w.out += '}';
    return std::move(w.out);
}

// ---- checks and witness ---------------------------------------------------------------------------------------

void validate_snap_vanilla_proof(const SnapPartitionProof& proof, const SnapShape& shape, UpdateCircuit variant,
                                 std::string_view label) {
    const bool sha = variant == UpdateCircuit::Sha256;
    const size_t apex = sha ? shape.apex_leaf_count : 0;
    if (proof.apex_leafs.size() != apex)
        malformed(label, "apex_leafs",
                  std::to_string(proof.apex_leafs.size()) + " apex leaves, expected " + std::to_string(apex));
    const size_t challenges = snap_circuit_challenge_count(shape, variant);
    if (proof.challenge_proofs.size() != challenges)
        malformed(label, "challenge_proofs",
                  std::to_string(proof.challenge_proofs.size()) + " challenge proofs, expected " +
                      std::to_string(challenges));
    check_canonical(proof.comm_c, label, "comm_c");
    for (size_t i = 0; i < apex; i++) check_canonical(proof.apex_leafs[i], label, "apex_leafs" + idx(i));
    const ProofShape r_shape = tree_r_proof_shape(shape);
    const ProofShape d_shape = tree_d_proof_shape(shape, variant);
    for (size_t i = 0; i < challenges; i++) {
        const SnapChallengeProof& c = proof.challenge_proofs[i];
        check_proof_shape(c.proof_r_old, r_shape, label, at_challenge(i, "proof_r_old"));
        check_proof_shape(c.proof_d_new, d_shape, label, at_challenge(i, "proof_d_new"));
        check_proof_shape(c.proof_r_new, r_shape, label, at_challenge(i, "proof_r_new"));
    }
}

SnapPartitionWitness snap_partition_witness(const SnapShape& shape, UpdateCircuit variant,
                                            const SnapPartitionProof& proof, uint32_t k, uint32_t h,
                                            const Fr& comm_r_old, const Fr& comm_d_new, const Fr& comm_r_new) {
    const bool sha = variant == UpdateCircuit::Sha256;
    const uint32_t partitions = sha ? shape.partition_count : 1;
    if (k >= partitions)
        throw FilecoinError(FilecoinErrorKind::OutOfRange,
                            "SnapDeals: partition " + std::to_string(k) + " of an update with " +
                                std::to_string(partitions) + " partition(s)");
    if (std::find(shape.hs.begin(), shape.hs.end(), h) == shape.hs.end())
        throw FilecoinError(FilecoinErrorKind::OutOfRange,
                            "SnapDeals: h = " + std::to_string(h) + " is not one the circuit can select");
    const std::string label = "partition " + std::to_string(k);
    validate_snap_vanilla_proof(proof, shape, variant, label);

    // Commitments: the tree-R roots of challenge 0 under comm_c, tree D's root.
    const Fr comm_c = fr_from_domain(proof.comm_c);
    const SnapChallengeProof& first = proof.challenge_proofs[0];
    const Fr root_r_old = fr_from_domain(first.proof_r_old.root);
    const Fr root_r_new = fr_from_domain(first.proof_r_new.root);
    if (comm_r(comm_c, root_r_old) != comm_r_old)
        malformed(label, "comm_c, challenge_proofs[0].proof_r_old.root", "Poseidon-2(comm_c, root) is not comm_r_old");
    if (comm_r(comm_c, root_r_new) != comm_r_new)
        malformed(label, "comm_c, challenge_proofs[0].proof_r_new.root", "Poseidon-2(comm_c, root) is not comm_r_new");
    const Domain comm_d_new_node = domain_from_fr(comm_d_new);
    for (size_t i = 0; i < proof.challenge_proofs.size(); i++) {
        const SnapChallengeProof& c = proof.challenge_proofs[i];
        if (c.proof_r_old.root != first.proof_r_old.root)
            malformed(label, at_challenge(i, "proof_r_old.root"), "differs from challenge 0's");
        if (c.proof_r_new.root != first.proof_r_new.root)
            malformed(label, at_challenge(i, "proof_r_new.root"), "differs from challenge 0's");
        if (c.proof_d_new.root != comm_d_new_node) malformed(label, at_challenge(i, "proof_d_new.root"), "is not comm_d_new");
    }

    // Challenges, paths and the encoding, challenge by challenge on the pool (hashing is the cost).
    const std::vector<uint32_t> challenges =
        sha ? snap_challenges(shape, comm_r_new, k) : snap_challenges_poseidon(shape, comm_r_new);
    const Fr phi = snap_phi(comm_d_new, comm_r_old);
    const size_t apex_height = shape.challenge_bit_len - shape.partition_bit_len - shape.apex_leaf_bit_len;
    const size_t n = challenges.size();
    std::vector<std::string> errors(n);    // the first problem of each challenge, "field\0what"
    std::vector<Domain> apex_root_node(1);  // challenge 0's tree-D node at the apex root's height
    parallel_for(n, [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; i++) {
            auto fail = [&](const std::string& field, const std::string& what) { errors[i] = field + '\0' + what; };
            const SnapChallengeProof& c = proof.challenge_proofs[i];
            const uint64_t want = challenges[i];
            bool ok = true;
            for (auto [name, p] : {std::pair{"proof_r_old", &c.proof_r_old}, std::pair{"proof_d_new", &c.proof_d_new},
                                   std::pair{"proof_r_new", &c.proof_r_new}})
                if (ok && p->leaf_index() != want) {
                    fail(at_challenge(i, name), "proves leaf " + std::to_string(p->leaf_index()) +
                                                    ", the challenge is leaf " + std::to_string(want));
                    ok = false;
                }
            if (!ok) continue;
            for (auto [name, p] : {std::pair{"proof_r_old", &c.proof_r_old}, std::pair{"proof_r_new", &c.proof_r_new}})
                if (ok && path_nodes(*p, false).back() != p->root) {
                    fail(at_challenge(i, name), "the path does not hash to its root");
                    ok = false;
                }
            if (!ok) continue;
            const std::vector<Domain> d_nodes = path_nodes(c.proof_d_new, sha);
            if (d_nodes.back() != c.proof_d_new.root) {
                fail(at_challenge(i, "proof_d_new"), "the path does not hash to comm_d_new");
                continue;
            }
            const Fr rho = snap_rho(phi, snap_challenge_high(shape, want, h));
            if (fr_from_domain(c.proof_r_old.leaf) + fr_from_domain(c.proof_d_new.leaf) * rho !=
                fr_from_domain(c.proof_r_new.leaf)) {
                fail(at_challenge(i, "proof_r_new.leaf"), "is not proof_r_old.leaf + proof_d_new.leaf * rho");
                continue;
            }
            if (!sha) continue;
            const size_t apex_index = (want >> apex_height) & (shape.apex_leaf_count - 1);
            if (d_nodes[apex_height] != proof.apex_leafs[apex_index]) {
                fail(at_challenge(i, "proof_d_new"),
                     "does not pass through apex_leafs" + idx(apex_index) + " (at height " +
                         std::to_string(apex_height) + ")");
                continue;
            }
            for (size_t l = shape.challenge_bit_len - shape.partition_bit_len; l < shape.challenge_bit_len; l++)
                if (c.proof_d_new.base[l].hashes[0] != first.proof_d_new.base[l].hashes[0]) {
                    fail(at_challenge(i, "proof_d_new.level " + std::to_string(l)),
                         "differs from challenge 0's partition path");
                    break;
                }
            if (i == 0) apex_root_node[0] = d_nodes[apex_height + shape.apex_leaf_bit_len];
        }
    });
    for (const std::string& e : errors)
        if (!e.empty()) {
            const size_t z = e.find('\0');
            malformed(label, e.substr(0, z), e.substr(z + 1));
        }
    if (sha) {
        std::vector<Domain> row = proof.apex_leafs;
        while (row.size() > 1) {
            std::vector<Domain> next(row.size() / 2);
            for (size_t i = 0; i < next.size(); i++) next[i] = sha256_node(row[2 * i], row[2 * i + 1]);
            row = std::move(next);
        }
        if (row[0] != apex_root_node[0])
            malformed(label, "apex_leafs", "do not hash to the apex root on challenge 0's tree-D path");
    }

    SnapPartitionWitness out;
    SnapWitness& w = out.witness;
    w.selector = Fr::from_u64(sha ? snap_k_and_h_select(shape, k, h) : snap_h_select(shape, h));
    w.comm_r_old = comm_r_old;
    w.comm_d_new = comm_d_new;
    w.comm_r_new = comm_r_new;
    w.comm_c = comm_c;
    w.root_r_old = root_r_old;
    w.root_r_new = root_r_new;
    for (const Domain& d : proof.apex_leafs) w.apex_leaves.emplace_back(fr_from_domain(d));
    w.challenges.reserve(n);
    for (const SnapChallengeProof& c : proof.challenge_proofs) {
        SnapChallengeWitness cw;
        cw.leaf_r_old = fr_from_domain(c.proof_r_old.leaf);
        cw.leaf_d_new = fr_from_domain(c.proof_d_new.leaf);
        cw.leaf_r_new = fr_from_domain(c.proof_r_new.leaf);
        cw.path_r_old = siblings_of(c.proof_r_old);
        cw.path_d_new = siblings_of(c.proof_d_new);
        cw.path_r_new = siblings_of(c.proof_r_new);
        w.challenges.push_back(std::move(cw));
    }
    out.public_inputs = sha ? snap_public_inputs(shape, k, h, comm_r_old, comm_d_new, comm_r_new)
                            : snap_poseidon_public_inputs(shape, h, comm_r_old, comm_d_new, comm_r_new);
    return out;
}

}  // namespace cuzk::filecoin
