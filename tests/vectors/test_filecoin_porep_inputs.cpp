// Filecoin PoRep identifiers, challenges, public inputs and verification against public data
// (../shared/vectors/filecoin/, see its README and ../shared/filecoin/SPEC.md sections 1.2, 1.6, 4.2, 4.3, 4.5):
//   - rust-fil-proofs' seal regression records (real proofs made with the published parameters): replica_id,
//     challenges and inputs of a 2 KiB record, and the inputs of all ten partitions of a 32 GiB record, pinned by
//     the values SPEC.md derives;
//   - polka-storage's 2 KiB PoRep proof with its own verifying key: it must verify with the inputs computed here,
//     and fail when any of them changes;
//   - filecoin-proofs-api's proof ids and names, and the v28 parameter file names of parameters.json;
//   - synthetic challenges against the values hard-coded in rust-fil-proofs' challenges.rs test.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "cuzk/ec/encoding.hpp"
#include "cuzk/filecoin/porep.hpp"
#include "cuzk/filecoin/proof_types.hpp"
#include "cuzk/formats/bellman_params.hpp"

#ifndef CUZK_VECTORS_DIR
#error "CUZK_VECTORS_DIR must name the shared vectors directory"
#endif

using namespace cuzk;
using namespace cuzk::filecoin;

namespace {

const std::string kDir = std::string(CUZK_VECTORS_DIR) + "/filecoin/";

nlohmann::json read_json(const std::string& name) {
    std::ifstream in(kDir + name);
    if (!in) throw std::runtime_error("cannot open " + kDir + name);
    return nlohmann::json::parse(in);
}

// Line `line` (1-based) of a JSON-lines file.
nlohmann::json read_json_line(const std::string& name, size_t line) {
    std::ifstream in(kDir + name);
    if (!in) throw std::runtime_error("cannot open " + kDir + name);
    std::string text;
    for (size_t i = 0; i < line; i++)
        if (!std::getline(in, text))
            throw std::runtime_error(name + " has fewer than " + std::to_string(line) + " lines");
    return nlohmann::json::parse(text);
}

Bytes32 bytes32_of(const nlohmann::json& array) {
    Bytes32 out{};
    if (array.size() != 32) throw std::runtime_error("expected 32 bytes");
    for (size_t i = 0; i < 32; i++) out[i] = array[i].get<uint8_t>();
    return out;
}

std::vector<uint8_t> bytes_of_hex(std::string_view hex) {
    std::vector<uint8_t> out(hex.size() / 2);
    for (size_t i = 0; i < out.size(); i++) out[i] = uint8_t(std::stoi(std::string(hex.substr(2 * i, 2)), nullptr, 16));
    return out;
}

// A seal regression record: its PoRep configuration and sector.
struct Record {
    PorepConfig config;
    SealedSector sector;
    std::vector<uint8_t> proof;
};

Record read_record(const std::string& file, size_t line) {
    const auto j = read_json_line(file, line);
    const auto& c = j["porep_config"];
    std::vector<ApiFeature> features;
    for (const auto& f : c["api_features"]) features.push_back(api_feature_from_name(f.get<std::string>()));
    Record r;
    r.config = PorepConfig::make(c["sector_size"].get<uint64_t>(), bytes32_of(c["porep_id"]),
                                 api_version_from_name(c["api_version"].get<std::string>()), features);
    r.config.partitions = c["partitions"].get<uint32_t>();
    r.sector = {bytes32_of(j["prover_id"]), j["sector_id"].get<uint64_t>(), bytes32_of(j["ticket"]),
                bytes32_of(j["seed"]),      bytes32_of(j["comm_d"]),        bytes32_of(j["comm_r"])};
    r.proof = j["proof"].get<std::vector<uint8_t>>();
    return r;
}

std::vector<Fr> fr_list(std::initializer_list<uint64_t> values) {
    std::vector<Fr> out;
    for (uint64_t v : values) out.push_back(Fr::from_u64(v));
    return out;
}

// SHA-256 of the inputs as 32-byte little-endian values, one after another.
std::string inputs_sha256(const std::vector<Fr>& inputs) {
    std::vector<uint8_t> bytes;
    for (const Fr& x : inputs) {
        const Bytes32 b = fr_to_bytes32(x);
        bytes.insert(bytes.end(), b.begin(), b.end());
    }
    std::array<uint8_t, 32> d{};
    unsigned n = 0;
    EVP_Digest(bytes.data(), bytes.size(), d.data(), &n, EVP_sha256(), nullptr);
    return to_hex(d);
}

// polka-storage's verifying key encoding: alpha_g1, beta_g1 (G1 compressed), beta_g2, gamma_g2 (G2 compressed),
// delta_g1, delta_g2, a u32 big-endian IC count and the IC points (G1 compressed).
groth16::VerifyingKey decode_polka_vk(const std::vector<uint8_t>& b) {
    size_t off = 0;
    auto g1 = [&] {
        auto p = g1_from_compressed_or_throw(std::span(b).subspan(off, G1_COMPRESSED_BYTES));
        off += G1_COMPRESSED_BYTES;
        return p;
    };
    auto g2 = [&] {
        auto p = g2_from_compressed_or_throw(std::span(b).subspan(off, G2_COMPRESSED_BYTES));
        off += G2_COMPRESSED_BYTES;
        return p;
    };
    groth16::VerifyingKey vk;
    vk.alpha_g1 = g1();
    vk.beta_g1 = g1();
    vk.beta_g2 = g2();
    vk.gamma_g2 = g2();
    vk.delta_g1 = g1();
    vk.delta_g2 = g2();
    const uint32_t n = uint32_t(b[off]) << 24 | uint32_t(b[off + 1]) << 16 | uint32_t(b[off + 2]) << 8 | b[off + 3];
    off += 4;
    for (uint32_t i = 0; i < n; i++) vk.ic.push_back(g1());
    if (off != b.size()) throw std::runtime_error("trailing bytes after the polka-storage verifying key");
    return vk;
}

template <class F>
void expect_error(FilecoinErrorKind kind, F&& f) {
    try {
        f();
        ADD_FAILURE() << "no FilecoinError (" << filecoin_error_kind_name(kind) << ")";
    } catch (const FilecoinError& e) {
        EXPECT_EQ(e.kind(), kind) << e.what();
    }
}

}  // namespace

