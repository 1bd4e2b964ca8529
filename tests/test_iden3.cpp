// circom / snarkjs interop: the iden3 readers (.r1cs, .wtns, .zkey) on hand-built files (errors) and on files made
// by circom2 + snarkjs (tests/circom/make_fixtures.sh; their directory comes in CUZK_CIRCOM_FIXTURES), the
// snarkjs H convention of the prover, and the snarkjs JSON files.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cuzk/formats/iden3.hpp"
#include "cuzk/formats/iden3_circom.hpp"
#include "cuzk/formats/iden3_zkey_writer.hpp"
#include "cuzk/formats/json_depth.hpp"
#include "cuzk/formats/snarkjs_json.hpp"
#include "cuzk/groth16/prover.hpp"
#include "cuzk/groth16/verifier.hpp"
#include "cuzk/poly/domain.hpp"
#include "r1cs_checks.hpp"
#include "iden3_bytes.hpp"
#include "seeded_rng.hpp"

using namespace cuzk;
using namespace cuzk::formats::iden3;
using namespace cuzk::test_iden3;
namespace fs = std::filesystem;

namespace {

template <class F>
Iden3ErrorKind error_kind(F&& f) {
    try {
        f();
    } catch (const Iden3Error& e) {
        EXPECT_NE(std::string(e.what()).find("test"), std::string::npos) << "the message names the source: " << e.what();
        return e.kind();
    }
    ADD_FAILURE() << "no Iden3Error";
    return Iden3ErrorKind::Io;
}

}  // namespace

TEST(Iden3R1cs, ReadsAHandBuiltFile) {
    R1cs r = read_r1cs(square_r1cs(), "test.r1cs");
    EXPECT_EQ(r.n_wires, 3u);
    EXPECT_EQ(r.n_public(), 1u);
    EXPECT_EQ(r.n_constraints, 1u);
    ASSERT_EQ(r.a.rows(), 1u);
    EXPECT_EQ(r.a.wire[0], 2u);
    EXPECT_EQ(r.c.wire[0], 1u);
    Witness w = read_wtns(wtns({Fr::one(), Fr::from_u64(9), Fr::from_u64(3)}), "test.wtns");
    auto e = evaluate_r1cs(r, w);
    EXPECT_EQ(e.a[0] * e.b[0], e.c[0]);
    EXPECT_EQ(e.c[0], Fr::from_u64(9));
}

