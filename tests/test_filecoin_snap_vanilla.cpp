// SnapDeals vanilla proofs (cuzk/filecoin/snap_vanilla.hpp): the bincode layout of a PartitionProof byte by byte on
// a hand-built proof (apex leaves, one challenge with a Sub tree-R proof and a binary tree-D proof), the round trip,
// and every truncation, a trailing byte and an unknown variant refused with the field named; the Poseidon variant's
// layout (no apex leaves). Generated proofs (filecoin/snap_gen.hpp) of both variants turned into partition
// witnesses that satisfy the circuit at 2 KiB and are accepted at 16 KiB (two partitions), 32 GiB and 64 GiB; a
// tampered sibling, wrong commitments, a wrong partition, another h, wrong counts and levels refused naming the
// partition and the field; the engine job (engine/snap.hpp) returns only proofs that verify. The JSON form
// (serde_json's of the same types): a fixture checked by hand against upstream's types, generated proofs read back
// equal to their bincode, bad JSON refused naming the field.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <random>

#include "cuzk/engine/snap.hpp"
#include "cuzk/filecoin/snap_gen.hpp"
#include "cuzk/filecoin/snap_vanilla.hpp"
#include "cuzk/groth16/backend.hpp"
#include "cuzk/groth16/setup.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/util/timing.hpp"
#include "seeded_rng.hpp"
#include "vanilla_test_util.hpp"

namespace cuzk::filecoin {
namespace {

using testing::bytes_of;
using testing::error_of;
using testing::expect_has;
using testing::node_domain;
using testing::node_json;
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

TEST(FilecoinSnapVanilla, PoseidonVariantLayoutHasNoApexLeaves) {
    auto rng = seeded_rng("FilecoinSnapVanilla.PoseidonLayout");
    SnapPartitionProof p;
    p.comm_c = random_domain(rng);
    SnapChallengeProof c;
    for (MerkleProof* m : {&c.proof_r_old, &c.proof_d_new, &c.proof_r_new}) {
        m->base = {MerklePathElement{{random_domain(rng)}, 1}};
        m->root = random_domain(rng);
        m->leaf = random_domain(rng);
    }
    p.challenge_proofs = {c};
    const std::vector<uint8_t> bytes = write_snap_vanilla_proof(p, UpdateCircuit::Poseidon);
    // comm_c, then the challenge proofs' length right away.
    std::vector<uint8_t> head(p.comm_c.begin(), p.comm_c.end());
    put_le(head, 1, 8);
    ASSERT_GE(bytes.size(), head.size());
    EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 40), head);
    EXPECT_EQ(write_snap_vanilla_proof(p).size(), bytes.size() + 8);  // the SHA-256 layout's empty apex_leafs
    EXPECT_EQ(read_snap_vanilla_proof(bytes, "p", UpdateCircuit::Poseidon), p);
    EXPECT_THROW(read_snap_vanilla_proof(bytes, "p", UpdateCircuit::Sha256), FilecoinError);
    p.apex_leafs = {random_domain(rng)};
    EXPECT_THROW(write_snap_vanilla_proof(p, UpdateCircuit::Poseidon), std::invalid_argument);
}

// ---- JSON (serde_json's form of the same types) ------------------------------------------------------------------