// ---- proof types ----------------------------------------------------------------------------------------------------

TEST(FilecoinPorepInputs, SealProofTypesRoundTrip) {
    for (uint64_t id = 0; id < REGISTERED_SEAL_PROOF_COUNT; id++) {
        const RegisteredSealProof p = seal_proof_from_id(id);
        EXPECT_EQ(proof_id(p), id);
        EXPECT_EQ(seal_proof_from_name(proof_name(p)), p);
        // filecoin-proofs-api registry.rs test_porep_id: the id as u64 LE, then zeros.
        Bytes32 expected{};
        expected[0] = uint8_t(id);
        EXPECT_EQ(porep_id(p), expected);
    }
    EXPECT_EQ(proof_name(RegisteredSealProof::StackedDrg32GiBV1_1), "StackedDrg32GiBV1_1");
    EXPECT_EQ(seal_proof_from_name("StackedDrg32GiBV1_1"), RegisteredSealProof::StackedDrg32GiBV1_1);
    EXPECT_EQ(proof_id(RegisteredSealProof::StackedDrg32GiBV1_1), 8u);
    EXPECT_EQ(proof_id(seal_proof_from_name("StackedDrg2KiBV1_1_Feat_SyntheticPoRep")), 10u);
    EXPECT_EQ(proof_id(seal_proof_from_name("StackedDrg64GiBV1_2_Feat_NonInteractivePoRep")), 19u);

    using R = RegisteredSealProof;
    EXPECT_EQ(sector_size(R::StackedDrg2KiBV1), 2048u);
    EXPECT_EQ(sector_size(R::StackedDrg512MiBV1_1), 512ull << 20);
    EXPECT_EQ(sector_size(R::StackedDrg64GiBV1_2_Feat_NonInteractivePoRep), 64ull << 30);
    EXPECT_EQ(api_version(R::StackedDrg8MiBV1), ApiVersion::V1_0_0);
    EXPECT_EQ(api_version(R::StackedDrg8MiBV1_1), ApiVersion::V1_1_0);
    EXPECT_EQ(api_version(R::StackedDrg8MiBV1_1_Feat_SyntheticPoRep), ApiVersion::V1_2_0);
    EXPECT_EQ(api_version(R::StackedDrg8MiBV1_2_Feat_NonInteractivePoRep), ApiVersion::V1_2_0);
    EXPECT_EQ(api_feature(R::StackedDrg32GiBV1_1), std::nullopt);
    EXPECT_EQ(api_feature(R::StackedDrg32GiBV1_1_Feat_SyntheticPoRep), ApiFeature::SyntheticPoRep);
    EXPECT_EQ(api_feature(R::StackedDrg32GiBV1_2_Feat_NonInteractivePoRep), ApiFeature::NonInteractivePoRep);
    EXPECT_EQ(partitions(R::StackedDrg32GiBV1_1), 10u);
    EXPECT_EQ(partitions(R::StackedDrg32GiBV1_1_Feat_SyntheticPoRep), 10u);
    EXPECT_EQ(partitions(R::StackedDrg32GiBV1_2_Feat_NonInteractivePoRep), 126u);
    EXPECT_EQ(partitions(R::StackedDrg2KiBV1_2_Feat_NonInteractivePoRep), 13u);
    EXPECT_EQ(partitions(R::StackedDrg512MiBV1), 1u);

    expect_error(FilecoinErrorKind::UnknownProofType, [] { seal_proof_from_name("StackedDrg32GiBV2"); });
    expect_error(FilecoinErrorKind::UnknownProofType, [] { seal_proof_from_name(""); });
    expect_error(FilecoinErrorKind::UnknownProofType, [] { seal_proof_from_id(20); });
    try {
        seal_proof_from_name("StackedDrg32GiB");
    } catch (const FilecoinError& e) {
        EXPECT_NE(std::string(e.what()).find("StackedDrg32GiB"), std::string::npos) << e.what();
    }
}

