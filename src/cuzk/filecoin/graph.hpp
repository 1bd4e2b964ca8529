// The SDR graph of Filecoin's PoRep (rust-fil-proofs storage-proofs-core drgraph.rs, crypto/feistel.rs,
// crypto/mod.rs; storage-proofs-porep stacked/vanilla/graph.rs, cache.rs) and the primitives it is built from.
//
// Every node n of a sector has 14 parents: 6 from the depth-robust "BucketGraph" (ChaCha8 draws), then 8 from the
// expander (a Feistel permutation over 8 * nodes whose round function is BLAKE2b-512):
//   base (v1.1 / v1.2): [n - 1, d1, d2, d3, d4, d5]     base (v1.0): [d1, d2, d3, d4, d5, n - 1]
//   expander:           permute(8n + i) / 8 for i = 0..7 (v1.0 truncates the permuted value to 32 bits first)
//   nodes 0 and 1:      the six base parents are all 0.
// drg_seed = SHA-256("Filecoin_DRSample" || porep_id)[0..28]; the rng of node n is ChaCha8 seeded with
// drg_seed || n as u32 LE. feistel keys = SHA-256("Filecoin_Feistel" || porep_id) as four u64 LE.
//
// The parent cache is, for every node in order, its 14 parents as u32 LE (56 bytes a node); filecoin-proofs
// publishes the SHA-256 of each production cache (parent_cache.json) under the name "v28-sdr-parent-<hex>", hex =
// SHA-256("poseidon_hasher" || graph identifier || the four feistel keys u64 LE || nodes u32 LE).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "cuzk/filecoin/proof_types.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::filecoin {

// ---- ChaCha ------------------------------------------------------------------------------------------------------

// One ChaCha block: `rounds` rounds (8, 12 or 20) over the 16-word input state, then the input added word by word.
void chacha_block(const std::array<uint32_t, 16>& input, unsigned rounds, std::array<uint32_t, 16>& out);

// rand_chacha's ChaChaXRng::from_seed (Bernstein's layout): key = the 32-byte seed, a 64-bit block counter from 0
// in words 12..13, the stream id 0 in words 14..15. Output words are consumed in order; a u64 is two consecutive
// words, low word first (rand_core's BlockRng::next_u64 at any buffer position), which is how Rng::gen::<u64>()
// draws. rand_chacha refills four blocks at a time; that changes nothing in the word sequence.
class ChaChaRng {
  public:
    ChaChaRng(const std::array<uint8_t, 32>& seed, unsigned rounds);
    uint32_t next_u32();
    uint64_t next_u64();
    // Moves to word `pos` of the stream (rand_chacha's set_word_pos).
    void set_word_pos(uint64_t pos);

  private:
    std::array<uint32_t, 16> state_{};
    std::array<uint32_t, 16> block_{};
    unsigned rounds_;
    unsigned index_ = 16;  // next word of block_; 16 = the block is used up
};

// The generator the DRG uses.
class ChaCha8Rng : public ChaChaRng {
  public:
    explicit ChaCha8Rng(const std::array<uint8_t, 32>& seed) : ChaChaRng(seed, 8) {}
};

// RustCrypto's chacha20::ChaCha20 (RFC 8439): a 32-byte key, a 12-byte nonce in words 13..15 and a 32-bit block
// counter from 0 in word 12; the keystream is addressed by byte (StreamCipherSeek) and ends after 2^32 blocks.
class ChaCha20Ietf {
  public:
    ChaCha20Ietf(const std::array<uint8_t, 32>& key, const std::array<uint8_t, 12>& nonce);
    // FilecoinError(OutOfRange) past the end of the keystream (256 GiB).
    void seek(uint64_t byte_offset);
    // The next out.size() keystream bytes (what apply_keystream XORs in); FilecoinError(OutOfRange) past the end.
    void keystream(std::span<uint8_t> out);

  private:
    std::array<uint32_t, 16> state_{};
    uint64_t pos_ = 0;  // byte offset of the next keystream byte
};

// ---- BLAKE2b (RFC 7693) ----------------------------------------------------------------------------------------

// BLAKE2b with a digest of out.size() bytes (1..64) and an optional key of up to 64 bytes (keyed hashing: the key,
// zero-padded to one block, is hashed first). std::invalid_argument for other sizes.
void blake2b(std::span<const uint8_t> message, std::span<uint8_t> out, std::span<const uint8_t> key = {});

