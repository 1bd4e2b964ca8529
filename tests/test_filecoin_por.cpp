// Filecoin's Merkle-inclusion gadgets (filecoin/por.hpp): insert_2 / insert_8 place the node at every position with
// upstream's row counts, one 8-ary Poseidon path level is 530 rows, and whole PoR circuits over the native trees
// (filecoin/tree.hpp) of shapes 8-0-0, 8-8-0, 8-8-2 and binary SHA-256 reach the native root, pack the path bits
// into the leaf index, and catch a wrong sibling, index or root.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "seeded_rng.hpp"
#include "cuzk/filecoin/por.hpp"
#include "cuzk/filecoin/tree.hpp"
#include "cuzk/r1cs/keygen_assembly.hpp"
#include "cuzk/r1cs/test_cs.hpp"

namespace cuzk::filecoin {
namespace {

using r1cs::TestConstraintSystem;

using cuzk::testing::seeded_rng;

Fr random_fr(std::mt19937_64& rng) {
    limbs_t<4> l{rng(), rng(), rng(), rng() >> 2};  // < 2^254 < r
    return Fr::from_canonical_unchecked(l);
}

// Inserts a random node among random siblings at `index` and returns the row count and whether positions match.
size_t check_insert(size_t arity, uint32_t index, std::mt19937_64& rng) {
    TestConstraintSystem cs;
    const Fr node = random_fr(rng);
    std::vector<Fr> sib(arity - 1);
    std::vector<AllocatedNum> sibs;
    for (size_t j = 0; j < sib.size(); j++) {
        sib[j] = random_fr(rng);
        sibs.push_back(AllocatedNum::alloc(cs, "sibling " + std::to_string(j), sib[j]));
    }
    AllocatedNum a = AllocatedNum::alloc(cs, "node", node);
    std::vector<Boolean> bits;
    for (unsigned j = 0; (size_t(1) << j) < arity; j++)
        bits.emplace_back(AllocatedBit::alloc(cs, "bit " + std::to_string(j), ((index >> j) & 1) != 0));
    const size_t before = cs.num_constraints();
    std::vector<AllocatedNum> out = insert(cs, a, std::span<const Boolean>(bits), std::span<const AllocatedNum>(sibs));
    EXPECT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
    std::vector<Fr> want = sib;
    want.insert(want.begin() + index, node);
    for (size_t p = 0; p < arity; p++) EXPECT_EQ(*out[p].value(), want[p]) << "arity " << arity << " index " << index << " position " << p;
    return cs.num_constraints() - before;
}

TEST(FilecoinPor, InsertPlacesTheNodeAtEveryPosition) {
    auto rng = seeded_rng("FilecoinPor.InsertPlacesTheNodeAtEveryPosition");
    for (uint32_t i = 0; i < 2; i++) EXPECT_EQ(check_insert(2, i, rng), 2u);
    for (uint32_t i = 0; i < 4; i++) EXPECT_EQ(check_insert(4, i, rng), 8u);
    for (uint32_t i = 0; i < 8; i++) EXPECT_EQ(check_insert(8, i, rng), 22u);
}

TEST(FilecoinPor, Insert8RefusesNegatedBits) {
    TestConstraintSystem cs;
    std::vector<AllocatedNum> sibs;
    for (int j = 0; j < 7; j++) sibs.push_back(AllocatedNum::alloc(cs, "s" + std::to_string(j), Fr::zero()));
    AllocatedNum a = AllocatedNum::alloc(cs, "a", Fr::one());
    std::vector<Boolean> bits;
    for (int j = 0; j < 3; j++) bits.emplace_back(AllocatedBit::alloc(cs, "b" + std::to_string(j), false));
    bits[1] = bits[1].not_();
    EXPECT_THROW(insert(cs, a, std::span<const Boolean>(bits), std::span<const AllocatedNum>(sibs)),
                 std::invalid_argument);
}

TEST(FilecoinPor, OnePoseidon8LevelIs530Rows) {
    TestConstraintSystem cs;
    AllocatedNum leaf = AllocatedNum::alloc(cs, "leaf", Fr::from_u64(5));
    PorLevel level;
    level.arity = 8;
    level.index = 3;
    for (int j = 0; j < 7; j++) level.siblings.push_back(Fr::from_u64(100 + j));
    std::vector<Boolean> bits;
    const size_t before = cs.num_constraints();
    AllocatedNum root = por_levels(cs, TreeHasher::Poseidon, std::span<const PorLevel>(&level, 1), leaf, bits);
    EXPECT_EQ(cs.num_constraints() - before, 530u);
    EXPECT_EQ(bits.size(), 3u);
    EXPECT_TRUE(cs.is_satisfied());
    std::vector<Fr> children{Fr::from_u64(100), Fr::from_u64(101), Fr::from_u64(102), Fr::from_u64(5),
                             Fr::from_u64(103), Fr::from_u64(104), Fr::from_u64(105), Fr::from_u64(106)};
    EXPECT_EQ(*root.value(), gadgets::poseidon_hash(children));
}

// A full PoR of leaf `index` in a random tree of `shape`; returns the system for further checks.
TestConstraintSystem poseidon_por(TreeShape shape, uint64_t leaves, uint64_t index, std::mt19937_64& rng,
                                  bool public_root) {
    std::vector<Fr> data(leaves);
    for (Fr& x : data) x = random_fr(rng);
    PoseidonTree tree(shape, data);
    PorPath path = por_path(tree.path(index), shape);
    TestConstraintSystem cs;
    AllocatedNum input = por_circuit(cs, TreeHasher::Poseidon, PorRoot::value(data[index]), path,
                                     PorRoot::value(tree.root()), !public_root);
    EXPECT_EQ(*input.value(), Fr::from_u64(index));
    EXPECT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
    return cs;
}

TEST(FilecoinPor, PoseidonPathsOfEveryShapeReachTheNativeRoot) {
    auto rng = seeded_rng("FilecoinPor.PoseidonPathsOfEveryShapeReachTheNativeRoot");
    struct Case {
        TreeShape shape;
        uint64_t leaves;
        size_t levels;
    };
    for (const Case& c : {Case{{8, 0, 0}, 64, 2}, Case{{8, 8, 0}, 512, 3}, Case{{8, 8, 2}, 1024, 4}}) {
        const uint64_t index = rng() % c.leaves;
        TestConstraintSystem cs = poseidon_por(c.shape, c.leaves, index, rng, false);
        // value, levels x 530 (the top level of arity 2: 1 + 2 + 311), path packing, root equality.
        size_t want = 1 + 1;  // pack + equality
        want += (c.levels - (c.shape.top ? 1 : 0)) * 530;
        if (c.shape.top) want += 1 + 2 + 311;
        EXPECT_EQ(cs.num_constraints() - 0, want) << tree_shape_name(c.shape);
        EXPECT_EQ(cs.num_inputs(), 2u);  // ONE and the path
    }
}

TEST(FilecoinPor, PublicRootIsInputized) {
    auto rng = seeded_rng("FilecoinPor.PublicRootIsInputized");
    TestConstraintSystem cs = poseidon_por({8, 0, 0}, 64, 9, rng, true);
    EXPECT_EQ(cs.num_inputs(), 3u);
    EXPECT_EQ(cs.num_constraints(), 2 * 530 + 3u);
}

TEST(FilecoinPor, WrongSiblingIndexOrRootIsCaught) {
    auto rng = seeded_rng("FilecoinPor.WrongSiblingIndexOrRootIsCaught");
    std::vector<Fr> data(64);
    for (Fr& x : data) x = random_fr(rng);
    const TreeShape shape{8, 0, 0};
    PoseidonTree tree(shape, data);
    const uint64_t index = 21;
    auto run = [&](PorPath path, Fr leaf, Fr root) {
        TestConstraintSystem cs;
        por_circuit(cs, TreeHasher::Poseidon, PorRoot::value(leaf), path, PorRoot::value(root), true);
        return cs.which_is_unsatisfied();
    };
    const PorPath good = por_path(tree.path(index), shape);
    EXPECT_FALSE(run(good, data[index], tree.root()).has_value());
    PorPath bad_sibling = good;
    bad_sibling.base[1].siblings[4] = *bad_sibling.base[1].siblings[4] + Fr::one();
    auto which = run(bad_sibling, data[index], tree.root());
    ASSERT_TRUE(which.has_value());
    EXPECT_NE(which->find("enforce root is correct"), std::string::npos) << *which;
    PorPath bad_index = good;
    bad_index.base[0].index = (*bad_index.base[0].index + 1) % 8;
    EXPECT_TRUE(run(bad_index, data[index], tree.root()).has_value());
    EXPECT_TRUE(run(good, data[index], tree.root() + Fr::one()).has_value());
    EXPECT_TRUE(run(good, data[index] + Fr::one(), tree.root()).has_value());
}

TEST(FilecoinPor, BinarySha256PathReachesTheNativeRoot) {
    auto rng = seeded_rng("FilecoinPor.BinarySha256PathReachesTheNativeRoot");
    std::vector<Domain> leaves(8);
    for (Domain& d : leaves) d = domain_from_fr(random_fr(rng));
    BinaryTree tree(leaves);
    const uint64_t index = rng() % leaves.size();
    BinaryPath native = tree.path(index);
    PorPath path;
    for (size_t l = 0; l < native.siblings.size(); l++) {
        PorLevel level;
        level.arity = 2;
        level.index = uint32_t((index >> l) & 1);
        level.siblings.push_back(fr_from_domain(native.siblings[l]));
        path.base.push_back(level);
    }
    TestConstraintSystem cs;
    AllocatedNum input = por_circuit(cs, TreeHasher::Sha256, PorRoot::value(fr_from_domain(leaves[index])), path,
                                     PorRoot::value(fr_from_domain(tree.root())), true);
    EXPECT_TRUE(cs.is_satisfied()) << cs.which_is_unsatisfied().value_or("");
    EXPECT_EQ(*input.value(), Fr::from_u64(index));
    // Per level: index bit, insert_2, two to_bits_le, SHA-256 of 512 bits (two blocks), the 254-bit pack.
    TestConstraintSystem one;
    AllocatedNum l0 = AllocatedNum::alloc(one, "l", Fr::one());
    std::vector<Boolean> bits;
    const size_t before = one.num_constraints();
    por_levels(one, TreeHasher::Sha256, std::span<const PorLevel>(path.base.data(), 1), l0, bits);
    const size_t level_rows = one.num_constraints() - before;
    EXPECT_EQ(cs.num_constraints(), 3 * level_rows + 2);
    std::printf("[ info ] binary SHA-256 PoR level: %zu rows\n", level_rows);
}

TEST(FilecoinPor, KeygenCountsMatchTheTestSystem) {
    // The blank path (no values) synthesizes the same number of rows for key generation.
    r1cs::KeygenAssembly kg;
    const PorPath blank = blank_por_path(512, 8, 8, 0);
    por_circuit(kg, TreeHasher::Poseidon, PorRoot::value(std::nullopt), blank, PorRoot::value(std::nullopt), true);
    auto rng = seeded_rng("FilecoinPor.KeygenCountsMatchTheTestSystem");
    TestConstraintSystem cs = poseidon_por({8, 8, 0}, 512, 7, rng, false);
    EXPECT_EQ(kg.num_constraints(), cs.num_constraints());
}

}  // namespace
}  // namespace cuzk::filecoin