TEST(FilecoinPorepInputs, PoStAndUpdateProofTypesRoundTrip) {
    for (uint64_t id = 0; id < REGISTERED_POST_PROOF_COUNT; id++) {
        const RegisteredPoStProof p = post_proof_from_id(id);
        EXPECT_EQ(proof_id(p), id);
        EXPECT_EQ(post_proof_from_name(proof_name(p)), p);
    }
    using P = RegisteredPoStProof;
    EXPECT_EQ(proof_id(P::StackedDrgWinning32GiBV1), 3u);
    EXPECT_EQ(proof_id(P::StackedDrgWindow32GiBV1_2), 13u);
    EXPECT_EQ(post_proof_from_name("StackedDrgWindow32GiBV1_1"), P::StackedDrgWindow32GiBV1_2);  // go-state-types
    EXPECT_EQ(post_type(P::StackedDrgWinning2KiBV1), PoStType::Winning);
    EXPECT_EQ(post_type(P::StackedDrgWindow2KiBV1), PoStType::Window);
    EXPECT_EQ(api_version(P::StackedDrgWindow2KiBV1), ApiVersion::V1_0_0);
    EXPECT_EQ(api_version(P::StackedDrgWindow2KiBV1_2), ApiVersion::V1_2_0);
    EXPECT_EQ(post_sector_count(P::StackedDrgWindow32GiBV1_2), 2349u);
    EXPECT_EQ(post_sector_count(P::StackedDrgWindow64GiBV1_2), 2300u);
    EXPECT_EQ(post_sector_count(P::StackedDrgWindow2KiBV1_2), 2u);
    EXPECT_EQ(post_sector_count(P::StackedDrgWinning32GiBV1), 1u);
    EXPECT_EQ(post_challenge_count(P::StackedDrgWinning32GiBV1), 66u);
    EXPECT_EQ(post_challenge_count(P::StackedDrgWindow32GiBV1), 10u);
    EXPECT_EQ(sector_size(P::StackedDrgWindow512MiBV1_2), 512ull << 20);
    expect_error(FilecoinErrorKind::UnknownProofType, [] { post_proof_from_id(15); });
    expect_error(FilecoinErrorKind::UnknownProofType, [] { post_proof_from_name("StackedDrgWindow32GiBV1_3"); });

    for (uint64_t id = 0; id < REGISTERED_UPDATE_PROOF_COUNT; id++) {
        const RegisteredUpdateProof p = update_proof_from_id(id);
        EXPECT_EQ(update_proof_from_name(proof_name(p)), p);
        EXPECT_EQ(porep_id(p)[0], id);
        EXPECT_EQ(api_version(p), ApiVersion::V1_1_0);
    }
    EXPECT_EQ(sector_size(RegisteredUpdateProof::StackedDrg32GiBV1), 32ull << 30);
    expect_error(FilecoinErrorKind::UnknownProofType, [] { update_proof_from_id(5); });

    EXPECT_EQ(api_version_from_name("V1_2_0"), ApiVersion::V1_2_0);
    EXPECT_EQ(api_version_from_name("1.1.0"), ApiVersion::V1_1_0);
    expect_error(FilecoinErrorKind::UnknownProofType, [] { api_version_from_name("V1_3_0"); });
    expect_error(FilecoinErrorKind::UnknownProofType, [] { api_feature_from_name("Synthetic"); });
}

TEST(FilecoinPorepInputs, SizesAndConfigs) {
    EXPECT_EQ(supported_sector_shapes().size(), 10u);
    const SectorShape& s32 = sector_shape(32ull << 30);
    EXPECT_EQ(s32.nodes, 1ull << 30);
    EXPECT_EQ(s32.layers, 11u);
    EXPECT_EQ(s32.tree, (TreeShape{8, 8, 0}));
    EXPECT_EQ(sector_shape(64ull << 30).tree, (TreeShape{8, 8, 2}));
    EXPECT_EQ(sector_shape(4096).tree, (TreeShape{8, 2, 0}));
    EXPECT_EQ(sector_shape(2048).nodes, 64u);
    EXPECT_EQ(sector_size_name(32ull << 30), "32GiB");
    expect_error(FilecoinErrorKind::UnsupportedSectorSize, [] { sector_shape(3000); });

    const auto c2k = PorepConfig::from_registered(RegisteredSealProof::StackedDrg2KiBV1_1);
    EXPECT_EQ(c2k.challenges_per_partition(), 2u);
    EXPECT_EQ(c2k.public_input_count(), 39u);
    const auto c32 = PorepConfig::from_registered(RegisteredSealProof::StackedDrg32GiBV1_1);
    EXPECT_EQ(c32.challenges_per_partition(), 18u);
    EXPECT_EQ(c32.public_input_count(), 327u);
    const auto ni32 = PorepConfig::from_registered(RegisteredSealProof::StackedDrg32GiBV1_2_Feat_NonInteractivePoRep);
    EXPECT_EQ(ni32.partitions, 126u);
    EXPECT_EQ(ni32.minimum_challenges(), 2253u);
    EXPECT_EQ(ni32.challenges_per_partition(), 18u);
    EXPECT_EQ(PorepConfig::from_registered(RegisteredSealProof::StackedDrg2KiBV1_2_Feat_NonInteractivePoRep)
                  .challenges_per_partition(),
              2u);

    // Conflicting features, and a partition count that would need more than 18 challenges each.
    const ApiFeature both[] = {ApiFeature::SyntheticPoRep, ApiFeature::NonInteractivePoRep};
    expect_error(FilecoinErrorKind::InvalidConfig, [&] { PorepConfig::make(2048, {}, ApiVersion::V1_2_0, both); });
    PorepConfig one = c32;
    one.partitions = 1;
    expect_error(FilecoinErrorKind::InvalidConfig, [&] { one.challenges_per_partition(); });

    // Text inputs.
    expect_error(FilecoinErrorKind::BadHex, [] { bytes32_from_hex(std::string(63, '0'), "ticket"); });
    expect_error(FilecoinErrorKind::BadHex, [] { bytes32_from_hex(std::string(63, '0') + "g", "ticket"); });
    EXPECT_EQ(bytes32_from_hex("0x" + std::string(62, '0') + "ff")[31], 0xff);
    EXPECT_EQ(parse_u64("18446744073709551615"), UINT64_MAX);
    expect_error(FilecoinErrorKind::OutOfRange, [] { parse_u64("18446744073709551616", "sector id"); });
    expect_error(FilecoinErrorKind::OutOfRange, [] { parse_u64("-1", "sector id"); });
    Bytes32 big{};
    big.fill(0xff);
    expect_error(FilecoinErrorKind::NonCanonical, [&] { fr_from_bytes32(big, "comm_r"); });
}

