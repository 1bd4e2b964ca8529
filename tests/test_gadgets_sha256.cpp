// bellperson's SHA-256 gadget, UInt32 and MultiEq (src/cuzk/gadgets/) against OpenSSL and native arithmetic, with
// the constraint counts of bellperson's own tests pinned (they pin the algorithm: the same rows as Filecoin's
// parameter files encode), and the same shape through the key generator, the prover and the witness-only system.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <map>
#include <memory>
#include <random>

#include "r1cs_checks.hpp"
#include "seeded_rng.hpp"
#include "cuzk/r1cs/canonical.hpp"
#include "cuzk/gadgets/boolean.hpp"
#include "cuzk/gadgets/multieq.hpp"
#include "cuzk/gadgets/sha256.hpp"
#include "cuzk/gadgets/uint32.hpp"
#include "cuzk/r1cs/keygen_assembly.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/r1cs/test_cs.hpp"
#include "cuzk/r1cs/witness_assignment.hpp"

using namespace cuzk;
using namespace cuzk::gadgets;
using r1cs::KeygenAssembly;
using r1cs::ProvingAssignment;
using r1cs::TestConstraintSystem;
using r1cs::WitnessAssignment;

namespace {
using cuzk::testing::seeded_rng;
using cuzk::testing::test_seed;

// Each input bit as its own AllocatedBit (one booleanity row each), big-endian within bytes, as bellperson's tests.
template <class CS>
std::vector<Boolean> alloc_bytes_be(CS& cs, const std::vector<uint8_t>& data) {
    std::vector<Boolean> bits;
    for (size_t i = 0; i < data.size(); i++)
        for (int j = 7; j >= 0; j--)
            bits.push_back(AllocatedBit::alloc(
                cs, [i, j] { return "input bit " + std::to_string(i) + " " + std::to_string(j); },
                bool((data[i] >> j) & 1)));
    return bits;
}

std::array<uint8_t, 32> openssl_sha256(const std::vector<uint8_t>& data) {
    std::array<uint8_t, 32> out{};
    unsigned len = 0;
    EXPECT_EQ(EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_sha256(), nullptr), 1);
    return out;
}

std::vector<uint8_t> random_bytes(std::mt19937_64& rng, size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = (uint8_t)rng();
    return v;
}

// Flips aux variable `i` (0 <-> 1) and returns the name of the first failing row (restores the value).
std::optional<std::string> flip_and_check(TestConstraintSystem& cs, size_t i) {
    Fr old = cs.aux()[i];
    cs.set_aux(i, old.is_zero() ? Fr::one() : Fr::zero());
    auto bad = cs.which_is_unsatisfied();
    cs.set_aux(i, old);
    return bad;
}

// The SHA-256 of the system's canonical rows (r1cs/canonical.hpp, what `cuzk filecoin r1cs --digest` prints).
std::string canonical_r1cs_digest(const TestConstraintSystem& cs) {
    static const char* d = "0123456789abcdef";
    std::string s;
    for (uint8_t x : r1cs::canonical_digest(cs)) s += d[x >> 4], s += d[x & 15];
    return s;
}

std::string hex(std::span<const uint8_t> b) {
    static const char* d = "0123456789abcdef";
    std::string s;
    for (uint8_t x : b) s += d[x >> 4], s += d[x & 15];
    return s;
}
}  // namespace

// ---- SHA-256: bellperson's pinned counts ------------------------------------------------------------------------

