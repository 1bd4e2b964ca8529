// AllocatedNum against native field arithmetic, and Merkle inclusion proofs (binary SHA-256, arity-8 Poseidon)
// against native trees: roots agree, honest witnesses satisfy the system, wrong siblings / index bits / roots are
// caught, and the per-level constraint counts are pinned.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <random>
#include <string>
#include <vector>

#include "cuzk/circuits/standin/merkle.hpp"
#include "cuzk/circuits/standin/num.hpp"
#include "cuzk/r1cs/keygen_assembly.hpp"
#include "cuzk/r1cs/test_cs.hpp"

using namespace cuzk;
using namespace cuzk::standin;
using r1cs::KeygenAssembly;
using r1cs::TestConstraintSystem;

namespace {
std::mt19937_64 fresh_rng() { return std::mt19937_64(((uint64_t)std::random_device{}() << 32) | std::random_device{}()); }

Sha256Digest random_digest(std::mt19937_64& rng) {
    Sha256Digest d;
    for (auto& b : d) b = uint8_t(rng());
    return d;
}

Sha256Digest digest_of(const std::vector<Boolean>& bits) {
    auto d = sha256_digest_bytes(bits);
    EXPECT_TRUE(d.has_value()) << "every digest bit has a value";
    return d.value_or(Sha256Digest{});
}

// What a height-h SHA-256 verification costs on top of the per-level work: leaf and root bits (2 x 256 booleanity),
// the path (h x 256 sibling bits + h index bits, booleanity each) and the 2 root-equality constraints.
// 512 swap + 25,773 (data block) + 19,036 (constant padding block on a variable state) = 45,321 (see the test below).
constexpr size_t kSha256LevelConstraints = 45321;
size_t sha256_fixed_constraints(size_t h) { return 2 * 256 + h * 257 + 2; }

// One SHA-256 verification in a fresh test system; returns the computed root and leaves the system for inspection.
std::vector<Boolean> synthesize_sha256(TestConstraintSystem& cs, const Sha256Digest& leaf, const Sha256MerklePath& path,
                                       const Sha256Digest& root) {
    auto leaf_bits = alloc_sha256_digest(cs, "leaf", leaf);
    auto root_bits = alloc_sha256_digest(cs, "root", root);
    auto vars = alloc_sha256_path(cs, "path", path, path.siblings.size());
    // sha256_merkle_verify computes the same root; the root is also computed here to read its value back.
    std::vector<Boolean> computed;
    {
        r1cs::Namespace<TestConstraintSystem> ns(cs, "verify");
        computed = sha256_merkle_root(cs, "path", std::span<const Boolean>(leaf_bits),
                                      std::span<const std::vector<Boolean>>(vars.siblings),
                                      std::span<const Boolean>(vars.index_bits));
        enforce_equal_bits(cs, "root", std::span<const Boolean>(computed), std::span<const Boolean>(root_bits));
    }
    return computed;
}

Fr value_of(const TestConstraintSystem& cs, Variable v) { return v.is_input() ? cs.inputs()[v.index()] : cs.aux()[v.index()]; }
}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// AllocatedNum
// ---------------------------------------------------------------------------------------------------------------

