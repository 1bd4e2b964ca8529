// The C1 generator (src/cuzk/filecoin/c1_gen.hpp): consistent C1 outputs for any sector size without sealing.
// - 2 KiB and 8 MiB: generate -> validate_c1 -> verify_c1_paths -> c1_to_partitions -> partition 0 through the
//   prover's assignment (r1cs::ProvingAssignment): a * b = c on every row, its public inputs equal to
//   porep_public_inputs for the generated sector (prover_id, sector_id, ticket, seed, comm_d, comm_r);
// - 32 GiB: generate (seconds) -> validate_c1 -> verify_c1_paths, no synthesis (130 M rows);
// - determinism in the seed, JSON round trip, a tampered column caught, synthetic / NI refused.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "cuzk/filecoin/c1.hpp"
#include "cuzk/filecoin/c1_gen.hpp"
#include "cuzk/filecoin/porep.hpp"
#include "cuzk/filecoin/porep_circuit.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::filecoin {
namespace {

void check_satisfies_partition0(RegisteredSealProof proof, uint64_t seed) {
    auto t0 = std::chrono::steady_clock::now();
    const GeneratedC1 g = generate_c1_sector(proof, seed);
    const double gen_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    ASSERT_NO_THROW(validate_c1(g.c1));
    ASSERT_NO_THROW(verify_c1_paths(g.c1));
    const std::vector<StackedPorepPartition> parts = c1_to_partitions(g.c1);
    const double check_s = seconds_since(t0);
    const PorepConfig config = PorepConfig::from_registered(proof);
    ASSERT_EQ(parts.size(), config.partitions);

    t0 = std::chrono::steady_clock::now();
    const StackedPorepCircuit circuit(parts[0]);
    r1cs::ProvingAssignment pa;
    r1cs::synthesize_groth16(pa, circuit);
    const double synth_s = seconds_since(t0);
    size_t bad = 0, first_bad = SIZE_MAX;
    for (size_t j = 0; j < pa.num_constraints(); j++)
        if (!(pa.a()[j] * pa.b()[j] == pa.c()[j])) {
            bad++;
            if (first_bad == SIZE_MAX) first_bad = j;
        }
    EXPECT_EQ(bad, 0u) << "first unsatisfied row " << first_bad;
    const PorepCircuitInfo info = porep_circuit_info(config);
    EXPECT_EQ(pa.num_constraints(), info.constraints + info.inputs);

    const std::vector<Fr> expected = porep_public_inputs(config, g.prover_id, g.sector_id, g.c1.ticket, g.c1.seed,
                                                         g.c1.comm_d, g.c1.comm_r, 0);
    ASSERT_EQ(pa.inputs().size(), expected.size() + 1);
    EXPECT_EQ(pa.inputs()[0], Fr::one());
    for (size_t i = 0; i < expected.size(); i++) EXPECT_EQ(pa.inputs()[i + 1], expected[i]) << "input " << i + 1;
    std::printf("[ info ] %s: generated in %.3f s, validated + paths + partitions in %.3f s, partition 0 "
                "(%zu rows) assigned in %.1f s\n",
                std::string(proof_name(proof)).c_str(), gen_s, check_s, pa.num_constraints(), synth_s);
}

TEST(FilecoinC1Gen, TwoKiBSatisfiesTheCircuit) { check_satisfies_partition0(RegisteredSealProof::StackedDrg2KiBV1_1, 1); }

TEST(FilecoinC1Gen, TwoKiBV1SatisfiesTheCircuit) { check_satisfies_partition0(RegisteredSealProof::StackedDrg2KiBV1, 7); }

TEST(FilecoinC1Gen, EightMiBSatisfiesTheCircuit) {
    check_satisfies_partition0(RegisteredSealProof::StackedDrg8MiBV1_1, 2);
}

TEST(FilecoinC1Gen, ThirtyTwoGiBIsConsistentAndFast) {
    auto t0 = std::chrono::steady_clock::now();
    const C1Output c1 = generate_c1(RegisteredSealProof::StackedDrg32GiBV1_1, 3);
    const double gen_s = seconds_since(t0);
    EXPECT_LT(gen_s, 30.0);
    t0 = std::chrono::steady_clock::now();
    ASSERT_NO_THROW(validate_c1(c1));
    const double validate_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    ASSERT_NO_THROW(verify_c1_paths(c1));
    const double paths_s = seconds_since(t0);
    ASSERT_EQ(c1.vanilla_proofs.size(), 10u);
    ASSERT_EQ(c1.vanilla_proofs[0].size(), 18u);
    t0 = std::chrono::steady_clock::now();
    const std::string json = write_c1_json(c1);
    const double json_s = seconds_since(t0);
    std::printf("[ info ] 32 GiB: generated in %.2f s, validate_c1 %.2f s, verify_c1_paths %.2f s, JSON %.1f MB in "
                "%.2f s\n",
                gen_s, validate_s, paths_s, json.size() / 1e6, json_s);
}

TEST(FilecoinC1Gen, SixtyFourGiBTopTreesAreConsistent) {
    // 8-8-2 trees: Top proofs (base, sub and top levels).
    auto t0 = std::chrono::steady_clock::now();
    const C1Output c1 = generate_c1(RegisteredSealProof::StackedDrg64GiBV1_1, 4);
    const double gen_s = seconds_since(t0);
    ASSERT_EQ(c1.vanilla_proofs[0][0].comm_r_last_proof.kind, MerkleProofKind::Top);
    ASSERT_NO_THROW(validate_c1(c1));
    ASSERT_NO_THROW(verify_c1_paths(c1));
    std::printf("[ info ] 64 GiB: generated in %.2f s\n", gen_s);
}

TEST(FilecoinC1Gen, TamperedParentLabelFailsTheCircuit) {
    // A parent's label changed in the C1: c1_to_partitions takes it (hashes are not its business), the prover's
    // assignment then breaks rows (the column's tree-C path and the challenge's label).
    C1Output c1 = generate_c1(RegisteredSealProof::StackedDrg2KiBV1_1, 6);
    c1.vanilla_proofs[0][0].replica_column_proofs.drg_parents[0].rows[0][3] ^= 1;
    const std::vector<StackedPorepPartition> parts = c1_to_partitions(c1);
    r1cs::ProvingAssignment pa;
    r1cs::synthesize_groth16(pa, StackedPorepCircuit(parts[0]));
    size_t bad = 0;
    for (size_t j = 0; j < pa.num_constraints(); j++) bad += !(pa.a()[j] * pa.b()[j] == pa.c()[j]);
    EXPECT_GT(bad, 0u);
}

TEST(FilecoinC1Gen, DeterministicAndRoundTrips) {
    const C1Output a = generate_c1(RegisteredSealProof::StackedDrg2KiBV1_1, 42);
    const C1Output b = generate_c1(RegisteredSealProof::StackedDrg2KiBV1_1, 42);
    const C1Output c = generate_c1(RegisteredSealProof::StackedDrg2KiBV1_1, 43);
    EXPECT_EQ(a, b);
    EXPECT_NE(a.comm_r, c.comm_r);
    EXPECT_EQ(parse_c1_json(write_c1_json(a)), a);
}

TEST(FilecoinC1Gen, TamperedColumnIsCaught) {
    C1Output c1 = generate_c1(RegisteredSealProof::StackedDrg2KiBV1_1, 5);
    c1.vanilla_proofs[0][0].replica_column_proofs.drg_parents[2].rows[1][0] ^= 1;
    EXPECT_NO_THROW(validate_c1(c1));  // shapes and indices only
    EXPECT_THROW(verify_c1_paths(c1), C1Error);
}

TEST(FilecoinC1Gen, SyntheticAndNonInteractiveAreRefused) {
    for (RegisteredSealProof p : {RegisteredSealProof::StackedDrg2KiBV1_1_Feat_SyntheticPoRep,
                                  RegisteredSealProof::StackedDrg32GiBV1_2_Feat_NonInteractivePoRep}) {
        try {
            generate_c1(p, 1);
            ADD_FAILURE() << proof_name(p) << " was generated";
        } catch (const FilecoinError& e) {
            EXPECT_EQ(e.kind(), FilecoinErrorKind::Unsupported);
        }
    }
}

}  // namespace
}  // namespace cuzk::filecoin
