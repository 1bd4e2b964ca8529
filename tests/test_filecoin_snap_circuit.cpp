// EmptySectorUpdate (SnapDeals) circuits (filecoin/snap_circuit.hpp): rust-fil-proofs' own circuit tests
// (storage-proofs-update tests/circuit.rs and circuit_poseidon.rs: random sectors, the new replica encoded with
// rho, every partition's circuit satisfied with the expected count and public inputs), the published 32 GiB
// counts (SPEC §2.2) through the counting system, and tampered witnesses caught by the named constraint.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "seeded_rng.hpp"
#include "cuzk/filecoin/challenges_snap.hpp"
#include "cuzk/filecoin/snap_circuit.hpp"
#include "cuzk/r1cs/canonical.hpp"
#include "cuzk/r1cs/keygen_assembly.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/r1cs/test_cs.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::filecoin {
namespace {

using cuzk::testing::seeded_rng;
using r1cs::TestConstraintSystem;

constexpr uint64_t KiB = 1024 / 32;  // in nodes

// upstream's tests take h = hs[log2(H_SELECT)] with H_SELECT = 1 << 2.
uint32_t test_h(const SnapShape& shape) { return shape.hs[2]; }

// A sector updated as upstream's tests do it: random old replica (tree R old) and comm_c, random new data (tree
// D new, a binary SHA-256 tree, or for the Poseidon variant a Poseidon tree of tree R's shape), the new replica
// encoded as old + data * rho(phi, high bits of the node index).
struct UpdatedSector {
    SnapShape shape;
    Fr comm_c;
    std::optional<PoseidonTree> tree_r_old, tree_r_new, tree_d_poseidon;
    std::optional<BinaryTree> tree_d;
    Fr comm_r_old, comm_d_new, comm_r_new;

    UpdatedSector(uint64_t nodes, UpdateCircuit variant, uint32_t h, std::mt19937_64& rng)
        : shape(SnapShape::from_sector_nodes(nodes)) {
        std::vector<Fr> old_replica(nodes), data(nodes);
        for (Fr& x : old_replica) x = Fr::random(rng);
        tree_r_old.emplace(shape.tree_r, old_replica);
        comm_c = Fr::random(rng);
        comm_r_old = comm_r(comm_c, tree_r_old->root());
        for (Fr& x : data) x = Fr::random(rng);
        if (variant == UpdateCircuit::Sha256) {
            std::vector<Domain> leaves;
            for (const Fr& x : data) leaves.push_back(domain_from_fr(x));
            tree_d.emplace(leaves);
            comm_d_new = fr_from_domain(tree_d->root());
        } else {
            tree_d_poseidon.emplace(shape.tree_r, data);
            comm_d_new = tree_d_poseidon->root();
        }
        const Fr phi = snap_phi(comm_d_new, comm_r_old);
        const std::vector<Fr> rhos = snap_rho_table(phi, h);
        std::vector<Fr> new_replica(nodes);
        for (uint64_t n = 0; n < nodes; n++)
            new_replica[n] = old_replica[n] + data[n] * rhos[snap_challenge_high(shape, n, h)];
        tree_r_new.emplace(shape.tree_r, new_replica);
        comm_r_new = comm_r(comm_c, tree_r_new->root());
    }