TEST(StandinMerkleNum, ArithmeticMatchesNative) {
    auto rng = fresh_rng();
    for (int trial = 0; trial < 10; trial++) {
        TestConstraintSystem cs;
        Fr a = Fr::random(rng), b = Fr::random(rng);
        auto x = AllocatedNum::alloc(cs, "a", a);
        auto y = AllocatedNum::alloc_input(cs, "b", b);
        EXPECT_TRUE(x.variable().is_aux());
        EXPECT_TRUE(y.variable().is_input());
        EXPECT_EQ(cs.num_constraints(), 0u);  // allocation alone constrains nothing

        auto p = x.mul(cs, "mul", y);
        auto s = x.square(cs, "sq");
        auto pub = p.inputize(cs, "pub");
        EXPECT_EQ(cs.num_constraints(), 3u);  // one each: a*b = p, a*a = s, p*1 = pub
        EXPECT_EQ(*p.value(), a * b);
        EXPECT_EQ(*s.value(), a * a);
        EXPECT_EQ(value_of(cs, p.variable()), a * b);
        EXPECT_EQ(value_of(cs, s.variable()), a.square());
        EXPECT_TRUE(pub.variable().is_input());
        EXPECT_EQ(value_of(cs, pub.variable()), a * b);
        EXPECT_EQ(cs.get("pub/input"), a * b);
        EXPECT_TRUE(cs.is_satisfied());

        // A wrong product, a wrong square and a public copy that differs are each caught by their constraint.
        cs.set_aux(p.variable().index(), a * b + Fr::one());
        EXPECT_EQ(cs.which_is_unsatisfied(), "mul/multiplication");
        cs.set_aux(p.variable().index(), a * b);
        cs.set_aux(s.variable().index(), a * b);
        EXPECT_EQ(cs.which_is_unsatisfied(), "sq/squaring");
        cs.set_aux(s.variable().index(), a.square());
        EXPECT_TRUE(cs.is_satisfied());

        // enforce_equal: holds for a copy, fails for a different value.
        auto x2 = AllocatedNum::alloc(cs, "a copy", a);
        AllocatedNum::enforce_equal(cs, "a == copy", x, x2);
        EXPECT_TRUE(cs.is_satisfied());
        auto z = AllocatedNum::alloc(cs, "other", a + Fr::one());
        AllocatedNum::enforce_equal(cs, "a == other", x, z);
        EXPECT_EQ(cs.which_is_unsatisfied(), "a == other");
    }
}

TEST(StandinMerkleNum, ToBitsLeMatchesCanonicalBits) {
    auto rng = fresh_rng();
    for (size_t n : {1u, 64u, 200u, 254u}) {
        TestConstraintSystem cs;
        limbs_t<4> l{rng(), rng(), rng(), rng() & 0x0fffffffffffffffULL};  // below 2^252 < r
        Fr v = Fr::from_canonical_unchecked(l);
        if (n < 254) {  // keep v within n bits so the packing holds
            for (size_t i = n; i < 256; i++) l[i / 64] &= ~(uint64_t{1} << (i % 64));
            v = Fr::from_canonical_unchecked(l);
        }
        auto x = AllocatedNum::alloc(cs, "x", v);
        auto bits = x.to_bits_le(cs, "bits", n);
        ASSERT_EQ(bits.size(), n);
        EXPECT_EQ(cs.num_constraints(), n + 1);  // n booleanity + 1 packing
        for (size_t i = 0; i < n; i++) EXPECT_EQ(*bits[i].value(), bool((l[i / 64] >> (i % 64)) & 1)) << i;
        EXPECT_TRUE(cs.is_satisfied());
        // A value that does not fit: x + 2^n (n < 254) leaves the packing unsatisfied.
        if (n < 254) {
            cs.set_aux(x.variable().index(), v + pow2_table()[n]);
            EXPECT_EQ(cs.which_is_unsatisfied(), "bits/packing");
        }
    }
}

