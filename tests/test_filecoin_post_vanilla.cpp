// PoSt vanilla proofs (cuzk/filecoin/post_vanilla.hpp): the bincode layout byte by byte on a hand-built proof, the
// round trip, every truncation and a corrupted length refused with the field named; proofs made from real 2 KiB
// trees R_last (as generate_single_vanilla_proof makes them) turned into a partition witness that satisfies the
// FallbackPoSt circuit with the public inputs post_public_inputs derives (Window: two sectors, and one padded to
// two; Winning: the 66 challenges of one sector); a wrong challenge, sibling, root or comm_r refused; generated
// vanilla proofs of sectors never built (virtual trees) accepted at 32 GiB and 64 GiB, satisfying at 2 KiB; the
// engine job (engine/post.hpp) returns only proofs that verify. The JSON form (serde_json's of the same types): a
// fixture checked by hand against upstream's types, generated proofs read back equal to their bincode, bad JSON
// refused naming the field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "cuzk/engine/post.hpp"
#include "cuzk/filecoin/c1_gen.hpp"
#include "cuzk/groth16/backend.hpp"
#include "cuzk/groth16/setup.hpp"
#include "cuzk/filecoin/challenges_post.hpp"
#include "cuzk/filecoin/post_vanilla.hpp"
#include "cuzk/filecoin/sealer.hpp"
#include "cuzk/r1cs/test_cs.hpp"
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

Domain random_domain(std::mt19937_64& rng) { return domain_from_fr(Fr::random(rng)); }

std::vector<uint8_t> le(uint64_t v, size_t n) {
    std::vector<uint8_t> out;
    for (size_t i = 0; i < n; i++) out.push_back((uint8_t)(v >> (8 * i)));
    return out;
}

void append(std::vector<uint8_t>& out, const std::vector<uint8_t>& b) { out.insert(out.end(), b.begin(), b.end()); }
void append(std::vector<uint8_t>& out, const Domain& d) { out.insert(out.end(), d.begin(), d.end()); }

TEST(FilecoinPostVanilla, BincodeLayout) {
    auto rng = seeded_rng("FilecoinPostVanilla.BincodeLayout");
    // One Sub proof (base path of one binary level, a sub level of arity 4) in one sector proof.
    FallbackPostSectorProof p;
    p.sector_id = 0x0102030405060708ULL;
    p.comm_r = random_domain(rng);
    PostSectorProof s;
    MerkleProof m;
    m.kind = MerkleProofKind::Sub;
    m.base = {MerklePathElement{{random_domain(rng)}, 1}};
    m.sub = {MerklePathElement{{random_domain(rng), random_domain(rng), random_domain(rng)}, 2}};
    m.root = random_domain(rng);
    m.leaf = random_domain(rng);
    s.inclusion_proofs = {m};
    s.comm_c = random_domain(rng);
    s.comm_r_last = random_domain(rng);
    p.sectors = {s};

    std::vector<uint8_t> want;
    append(want, le(p.sector_id, 8));
    append(want, p.comm_r);
    append(want, le(1, 8));  // sectors
    append(want, le(1, 8));  // inclusion_proofs
    append(want, le(1, 4));  // ProofData::Sub
    append(want, le(1, 8));  // base_proof: 1 element
    append(want, le(1, 8));
    append(want, m.base[0].hashes[0]);
    append(want, le(1, 8));  // index
    append(want, le(1, 8));  // sub_proof: 1 element
    append(want, le(3, 8));
    for (const Domain& h : m.sub[0].hashes) append(want, h);
    append(want, le(2, 8));
    append(want, m.root);
    append(want, m.leaf);
    append(want, s.comm_c);
    append(want, s.comm_r_last);
    EXPECT_EQ(write_post_vanilla_proof(p), want);
    EXPECT_EQ(read_post_vanilla_proof(want, "t"), p);

    // Every truncation is refused; so are a byte too many, a huge length and an unknown variant.
    for (size_t n = 0; n < want.size(); n++)
        EXPECT_THROW(read_post_vanilla_proof(std::span<const uint8_t>(want.data(), n), "t"), FilecoinError) << n;
    std::vector<uint8_t> longer = want;
    longer.push_back(0);
    try {
        read_post_vanilla_proof(longer, "sector 9");
        FAIL();
    } catch (const FilecoinError& e) {
        EXPECT_EQ(e.kind(), FilecoinErrorKind::MalformedVanilla);
        EXPECT_NE(std::string(e.what()).find("sector 9: 1 bytes after the proof"), std::string::npos) << e.what();
    }
    std::vector<uint8_t> huge = want;
    huge[40 + 8 + 8 + 4] = 0xff;  // base_proof's length
    try {
        read_post_vanilla_proof(huge, "t");
        FAIL();
    } catch (const FilecoinError& e) {
        EXPECT_NE(std::string(e.what()).find("vanilla_proof.sectors[0].inclusion_proofs[0].data.Sub.base_proof"),
                  std::string::npos)
            << e.what();
    }
    std::vector<uint8_t> variant = want;
    variant[40 + 8 + 8] = 3;
    EXPECT_THROW(read_post_vanilla_proof(variant, "t"), FilecoinError);
}

