// bincode 1.x as filecoin-proofs(-api) uses it (serde derive, bincode::serialize defaults): fixed-width
// little-endian integers, a u64 length before every Vec, a u32 variant index before an enum's fields, [u8; 32] as its
// 32 bytes, structs as their fields in declaration order. Internal to the vanilla-proof readers (post_vanilla,
// snap_vanilla): a cursor that knows the field it is in, and merkle/proof.rs MerkleProof in both directions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cuzk/filecoin/c1.hpp"

namespace cuzk::filecoin::bincode {

// FilecoinError(MalformedVanilla): "<label>: <field>: <what>".
[[noreturn]] void malformed(std::string_view label, const std::string& field, const std::string& what);

// "[i]", a path segment.
std::string idx(size_t i);

// A cursor over the bytes that knows the field it is in (a stack of path segments, joined only for an error).
class Reader {
public:
    Reader(std::span<const uint8_t> bytes, std::string_view label) : b_(bytes), label_(label) {}

    // Names the field while it is alive.
    struct Field {
        Reader& r;
        Field(Reader& reader, std::string segment) : r(reader) { r.path_.push_back(std::move(segment)); }
        ~Field() { r.path_.pop_back(); }
    };

    uint64_t u64() { return le(8); }
    uint32_t u32() { return (uint32_t)le(4); }
    Domain domain();
    // A Vec's length, refused when the remaining bytes cannot hold that many elements of at least `min_bytes`
    // (so a corrupted length never allocates).
    size_t length(size_t min_bytes);
    // Refuses bytes left after the value.
    void finish();
    [[noreturn]] void fail(const std::string& what) const;

private:
    void need(size_t n);
    uint64_t le(size_t n);

    std::span<const uint8_t> b_;
    std::string_view label_;
    size_t at_ = 0;
    std::vector<std::string> path_;
};

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

// MerkleProof = ProofData: 0 Single(root, leaf, path), 1 Sub(base_proof, sub_proof, root, leaf), 2 Top(base_proof,
// sub_proof, top_proof, root, leaf); InclusionPath = Vec<PathElement{hashes: Vec<[32]>, index: u64}>.
MerkleProof read_merkle_proof(Reader& r);
void write_merkle_proof(Writer& w, const MerkleProof& p);
// Fewest bytes a MerkleProof takes (a variant, two nodes, an empty path): for Reader::length.
inline constexpr size_t kMinMerkleProofBytes = 4 + 64 + 8;

}  // namespace cuzk::filecoin::bincode
