// The catalog of built-in circuits (circuits/catalog.hpp) without a setup: the PoRep circuit's names (aliases and
// proof types), partitions, shape names and row counts; the job kinds' defaults; and make_circuit's PoRep proofs:
// proof i is partition i mod P of the sector generated from witness_seed + i / P, with the public inputs Filecoin's
// verifier derives (filecoin::porep_c2_job), which are also the inputs the circuit allocates.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/circuits/catalog.hpp"
#include "cuzk/filecoin/c1.hpp"
#include "cuzk/filecoin/c1_gen.hpp"
#include "cuzk/filecoin/porep_circuit.hpp"
#include "cuzk/r1cs/pce.hpp"

using namespace cuzk;
using circuits::CircuitSpec;
using filecoin::RegisteredSealProof;

TEST(CircuitCatalog, PorepNamesAreProofTypes) {
    const std::vector<std::pair<std::string, RegisteredSealProof>> names = {
        {"porep-2k", RegisteredSealProof::StackedDrg2KiBV1_1},
        {"porep-8m", RegisteredSealProof::StackedDrg8MiBV1_1},
        {"porep-512m", RegisteredSealProof::StackedDrg512MiBV1_1},
        {"porep-32g", RegisteredSealProof::StackedDrg32GiBV1_1},
        {"porep-64g", RegisteredSealProof::StackedDrg64GiBV1_1},
        {"StackedDrg32GiBV1_1", RegisteredSealProof::StackedDrg32GiBV1_1},
        {"StackedDrg2KiBV1", RegisteredSealProof::StackedDrg2KiBV1},
    };
    for (const auto& [name, proof] : names) {
        SCOPED_TRACE(name);
        ASSERT_EQ(circuits::porep_circuit_proof(name), proof);
        EXPECT_TRUE(circuits::is_circuit_name(name));
    }
    EXPECT_EQ(circuits::porep_circuit_aliases(),
              (std::vector<std::string>{"porep-2k", "porep-8m", "porep-512m", "porep-32g", "porep-64g"}));
    EXPECT_EQ(circuits::circuit_names(), (std::vector<std::string>{"cubic", "mulchain", "porep-2k", "porep-8m",
                                                                   "porep-512m", "porep-32g", "porep-64g"}));
    // Synthetic and non-interactive proofs (no generated C1), sizes Filecoin does not have, other names: refused.
    for (const char* bad : {"StackedDrg32GiBV1_1_Feat_SyntheticPoRep", "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep",
                            "porep-4k", "porep-1g", "porep-32G", "StackedDrgWinning32GiBV1", "", "cubic"}) {
        EXPECT_FALSE(circuits::is_porep_circuit(bad)) << bad;
    }
    EXPECT_FALSE(circuits::is_circuit_name("porep-4k"));
    CircuitSpec c;
    c.name = "porep-4k";
    EXPECT_THROW(circuits::make_circuit(c, false, 0, nullptr), std::invalid_argument);
    EXPECT_THROW(circuits::circuit_constraints(c), std::invalid_argument);
    EXPECT_THROW(circuits::porep_circuit_partitions("porep-4k"), std::invalid_argument);

    EXPECT_EQ(circuits::porep_circuit_partitions("porep-2k"), 1u);
    EXPECT_EQ(circuits::porep_circuit_partitions("porep-512m"), 1u);
    EXPECT_EQ(circuits::porep_circuit_partitions("porep-32g"), 10u);
    EXPECT_EQ(circuits::porep_circuit_partitions("StackedDrg64GiBV1"), 10u);
    c.name = "porep-32g";
    EXPECT_EQ(circuits::circuit_shape_name(c), "StackedDrg32GiBV1_1 partition");
    c.name = "StackedDrg32GiBV1_1";
    EXPECT_EQ(circuits::circuit_shape_name(c), "StackedDrg32GiBV1_1 partition") << "the alias names the same shape";
    c.name = "StackedDrg2KiBV1";
    EXPECT_EQ(circuits::circuit_shape_name(c), "StackedDrg2KiBV1 partition");
}

TEST(CircuitCatalog, PorepRowsAreTheRealCircuits) {
    // Filecoin's 2 KiB partition: 2,687,921 rows and 40 inputs (the constant one included), one appended row each.
    CircuitSpec c;
    c.name = "porep-2k";
    EXPECT_EQ(circuits::circuit_constraints(c), 2'687'921u + 40u);
    EXPECT_EQ(circuits::circuit_constraints(c), 2'687'921u + 40u) << "counted once, then remembered";
    // Without a witness: the blank partition (setup's circuit), 2 challenges and no values.
    const auto blank = circuits::make_circuit(c, false, 0, nullptr);
    const auto* porep = dynamic_cast<const filecoin::StackedPorepCircuit*>(blank.get());
    ASSERT_NE(porep, nullptr);
    EXPECT_EQ(porep->partition().challenges.size(), 2u);
    EXPECT_FALSE(porep->partition().replica_id.has_value());
    EXPECT_FALSE(porep->partition().challenges[0].challenge.has_value());
    c.name = "porep-8m";
    const auto info = filecoin::porep_circuit_info(filecoin::PorepConfig::from_registered(RegisteredSealProof::StackedDrg8MiBV1_1));
    EXPECT_EQ(circuits::circuit_constraints(c), info.constraints + info.inputs);
}