// A sector of `config`'s size: a random tree R_last and comm_c.
struct Sector {
    uint64_t id;
    std::unique_ptr<PoseidonTree> tree;
    Fr comm_c;

    Sector(uint64_t sector_id, const PostCircuitConfig& config, std::mt19937_64& rng) : id(sector_id) {
        std::vector<Fr> leaves(config.sector_nodes);
        for (Fr& l : leaves) l = Fr::random(rng);
        tree = std::make_unique<PoseidonTree>(config.tree, leaves);
        comm_c = Fr::random(rng);
    }

    // What generate_single_vanilla_proof returns for these challenges.
    FallbackPostSectorProof vanilla(std::span<const uint64_t> challenges) const {
        FallbackPostSectorProof p;
        p.sector_id = id;
        p.comm_r = domain_from_fr(comm_r(comm_c, tree->root()));
        PostSectorProof s;
        for (uint64_t c : challenges) s.inclusion_proofs.push_back(poseidon_proof(*tree, c));
        s.comm_c = domain_from_fr(comm_c);
        s.comm_r_last = domain_from_fr(tree->root());
        p.sectors = {s};
        return p;
    }
};

Domain random_randomness(std::mt19937_64& rng) {
    Domain d = random_domain(rng);
    d[31] &= 0x3f;
    return d;
}

// The witness satisfies the circuit, and its public inputs are those the circuit computes.
void expect_satisfied(const PostCircuitConfig& config, const PostPartitionWitness& w) {
    ASSERT_EQ(w.public_inputs.size(), config.public_input_count());
    r1cs::TestConstraintSystem cs;
    FallbackPostCircuit(config, w.sectors).synthesize(cs);
    EXPECT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
    std::vector<Fr> inputs = cs.inputs();
    ASSERT_EQ(inputs.size(), w.public_inputs.size() + 1);
    for (size_t i = 0; i < w.public_inputs.size(); i++) EXPECT_EQ(inputs[i + 1], w.public_inputs[i]) << i;
}

