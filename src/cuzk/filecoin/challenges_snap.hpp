// SnapDeals (EmptySectorUpdate) randomness and challenges (rust-fil-proofs storage-proofs-update constants.rs,
// challenges.rs, vanilla.rs, circuit.rs PublicInputs):
//
//   H(a, b)   Poseidon arity 2 with the domain tag HashType::Custom(Arbitrary(1)) = 2^40 ("gen randomness"),
//             the arity-2 Standard constants
//   phi       H(comm_d_new, comm_r_old)
//   rho(c)    H(phi, high) with high = c >> (log2(sector_nodes) − h): the h high bits of the node index
//   digest j  H(comm_r_new, j), j counted across all partitions (partition k starts at k · digests_per_partition)
//   challenge the next b = log2(nodes) − log2(partitions) bits of the digest (little-endian bit order, ⌊254 / b⌋
//             challenges per digest), with k placed above them: c = bits | (k << b); so every challenge of
//             partition k lies in the k-th of `partitions` equal chunks of the sector
//   new replica node = old replica node + new data node · rho
//   public inputs: k_and_h_select = k | (h_select << log2(partitions)), h_select = 2^(index of h in hs)
//
// All commitments enter as field elements (comm_d_new is tree D's root, a trimmed SHA-256 and so canonical).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "cuzk/ff/fr.hpp"
#include "cuzk/filecoin/proof_types.hpp"

namespace cuzk::filecoin {

// Everything constants.rs and PublicParams derive from the sector size. Sizes (in 32-byte nodes) upstream
// accepts: 1, 2, 4, 8, 16, 32 KiB, 8 MiB, 16 MiB, 512 MiB (tests) and 32, 64 GiB (published).
struct SnapShape {
    uint64_t sector_nodes = 0;
    uint32_t challenge_bit_len = 0;          // log2(sector_nodes): tree D's height
    uint32_t partition_count = 0;            // 1 (≤ 8 KiB), 2 (≤ 32 KiB), 4 (≤ 16 MiB), 16
    uint32_t partition_bit_len = 0;          // log2(partition_count)
    uint32_t challenge_count = 0;            // per partition: 10 (≤ 16 MiB), 86
    uint32_t apex_leaf_count = 0;            // 8 (≤ 8 KiB), 128
    uint32_t apex_leaf_bit_len = 0;          // log2(apex_leaf_count)
    uint32_t random_bits_per_challenge = 0;  // challenge_bit_len − partition_bit_len
    uint32_t challenges_per_digest = 0;      // ⌊254 / random_bits_per_challenge⌋ (Fr::CAPACITY)
    uint32_t digests_per_partition = 0;      // ⌈challenge_count / challenges_per_digest⌉
    std::array<uint32_t, 6> hs{};            // the h values the circuit can select: [1; 6] (≤ 32 KiB), 7..12
    uint32_t h_default = 0;                  // hs[3]: 10 for production sizes
    TreeShape tree_r;                        // tree R's shape for this size (validate_tree_r_shape)

    // std::invalid_argument for a size upstream does not allow.
    static SnapShape from_sector_nodes(uint64_t sector_nodes);
    static SnapShape from_sector_size(uint64_t sector_bytes);
};

// 2^40: HashType::Custom(CType::Arbitrary(1)).domain_tag().
Fr snap_randomness_tag();
// H(a, b) under that tag.
Fr snap_randomness_hash(const Fr& a, const Fr& b);

Fr snap_phi(const Fr& comm_d_new, const Fr& comm_r_old);
Fr snap_rho(const Fr& phi, uint32_t high);
// All 2^h rhos: table[high] = snap_rho(phi, high) (vanilla.rs Rhos over the whole sector), on the thread pool.
std::vector<Fr> snap_rho_table(const Fr& phi, uint32_t h);
// The high bits rho is taken of: c >> (challenge_bit_len − h). h must be one of shape.hs.
uint32_t snap_challenge_high(const SnapShape& shape, uint64_t c, uint32_t h);

// Digest j of the challenge stream: H(comm_r_new, j).
Fr snap_challenge_digest(const Fr& comm_r_new, uint64_t digest_index);
// The challenge_count challenges of partition k (Challenges::new(sector_nodes, comm_r_new, k)).
std::vector<uint32_t> snap_challenges(const SnapShape& shape, const Fr& comm_r_new, uint32_t k);
// The single-partition EmptySectorUpdate-Poseidon variant (Challenges::new_poseidon): challenge_count ·
// partition_count challenges of log2(nodes) random bits each, digests from index 0.
std::vector<uint32_t> snap_challenges_poseidon(const SnapShape& shape, const Fr& comm_r_new);

// h_select = 1 << (position of h in hs); k_and_h_select = k | (h_select << partition_bit_len) (the circuit's
// first public input). std::invalid_argument when h is not in hs or k ≥ partition_count.
uint64_t snap_h_select(const SnapShape& shape, uint32_t h);
uint64_t snap_k_and_h_select(const SnapShape& shape, uint32_t k, uint32_t h);

}  // namespace cuzk::filecoin