TEST(GadgetsSha256, BlankHashIsFreeAndCorrect) {
    // bellperson test_blank_hash: the empty message's padded block, all constant, through one compression.
    TestConstraintSystem cs;
    std::vector<Boolean> block(512, Boolean::constant(false));
    block[0] = Boolean::constant(true);
    auto out = detail::state_bits_be(sha256_compression_function(cs, "sha256", block, sha256_iv()));
    EXPECT_EQ(cs.num_constraints(), 0u);
    EXPECT_EQ(cs.num_aux(), 0u);
    auto d = sha256_digest_bytes(out);
    ASSERT_TRUE(d);
    EXPECT_EQ(hex(*d), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(GadgetsSha256, FullBlockIs25840) {
    // bellperson test_full_block: 512 allocated input bits, constant IV, one compression.
    auto rng = seeded_rng("FullBlockIs25840");
    auto data = random_bytes(rng, 64);
    TestConstraintSystem cs;
    auto bits = alloc_bytes_be(cs, data);
    ASSERT_EQ(cs.num_constraints(), 512u);
    auto out = sha256_block_no_padding(cs, "sha256", bits);
    EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
    EXPECT_EQ(cs.num_constraints() - 512, 25840u);
    // Every variable is a bit defined by one row of its own; the 26 MultiEq rows define none.
    EXPECT_EQ(cs.num_aux(), 512u + 25840u - 26u);
    // Regression pin of the whole R1CS (this implementation's, reviewed against bellperson's code; not a digest
    // computed by bellperson): a change of any row's per-variable coefficients shows here.
    EXPECT_EQ(canonical_r1cs_digest(cs), "c3aad703bee8dd62fff0caedddced504777d9782fea7681d322321a99feeaaea");

    // Native check: one compression from the IV is SHA-256 of nothing but the state; compare via the full hash of
    // the 64 bytes, whose first compression this is (the second block is padding), computed next.
    TestConstraintSystem cs2;
    auto bits2 = alloc_bytes_be(cs2, data);
    auto digest = sha256(cs2, "sha256", bits2);
    EXPECT_TRUE(cs2.is_satisfied());
    // bellperson test_full_hash: 512 allocated bits through `sha256` (2 blocks, the second all padding).
    EXPECT_EQ(cs2.num_constraints() - 512, 44874u);
    auto d = sha256_digest_bytes(digest);
    ASSERT_TRUE(d);
    EXPECT_EQ(*d, openssl_sha256(data));
    (void)out;
}

TEST(GadgetsSha256, MatchesOpenSslOnRandomMessages) {
    // As bellperson's test_against_vectors (lengths 0..31 and multiples of 8 up to 255 bytes; here a sample with
    // every padding case: one block, a padding-only extra block, several blocks). Synthesized by the prover's
    // system, which is fast; every row is checked (a * b = c).
    auto rng = seeded_rng("MatchesOpenSslOnRandomMessages");
    for (size_t len : {0u, 1u, 3u, 8u, 31u, 32u, 55u, 56u, 63u, 64u, 65u, 119u, 120u, 128u, 200u, 255u}) {
        auto data = random_bytes(rng, len);
        ProvingAssignment pa;
        pa.alloc_input("one", [] { return Fr::one(); });
        auto bits = alloc_bytes_be(pa, data);
        auto digest = sha256(pa, "sha256", bits);
        EXPECT_EQ(cuzk::testing::unsatisfied_rows(pa), 0u) << "len " << len;
        auto d = sha256_digest_bytes(digest);
        ASSERT_TRUE(d);
        EXPECT_EQ(hex(*d), hex(openssl_sha256(data))) << "len " << len;
    }
}

TEST(GadgetsSha256, ConstantInputHashesWithoutRows) {
    auto rng = seeded_rng("ConstantInputHashesWithoutRows");
    auto data = random_bytes(rng, 100);
    std::vector<Boolean> bits;
    for (uint8_t byte : data)
        for (int j = 7; j >= 0; j--) bits.push_back(Boolean::constant((byte >> j) & 1));
    TestConstraintSystem cs;
    auto digest = sha256(cs, "sha256", bits);
    EXPECT_EQ(cs.num_constraints(), 0u);
    EXPECT_EQ(*sha256_digest_bytes(digest), openssl_sha256(data));
}

TEST(GadgetsSha256, TamperedBitIsNamed) {
    // Flipping an internal bit must break a named row; flipping an input bit breaks its own booleanity-free
    // consequences (the schedule's xors), never passes silently.
    auto rng = seeded_rng("TamperedBitIsNamed");
    auto data = random_bytes(rng, 64);
    TestConstraintSystem cs;
    auto bits = alloc_bytes_be(cs, data);
    sha256_block_no_padding(cs, "sha256", bits);
    ASSERT_TRUE(cs.is_satisfied());
    for (int k = 0; k < 50; k++) {
        size_t i = rng() % cs.num_aux();
        auto bad = flip_and_check(cs, i);
        ASSERT_TRUE(bad.has_value()) << "flipping " << cs.aux_names()[i] << " went unnoticed";
    }
    // A specific one: a result bit of the last addition feeds nothing but the last merged equality.
    auto it = std::find(cs.aux_names().begin(), cs.aux_names().end(), "sha256/new h7/result bit 0/boolean");
    ASSERT_NE(it, cs.aux_names().end());
    auto bad = flip_and_check(cs, it - cs.aux_names().begin());
    ASSERT_TRUE(bad);
    EXPECT_EQ(*bad, "sha256/multieq " + std::to_string(25u)) << "the final row of 26";
}

TEST(GadgetsSha256, ChainedCompressionFromAllocatedState) {
    // A compression whose incoming state is allocated (not the IV), as every block after the first: the result
    // equals the native two-block hash.
    auto rng = seeded_rng("ChainedCompressionFromAllocatedState");
    auto data = random_bytes(rng, 100);  // 2 blocks with padding
    TestConstraintSystem cs;
    auto bits = alloc_bytes_be(cs, data);
    auto digest = sha256(cs, "h", bits);
    ASSERT_TRUE(cs.is_satisfied());
    EXPECT_EQ(*sha256_digest_bytes(digest), openssl_sha256(data));
}

// ---- The three systems agree -------------------------------------------------------------------------------------

namespace {
template <class CS>
std::vector<Boolean> sha_circuit(CS& cs, const std::vector<uint8_t>* data, size_t nbytes) {
    std::vector<Boolean> bits;
    for (size_t i = 0; i < nbytes; i++)
        for (int j = 7; j >= 0; j--) {
            std::optional<bool> v;
            if (data) v = bool(((*data)[i] >> j) & 1);
            bits.push_back(AllocatedBit::alloc(
                cs, [i, j] { return "in " + std::to_string(8 * i + j); }, v));
        }
    return sha256(cs, "sha256", bits);
}
}  // namespace

TEST(GadgetsSha256, ThreeSystemsAgree) {
    auto rng = seeded_rng("GadgetsSha256.ThreeSystemsAgree");
    const size_t n = 80;
    auto data = random_bytes(rng, n);

    TestConstraintSystem tcs;
    sha_circuit(tcs, &data, n);
    ASSERT_TRUE(tcs.is_satisfied());

    KeygenAssembly kg;
    kg.alloc_input("one", [] { return Fr::one(); });
    sha_circuit(kg, nullptr, n);
    EXPECT_EQ(kg.num_constraints(), tcs.num_constraints());
    EXPECT_EQ(kg.num_aux(), tcs.num_aux());
    // Term for term, the key generator's rows are the test system's.
    EXPECT_EQ(cuzk::testing::rows_differing(kg, tcs), 0u);

    ProvingAssignment pa;
    pa.alloc_input("one", [] { return Fr::one(); });
    auto digest = sha_circuit(pa, &data, n);
    EXPECT_EQ(*sha256_digest_bytes(digest), openssl_sha256(data));
    ASSERT_EQ(pa.num_constraints(), tcs.num_constraints());
    EXPECT_EQ(pa.aux(), tcs.aux());
    EXPECT_EQ(cuzk::testing::unsatisfied_rows(pa), 0u);

    WitnessAssignment wa;
    wa.alloc_input("one", [] { return Fr::one(); });
    auto wdigest = sha_circuit(wa, &data, n);
    EXPECT_EQ(wa.aux(), tcs.aux());
    EXPECT_EQ(*sha256_digest_bytes(wdigest), openssl_sha256(data));
}

// ---- The witness-only path (sha256_witness.hpp) against the gadget --------------------------------------------

namespace {
// A Boolean for a random bit: constant, a fresh bit, or the negation of a fresh bit (allocated in `cs`), with the
// given chances of the first and the last.
Boolean random_boolean(WitnessAssignment& cs, std::mt19937_64& rng, double p_const, double p_not) {
    std::uniform_real_distribution<double> u(0, 1);
    const bool v = rng() & 1;
    if (u(rng) < p_const) return Boolean::constant(v);
    const bool negate = u(rng) < p_not;
    AllocatedBit bit = AllocatedBit::alloc(cs, "in", negate ? !v : v);
    return negate ? Boolean::not_of(bit) : Boolean::is(bit);
}

// One random shape of block and state, built the same way in `cs` from `seed`.
struct ShaCase {
    std::vector<Boolean> block;
    std::array<UInt32, 8> state;
};
ShaCase random_case(WitnessAssignment& cs, uint64_t seed) {
    std::mt19937_64 rng(seed);
    static constexpr double kConst[] = {0.0, 0.05, 0.5, 0.95, 1.0};
    static constexpr double kNot[] = {0.0, 0.3, 1.0};
    ShaCase c;
    const double pc = kConst[rng() % 5], pn = kNot[rng() % 3];
    for (int w = 0; w < 16; w++) {
        // Some words entirely constant or entirely allocated, as message and padding words are.
        const int mode = (int)(rng() % 4);
        const double p = mode == 0 ? 1.0 : mode == 1 ? 0.0 : pc;
        for (int j = 0; j < 32; j++) c.block.push_back(random_boolean(cs, rng, p, pn));
    }
    const int state_mode = (int)(rng() % 3);  // the IV, allocated words, or a mix of kinds
    for (int j = 0; j < 8; j++) {
        if (state_mode == 0) {
            c.state[j] = UInt32::constant(kSha256Iv[j]);
            continue;
        }
        std::array<Boolean, 32> bits;
        for (auto& b : bits) b = random_boolean(cs, rng, state_mode == 1 ? 0.0 : pc, pn);
        c.state[j] = UInt32::from_bits(bits);
    }
    return c;
}

// Same kind, value and (for allocated bits) variable.
void expect_same_words(const std::array<UInt32, 8>& a, const std::array<UInt32, 8>& b, uint64_t seed) {
    for (int w = 0; w < 8; w++)
        for (int j = 0; j < 32; j++) {
            const Boolean& x = a[w].bits_le()[j];
            const Boolean& y = b[w].bits_le()[j];
            ASSERT_EQ(x.kind(), y.kind()) << "case " << seed << " word " << w << " bit " << j;
            ASSERT_EQ(x.value(), y.value()) << "case " << seed << " word " << w << " bit " << j;
            if (!x.is_constant()) {
                ASSERT_EQ(x.bit().variable(), y.bit().variable()) << "case " << seed;
            }
        }
}
}  // namespace

TEST(GadgetsSha256, WitnessPathAllocatesWhatTheGadgetDoes) {
    // Random blocks and states of constant, allocated and negated bits (the masks' every case), one compression
    // each through the gadget and through the word-level witness path, then a second compression from each one's
    // output (an allocated state): the same aux values in the same order and the same output Booleans.
    auto rng = seeded_rng("GadgetsSha256.WitnessPathAllocatesWhatTheGadgetDoes");
    for (int t = 0; t < 120; t++) {
        const uint64_t seed = rng();
        WitnessAssignment ga, wa;
        ShaCase gc = random_case(ga, seed), wc = random_case(wa, seed);
        ASSERT_EQ(ga.aux(), wa.aux());
        const auto g1 = detail::sha256_compression_gadget(ga, gc.block, gc.state);
        const auto w1 = detail::WitnessSha256<WitnessAssignment>(wa).compress(wc.block, wc.state);
        ASSERT_TRUE(w1);
        ASSERT_EQ(ga.aux().size(), wa.aux().size()) << "case " << seed;
        ASSERT_EQ(ga.aux(), wa.aux()) << "case " << seed;
        expect_same_words(g1, *w1, seed);
        const auto g2 = detail::sha256_compression_gadget(ga, gc.block, g1);
        const auto w2 = detail::WitnessSha256<WitnessAssignment>(wa).compress(wc.block, *w1);
        ASSERT_TRUE(w2);
        ASSERT_EQ(ga.aux(), wa.aux()) << "case " << seed;
        expect_same_words(g2, *w2, seed);
    }
}

TEST(GadgetsSha256, WitnessPathLeavesMissingValuesToTheGadget) {
    // A block bit with no value: the word-level path allocates nothing and declines, and the gadget reports it.
    WitnessAssignment wa;
    std::vector<Boolean> block(512, Boolean::constant(false));
    for (int i = 0; i < 512; i += 3) block[i] = AllocatedBit::alloc(wa, "in", true);
    block[100] = Boolean(AllocatedBit(r1cs::Variable::aux(0), std::nullopt));
    const size_t before = wa.aux().size();
    EXPECT_FALSE(detail::WitnessSha256<WitnessAssignment>(wa).compress(block, sha256_iv()));
    EXPECT_EQ(wa.aux().size(), before);
    try {
        (void)sha256_compression_function(wa, "sha256", block, sha256_iv());
        FAIL() << "a missing value was not reported";
    } catch (const r1cs::SynthesisError& e) {
        EXPECT_EQ(e.kind(), r1cs::SynthesisErrorKind::AssignmentMissing);
    }
}

// ---- UInt32 and MultiEq ------------------------------------------------------------------------------------------

TEST(GadgetsUInt32, BitsRotateShift) {
    auto rng = seeded_rng("GadgetsUInt32.BitsRotateShift");
    for (int t = 0; t < 200; t++) {
        uint32_t v = (uint32_t)rng();
        UInt32 a = UInt32::constant(v);
        for (unsigned i = 0; i < 64; i++) {
            EXPECT_EQ(a.rotr(i).value(), std::optional<uint32_t>(std::rotr(v, (int)(i % 32))));
            UInt32 s = a.shr(i);
            EXPECT_EQ(s.value(), std::optional<uint32_t>(v >> (i % 32)));  // bellperson: the shift is mod 32
            for (int k = 0; k < 32; k++)
                EXPECT_EQ(s.bits_le()[k].value(), std::optional<bool>((v >> (i % 32) >> k) & 1));
        }
        auto be = a.to_bits_be();
        EXPECT_EQ(UInt32::from_bits_be(be).value(), std::optional<uint32_t>(v));
        EXPECT_EQ(UInt32::from_bits(a.to_bits_le()).value(), std::optional<uint32_t>(v));
        EXPECT_EQ(be[0].value(), std::optional<bool>(v >> 31));
    }
}

TEST(GadgetsUInt32, XorChMajAgainstNative) {
    auto rng = seeded_rng("GadgetsUInt32.XorChMajAgainstNative");
    for (int t = 0; t < 30; t++) {
        uint32_t x = (uint32_t)rng(), y = (uint32_t)rng(), z = (uint32_t)rng();
        TestConstraintSystem cs;
        UInt32 a = UInt32::alloc(cs, "a", x);
        UInt32 b = t % 3 == 0 ? UInt32::constant(y) : UInt32::alloc(cs, "b", y);
        UInt32 c = t % 5 == 0 ? UInt32::constant(z) : UInt32::alloc(cs, "c", z);
        EXPECT_EQ(a.xor_(cs, "xor", b).value(), std::optional<uint32_t>(x ^ y));
        UInt32 ch = UInt32::sha256_ch(cs, "ch", a, b, c);
        UInt32 maj = UInt32::sha256_maj(cs, "maj", a, b, c);
        ASSERT_TRUE(cs.is_satisfied());
        EXPECT_EQ(ch.value(), std::optional<uint32_t>((x & y) ^ (~x & z)));
        EXPECT_EQ(maj.value(), std::optional<uint32_t>((x & y) ^ (x & z) ^ (y & z)));
        for (int k = 0; k < 32; k++) {
            EXPECT_EQ(ch.bits_le()[k].value(), std::optional<bool>((((x & y) ^ (~x & z)) >> k) & 1));
            EXPECT_EQ(maj.bits_le()[k].value(), std::optional<bool>((((x & y) ^ (x & z) ^ (y & z)) >> k) & 1));
        }
    }
}

TEST(GadgetsUInt32, AddmanyConstantsAreFree) {
    // bellperson test_uint32_addmany_constants.
    auto rng = seeded_rng("GadgetsUInt32.AddmanyConstantsAreFree");
    for (int t = 0; t < 100; t++) {
        uint32_t a = (uint32_t)rng(), b = (uint32_t)rng(), c = (uint32_t)rng();
        TestConstraintSystem cs;
        UInt32 r;
        {
            MultiEq<TestConstraintSystem> meq(cs);
            const std::array<UInt32, 3> ops = {UInt32::constant(a), UInt32::constant(b), UInt32::constant(c)};
            r = UInt32::addmany(cs, meq, "addition", std::span<const UInt32>(ops));
        }
        EXPECT_EQ(r.value(), std::optional<uint32_t>(a + b + c));
        for (const Boolean& bit : r.bits_le()) EXPECT_TRUE(bit.is_constant());
        EXPECT_EQ(cs.num_constraints(), 0u);
    }
}

TEST(GadgetsUInt32, AddmanyAllocatesTheFullSumAndOneMergedRow) {
    // bellperson test_uint32_addmany: (a xor b) + c + d, b and c constant; then a flipped result bit breaks the
    // merged equality.
    auto rng = seeded_rng("GadgetsUInt32.AddmanyAllocatesTheFullSumAndOneMergedRow");
    for (int t = 0; t < 100; t++) {
        uint32_t a = (uint32_t)rng(), b = (uint32_t)rng(), c = (uint32_t)rng(), d = (uint32_t)rng();
        TestConstraintSystem cs;
        UInt32 av = UInt32::alloc(cs, "a_bit", a);
        UInt32 dv = UInt32::alloc(cs, "d_bit", d);
        UInt32 x = av.xor_(cs, "xor", UInt32::constant(b));
        EXPECT_EQ(cs.num_constraints(), 64u);  // xor with a constant folds
        UInt32 r;
        {
            MultiEq<TestConstraintSystem> meq(cs);
            const std::array<UInt32, 3> ops = {x, UInt32::constant(c), dv};
            r = UInt32::addmany(cs, meq, "addition", std::span<const UInt32>(ops));
        }
        // 3 operands: bit_length(3 * (2^32 - 1)) = 34 result bits, plus the one MultiEq row.
        EXPECT_EQ(cs.num_constraints(), 64u + 34 + 1);
        ASSERT_TRUE(cs.is_satisfied());
        uint32_t expect = (a ^ b) + c + d;
        EXPECT_EQ(r.value(), std::optional<uint32_t>(expect));
        for (int k = 0; k < 32; k++) EXPECT_EQ(r.bits_le()[k].value(), std::optional<bool>((expect >> k) & 1));
        auto it = std::find(cs.aux_names().begin(), cs.aux_names().end(), "addition/result bit 0/boolean");
        ASSERT_NE(it, cs.aux_names().end());
        EXPECT_EQ(flip_and_check(cs, it - cs.aux_names().begin()), std::optional<std::string>("multieq 0"));
    }
}

TEST(GadgetsUInt32, AddmanyWidthsFollowOperandCount) {
    // bit_length(n * (2^32 - 1)) result bits whatever the operands' values.
    const std::pair<size_t, size_t> widths[] = {{2, 33}, {3, 34}, {4, 34}, {5, 35}, {8, 35}, {9, 36}, {10, 36}};
    for (auto [n, bits] : widths) {
        TestConstraintSystem cs;
        std::vector<UInt32> ops;
        for (size_t i = 0; i < n; i++)
            ops.push_back(UInt32::alloc(
                cs, [i] { return "op " + std::to_string(i); }, 0u));
        size_t before = cs.num_constraints();
        MultiEq<TestConstraintSystem> meq(cs);
        UInt32::addmany(cs, meq, "sum", std::span<const UInt32>(ops));
        EXPECT_EQ(cs.num_constraints() - before, bits) << n;
        meq.finish();
        EXPECT_EQ(cs.num_constraints() - before, bits + 1) << n;
        EXPECT_TRUE(cs.is_satisfied());
    }
}

TEST(GadgetsMultiEq, MergesUntilCapacity) {
    // 34-bit equalities: 7 fit below 254 bits (238), the 8th starts a new row, emitted when the 8th arrives.
    auto rng = seeded_rng("GadgetsMultiEq.MergesUntilCapacity");
    TestConstraintSystem cs;
    MultiEq<TestConstraintSystem> meq(cs);
    std::vector<size_t> rows_after;
    for (int k = 0; k < 15; k++) {
        uint32_t x = (uint32_t)rng(), y = (uint32_t)rng(), z = (uint32_t)rng();
        std::string nm = "add " + std::to_string(k);
        UInt32 a = UInt32::alloc(cs, nm + " a", x), b = UInt32::alloc(cs, nm + " b", y),
               c = UInt32::alloc(cs, nm + " c", z);
        const std::array<UInt32, 3> ops = {a, b, c};
        UInt32 s = UInt32::addmany(cs, meq, nm, std::span<const UInt32>(ops));
        EXPECT_EQ(s.value(), std::optional<uint32_t>(x + y + z));
        rows_after.push_back(meq.rows_emitted());
    }
    meq.finish();
    EXPECT_EQ(rows_after[6], 0u);
    EXPECT_EQ(rows_after[7], 1u);
    EXPECT_EQ(rows_after[13], 1u);
    EXPECT_EQ(rows_after[14], 2u);
    EXPECT_EQ(meq.rows_emitted(), 3u);
    EXPECT_TRUE(cs.is_satisfied());
    // The generic interface: a wrong equality is caught in its merged row.
    {
        r1cs::Namespace<TestConstraintSystem> ns(cs, "second");
        MultiEq<TestConstraintSystem> meq2(cs);
        Variable v = cs.alloc("v", [] { return Fr::from_u64(5); });
        meq2.enforce_equal(3, LC(v), LC().add(Fr::from_u64(6), Variable::one()));
        meq2.finish();
    }
    EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("second/multieq 0"));
}