// Every v28 file name filecoin-proofs-api can ask for is in parameters.json, and nothing else is.
TEST(FilecoinPorepInputs, ParameterFileNamesMatchParametersJson) {
    const auto json = read_json("parameters-v28.json");
    std::set<std::string> ours;
    auto add = [&](const ParameterFileNames& f, uint64_t size) {
        for (const std::string& name : {f.params, f.vk}) {
            ours.insert(name);
            ASSERT_TRUE(json.contains(name)) << name << "\n  identifier: " << f.identifier;
            EXPECT_EQ(json[name]["sector_size"].get<uint64_t>(), size) << name;
        }
    };
    for (size_t id = 0; id < REGISTERED_SEAL_PROOF_COUNT; id++) {
        const auto p = RegisteredSealProof(id);
        add(parameter_files(p), sector_size(p));
    }
    for (size_t id = 0; id < REGISTERED_POST_PROOF_COUNT; id++) {
        const auto p = RegisteredPoStProof(id);
        add(parameter_files(p), sector_size(p));
    }
    for (size_t id = 0; id < REGISTERED_UPDATE_PROOF_COUNT; id++) {
        const auto p = RegisteredUpdateProof(id);
        add(parameter_files(p), sector_size(p));
        if (sector_size(p) >= (32ull << 30)) add(parameter_files(p, UpdateCircuit::Poseidon), sector_size(p));
    }
    EXPECT_EQ(ours.size(), json.size());

    // SPEC.md section 4.5's table.
    const auto p2k = parameter_files(RegisteredSealProof::StackedDrg2KiBV1_1);
    EXPECT_EQ(p2k.vk,
              "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
              "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk");
    EXPECT_EQ(p2k.identifier,
              "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 base_graph: "
              "drgraph::BucketGraph{size: 64; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges { "
              "layers: 2, max_count: 2 }, tree: merkletree-poseidon_hasher-8-0-0 }");
    EXPECT_EQ(parameter_files(RegisteredSealProof::StackedDrg32GiBV1_1).params,
              "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
              "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params");
    // Interactive, synthetic and NI PoRep of a size share one circuit and so one file.
    EXPECT_EQ(parameter_files(RegisteredSealProof::StackedDrg32GiBV1_2_Feat_NonInteractivePoRep).params,
              parameter_files(RegisteredSealProof::StackedDrg32GiBV1).params);
    EXPECT_EQ(parameter_files(RegisteredPoStProof::StackedDrgWinning32GiBV1).cache_id,
              "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
              "559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e");
    EXPECT_EQ(parameter_files(RegisteredPoStProof::StackedDrgWindow32GiBV1_2).meta,
              "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
              "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.meta");
}

// ---- seal regression records (rust-fil-proofs filecoin-proofs/tests/seal_regression_records-v16.json) ------------

// v16 line 2: 2 KiB, V1_1, porep_id 5 (SPEC.md section 4.2).
TEST(FilecoinPorepInputs, Record2KiBV1_1Inputs) {
    const Record r = read_record("seal_regression_records-v16.json", 2);
    ASSERT_EQ(r.config.sector_size, 2048u);
    ASSERT_EQ(r.config.api_version, ApiVersion::V1_1_0);
    const Bytes32 rid = replica_id(r.sector.prover_id, r.sector.sector_id, r.sector.ticket, r.sector.comm_d,
                                   r.config.porep_id);
    EXPECT_EQ(to_hex(rid), "da838d3efe2e28665cd17ebfa274f67af8c3b51dfb01e8c6bf8892e712d62006");
    EXPECT_EQ(porep_challenges(r.config, rid, r.sector.seed, r.sector.comm_r, 0), (std::vector<uint64_t>{57, 58}));

    const std::vector<Fr> inputs = porep_public_inputs(r.config, r.sector, 0);
    ASSERT_EQ(inputs.size(), 39u);
    EXPECT_EQ(inputs[0], fr_from_bytes32(rid));
    EXPECT_EQ(inputs[1], fr_from_bytes32(r.sector.comm_d));
    EXPECT_EQ(inputs[2], fr_from_bytes32(r.sector.comm_r));
    const auto expected = fr_list({57, 56, 56, 48, 50, 42, 55, 46, 41, 13, 46, 44, 31, 3, 15, 57, 57, 57,
                                   58, 57, 45, 11, 54, 56, 57, 51, 52, 38, 18, 33, 8, 54, 40, 58, 58, 58});
    for (size_t i = 0; i < expected.size(); i++)
        EXPECT_EQ(inputs[3 + i], expected[i]) << "input " << 3 + i << ": " << inputs[3 + i].to_decimal();

    // The positional form gives the same inputs; partition 1 does not exist.
    const auto& s = r.sector;
    EXPECT_EQ(porep_public_inputs(r.config, s.prover_id, s.sector_id, s.ticket, s.seed, s.comm_d, s.comm_r, 0),
              inputs);
    expect_error(FilecoinErrorKind::OutOfRange, [&] { porep_public_inputs(r.config, r.sector, 1); });
}

