// SnapDeals vanilla proofs (cuzk/filecoin/snap_vanilla.hpp): the bincode layout of a PartitionProof byte by byte on
// a hand-built proof (apex leaves, one challenge with a Sub tree-R proof and a binary tree-D proof), the round trip,
// and every truncation, a trailing byte and an unknown variant refused with the field named.
#include <gtest/gtest.h>

#include <random>

#include "cuzk/filecoin/snap_vanilla.hpp"
#include "seeded_rng.hpp"

namespace cuzk::filecoin {
namespace {

using testing::seeded_rng;

Domain random_domain(std::mt19937_64& rng) {
    Domain d;
    for (uint8_t& b : d) b = (uint8_t)rng();
    return d;
}

void put_le(std::vector<uint8_t>& out, uint64_t v, size_t n) {
    for (size_t i = 0; i < n; i++) out.push_back((uint8_t)(v >> (8 * i)));
}
void put(std::vector<uint8_t>& out, const Domain& d) { out.insert(out.end(), d.begin(), d.end()); }

TEST(FilecoinSnapVanilla, BincodeLayout) {
    auto rng = seeded_rng("FilecoinSnapVanilla.BincodeLayout");
    SnapPartitionProof p;
    p.comm_c = random_domain(rng);
    p.apex_leafs = {random_domain(rng), random_domain(rng)};
    SnapChallengeProof c;
    c.proof_r_old.kind = MerkleProofKind::Sub;
    c.proof_r_old.base = {MerklePathElement{{random_domain(rng), random_domain(rng), random_domain(rng)}, 3}};
    c.proof_r_old.sub = {MerklePathElement{{random_domain(rng)}, 1}};
    c.proof_r_old.root = random_domain(rng);
    c.proof_r_old.leaf = random_domain(rng);
    c.proof_d_new.kind = MerkleProofKind::Single;
    c.proof_d_new.base = {MerklePathElement{{random_domain(rng)}, 0}, MerklePathElement{{random_domain(rng)}, 1}};
    c.proof_d_new.root = random_domain(rng);
    c.proof_d_new.leaf = random_domain(rng);
    c.proof_r_new = c.proof_r_old;
    c.proof_r_new.leaf = random_domain(rng);
    p.challenge_proofs = {c};

    std::vector<uint8_t> want;
    put(want, p.comm_c);
    put_le(want, 2, 8);
    for (const Domain& d : p.apex_leafs) put(want, d);
    put_le(want, 1, 8);
    auto sub = [&](const MerkleProof& m) {
        put_le(want, 1, 4);  // ProofData::Sub: base_proof, sub_proof, root, leaf
        for (const auto* part : {&m.base, &m.sub}) {
            put_le(want, part->size(), 8);
            for (const MerklePathElement& e : *part) {
                put_le(want, e.hashes.size(), 8);
                for (const Domain& h : e.hashes) put(want, h);
                put_le(want, e.index, 8);
            }
        }
        put(want, m.root);
        put(want, m.leaf);
    };
    sub(c.proof_r_old);
    put_le(want, 0, 4);  // ProofData::Single: root, leaf, path
    put(want, c.proof_d_new.root);
    put(want, c.proof_d_new.leaf);
    put_le(want, 2, 8);
    for (const MerklePathElement& e : c.proof_d_new.base) {
        put_le(want, 1, 8);
        put(want, e.hashes[0]);
        put_le(want, e.index, 8);
    }
    sub(c.proof_r_new);

    EXPECT_EQ(write_snap_vanilla_proof(p), want);
    EXPECT_EQ(read_snap_vanilla_proof(want, "partition 3"), p);
    for (size_t n = 0; n < want.size(); n++)
        EXPECT_THROW(read_snap_vanilla_proof(std::span<const uint8_t>(want.data(), n), "t"), FilecoinError) << n;
    std::vector<uint8_t> longer = want;
    longer.push_back(7);
    EXPECT_THROW(read_snap_vanilla_proof(longer, "t"), FilecoinError);
    std::vector<uint8_t> variant = want;
    const size_t d_new = 32 + 8 + 64 + 8 + 4 + 8 + (8 + 96 + 8) + 8 + (8 + 32 + 8) + 64;  // proof_d_new's variant
    ASSERT_EQ(variant[d_new], 0);
    variant[d_new] = 5;
    try {
        read_snap_vanilla_proof(variant, "partition 3");
        FAIL();
    } catch (const FilecoinError& e) {
        EXPECT_EQ(e.kind(), FilecoinErrorKind::MalformedVanilla);
        EXPECT_NE(std::string(e.what()).find("partition 3: challenge_proofs[0].proof_d_new.data: variant 5"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace cuzk::filecoin