TEST(StandinMerkleNum, SelectAndSwapWithBothBitValues) {
    auto rng = fresh_rng();
    for (int kind = 0; kind < 3; kind++) {  // 0: allocated bit, 1: negated allocated bit, 2: constant
        for (bool bit : {false, true}) {
            TestConstraintSystem cs;
            Fr xv = Fr::random(rng), yv = Fr::random(rng);
            auto x = AllocatedNum::alloc(cs, "x", xv);
            auto y = AllocatedNum::alloc(cs, "y", yv);
            Boolean b = kind == 0   ? Boolean(AllocatedBit::alloc(cs, "b", bit))
                        : kind == 1 ? Boolean(AllocatedBit::alloc(cs, "b", !bit)).not_()
                                    : Boolean::constant(bit);
            size_t before = cs.num_constraints();
            auto sel = AllocatedNum::select(cs, "select", b, x, y);
            size_t after_select = cs.num_constraints();
            auto [first, second] = AllocatedNum::conditional_swap(cs, "swap", b, x, y);
            // A variable bit costs 1 per selection, a constant bit nothing.
            EXPECT_EQ(after_select - before, kind == 2 ? 0u : 1u);
            EXPECT_EQ(cs.num_constraints() - after_select, kind == 2 ? 0u : 2u);
            EXPECT_EQ(*sel.value(), bit ? yv : xv);
            EXPECT_EQ(value_of(cs, sel.variable()), bit ? yv : xv);
            EXPECT_EQ(value_of(cs, first.variable()), bit ? yv : xv);
            EXPECT_EQ(value_of(cs, second.variable()), bit ? xv : yv);
            EXPECT_TRUE(cs.is_satisfied());
            if (kind != 2) {
                // The other input in place of the selected one is caught (x != y with overwhelming probability).
                cs.set_aux(sel.variable().index(), bit ? xv : yv);
                EXPECT_EQ(cs.which_is_unsatisfied(), "select/selection");
                cs.set_aux(sel.variable().index(), bit ? yv : xv);
                cs.set_aux(second.variable().index(), bit ? yv : xv);
                EXPECT_EQ(cs.which_is_unsatisfied(), "swap/second/selection");
                cs.set_aux(second.variable().index(), bit ? xv : yv);
                // Flipping the bit itself (after the fact) breaks the selections that used it.
                Variable bv = b.bit().variable();
                cs.set_aux(bv.index(), value_of(cs, bv).is_zero() ? Fr::one() : Fr::zero());
                EXPECT_EQ(cs.which_is_unsatisfied(), "select/selection");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// SHA-256 binary tree
// ---------------------------------------------------------------------------------------------------------------

TEST(StandinMerkleSha256, NativeNodeIsSha256OfTheConcatenation) {
    auto rng = fresh_rng();
    for (int trial = 0; trial < 20; trial++) {
        Sha256Digest l = random_digest(rng), r = random_digest(rng);
        uint8_t data[64];
        std::memcpy(data, l.data(), 32);
        std::memcpy(data + 32, r.data(), 32);
        Sha256Digest expect{};
        unsigned len = 0;
        ASSERT_EQ(EVP_Digest(data, 64, expect.data(), &len, EVP_sha256(), nullptr), 1);
        EXPECT_EQ(sha256_node_native(l, r), expect);
    }
}

TEST(StandinMerkleSha256, NativeTreePathsLeadToTheRoot) {
    auto rng = fresh_rng();
    for (size_t h = 0; h <= 4; h++) {
        std::vector<Sha256Digest> leaves(size_t{1} << h);
        for (auto& l : leaves) l = random_digest(rng);
        Sha256MerkleTree tree(leaves);
        ASSERT_EQ(tree.height(), h);
        for (uint64_t i = 0; i < leaves.size(); i++) {
            auto p = tree.path(i);
            ASSERT_EQ(p.siblings.size(), h);
            EXPECT_EQ(Sha256MerkleTree::root_from_path(leaves[i], p), tree.root());
            if (h > 0) {  // another leaf at this position gives another root
                EXPECT_NE(Sha256MerkleTree::root_from_path(leaves[i ^ 1], p), tree.root());
            }
        }
    }
    // Height 2 spelled out: root = H(H(l0, l1), H(l2, l3)).
    std::vector<Sha256Digest> l(4);
    for (auto& d : l) d = random_digest(rng);
    Sha256MerkleTree t(l);
    EXPECT_EQ(t.root(), sha256_node_native(sha256_node_native(l[0], l[1]), sha256_node_native(l[2], l[3])));
    EXPECT_EQ(t.path(2).siblings[0], l[3]);
    EXPECT_EQ(t.path(2).siblings[1], sha256_node_native(l[0], l[1]));
    EXPECT_THROW(Sha256MerkleTree(std::vector<Sha256Digest>(3)), std::invalid_argument);
}

// Per level: 512 swap constraints (ch, one per output bit) + SHA-256 of the 64-byte left || right: the data block's
// compression, 25,773 (sha256.hpp's derivation), and the padding block's compression. PADDING_COMPRESSION is
// measured below on its own so that the per-level total is a sum of separately pinned parts.
TEST(StandinMerkleSha256, GadgetRootMatchesNativeHeights1To5) {
    auto rng = fresh_rng();
    size_t per_level = 0;
    for (size_t h = 1; h <= 5; h++) {
        std::vector<Sha256Digest> leaves(size_t{1} << h);
        for (auto& l : leaves) l = random_digest(rng);
        Sha256MerkleTree tree(leaves);
        uint64_t index = rng() % leaves.size();
        TestConstraintSystem cs;
        auto computed = synthesize_sha256(cs, leaves[index], tree.path(index), tree.root());
        EXPECT_EQ(digest_of(computed), tree.root()) << "height " << h;
        EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
        size_t levels = cs.num_constraints() - sha256_fixed_constraints(h);
        ASSERT_EQ(levels % h, 0u);
        if (h == 1) per_level = levels;
        EXPECT_EQ(levels, h * per_level) << "every level costs the same";
    }
    EXPECT_EQ(per_level, kSha256LevelConstraints);
}

// The per-level count split into its parts: SHA-256 of 64 allocated bytes alone is 25,773 + 19,036 = 44,809, so a
// level is that plus the 512 swap constraints. (The padding block's schedule is constant and free; its 64 rounds on
// the variable state are not: 19,036 = Sigma0/Sigma1/ch/maj over all 64 rounds plus the rounds' and the final
// state's carry bits, without the data block's 6,854 + 234 schedule constraints.)
TEST(StandinMerkleSha256, LevelCountIsSwapPlusTwoCompressions) {
    TestConstraintSystem cs;
    std::vector<Boolean> in;
    for (size_t i = 0; i < 512; i++) in.emplace_back(AllocatedBit::alloc(cs, [i] { return "in " + std::to_string(i); }, (i * 7 % 3) == 0));
    size_t before = cs.num_constraints();
    { r1cs::Namespace<TestConstraintSystem> ns(cs, "hash"); sha256(cs, std::span<const Boolean>(in)); }
    EXPECT_EQ(cs.num_constraints() - before, 25773u + 19036u);
    EXPECT_EQ(kSha256LevelConstraints, 512u + 25773u + 19036u);
    // The key generator, which never sees a value, builds the same number of constraints for a height-2 path.
    KeygenAssembly kg;
    auto leaf = alloc_sha256_digest(kg, "leaf", std::nullopt);
    auto root = alloc_sha256_digest(kg, "root", std::nullopt);
    auto path = alloc_sha256_path(kg, "path", std::nullopt, 2);
    sha256_merkle_verify(kg, "verify", std::span<const Boolean>(leaf), path, std::span<const Boolean>(root));
    EXPECT_EQ(kg.num_constraints(), sha256_fixed_constraints(2) + 2 * kSha256LevelConstraints);
}

// Wrong witnesses, each synthesized honestly (so every gadget constraint holds) except for the lie: a wrong sibling
// or a flipped index bit leads to another root, which the root equality catches; so does a wrong given root.
// A direction bit changed after synthesis (the swap outputs no longer follow it) is caught by the swap itself.
TEST(StandinMerkleSha256, WrongSiblingIndexOrRootIsCaught) {
    auto rng = fresh_rng();
    const size_t h = 3;
    std::vector<Sha256Digest> leaves(size_t{1} << h);
    for (auto& l : leaves) l = random_digest(rng);
    Sha256MerkleTree tree(leaves);
    uint64_t index = rng() % leaves.size();
    auto is_root_chunk = [](const std::optional<std::string>& n) {
        return n && n->rfind("verify/root/chunk ", 0) == 0;
    };
    for (size_t k = 0; k < h; k++) {
        auto p = tree.path(index);
        p.siblings[k][rng() % 32] ^= uint8_t(1 + rng() % 255);
        TestConstraintSystem cs;
        synthesize_sha256(cs, leaves[index], p, tree.root());
        auto bad = cs.which_is_unsatisfied();
        EXPECT_TRUE(is_root_chunk(bad)) << "sibling at level " << k << ": " << bad.value_or("(satisfied)");
    }
    for (size_t k = 0; k < h; k++) {
        auto p = tree.path(index);
        p.index ^= uint64_t{1} << k;
        TestConstraintSystem cs;
        synthesize_sha256(cs, leaves[index], p, tree.root());
        auto bad = cs.which_is_unsatisfied();
        EXPECT_TRUE(is_root_chunk(bad)) << "index bit " << k << ": " << bad.value_or("(satisfied)");
    }
    {
        Sha256Digest wrong = tree.root();
        wrong[rng() % 32] ^= 0x10;
        TestConstraintSystem cs;
        synthesize_sha256(cs, leaves[index], tree.path(index), wrong);
        auto bad = cs.which_is_unsatisfied();
        EXPECT_TRUE(is_root_chunk(bad)) << bad.value_or("(satisfied)");
    }
    {
        TestConstraintSystem cs;
        synthesize_sha256(cs, leaves[index], tree.path(index), tree.root());
        ASSERT_TRUE(cs.is_satisfied());
        auto d = cs.get("path/index/bit 1/bit");
        ASSERT_TRUE(d.has_value());
        // Find the variable by value path: index bits are allocated right after the siblings.
        size_t idx = 2 * 256 + h * 256 + 1;  // leaf, root, siblings, then index bit 0, bit 1
        ASSERT_EQ(cs.aux()[idx], *d);
        cs.set_aux(idx, d->is_zero() ? Fr::one() : Fr::zero());
        auto bad = cs.which_is_unsatisfied();
        ASSERT_TRUE(bad.has_value());
        EXPECT_EQ(bad->rfind("verify/path/level 1/swap/", 0), 0u) << *bad;
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Arity-8 Poseidon tree
// ---------------------------------------------------------------------------------------------------------------

namespace {
// Leaf (1 alloc), root (1 alloc), path: 7h siblings (no constraints) and 3h index bits (booleanity each), and the
// 1 root-equality constraint.
size_t poseidon8_fixed_constraints(size_t h) { return 3 * h + 1; }
// Per level: 11 insertion constraints (4 bit products + 7 R_i, merkle.hpp) + 388 for Poseidon of arity 8
// (3 * (9 * 8 + 57) + 1, poseidon.hpp).
constexpr size_t kPoseidon8LevelConstraints = 11 + 388;

std::vector<Fr> random_leaves(std::mt19937_64& rng, size_t n) {
    std::vector<Fr> v(n);
    for (auto& x : v) x = Fr::random(rng);
    return v;
}

AllocatedNum synthesize_poseidon8(TestConstraintSystem& cs, const Fr& leaf, const Poseidon8MerklePath& path,
                                  const Fr& root) {
    auto l = AllocatedNum::alloc(cs, "leaf", leaf);
    auto r = AllocatedNum::alloc_input(cs, "root", root);
    auto vars = alloc_poseidon8_path(cs, "path", path, path.siblings.size());
    r1cs::Namespace<TestConstraintSystem> ns(cs, "verify");
    auto computed = poseidon8_merkle_root(cs, "path", l, std::span<const std::array<AllocatedNum, 7>>(vars.siblings),
                                          std::span<const Boolean>(vars.index_bits));
    AllocatedNum::enforce_equal(cs, "root", computed, r);
    return computed;
}
}  // namespace

TEST(StandinMerklePoseidon8, NativeTreePathsLeadToTheRoot) {
    auto rng = fresh_rng();
    auto leaves = random_leaves(rng, 64);
    Poseidon8MerkleTree tree(leaves);
    ASSERT_EQ(tree.height(), 2u);
    std::array<Fr, 8> l0;
    for (int j = 0; j < 8; j++) l0[j] = poseidon_hash(std::span<const Fr>(leaves.data() + 8 * j, 8));
    EXPECT_EQ(tree.root(), poseidon_hash(std::span<const Fr>(l0)));
    for (uint64_t i = 0; i < 64; i++) {
        auto p = tree.path(i);
        EXPECT_EQ(Poseidon8MerkleTree::root_from_path(leaves[i], p), tree.root()) << i;
        // The siblings are the other children in slot order, so inserting the leaf back gives the group.
        auto slots = poseidon8_insert_native(leaves[i], std::span<const Fr, 7>(p.siblings[0]), i % 8);
        for (int j = 0; j < 8; j++) EXPECT_EQ(slots[j], leaves[(i & ~uint64_t{7}) + j]);
    }
    EXPECT_THROW(Poseidon8MerkleTree(std::vector<Fr>(16)), std::invalid_argument);
}

// The insertion network for all 8 positions against the native placement; 11 constraints each; every R_i is
// pinned by its constraint (a changed R_i is caught).
TEST(StandinMerklePoseidon8, InsertionPlacesTheNodeAtEveryPosition) {
    auto rng = fresh_rng();
    for (unsigned pos = 0; pos < 8; pos++) {
        TestConstraintSystem cs;
        Fr nv = Fr::random(rng);
        std::array<Fr, 7> sv;
        for (auto& s : sv) s = Fr::random(rng);
        auto node = AllocatedNum::alloc(cs, "node", nv);
        std::array<AllocatedNum, 7> sib;
        for (size_t j = 0; j < 7; j++) sib[j] = AllocatedNum::alloc(cs, [j] { return "s" + std::to_string(j); }, sv[j]);
        auto bits = alloc_index_bits(cs, "pos", pos, 3);
        size_t before = cs.num_constraints();
        auto slots = poseidon8_insert(cs, "insert", node, std::span<const AllocatedNum, 7>(sib),
                                      std::span<const Boolean>(bits).first<3>());
        EXPECT_EQ(cs.num_constraints() - before, 11u);
        auto expect = poseidon8_insert_native(nv, std::span<const Fr, 7>(sv), pos);
        ASSERT_TRUE(slots.values.has_value());
        for (size_t j = 0; j < 8; j++) {
            EXPECT_EQ(slots.lc[j].evaluate(cs.inputs(), cs.aux()), expect[j]) << "pos " << pos << " slot " << j;
            EXPECT_EQ((*slots.values)[j], expect[j]);
        }
        EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
        for (size_t i = 0; i < 7; i++) {
            auto name = "insert/R " + std::to_string(i);
            auto v = cs.get(name);
            ASSERT_TRUE(v.has_value()) << name;
            size_t idx = cs.num_aux() - 7 + i;  // the R_i are the last 7 aux variables
            ASSERT_EQ(cs.aux()[idx], *v);
            cs.set_aux(idx, *v + Fr::one());
            EXPECT_EQ(cs.which_is_unsatisfied(), "insert/G " + std::to_string(i) + " * (sibling - node)");
            cs.set_aux(idx, *v);
        }
    }
}

TEST(StandinMerklePoseidon8, GadgetRootMatchesNativeHeights1To3) {
    auto rng = fresh_rng();
    for (size_t h = 1; h <= 3; h++) {
        auto leaves = random_leaves(rng, size_t{1} << (3 * h));
        Poseidon8MerkleTree tree(leaves);
        for (int trial = 0; trial < 2; trial++) {
            uint64_t index = rng() % leaves.size();
            TestConstraintSystem cs;
            auto computed = synthesize_poseidon8(cs, leaves[index], tree.path(index), tree.root());
            EXPECT_EQ(*computed.value(), tree.root());
            EXPECT_EQ(value_of(cs, computed.variable()), tree.root());
            EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
            EXPECT_EQ(cs.num_constraints(), poseidon8_fixed_constraints(h) + h * kPoseidon8LevelConstraints);
        }
        // The key generator builds the same constraints without values.
        KeygenAssembly kg;
        auto l = AllocatedNum::alloc(kg, "leaf", std::nullopt);
        auto r = AllocatedNum::alloc_input(kg, "root", std::nullopt);
        auto vars = alloc_poseidon8_path(kg, "path", std::nullopt, h);
        poseidon8_merkle_verify(kg, "verify", l, vars, r);
        EXPECT_EQ(kg.num_constraints(), poseidon8_fixed_constraints(h) + h * kPoseidon8LevelConstraints);
    }
}

TEST(StandinMerklePoseidon8, WrongSiblingIndexOrRootIsCaught) {
    auto rng = fresh_rng();
    const size_t h = 2;
    auto leaves = random_leaves(rng, 64);
    Poseidon8MerkleTree tree(leaves);
    uint64_t index = rng() % 64;
    for (size_t k = 0; k < h; k++) {
        auto p = tree.path(index);
        p.siblings[k][rng() % 7] += Fr::one();
        TestConstraintSystem cs;
        synthesize_poseidon8(cs, leaves[index], p, tree.root());
        EXPECT_EQ(cs.which_is_unsatisfied(), "verify/root") << "sibling at level " << k;
    }
    for (size_t b = 0; b < 3 * h; b++) {
        auto p = tree.path(index);
        p.index ^= uint64_t{1} << b;  // the node moves to another slot: another hash input order
        TestConstraintSystem cs;
        synthesize_poseidon8(cs, leaves[index], p, tree.root());
        EXPECT_EQ(cs.which_is_unsatisfied(), "verify/root") << "index bit " << b;
    }
    {
        TestConstraintSystem cs;
        synthesize_poseidon8(cs, leaves[index], tree.path(index), tree.root() + Fr::one());
        EXPECT_EQ(cs.which_is_unsatisfied(), "verify/root");
    }
    {
        // A different leaf under the honest path.
        TestConstraintSystem cs;
        synthesize_poseidon8(cs, leaves[index] + Fr::one(), tree.path(index), tree.root());
        EXPECT_EQ(cs.which_is_unsatisfied(), "verify/root");
    }
}
