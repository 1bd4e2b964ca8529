#include "cuzk/filecoin/bincode.hpp"

#include <cstring>

namespace cuzk::filecoin::bincode {

void malformed(std::string_view label, const std::string& field, const std::string& what) {
    throw FilecoinError(FilecoinErrorKind::MalformedVanilla,
                        std::string(label) + (field.empty() ? "" : ": " + field) + ": " + what);
}

std::string idx(size_t i) { return "[" + std::to_string(i) + "]"; }

Domain Reader::domain() {
    need(32);
    Domain d;
    std::memcpy(d.data(), b_.data() + at_, 32);
    at_ += 32;
    return d;
}

size_t Reader::length(size_t min_bytes) {
    const uint64_t n = u64();
    if (n > (b_.size() - at_) / min_bytes)
        fail("a length of " + std::to_string(n) + " with " + std::to_string(b_.size() - at_) + " bytes left");
    return (size_t)n;
}

void Reader::finish() {
    if (at_ != b_.size())
        fail(std::to_string(b_.size() - at_) + " bytes after the proof (of " + std::to_string(b_.size()) + ")");
}

void Reader::fail(const std::string& what) const {
    std::string field;
    for (const std::string& s : path_) field += (field.empty() || s[0] == '[' ? "" : ".") + s;
    malformed(label_, field, what);
}

void Reader::need(size_t n) {
    if (b_.size() - at_ < n)
        fail("truncated: " + std::to_string(n) + " bytes needed at byte " + std::to_string(at_) + ", " +
             std::to_string(b_.size() - at_) + " left");
}

uint64_t Reader::le(size_t n) {
    need(n);
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) v |= (uint64_t)b_[at_ + i] << (8 * i);
    at_ += n;
    return v;
}

namespace {

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

void write_inclusion_path(Writer& w, const std::vector<MerklePathElement>& path) {
    w.u64(path.size());
    for (const MerklePathElement& e : path) {
        w.u64(e.hashes.size());
        for (const Domain& h : e.hashes) w.domain(h);
        w.u64(e.index);
    }
}

}  // namespace

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
        case 1:
        case 2: {  // Sub and Top: the top path between the sub path and the nodes
            const bool top = variant == 2;
            Reader::Field v(r, top ? "Top" : "Sub");
            p.kind = top ? MerkleProofKind::Top : MerkleProofKind::Sub;
            p.base = path("base_proof");
            p.sub = path("sub_proof");
            if (top) p.top = path("top_proof");
            p.root = node("root");
            p.leaf = node("leaf");
            break;
        }
        default:
            r.fail("variant " + std::to_string(variant) + " (Single 0, Sub 1 or Top 2)");
    }
    return p;
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

}  // namespace cuzk::filecoin::bincode
