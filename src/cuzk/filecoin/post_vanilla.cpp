#include "cuzk/filecoin/post_vanilla.hpp"

#include <cstring>
#include <string>

#include "cuzk/filecoin/challenges_post.hpp"
#include "cuzk/filecoin/tree.hpp"

namespace cuzk::filecoin {

namespace {

[[noreturn]] void malformed(std::string_view label, const std::string& field, const std::string& what) {
    throw FilecoinError(FilecoinErrorKind::MalformedVanilla,
                        std::string(label) + (field.empty() ? "" : ": " + field) + ": " + what);
}

// ---- bincode --------------------------------------------------------------------------------------------------

// A cursor over the bytes that knows the field it is in (a stack of path segments, joined only for an error).
class Reader {
public:
    Reader(std::span<const uint8_t> bytes, std::string_view label) : b_(bytes), label_(label) {}

    struct Field {
        Reader& r;
        Field(Reader& reader, std::string segment) : r(reader) { r.path_.push_back(std::move(segment)); }
        ~Field() { r.path_.pop_back(); }
    };

    uint64_t u64() { return le(8); }
    uint32_t u32() { return (uint32_t)le(4); }
    Domain domain() {
        need(32);
        Domain d;
        std::memcpy(d.data(), b_.data() + at_, 32);
        at_ += 32;
        return d;
    }
    // A Vec's length, refused when the remaining bytes cannot hold that many elements of at least `min_bytes`
    // (so a corrupted length never allocates).
    size_t length(size_t min_bytes) {
        const uint64_t n = u64();
        if (n > (b_.size() - at_) / min_bytes)
            fail("a length of " + std::to_string(n) + " with " + std::to_string(b_.size() - at_) + " bytes left");
        return (size_t)n;
    }
    void finish() {
        if (at_ != b_.size())
            fail(std::to_string(b_.size() - at_) + " bytes after the proof (of " + std::to_string(b_.size()) + ")");
    }
    [[noreturn]] void fail(const std::string& what) const {
        std::string field;
        for (const std::string& s : path_) field += (field.empty() || s[0] == '[' ? "" : ".") + s;
        malformed(label_, field, what);
    }

private:
    void need(size_t n) {
        if (b_.size() - at_ < n)
            fail("truncated: " + std::to_string(n) + " bytes needed at byte " + std::to_string(at_) + ", " +
                 std::to_string(b_.size() - at_) + " left");
    }
    uint64_t le(size_t n) {
        need(n);
        uint64_t v = 0;
        for (size_t i = 0; i < n; i++) v |= (uint64_t)b_[at_ + i] << (8 * i);
        at_ += n;
        return v;
    }