// v16 line 443: 32 GiB, V1_1, 10 partitions (SPEC.md section 4.2).
TEST(FilecoinPorepInputs, Record32GiBAllPartitions) {
    const Record r = read_record("seal_regression_records-v16.json", 443);
    ASSERT_EQ(r.config.sector_size, 32ull << 30);
    ASSERT_EQ(r.config.partitions, 10u);
    ASSERT_EQ(r.proof.size(), 10 * GROTH_PROOF_BYTES);
    const Bytes32 rid = replica_id(r.sector.prover_id, r.sector.sector_id, r.sector.ticket, r.sector.comm_d,
                                   r.config.porep_id);
    EXPECT_EQ(to_hex(rid), "3ca7c8110b2ccdcc89d8d7dabeed81b7a5b87a4f73ed43d0b2eb2220de963129");
    EXPECT_EQ(porep_challenges(r.config, rid, r.sector.seed, r.sector.comm_r, 0),
              (std::vector<uint64_t>{980979701, 721418575, 824730872, 1022388640, 313254808, 1063608501, 153621234,
                                     591422190, 848122467, 46043795, 635931656, 334761064, 1037829961, 105884237,
                                     1066709247, 77891472, 578988757, 321801013}));

    const char* expected[10] = {
        "dfdc3f4a3d468e4c2a0be5fa9c636bb9d8e5491fe51a71d076d85a3ff6cf63a8",
        "09a6a9531860036ebd776aed7cc2db6f8ff17b589096ec41cb968681ade4ba69",
        "c31953fa9fb3f46fd37b73eb51cef12b01ed4efd9033827b1635a061d359d88b",
        "c3c3064e5c628289190c379909dfdbd4eec625bc8eabd4a51f18a48516c0f68e",
        "d85892bdc6bf819b8a99fa187c798f1766766478b14789cc5366f215902cc10e",
        "8fd5d8202699a9bf4c1847a7edee97014fa58d995679a42093bb9c72d2bdb3ea",
        "b447261adde61446d5c8fdd5ed881d9895dadd1645244eff6171cdec44209146",
        "f902aa3b158365d53155b015328e9eac8366c638881f4ae7e1434ff2c33ef555",
        "e88601a41f7c33fbc4994bb6e56045312560f72f270ec32f580f17de60e48c8f",
        "ebbc93b44a027823654d4dd72eb56b06f46dcb2bfd0eb773250eb4c61831b1d2",
    };
    for (uint32_t k = 0; k < 10; k++) {
        const std::vector<Fr> inputs = porep_public_inputs(r.config, r.sector, k);
        ASSERT_EQ(inputs.size(), 327u);
        EXPECT_EQ(inputs_sha256(inputs), expected[k]) << "partition " << k;
        if (k == 0) {
            const auto group = fr_list({980979701, 980979700, 980978077, 980952352, 980979699, 312222476, 979455093,
                                        749539807, 182735280, 276707672, 247452191, 626879568, 527945222, 307523740,
                                        346272975, 980979701, 980979701, 980979701});
            for (size_t i = 0; i < group.size(); i++) EXPECT_EQ(inputs[3 + i], group[i]) << "input " << 3 + i;
        }
    }
}

// ---- polka-storage's 2 KiB PoRep proof with its own verifying key ---------------------------------------------------

struct Polka {
    PorepConfig config;
    SealedSector sector;
    groth16::VerifyingKey vk;
    groth16::PreparedVerifyingKey pvk;
    std::vector<uint8_t> proof;
    std::vector<Fr> published_inputs;  // the inputs SPEC.md derived, as a cross-check of the computed ones
};

// Loaded once for the tests below.
const Polka& polka() {
    static const Polka p = [] {
        const auto j = read_json("polka_storage_2kib_porep.json");
        Polka r;
        r.config = PorepConfig::make(2048, bytes32_from_hex(j["porep_id_hex"].get<std::string>(), "porep_id"),
                                     ApiVersion::V1_2_0);
        r.sector.prover_id = bytes32_from_hex(j["prover_id_hex"].get<std::string>(), "prover_id");
        r.sector.sector_id = j["sector_id"].get<uint64_t>();
        r.sector.ticket = bytes32_from_hex(j["ticket_hex"].get<std::string>(), "ticket");
        r.sector.seed = bytes32_from_hex(j["seed_hex"].get<std::string>(), "seed");
        r.sector.comm_d = bytes32_from_hex(j["comm_d_hex"].get<std::string>(), "comm_d");
        r.sector.comm_r = bytes32_from_hex(j["comm_r_hex"].get<std::string>(), "comm_r");
        r.vk = decode_polka_vk(bytes_of_hex(j["vk_hex"].get<std::string>()));
        r.pvk = groth16::prepare_verifying_key(r.vk);
        r.proof = bytes_of_hex(j["proof_hex"].get<std::string>());
        for (const auto& d : j["public_inputs_decimal"])
            r.published_inputs.push_back(*Fr::from_decimal(d.get<std::string>()));
        return r;
    }();
    return p;
}

