// Bit gadgets, 32-bit words and SHA-256 against native code and OpenSSL, with their constraint counts pinned.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <random>

#include "cuzk/circuits/standin/boolean.hpp"
#include "cuzk/circuits/standin/sha256.hpp"
#include "cuzk/circuits/standin/uint32.hpp"
#include "cuzk/r1cs/keygen_assembly.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/r1cs/test_cs.hpp"

using namespace cuzk;
using namespace cuzk::standin;
using r1cs::KeygenAssembly;
using r1cs::ProvingAssignment;
using r1cs::TestConstraintSystem;

namespace {
std::mt19937_64 fresh_rng() { return std::mt19937_64(((uint64_t)std::random_device{}() << 32) | std::random_device{}()); }

// Flips aux variable `v` (0 <-> 1) and reports whether the system then fails; restores it.
bool flip_is_caught(TestConstraintSystem& cs, Variable v) {
    Fr old = cs.aux()[v.index()];
    cs.set_aux(v.index(), old.is_zero() ? Fr::one() : Fr::zero());
    bool caught = !cs.is_satisfied();
    cs.set_aux(v.index(), old);
    return caught;
}

Boolean make(TestConstraintSystem& cs, const std::string& name, int kind, bool v) {
    // kind 0: constant, 1: allocated, 2: negation of an allocated bit
    if (kind == 0) return Boolean::constant(v);
    if (kind == 1) return AllocatedBit::alloc(cs, name, v);
    return Boolean(AllocatedBit::alloc(cs, name, !v)).not_();
}

std::vector<Boolean> alloc_bytes_be(TestConstraintSystem& cs, const std::vector<uint8_t>& data) {
    std::vector<Boolean> bits;
    for (size_t i = 0; i < data.size(); i++)
        for (int j = 7; j >= 0; j--)
            bits.push_back(AllocatedBit::alloc(cs, [&] { return "in " + std::to_string(8 * i + 7 - j); },
                                               bool((data[i] >> j) & 1)));
    return bits;
}

std::array<uint8_t, 32> openssl_sha256(const std::vector<uint8_t>& data) {
    std::array<uint8_t, 32> out{};
    unsigned len = 0;
    EXPECT_EQ(EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_sha256(), nullptr), 1);
    EXPECT_EQ(len, 32u);
    return out;
}

std::array<uint8_t, 32> digest_of(const std::vector<Boolean>& bits) {
    auto d = sha256_digest_bytes(bits);
    EXPECT_TRUE(d.has_value()) << "every digest bit has a value";
    return d.value_or(std::array<uint8_t, 32>{});
}
}  // namespace

TEST(StandinBoolean, AllocatedBitIsConstrained) {
    TestConstraintSystem cs;
    AllocatedBit b = AllocatedBit::alloc(cs, "b", true);
    EXPECT_EQ(cs.num_constraints(), 1u);
    EXPECT_TRUE(cs.is_satisfied());
    EXPECT_EQ(cs.get("b/bit"), Fr::one());
    cs.set_aux(b.variable().index(), Fr::zero());
    EXPECT_TRUE(cs.is_satisfied());
    cs.set_aux(b.variable().index(), Fr::from_u64(2));
    EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("b/boolean"));
}