// A fixture checked by hand against upstream's types, with a Top Merkle proof (base, sub and top paths, as a 64 GiB
// sector's tree R has; one sibling a level to keep it short: that arities fit the tree is checked after reading)
// and a Single one. What fixes each part of the shape (serde derive, serde_json):
//   storage-proofs-update vanilla.rs PartitionProof { comm_c: TreeRDomain, apex_leafs: Vec<TreeDDomain>,
//     challenge_proofs: Vec<ChallengeProof> } and ChallengeProof { proof_r_old, proof_d_new, proof_r_new }, fields in
//     declaration order, only #[serde(bound(...))] attributes (no renames); poseidon/vanilla.rs PartitionProof is the
//     same without apex_leafs. TreeRDomain = PoseidonDomain, a newtype over blstrs' Scalar Repr [u8; 32]; TreeDDomain
//     = Sha256Domain(pub [u8; 32]): both arrays of 32 numbers.
//   storage-proofs-core merkle/proof.rs MerkleProof { data: ProofData }; ProofData externally tagged (no serde tag
//     attribute): {"Top": TopProof { base_proof, sub_proof, top_proof, root, leaf }} or {"Single": SingleProof {
//     root, leaf, path }}; InclusionPath { path }; PathElement { hashes, index } (its PhantomData is
//     #[serde(skip)]).
TEST(FilecoinSnapVanilla, JsonFixtureHasUpstreamsSerdeShape) {
    const std::string path1 = R"({"path":[{"hashes":[)";
    const std::string top = R"({"data":{"Top":{"base_proof":)" + path1 + node_json(10) + R"(],"index":1}]},)"
                            R"("sub_proof":)" + path1 + node_json(11) + R"(],"index":0}]},)"
                            R"("top_proof":)" + path1 + node_json(12) + R"(],"index":1}]},)"
                            R"("root":)" + node_json(13) + R"(,"leaf":)" + node_json(14) + "}}}";
    const std::string single = R"({"data":{"Single":{"root":)" + node_json(20) + R"(,"leaf":)" + node_json(21) +
                               R"(,"path":{"path":[{"hashes":[)" + node_json(22) + R"(],"index":1}]}}}})";
    const std::string challenge = R"({"proof_r_old":)" + top + R"(,"proof_d_new":)" + single +
                                  R"(,"proof_r_new":)" + top + "}";
    const std::string sha = R"({"comm_c":)" + node_json(1) + R"(,"apex_leafs":[)" + node_json(2) + "," + node_json(3) +
                            R"(],"challenge_proofs":[)" + challenge + "]}";
    const std::string poseidon = R"({"comm_c":)" + node_json(1) + R"(,"challenge_proofs":[)" + challenge + "]}";

    SnapPartitionProof p;
    p.comm_c = node_domain(1);
    p.apex_leafs = {node_domain(2), node_domain(3)};
    SnapChallengeProof c;
    c.proof_r_old.kind = MerkleProofKind::Top;
    c.proof_r_old.base = {MerklePathElement{{node_domain(10)}, 1}};
    c.proof_r_old.sub = {MerklePathElement{{node_domain(11)}, 0}};
    c.proof_r_old.top = {MerklePathElement{{node_domain(12)}, 1}};
    c.proof_r_old.root = node_domain(13);
    c.proof_r_old.leaf = node_domain(14);
    c.proof_d_new.base = {MerklePathElement{{node_domain(22)}, 1}};
    c.proof_d_new.root = node_domain(20);
    c.proof_d_new.leaf = node_domain(21);
    c.proof_r_new = c.proof_r_old;
    p.challenge_proofs = {c};

    EXPECT_EQ(write_snap_vanilla_json(p), sha);
    EXPECT_EQ(parse_snap_vanilla_json(sha, "t"), p);
    EXPECT_EQ(read_snap_vanilla_proof(bytes_of(sha), "t"), p);
    SnapPartitionProof q = p;
    q.apex_leafs.clear();
    EXPECT_EQ(write_snap_vanilla_json(q, UpdateCircuit::Poseidon), poseidon);
    EXPECT_EQ(read_snap_vanilla_proof(bytes_of(poseidon), "t", UpdateCircuit::Poseidon), q);
    // serde: the SHA-256 type requires apex_leafs, the Poseidon type skips it as an unknown field.
    expect_has(error_of([&] { read_snap_vanilla_proof(bytes_of(poseidon), "partition 2"); }),
               "partition 2: missing field `apex_leafs`");
    EXPECT_EQ(read_snap_vanilla_proof(bytes_of(sha), "t", UpdateCircuit::Poseidon), q);
    EXPECT_THROW(write_snap_vanilla_json(p, UpdateCircuit::Poseidon), std::invalid_argument);
}

// ---- generated proofs -> witnesses -------------------------------------------------------------------------

constexpr uint64_t KiB = 1024 / 32;  // in nodes

std::vector<SnapPartitionWitness> witnesses(const GeneratedSnap& g) {
    std::vector<SnapPartitionWitness> out;
    for (size_t k = 0; k < g.partitions.size(); k++)
        out.push_back(snap_partition_witness(g.shape, g.variant, g.partitions[k], uint32_t(k), g.h, g.comm_r_old,
                                             g.comm_d_new, g.comm_r_new));
    return out;
}

