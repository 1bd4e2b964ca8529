#include "cuzk/filecoin/challenges_snap.hpp"

#include <bit>
#include <stdexcept>
#include <string>

#include "cuzk/gadgets/poseidon.hpp"

namespace cuzk::filecoin {

namespace {

constexpr uint64_t KiB = 1024 / 32, MiB = KiB * 1024, GiB = MiB * 1024;  // in 32-byte nodes

// constants.rs ALLOWED_SECTOR_SIZES with validate_tree_r_shape's tree R shape of each.
struct AllowedSize {
    uint64_t nodes;
    TreeShape tree_r;
};
constexpr AllowedSize kAllowed[] = {
    {1 * KiB, {8, 4, 0}},   {2 * KiB, {8, 0, 0}},   {4 * KiB, {8, 2, 0}},   {8 * KiB, {8, 4, 0}},
    {16 * KiB, {8, 8, 0}},  {32 * KiB, {8, 8, 2}},  {8 * MiB, {8, 0, 0}},   {16 * MiB, {8, 2, 0}},
    {512 * MiB, {8, 0, 0}}, {32 * GiB, {8, 8, 0}},  {64 * GiB, {8, 8, 2}},
};

// Fr::CAPACITY: the bits of a digest that are uniformly random (the 255th is biased by r < 2^255).
constexpr uint32_t kFrCapacity = 254;

uint32_t h_index(const SnapShape& s, uint32_t h) {
    for (uint32_t i = 0; i < s.hs.size(); i++)
        if (s.hs[i] == h) return i;
    std::string allowed;
    for (uint32_t v : s.hs) allowed += (allowed.empty() ? "" : ", ") + std::to_string(v);
    throw std::invalid_argument("SnapDeals: h = " + std::to_string(h) + " is not allowed for a sector of " +
                                std::to_string(s.sector_nodes) + " nodes (hs = " + allowed + ")");
}

// Challenges drawn from consecutive digests starting at `first_digest`: `count` of them, `bits` random bits
// each, `per_digest` per digest, `high` OR-ed on top of each (the partition bits).
std::vector<uint32_t> draw_challenges(const Fr& comm_r_new, uint64_t first_digest, uint32_t count, uint32_t bits,
                                      uint32_t per_digest, uint32_t high) {
    std::vector<uint32_t> out;
    out.reserve(count);
    uint64_t digest_index = first_digest;
    while (out.size() < count) {
        // The digest's bits in little-endian order: bit i of the canonical integer (to_le_bits).
        limbs_t<4> d = snap_challenge_digest(comm_r_new, digest_index++).to_canonical();
        for (uint32_t j = 0; j < per_digest && out.size() < count; j++) {
            uint32_t c = 0;
            for (uint32_t b = 0; b < bits; b++) {
                uint32_t pos = j * bits + b;
                c |= (uint32_t)((d[pos / 64] >> (pos % 64)) & 1) << b;
            }
            out.push_back(c | high);
        }
    }
    return out;
}

}  // namespace

SnapShape SnapShape::from_sector_nodes(uint64_t sector_nodes) {
    const AllowedSize* found = nullptr;
    for (const auto& a : kAllowed)
        if (a.nodes == sector_nodes) found = &a;
    if (!found)
        throw std::invalid_argument(
            "SnapDeals: a sector of " + std::to_string(sector_nodes) +
            " nodes is not an allowed size (1, 2, 4, 8, 16, 32 KiB, 8, 16, 512 MiB, 32, 64 GiB)");
    SnapShape s;
    s.sector_nodes = sector_nodes;
    s.challenge_bit_len = (uint32_t)std::countr_zero(sector_nodes);
    s.partition_count = sector_nodes <= 8 * KiB ? 1 : sector_nodes <= 32 * KiB ? 2 : sector_nodes <= 16 * MiB ? 4 : 16;
    s.partition_bit_len = (uint32_t)std::countr_zero(s.partition_count);
    s.challenge_count = sector_nodes <= 16 * MiB ? 10 : 86;
    s.apex_leaf_count = sector_nodes <= 8 * KiB ? 8 : 128;
    s.apex_leaf_bit_len = (uint32_t)std::countr_zero(s.apex_leaf_count);
    s.random_bits_per_challenge = s.challenge_bit_len - s.partition_bit_len;
    s.challenges_per_digest = kFrCapacity / s.random_bits_per_challenge;
    s.digests_per_partition = (s.challenge_count + s.challenges_per_digest - 1) / s.challenges_per_digest;
    if (sector_nodes <= 32 * KiB) s.hs = {1, 1, 1, 1, 1, 1};
    else s.hs = {7, 8, 9, 10, 11, 12};
    s.h_default = s.hs[3];
    s.tree_r = found->tree_r;
    return s;
}

SnapShape SnapShape::from_sector_size(uint64_t sector_bytes) {
    if (sector_bytes % 32 != 0)
        throw std::invalid_argument("SnapDeals: a sector size of " + std::to_string(sector_bytes) +
                                    " bytes is not a whole number of 32-byte nodes");
    return from_sector_nodes(sector_bytes / 32);
}

Fr snap_randomness_tag() { return gadgets::poseidon_tag::custom(1); }

Fr snap_randomness_hash(const Fr& a, const Fr& b) {
    const Fr in[2] = {a, b};
    return gadgets::poseidon_hash(std::span<const Fr>(in), snap_randomness_tag());
}

Fr snap_phi(const Fr& comm_d_new, const Fr& comm_r_old) { return snap_randomness_hash(comm_d_new, comm_r_old); }

Fr snap_rho(const Fr& phi, uint32_t high) { return snap_randomness_hash(phi, Fr::from_u64(high)); }

std::vector<Fr> snap_rho_table(const Fr& phi, uint32_t h) {
    if (h > 24) throw std::invalid_argument("snap_rho_table: h = " + std::to_string(h) + " (at most 24 high bits)");
    size_t n = size_t(1) << h;
    std::vector<Fr> in(2 * n), out(n);
    for (size_t i = 0; i < n; i++) in[2 * i] = phi, in[2 * i + 1] = Fr::from_u64(i);
    gadgets::poseidon_hash_many(2, in, out, snap_randomness_tag());
    return out;
}

uint32_t snap_challenge_high(const SnapShape& shape, uint64_t c, uint32_t h) {
    h_index(shape, h);
    if (c >= shape.sector_nodes)
        throw std::invalid_argument("SnapDeals: challenge " + std::to_string(c) + " outside a sector of " +
                                    std::to_string(shape.sector_nodes) + " nodes");
    return (uint32_t)(c >> (shape.challenge_bit_len - h));
}

Fr snap_challenge_digest(const Fr& comm_r_new, uint64_t digest_index) {
    return snap_randomness_hash(comm_r_new, Fr::from_u64(digest_index));
}

std::vector<uint32_t> snap_challenges(const SnapShape& shape, const Fr& comm_r_new, uint32_t k) {
    if (k >= shape.partition_count)
        throw std::invalid_argument("SnapDeals: partition " + std::to_string(k) + " of " +
                                    std::to_string(shape.partition_count));
    return draw_challenges(comm_r_new, uint64_t(k) * shape.digests_per_partition, shape.challenge_count,
                           shape.random_bits_per_challenge, shape.challenges_per_digest,
                           k << shape.random_bits_per_challenge);
}

std::vector<uint32_t> snap_challenges_poseidon(const SnapShape& shape, const Fr& comm_r_new) {
    uint32_t bits = shape.challenge_bit_len;
    return draw_challenges(comm_r_new, 0, shape.challenge_count * shape.partition_count, bits, kFrCapacity / bits, 0);
}

uint64_t snap_h_select(const SnapShape& shape, uint32_t h) { return uint64_t(1) << h_index(shape, h); }

uint64_t snap_k_and_h_select(const SnapShape& shape, uint32_t k, uint32_t h) {
    if (k >= shape.partition_count)
        throw std::invalid_argument("SnapDeals: partition " + std::to_string(k) + " of " +
                                    std::to_string(shape.partition_count));
    return uint64_t(k) | (snap_h_select(shape, h) << shape.partition_bit_len);
}

}  // namespace cuzk::filecoin