TEST(StandinBoolean, OperatorsMatchTruthTablesAndCounts) {
    // Every pair / triple of operand kinds and values: the result's value, satisfaction, and the count, which is
    // 1 for and/or/xor/ch of allocated operands, 2 for maj of three allocated, and 0 whenever a constant decides.
    for (int ka = 0; ka < 3; ka++)
        for (int kb = 0; kb < 3; kb++)
            for (int va = 0; va < 2; va++)
                for (int vb = 0; vb < 2; vb++) {
                    struct Op {
                        const char* name;
                        bool expect;
                    };
                    for (Op op : {Op{"and", va && vb}, Op{"or", va || vb}, Op{"xor", va != vb}}) {
                        TestConstraintSystem cs;
                        Boolean a = make(cs, "a", ka, va), b = make(cs, "b", kb, vb);
                        size_t before = cs.num_constraints();
                        Boolean r = std::string(op.name) == "and" ? Boolean::and_(cs, "op", a, b)
                                    : std::string(op.name) == "or" ? Boolean::or_(cs, "op", a, b)
                                                                   : Boolean::xor_(cs, "op", a, b);
                        ASSERT_EQ(r.value(), std::optional<bool>(op.expect)) << op.name << ka << kb << va << vb;
                        EXPECT_TRUE(cs.is_satisfied());
                        size_t expect_count = (ka && kb) ? 1 : 0;
                        EXPECT_EQ(cs.num_constraints() - before, expect_count) << op.name << ka << kb;
                        if (!r.is_constant() && expect_count == 1) {
                            EXPECT_TRUE(flip_is_caught(cs, r.bit().variable()));
                        }
                    }
                }
    for (int kinds = 0; kinds < 27; kinds++)
        for (int vals = 0; vals < 8; vals++) {
            int ka = kinds % 3, kb = kinds / 3 % 3, kc = kinds / 9;
            bool va = vals & 1, vb = vals & 2, vc = vals & 4;
            for (int which = 0; which < 2; which++) {
                TestConstraintSystem cs;
                Boolean a = make(cs, "a", ka, va), b = make(cs, "b", kb, vb), c = make(cs, "c", kc, vc);
                size_t before = cs.num_constraints();
                Boolean r = which == 0 ? Boolean::maj(cs, "maj", a, b, c) : Boolean::ch(cs, "ch", a, b, c);
                bool expect = which == 0 ? (va + vb + vc >= 2) : (va ? vb : vc);
                ASSERT_EQ(r.value(), std::optional<bool>(expect)) << which << kinds << vals;
                EXPECT_TRUE(cs.is_satisfied());
                size_t n = cs.num_constraints() - before;
                int allocated = (ka != 0) + (kb != 0) + (kc != 0);
                if (which == 0) {
                    EXPECT_EQ(n, allocated == 3 ? 2u : allocated == 2 ? 1u : 0u);
                } else {
                    EXPECT_LE(n, 1u);
                }
                if (which == 1 && allocated == 3) {
                    EXPECT_EQ(n, 1u);
                }
                if (n > 0 && !r.is_constant()) {
                    EXPECT_TRUE(flip_is_caught(cs, r.bit().variable()));
                }
            }
        }
}

TEST(StandinBoolean, AddToLcFoldsNegationAndConstants) {
    TestConstraintSystem cs;
    Boolean t = AllocatedBit::alloc(cs, "t", true);
    Boolean f = AllocatedBit::alloc(cs, "f", false);
    std::vector<Fr> inputs = cs.inputs();
    Fr k = Fr::from_u64(7);
    LC lc;
    t.add_to_lc(lc, k);                          // 7
    f.not_().add_to_lc(lc, k);                   // 7 * (1 - 0)
    Boolean::constant(true).add_to_lc(lc, k);    // 7
    Boolean::constant(false).add_to_lc(lc, k);   // 0, and no term
    t.not_().add_to_lc(lc, k);                   // 0
    EXPECT_EQ(lc.evaluate(inputs, cs.aux()), Fr::from_u64(21));
    EXPECT_EQ(lc.size(), 6u);  // 1 + 2 + 1 + 0 + 2 terms: nothing but terms appended to the one combination
    EXPECT_EQ(f.not_().lc(k).evaluate(inputs, cs.aux()), k);
}

TEST(StandinBoolean, PackAndUnpack) {
    auto rng = fresh_rng();
    for (size_t n : {1u, 8u, 64u, 200u, 253u}) {
        TestConstraintSystem cs;
        std::vector<Boolean> bits;
        std::vector<bool> vals;
        for (size_t i = 0; i < n; i++) {
            vals.push_back(rng() & 1);
            int kind = (int)(rng() % 3);
            bits.push_back(make(cs, "b" + std::to_string(i), kind, vals.back()));
        }
        size_t before = cs.num_constraints();
        Variable x = pack_bits(cs, "pack", std::span<const Boolean>(bits));
        EXPECT_EQ(cs.num_constraints() - before, 1u);
        Fr expect = Fr::zero();
        for (size_t i = 0; i < n; i++)
            if (vals[i]) expect += pow2_table()[i];
        EXPECT_EQ(cs.aux()[x.index()], expect);
        EXPECT_TRUE(cs.is_satisfied());
        cs.set_aux(x.index(), expect + Fr::one());
        EXPECT_FALSE(cs.is_satisfied());
        cs.set_aux(x.index(), expect);

        // back to bits: n booleanity + 1 packing constraint, the same bits
        before = cs.num_constraints();
        auto back = to_bits_le(cs, "unpack", x, expect, n);
        EXPECT_EQ(cs.num_constraints() - before, n + 1);
        ASSERT_EQ(back.size(), n);
        for (size_t i = 0; i < n; i++) ASSERT_EQ(back[i].value(), std::optional<bool>(vals[i])) << i;
        EXPECT_TRUE(cs.is_satisfied());
        EXPECT_TRUE(flip_is_caught(cs, back[rng() % n].bit().variable()));
    }
    // A value wider than n bits cannot be unpacked into n bits.
    TestConstraintSystem cs;
    Fr v = Fr::from_u64(300);
    Variable x = cs.alloc("x", [&] { return v; });
    unpack(cs, "unpack", x, v, 8);
    EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("unpack/packing"));
}