TEST(Iden3R1cs, RejectsBadFiles) {
    auto good = square_r1cs();
    // Every strict prefix is refused (never read past the end).
    for (size_t n = 0; n < good.size(); n += 7) {
        std::vector<uint8_t> cut(good.begin(), good.begin() + n);
        Iden3ErrorKind k = error_kind([&] { read_r1cs(cut, "test.r1cs"); });
        EXPECT_TRUE(k == Iden3ErrorKind::Truncated || k == Iden3ErrorKind::CountTooLarge ||
                    k == Iden3ErrorKind::MissingSection)
            << "prefix " << n << ": " << iden3_error_kind_name(k);
    }
    auto bad_magic = good;
    bad_magic[0] = 'x';
    EXPECT_EQ(error_kind([&] { read_r1cs(bad_magic, "test.r1cs"); }), Iden3ErrorKind::BadMagic);
    auto bad_version = good;
    bad_version[4] = 9;
    EXPECT_EQ(error_kind([&] { read_r1cs(bad_version, "test.r1cs"); }), Iden3ErrorKind::BadVersion);
    try {
        read_r1cs(square_r1cs(kBn254R), "test.r1cs");
        ADD_FAILURE() << "BN254 accepted";
    } catch (const Iden3Error& e) {
        EXPECT_EQ(e.kind(), Iden3ErrorKind::UnsupportedCurve);
        EXPECT_NE(std::string(e.what()).find("BN254"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("--prime bls12381"), std::string::npos) << e.what();
    }
    limbs_t<4> other = Fr::P;
    other[0] += 2;
    EXPECT_EQ(error_kind([&] { read_r1cs(square_r1cs(other), "test.r1cs"); }), Iden3ErrorKind::UnsupportedCurve);
    // A constraint count far beyond the section is refused before anything is reserved.
    EXPECT_EQ(error_kind([&] { read_r1cs(square_r1cs(Fr::P, 0xffffffffu), "test.r1cs"); }),
              Iden3ErrorKind::CountTooLarge);
    EXPECT_EQ(error_kind([&] { read_r1cs(square_r1cs(Fr::P, 1, 7), "test.r1cs"); }), Iden3ErrorKind::BadValue);
    // A section size past the end of the file.
    auto big_section = good;
    big_section[12 + 4 + 7] = 0x7f;  // the top byte of section 1's u64 size
    EXPECT_EQ(error_kind([&] { read_r1cs(big_section, "test.r1cs"); }), Iden3ErrorKind::CountTooLarge);
    // A section count beyond what the file can hold.
    auto many = good;
    many[8] = many[9] = many[10] = 0xff;
    EXPECT_EQ(error_kind([&] { read_r1cs(many, "test.r1cs"); }), Iden3ErrorKind::CountTooLarge);
}

TEST(Iden3Wtns, RejectsBadFiles) {
    std::vector<Fr> vals = {Fr::one(), Fr::from_u64(4), Fr::from_u64(2)};
    EXPECT_EQ(read_wtns(wtns(vals), "test.wtns").values, vals);
    EXPECT_EQ(error_kind([&] { read_wtns(wtns(vals, Fr::P, 0x10000000u), "test.wtns"); }),
              Iden3ErrorKind::CountTooLarge);
    EXPECT_EQ(error_kind([&] { read_wtns(wtns(vals, kBn254R), "test.wtns"); }), Iden3ErrorKind::UnsupportedCurve);
    EXPECT_EQ(error_kind([&] { read_wtns(wtns({Fr::from_u64(2), Fr::one()}), "test.wtns"); }),
              Iden3ErrorKind::BadValue);
    auto r1cs_bytes = square_r1cs();
    EXPECT_EQ(error_kind([&] { read_wtns(r1cs_bytes, "test.wtns"); }), Iden3ErrorKind::BadMagic);
    // A value >= r.
    auto bad = wtns(vals);
    std::memset(bad.data() + bad.size() - 32, 0xff, 32);
    EXPECT_EQ(error_kind([&] { read_wtns(bad, "test.wtns"); }), Iden3ErrorKind::BadValue);
}

namespace {

// The assignment from the zkey's compiled rows equals the one that buckets its coefficients, to the bit.
void expect_compiled_rows_agree(const Zkey& z, const Witness& w) {
    const auto direct = zkey_assignment(z, w);
    const auto rows = zkey_matrices(z);
    cuzk::testing::expect_same_assignment(zkey_assignment(rows, z, w), direct);
    EXPECT_TRUE(rows.c.terms.empty()) << "a zkey has no C";
}

}  // namespace

// A zkey made by cuzk for x * x = y reads back, proves and verifies; a wrong public value does not.
TEST(Iden3ZkeyWriter, MadeKeyProvesAndVerifies) {
    R1cs r = read_r1cs(square_r1cs(), "test.r1cs");
    auto bytes = make_test_zkey(r, groth16::ToxicWaste::from_seed(3));
    Zkey z = read_zkey(bytes, "test.zkey");
    EXPECT_EQ(z.n_vars, 3u);
    EXPECT_EQ(z.n_public, 1u);
    EXPECT_EQ(z.domain_size, 4u);  // 1 constraint + 2 input constraints
    Witness w = read_wtns(wtns({Fr::one(), Fr::from_u64(49), Fr::from_u64(7)}), "test.wtns");
    groth16::Parameters p = zkey_to_parameters(z);
    std::vector<r1cs::ProvingAssignment> asg;
    asg.push_back(zkey_assignment(z, w));
    std::vector<Fr> rr = {Fr::from_u64(5)}, ss = {Fr::from_u64(6)};
    auto proofs = groth16::prove_from_assignments(p, asg, rr, ss);
    auto pvk = groth16::prepare_verifying_key(p.vk);
    EXPECT_TRUE(groth16::verify_proof(pvk, proofs[0], std::vector<Fr>{Fr::from_u64(49)}));
    EXPECT_FALSE(groth16::verify_proof(pvk, proofs[0], std::vector<Fr>{Fr::from_u64(48)}));
    // A witness that does not satisfy the constraint gives a proof that does not verify.
    Witness bad = read_wtns(wtns({Fr::one(), Fr::from_u64(50), Fr::from_u64(7)}), "test.wtns");
    std::vector<r1cs::ProvingAssignment> asg2;
    asg2.push_back(zkey_assignment(z, bad));
    auto bad_proofs = groth16::prove_from_assignments(p, asg2, rr, ss);
    EXPECT_FALSE(groth16::verify_proof(pvk, bad_proofs[0], std::vector<Fr>{Fr::from_u64(50)}));
    expect_compiled_rows_agree(z, w);
    expect_compiled_rows_agree(z, bad);
    // A witness of another size is refused by both paths.
    Witness short_w = read_wtns(wtns({Fr::one(), Fr::from_u64(49)}), "test.wtns");
    EXPECT_THROW(zkey_assignment(zkey_matrices(z), z, short_w), std::invalid_argument);
}

// Both routes to the assignment on coefficients as a file may hold them: rows in no order, A and B interleaved,
// zero and one values, a variable twice in one row, rows with only A or only B, and rows with no coefficient at all.
TEST(Iden3Zkey, AssignmentFromShuffledCoefficientsMatchesTheCompiledRows) {
    auto rng = cuzk::testing::seeded_rng("Iden3Zkey.AssignmentFromShuffledCoefficients");
    for (int trial = 0; trial < 4; trial++) {
        Zkey z;
        z.n_public = 1 + (uint32_t)(rng() % 4);
        z.n_vars = z.n_public + 1 + 20 + (uint32_t)(rng() % 200);
        z.domain_size = 512;
        const uint32_t rows = 10 + (uint32_t)(rng() % 300);
        for (uint32_t k = 0; k < 3 * rows; k++) {
            ZkeyCoefficient c;
            c.matrix = (uint32_t)(rng() % 2);
            c.constraint = (uint32_t)(rng() % rows);
            c.signal = (uint32_t)(rng() % z.n_vars);
            const unsigned kind = (unsigned)(rng() % 6);
            c.value = kind == 0 ? Fr::zero() : kind == 1 ? Fr::one() : Fr::random(rng);
            z.coefficients.push_back(c);
            if (rng() % 5 == 0) z.coefficients.push_back(c);  // the same term again
        }
        Witness w;
        w.values.push_back(Fr::one());
        for (uint32_t i = 1; i < z.n_vars; i++) w.values.push_back(rng() % 3 ? Fr::random(rng) : Fr::from_u64(rng() % 2));
        expect_compiled_rows_agree(z, w);
        const auto asg = zkey_assignment(z, w);
        for (size_t i = 0; i < asg.num_constraints(); i++) ASSERT_EQ(asg.c()[i], asg.a()[i] * asg.b()[i]) << i;
    }
}

// The zkey reader on a cuzk-made key with damage: every kind of error is typed, none crashes.
TEST(Iden3Zkey, RejectsDamagedKeys) {
    const auto good = make_test_zkey(read_r1cs(square_r1cs(), "test.r1cs"), groth16::ToxicWaste::from_seed(4));
    ASSERT_NO_THROW(read_zkey(good, "test.zkey"));
    for (size_t n = 0; n < good.size(); n += 97) {
        std::vector<uint8_t> cut(good.begin(), good.begin() + n);
        EXPECT_THROW(read_zkey(cut, "test.zkey"), Iden3Error) << "prefix " << n;
    }
    Container c = parse_container(good, "zkey", 1, "test.zkey");
    const Section& proto = c.unique(1, "protocol", "test.zkey");
    const Section& hdr = c.unique(2, "header", "test.zkey");
    auto plonk = good;
    plonk[proto.offset] = 2;
    EXPECT_EQ(error_kind([&] { read_zkey(plonk, "test.zkey"); }), Iden3ErrorKind::BadHeader);
    // q replaced by BN254's base field prime (n8q stays 48 in this forgery; the curve is refused first).
    auto bn = good;
    const limbs_t<4> bn_q = {0x3c208c16d87cfd47ULL, 0x97816a916871ca8dULL, 0xb85045b68181585dULL, 0x30644e72e131a029ULL};
    std::memset(bn.data() + hdr.offset + 4, 0, 48);
    for (size_t i = 0; i < 4; i++)
        for (size_t k = 0; k < 8; k++) bn[hdr.offset + 4 + 8 * i + k] = (uint8_t)(bn_q[i] >> (8 * k));
    try {
        read_zkey(bn, "test.zkey");
        ADD_FAILURE() << "BN254 accepted";
    } catch (const Iden3Error& e) {
        EXPECT_EQ(e.kind(), Iden3ErrorKind::UnsupportedCurve) << e.what();
        EXPECT_NE(std::string(e.what()).find("BN254"), std::string::npos) << e.what();
    }
    // n_vars and domain size far beyond the file.
    const size_t n_vars_at = hdr.offset + 4 + 48 + 4 + 32;
    auto big = good;
    big[n_vars_at + 3] = 0x40;
    EXPECT_EQ(error_kind([&] { read_zkey(big, "test.zkey"); }), Iden3ErrorKind::CountTooLarge);
    auto domain = good;
    domain[n_vars_at + 8 + 3] = 0x40;  // 2^30 + 4: not a power of two
    EXPECT_EQ(error_kind([&] { read_zkey(domain, "test.zkey"); }), Iden3ErrorKind::BadHeader);
    // alpha_1 off the curve: always checked, even unchecked reads.
    auto alpha = good;
    alpha[n_vars_at + 12 + 1] ^= 1;
    EXPECT_EQ(error_kind([&] { read_zkey(alpha, "test.zkey", {.check_subgroup = false}); }), Iden3ErrorKind::BadPoint);
    // A coefficient naming a signal past n_vars.
    const Section& coef = c.unique(4, "coefficients", "test.zkey");
    auto sig = good;
    sig[coef.offset + 4 + 8 + 3] = 0x7f;
    try {
        read_zkey(sig, "test.zkey");
        ADD_FAILURE() << "accepted";
    } catch (const Iden3Error& e) {
        EXPECT_EQ(e.kind(), Iden3ErrorKind::BadValue);
        EXPECT_EQ(e.section(), "coefficients");
        EXPECT_EQ(e.index(), 0u);
    }
}

// snarkjs's H scalars against a schoolbook computation on snarkjs's own points.
TEST(Iden3Prover, OddCosetMatchesNaiveEvaluation) {
    for (unsigned k : {1u, 3u, 5u}) {
        EvaluationDomain d = EvaluationDomain::from_log_size(k);
        const size_t n = d.size();
        const Fr w = groth16::snarkjs_root_of_unity(d), s = groth16::snarkjs_coset_shift(d);
        ASSERT_EQ(w.pow(n), Fr::one());
        if (n > 1) {
            ASSERT_NE(w.pow(n / 2), Fr::one());
        }
        ASSERT_EQ(s * s, w);
        // snarkjs's root is cuzk's to the power e.
        EXPECT_EQ(d.omega().pow(groth16::snarkjs_root_exponent() % n), w);
        std::mt19937_64 rng(k);
        std::vector<Fr> a(n), b(n), c(n);
        for (size_t i = 0; i < n; i++) {
            a[i] = Fr::from_u64(rng());
            b[i] = Fr::from_u64(rng());
            c[i] = Fr::from_u64(rng());
        }
        auto h = groth16::compute_h_odd_coset(d, a, b, c);
        ASSERT_EQ(h.size(), n);
        // Interpolate each at w^j (inverse DFT with w), evaluate at s w^i.
        auto eval = [&](const std::vector<Fr>& v, const Fr& x) {
            Fr acc = Fr::zero();
            const Fr ninv = Fr::from_u64(n).inverse().value();
            for (size_t m = 0; m < n; m++) {
                Fr coef = Fr::zero();
                for (size_t j = 0; j < n; j++) coef += v[j] * w.pow((uint64_t)((n - (j * m) % n) % n));
                acc += coef * ninv * x.pow((uint64_t)m);
            }
            return acc;
        };
        for (size_t i = 0; i < n; i++) {
            Fr x = s * w.pow((uint64_t)i);
            EXPECT_EQ(h[i], eval(a, x) * eval(b, x) - eval(c, x)) << "n = " << n << ", i = " << i;
        }
    }
}

// ---- files made by circom2 + snarkjs --------------------------------------------------------------------------------

namespace {

std::optional<fs::path> fixtures() {
    const char* d = std::getenv("CUZK_CIRCOM_FIXTURES");
    if (!d || !*d) return std::nullopt;
    return fs::path(d);
}

#define REQUIRE_FIXTURES(dir)                                                                               \
    auto dir##_opt = fixtures();                                                                            \
    if (!dir##_opt) GTEST_SKIP() << "CUZK_CIRCOM_FIXTURES is not set (ctest's circom.unit_fixtures sets it)"; \
    const fs::path dir = *dir##_opt;                                                                        \
    ASSERT_TRUE(fs::exists(dir / "circuits.txt")) << dir << " has no circuits.txt"

std::vector<std::string> circuit_names(const fs::path& dir) {
    std::ifstream in(dir / "circuits.txt");
    std::vector<std::string> out;
    for (std::string s; in >> s;) out.push_back(s);
    return out;
}

std::vector<uint8_t> file_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST(Iden3Fixture, ZkeyCoefficientsReproduceTheR1cs) {
    REQUIRE_FIXTURES(dir);
    auto names = circuit_names(dir);
    ASSERT_GE(names.size(), 3u);
    for (const auto& name : names) {
        SCOPED_TRACE(name);
        R1cs r1cs = read_r1cs(dir / (name + ".r1cs"));
        Witness w = read_wtns(dir / (name + ".wtns"));
        Zkey z = read_zkey(dir / (name + ".zkey"));
        ASSERT_EQ(z.n_vars, r1cs.n_wires);
        ASSERT_EQ(z.n_public, r1cs.n_public());
        EXPECT_GE(z.domain_size, r1cs.n_constraints + z.n_public + 1);
        EXPECT_LT(z.domain_size / 2, r1cs.n_constraints + z.n_public + 1);
        // The contribution moved delta off the generator.
        EXPECT_NE(z.delta_1, G1Affine::generator());
        auto e = evaluate_r1cs(r1cs, w);
        auto asg = zkey_assignment(z, w);
        ASSERT_EQ(asg.a().size(), (size_t)r1cs.n_constraints + z.n_public + 1);
        for (size_t i = 0; i < r1cs.n_constraints; i++) {
            ASSERT_EQ(asg.a()[i], e.a[i]) << "constraint " << i;
            ASSERT_EQ(asg.b()[i], e.b[i]) << "constraint " << i;
            ASSERT_EQ(asg.c()[i], e.c[i]) << "constraint " << i << " (c = a * b needs a satisfying witness)";
        }
        for (uint32_t s = 0; s <= z.n_public; s++) {
            EXPECT_EQ(asg.a()[r1cs.n_constraints + s], w.values[s]);
            EXPECT_TRUE(asg.b()[r1cs.n_constraints + s].is_zero());
        }
        expect_compiled_rows_agree(z, w);
    }
}

TEST(Iden3Fixture, ProofsVerifyBothWaysAndJsonIsByteExact) {
    REQUIRE_FIXTURES(dir);
    for (const auto& name : circuit_names(dir)) {
        SCOPED_TRACE(name);
        Zkey z = read_zkey(dir / (name + ".zkey"));
        Witness w = read_wtns(dir / (name + ".wtns"));
        groth16::Parameters p = zkey_to_parameters(z);
        {
            // The moving conversion gives the same parameters and leaves what zkey_assignment needs.
            Zkey moved = z;
            EXPECT_EQ(zkey_to_parameters(std::move(moved)), p);
            EXPECT_TRUE(moved.h.empty() && moved.a.empty() && moved.b2.empty());
            EXPECT_EQ(moved.coefficients.size(), z.coefficients.size());
        }
        auto pvk = groth16::prepare_verifying_key(p.vk);
        std::vector<Fr> pub = public_signals(w, z.n_public);

        // snarkjs's files, read and written back byte for byte.
        using namespace cuzk::formats::snarkjs;
        std::string proof_text = read_text_file(dir / (name + ".proof.json"));
        std::string public_text = read_text_file(dir / (name + ".public.json"));
        std::string vk_text = read_text_file(dir / (name + ".vk.json"));
        groth16::Proof snark_proof = parse_proof_json(proof_text);
        EXPECT_EQ(proof_to_json(snark_proof), proof_text);
        EXPECT_EQ(parse_public_signals_json(public_text), pub);
        EXPECT_EQ(public_signals_to_json(pub), public_text);
        groth16::VerifyingKey vk_json = parse_verification_key_json(vk_text);
        EXPECT_EQ(vk_json.alpha_g1, p.vk.alpha_g1);
        EXPECT_EQ(vk_json.gamma_g2, p.vk.gamma_g2);
        EXPECT_EQ(vk_json.delta_g2, p.vk.delta_g2);
        EXPECT_EQ(vk_json.ic, p.vk.ic);
        EXPECT_EQ(verification_key_to_json(p.vk), vk_text);

        EXPECT_TRUE(groth16::verify_proof(pvk, snark_proof, pub));
        std::vector<Fr> tampered = pub;
        tampered[0] += Fr::one();
        EXPECT_FALSE(groth16::verify_proof(pvk, snark_proof, tampered));

        // Our proof of the same witness.
        std::vector<r1cs::ProvingAssignment> asg;
        asg.push_back(zkey_assignment(z, w));
        std::vector<Fr> r = {Fr::from_u64(12345)}, s = {Fr::from_u64(678)};
        auto proofs = groth16::prove_from_assignments(p, asg, r, s);
        ASSERT_EQ(proofs.size(), 1u);
        EXPECT_TRUE(groth16::verify_proof(pvk, proofs[0], pub));
        EXPECT_FALSE(groth16::verify_proof(pvk, proofs[0], tampered));
        EXPECT_EQ(parse_proof_json(proof_to_json(proofs[0])), proofs[0]);
    }
}

TEST(Iden3Fixture, ZkeyReaderRejectsDamagedFiles) {
    REQUIRE_FIXTURES(dir);
    const std::string name = circuit_names(dir).at(0);
    auto bytes = file_bytes(dir / (name + ".zkey"));
    ASSERT_GT(bytes.size(), 1000u);
    // Truncated anywhere: refused, never a crash.
    for (size_t n : {size_t{0}, size_t{3}, size_t{11}, size_t{40}, bytes.size() / 2, bytes.size() - 1}) {
        std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + n);
        EXPECT_THROW(read_zkey(cut, "test.zkey"), Iden3Error) << "prefix " << n;
    }
    auto magic = bytes;
    magic[0] = 'r';
    EXPECT_EQ(error_kind([&] { read_zkey(magic, "test.zkey"); }), Iden3ErrorKind::BadMagic);
    // The r1cs and wtns are not zkeys.
    EXPECT_EQ(error_kind([&] { read_zkey(file_bytes(dir / (name + ".r1cs")), "test.zkey"); }),
              Iden3ErrorKind::BadMagic);
    // A flipped byte inside the H section (the last section before the transcript) is a bad point.
    Container c = parse_container(bytes, "zkey", 1, "test.zkey");
    const Section& h = c.unique(9, "H", "test.zkey");
    auto flipped = bytes;
    flipped[h.offset + 5] ^= 0x40;
    Iden3Error err(Iden3ErrorKind::Io, "");
    try {
        read_zkey(flipped, "test.zkey");
        FAIL() << "accepted";
    } catch (const Iden3Error& e) {
        EXPECT_EQ(e.kind(), Iden3ErrorKind::BadPoint) << e.what();
        EXPECT_EQ(e.section(), "H");
        EXPECT_EQ(e.index(), 0u);
    }
    // An n_vars larger than the file: the header is consistent, the sections are not.
    auto big = bytes;
    const Section& hdr = c.unique(2, "header", "test.zkey");
    const size_t n_vars_at = hdr.offset + 4 + 48 + 4 + 32;
    big[n_vars_at + 3] = 0x7f;
    EXPECT_EQ(error_kind([&] { read_zkey(big, "test.zkey"); }), Iden3ErrorKind::CountTooLarge);
    // The unchecked read gives the same key.
    Zkey a = read_zkey(bytes, "test.zkey"), b = read_zkey(bytes, "test.zkey", {.check_subgroup = false});
    EXPECT_EQ(a.h, b.h);
    EXPECT_EQ(a.b2, b.b2);
}

// Deeply nested JSON is refused before anything walks it, and input containers never reach an error message
// (issue 20 item 6: a 200 kB "[[[[...]]]]" overflowed the stack).
TEST(SnarkjsJson, DeepNestingIsRefusedAndInputsAreNotEchoed) {
    using formats::FormatError;
    using formats::FormatErrorKind;
    const std::string deep = std::string(200000, '[') + std::string(200000, ']');
    for (auto parse : {+[](std::string_view t) { (void)formats::snarkjs::parse_proof_json(t); },
                       +[](std::string_view t) { (void)formats::snarkjs::parse_verification_key_json(t); },
                       +[](std::string_view t) { (void)formats::snarkjs::parse_public_signals_json(t); }}) {
        try {
            parse(deep);
            ADD_FAILURE() << "deep JSON accepted";
        } catch (const FormatError& e) {
            EXPECT_EQ(e.kind(), FormatErrorKind::BadJson);
            EXPECT_NE(std::string(e.what()).find("nested deeper than 64"), std::string::npos) << e.what();
        }
    }
    // The bound itself: 64 levels pass the check (and fail later for their shape), 65 do not; brackets inside
    // strings, escaped quotes included, do not count.
    const std::string at64 = std::string(64, '[') + std::string(64, ']');
    EXPECT_NO_THROW(formats::check_json_depth(at64, "x"));
    EXPECT_THROW(formats::check_json_depth("[" + at64 + "]", "x"), FormatError);
    EXPECT_NO_THROW(formats::check_json_depth("[\"" + std::string(100, '[') + "\\\"" + std::string(100, '{') + "\"]", "x"));
    // A field of the wrong type is described, not serialised.
    const std::string vk = "{\"protocol\": " + std::string(60, '[') + std::string(60, ']') + "}";
    try {
        formats::snarkjs::parse_verification_key_json(vk);
        ADD_FAILURE() << "a bad protocol was accepted";
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("is a JSON array"), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find("[["), std::string::npos) << e.what();
    }
}
