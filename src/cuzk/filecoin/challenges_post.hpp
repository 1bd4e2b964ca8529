// PoSt challenges (rust-fil-proofs storage-proofs-post fallback/{vanilla,utils,compound}.rs, filecoin-proofs
// api/post_util.rs, api/winning_post.rs):
//
//   leaf challenge   h = SHA-256(randomness[32] ‖ sector_id u64 LE ‖ challenge_index u64 LE);
//                    leaf = (h[0..8] as u64 LE) mod sector_nodes
//   challenge_index  V1_0_0 / V1_1_0: sector_index · challenge_count + n; V1_2_0: n   (n = 0 .. challenge_count)
//                    sector_index = partition · sectors_per_partition + position of the sector in its partition
//   winning sector   SHA-256(prover_id[32] ‖ randomness[32] ‖ n u64 LE)[0..8] as u64 LE mod sector_set_len
//
// randomness and prover_id must be canonical Fr encodings (filecoin-proofs' as_safe_commitment; callers mask byte
// 31 with 0x3F first): anything else is std::invalid_argument here as it is an error upstream.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cuzk/filecoin/hashers.hpp"
#include "cuzk/filecoin/proof_types.hpp"

namespace cuzk::filecoin {

// The challenge index of challenge n of the sector at `sector_index` (utils.rs get_challenge_index).
uint64_t post_challenge_index(ApiVersion version, uint64_t sector_index, uint64_t challenge_count, uint64_t n);

// One leaf challenge (generate_leaf_challenge): a node index in [0, sector_nodes).
uint64_t post_leaf_challenge(const Domain& randomness, uint64_t sector_id, uint64_t challenge_index,
                             uint64_t sector_nodes);

// The challenge_count leaves of one sector, the sector being number `sector_index` of the whole proof (partition
// · sectors_per_partition + its position in the partition). The SHA-256 state after randomness ‖ sector_id is
// shared by the sector's challenges, as upstream does.
std::vector<uint64_t> post_sector_leaf_challenges(ApiVersion version, const Domain& randomness, uint64_t sector_id,
                                                  uint64_t sector_index, uint64_t challenge_count,
                                                  uint64_t sector_nodes);

// Every leaf challenge of one partition (generate_fallback_sector_challenges for one partition): result[i] holds
// the challenges of sector_ids[i], the sectors of partition `partition` in order (at most sectors_per_partition).
// Window PoSt: sectors_per_partition = the size's Window sector count, challenge_count 10. Winning PoSt: the one
// chosen sector, partition 0, sectors_per_partition 1, challenge_count 66 (the circuit later lays these out as 66
// one-challenge "sectors", which under V1_0/V1_1 yields the same 66 indices).
std::vector<std::vector<uint64_t>> post_partition_leaf_challenges(ApiVersion version, const Domain& randomness,
                                                                  std::span<const uint64_t> sector_ids,
                                                                  uint64_t partition,
                                                                  uint64_t sectors_per_partition,
                                                                  uint64_t challenge_count, uint64_t sector_nodes);

// Winning PoSt: which of the miner's `sector_set_len` sectors challenge n picks (generate_sector_challenge).
uint64_t winning_sector_challenge(const Domain& randomness, const Domain& prover_id, uint64_t n,
                                  uint64_t sector_set_len);
// The `count` picks n = 0 .. count (generate_sector_challenges; Winning PoSt asks for its sector_count, 1).
std::vector<uint64_t> winning_sector_challenges(const Domain& randomness, const Domain& prover_id, uint64_t count,
                                                uint64_t sector_set_len);

}  // namespace cuzk::filecoin
