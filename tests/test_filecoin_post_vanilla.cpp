// PoSt vanilla proofs (cuzk/filecoin/post_vanilla.hpp): the bincode layout byte by byte on a hand-built proof, the
// round trip, every truncation and a corrupted length refused with the field named; proofs made from real 2 KiB
// trees R_last (as generate_single_vanilla_proof makes them) turned into a partition witness that satisfies the
// FallbackPoSt circuit with the public inputs post_public_inputs derives (Window: two sectors, and one padded to
// two; Winning: the 66 challenges of one sector); a wrong challenge, sibling, root or comm_r refused; generated
// vanilla proofs of sectors never built (virtual trees) accepted at 32 GiB and 64 GiB, satisfying at 2 KiB; the
// engine job (engine/post.hpp) returns only proofs that verify.
#include <gtest/gtest.h>

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

namespace cuzk::filecoin {
namespace {

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