TEST(FilecoinPorepInputs, PolkaProofVerifiesWithComputedInputs) {
    const auto& [config, sector, vk, pvk, proof, published_inputs] = polka();
    ASSERT_EQ(vk.ic.size(), 40u);
    ASSERT_EQ(proof.size(), 192u);
    const Bytes32 rid = replica_id(sector.prover_id, sector.sector_id, sector.ticket, sector.comm_d, config.porep_id);
    EXPECT_EQ(interactive_challenges(64, rid, sector.seed, 2, 0), (std::vector<uint64_t>{37, 29}));
    EXPECT_EQ(porep_public_inputs(config, sector, 0), published_inputs);
    EXPECT_TRUE(verify_porep(pvk, config, sector, proof));
    EXPECT_TRUE(verify_porep(vk, config, sector, proof));
    EXPECT_EQ(verify_porep_partitions(pvk, config, sector, proof), std::vector<bool>{true});
}

TEST(FilecoinPorepInputs, PolkaProofFailsWhenAnyInputChanges) {
    const auto& [config, sector, vk, pvk, proof, published_inputs] = polka();
    auto flip = [](Bytes32 b) {
        b[0] ^= 1;
        return b;
    };
    std::vector<std::pair<std::string, SealedSector>> cases;
    SealedSector s = sector;
    s.prover_id = flip(sector.prover_id);
    cases.push_back({"prover_id", s});
    s = sector;
    s.sector_id = sector.sector_id + 1;
    cases.push_back({"sector_id", s});
    s = sector;
    s.ticket = flip(sector.ticket);
    cases.push_back({"ticket", s});
    s = sector;
    s.seed = flip(sector.seed);
    cases.push_back({"seed", s});
    s = sector;
    s.comm_d = flip(sector.comm_d);
    cases.push_back({"comm_d", s});
    s = sector;
    s.comm_r = flip(sector.comm_r);
    cases.push_back({"comm_r", s});
    for (const auto& [what, changed] : cases) {
        EXPECT_FALSE(verify_porep(pvk, config, changed, proof)) << what;
        EXPECT_EQ(verify_porep_partitions(pvk, config, changed, proof), std::vector<bool>{false}) << what;
    }
    // A different porep id (another graph, another replica id) or api version 1.0 (another base-parent order).
    PorepConfig other = config;
    other.porep_id[0] = 5;
    EXPECT_FALSE(verify_porep(pvk, other, sector, proof));
    other = config;
    other.api_version = ApiVersion::V1_0_0;
    EXPECT_FALSE(verify_porep(pvk, other, sector, proof));
}