    std::span<const uint8_t> b_;
    std::string_view label_;
    size_t at_ = 0;
    std::vector<std::string> path_;
};

std::string idx(size_t i) { return "[" + std::to_string(i) + "]"; }

std::vector<MerklePathElement> read_inclusion_path(Reader& r) {
    const size_t n = r.length(16);  // an element holds at least its hashes' length and its index
    std::vector<MerklePathElement> out(n);
    for (size_t i = 0; i < n; i++) {
        Reader::Field f(r, idx(i));
        const size_t h = [&] {
            Reader::Field g(r, "hashes");
            return r.length(32);
        }();
        out[i].hashes.resize(h);
        for (size_t k = 0; k < h; k++) {
            Reader::Field g(r, "hashes" + idx(k));
            out[i].hashes[k] = r.domain();
        }
        Reader::Field g(r, "index");
        out[i].index = r.u64();
    }
    return out;
}

MerkleProof read_merkle_proof(Reader& r) {
    MerkleProof p;
    Reader::Field data(r, "data");
    const uint32_t variant = r.u32();
    auto path = [&](const char* name) {
        Reader::Field f(r, name);
        return read_inclusion_path(r);
    };
    auto node = [&](const char* name) {
        Reader::Field f(r, name);
        return r.domain();
    };
    switch (variant) {
        case 0: {
            Reader::Field v(r, "Single");
            p.kind = MerkleProofKind::Single;
            p.root = node("root");
            p.leaf = node("leaf");
            p.base = path("path");
            break;
        }
        case 1: {
            Reader::Field v(r, "Sub");
            p.kind = MerkleProofKind::Sub;
            p.base = path("base_proof");
            p.sub = path("sub_proof");
            p.root = node("root");
            p.leaf = node("leaf");
            break;
        }
        case 2: {
            Reader::Field v(r, "Top");
            p.kind = MerkleProofKind::Top;
            p.base = path("base_proof");
            p.sub = path("sub_proof");
            p.top = path("top_proof");
            p.root = node("root");
            p.leaf = node("leaf");
            break;
        }
        default:
            r.fail("variant " + std::to_string(variant) + " (Single 0, Sub 1 or Top 2)");
    }
    return p;
}

class Writer {
public:
    void u64(uint64_t v) { le(v, 8); }
    void u32(uint32_t v) { le(v, 4); }
    void domain(const Domain& d) { out_.insert(out_.end(), d.begin(), d.end()); }
    std::vector<uint8_t> take() { return std::move(out_); }

private:
    void le(uint64_t v, size_t n) {
        for (size_t i = 0; i < n; i++) out_.push_back((uint8_t)(v >> (8 * i)));
    }
    std::vector<uint8_t> out_;
};

void write_inclusion_path(Writer& w, const std::vector<MerklePathElement>& path) {
    w.u64(path.size());
    for (const MerklePathElement& e : path) {
        w.u64(e.hashes.size());
        for (const Domain& h : e.hashes) w.domain(h);
        w.u64(e.index);
    }
}

void write_merkle_proof(Writer& w, const MerkleProof& p) {
    w.u32((uint32_t)p.kind);
    if (p.kind == MerkleProofKind::Single) {
        w.domain(p.root);
        w.domain(p.leaf);
        write_inclusion_path(w, p.base);
        return;
    }
    write_inclusion_path(w, p.base);
    write_inclusion_path(w, p.sub);
    if (p.kind == MerkleProofKind::Top) write_inclusion_path(w, p.top);
    w.domain(p.root);
    w.domain(p.leaf);
}

// ---- checks ---------------------------------------------------------------------------------------------------

std::string at(std::string_view label, const std::string& field) { return std::string(label) + ": " + field; }

Fr canonical(const Domain& d, std::string_view label, const std::string& field) {
    auto f = try_fr_from_domain(d);
    if (!f) throw FilecoinError(FilecoinErrorKind::NonCanonical, at(label, field) + ": not a canonical field element");
    return *f;
}

// One inclusion proof of tree R_last (shape, arities, indices, canonical nodes, root).
void check_inclusion(const MerkleProof& p, const PostCircuitConfig& c, const Domain& comm_r_last,
                     std::string_view label, const std::string& field) {
    const std::vector<uint32_t> arities = poseidon_tree_arities(c.tree, c.sector_nodes);
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

FallbackPostSectorProof read_post_vanilla_proof(std::span<const uint8_t> bytes, std::string_view label) {
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
                s.inclusion_proofs.resize(r.length(4 + 64));
                for (size_t k = 0; k < s.inclusion_proofs.size(); k++) {
                    Reader::Field h(r, idx(k));
                    s.inclusion_proofs[k] = read_merkle_proof(r);
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
        for (const MerkleProof& p : s.inclusion_proofs) write_merkle_proof(w, p);
        w.domain(s.comm_c);
        w.domain(s.comm_r_last);
    }
    return w.take();
}

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
    for (size_t k = 0; k < s.inclusion_proofs.size(); k++)
        check_inclusion(s.inclusion_proofs[k], circuit, s.comm_r_last, label, field + ".inclusion_proofs" + idx(k));
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