TEST(StandinUInt32, RotShiftXorMatchNative) {
    auto rng = fresh_rng();
    for (int it = 0; it < 20; it++) {
        uint32_t x = (uint32_t)rng(), y = (uint32_t)rng();
        TestConstraintSystem cs;
        UInt32 a = UInt32::alloc(cs, "a", x);
        EXPECT_EQ(cs.num_constraints(), 32u);
        UInt32 b = UInt32::alloc(cs, "b", y);
        unsigned r = (unsigned)(rng() % 32);
        EXPECT_EQ(a.rotr(r).value(), std::rotr(x, (int)r));
        EXPECT_EQ(a.shr(r).value(), x >> r);
        size_t before = cs.num_constraints();
        UInt32 z = a.rotr(r).xor_(cs, "xor", b.shr(5));
        EXPECT_EQ(cs.num_constraints() - before, 27u);  // 5 shifted-in constant bits cost nothing
        EXPECT_EQ(z.value(), std::rotr(x, (int)r) ^ (y >> 5));
        EXPECT_TRUE(cs.is_satisfied());
        before = cs.num_constraints();
        UInt32 k = a.xor_(cs, "xor const", UInt32::constant(y));
        EXPECT_EQ(cs.num_constraints(), before);
        EXPECT_EQ(k.value(), x ^ y);
        // the value read back from the bits agrees with the tracked value
        EXPECT_EQ(UInt32::from_bits_be(z.to_bits_be()).value(), z.value());
        EXPECT_TRUE(flip_is_caught(cs, z.bits_le()[rng() % 27].bit().variable()));
    }
}

TEST(StandinUInt32, AddManyMatchesNativeAndCounts) {
    auto rng = fresh_rng();
    // n allocated words: bitlength(n * (2^32 - 1)) sum bits + one equality
    for (auto [n, expect] : {std::pair{2, 34u}, {3, 35u}, {5, 36u}}) {
        for (int it = 0; it < 10; it++) {
            TestConstraintSystem cs;
            std::vector<UInt32> ops;
            uint32_t sum = 0;
            for (int i = 0; i < n; i++) {
                uint32_t v = it == 0 ? 0xffffffffu : (uint32_t)rng();  // the largest carry first
                sum += v;
                ops.push_back(UInt32::alloc(cs, "op" + std::to_string(i), v));
            }
            size_t before = cs.num_constraints();
            UInt32 r = UInt32::add_many(cs, "add", std::span<const UInt32>(ops));
            EXPECT_EQ(cs.num_constraints() - before, expect) << n;
            EXPECT_EQ(r.value(), sum);
            EXPECT_TRUE(cs.is_satisfied());
            EXPECT_TRUE(flip_is_caught(cs, r.bits_le()[rng() % 32].bit().variable()));
        }
    }
    // Constant operands fold into the equation as one term: a constant word adds its value, not 2^32 - 1, to the
    // bound on the sum, and all-constant operands give a constant with no constraint.
    TestConstraintSystem cs;
    uint32_t x = (uint32_t)rng(), k = 0x10;
    std::vector<UInt32> ops = {UInt32::alloc(cs, "x", x), UInt32::constant(k)};
    size_t before = cs.num_constraints();
    UInt32 r = UInt32::add_many(cs, "add", std::span<const UInt32>(ops));
    EXPECT_EQ(cs.num_constraints() - before, 34u);  // 33 sum bits (x + 16 < 2^33) + 1
    EXPECT_EQ(r.value(), x + k);
    EXPECT_TRUE(cs.is_satisfied());
    std::vector<UInt32> consts = {UInt32::constant(x), UInt32::constant(k), UInt32::constant(~x)};
    before = cs.num_constraints();
    UInt32 c = UInt32::add_many(cs, "add const", std::span<const UInt32>(consts));
    EXPECT_EQ(cs.num_constraints(), before);
    EXPECT_TRUE(c.is_constant());
    EXPECT_EQ(c.value(), x + k + ~x);
}

