// PoSt leaf challenges and Winning sector choice (against polka-storage's verified 2 KiB Window PoSt, SPEC §4.3, and
// against direct SHA-256 computations), SnapDeals randomness, challenges, rho and public-input selectors (against
// rust-fil-proofs' hard-coded challenge vectors and the challenges' structural guarantees).
#include <gtest/gtest.h>
#include <openssl/sha.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "seeded_rng.hpp"
#include "cuzk/filecoin/challenges_post.hpp"
#include "cuzk/filecoin/challenges_snap.hpp"
#include "cuzk/gadgets/poseidon.hpp"

namespace cuzk::filecoin {
namespace {

using cuzk::testing::seeded_rng;

Domain filled(uint8_t b) {
    Domain d;
    d.fill(b);
    return d;
}

Domain random_fr_domain(std::mt19937_64& rng) { return domain_from_fr(Fr::random(rng)); }

void put_u64_le(std::vector<uint8_t>& v, uint64_t x) {
    for (int i = 0; i < 8; i++) v.push_back((uint8_t)(x >> (8 * i)));
}

// SHA-256 through OpenSSL, first 8 bytes as a little-endian u64, mod m: the rule both PoSt draws end in.
uint64_t openssl_draw(const std::vector<uint8_t>& msg, uint64_t m) {
    uint8_t h[32];
    SHA256(msg.data(), msg.size(), h);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)h[i] << (8 * i);
    return v % m;
}

uint64_t direct_leaf(const Domain& randomness, uint64_t sector_id, uint64_t challenge_index, uint64_t nodes) {
    std::vector<uint8_t> m(randomness.begin(), randomness.end());
    put_u64_le(m, sector_id);
    put_u64_le(m, challenge_index);
    return openssl_draw(m, nodes);
}

// ---- PoSt ---------------------------------------------------------------------------------------------------

TEST(FilecoinPostChallenges, PolkaStorageWindowPost2KiB) {
    // eigerco/polka-storage's 2 KiB Window PoSt (V1_2_0): sector 77, randomness 0x01 x 32; its proof verifies
    // with these leaves as public inputs (shared/vectors/filecoin/polka_storage_2kib_window_post.json).
    const std::vector<uint64_t> expected = {62, 13, 30, 16, 21, 30, 30, 34, 28, 40};
    const uint64_t nodes = 2048 / 32;
    EXPECT_EQ(post_sector_leaf_challenges(ApiVersion::V1_2_0, filled(0x01), 77, 0, 10, nodes), expected);
    // V1_2 ignores the sector's position: the same leaves as the second sector of partition 3.
    EXPECT_EQ(post_sector_leaf_challenges(ApiVersion::V1_2_0, filled(0x01), 77, 7, 10, nodes), expected);
    for (uint64_t n = 0; n < 10; n++) EXPECT_EQ(post_leaf_challenge(filled(0x01), 77, n, nodes), expected[n]);
    // The partition form, with the proof's two sectors (the last one repeated, as upstream pads).
    const uint64_t ids[] = {77, 77};
    auto part = post_partition_leaf_challenges(ApiVersion::V1_2_0, filled(0x01), ids, 0, 2, 10, nodes);
    ASSERT_EQ(part.size(), 2u);
    EXPECT_EQ(part[0], expected);
    EXPECT_EQ(part[1], expected);
}

TEST(FilecoinPostChallenges, ChallengeIndexRules) {
    // V1_0_0 and V1_1_0: a running index over the whole proof; V1_2_0: the index within the sector.
    EXPECT_EQ(post_challenge_index(ApiVersion::V1_0_0, 5, 10, 3), 53u);
    EXPECT_EQ(post_challenge_index(ApiVersion::V1_1_0, 5, 10, 3), 53u);
    EXPECT_EQ(post_challenge_index(ApiVersion::V1_2_0, 5, 10, 3), 3u);
    EXPECT_EQ(post_challenge_index(ApiVersion::V1_1_0, 0, 66, 65), 65u);
}

TEST(FilecoinPostChallenges, LeavesAgainstDirectSha256) {
    auto rng = seeded_rng("LeavesAgainstDirectSha256");
    const uint64_t nodes = uint64_t(1) << 30;  // 32 GiB
    Domain randomness = random_fr_domain(rng);
    const uint64_t sectors_per_partition = 4, challenges = 10, partition = 2;
    std::vector<uint64_t> ids(3);
    for (auto& id : ids) id = rng();
    for (ApiVersion v : {ApiVersion::V1_0_0, ApiVersion::V1_1_0, ApiVersion::V1_2_0}) {
        auto got = post_partition_leaf_challenges(v, randomness, ids, partition, sectors_per_partition, challenges,
                                                  nodes);
        ASSERT_EQ(got.size(), ids.size());
        for (size_t i = 0; i < ids.size(); i++) {
            ASSERT_EQ(got[i].size(), challenges);
            uint64_t sector_index = partition * sectors_per_partition + i;  // 8, 9, 10
            for (uint64_t n = 0; n < challenges; n++) {
                uint64_t index = v == ApiVersion::V1_2_0 ? n : sector_index * challenges + n;
                EXPECT_EQ(got[i][n], direct_leaf(randomness, ids[i], index, nodes)) << "sector " << i << " n " << n;
                EXPECT_LT(got[i][n], nodes);
            }
        }
    }
    // Winning PoSt's proof is one sector repeated as 66 one-challenge "sectors": under V1_0/V1_1 the repeats draw
    // different leaves (index = position), equal to challenges 0..65 of the sector taken at once.
    uint64_t id = rng();
    auto at_once = post_sector_leaf_challenges(ApiVersion::V1_0_0, randomness, id, 0, 66, nodes);
    for (uint64_t i = 0; i < 66; i++)
        EXPECT_EQ(post_sector_leaf_challenges(ApiVersion::V1_0_0, randomness, id, i, 1, nodes)[0], at_once[i]);
}

TEST(FilecoinPostChallenges, WinningSectorChoice) {
    auto rng = seeded_rng("WinningSectorChoice");
    Domain randomness = random_fr_domain(rng), prover_id = random_fr_domain(rng);
    const uint64_t set_len = 1 + rng() % 100000;
    auto picks = winning_sector_challenges(randomness, prover_id, 3, set_len);
    ASSERT_EQ(picks.size(), 3u);
    for (uint64_t n = 0; n < 3; n++) {
        std::vector<uint8_t> m(prover_id.begin(), prover_id.end());
        m.insert(m.end(), randomness.begin(), randomness.end());
        put_u64_le(m, n);
        EXPECT_EQ(picks[n], openssl_draw(m, set_len));
        EXPECT_EQ(winning_sector_challenge(randomness, prover_id, n, set_len), picks[n]);
    }
    EXPECT_EQ(winning_sector_challenge(randomness, prover_id, 0, 1), 0u);
}

TEST(FilecoinPostChallenges, RejectsBadInput) {
    Domain non_canonical = filled(0xFF);
    EXPECT_THROW(post_leaf_challenge(non_canonical, 1, 0, 64), std::invalid_argument);
    EXPECT_THROW(post_sector_leaf_challenges(ApiVersion::V1_2_0, non_canonical, 1, 0, 10, 64), std::invalid_argument);
    EXPECT_THROW(post_leaf_challenge(filled(0x01), 1, 0, 0), std::invalid_argument);
    EXPECT_THROW(winning_sector_challenge(filled(0x01), filled(0x01), 0, 0), std::invalid_argument);
    EXPECT_THROW(winning_sector_challenge(filled(0x01), non_canonical, 0, 10), std::invalid_argument);
    const uint64_t ids[] = {1, 2, 3};
    EXPECT_THROW(post_partition_leaf_challenges(ApiVersion::V1_2_0, filled(0x01), ids, 0, 2, 10, 64),
                 std::invalid_argument);
    // Masking byte 31 (what callers do with drand randomness) makes any 32 bytes acceptable.
    Domain masked = non_canonical;
    masked[31] &= 0x3F;
    EXPECT_NO_THROW(post_leaf_challenge(masked, 1, 0, 64));
}

// ---- SnapDeals ----------------------------------------------------------------------------------------------

TEST(FilecoinSnap, RandomnessTagAnchor) {
    EXPECT_EQ(snap_randomness_tag(), Fr::from_u64(uint64_t(1) << 40));
    // neptune Poseidon-2 with HashType::Custom(Arbitrary(1)) of (0, 1) (SPEC §3).
    EXPECT_EQ(snap_randomness_hash(Fr::zero(), Fr::one()).to_hex(),
              "0x314a35c4e7f0924ead1fc58134a0fe25e3580bea397367c7e5a74ec4bc077758");
    // phi, rho and the digests are that hash of their two inputs, in this order.
    auto rng = seeded_rng("RandomnessTagAnchor");
    Fr a = Fr::random(rng), b = Fr::random(rng);
    EXPECT_EQ(snap_phi(a, b), snap_randomness_hash(a, b));
    EXPECT_NE(snap_phi(a, b), snap_phi(b, a));
    EXPECT_EQ(snap_rho(a, 777), snap_randomness_hash(a, Fr::from_u64(777)));
    EXPECT_EQ(snap_challenge_digest(a, 31), snap_randomness_hash(a, Fr::from_u64(31)));
}

// rand_xorshift 0.3's XorShiftRng and blstrs 0.7's Scalar::random, to rebuild the comm_r_new of rust-fil-proofs'
// test_challenges_against_hardcoded (XorShiftRng::from_seed(TEST_SEED), then TreeRDomain::random).
struct XorShiftRng {
    uint32_t x, y, z, w;
    explicit XorShiftRng(const uint8_t seed[16]) {
        auto word = [&](int i) {
            return (uint32_t)seed[4 * i] | (uint32_t)seed[4 * i + 1] << 8 | (uint32_t)seed[4 * i + 2] << 16 |
                   (uint32_t)seed[4 * i + 3] << 24;
        };
        x = word(0), y = word(1), z = word(2), w = word(3);
    }
    uint32_t next_u32() {
        uint32_t t = x ^ (x << 11);
        x = y, y = z, z = w;
        w = w ^ (w >> 19) ^ (t ^ (t >> 8));
        return w;
    }
    uint64_t next_u64() {
        uint64_t lo = next_u32();
        return (uint64_t)next_u32() << 32 | lo;
    }
};

Fr blstrs_random(XorShiftRng& rng) {
    for (;;) {
        limbs_t<4> raw;
        for (auto& l : raw) l = rng.next_u64();
        raw[3] &= ~uint64_t(0) >> 1;  // 256 - 255 bits shaved
        if (auto x = Fr::from_canonical(raw)) return *x;
    }
}

TEST(FilecoinSnap, UpstreamChallengeVectors) {
    const uint8_t kTestSeed[16] = {0x59, 0x62, 0xbe, 0x5d, 0x76, 0x3d, 0x31, 0x8d,
                                   0x17, 0xdb, 0x37, 0x32, 0x54, 0x06, 0xbc, 0xe5};
    XorShiftRng rng(kTestSeed);
    Fr comm_r_new = blstrs_random(rng);
    struct Vector {
        uint64_t nodes;
        uint32_t k;
        std::vector<uint32_t> first5;
    };
    constexpr uint64_t KiB = 1024 / 32, MiB = 1024 * KiB, GiB = 1024 * MiB;
    // storage-proofs-update/src/challenges.rs test_challenges_against_hardcoded.
    const Vector vectors[] = {
        {1 * KiB, 0, {21, 7, 3, 31, 0}},
        {2 * KiB, 0, {53, 51, 56, 3, 0}},
        {4 * KiB, 0, {117, 25, 62, 0, 72}},
        {8 * KiB, 0, {245, 140, 15, 128, 28}},
        {16 * KiB, 0, {245, 140, 15, 128, 28}},
        {16 * KiB, 1, {286, 308, 493, 510, 508}},
        {32 * KiB, 0, {245, 454, 3, 400, 193}},
        {32 * KiB, 1, {542, 666, 955, 927, 911}},
        {8 * MiB, 0, {36085, 32783, 44060, 10950, 3731}},
        {8 * MiB, 1, {78878, 130797, 112892, 93994, 78379}},
        {16 * MiB, 0, {101621, 16391, 109319, 25944, 41193}},
        {16 * MiB, 1, {209950, 163702, 175679, 224741, 197410}},
        {512 * MiB, 0, {1019125, 116736, 706220, 59698, 799498}},
        {512 * MiB, 1, {2092548, 1213276, 1185483, 1164598, 1095197}},
        {512 * MiB, 14, {15212432, 15665918, 15015423, 15012912, 15495223}},
        {512 * MiB, 15, {16388544, 15794686, 16637142, 16319148, 16328348}},
        {32 * GiB, 0, {1019125, 27985696, 15282860, 11586600, 44651330}},
        {32 * GiB, 1, {109168525, 127316247, 80331041, 97065716, 72310052}},
        {32 * GiB, 14, {990420169, 955146989, 968005601, 976863263, 944650706}},
        {32 * GiB, 15, {1038629497, 1053983614, 1030421316, 1027373887, 1068685433}},
        {64 * GiB, 0, {1019125, 13992848, 3820715, 18225541, 57316660}},
        {64 * GiB, 1, {243386253, 197875851, 204632136, 171516766, 247789010}},
        {64 * GiB, 14, {1997053129, 1920414070, 2003609080, 1900492803, 1963254685}},
        {64 * GiB, 15, {2045262457, 2036941247, 2136653521, 2091356007, 2147167623}},
    };
    for (const auto& v : vectors) {
        auto all = snap_challenges(SnapShape::from_sector_nodes(v.nodes), comm_r_new, v.k);
        ASSERT_GE(all.size(), 5u);
        EXPECT_EQ(std::vector<uint32_t>(all.begin(), all.begin() + 5), v.first5)
            << v.nodes << " nodes, partition " << v.k;
    }
}

TEST(FilecoinSnap, ShapesBySectorSize) {
    const SnapShape s32 = SnapShape::from_sector_size(uint64_t(32) << 30);
    EXPECT_EQ(s32.sector_nodes, uint64_t(1) << 30);
    EXPECT_EQ(s32.challenge_bit_len, 30u);
    EXPECT_EQ(s32.partition_count, 16u);
    EXPECT_EQ(s32.partition_bit_len, 4u);
    EXPECT_EQ(s32.challenge_count, 86u);
    EXPECT_EQ(s32.random_bits_per_challenge, 26u);
    EXPECT_EQ(s32.challenges_per_digest, 9u);
    EXPECT_EQ(s32.digests_per_partition, 10u);
    EXPECT_EQ(s32.apex_leaf_count, 128u);
    EXPECT_EQ(s32.apex_leaf_bit_len, 7u);
    EXPECT_EQ(s32.h_default, 10u);
    EXPECT_EQ(s32.tree_r, (TreeShape{8, 8, 0}));
    EXPECT_EQ(SnapShape::from_sector_size(uint64_t(64) << 30).tree_r, (TreeShape{8, 8, 2}));

    struct Row {
        uint64_t bytes;
        uint32_t partitions, challenges, apex;
        uint32_t h_default;
    };
    const Row rows[] = {
        {1 << 10, 1, 10, 8, 1},   {2 << 10, 1, 10, 8, 1},    {8 << 10, 1, 10, 8, 1},     {16 << 10, 2, 10, 128, 1},
        {32 << 10, 2, 10, 128, 1}, {8 << 20, 4, 10, 128, 10}, {16 << 20, 4, 10, 128, 10}, {512 << 20, 16, 86, 128, 10},
    };
    for (const auto& r : rows) {
        SnapShape s = SnapShape::from_sector_size(r.bytes);
        EXPECT_EQ(s.partition_count, r.partitions) << r.bytes;
        EXPECT_EQ(s.challenge_count, r.challenges) << r.bytes;
        EXPECT_EQ(s.apex_leaf_count, r.apex) << r.bytes;
        EXPECT_EQ(s.h_default, r.h_default) << r.bytes;
    }
    EXPECT_THROW(SnapShape::from_sector_size(1 << 20), std::invalid_argument);  // 1 MiB: not a SnapDeals size
    EXPECT_THROW(SnapShape::from_sector_size(uint64_t(1) << 30), std::invalid_argument);
    EXPECT_THROW(SnapShape::from_sector_size(2048 + 1), std::invalid_argument);
}

TEST(FilecoinSnap, ChallengesStayInTheirPartition) {
    auto rng = seeded_rng("ChallengesStayInTheirPartition");
    for (uint64_t bytes : {uint64_t(1) << 10, uint64_t(2) << 10, uint64_t(4) << 10, uint64_t(8) << 10,
                           uint64_t(16) << 10, uint64_t(32) << 10, uint64_t(8) << 20, uint64_t(16) << 20,
                           uint64_t(512) << 20, uint64_t(32) << 30, uint64_t(64) << 30}) {
        SnapShape s = SnapShape::from_sector_size(bytes);
        Fr comm_r_new = Fr::random(rng);
        uint64_t partition_nodes = s.sector_nodes / s.partition_count;
        for (uint32_t k = 0; k < s.partition_count; k++) {
            auto cs = snap_challenges(s, comm_r_new, k);
            ASSERT_EQ(cs.size(), s.challenge_count) << bytes;
            for (uint32_t c : cs) {
                EXPECT_GE(c, k * partition_nodes);
                EXPECT_LT(c, (k + 1) * partition_nodes);
                EXPECT_EQ(c >> s.random_bits_per_challenge, k);
            }
        }
        auto pos = snap_challenges_poseidon(s, comm_r_new);
        EXPECT_EQ(pos.size(), size_t(s.challenge_count) * s.partition_count);
        for (uint32_t c : pos) EXPECT_LT(c, s.sector_nodes);
    }
}

TEST(FilecoinSnap, ChallengesFromDigestBytes) {
    // 32 GiB partition k: digests k·10 .. k·10 + 9, nine 26-bit fields each read from the digest's little-endian
    // bytes, the partition index above bit 26; the 86th challenge is the 5th field of the 10th digest.
    auto rng = seeded_rng("ChallengesFromDigestBytes");
    SnapShape s = SnapShape::from_sector_size(uint64_t(32) << 30);
    Fr comm_r_new = Fr::random(rng);
    uint32_t k = (uint32_t)(rng() % 16);
    auto cs = snap_challenges(s, comm_r_new, k);
    ASSERT_EQ(cs.size(), 86u);
    for (size_t i = 0; i < cs.size(); i++) {
        Domain digest = domain_from_fr(snap_challenge_digest(comm_r_new, uint64_t(k) * 10 + i / 9));
        uint32_t field = 0;
        for (uint32_t b = 0; b < 26; b++) {
            size_t bit = (i % 9) * 26 + b;
            field |= (uint32_t)((digest[bit / 8] >> (bit % 8)) & 1) << b;
        }
        EXPECT_EQ(cs[i], field | (k << 26)) << "challenge " << i << " of partition " << k;
    }
    // The Poseidon variant: one stream from digest 0, 30 bits per challenge, 8 per digest.
    auto pos = snap_challenges_poseidon(s, comm_r_new);
    ASSERT_EQ(pos.size(), 86u * 16);
    Domain d0 = domain_from_fr(snap_challenge_digest(comm_r_new, 0));
    uint32_t first = 0;
    for (uint32_t b = 0; b < 30; b++) first |= (uint32_t)((d0[b / 8] >> (b % 8)) & 1) << b;
    EXPECT_EQ(pos[0], first);
    EXPECT_THROW(snap_challenges(s, comm_r_new, 16), std::invalid_argument);
}

TEST(FilecoinSnap, RhoAndSelectors) {
    auto rng = seeded_rng("RhoAndSelectors");
    SnapShape s = SnapShape::from_sector_size(uint64_t(32) << 30);
    Fr phi = snap_phi(Fr::random(rng), Fr::random(rng));
    // h = 10: the 10 high bits of a 30-bit node index select one of 1024 rhos.
    EXPECT_EQ(snap_challenge_high(s, (uint64_t(1) << 30) - 1, 10), 1023u);
    EXPECT_EQ(snap_challenge_high(s, uint64_t(5) << 20, 10), 5u);
    EXPECT_EQ(snap_challenge_high(s, (uint64_t(5) << 20) - 1, 10), 4u);
    EXPECT_EQ(snap_challenge_high(s, uint64_t(3) << 18, 12), 3u);
    auto table = snap_rho_table(phi, 10);
    ASSERT_EQ(table.size(), 1024u);
    for (uint32_t high : {0u, 1u, 511u, 1023u}) EXPECT_EQ(table[high], snap_rho(phi, high));
    // The encoding relation on one node: new = old + data · rho(high(c)).
    uint64_t c = rng() % s.sector_nodes;
    Fr old_node = Fr::random(rng), data = Fr::random(rng);
    Fr rho = snap_rho(phi, snap_challenge_high(s, c, s.h_default));
    EXPECT_EQ(old_node + data * rho, old_node + data * table[c >> 20]);

    // Selectors: hs = 7..12, so h = 10 is index 3 → h_select 8; k_and_h_select = k | 8 << 4.
    EXPECT_EQ(snap_h_select(s, 10), 8u);
    EXPECT_EQ(snap_h_select(s, 7), 1u);
    EXPECT_EQ(snap_h_select(s, 12), 32u);
    EXPECT_EQ(snap_k_and_h_select(s, 0, 10), 128u);
    EXPECT_EQ(snap_k_and_h_select(s, 15, 10), 143u);
    SnapShape small = SnapShape::from_sector_size(2048);  // hs = [1; 6], one partition
    EXPECT_EQ(snap_h_select(small, 1), 1u);
    EXPECT_EQ(snap_k_and_h_select(small, 0, 1), 1u);
    SnapShape two = SnapShape::from_sector_size(16 << 10);  // two partitions: one partition bit
    EXPECT_EQ(snap_k_and_h_select(two, 1, 1), 1u | (1u << 1));

    EXPECT_THROW(snap_h_select(s, 13), std::invalid_argument);
    EXPECT_THROW(snap_h_select(small, 10), std::invalid_argument);
    EXPECT_THROW(snap_k_and_h_select(s, 16, 10), std::invalid_argument);
    EXPECT_THROW(snap_challenge_high(s, uint64_t(1) << 30, 10), std::invalid_argument);
    EXPECT_THROW(snap_challenge_high(s, 0, 6), std::invalid_argument);
}

}  // namespace
}  // namespace cuzk::filecoin
