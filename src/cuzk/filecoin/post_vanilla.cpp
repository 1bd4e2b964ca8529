#include "cuzk/filecoin/post_vanilla.hpp"

#include <string>

#include "cuzk/filecoin/bincode.hpp"
#include "cuzk/filecoin/challenges_post.hpp"
#include "cuzk/filecoin/tree.hpp"
#include "cuzk/filecoin/vanilla_json.hpp"

namespace cuzk::filecoin {

namespace {

using bincode::idx;
using bincode::malformed;
using bincode::Reader;
using bincode::Writer;

// ---- checks ---------------------------------------------------------------------------------------------------

std::string at(std::string_view label, const std::string& field) { return std::string(label) + ": " + field; }

Fr canonical(const Domain& d, std::string_view label, const std::string& field) {
    auto f = try_fr_from_domain(d);
    if (!f) throw FilecoinError(FilecoinErrorKind::NonCanonical, at(label, field) + ": not a canonical field element");
    return *f;
}

// One inclusion proof of tree R_last (shape, arities, indices, canonical nodes, root).
// `arities`: poseidon_tree_arities of the circuit's tree, computed once per sector proof.
void check_inclusion(const MerkleProof& p, const PostCircuitConfig& c, std::span<const uint32_t> arities,
                     const Domain& comm_r_last,
                     std::string_view label, const std::string& field) {
    const size_t extra = (c.tree.sub ? 1 : 0) + (c.tree.top ? 1 : 0);
    const MerkleProofKind want = c.tree.top   ? MerkleProofKind::Top
                                 : c.tree.sub ? MerkleProofKind::Sub
                                              : MerkleProofKind::Single;
    static constexpr const char* kKind[] = {"Single", "Sub", "Top"};
    if (p.kind != want)
        malformed(label, field,
                  std::string("a ") + kKind[(int)p.kind] + " proof, tree " + tree_shape_name(c.tree) + " has " +
                      kKind[(int)want] + " proofs");
    const size_t base = arities.size() - extra;
    if (p.base.size() != base)
        malformed(label, field, std::to_string(p.base.size()) + " base levels, expected " + std::to_string(base));
    if (p.sub.size() != (c.tree.sub ? 1u : 0u) || p.top.size() != (c.tree.top ? 1u : 0u))
        malformed(label, field, "sub/top levels do not fit tree " + tree_shape_name(c.tree));
    size_t level = 0;
    for (const auto* part : {&p.base, &p.sub, &p.top})
        for (const MerklePathElement& e : *part) {
            const uint32_t arity = arities[level];
            const std::string where = field + ".level " + std::to_string(level);
            if (e.hashes.size() != arity - 1)
                malformed(label, where,
                          std::to_string(e.hashes.size()) + " siblings, arity " + std::to_string(arity) + " needs " +
                              std::to_string(arity - 1));
            if (e.index >= arity)
                malformed(label, where, "index " + std::to_string(e.index) + " >= arity " + std::to_string(arity));
            for (size_t k = 0; k < e.hashes.size(); k++) canonical(e.hashes[k], label, where + " sibling " + idx(k));
            level++;
        }
    canonical(p.leaf, label, field + ".leaf");
    if (p.root != comm_r_last) malformed(label, field + ".root", "is not the sector proof's comm_r_last");
}

// The circuit sector witness of one challenge set: comm_c, comm_r_last from the sector proof, comm_r.
PostSectorWitness sector_witness(const Fr& comm_r, const PostSectorProof& s, std::span<const MerkleProof> proofs) {
    PostSectorWitness w;
    w.comm_r = comm_r;
    w.comm_c = fr_from_domain(s.comm_c);
    w.comm_r_last = fr_from_domain(s.comm_r_last);
    for (const MerkleProof& p : proofs) {
        w.leaves.push_back(fr_from_domain(p.leaf));
        w.paths.push_back(por_path_of(p));
    }
    return w;
}

}  // namespace

// ---- bincode ----------------------------------------------------------------------------------------------------

FallbackPostSectorProof read_post_vanilla_proof(std::span<const uint8_t> bytes, std::string_view label) {
    return json::read_bincode_or_json(
        bytes, [&](std::span<const uint8_t> b) { return read_post_vanilla_bincode(b, label); },
        [&](std::string_view text) { return parse_post_vanilla_json(text, label); });
}

FallbackPostSectorProof read_post_vanilla_bincode(std::span<const uint8_t> bytes, std::string_view label) {
    Reader r(bytes, label);
    FallbackPostSectorProof p;
    {
        Reader::Field f(r, "sector_id");
        p.sector_id = r.u64();
    }
    {
        Reader::Field f(r, "comm_r");
        p.comm_r = r.domain();
    }
    {
        Reader::Field vp(r, "vanilla_proof");
        Reader::Field ss(r, "sectors");
        p.sectors.resize(r.length(8 + 64));
        for (size_t i = 0; i < p.sectors.size(); i++) {
            Reader::Field f(r, idx(i));
            PostSectorProof& s = p.sectors[i];
            {
                Reader::Field g(r, "inclusion_proofs");
                s.inclusion_proofs.resize(r.length(bincode::kMinMerkleProofBytes));
                for (size_t k = 0; k < s.inclusion_proofs.size(); k++) {
                    Reader::Field h(r, idx(k));
                    s.inclusion_proofs[k] = bincode::read_merkle_proof(r);
                }
            }
            Reader::Field c(r, "comm_c");
            s.comm_c = r.domain();
            Reader::Field l(r, "comm_r_last");
            s.comm_r_last = r.domain();
        }
    }
    r.finish();
    return p;
}

std::vector<uint8_t> write_post_vanilla_proof(const FallbackPostSectorProof& proof) {
    Writer w;
    w.u64(proof.sector_id);
    w.domain(proof.comm_r);
    w.u64(proof.sectors.size());
    for (const PostSectorProof& s : proof.sectors) {
        w.u64(s.inclusion_proofs.size());
        for (const MerkleProof& p : s.inclusion_proofs) bincode::write_merkle_proof(w, p);
        w.domain(s.comm_c);
        w.domain(s.comm_r_last);
    }
    return w.take();
}

// ---- JSON -------------------------------------------------------------------------------------------------------

FallbackPostSectorProof parse_post_vanilla_json(std::string_view text, std::string_view label) {
    return json::parse_vanilla<FallbackPostSectorProof>(text, label, [](json::Cursor& c) {
        FallbackPostSectorProof p;
        json::Required r(c, {"sector_id", "comm_r", "vanilla_proof"});
        c.object([&](std::string_view k) {
            if (!r.take(k)) return false;
            if (k == "sector_id") {
                p.sector_id = c.number(UINT64_MAX, "a u64 (SectorId)");
            } else if (k == "comm_r") {
                c.bytes32(p.comm_r.data());
            } else {
                json::Required v(c, {"sectors"});
                c.object([&](std::string_view kv) {
                    if (!v.take(kv)) return false;
                    c.array([&](size_t) {
                        PostSectorProof& s = p.sectors.emplace_back();
                        json::Required f(c, {"inclusion_proofs", "comm_c", "comm_r_last"});
                        c.object([&](std::string_view ks) {
                            if (!f.take(ks)) return false;
                            if (ks == "inclusion_proofs")
                                c.array([&](size_t) { s.inclusion_proofs.push_back(json::parse_merkle_proof(c)); });
                            else c.bytes32((ks == "comm_c" ? s.comm_c : s.comm_r_last).data());
                            return true;
                        });
                        f.finish();
                    });
                    return true;
                });
                v.finish();
            }
            return true;
        });
        r.finish();
        return p;
    });
}

std::string write_post_vanilla_json(const FallbackPostSectorProof& proof) {
    json::Writer w;
    w.raw("{\"sector_id\":");
    w.number(proof.sector_id);
    w.raw(",\"comm_r\":");
    w.bytes32(proof.comm_r.data());
    w.raw(",\"vanilla_proof\":{\"sectors\":");
    w.array(proof.sectors, [&](const PostSectorProof& s) {
        w.raw("{\"inclusion_proofs\":");
        w.array(s.inclusion_proofs, [&](const MerkleProof& p) { w.merkle_proof(p); });
        w.raw(",\"comm_c\":");
        w.bytes32(s.comm_c.data());
        w.raw(",\"comm_r_last\":");
        w.bytes32(s.comm_r_last.data());
        w.out += '}';
    });
    w.raw("}}");
    return std::move(w.out);
}

// ---- checks and witness ---------------------------------------------------------------------------------------

void validate_post_vanilla_proof(const FallbackPostSectorProof& proof, const PostCircuitConfig& circuit, PoStType type,
                                 std::string_view label) {
    if (proof.sectors.size() != 1)
        malformed(label, "vanilla_proof.sectors", std::to_string(proof.sectors.size()) + " sector proofs, expected 1");
    const PostSectorProof& s = proof.sectors[0];
    const std::string field = "vanilla_proof.sectors[0]";
    const size_t want = type == PoStType::Winning ? circuit.sector_count : circuit.challenge_count;
    if (s.inclusion_proofs.size() != want)
        malformed(label, field + ".inclusion_proofs",
                  std::to_string(s.inclusion_proofs.size()) + " inclusion proofs, the " +
                      (type == PoStType::Winning ? "Winning" : "Window") + " PoSt challenges " + std::to_string(want));
    const Fr comm_r = canonical(proof.comm_r, label, "comm_r");
    const Fr comm_c = canonical(s.comm_c, label, field + ".comm_c");
    const Fr comm_r_last = canonical(s.comm_r_last, label, field + ".comm_r_last");
    if (filecoin::comm_r(comm_c, comm_r_last) != comm_r)
        throw FilecoinError(FilecoinErrorKind::InvalidCommitment,
                            at(label, "comm_r") + ": is not Poseidon-2(comm_c, comm_r_last) of the sector proof");
    const std::vector<uint32_t> arities = poseidon_tree_arities(circuit.tree, circuit.sector_nodes);
    for (size_t k = 0; k < s.inclusion_proofs.size(); k++)
        check_inclusion(s.inclusion_proofs[k], circuit, arities, s.comm_r_last, label,
                        field + ".inclusion_proofs" + idx(k));
}

PostPartitionWitness post_partition_witness(const PostCircuitConfig& circuit, PoStType type, const Domain& randomness,
                                            std::span<const FallbackPostSectorProof> proofs, uint32_t partition) {
    const bool winning = type == PoStType::Winning;
    if (proofs.empty() || (winning && proofs.size() != 1) || proofs.size() > circuit.sector_count)
        malformed("PoSt", "vanilla_proofs",
                  std::to_string(proofs.size()) + " sector proofs for a partition of " +
                      (winning ? std::string("1 (Winning PoSt)") : std::to_string(circuit.sector_count) + " sectors"));
    if (winning && partition != 0) malformed("PoSt", "partition", "Winning PoSt has one partition");
    const uint64_t first = uint64_t(partition) * circuit.sector_count;
    PostPartitionWitness out;
    std::vector<PostPublicSector> pub;
    for (size_t i = 0; i < proofs.size(); i++) {
        const FallbackPostSectorProof& p = proofs[i];
        const std::string label = "vanilla proof of sector " + std::to_string(p.sector_id);
        validate_post_vanilla_proof(p, circuit, type, label);
        const Fr comm_r = fr_from_domain(p.comm_r);
        const PostSectorProof& s = p.sectors[0];
        // Winning: the one proof's inclusion proofs are the circuit's one-challenge sectors.
        const size_t circuit_sectors = winning ? s.inclusion_proofs.size() : 1;
        const size_t per = winning ? 1 : s.inclusion_proofs.size();
        for (size_t j = 0; j < circuit_sectors; j++) {
            const size_t position = winning ? j : i;
            const std::span<const MerkleProof> proofs_j(s.inclusion_proofs.data() + j * per, per);
            const std::vector<uint64_t> leaves =
                post_sector_leaf_challenges(circuit.api_version, randomness, p.sector_id, first + position,
                                            circuit.challenge_count, circuit.sector_nodes);
            for (size_t n = 0; n < per; n++)
                if (proofs_j[n].leaf_index() != leaves[n])
                    malformed(label, "vanilla_proof.sectors[0].inclusion_proofs" + idx(j * per + n),
                              "proves leaf " + std::to_string(proofs_j[n].leaf_index()) +
                                  ", the randomness challenges leaf " + std::to_string(leaves[n]));
            out.sectors.push_back(sector_witness(comm_r, s, proofs_j));
            pub.push_back(PostPublicSector{p.sector_id, comm_r});
        }
    }
    out.public_inputs = post_partition_public_inputs(circuit, randomness, pub, first);
    return out;
}

}  // namespace cuzk::filecoin