// The prover's assignment of the partition: every row a * b = c, the inputs the public inputs.
void expect_satisfied(const GeneratedSnap& g, const SnapPartitionWitness& w, const std::string& what) {
    r1cs::ProvingAssignment pa;
    pa.alloc_input("one", [] { return Fr::one(); });
    EmptySectorUpdateCircuit(g.shape, g.variant, w.witness).synthesize(pa);
    size_t bad = 0, first_bad = 0;
    for (size_t i = 0; i < pa.num_constraints(); i++)
        if (pa.a()[i] * pa.b()[i] != pa.c()[i] && bad++ == 0) first_bad = i;
    EXPECT_EQ(bad, 0u) << what << ": first unsatisfied row " << first_bad;
    EXPECT_EQ(std::vector<Fr>(pa.inputs().begin() + 1, pa.inputs().end()), w.public_inputs) << what;
}

const char* variant_name(UpdateCircuit v) { return v == UpdateCircuit::Sha256 ? "sha256" : "poseidon"; }

TEST(FilecoinSnapVanilla, GeneratedProofsSatisfyTheCircuit2KiB) {
    auto rng = seeded_rng("FilecoinSnapVanilla.Generated2KiB");
    for (UpdateCircuit v : {UpdateCircuit::Sha256, UpdateCircuit::Poseidon}) {
        const uint64_t seed = rng();
        const GeneratedSnap g = generate_snap_vanilla(RegisteredUpdateProof::StackedDrg2KiBV1, v, seed);
        ASSERT_EQ(g.partitions.size(), 1u);
        EXPECT_EQ(g.h, 1u);
        EXPECT_EQ(g.partitions[0].challenge_proofs.size(), 10u);
        EXPECT_EQ(g.partitions[0].apex_leafs.size(), v == UpdateCircuit::Sha256 ? 8u : 0u);
        EXPECT_EQ(generate_snap_vanilla(RegisteredUpdateProof::StackedDrg2KiBV1, v, seed).partitions, g.partitions);
        const SnapPartitionProof back =
            read_snap_vanilla_proof(write_snap_vanilla_proof(g.partitions[0], v), "p", v);
        EXPECT_EQ(back, g.partitions[0]);
        const std::vector<SnapPartitionWitness> w = witnesses(g);
        expect_satisfied(g, w[0], variant_name(v));
    }
}

TEST(FilecoinSnapVanilla, GeneratedProofsAcceptedAtLargerSizes) {
    auto rng = seeded_rng("FilecoinSnapVanilla.GeneratedLarger");
    {
        // 16 KiB: two partitions (8-8-0 tree R, 128 apex leaves); each partition's challenges in its half.
        const GeneratedSnap g =
            generate_snap_vanilla(SnapShape::from_sector_nodes(16 * KiB), UpdateCircuit::Sha256, 1, rng());
        ASSERT_EQ(g.partitions.size(), 2u);
        const auto w = witnesses(g);
        EXPECT_EQ(w[1].public_inputs[0], Fr::from_u64(1 | (1 << 1)));  // k = 1, h_select = 1 above one partition bit
    }
    // 64 GiB's SHA-256 variant (16 partitions, Top tree-R proofs) and 32 GiB's Poseidon variant (1,376 challenges in
    // one partition); about 2.5 s each on 2 cores.
    for (auto [p, v] : {std::pair{RegisteredUpdateProof::StackedDrg64GiBV1, UpdateCircuit::Sha256},
                        std::pair{RegisteredUpdateProof::StackedDrg32GiBV1, UpdateCircuit::Poseidon}}) {
        const auto t0 = std::chrono::steady_clock::now();
        const GeneratedSnap g = generate_snap_vanilla(p, v, rng());
        const double gen_s = seconds_since(t0);
        EXPECT_EQ(g.h, 10u);
        ASSERT_EQ(g.partitions.size(), v == UpdateCircuit::Sha256 ? 16u : 1u) << proof_name(p);
        EXPECT_EQ(g.partitions[0].challenge_proofs.size(), v == UpdateCircuit::Sha256 ? 86u : 86u * 16u);
        const auto w = witnesses(g);
        if (v == UpdateCircuit::Sha256)
            for (uint32_t k = 0; k < 16; k++)  // k | h_select (8 for h = 10) << 4 partition bits
                EXPECT_EQ(w[k].public_inputs[0], Fr::from_u64(k + 128)) << k;
        else
            EXPECT_EQ(w[0].public_inputs[0], Fr::from_u64(8));
        std::printf("[ info ] %s %s: generated in %.2f s, witnesses in %.2f s\n", std::string(proof_name(p)).c_str(),
                    variant_name(v), gen_s, seconds_since(t0) - gen_s);
    }
}