// The same, fed in pieces (a parameter file's digest, streamed without a copy). Unkeyed.
class Blake2b {
  public:
    // std::invalid_argument unless 1 <= digest_bytes <= 64.
    explicit Blake2b(size_t digest_bytes = 64);
    void update(std::span<const uint8_t> bytes);
    // The digest (digest_bytes); the object is spent afterwards.
    std::vector<uint8_t> finish();

  private:
    void compress(const uint8_t* block, bool last);
    uint64_t h_[8];
    uint8_t buf_[128];
    size_t buffered_ = 0;
    uint64_t total_ = 0;
    size_t out_bytes_;
};

// ---- the Feistel permutation of the expander -----------------------------------------------------------------------

inline constexpr unsigned FEISTEL_ROUNDS = 3;

// The smallest h >= 1 with 4^h >= num_elements; values are split into two h-bit halves.
struct FeistelParams {
    uint64_t left_mask = 0;
    uint64_t right_mask = 0;
    unsigned half_bits = 0;
};
FeistelParams feistel_precompute(uint64_t num_elements);

// Round function F(right, key) = the first 8 bytes, big-endian, of BLAKE2b-512(right u64 BE || key u64 BE), masked.
uint64_t feistel_round(uint64_t right, uint64_t key, uint64_t right_mask);

// Three rounds (L, R) -> (R, L ^ F(R, key_i)) repeated until the value is < num_elements (cycle walking).
uint64_t feistel_permute(uint64_t num_elements, uint64_t index, const std::array<uint64_t, 4>& keys,
                         const FeistelParams& params);

// ---- the graph ---------------------------------------------------------------------------------------------------

inline constexpr size_t BASE_DEGREE = 6;
inline constexpr size_t EXP_DEGREE = 8;
inline constexpr size_t DEGREE = BASE_DEGREE + EXP_DEGREE;
using Parents = std::array<uint32_t, DEGREE>;

class StackedGraph {
  public:
    // FilecoinError(OutOfRange) unless 2 <= nodes <= 2^32 - 1 (upstream stores parents as u32).
    StackedGraph(uint64_t nodes, const Bytes32& porep_id, ApiVersion version);
    explicit StackedGraph(const PorepConfig& config);

    uint64_t nodes() const { return nodes_; }
    ApiVersion api_version() const { return version_; }
    const Bytes32& porep_id() const { return porep_id_; }
    const std::array<uint8_t, 28>& drg_seed() const { return drg_seed_; }
    const std::array<uint64_t, 4>& feistel_keys() const { return feistel_keys_; }

    // node < nodes(), else FilecoinError(OutOfRange).
    std::array<uint32_t, BASE_DEGREE> base_parents(uint64_t node) const;
    std::array<uint32_t, EXP_DEGREE> expander_parents(uint64_t node) const;
    Parents parents(uint64_t node) const;

    // The parents of nodes [first, first + out.size() / 14) into out, on the calling thread (the expander half
    // runs several Feistel permutations side by side). out.size() must be a multiple of 14.
    void parents_range(uint64_t first, std::span<uint32_t> out) const;

    // "stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: N; degree: 6;
    // hasher: poseidon_hasher} }" (as in the parameter identifier).
    std::string identifier() const;
    // "v28-sdr-parent-<hex>": the key of parent_cache.json and the cache file's stem (upstream adds ".cache").
    std::string parent_cache_id() const;

  private:
    void base_parents_into(uint32_t node, uint32_t* out) const;

    uint64_t nodes_;
    Bytes32 porep_id_;
    ApiVersion version_;
    std::array<uint8_t, 28> drg_seed_{};
    std::array<uint64_t, 4> feistel_keys_{};
    FeistelParams feistel_;
};

// ---- the parent cache --------------------------------------------------------------------------------------------

struct ParentCacheOptions {
    // Also write the cache to this file (through a temporary file renamed into place); empty = don't write.
    std::filesystem::path output;
    // Nodes generated (on all threads) per step before they are hashed and written: bounds the memory to
    // 56 bytes x chunk_nodes whatever the sector size.
    uint64_t chunk_nodes = uint64_t(1) << 20;
    // Spans "parent_cache.generate" and "parent_cache.sha256" (layer Pipeline, item = chunk index); null: none.
    TimingSink* timing = nullptr;
};

// The SHA-256 of the whole cache, generated on cuzk's thread pool chunk by chunk. FilecoinError(Io) when the
// file cannot be written.
Bytes32 parent_cache_sha256(const StackedGraph& graph, const ParentCacheOptions& options = {});

// The whole cache in memory (nodes x 14 words), generated on cuzk's thread pool.
std::vector<uint32_t> parent_cache(const StackedGraph& graph);

}  // namespace cuzk::filecoin
