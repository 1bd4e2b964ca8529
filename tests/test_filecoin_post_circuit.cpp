// FallbackPoSt (Winning / Window PoSt) circuit (filecoin/post_circuit.hpp): rust-fil-proofs' own circuit tests
// (storage-proofs-post tests/fallback_circuit.rs: satisfied instances over native trees, their constraint and input
// counts, the public inputs the compound proof generates), the published production counts (SPEC §1.7, §2.1)
// through the counting system, a tampered sibling caught by the root check, and polka-storage's verified 2 KiB
// Window PoSt public inputs (SPEC §4.3).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "seeded_rng.hpp"
#include "cuzk/filecoin/challenges_post.hpp"
#include "cuzk/filecoin/post_circuit.hpp"
#include "cuzk/r1cs/canonical.hpp"
#include "cuzk/r1cs/keygen_assembly.hpp"
#include "cuzk/r1cs/test_cs.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::filecoin {
namespace {

using cuzk::testing::seeded_rng;
using r1cs::TestConstraintSystem;

Fr random_fr(std::mt19937_64& rng) { return Fr::random(rng); }

// A sector as upstream's test makes it: a random tree R_last of `shape`, a random comm_c.
struct TestSector {
    uint64_t id;
    PoseidonTree tree;
    Fr comm_c;
    Fr comm_r;
};

std::vector<TestSector> random_sectors(size_t count, TreeShape shape, uint64_t leaves, std::mt19937_64& rng) {
    std::vector<TestSector> out;
    for (size_t i = 0; i < count; i++) {
        std::vector<Fr> data(leaves);
        for (Fr& x : data) x = random_fr(rng);
        PoseidonTree tree(shape, data);
        const Fr comm_c = random_fr(rng);
        const Fr cr = comm_r(comm_c, tree.root());
        out.push_back(TestSector{i, std::move(tree), comm_c, cr});
    }
    return out;
}

// The circuit of partition k as the compound proof builds it from the vanilla proofs: the partition's sectors
// with their challenges (the sector's index in the whole proof decides them under V1_0 / V1_1).
FallbackPostCircuit partition_circuit(const PostCircuitConfig& config, const Domain& randomness,
                                      const std::vector<TestSector>& sectors, uint32_t k) {
    std::vector<PostSectorWitness> witnesses;
    for (size_t i = 0; i < config.sector_count && k * config.sector_count + i < sectors.size(); i++) {
        const size_t index = k * config.sector_count + i;
        const TestSector& s = sectors[index];
        const std::vector<uint64_t> challenges = post_sector_leaf_challenges(
            config.api_version, randomness, s.id, index, config.challenge_count, config.sector_nodes);
        witnesses.push_back(PostSectorWitness::from_tree(s.tree, s.comm_c, challenges));
    }
    return FallbackPostCircuit(config, std::move(witnesses));
}

std::vector<PostPublicSector> public_sectors(const std::vector<TestSector>& sectors) {
    std::vector<PostPublicSector> out;
    for (const TestSector& s : sectors) out.push_back({s.id, s.comm_r});
    return out;
}

// storage-proofs-post tests/fallback_circuit.rs `test_fallback_post`: 64 leaves per base tree, 5 challenges per
// sector, ApiVersion V1_1_0; every partition's circuit is satisfied, has the expected counts, and its inputs equal
// the compound proof's public inputs. Also: the counting system agrees with the test system.
void check_upstream_case(TreeShape shape, size_t total_sectors, uint32_t sector_count, uint32_t partitions,
                         size_t expected_inputs, size_t expected_constraints, const char* name) {
    std::mt19937_64 rng = seeded_rng(name);
    const uint64_t base_trees = (shape.sub ? shape.sub : 1) * (shape.top ? shape.top : 1);
    PostCircuitConfig config;
    config.sector_nodes = 64 * base_trees;
    config.tree = shape;
    config.challenge_count = 5;
    config.sector_count = sector_count;
    config.api_version = ApiVersion::V1_1_0;

    const Domain randomness = domain_from_fr(random_fr(rng));
    const std::vector<TestSector> sectors = random_sectors(total_sectors, shape, config.sector_nodes, rng);
    const std::vector<PostPublicSector> pub = public_sectors(sectors);
    for (uint32_t k = 0; k < partitions; k++) {
        TestConstraintSystem cs;
        partition_circuit(config, randomness, sectors, k).synthesize(cs);
        EXPECT_TRUE(cs.is_satisfied()) << name << " partition " << k << ": " << cs.which_is_unsatisfied().value_or("");
        EXPECT_EQ(cs.num_inputs(), expected_inputs) << name;
        EXPECT_EQ(cs.num_constraints(), expected_constraints) << name;
        const std::vector<Fr> generated = post_public_inputs(config, randomness, pub, k);
        ASSERT_EQ(generated.size() + 1, cs.inputs().size()) << name;
        for (size_t i = 0; i < generated.size(); i++)
            EXPECT_EQ(cs.inputs()[i + 1], generated[i]) << name << " partition " << k << " input " << i << " ("
                                                         << cs.input_names()[i + 1] << ")";
        const CircuitCounts counted = post_circuit_info(config);
        EXPECT_EQ(counted.constraints, cs.num_constraints()) << name;
        EXPECT_EQ(counted.inputs, cs.num_inputs()) << name;
        EXPECT_EQ(counted.aux, cs.num_aux()) << name;
    }
}

TEST(FilecoinPostCircuit, UpstreamSinglePartitionBase8) {
    check_upstream_case({8, 0, 0}, 3, 3, 1, 19, 16'869, "single partition 8-0-0");
}
TEST(FilecoinPostCircuit, UpstreamSinglePartitionSub8_4) {
    check_upstream_case({8, 4, 0}, 3, 3, 1, 19, 22'674, "single partition 8-4-0");
}
TEST(FilecoinPostCircuit, UpstreamSinglePartitionTop8_4_2) {
    check_upstream_case({8, 4, 2}, 3, 3, 1, 19, 27'384, "single partition 8-4-2");
}
TEST(FilecoinPostCircuit, UpstreamTwoPartitionsBase8) {
    check_upstream_case({8, 0, 0}, 4, 2, 2, 13, 11'246, "two partitions 8-0-0");
}
TEST(FilecoinPostCircuit, UpstreamSinglePartitionSmallerBase8) {
    // 2 sectors in a 3-sector circuit: the last one repeated.
    check_upstream_case({8, 0, 0}, 2, 3, 1, 19, 16'869, "smaller single partition 8-0-0");
}
TEST(FilecoinPostCircuit, UpstreamTwoPartitionsSmallerBase8) {
    // 5 sectors over two 3-sector partitions: partition 1 repeats its last sector.
    check_upstream_case({8, 0, 0}, 5, 3, 2, 19, 16'869, "smaller two partitions 8-0-0");
}

TEST(FilecoinPostCircuit, PerSectorCostAt32GiB) {
    // SPEC §1.7: one sector = 313 + challenges x 5,302 rows at 32 GiB (8-8-0, 10 Poseidon-8 levels per path).
    PostCircuitConfig config = PostCircuitConfig::make(32ull << 30, PoStType::Window);
    config.sector_count = 1;
    config.challenge_count = 1;
    EXPECT_EQ(post_circuit_info(config).constraints, 313u + 5'302u);
    config.challenge_count = 10;
    EXPECT_EQ(post_circuit_info(config).constraints, 313u + 10u * 5'302u);
}

std::string hex(const std::array<uint8_t, 32>& d) { return to_hex(std::span<const uint8_t>(d)); }

TEST(FilecoinPostCircuit, RowsArePinned) {
    // The canonical rows (r1cs/canonical.hpp: what `cuzk filecoin r1cs --digest` hashes) of a 2 KiB Window PoSt
    // partition: any change to a row, a variable's position or a coefficient changes the digest. The witness does
    // not enter it.
    std::mt19937_64 rng = seeded_rng("FilecoinPostCircuit.RowsArePinned");
    const PostCircuitConfig config = PostCircuitConfig::from_registered(RegisteredPoStProof::StackedDrgWindow2KiBV1_2);
    const Domain randomness = domain_from_fr(random_fr(rng));
    const std::vector<TestSector> sectors = random_sectors(1, config.tree, config.sector_nodes, rng);
    TestConstraintSystem cs;
    partition_circuit(config, randomness, sectors, 0).synthesize(cs);
    ASSERT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
    EXPECT_EQ(cs.num_constraints(), 2u * (313u + 10u * (2u * 530u + 2u)));
    EXPECT_EQ(cs.num_inputs(), 23u);
    EXPECT_EQ(hex(r1cs::canonical_digest(cs)), "a3a35b83e5d6f5c69727a8d4606513cc8bc8d94262b93ac772d464e911d9cb92");
}

TEST(FilecoinPostCircuit, TamperedSiblingIsCaughtByTheRootCheck) {
    std::mt19937_64 rng = seeded_rng("FilecoinPostCircuit.TamperedSibling");
    PostCircuitConfig config = PostCircuitConfig::make(2048, PoStType::Window);
    const Domain randomness = domain_from_fr(random_fr(rng));
    const std::vector<TestSector> sectors = random_sectors(2, config.tree, config.sector_nodes, rng);
    {
        TestConstraintSystem cs;
        partition_circuit(config, randomness, sectors, 0).synthesize(cs);
        ASSERT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
    }
    // One sibling of sector 1's third path, level 1, changed.
    std::vector<PostSectorWitness> w;
    for (uint32_t i = 0; i < 2; i++)
        w.push_back(PostSectorWitness::from_tree(
            sectors[i].tree, sectors[i].comm_c,
            post_sector_leaf_challenges(config.api_version, randomness, sectors[i].id, i, config.challenge_count,
                                        config.sector_nodes)));
    std::vector<PostSectorWitness> bad_sibling = w;
    bad_sibling[1].paths[2].base[1].siblings[4] = *bad_sibling[1].paths[2].base[1].siblings[4] + Fr::one();
    TestConstraintSystem cs;
    FallbackPostCircuit(config, bad_sibling).synthesize(cs);
    EXPECT_EQ(cs.which_is_unsatisfied().value_or(""),
              "outer namespace/sector_1/challenge_inclusion_2/enforce root is correct");
    // A wrong comm_c breaks comm_r = H(comm_c, comm_r_last).
    std::vector<PostSectorWitness> bad_comm_c = w;
    bad_comm_c[0].comm_c = *bad_comm_c[0].comm_c + Fr::one();
    TestConstraintSystem cs2;
    FallbackPostCircuit(config, bad_comm_c).synthesize(cs2);
    EXPECT_EQ(cs2.which_is_unsatisfied().value_or(""), "outer namespace/sector_0/enforce_comm_c_comm_r_last_hash_comm_r");
}

TEST(FilecoinPostCircuit, KeygenAndCountingAgreeWithTheTestSystem) {
    // The blank circuit (no values) synthesizes the same shape for key generation as a real instance.
    std::mt19937_64 rng = seeded_rng("FilecoinPostCircuit.KeygenAgrees");
    const PostCircuitConfig config = PostCircuitConfig::from_registered(RegisteredPoStProof::StackedDrgWinning2KiBV1);
    EXPECT_EQ(config.sector_count, 66u);
    EXPECT_EQ(config.challenge_count, 1u);
    const Domain randomness = domain_from_fr(random_fr(rng));
    std::vector<TestSector> one = random_sectors(1, config.tree, config.sector_nodes, rng);
    // Winning PoSt: the one sector in every place, each place its own challenge (V1_0: index = place).
    std::vector<PostSectorWitness> w;
    for (uint32_t i = 0; i < config.sector_count; i++)
        w.push_back(PostSectorWitness::from_tree(
            one[0].tree, one[0].comm_c,
            post_sector_leaf_challenges(config.api_version, randomness, one[0].id, i, 1, config.sector_nodes)));
    TestConstraintSystem cs;
    FallbackPostCircuit(config, w).synthesize(cs);
    EXPECT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
    const std::vector<PostPublicSector> pub(config.sector_count, PostPublicSector{one[0].id, one[0].comm_r});
    const std::vector<Fr> inputs = post_public_inputs(config, randomness, pub);
    EXPECT_EQ(std::vector<Fr>(cs.inputs().begin() + 1, cs.inputs().end()), inputs);

    r1cs::KeygenAssembly kg;
    kg.alloc_input("one", [] { return Fr::one(); });
    FallbackPostCircuit::blank(config).synthesize(kg);
    EXPECT_EQ(kg.num_constraints(), cs.num_constraints());
    EXPECT_EQ(kg.num_inputs(), cs.num_inputs());
    const CircuitCounts counted = post_circuit_info(RegisteredPoStProof::StackedDrgWinning2KiBV1);
    EXPECT_EQ(counted, (CircuitCounts{cs.num_constraints(), cs.num_inputs(), cs.num_aux(), std::nullopt}));
    std::printf("[ info ] Winning PoSt 2 KiB: %llu constraints, %llu inputs, %llu aux\n",
                (unsigned long long)counted.constraints, (unsigned long long)counted.inputs,
                (unsigned long long)counted.aux);
}

TEST(FilecoinPostCircuit, WinningPost32GiB) {
    const auto t0 = std::chrono::steady_clock::now();
    const CircuitCounts c = post_circuit_info(RegisteredPoStProof::StackedDrgWinning32GiBV1);
    EXPECT_EQ(c.constraints, 370'590u);
    EXPECT_EQ(c.inputs, 133u);
    std::printf("[ info ] Winning PoSt 32 GiB: %llu constraints, %llu inputs, %llu aux (%.2f s)\n",
                (unsigned long long)c.constraints, (unsigned long long)c.inputs, (unsigned long long)c.aux,
                seconds_since(t0));
}

TEST(FilecoinPostCircuit, WindowPost32GiB) {
    const auto t0 = std::chrono::steady_clock::now();
    const CircuitCounts c = post_circuit_info(RegisteredPoStProof::StackedDrgWindow32GiBV1_2);
    EXPECT_EQ(c.constraints, 125'279'217u);
    EXPECT_EQ(c.inputs, 25'840u);
    std::printf("[ info ] Window PoSt 32 GiB: %llu constraints, %llu inputs, %llu aux (%.2f s)\n",
                (unsigned long long)c.constraints, (unsigned long long)c.inputs, (unsigned long long)c.aux,
                seconds_since(t0));
}

TEST(FilecoinPostCircuit, WindowPost64GiB) {
    const auto t0 = std::chrono::steady_clock::now();
    const CircuitCounts c = post_circuit_info(64ull << 30, PoStType::Window);
    EXPECT_EQ(c.constraints, 129'887'900u);
    EXPECT_EQ(c.inputs, 2'300u * 11u + 1u);
    std::printf("[ info ] Window PoSt 64 GiB: %llu constraints, %llu inputs, %llu aux (%.2f s)\n",
                (unsigned long long)c.constraints, (unsigned long long)c.inputs, (unsigned long long)c.aux,
                seconds_since(t0));
}

// polka-storage's verified 2 KiB Window PoSt (V1_2_0, one sector repeated in the 2-sector partition): the public
// inputs its proof verifies with.
TEST(FilecoinPostCircuit, PolkaStorageWindowPostPublicInputs) {
    std::optional<nlohmann::json> json;
#ifdef CUZK_VECTORS_DIR
    std::ifstream in(std::filesystem::path(CUZK_VECTORS_DIR) / "filecoin" / "polka_storage_2kib_window_post.json");
    if (in) json = nlohmann::json::parse(in);
#endif
    if (!json) GTEST_SKIP() << "polka_storage_2kib_window_post.json not found under CUZK_VECTORS_DIR";
    const PostCircuitConfig config = PostCircuitConfig::from_registered(RegisteredPoStProof::StackedDrgWindow2KiBV1_2);
    const Domain randomness = domain_from_hex((*json)["randomness_hex"].get<std::string>());
    const PostPublicSector sector{(*json)["sector_id"].get<uint64_t>(),
                                  fr_from_domain(domain_from_hex((*json)["comm_r_hex"].get<std::string>()))};
    const std::vector<Fr> inputs = post_public_inputs(config, randomness, std::span<const PostPublicSector>(&sector, 1));
    const auto& expected = (*json)["public_inputs_decimal"];
    ASSERT_EQ(inputs.size(), expected.size());
    EXPECT_EQ(inputs.size(), config.public_input_count());
    for (size_t i = 0; i < inputs.size(); i++) EXPECT_EQ(inputs[i].to_decimal(), expected[i].get<std::string>()) << i;
    // Its verifying key's IC length (after alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2: 432 bytes, a
    // big-endian u32) is the circuit's input count, ONE included.
    const std::string vk = (*json)["vk_hex"].get<std::string>();
    ASSERT_GE(vk.size(), 2u * 436u);
    const uint32_t ic = (uint32_t)std::stoul(vk.substr(2 * 432, 8), nullptr, 16);
    EXPECT_EQ(ic, post_circuit_info(config).inputs);
}

}  // namespace
}  // namespace cuzk::filecoin