TEST(FilecoinSnapVanilla, BadProofsAreRefusedNamingTheField) {
    auto rng = seeded_rng("FilecoinSnapVanilla.BadProofs");
    const GeneratedSnap g = generate_snap_vanilla(RegisteredUpdateProof::StackedDrg2KiBV1, UpdateCircuit::Sha256, rng());
    const SnapPartitionProof& good = g.partitions[0];
    auto witness_of = [&](const SnapPartitionProof& p, const Fr& r_old, const Fr& d_new, const Fr& r_new,
                          uint32_t k = 0) {
        return [&g, p, r_old, d_new, r_new, k] {
            snap_partition_witness(g.shape, g.variant, p, k, g.h, r_old, d_new, r_new);
        };
    };
    auto refused = [&](const SnapPartitionProof& p) { return error_of(witness_of(p, g.comm_r_old, g.comm_d_new, g.comm_r_new)); };
    const Fr one = Fr::one();

    {  // a tampered sibling
        SnapPartitionProof p = good;
        Domain& s = p.challenge_proofs[7].proof_r_old.base[1].hashes[3];
        s = domain_from_fr(fr_from_domain(s) + one);
        expect_has(refused(p), "partition 0: challenge_proofs[7].proof_r_old: the path does not hash to its root");
    }
    {  // a tree-D path one level short
        SnapPartitionProof p = good;
        p.challenge_proofs[7].proof_d_new.base.pop_back();
        expect_has(refused(p), "partition 0: challenge_proofs[7].proof_d_new: 5 levels, expected 6");
    }
    {  // a sibling that is not a field element
        SnapPartitionProof p = good;
        p.challenge_proofs[2].proof_r_new.base[0].hashes[6].fill(0xff);
        expect_has(refused(p), "partition 0: challenge_proofs[2].proof_r_new.level 0 sibling [6]: not a canonical");
    }
    {  // counts
        SnapPartitionProof p = good;
        p.apex_leafs.pop_back();
        expect_has(refused(p), "partition 0: apex_leafs: 7 apex leaves, expected 8");
        p = good;
        p.challenge_proofs.pop_back();
        expect_has(refused(p), "partition 0: challenge_proofs: 9 challenge proofs, expected 10");
    }
    {  // an apex leaf the paths do not pass through
        SnapPartitionProof p = good;
        p.apex_leafs[5] = domain_from_fr(fr_from_domain(p.apex_leafs[5]) + one);
        expect_has(refused(p), "apex_leafs");
    }
    // the commitments
    expect_has(error_of(witness_of(good, g.comm_r_old, g.comm_d_new + one, g.comm_r_new)),
               "partition 0: challenge_proofs[0].proof_d_new.root: is not comm_d_new");
    expect_has(error_of(witness_of(good, g.comm_r_old + one, g.comm_d_new, g.comm_r_new)),
               "partition 0: comm_c, challenge_proofs[0].proof_r_old.root: Poseidon-2(comm_c, root) is not comm_r_old");
    expect_has(error_of(witness_of(good, g.comm_r_old, g.comm_d_new, g.comm_r_new + one)), "is not comm_r_new");
    // a partition index the update does not have
    error_of(witness_of(good, g.comm_r_old, g.comm_d_new, g.comm_r_new, 1), FilecoinErrorKind::OutOfRange);

    // Another partition's proof: its challenges are not partition 0's.
    const GeneratedSnap two = generate_snap_vanilla(SnapShape::from_sector_nodes(16 * KiB), UpdateCircuit::Sha256, 1, rng());
    const std::string m = error_of([&] {
        snap_partition_witness(two.shape, two.variant, two.partitions[1], 0, two.h, two.comm_r_old, two.comm_d_new,
                               two.comm_r_new);
    });
    expect_has(m, "partition 0: challenge_proofs[0].proof_r_old: proves leaf ");
    expect_has(m, ", the challenge is leaf ");

    // The encoding: an 8 MiB update made with h = 7 (hs = 7..12) read with h = 8 takes other rhos.
    const SnapShape mib8 = SnapShape::from_sector_size(8 << 20);
    const GeneratedSnap h7 = generate_snap_vanilla(mib8, UpdateCircuit::Sha256, 7, rng());
    auto with_h = [&](uint32_t h) {
        return [&h7, h] {
            snap_partition_witness(h7.shape, h7.variant, h7.partitions[3], 3, h, h7.comm_r_old, h7.comm_d_new,
                                   h7.comm_r_new);
        };
    };
    with_h(7)();
    expect_has(error_of(with_h(8)), "partition 3: challenge_proofs[0].proof_r_new.leaf: is not proof_r_old.leaf + "
                                    "proof_d_new.leaf * rho");
    error_of(with_h(6), FilecoinErrorKind::OutOfRange);  // not one of the circuit's hs
}

