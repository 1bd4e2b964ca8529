// Filecoin's parameter files (filecoin/params.hpp) and the PoRep C2 job's last gate (engine/porep_c2.hpp): the
// directory rules, header checks against a circuit's shape, parameters.json digests, streamed BLAKE2b, and that a
// C2 result whose proofs do not verify against Filecoin's inputs is never turned into proof bytes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cuzk/circuits/builtin.hpp"
#include "cuzk/engine/porep_c2.hpp"
#include "cuzk/filecoin/c1_gen.hpp"
#include "cuzk/filecoin/graph.hpp"
#include "cuzk/filecoin/params.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/groth16/setup.hpp"
#include "seeded_rng.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::filecoin;
namespace fs = std::filesystem;

struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() / ("cuzk-params-" + std::to_string(std::random_device{}()));
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

template <class F>
FilecoinErrorKind error_kind(F&& f, std::string* message = nullptr) {
    try {
        f();
    } catch (const FilecoinError& e) {
        if (message) *message = e.what();
        return e.kind();
    }
    ADD_FAILURE() << "no FilecoinError";
    return FilecoinErrorKind::Io;
}

TEST(FilecoinBlake2b, StreamedEqualsOneShot) {
    // RFC 7693 appendix A: BLAKE2b-512("abc").
    Blake2b abc;
    abc.update(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>("abc"), 3));
    EXPECT_EQ(to_hex(abc.finish()),
              "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8"
              "dbf1925ab92386edd4009923");
    auto rng = cuzk::testing::seeded_rng("FilecoinBlake2b.StreamedEqualsOneShot");
    for (size_t len : {0, 1, 127, 128, 129, 255, 256, 257, 1000, 4096, 10007}) {
        std::vector<uint8_t> msg(len);
        for (auto& b : msg) b = uint8_t(rng());
        std::vector<uint8_t> want(64);
        blake2b(msg, want);
        Blake2b h;
        for (size_t off = 0; off < len;) {
            const size_t n = std::min<size_t>(len - off, rng() % 300);
            h.update(std::span(msg).subspan(off, n));
            off += n;
        }
        EXPECT_EQ(h.finish(), want) << "length " << len;
    }
    EXPECT_THROW(Blake2b(0), std::invalid_argument);
    EXPECT_THROW(Blake2b(65), std::invalid_argument);
}

TEST(FilecoinParams, DirectoryFromArgumentThenEnvironmentThenDefault) {
    const char* old = std::getenv("FIL_PROOFS_PARAMETER_CACHE");
    const std::string saved = old ? old : "";
    ::unsetenv("FIL_PROOFS_PARAMETER_CACHE");
    EXPECT_EQ(parameter_cache_dir(), fs::path("/var/tmp/filecoin-proof-parameters"));
    ::setenv("FIL_PROOFS_PARAMETER_CACHE", "/srv/params", 1);
    EXPECT_EQ(parameter_cache_dir(), fs::path("/srv/params"));
    EXPECT_EQ(parameter_cache_dir("/mine"), fs::path("/mine"));
    ::setenv("FIL_PROOFS_PARAMETER_CACHE", "", 1);
    EXPECT_EQ(parameter_cache_dir(), fs::path("/var/tmp/filecoin-proof-parameters"));
    if (old) ::setenv("FIL_PROOFS_PARAMETER_CACHE", saved.c_str(), 1);
    else ::unsetenv("FIL_PROOFS_PARAMETER_CACHE");
}

TEST(FilecoinParams, ShapeOfACircuit) {
    const auto s = ParameterShape::of({2687921, 40, 2685673, std::nullopt}, "the 2KiB PoRep partition circuit");
    EXPECT_EQ(s.ic, 40u);
    EXPECT_EQ(s.h, (uint64_t(1) << 22) - 1);  // 2,687,961 rows -> domain 2^22
    EXPECT_EQ(s.l, 2685673u);
    EXPECT_EQ(s.max_ab, 2685713u);
    // At 32 GiB: 130,278,541 + 328 rows fill 2^27.
    EXPECT_EQ(ParameterShape::of({130278541, 328, 130169893, std::nullopt}, "").h, (uint64_t(1) << 27) - 1);
}

