// Filecoin's native SHA-256 hashing (filecoin-hashers' Sha256Hasher) and the 32-byte node encoding every tree,
// commitment and id uses.
//
// A node ("Domain") is 32 bytes: the little-endian canonical (non-Montgomery) representation of an Fr, as
// `Fr::to_repr` writes it. SHA-256 outputs become nodes by `trim_to_fr32`: clear the two most significant bits of
// the LAST byte (byte[31] &= 0x3F), so the little-endian integer is < 2^254 < r. Tree D nodes, comm_d, labels and
// replica_id all use this trim; PoSt challenges use the untrimmed digest (see challenges_post.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "cuzk/ff/fr.hpp"

namespace cuzk::filecoin {

inline constexpr size_t kNodeBytes = 32;

// One 32-byte node as stored on disk and in proofs (little-endian Fr repr; SHA-256 digests after trimming).
using Domain = std::array<uint8_t, kNodeBytes>;
// A raw SHA-256 digest (untrimmed).
using Sha256Digest = std::array<uint8_t, 32>;

// ---- node <-> Fr --------------------------------------------------------------------------------------------

// The node of an Fr (its canonical little-endian bytes).
Domain domain_from_fr(const Fr& x);
// The Fr a node encodes, or nullopt when the 32 bytes are >= r (not a canonical field element).
std::optional<Fr> try_fr_from_domain(const Domain& d);
// Same, but a non-canonical node is an error: std::invalid_argument naming `what` and the value.
Fr fr_from_domain(const Domain& d, std::string_view what = "node");
// True when the node is a canonical Fr (< r).
bool is_canonical(const Domain& d);

// Hex of the 32 raw bytes in storage order (byte 0 first), the form Filecoin tools print commitments in.
std::string domain_to_hex(const Domain& d);
// Parses 64 hex digits (optional "0x") in storage order; std::invalid_argument on anything else.
Domain domain_from_hex(std::string_view hex);

// ---- SHA-256 ------------------------------------------------------------------------------------------------

// byte[31] &= 0x3F: the two top bits of the little-endian integer cleared (filecoin-hashers `trim_to_fr32`).
inline void trim_to_fr32(Domain& d) { d[31] &= 0x3F; }

// Plain SHA-256 of a byte string.
Sha256Digest sha256(std::span<const uint8_t> data);
// SHA-256 then trim: HashFunction::hash of Sha256Hasher (replica_id, labels, any single-input hash).
Domain sha256_trimmed(std::span<const uint8_t> data);
// The tree-D node hash: trim(SHA-256(left ‖ right)) (Sha256Function::node / hash2).
Domain sha256_node(const Domain& left, const Domain& right);

// parents[i] = sha256_node(children[2i], children[2i+1]) for every i, on all threads of the global pool.
// children.size() must be 2 * parents.size(). Rows of a binary tree are built with this.
void sha256_nodes(std::span<const Domain> children, std::span<Domain> parents);
// The same on the calling thread only (for callers that already split the work).
void sha256_nodes_serial(std::span<const Domain> children, std::span<Domain> parents);

// Incremental SHA-256 for multi-part messages (challenge derivations hash randomness ‖ id ‖ index).
// Copyable: a copy continues from the same state, as rust's `hasher.clone()` does for a shared prefix.
class Sha256 {
public:
    Sha256();
    Sha256& update(std::span<const uint8_t> data);
    Sha256& update_u64_le(uint64_t v);
    Sha256& update_u32_le(uint32_t v);
    Sha256Digest finalize() const;          // the hasher itself is left unchanged
    Domain finalize_trimmed() const;

private:
    // Chaining state, bytes buffered towards the next 64-byte block and the total length, kept here (not in an
    // OpenSSL context) so copies are plain value copies.
    std::array<uint32_t, 8> state_;
    std::array<uint8_t, 64> buf_{};
    size_t buffered_ = 0;
    uint64_t total_ = 0;
};

namespace detail {
// Whether this CPU has the SHA extensions (x86 SHA-NI); the node hashes use them when present.
bool sha_ni_available();
// One SHA-256 compression of a 64-byte block into state (portable code; the reference for the fast path).
void sha256_compress_portable(std::array<uint32_t, 8>& state, const uint8_t block[64]);
// The node hash through the portable compression only, for tests of the dispatching fast path.
Domain sha256_node_portable(const Domain& left, const Domain& right);
}  // namespace detail

}  // namespace cuzk::filecoin