// Generated 2 KiB updates of both variants: the JSON reads back to what the bincode does, and to the same partition
// witness.
TEST(FilecoinSnapVanilla, JsonRoundTripEqualsBincode) {
    auto rng = seeded_rng("FilecoinSnapVanilla.JsonRoundTrip");
    for (UpdateCircuit v : {UpdateCircuit::Sha256, UpdateCircuit::Poseidon}) {
        const GeneratedSnap g = generate_snap_vanilla(RegisteredUpdateProof::StackedDrg2KiBV1, v, rng());
        const SnapPartitionProof& p = g.partitions[0];
        const std::string text = write_snap_vanilla_json(p, v);
        const SnapPartitionProof from_json = read_snap_vanilla_proof(bytes_of(text), "j", v);
        EXPECT_EQ(from_json, read_snap_vanilla_proof(write_snap_vanilla_proof(p, v), "b", v)) << variant_name(v);
        EXPECT_EQ(from_json, p) << variant_name(v);
        EXPECT_EQ(write_snap_vanilla_json(from_json, v), text);
        const SnapPartitionWitness w =
            snap_partition_witness(g.shape, v, from_json, 0, g.h, g.comm_r_old, g.comm_d_new, g.comm_r_new);
        expect_satisfied(g, w, variant_name(v));
    }
}

// Bad JSON: FilecoinError MalformedVanilla (as the bincode reader's) naming the partition and the JSON path of the
// field; a path of the wrong length is refused by the same checks as a bincode proof's.
TEST(FilecoinSnapVanilla, BadJsonNamesTheField) {
    auto rng = seeded_rng("FilecoinSnapVanilla.BadJson");
    const GeneratedSnap g =
        generate_snap_vanilla(RegisteredUpdateProof::StackedDrg2KiBV1, UpdateCircuit::Sha256, rng());
    const std::string text = write_snap_vanilla_json(g.partitions[0]);
    auto read = [](const std::string& t) { return [t] { read_snap_vanilla_proof(bytes_of(t), "partition 0"); }; };
    auto edited = [&](auto&& edit) {
        nlohmann::json j = nlohmann::json::parse(text);
        edit(j);
        return j.dump();
    };

    for (size_t n = 2; n < text.size(); n += 211) {  // from `{"`: "{" alone is 1 byte of bincode
        const std::string m = error_of(read(text.substr(0, n)));
        expect_has(m, "partition 0: ");
        expect_has(m, "unexpected end of input");
    }
    expect_has(error_of(read(text.substr(0, text.find("\"proof_d_new\":", text.size() / 2) + 14))),
               "].proof_d_new: unexpected end of input");
    expect_has(error_of(read(edited([](nlohmann::json& j) { j["comm_c"] = "00"; }))),
               "partition 0: comm_c: expected an array of 32 bytes");
    expect_has(error_of(read(edited([](nlohmann::json& j) { j["challenge_proofs"][7].erase("proof_d_new"); }))),
               "partition 0: challenge_proofs[7]: missing field `proof_d_new`");
    expect_has(error_of(read(edited([](nlohmann::json& j) { j["apex_leafs"][3].push_back(0); }))),
               "partition 0: apex_leafs[3]: more than 32 bytes");
    expect_has(error_of(read(edited([](nlohmann::json& j) {
                   j["challenge_proofs"][2]["proof_r_new"]["data"]["Single"]["path"]["path"][0]["hashes"] = 7;
               }))),
               "partition 0: challenge_proofs[2].proof_r_new.data.Single.path.path[0].hashes: expected an array");
    expect_has(error_of(read(edited([](nlohmann::json& j) {
                   j["challenge_proofs"][2]["proof_r_new"]["data"]["Single"]["leaf"] = nullptr;
               }))),
               "partition 0: challenge_proofs[2].proof_r_new.data.Single.leaf: expected an array of 32 bytes");
    // a tree-D path one level short: read, then refused by the shape checks
    const std::string short_path = edited([](nlohmann::json& j) {
        j["challenge_proofs"][7]["proof_d_new"]["data"]["Single"]["path"]["path"].erase(5);
    });
    const SnapPartitionProof p = read_snap_vanilla_proof(bytes_of(short_path), "partition 0");
    expect_has(error_of([&] {
                   snap_partition_witness(g.shape, g.variant, p, 0, g.h, g.comm_r_old, g.comm_d_new, g.comm_r_new);
               }),
               "partition 0: challenge_proofs[7].proof_d_new: 5 levels, expected 6");
}