// The cubic circuit's parameters against its own shape, and against shapes that differ in each section.
TEST(FilecoinParams, HeadersCheckedAgainstTheShape) {
    TempDir dir;
    const auto params = groth16::generate_parameters(circuits::CubicCircuit(), groth16::ToxicWaste::from_seed(3));
    const fs::path file = dir.path / "cubic.params";
    formats::write_parameters(file, params);
    const formats::MappedFile mapped(file);
    const auto layout = formats::parse_parameters_layout(mapped.bytes(), file.string());
    ParameterShape good;
    good.circuit = "cubic";
    good.ic = params.vk.ic.size(), good.h = params.h.size(), good.l = params.l.size();
    good.max_ab = good.ic + good.l;
    EXPECT_NO_THROW(check_parameter_layout(layout, good, file.string()));
    std::string msg;
    auto bad = good;
    bad.ic += 1;
    EXPECT_EQ(error_kind([&] { check_parameter_layout(layout, bad, "f"); }, &msg), FilecoinErrorKind::KeyMismatch);
    EXPECT_NE(msg.find("section ic has 2 points, cubic needs 3"), std::string::npos) << msg;
    bad = good, bad.h *= 2;
    EXPECT_EQ(error_kind([&] { check_parameter_layout(layout, bad, "f"); }, &msg), FilecoinErrorKind::KeyMismatch);
    EXPECT_NE(msg.find("section h"), std::string::npos) << msg;
    bad = good, bad.l += 5;
    EXPECT_EQ(error_kind([&] { check_parameter_layout(layout, bad, "f"); }), FilecoinErrorKind::KeyMismatch);
    bad = good, bad.max_ab = 1;
    EXPECT_EQ(error_kind([&] { check_parameter_layout(layout, bad, "f"); }), FilecoinErrorKind::KeyMismatch);
    // A verifying key's layout is checked for ic only.
    const auto vk_bytes = formats::verifying_key_to_bytes(params.vk);
    const auto vk_layout = formats::parse_verifying_key_layout(vk_bytes, "vk");
    bad = good, bad.h = 1;
    EXPECT_NO_THROW(check_parameter_layout(vk_layout, bad, "vk"));
    bad.ic = 9;
    EXPECT_EQ(error_kind([&] { check_parameter_layout(vk_layout, bad, "vk"); }), FilecoinErrorKind::KeyMismatch);
}