TEST(FilecoinPorepInputs, PolkaBadProofBytesAndKeys) {
    const auto& [config, sector, vk, pvk, proof, published_inputs] = polka();
    // Wrong lengths are errors that say what was expected.
    try {
        verify_porep(pvk, config, sector, std::span(proof).first(191));
        ADD_FAILURE() << "no error for a 191-byte proof";
    } catch (const FilecoinError& e) {
        EXPECT_EQ(e.kind(), FilecoinErrorKind::BadProofLength);
        EXPECT_NE(std::string(e.what()).find("192"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("191"), std::string::npos) << e.what();
    }
    std::vector<uint8_t> two = proof;
    two.insert(two.end(), proof.begin(), proof.end());
    expect_error(FilecoinErrorKind::BadProofLength, [&] { verify_porep(pvk, config, sector, two); });
    expect_error(FilecoinErrorKind::BadProofLength, [&] { verify_porep(pvk, config, sector, {}); });

    // A changed point is an invalid proof, whether or not it still decodes.
    for (size_t at : {size_t(1), size_t(60), size_t(150)}) {
        std::vector<uint8_t> bad = proof;
        bad[at] ^= 0x04;
        EXPECT_FALSE(verify_porep(pvk, config, sector, bad)) << at;
        EXPECT_EQ(verify_porep_partitions(pvk, config, sector, bad), std::vector<bool>{false}) << at;
    }
    // All-zero and non-canonical commitments are errors (verify_seal refuses them too).
    SealedSector zero = sector;
    zero.comm_r = {};
    expect_error(FilecoinErrorKind::InvalidCommitment, [&] { verify_porep(pvk, config, zero, proof); });
    zero = sector;
    zero.comm_d = {};
    expect_error(FilecoinErrorKind::InvalidCommitment, [&] { verify_porep(pvk, config, zero, proof); });
    SealedSector noncanonical = sector;
    noncanonical.comm_r.fill(0xff);
    expect_error(FilecoinErrorKind::NonCanonical, [&] { verify_porep(pvk, config, noncanonical, proof); });

    // A key made for another circuit, and an NI-PoRep (aggregated) proof.
    PorepConfig big = PorepConfig::from_registered(RegisteredSealProof::StackedDrg32GiBV1_1);
    std::vector<uint8_t> ten(10 * GROTH_PROOF_BYTES);
    for (size_t k = 0; k < 10; k++) std::copy(proof.begin(), proof.end(), ten.begin() + k * GROTH_PROOF_BYTES);
    expect_error(FilecoinErrorKind::KeyMismatch, [&] { verify_porep(pvk, big, sector, ten); });

    PorepConfig ni = PorepConfig::from_registered(RegisteredSealProof::StackedDrg2KiBV1_2_Feat_NonInteractivePoRep);
    expect_error(FilecoinErrorKind::Unsupported, [&] { verify_porep(pvk, ni, sector, proof); });
}

// ---- synthetic and non-interactive challenges -----------------------------------------------------------------------

// rust-fil-proofs challenges.rs test_synth_challenges_against_hardcoded: 2^10 nodes, replica_id = 55, comm_r = 101,
// 21 synthetic challenges, 10 PoRep challenges for randomness [1; 32].
TEST(FilecoinPorepInputs, SyntheticChallengesMatchUpstreamVector) {
    const Bytes32 rid = fr_to_bytes32(Fr::from_u64(55)), comm_r = fr_to_bytes32(Fr::from_u64(101));
    Bytes32 rand{};
    rand.fill(1);
    const SyntheticChallenges synth(1 << 10, rid, comm_r, 21);
    const std::vector<uint64_t> expected = {178, 297, 869, 211, 875, 477, 94, 781, 124, 332, 856,
                                            801, 176, 692, 429, 691, 290, 204, 986, 210, 973};
    EXPECT_EQ(synth.all(), expected);
    for (uint64_t i = 0; i < 21; i++) EXPECT_EQ(synth.challenge(i), expected[i]);
    EXPECT_EQ(synth.partition_challenges(rand, 10, 0),
              (std::vector<uint64_t>{176, 781, 801, 986, 290, 211, 692, 856, 986, 332}));
    expect_error(FilecoinErrorKind::OutOfRange, [&] { synth.challenge(21); });

    // Partition k selects the slice [k C, (k + 1) C) of one long selection (test_synth_challenges_32gib).
    const SyntheticChallenges big(1ull << 30, rid, comm_r);
    EXPECT_EQ(big.count(), 1u << 18);
    const auto all = big.partition_indexes(rand, 180, 0);
    for (uint32_t k = 0; k < 10; k++) {
        const auto part = big.partition_indexes(rand, 18, k);
        EXPECT_EQ(part, std::vector<uint64_t>(all.begin() + 18 * k, all.begin() + 18 * (k + 1))) << k;
    }
    const auto challenges = big.partition_challenges(rand, 18, 3);
    for (size_t i = 0; i < challenges.size(); i++) {
        EXPECT_EQ(challenges[i], big.challenge(all[54 + i]));
        EXPECT_GE(challenges[i], 1u);
        EXPECT_LT(challenges[i], 1ull << 30);
    }
    // A small sector uses all of its nodes' worth of synthetic challenges.
    EXPECT_EQ(SyntheticChallenges(64, rid, comm_r).count(), 64u);

    // The configuration routes synthetic PoRep through them.
    const auto config = PorepConfig::from_registered(RegisteredSealProof::StackedDrg32GiBV1_1_Feat_SyntheticPoRep);
    EXPECT_EQ(porep_challenges(config, rid, rand, comm_r, 3), challenges);
}

// NI challenges: partition k is the slice [k C, (k + 1) C) of one derivation (the index j runs across partitions),
// and they depend on comm_r, not on the seed.
TEST(FilecoinPorepInputs, NiChallengesStructure) {
    const Bytes32 rid = fr_to_bytes32(Fr::from_u64(12345)), comm_r = fr_to_bytes32(Fr::from_u64(678));
    const auto all = ni_challenges(1ull << 30, rid, comm_r, 18 * 4, 0);
    for (uint32_t k = 0; k < 4; k++)
        EXPECT_EQ(ni_challenges(1ull << 30, rid, comm_r, 18, k),
                  std::vector<uint64_t>(all.begin() + 18 * k, all.begin() + 18 * (k + 1)));
    for (uint64_t c : all) {
        EXPECT_GE(c, 1u);
        EXPECT_LT(c, 1ull << 30);
    }
    const auto config = PorepConfig::from_registered(RegisteredSealProof::StackedDrg32GiBV1_2_Feat_NonInteractivePoRep);
    Bytes32 seed_a{}, seed_b{};
    seed_b.fill(7);
    EXPECT_EQ(porep_challenges(config, rid, seed_a, comm_r, 2), porep_challenges(config, rid, seed_b, comm_r, 2));
    EXPECT_EQ(porep_challenges(config, rid, seed_a, comm_r, 2), ni_challenges(1ull << 30, rid, comm_r, 18, 2));
    EXPECT_NE(ni_challenges(1ull << 30, rid, comm_r, 18, 0), interactive_challenges(1ull << 30, rid, comm_r, 18, 0));
    // Interactive challenges follow the same partition rule.
    const auto inter = interactive_challenges(1ull << 30, rid, seed_b, 36, 0);
    EXPECT_EQ(interactive_challenges(1ull << 30, rid, seed_b, 18, 1),
              std::vector<uint64_t>(inter.begin() + 18, inter.end()));
    expect_error(FilecoinErrorKind::OutOfRange, [&] { interactive_challenges(1, rid, seed_b, 2, 0); });
}

// ---- the same through the command line (cuzk filecoin inputs porep / verify porep) ----------------------------------

#ifdef CUZK_CLI_PATH
namespace {

// Runs the CLI with `args`, stdout into `out`; returns its exit code.
int run_cli(const std::string& args, std::string* out = nullptr) {
    const std::string cmd = std::string(CUZK_CLI_PATH) + " " + args + " 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) throw std::runtime_error("popen failed");
    std::string text;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p)) text.append(buf, n);
    const int status = pclose(p);
    if (out) *out = text;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string polka_args(uint64_t sector_id) {
    const auto j = read_json("polka_storage_2kib_porep.json");
    return "--sector-size 2048 --porep-id " + j["porep_id_hex"].get<std::string>() + " --api-version V1_2_0" +
           " --prover-id " + j["prover_id_hex"].get<std::string>() + " --sector-id " + std::to_string(sector_id) +
           " --ticket " + j["ticket_hex"].get<std::string>() + " --seed " + j["seed_hex"].get<std::string>() +
           " --comm-d " + j["comm_d_hex"].get<std::string>() + " --comm-r " + j["comm_r_hex"].get<std::string>();
}

}  // namespace

