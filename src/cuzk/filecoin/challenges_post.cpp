#include "cuzk/filecoin/challenges_post.hpp"

#include <stdexcept>
#include <string>

namespace cuzk::filecoin {

namespace {

void require_canonical(const Domain& d, const char* what) {
    if (!is_canonical(d))
        throw std::invalid_argument(std::string("PoSt ") + what + " " + domain_to_hex(d) +
                                    " is not a canonical field element (mask byte 31 with 0x3F)");
}

void require_nodes(uint64_t sector_nodes) {
    if (sector_nodes == 0) throw std::invalid_argument("PoSt leaf challenge: a sector of 0 nodes");
}

uint64_t le_u64(const uint8_t* p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

// SHA-256(prefix ‖ challenge_index u64 LE), first 8 bytes LE, mod nodes (generate_leaf_challenge_inner).
uint64_t leaf_from_prefix(const Sha256& prefix, uint64_t challenge_index, uint64_t sector_nodes) {
    Sha256 h = prefix;
    h.update_u64_le(challenge_index);
    return le_u64(h.finalize().data()) % sector_nodes;
}

Sha256 leaf_prefix(const Domain& randomness, uint64_t sector_id) {
    Sha256 h;
    h.update(randomness);
    h.update_u64_le(sector_id);
    return h;
}

}  // namespace

uint64_t post_challenge_index(ApiVersion version, uint64_t sector_index, uint64_t challenge_count, uint64_t n) {
    switch (version) {
        case ApiVersion::V1_0_0:
        case ApiVersion::V1_1_0:
            // Every challenge of the proof has its own index, so the same sector in two positions gets different
            // leaves (Winning PoSt relies on this: its 66 "sectors" are one sector repeated).
            return sector_index * challenge_count + n;
        case ApiVersion::V1_2_0:
            // V1_2 (Window PoSt only) makes a sector's challenges independent of where it sits in the proof.
            return n;
    }
    throw std::invalid_argument("post_challenge_index: unknown api version " + std::to_string((int)version));
}

uint64_t post_leaf_challenge(const Domain& randomness, uint64_t sector_id, uint64_t challenge_index,
                             uint64_t sector_nodes) {
    require_canonical(randomness, "randomness");
    require_nodes(sector_nodes);
    return leaf_from_prefix(leaf_prefix(randomness, sector_id), challenge_index, sector_nodes);
}

std::vector<uint64_t> post_sector_leaf_challenges(ApiVersion version, const Domain& randomness, uint64_t sector_id,
                                                  uint64_t sector_index, uint64_t challenge_count,
                                                  uint64_t sector_nodes) {
    require_canonical(randomness, "randomness");
    require_nodes(sector_nodes);
    Sha256 prefix = leaf_prefix(randomness, sector_id);
    std::vector<uint64_t> leaves(challenge_count);
    for (uint64_t n = 0; n < challenge_count; n++)
        leaves[n] = leaf_from_prefix(prefix, post_challenge_index(version, sector_index, challenge_count, n),
                                     sector_nodes);
    return leaves;
}

std::vector<std::vector<uint64_t>> post_partition_leaf_challenges(ApiVersion version, const Domain& randomness,
                                                                  std::span<const uint64_t> sector_ids,
                                                                  uint64_t partition,
                                                                  uint64_t sectors_per_partition,
                                                                  uint64_t challenge_count, uint64_t sector_nodes) {
    if (sector_ids.size() > sectors_per_partition)
        throw std::invalid_argument("PoSt partition: " + std::to_string(sector_ids.size()) +
                                    " sectors for a partition of " + std::to_string(sectors_per_partition));
    std::vector<std::vector<uint64_t>> out;
    out.reserve(sector_ids.size());
    for (size_t i = 0; i < sector_ids.size(); i++)
        out.push_back(post_sector_leaf_challenges(version, randomness, sector_ids[i],
                                                  partition * sectors_per_partition + i, challenge_count,
                                                  sector_nodes));
    return out;
}

uint64_t winning_sector_challenge(const Domain& randomness, const Domain& prover_id, uint64_t n,
                                  uint64_t sector_set_len) {
    require_canonical(randomness, "randomness");
    require_canonical(prover_id, "prover_id");
    if (sector_set_len == 0) throw std::invalid_argument("Winning PoSt: an empty sector set");
    Sha256 h;
    h.update(prover_id);
    h.update(randomness);
    h.update_u64_le(n);
    return le_u64(h.finalize().data()) % sector_set_len;
}

std::vector<uint64_t> winning_sector_challenges(const Domain& randomness, const Domain& prover_id, uint64_t count,
                                                uint64_t sector_set_len) {
    std::vector<uint64_t> out(count);
    for (uint64_t n = 0; n < count; n++) out[n] = winning_sector_challenge(randomness, prover_id, n, sector_set_len);
    return out;
}

}  // namespace cuzk::filecoin