TEST(FilecoinPostVanilla, WindowPartitionFromVanillaProofs) {
    auto rng = seeded_rng("FilecoinPostVanilla.Window");
    const PostCircuitConfig config = PostCircuitConfig::make(2048, PoStType::Window);
    ASSERT_EQ(config.sector_count, 2u);
    const Domain randomness = random_randomness(rng);
    const Sector a(5, config, rng), b(9, config, rng);
    for (uint32_t partition : {0u, 3u}) {
        std::vector<FallbackPostSectorProof> proofs;
        std::vector<PostPublicSector> all(size_t(partition) * config.sector_count, PostPublicSector{1, Fr::one()});
        for (const Sector* s : {&a, &b}) {
            const uint64_t index = all.size();
            const auto leaves = post_sector_leaf_challenges(config.api_version, randomness, s->id, index,
                                                            config.challenge_count, config.sector_nodes);
            // Through the bytes, as the prover receives them.
            proofs.push_back(read_post_vanilla_proof(write_post_vanilla_proof(s->vanilla(leaves)), "v"));
            all.push_back(PostPublicSector{s->id, comm_r(s->comm_c, s->tree->root())});
        }
        const PostPartitionWitness w = post_partition_witness(config, PoStType::Window, randomness, proofs, partition);
        expect_satisfied(config, w);
        EXPECT_EQ(w.public_inputs, post_public_inputs(config, randomness, all, partition));
        // One sector: padded to two by repeating it.
        const PostPartitionWitness one =
            post_partition_witness(config, PoStType::Window, randomness, std::span(proofs).first(1), partition);
        expect_satisfied(config, one);
    }
}

TEST(FilecoinPostVanilla, WinningFromOneSectorsSixtySixChallenges) {
    auto rng = seeded_rng("FilecoinPostVanilla.Winning");
    const PostCircuitConfig config = PostCircuitConfig::make(2048, PoStType::Winning, ApiVersion::V1_0_0);
    ASSERT_EQ(config.sector_count, 66u);
    const Domain randomness = random_randomness(rng);
    const Sector s(77, config, rng);
    // generate_fallback_sector_challenges for Winning: one sector, 66 challenges.
    const auto leaves = post_sector_leaf_challenges(config.api_version, randomness, s.id, 0, 66, config.sector_nodes);
    const FallbackPostSectorProof p = s.vanilla(leaves);
    const PostPartitionWitness w = post_partition_witness(config, PoStType::Winning, randomness, {&p, 1}, 0);
    ASSERT_EQ(w.sectors.size(), 66u);
    expect_satisfied(config, w);
    const std::vector<PostPublicSector> listed(66, PostPublicSector{s.id, comm_r(s.comm_c, s.tree->root())});
    EXPECT_EQ(w.public_inputs, post_public_inputs(config, randomness, listed, 0));
}