TEST(FilecoinPorepInputs, PolkaProofThroughTheCli) {
    if (!std::ifstream(CUZK_CLI_PATH)) GTEST_SKIP() << CUZK_CLI_PATH << " not built";
    const auto& p = polka();
    const std::string dir = testing::TempDir();
    const std::string vk = dir + "polka.vk", proof = dir + "polka.proof", short_proof = dir + "polka-short.proof";
    formats::write_verifying_key(vk, p.vk);
    std::ofstream(proof, std::ios::binary).write(reinterpret_cast<const char*>(p.proof.data()), std::streamsize(p.proof.size()));
    std::ofstream(short_proof, std::ios::binary).write(reinterpret_cast<const char*>(p.proof.data()), 191);

    std::string out;
    ASSERT_EQ(run_cli("filecoin inputs porep " + polka_args(77) + " --json", &out), 0);
    const auto rows = nlohmann::json::parse(out);
    ASSERT_EQ(rows.size(), 1u);
    ASSERT_EQ(rows[0].size(), p.published_inputs.size());
    for (size_t i = 0; i < rows[0].size(); i++) EXPECT_EQ(rows[0][i].get<std::string>(), p.published_inputs[i].to_decimal());

    EXPECT_EQ(run_cli("filecoin verify porep --vk " + vk + " --proof " + proof + " " + polka_args(77)), 0);
    EXPECT_EQ(run_cli("filecoin verify porep --vk " + vk + " --proof " + proof + " " + polka_args(78)), 1);
    EXPECT_EQ(run_cli("filecoin verify porep --vk " + vk + " --proof " + short_proof + " " + polka_args(77)), 2);
    // Bad arguments: exit 2, never a crash.
    EXPECT_EQ(run_cli("filecoin inputs porep " + polka_args(77)), 2);  // no --json
    EXPECT_EQ(run_cli("filecoin inputs porep " + polka_args(77) + " --json --partition 1"), 2);
    EXPECT_EQ(run_cli("filecoin inputs porep --proof-type StackedDrg3KiBV1 --prover-id 00 --sector-id 1 --ticket 00 "
                      "--seed 00 --comm-d 00 --comm-r 00 --json"),
              2);
    std::string big = polka_args(77);
    big.replace(big.find("--sector-id 77"), 14, "--sector-id 18446744073709551616");
    EXPECT_EQ(run_cli("filecoin inputs porep " + big + " --json"), 2);
}

// v16 line 2 (a real 2 KiB V1_1 proof) by its registered proof name: the 39 inputs SPEC.md derives.
TEST(FilecoinPorepInputs, Record2KiBInputsThroughTheCli) {
    if (!std::ifstream(CUZK_CLI_PATH)) GTEST_SKIP() << CUZK_CLI_PATH << " not built";
    const Record r = read_record("seal_regression_records-v16.json", 2);
    const std::string args = "filecoin inputs porep --proof-type StackedDrg2KiBV1_1 --prover-id " +
                             to_hex(r.sector.prover_id) + " --sector-id " + std::to_string(r.sector.sector_id) +
                             " --ticket " + to_hex(r.sector.ticket) + " --seed " + to_hex(r.sector.seed) +
                             " --comm-d " + to_hex(r.sector.comm_d) + " --comm-r " + to_hex(r.sector.comm_r) + " --json";
    std::string out;
    ASSERT_EQ(run_cli(args, &out), 0);
    const auto rows = nlohmann::json::parse(out);
    ASSERT_EQ(rows.size(), 1u);
    ASSERT_EQ(rows[0].size(), 39u);
    const std::vector<uint64_t> tail{57, 56, 56, 48, 50, 42, 55, 46, 41, 13, 46, 44, 31, 3, 15, 57, 57, 57,
                                     58, 57, 45, 11, 54, 56, 57, 51, 52, 38, 18, 33, 8, 54, 40, 58, 58, 58};
    for (size_t i = 0; i < tail.size(); i++) EXPECT_EQ(rows[0][3 + i].get<std::string>(), std::to_string(tail[i]));
}
#endif