// The engine job of a 2 KiB update (the Poseidon variant: 36,424 rows, fast to set up): a proof made under a key of
// the real circuit is returned (the same bytes from the compiled matrices), a proof that does not verify is never encoded, a key of another circuit is refused,
// and a wrong number of partition proofs is refused before anything is proven.
TEST(SnapJob, ProofsAreVerifiedBeforeTheyAreReturned) {
    auto rng = seeded_rng("SnapJob.Verified");
    const RegisteredUpdateProof proof = RegisteredUpdateProof::StackedDrg2KiBV1;
    const GeneratedSnap g = generate_snap_vanilla(proof, UpdateCircuit::Poseidon, rng());
    const engine::SnapJob job =
        engine::snap_job(proof, UpdateCircuit::Poseidon, g.partitions, g.comm_r_old, g.comm_d_new, g.comm_r_new);
    ASSERT_EQ(job.partitions.size(), 1u);

    const auto blank = EmptySectorUpdateCircuit::blank(job.shape, UpdateCircuit::Poseidon);
    const groth16::Parameters params = groth16::generate_parameters(blank, groth16::ToxicWaste::from_seed(rng()));
    groth16::CpuBackend cpu(params);
    engine::Engine eng;
    const uint64_t rs = rng();
    engine::JobSpec spec = engine::snap_spec(job);
    spec.backend = &cpu;
    spec.randomness_seed = rs;
    const engine::JobResult result = eng.await(eng.submit(std::move(spec)));
    ASSERT_EQ(result.state, engine::JobState::Done) << result.error;
    const std::vector<uint8_t> bytes = engine::snap_proof(job, result, params.vk);
    EXPECT_EQ(bytes.size(), 192u);

    // The same partition from the compiled matrices (witness + sparse products): the same proof for the same r, s.
    const r1cs::PrecompiledR1cs pce = r1cs::compile_r1cs(blank);
    engine::JobSpec compiled = engine::snap_spec(job, &pce);
    compiled.backend = &cpu;
    compiled.randomness_seed = rs;
    const engine::JobResult from_pce = eng.await(eng.submit(std::move(compiled)));
    ASSERT_EQ(from_pce.state, engine::JobState::Done) << from_pce.error;
    EXPECT_EQ(engine::snap_proof(job, from_pce, params.vk), bytes);

    engine::JobResult forged = result;
    std::swap(forged.proofs[0].a, forged.proofs[0].c);
    error_of([&] { engine::snap_proof(job, forged, params.vk); }, FilecoinErrorKind::InvalidProof);
    groth16::VerifyingKey other = params.vk;
    other.ic.pop_back();
    error_of([&] { engine::snap_proof(job, result, other); }, FilecoinErrorKind::KeyMismatch);

    const std::vector<SnapPartitionProof> twice = {g.partitions[0], g.partitions[0]};
    const std::string m = error_of([&] {
        engine::snap_job(proof, UpdateCircuit::Poseidon, twice, g.comm_r_old, g.comm_d_new, g.comm_r_new);
    });
    EXPECT_NE(m.find("2 partition proofs, the update has 1"), std::string::npos) << m;
}

}  // namespace
}  // namespace cuzk::filecoin