TEST(FilecoinPostVanilla, BadProofsAreRefusedWithTheField) {
    auto rng = seeded_rng("FilecoinPostVanilla.Bad");
    const PostCircuitConfig config = PostCircuitConfig::make(2048, PoStType::Window);
    const Domain randomness = random_randomness(rng);
    const Sector s(11, config, rng);
    const auto leaves = post_sector_leaf_challenges(config.api_version, randomness, s.id, 0, config.challenge_count,
                                                    config.sector_nodes);
    const FallbackPostSectorProof good = s.vanilla(leaves);
    auto refused = [&](const FallbackPostSectorProof& p, const std::string& needle) {
        try {
            post_partition_witness(config, PoStType::Window, randomness, {&p, 1}, 0);
            ADD_FAILURE() << "accepted: " << needle;
        } catch (const FilecoinError& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    ASSERT_NO_THROW(post_partition_witness(config, PoStType::Window, randomness, {&good, 1}, 0));
    {
        // A proof of another leaf than the challenge.
        std::vector<uint64_t> other(leaves.begin(), leaves.end());
        other[4] = (other[4] + 1) % config.sector_nodes;
        refused(s.vanilla(other), "inclusion_proofs[4]: proves leaf");
    }
    {
        FallbackPostSectorProof p = good;
        p.sectors[0].inclusion_proofs.pop_back();
        refused(p, "9 inclusion proofs");
    }
    {
        FallbackPostSectorProof p = good;
        p.sectors[0].inclusion_proofs[2].root = random_domain(rng);
        refused(p, "inclusion_proofs[2].root");
    }
    {
        FallbackPostSectorProof p = good;
        p.comm_r = random_domain(rng);
        refused(p, "comm_r");
    }
    {
        FallbackPostSectorProof p = good;
        p.sectors[0].inclusion_proofs[1].base[0].hashes.pop_back();
        refused(p, "inclusion_proofs[1].level 0");
    }
    {
        FallbackPostSectorProof p = good;
        p.sectors[0].inclusion_proofs[1].base[0].hashes[0].fill(0xff);  // not a field element
        refused(p, "inclusion_proofs[1].level 0 sibling [0]");
    }
    // A sibling changed to another field element passes the shape checks but not the circuit.
    FallbackPostSectorProof p = good;
    p.sectors[0].inclusion_proofs[3].base[1].hashes[0] = random_domain(rng);
    const PostPartitionWitness w = post_partition_witness(config, PoStType::Window, randomness, {&p, 1}, 0);
    r1cs::TestConstraintSystem cs;
    FallbackPostCircuit(config, w.sectors).synthesize(cs);
    EXPECT_FALSE(cs.is_satisfied());
}

TEST(FilecoinPostVanilla, GeneratedForAnySize) {
    auto rng = seeded_rng("FilecoinPostVanilla.Generated");
    const Domain randomness = random_randomness(rng);
    const uint64_t seed = rng();
    // 2 KiB: the generated proofs satisfy the circuits.
    for (RegisteredPoStProof p : {RegisteredPoStProof::StackedDrgWindow2KiBV1_2, RegisteredPoStProof::StackedDrgWinning2KiBV1}) {
        const PostCircuitConfig config = PostCircuitConfig::from_registered(p);
        const bool winning = post_type(p) == PoStType::Winning;
        std::vector<FallbackPostSectorProof> proofs;
        for (uint64_t i = 0; i < (winning ? 1u : config.sector_count); i++)
            proofs.push_back(generate_post_vanilla(p, randomness, 100 + i, i, seed + i));
        expect_satisfied(config, post_partition_witness(config, post_type(p), randomness, proofs, 0));
        EXPECT_EQ(generate_post_vanilla(p, randomness, 100, 0, seed), proofs[0]);  // deterministic
    }
    // 32 GiB and 64 GiB (sub/top trees): accepted by every check before synthesis.
    for (RegisteredPoStProof p : {RegisteredPoStProof::StackedDrgWindow32GiBV1_2, RegisteredPoStProof::StackedDrgWinning32GiBV1,
                                  RegisteredPoStProof::StackedDrgWindow64GiBV1_2}) {
        const PostCircuitConfig config = PostCircuitConfig::from_registered(p);
        const FallbackPostSectorProof v = generate_post_vanilla(p, randomness, 7, 0, seed);
        const FallbackPostSectorProof back = read_post_vanilla_proof(write_post_vanilla_proof(v), "v");
        EXPECT_EQ(back, v);
        const PostPartitionWitness w = post_partition_witness(config, post_type(p), randomness, {&back, 1}, 0);
        EXPECT_EQ(w.public_inputs.size(), config.public_input_count()) << proof_name(p);
    }
}

// ---- JSON (serde_json's form of the same types) ------------------------------------------------------------------

// A fixture checked by hand against upstream's types, for a Sub Merkle proof (a base path, then one sub level, as a
// 32 GiB sector's tree R_last has; fewer siblings, as arities are checked after reading). What fixes each part of
// the shape (serde derive, serde_json):
//   filecoin-proofs types/mod.rs FallbackPoStSectorProof { sector_id: SectorId, comm_r: <Tree::Hasher as
//     Hasher>::Domain, vanilla_proof: fallback::Proof } — only #[serde(bound(...))] attributes (no shape change);
//     SectorId(u64) (storage-proofs-core sector.rs) is a newtype struct, so a bare number; PoseidonDomain
//     (filecoin-hashers poseidon.rs) is a newtype over <blstrs::Scalar as PrimeField>::Repr = [u8; 32], so an array
//     of 32 numbers (little-endian bytes).
//   storage-proofs-post fallback/vanilla.rs Proof { sectors: Vec<SectorProof> }, SectorProof { inclusion_proofs,
//     comm_c, comm_r_last } in that order.
//   storage-proofs-core merkle/proof.rs MerkleProof { data: ProofData }; ProofData is an enum with no #[serde(tag)] or
//     untagged attribute, so externally tagged: {"Sub": SubProof}; SubProof { base_proof, sub_proof, root, leaf } in
//     declaration order; InclusionPath { path: Vec<PathElement> }; PathElement { hashes, index: usize, _arity } with
//     #[serde(skip)] on the PhantomData _arity, so no third key.
// Every key below is one of those field names, in that order.
TEST(FilecoinPostVanilla, JsonFixtureHasUpstreamsSerdeShape) {
    const std::string fixture = R"({"sector_id":8827,"comm_r":)" + node_json(1) +
                                R"(,"vanilla_proof":{"sectors":[{"inclusion_proofs":[{"data":{"Sub":{)"
                                R"("base_proof":{"path":[{"hashes":[)" + node_json(2) + R"(],"index":1}]},)"
                                R"("sub_proof":{"path":[{"hashes":[)" + node_json(3) + "," + node_json(4) + "," +
                                node_json(5) + R"(],"index":2}]},)"
                                R"("root":)" + node_json(6) + R"(,"leaf":)" + node_json(7) + R"(}}}],)"
                                R"("comm_c":)" + node_json(8) + R"(,"comm_r_last":)" + node_json(9) + "}]}}";
    FallbackPostSectorProof p;
    p.sector_id = 8827;
    p.comm_r = node_domain(1);
    MerkleProof m;
    m.kind = MerkleProofKind::Sub;
    m.base = {MerklePathElement{{node_domain(2)}, 1}};
    m.sub = {MerklePathElement{{node_domain(3), node_domain(4), node_domain(5)}, 2}};
    m.root = node_domain(6);
    m.leaf = node_domain(7);
    p.sectors = {PostSectorProof{{m}, node_domain(8), node_domain(9)}};

    EXPECT_EQ(write_post_vanilla_json(p), fixture);
    EXPECT_EQ(parse_post_vanilla_json(fixture, "t"), p);
    // What the file reader makes of either encoding of it. 8827 = 0x227B: the bincode starts with '{', '"' and is
    // still read as bincode.
    const std::vector<uint8_t> bin = write_post_vanilla_proof(p);
    ASSERT_EQ(bin[0], '{');
    ASSERT_EQ(bin[1], '"');
    EXPECT_EQ(read_post_vanilla_proof(bin, "t"), p);
    EXPECT_EQ(read_post_vanilla_proof(bytes_of(fixture), "t"), p);
    // As serde_json reads it: whitespace, another field order and unknown fields are fine.
    nlohmann::json j = nlohmann::json::parse(fixture);  // std::map: keys re-ordered alphabetically
    j["vanilla_proof"]["sectors"][0]["note"] = {1, "two", nullptr};
    j["future_field"] = true;
    EXPECT_EQ(read_post_vanilla_proof(bytes_of("\n\t " + j.dump(2) + "\n"), "t"), p);
}

// Generated proofs (2 KiB Window and Winning; 32 GiB's Sub and 64 GiB's Top proofs): the JSON reads back to what
// the bincode does, and to the same partition witness.
TEST(FilecoinPostVanilla, JsonRoundTripEqualsBincode) {
    auto rng = seeded_rng("FilecoinPostVanilla.JsonRoundTrip");
    const Domain randomness = random_randomness(rng);
    for (RegisteredPoStProof type :
         {RegisteredPoStProof::StackedDrgWindow2KiBV1_2, RegisteredPoStProof::StackedDrgWinning2KiBV1,
          RegisteredPoStProof::StackedDrgWindow32GiBV1_2, RegisteredPoStProof::StackedDrgWindow64GiBV1_2}) {
        const FallbackPostSectorProof p = generate_post_vanilla(type, randomness, 1000 + rng() % 100000, 0, rng());
        const std::string text = write_post_vanilla_json(p);
        const std::vector<uint8_t> bin = write_post_vanilla_proof(p);
        const FallbackPostSectorProof from_json = read_post_vanilla_proof(bytes_of(text), "j");
        EXPECT_EQ(from_json, read_post_vanilla_proof(bin, "b")) << proof_name(type);
        EXPECT_EQ(from_json, p) << proof_name(type);
        EXPECT_EQ(write_post_vanilla_json(from_json), text);
        const PostCircuitConfig config = PostCircuitConfig::from_registered(type);
        if (config.sector_nodes <= 64)
            expect_satisfied(config, post_partition_witness(config, post_type(type), randomness, {&from_json, 1}, 0));
        else
            EXPECT_EQ(post_partition_witness(config, post_type(type), randomness, {&from_json, 1}, 0).public_inputs,
                      post_partition_witness(config, post_type(type), randomness, {&p, 1}, 0).public_inputs);
    }
}

// Bad JSON: FilecoinError MalformedVanilla (as the bincode reader's) naming the file's label and the JSON path of the
// field; a path of the wrong length and a non-canonical node are refused by the same checks as a bincode proof's.
TEST(FilecoinPostVanilla, BadJsonNamesTheField) {
    auto rng = seeded_rng("FilecoinPostVanilla.BadJson");
    const RegisteredPoStProof type = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;
    const PostCircuitConfig config = PostCircuitConfig::from_registered(type);
    const Domain randomness = random_randomness(rng);
    const FallbackPostSectorProof good = generate_post_vanilla(type, randomness, 3, 0, rng());
    const std::string text = write_post_vanilla_json(good);
    auto read = [](const std::string& t) { return [t] { read_post_vanilla_proof(bytes_of(t), "sector 3"); }; };
    auto edited = [&](auto&& edit) {
        nlohmann::json j = nlohmann::json::parse(text);
        edit(j);
        return j.dump();
    };
    const std::string proof4 = "sector 3: vanilla_proof.sectors[0].inclusion_proofs[4]";

    // truncated: anywhere, an error naming the label and the truncation; halfway, after a "hashes" key, that field
    for (size_t n = 2; n < text.size(); n += 101) {  // from `{"`: "{" alone is 1 byte of bincode
        const std::string m = error_of(read(text.substr(0, n)));
        expect_has(m, "sector 3: ");
        expect_has(m, "unexpected end of input");
    }
    const std::string cut = error_of(read(text.substr(0, text.find("\"hashes\":", text.size() / 2) + 9)));
    expect_has(cut, "sector 3: vanilla_proof.sectors[0].inclusion_proofs[");
    expect_has(cut, "].hashes: unexpected end of input");
    // a wrong type, a missing field, a duplicate field, an unknown variant, numbers out of range, trailing text
    expect_has(error_of(read(edited([](nlohmann::json& j) { j["sector_id"] = "3"; }))),
               "sector 3: sector_id: expected a u64 (SectorId)");
    expect_has(error_of(read(edited([](nlohmann::json& j) { j["vanilla_proof"]["sectors"][0].erase("comm_c"); }))),
               "sector 3: vanilla_proof.sectors[0]: missing field `comm_c`");
    std::string twice = text;
    twice.insert(1, R"("sector_id":3,)");
    expect_has(error_of(read(twice)), "sector 3: sector_id: duplicate field `sector_id`");
    expect_has(error_of(read(edited([](nlohmann::json& j) {
                   auto& d = j["vanilla_proof"]["sectors"][0]["inclusion_proofs"][4]["data"];
                   const nlohmann::json single = d["Single"];
                   d = {{"Middle", single}};
               }))),
               proof4 + ".data.Middle: unknown variant, expected Single, Sub or Top");
    expect_has(error_of(read(edited([](nlohmann::json& j) {
                   j["vanilla_proof"]["sectors"][0]["inclusion_proofs"][4]["data"]["Single"]["path"]["path"][1]
                    ["index"] = -1;
               }))),
               proof4 + ".data.Single.path.path[1].index: negative number, expected a usize");
    std::string big = text;
    big.replace(big.find("\"sector_id\":3") + 12, 1, "18446744073709551616");
    expect_has(error_of(read(big)), "sector 3: sector_id: number out of range for a u64 (SectorId)");
    expect_has(error_of(read(edited([](nlohmann::json& j) { j["comm_r"][5] = 256; }))),
               "sector 3: comm_r: byte out of range");
    expect_has(error_of(read(text + " x")), "sector 3: trailing characters after the JSON value");

    // a node of 31 bytes, named by its JSON path
    expect_has(error_of(read(edited([](nlohmann::json& j) {
                   j["vanilla_proof"]["sectors"][0]["inclusion_proofs"][4]["data"]["Single"]["path"]["path"][1]
                    ["hashes"][6]
                        .erase(31);
               }))),
               proof4 + ".data.Single.path.path[1].hashes[6]: 31 bytes, expected 32");
    // a path one level short, and a sibling that is not a field element: read, then refused by the checks
    auto witness_of = [&](const std::string& t) {
        return [&, t] {
            const FallbackPostSectorProof p = read_post_vanilla_proof(bytes_of(t), "sector 3");
            post_partition_witness(config, PoStType::Window, randomness, {&p, 1}, 0);
        };
    };
    witness_of(text)();
    expect_has(error_of(witness_of(edited([](nlohmann::json& j) {
                   j["vanilla_proof"]["sectors"][0]["inclusion_proofs"][4]["data"]["Single"]["path"]["path"].erase(1);
               }))),
               proof4 + ": 1 base levels, expected 2");
    expect_has(error_of(witness_of(edited([](nlohmann::json& j) {
                            auto& h = j["vanilla_proof"]["sectors"][0]["inclusion_proofs"][4]["data"]["Single"]
                                       ["path"]["path"][1]["hashes"][0];
                            for (auto& b : h) b = 255;
                        })),
                        FilecoinErrorKind::NonCanonical),
               proof4 + ".level 1 sibling [0]: not a canonical field element");
}

// n generated sectors of a 2 KiB Window PoSt (ids first_id, first_id + 1, ..., in proof order).
std::vector<FallbackPostSectorProof> window_2kib_sectors(const Domain& randomness, uint64_t n, uint64_t first_id,
                                                         std::mt19937_64& rng) {
    std::vector<FallbackPostSectorProof> vanilla;
    for (uint64_t i = 0; i < n; i++)
        vanilla.push_back(generate_post_vanilla(RegisteredPoStProof::StackedDrgWindow2KiBV1_2, randomness, first_id + i,
                                                i, rng()));
    return vanilla;
}

// The job on the CPU under `params`.
engine::JobResult prove_on_cpu(const engine::PostJob& job, const groth16::Parameters& params) {
    groth16::CpuBackend cpu(params);
    engine::Engine eng;
    engine::JobSpec spec = engine::post_spec(job);
    spec.backend = &cpu;
    return eng.await(eng.submit(std::move(spec)));
}

// The engine job of one 2 KiB Window PoSt partition: a proof made under a key of the real circuit is returned, a
// proof that does not verify against the public inputs (random points) is never encoded, a key of another circuit
// is refused, and a failed job is an error.
TEST(PostJob, ProofsAreVerifiedBeforeTheyAreReturned) {
    auto rng = seeded_rng("PostJob.Verified");
    const RegisteredPoStProof proof = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;
    const Domain randomness = random_randomness(rng);
    const std::vector<FallbackPostSectorProof> vanilla = window_2kib_sectors(randomness, 2, 20, rng);
    const engine::PostJob job = engine::post_job(proof, randomness, vanilla);
    ASSERT_EQ(job.partitions.size(), 1u);
    ASSERT_EQ(job.partitions[0].public_inputs.size(), job.circuit.public_input_count());

    const FallbackPostCircuit blank = FallbackPostCircuit::blank(job.circuit);
    const groth16::Parameters params = groth16::generate_parameters(blank, groth16::ToxicWaste::from_seed(rng()));
    const engine::JobResult result = prove_on_cpu(job, params);
    ASSERT_EQ(result.state, engine::JobState::Done) << result.error;
    EXPECT_EQ(engine::post_proof(job, result, params.vk).size(), 192u);

    engine::JobResult forged = result;
    std::swap(forged.proofs[0].a, forged.proofs[0].c);
    try {
        engine::post_proof(job, forged, params.vk);
        ADD_FAILURE() << "a forged proof was encoded";
    } catch (const FilecoinError& e) {
        EXPECT_EQ(e.kind(), FilecoinErrorKind::InvalidProof) << e.what();
    }
    groth16::VerifyingKey other = params.vk;
    other.ic.pop_back();
    try {
        engine::post_proof(job, result, other);
        ADD_FAILURE() << "a key of another circuit was used";
    } catch (const FilecoinError& e) {
        EXPECT_EQ(e.kind(), FilecoinErrorKind::KeyMismatch) << e.what();
    }
    engine::JobResult failed = result;
    failed.state = engine::JobState::Failed;
    failed.error = "out of memory";
    EXPECT_THROW(engine::post_proof(job, failed, params.vk), std::runtime_error);
}

// A Window PoSt of more sectors than a partition holds (2 KiB: two per partition): five sectors are three
// partitions in one job, the last padded with its last sector; each partition's inputs are those of its sectors as
// post_public_inputs gives them for the whole PoSt; the proof is the three proofs in order, each verifying; a forged
// middle partition is named; one partition alone (post_job with an index) equals that partition of the whole.
TEST(PostJob, WindowPostOfSeveralPartitions) {
    auto rng = seeded_rng("PostJob.SeveralPartitions");
    const RegisteredPoStProof proof = RegisteredPoStProof::StackedDrgWindow2KiBV1_2;
    const Domain randomness = random_randomness(rng);
    const std::vector<FallbackPostSectorProof> vanilla = window_2kib_sectors(randomness, 5, 40, rng);
    const engine::PostJob job = engine::post_job(proof, randomness, vanilla);
    ASSERT_EQ(job.partitions.size(), 3u);
    std::vector<PostPublicSector> publics;
    for (const auto& v : vanilla) publics.push_back({v.sector_id, *try_fr_from_domain(v.comm_r)});
    for (uint32_t k = 0; k < 3; k++)
        EXPECT_EQ(job.partitions[k].public_inputs, post_public_inputs(job.circuit, randomness, publics, k)) << k;
    const engine::PostJob third = engine::post_job(proof, randomness, std::span(vanilla).subspan(4), 2);
    EXPECT_EQ(third.first_partition, 2u);
    EXPECT_EQ(third.partitions.at(0).public_inputs, job.partitions[2].public_inputs);
    EXPECT_THROW(engine::post_job(proof, randomness, std::span<const FallbackPostSectorProof>{}), FilecoinError);

    const groth16::Parameters params =
        groth16::generate_parameters(FallbackPostCircuit::blank(job.circuit), groth16::ToxicWaste::from_seed(rng()));
    const engine::JobResult result = prove_on_cpu(job, params);
    ASSERT_EQ(result.state, engine::JobState::Done) << result.error;
    EXPECT_EQ(engine::post_proof(job, result, params.vk).size(), 3u * 192u);
    engine::JobResult forged = result;
    std::swap(forged.proofs[1], forged.proofs[2]);
    try {
        engine::post_proof(job, forged, params.vk);
        ADD_FAILURE() << "a proof of the wrong partition was encoded";
    } catch (const FilecoinError& e) {
        EXPECT_EQ(e.kind(), FilecoinErrorKind::InvalidProof);
        EXPECT_NE(std::string(e.what()).find("partition(s) 1, 2"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace cuzk::filecoin