TEST(CircuitCatalog, JobKindsProveThePorepCircuit) {
    ASSERT_EQ(circuits::job_kinds().size(), 4u);
    const auto* c2 = circuits::find_job_kind("porep-c2");
    ASSERT_NE(c2, nullptr);
    EXPECT_STREQ(c2->default_preset, "porep-2k");
    EXPECT_EQ(c2->partitions, 0u) << "every partition of one sector: the circuit's own count";
    EXPECT_EQ(c2->priority, 1);
    const auto* window = circuits::find_job_kind("window-post");
    const auto* winning = circuits::find_job_kind("winning-post");
    const auto* snap = circuits::find_job_kind("snap-update");
    ASSERT_TRUE(window && winning && snap);
    EXPECT_EQ(window->partitions, 1u);
    EXPECT_EQ(window->priority, 2);
    EXPECT_EQ(winning->partitions, 1u);
    EXPECT_EQ(winning->priority, 3);
    EXPECT_EQ(snap->partitions, 0u);
    EXPECT_EQ(snap->priority, 1);
    for (const auto& k : circuits::job_kinds()) {
        EXPECT_TRUE(circuits::is_porep_circuit(k.default_preset)) << k.name;
        if (std::string(k.name) != "porep-c2") {
            EXPECT_NE(std::string(k.what).find("issue 18"), std::string::npos) << k.name << ": says what it proves";
        }
    }
    EXPECT_EQ(circuits::find_job_kind("porep-2k"), nullptr);
}

// Proof i of a 2 KiB spec is sector seed + i (one partition each); its public inputs are porep_c2_job's and the
// witness system allocates exactly those inputs.
TEST(CircuitCatalog, PorepProofsAreGeneratedSectors2KiB) {
    CircuitSpec c;
    c.name = "porep-2k";
    c.witness_seed = 40;
    for (size_t i = 0; i < 2; i++) {
        SCOPED_TRACE(i);
        std::vector<Fr> pub;
        const auto circuit = circuits::make_circuit(c, true, i, &pub);
        const auto job = filecoin::porep_c2_job(
            filecoin::generate_c1_sector(RegisteredSealProof::StackedDrg2KiBV1_1, 40 + i).c1);
        ASSERT_EQ(job.public_inputs.size(), 1u);
        EXPECT_EQ(pub, job.public_inputs[0]);
        EXPECT_EQ(pub.size(), 39u);
        r1cs::WitnessAssignment w;
        r1cs::witness_groth16(w, *circuit);
        ASSERT_EQ(w.inputs().size(), pub.size() + 1);
        EXPECT_EQ(std::vector<Fr>(w.inputs().begin() + 1, w.inputs().end()), pub);
    }
}

// At 32 GiB (10 partitions) proofs 10..19 are the partitions of sector seed + 1, in order: proof 11 is partition 1.
TEST(CircuitCatalog, PorepProofsArePartitionsOfGeneratedSectors32GiB) {
    CircuitSpec c;
    c.name = "porep-32g";
    c.witness_seed = 7;
    std::vector<Fr> p10, p11;
    const auto circuit = circuits::make_circuit(c, true, 11, &p11);
    (void)circuits::make_circuit(c, true, 10, &p10);  // the same sector, from the cache
    const auto job = filecoin::porep_c2_job(
        filecoin::generate_c1_sector(RegisteredSealProof::StackedDrg32GiBV1_1, 8).c1);
    ASSERT_EQ(job.public_inputs.size(), 10u);
    EXPECT_EQ(p11, job.public_inputs[1]);
    EXPECT_EQ(p10, job.public_inputs[0]);
    EXPECT_EQ(p11.size(), 327u);
    const auto* porep = dynamic_cast<const filecoin::StackedPorepCircuit*>(circuit.get());
    ASSERT_NE(porep, nullptr);
    ASSERT_EQ(porep->partition().challenges.size(), job.partitions[1].challenges.size());
    for (size_t k = 0; k < job.partitions[1].challenges.size(); k++)
        EXPECT_EQ(porep->partition().challenges[k].challenge, job.partitions[1].challenges[k].challenge) << k;
}