TEST(FilecoinParams, MissingFileNamesTheFileAndTheDirectory) {
    TempDir dir;
    const auto names = parameter_files(RegisteredSealProof::StackedDrg2KiBV1_1);
    std::string msg;
    EXPECT_EQ(error_kind([&] { find_parameter_file(dir.path, names.params, "StackedDrg2KiBV1_1"); }, &msg),
              FilecoinErrorKind::MissingParameters);
    EXPECT_NE(msg.find(names.params), std::string::npos) << msg;
    EXPECT_NE(msg.find(dir.path.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("params gen --proof-type StackedDrg2KiBV1_1"), std::string::npos) << msg;
    // A directory of that name is not a parameter file either.
    fs::create_directories(dir.path / names.params);
    EXPECT_EQ(error_kind([&] { find_parameter_file(dir.path, names.params, "x"); }),
              FilecoinErrorKind::MissingParameters);
}

TEST(FilecoinParams, DigestAgainstAManifest) {
    TempDir dir;
    auto rng = cuzk::testing::seeded_rng("FilecoinParams.DigestAgainstAManifest");
    std::vector<uint8_t> bytes(300000);
    for (auto& b : bytes) b = uint8_t(rng());
    const fs::path file = dir.path / "v28-x.params";
    formats::detail::write_file_atomically(file, bytes);
    std::vector<uint8_t> full(64);
    blake2b(bytes, full);
    const std::string digest = to_hex(full).substr(0, 32);
    EXPECT_EQ(parameter_file_digest(file), digest);
    auto manifest = [&](const std::string& d) {
        const fs::path m = dir.path / "parameters.json";
        std::ofstream(m) << "{\"v28-x.params\": {\"cid\": \"Qm\", \"digest\": \"" << d << "\", \"sector_size\": 2048}}";
        return m;
    };
    EXPECT_NO_THROW(check_parameter_digest(file, manifest(digest)));
    std::string wrong = digest;
    wrong[0] = wrong[0] == '0' ? '1' : '0';
    std::string msg;
    EXPECT_EQ(error_kind([&] { check_parameter_digest(file, manifest(wrong)); }, &msg),
              FilecoinErrorKind::DigestMismatch);
    EXPECT_NE(msg.find(digest), std::string::npos) << msg;
    const fs::path other = dir.path / "v28-y.params";
    formats::detail::write_file_atomically(other, bytes);
    EXPECT_EQ(error_kind([&] { check_parameter_digest(other, manifest(digest)); }),
              FilecoinErrorKind::MissingParameters);
    std::ofstream(dir.path / "bad.json") << "[1, 2";
    EXPECT_EQ(error_kind([&] { check_parameter_digest(file, dir.path / "bad.json"); }), FilecoinErrorKind::Io);
}

TEST(FilecoinParams, GenRefusesSectorsAbove512MiB) {
    TempDir dir;
    EXPECT_EQ(error_kind([&] {
                  generate_porep_parameters(PorepConfig::from_registered(RegisteredSealProof::StackedDrg32GiBV1_1),
                                            dir.path, 1);
              }),
              FilecoinErrorKind::Unsupported);
    EXPECT_TRUE(fs::is_empty(dir.path));
}

// The C2 job's inputs come from the C1's replica_id, seed and commitments as the verifier derives them; proofs
// that do not verify against them (here: random ones under a random key of the right size) never become bytes.
TEST(PorepC2, ProofsThatDoNotVerifyAreNeverEncoded) {
    const auto g = generate_c1_sector(RegisteredSealProof::StackedDrg2KiBV1_1, 11);
    const engine::PorepC2Job job = engine::porep_c2_job(g.c1);
    ASSERT_EQ(job.partitions.size(), 1u);
    const auto sector = SealedSector{g.prover_id, g.sector_id, g.c1.ticket, g.c1.seed, g.c1.comm_d, g.c1.comm_r};
    EXPECT_EQ(job.public_inputs[0], porep_public_inputs(job.config, sector, 0));
    EXPECT_EQ(replica_inputs(job.config, sector).replica_id, g.c1.replica_id);
    // The engine's holds for a PoRep's first partition (docs/design.md): synthesized alone, sent to the GPU alone.
    const engine::JobSpec spec = engine::porep_c2_spec(job);
    EXPECT_TRUE(spec.first_partition_alone);
    EXPECT_TRUE(spec.first_upload_alone);
    EXPECT_EQ(spec.partitions, 1u);

    groth16::QueryShape q;
    q.inputs = job.public_inputs[0].size() + 1;
    q.aux = 8, q.constraints = 64, q.a_aux = 8, q.b = 8;
    const auto random_params = groth16::benchmark_parameters(q, 5);
    engine::JobResult result;
    result.state = engine::JobState::Done;
    result.proofs.push_back({random_params.a[0], random_params.b_g2[0], random_params.a[1]});
    std::string msg;
    EXPECT_EQ(error_kind([&] { engine::porep_c2_proof(job, result, random_params.vk); }, &msg),
              FilecoinErrorKind::InvalidProof);
    EXPECT_NE(msg.find("partition(s) 0"), std::string::npos) << msg;
    result.state = engine::JobState::Failed;
    result.error = "out of memory";
    EXPECT_THROW(engine::porep_c2_proof(job, result, random_params.vk), std::runtime_error);
}

}  // namespace