    SnapWitness witness(UpdateCircuit variant, uint32_t k, uint32_t h) const {
        if (variant == UpdateCircuit::Sha256) return snap_witness(shape, k, h, comm_c, *tree_r_old, *tree_d, *tree_r_new);
        return snap_poseidon_witness(shape, h, comm_c, *tree_r_old, *tree_d_poseidon, *tree_r_new);
    }
    std::vector<Fr> public_inputs(UpdateCircuit variant, uint32_t k, uint32_t h) const {
        if (variant == UpdateCircuit::Sha256) return snap_public_inputs(shape, k, h, comm_r_old, comm_d_new, comm_r_new);
        return snap_poseidon_public_inputs(shape, h, comm_r_old, comm_d_new, comm_r_new);
    }
};

std::vector<Fr> circuit_inputs(const TestConstraintSystem& cs) {
    return std::vector<Fr>(cs.inputs().begin() + 1, cs.inputs().end());
}

// ---- counts -------------------------------------------------------------------------------------------------

TEST(FilecoinSnapCircuit, UpstreamSha256Counts) {
    // storage-proofs-update tests/circuit.rs (10 challenges per partition, h = 1 at these sizes).
    const std::pair<uint64_t, uint64_t> cases[] = {{1 * KiB, 1'248'389}, {2 * KiB, 1'705'039},
                                                   {4 * KiB, 2'165'109}, {8 * KiB, 2'620'359},
                                                   {16 * KiB, 6'300'021}, {32 * KiB, 6'760'091}};
    for (auto [nodes, expected] : cases) {
        const CircuitCounts c = snap_circuit_info(SnapShape::from_sector_nodes(nodes), UpdateCircuit::Sha256);
        EXPECT_EQ(c.constraints, expected) << nodes * 32 << " bytes";
        EXPECT_EQ(c.inputs, 5u);
    }
}

TEST(FilecoinSnapCircuit, UpstreamPoseidonCounts) {
    // storage-proofs-update tests/circuit_poseidon.rs.
    EXPECT_EQ(snap_circuit_info(SnapShape::from_sector_nodes(1 * KiB), UpdateCircuit::Poseidon).constraints, 32'164u);
    EXPECT_EQ(snap_circuit_info(SnapShape::from_sector_nodes(8 * KiB), UpdateCircuit::Poseidon).constraints, 47'974u);
}

TEST(FilecoinSnapCircuit, SnapDeals32GiB) {
    const auto t0 = std::chrono::steady_clock::now();
    const CircuitCounts c = snap_circuit_info(RegisteredUpdateProof::StackedDrg32GiBV1, UpdateCircuit::Sha256);
    EXPECT_EQ(c.constraints, 81'049'499u);
    EXPECT_EQ(c.inputs, 5u);
    std::printf("[ info ] SnapDeals 32 GiB partition: %llu constraints, %llu inputs, %llu aux (%.2f s)\n",
                (unsigned long long)c.constraints, (unsigned long long)c.inputs, (unsigned long long)c.aux,
                seconds_since(t0));
}

TEST(FilecoinSnapCircuit, SnapDealsPoseidon32GiB) {
    const auto t0 = std::chrono::steady_clock::now();
    const CircuitCounts c = snap_circuit_info(RegisteredUpdateProof::StackedDrg32GiBV1, UpdateCircuit::Poseidon);
    EXPECT_EQ(c.constraints, 22'305'906u);
    EXPECT_EQ(c.inputs, 5u);
    std::printf("[ info ] SnapDeals-Poseidon 32 GiB: %llu constraints, %llu inputs, %llu aux (%.2f s)\n",
                (unsigned long long)c.constraints, (unsigned long long)c.inputs, (unsigned long long)c.aux,
                seconds_since(t0));
}

// ---- satisfied instances -----------------------------------------------------------------------------------

std::string hex(const std::array<uint8_t, 32>& d) { return to_hex(std::span<const uint8_t>(d)); }

// pinned_digest: the canonical rows' SHA-256 (r1cs/canonical.hpp; any change to a row, a variable's position or a
// coefficient changes it; the witness does not enter it), checked for partition 0.
void check_instance_test_cs(uint64_t nodes, UpdateCircuit variant, const char* name, const char* pinned_digest) {
    std::mt19937_64 rng = seeded_rng(name);
    const SnapShape shape = SnapShape::from_sector_nodes(nodes);
    const uint32_t h = test_h(shape);
    const UpdatedSector sector(nodes, variant, h, rng);
    const uint32_t partitions = variant == UpdateCircuit::Sha256 ? shape.partition_count : 1;
    for (uint32_t k = 0; k < partitions; k++) {
        TestConstraintSystem cs;
        EmptySectorUpdateCircuit(shape, variant, sector.witness(variant, k, h)).synthesize(cs);
        EXPECT_TRUE(cs.is_satisfied()) << name << " k " << k << ": " << cs.which_is_unsatisfied().value_or("");
        EXPECT_EQ(circuit_inputs(cs), sector.public_inputs(variant, k, h)) << name << " k " << k;
        const CircuitCounts counted = snap_circuit_info(shape, variant);
        EXPECT_EQ(counted, (CircuitCounts{cs.num_constraints(), cs.num_inputs(), cs.num_aux(), std::nullopt})) << name;
        if (k == 0) {
            EXPECT_EQ(hex(r1cs::canonical_digest(cs)), pinned_digest) << name;
        }
    }
}

TEST(FilecoinSnapCircuit, Sha256Satisfied1KiB) {
    check_instance_test_cs(1 * KiB, UpdateCircuit::Sha256, "FilecoinSnapCircuit.Sha256Satisfied1KiB",
                           "cc54098b7a27d20db1fc63cef36550390d429cf8730249a818f4d469bcc07de9");
}

TEST(FilecoinSnapCircuit, PoseidonSatisfied1KiBAnd8KiB) {
    check_instance_test_cs(1 * KiB, UpdateCircuit::Poseidon, "FilecoinSnapCircuit.PoseidonSatisfied1KiB",
                           "7933c75aad703f430b25bd8d3e0b688b22964bf81d25c7350793f7bb521ad321");
    check_instance_test_cs(8 * KiB, UpdateCircuit::Poseidon, "FilecoinSnapCircuit.PoseidonSatisfied8KiB",
                           "1acd9f4ee982424c4c08a70b417b42596462e44eb170d558f21de92bb931ff9e");
}

// Both partitions of a 16 KiB sector (8-8-0, 128 apex leaves per partition) through the prover's assignment, whose
// challenges synthesize in parallel fragments: every row a * b = c, the inputs the public inputs.
TEST(FilecoinSnapCircuit, Sha256BothPartitions16KiBProvingAssignment) {
    std::mt19937_64 rng = seeded_rng("FilecoinSnapCircuit.Sha256BothPartitions16KiB");
    const SnapShape shape = SnapShape::from_sector_nodes(16 * KiB);
    ASSERT_EQ(shape.partition_count, 2u);
    const uint32_t h = test_h(shape);
    const UpdatedSector sector(shape.sector_nodes, UpdateCircuit::Sha256, h, rng);
    {
        // Every challenge's tree-D path must end in the same partition path (upstream asserts it).
        SnapWitness w = sector.witness(UpdateCircuit::Sha256, 1, h);
        auto& top = w.challenges[4].path_d_new.back()[0];
        top = *top + Fr::one();
        EXPECT_THROW(EmptySectorUpdateCircuit(shape, UpdateCircuit::Sha256, w), std::invalid_argument);
    }
    for (uint32_t k = 0; k < shape.partition_count; k++) {
        r1cs::ProvingAssignment pa;
        pa.alloc_input("one", [] { return Fr::one(); });
        EmptySectorUpdateCircuit(shape, UpdateCircuit::Sha256, sector.witness(UpdateCircuit::Sha256, k, h))
            .synthesize(pa);
        EXPECT_EQ(pa.num_constraints(), 6'300'021u);
        size_t bad = 0, first_bad = 0;
        for (size_t i = 0; i < pa.num_constraints(); i++)
            if (pa.a()[i] * pa.b()[i] != pa.c()[i] && bad++ == 0) first_bad = i;
        EXPECT_EQ(bad, 0u) << "k " << k << ": first unsatisfied row " << first_bad;
        EXPECT_EQ(std::vector<Fr>(pa.inputs().begin() + 1, pa.inputs().end()),
                  sector.public_inputs(UpdateCircuit::Sha256, k, h));
    }
}

TEST(FilecoinSnapCircuit, KeygenAgreesWithTheTestSystem) {
    std::mt19937_64 rng = seeded_rng("FilecoinSnapCircuit.KeygenAgrees");
    const SnapShape shape = SnapShape::from_sector_nodes(8 * KiB);
    const UpdatedSector sector(shape.sector_nodes, UpdateCircuit::Poseidon, test_h(shape), rng);
    TestConstraintSystem cs;
    EmptySectorUpdateCircuit(shape, UpdateCircuit::Poseidon, sector.witness(UpdateCircuit::Poseidon, 0, test_h(shape)))
        .synthesize(cs);
    for (bool compact : {false, true}) {  // compact: the challenges in parallel fragments
        r1cs::KeygenAssembly kg(compact);
        kg.alloc_input("one", [] { return Fr::one(); });
        EmptySectorUpdateCircuit::blank(shape, UpdateCircuit::Poseidon).synthesize(kg);
        EXPECT_EQ(kg.num_constraints(), cs.num_constraints()) << compact;
        EXPECT_EQ(kg.num_inputs(), cs.num_inputs()) << compact;
        EXPECT_EQ(kg.num_aux(), cs.num_aux()) << compact;
    }
}

// ---- tampering ----------------------------------------------------------------------------------------------

std::string first_failure(const SnapShape& shape, UpdateCircuit variant, SnapWitness w) {
    TestConstraintSystem cs;
    EmptySectorUpdateCircuit(shape, variant, std::move(w)).synthesize(cs);
    return cs.which_is_unsatisfied().value_or("");
}

TEST(FilecoinSnapCircuit, TamperedWitnessIsCaught) {
    std::mt19937_64 rng = seeded_rng("FilecoinSnapCircuit.Tampered");
    const SnapShape shape = SnapShape::from_sector_nodes(1 * KiB);
    const uint32_t h = test_h(shape);
    // SHA-256 variant (1.25 M rows each; the untampered witness is satisfied in Sha256Satisfied1KiB): the trees
    // only it has.
    const UpdatedSector sha(shape.sector_nodes, UpdateCircuit::Sha256, h, rng);
    const SnapWitness good = sha.witness(UpdateCircuit::Sha256, 0, h);
    {
        SnapWitness w = good;  // a sibling of tree D below the apex leaves
        w.challenges[7].path_d_new[1][0] = *w.challenges[7].path_d_new[1][0] + Fr::one();
        EXPECT_EQ(first_failure(shape, UpdateCircuit::Sha256, w),
                  "por to_apex_leaf (c_index=7)/calculated root == provided root");
    }
    {
        SnapWitness w = good;  // an apex leaf
        w.apex_leaves[5] = *w.apex_leaves[5] + Fr::one();
        EXPECT_EQ(first_failure(shape, UpdateCircuit::Sha256, w),
                  "apex_gadget/partition-tree por/calculated root == provided root");
    }
    {
        SnapWitness w = good;  // leaf_r_new that is not the encoding: refused as upstream asserts
        w.challenges[0].leaf_r_new = *w.challenges[0].leaf_r_new + Fr::one();
        EXPECT_THROW(first_failure(shape, UpdateCircuit::Sha256, w), std::invalid_argument);
    }
    {
        SnapWitness w = good;  // a selector with two h bits
        w.selector = Fr::from_u64(3);
        EXPECT_THROW(EmptySectorUpdateCircuit(shape, UpdateCircuit::Sha256, w), std::invalid_argument);
    }
    {
        SnapWitness w = good;  // apex leaves missing
        w.apex_leaves.pop_back();
        EXPECT_THROW(EmptySectorUpdateCircuit(shape, UpdateCircuit::Sha256, w), std::invalid_argument);
    }
    // Poseidon variant (32 k rows): what both variants share.
    const UpdatedSector pos(shape.sector_nodes, UpdateCircuit::Poseidon, h, rng);
    const SnapWitness pgood = pos.witness(UpdateCircuit::Poseidon, 0, h);
    ASSERT_EQ(first_failure(shape, UpdateCircuit::Poseidon, pgood), "");
    {
        SnapWitness w = pgood;  // a sibling of tree R old
        w.challenges[3].path_r_old[0][2] = *w.challenges[3].path_r_old[0][2] + Fr::one();
        EXPECT_EQ(first_failure(shape, UpdateCircuit::Poseidon, w),
                  "por tree_r_old (c_index=3)/calculated root == provided root");
    }
    {
        SnapWitness w = pgood;  // a sibling of tree R new (the sub level)
        w.challenges[4].path_r_new[1][1] = *w.challenges[4].path_r_new[1][1] + Fr::one();
        EXPECT_EQ(first_failure(shape, UpdateCircuit::Poseidon, w),
                  "por tree_r_new (c_index=4)/calculated root == provided root");
    }
    {
        SnapWitness w = pgood;  // a sibling of the Poseidon tree D
        w.challenges[9].path_d_new[1][0] = *w.challenges[9].path_d_new[1][0] + Fr::one();
        EXPECT_EQ(first_failure(shape, UpdateCircuit::Poseidon, w),
                  "por tree_d_new (c_index=9)/calculated root == provided root");
    }
    {
        SnapWitness w = pgood;  // comm_c
        w.comm_c = *w.comm_c + Fr::one();
        EXPECT_EQ(first_failure(shape, UpdateCircuit::Poseidon, w), "enforce comm_r_old_calc == comm_r_old");
    }
    {
        SnapWitness w = pgood;  // an old leaf, with the new leaf the circuit then derives (upstream's own check)
        const Fr rho = snap_rho(snap_phi(pos.comm_d_new, pos.comm_r_old),
                                snap_challenge_high(shape, snap_challenges_poseidon(shape, pos.comm_r_new)[2], h));
        w.challenges[2].leaf_r_old = *w.challenges[2].leaf_r_old + Fr::one();
        w.challenges[2].leaf_r_new = *w.challenges[2].leaf_r_old + *w.challenges[2].leaf_d_new * rho;
        EXPECT_EQ(first_failure(shape, UpdateCircuit::Poseidon, w),
                  "por tree_r_old (c_index=2)/calculated root == provided root");
    }
}

TEST(FilecoinSnapCircuit, PublicInputsOfProductionSizes) {
    // 32 GiB: 16 partitions (4 bits), h = 10 = hs[3] so h_select = 8: k_and_h_select = k + (8 << 4) = k + 128.
    const SnapShape shape = SnapShape::from_sector_size(32ull << 30);
    const Fr a = Fr::from_u64(11), b = Fr::from_u64(22), c = Fr::from_u64(33);
    EXPECT_EQ(snap_public_inputs(shape, 5, shape.h_default, a, b, c), (std::vector<Fr>{Fr::from_u64(133), a, b, c}));
    EXPECT_EQ(snap_poseidon_public_inputs(shape, shape.h_default, a, b, c), (std::vector<Fr>{Fr::from_u64(8), a, b, c}));
}

}  // namespace
}  // namespace cuzk::filecoin