namespace {
// One compression from the IV over 512 allocated bits; returns the state words.
template <class CS>
std::array<UInt32, 8> compress_allocated(CS& cs, const std::array<uint8_t, 64>& block) {
    std::vector<Boolean> bits;
    for (size_t i = 0; i < 512; i++) {
        std::optional<bool> v;
        if constexpr (CS::kNeedsValues) v = (block[i / 8] >> (7 - i % 8)) & 1;
        bits.push_back(AllocatedBit::alloc(cs, [i] { return "in " + std::to_string(i); }, v));
    }
    return sha256_compression(cs, "compress", std::span<const Boolean>(bits), sha256_iv());
}
}  // namespace

TEST(StandinSha256, CompressionMatchesNativeAndBeatsBellman) {
    auto rng = fresh_rng();
    std::array<uint8_t, 64> block;
    for (auto& b : block) b = (uint8_t)rng();
    TestConstraintSystem cs;
    auto out = compress_allocated(cs, block);
    // 512 input booleanity constraints + the compression (bellman's gadget: 25,840; see sha256.hpp)
    EXPECT_EQ(cs.num_constraints() - 512, 25773u);
    EXPECT_TRUE(cs.is_satisfied());
    std::array<uint32_t, 8> native = kSha256Iv;
    sha256_compress_native(native, block.data());
    for (int j = 0; j < 8; j++) EXPECT_EQ(out[j].value(), native[j]) << j;
    // A wrong output bit, and a wrong intermediate, are caught.
    EXPECT_TRUE(flip_is_caught(cs, out[3].bits_le()[17].bit().variable()));
    for (int t = 0; t < 5; t++) {
        size_t idx = 512 + rng() % (cs.num_aux() - 512);
        Variable v = Variable::aux((uint32_t)idx);
        EXPECT_TRUE(flip_is_caught(cs, v)) << "aux " << idx;
    }

    // The key generator and the prover see the same number of constraints (and the prover the same witness).
    KeygenAssembly kg;
    kg.alloc_input("one", [] { return Fr::one(); });  // input 0, as the test system has it
    compress_allocated(kg, block);
    EXPECT_EQ(kg.num_constraints(), cs.num_constraints());
    EXPECT_EQ(kg.num_aux(), cs.num_aux());
    ProvingAssignment pa;
    pa.alloc_input("one", [] { return Fr::one(); });
    compress_allocated(pa, block);
    EXPECT_EQ(pa.num_constraints(), cs.num_constraints());
    EXPECT_EQ(pa.aux(), cs.aux());
    for (size_t j = 0; j < pa.num_constraints(); j++) ASSERT_EQ(pa.a()[j] * pa.b()[j], pa.c()[j]) << j;
}

TEST(StandinSha256, ConstantBlockCostsNothing) {
    // The empty message's only block is all padding (constants): the digest comes out as constants.
    TestConstraintSystem cs;
    auto bits = sha256(cs, std::span<const Boolean>());
    EXPECT_EQ(cs.num_constraints(), 0u);
    EXPECT_EQ(digest_of(bits), openssl_sha256({}));
}

TEST(StandinSha256, FullHashMatchesOpenSsl) {
    auto rng = fresh_rng();
    // 55 bytes: the last that fits one block with its padding; 56 and 64 need a second (constant-only after 64);
    // 100: two blocks with message bits in both. Count: allocated input bits + per compression.
    struct Case {
        size_t len;
        size_t constraints;
    };
    for (Case c : {Case{0, 0}, Case{55, 25522}, Case{56, 44578}, Case{64, 44809}, Case{100, 51362}, Case{3, 24288},
                   Case{130, 76545}}) {
        std::vector<uint8_t> data(c.len);
        for (auto& b : data) b = (uint8_t)rng();
        TestConstraintSystem cs;
        auto in = alloc_bytes_be(cs, data);
        size_t before = cs.num_constraints();
        auto out = sha256(cs, std::span<const Boolean>(in));
        size_t n = cs.num_constraints() - before;
        EXPECT_TRUE(cs.is_satisfied()) << c.len;
        EXPECT_EQ(digest_of(out), openssl_sha256(data)) << c.len;
        EXPECT_EQ(n, c.constraints) << c.len << " bytes";
        if (c.len > 0) {
            EXPECT_TRUE(flip_is_caught(cs, in[rng() % in.size()].bit().variable())) << c.len;
        }
    }
}
