// Filecoin's native hashing and trees: trimmed SHA-256 (against OpenSSL), tree D and its paths (against a naive
// recursion), the all-zero comm_d table of go-commp-utils (SPEC §4.1), Poseidon trees in every base-sub-top shape
// (against a naive recursion) with their paths, and comm_r.
#include <gtest/gtest.h>
#include <openssl/sha.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "seeded_rng.hpp"
#include "cuzk/filecoin/hashers.hpp"
#include "cuzk/filecoin/tree.hpp"
#include "cuzk/gadgets/poseidon.hpp"

namespace cuzk::filecoin {
namespace {

using cuzk::testing::seeded_rng;

Domain random_domain(std::mt19937_64& rng) {
    Domain d;
    for (auto& b : d) b = (uint8_t)rng();
    return d;
}

// A random trimmed node (what tree D's leaves are after fr32 padding: < 2^254).
Domain random_node(std::mt19937_64& rng) {
    Domain d = random_domain(rng);
    trim_to_fr32(d);
    return d;
}

Domain openssl_node(const Domain& l, const Domain& r) {
    uint8_t buf[64];
    std::copy(l.begin(), l.end(), buf);
    std::copy(r.begin(), r.end(), buf + 32);
    Domain out;
    SHA256(buf, 64, out.data());
    out[31] &= 0x3F;
    return out;
}

// ---- SHA-256 ------------------------------------------------------------------------------------------------

TEST(FilecoinTree, Sha256MatchesOpenSsl) {
    auto rng = seeded_rng("Sha256MatchesOpenSsl");
    // Every length across the one- and two-block padding boundaries (55, 56, 63, 64, 119, 120), then some long.
    for (size_t len = 0; len < 300; len++) {
        std::vector<uint8_t> m(len);
        for (auto& b : m) b = (uint8_t)rng();
        Sha256Digest ref;
        SHA256(m.data(), m.size(), ref.data());
        ASSERT_EQ(sha256(m), ref) << "length " << len;
        Domain trimmed = ref;
        trimmed[31] &= 0x3F;
        ASSERT_EQ(sha256_trimmed(m), trimmed) << "length " << len;
        // Split in three updates, and a copied hasher continuing from a shared prefix.
        Sha256 h;
        h.update(std::span(m).first(len / 3));
        Sha256 copy = h;
        copy.update(std::span(m).subspan(len / 3, len / 3)).update(std::span(m).subspan(2 * (len / 3)));
        ASSERT_EQ(copy.finalize(), ref) << "length " << len;
    }
}

TEST(FilecoinTree, NodeHashesAgreeOnEveryPath) {
    auto rng = seeded_rng("NodeHashesAgreeOnEveryPath");
    std::printf("[ info ] SHA extensions: %s\n", detail::sha_ni_available() ? "used" : "absent (portable code)");
    // An odd count so the batched form's single-lane tail runs too; enough to cross the parallel threshold.
    const size_t n = 10001;
    std::vector<Domain> children(2 * n), parents(n);
    for (auto& c : children) c = random_domain(rng);  // untrimmed inputs: any 64 bytes hash the same way
    sha256_nodes(children, parents);
    for (size_t i = 0; i < n; i++) {
        Domain ref = openssl_node(children[2 * i], children[2 * i + 1]);
        ASSERT_EQ(parents[i], ref) << "node " << i;
        if (i % 97 == 0) {
            ASSERT_EQ(sha256_node(children[2 * i], children[2 * i + 1]), ref);
            ASSERT_EQ(detail::sha256_node_portable(children[2 * i], children[2 * i + 1]), ref);
        }
    }
    std::vector<Domain> serial(n);
    sha256_nodes_serial(children, serial);
    EXPECT_EQ(serial, parents);
    EXPECT_THROW(sha256_nodes(std::span(children).first(5), std::span(parents).first(2)), std::invalid_argument);
}

TEST(FilecoinTree, DomainAndFr) {
    auto rng = seeded_rng("DomainAndFr");
    for (int i = 0; i < 100; i++) {
        Fr x = Fr::random(rng);
        Domain d = domain_from_fr(x);
        EXPECT_EQ(fr_from_domain(d), x);
    }
    // r itself and 2^256 - 1 are not canonical; r - 1 is.
    Domain r = domain_from_hex("01000000fffffffffe5bfeff02a4bd5305d8a10908d83933487d9d2953a7ed73");
    EXPECT_FALSE(is_canonical(r));
    EXPECT_THROW(fr_from_domain(r, "comm_r"), std::invalid_argument);
    try {
        fr_from_domain(r, "comm_r");
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("comm_r"), std::string::npos) << e.what();
    }
    Domain all_ones;
    all_ones.fill(0xFF);
    EXPECT_FALSE(try_fr_from_domain(all_ones).has_value());
    Domain r_minus_1 = r;
    r_minus_1[0] = 0;
    EXPECT_EQ(fr_from_domain(r_minus_1), Fr::zero() - Fr::one());
    // A trimmed SHA-256 output is always canonical.
    for (int i = 0; i < 100; i++) EXPECT_TRUE(is_canonical(random_node(rng)));
    EXPECT_EQ(domain_to_hex(domain_from_hex("0x" + domain_to_hex(r))), domain_to_hex(r));
    EXPECT_THROW(domain_from_hex("00"), std::invalid_argument);
    EXPECT_THROW(domain_from_hex(std::string(64, 'g')), std::invalid_argument);
}

// ---- all-zero comm_d (go-commp-utils zerocomm.PieceComms, SPEC §4.1) -----------------------------------------

TEST(FilecoinTree, ZeroCommDTable) {
    struct Entry {
        unsigned log2_size;
        const char* comm;
    };
    // PieceComms[i] is the comm of a zero piece of 2^(i+7) bytes; the first entry below (64 B) is not in that
    // table (SPEC §4.1 lists it separately).
    const Entry table[] = {
        {6, "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb0b"},   // 64 B
        {7, "3731bb99ac689f66eef5973e4a94da188f4ddcae580724fc6f3fd60dfd488333"},   // 128 B
        {8, "642a607ef886b004bf2c1978463ae1d4693ac0f410eb2d1b7a47fe205e5e750f"},   // 256 B
        {9, "57a2381a28652bf47f6bef7aca679be4aede5871ab5cf3eb2c08114488cb8526"},   // 512 B
        {10, "1f7ac9595510e09ea41c460b176430bb322cd6fb412ec57cb17d989a4310372f"},  // 1 KiB
        {11, "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833"},  // 2 KiB
        {12, "08c47b38ee13bc43f41b915c0eed9911a26086b3ed62401bf9d58b8d19dff624"},  // 4 KiB
        {13, "b2e47bfb11facd941f62af5c750f3ea5cc4df517d5c4f16db2b4d77baec1a32f"},  // 8 KiB
        {14, "f9226160c8f927bfdcc418cdf203493146008eaefb7d02194d5e548189005108"},  // 16 KiB
        {15, "2c1a964bb90b59ebfe0f6da29ad65ae3e417724a8f7c11745a40cac1e5e74011"},  // 32 KiB
        {16, "fee378cef16404b199ede0b13e11b624ff9d784fbbed878d83297e795e024f02"},  // 64 KiB
        {17, "8e9e2403fa884cf6237f60df25f83ee40dca9ed879eb6f6352d15084f5ad0d3f"},  // 128 KiB
        {18, "752d9693fa167524395476e317a98580f00947afb7a30540d625a9291cc12a07"},  // 256 KiB
        {19, "7022f60f7ef6adfa17117a52619e30cea82c68075adf1c667786ec506eef2d19"},  // 512 KiB
        {20, "d99887b973573a96e11393645236c17b1f4c7034d723c7a99f709bb4da61162b"},  // 1 MiB
        {21, "d0b530dbb0b4f25c5d2f2a28dfee808b53412a02931f18c499f5a254086b1326"},  // 2 MiB
        {22, "84c0421ba0685a01bf795a2344064fe424bd52a9d24377b394ff4c4b4568e811"},  // 4 MiB
        {23, "65f29e5d98d246c38b388cfc06db1f6b021303c5a289000bdce832a9c3ec421c"},  // 8 MiB
        {24, "a2247508285850965b7e334b3127b0c042b1d046dc54402137627cd8799ce13a"},  // 16 MiB
        {25, "dafdab6da9364453c26d33726b9fefe343be8f81649ec009aad3faff50617508"},  // 32 MiB
        {26, "d941d5e0d6314a995c33ffbd4fbe69118d73d4e5fd2cd31f0f7c86ebdd14e706"},  // 64 MiB
        {27, "514c435c3d04d349a5365fbd59ffc713629111785991c1a3c53af22079741a2f"},  // 128 MiB
        {28, "ad06853969d37d34ff08e09f56930a4ad19a89def60cbfee7e1d3381c1e71c37"},  // 256 MiB
        {29, "39560e7b13a93b07a243fd2720ffa7cb3e1d2e505ab3629e79f46313512cda06"},  // 512 MiB
        {30, "ccc3c012f5b05e811a2bbfdd0f6833b84275b47bf229c0052a82484f3c1a5b3d"},  // 1 GiB
        {31, "7df29b69773199e8f2b40b77919d048509eed768e2c7297b1f1437034fc3c62c"},  // 2 GiB
        {32, "66ce05a3667552cf45c02bcc4e8392919bdeac35de2ff56271848e9f7b675107"},  // 4 GiB
        {33, "d8610218425ab5e95b1ca6239d29a2e420d706a96f373e2f9c9a91d759d19b01"},  // 8 GiB
        {34, "6d364b1ef846441a5a4a68862314acc0a46f016717e53443e839eedf83c2853c"},  // 16 GiB
        {35, "077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e"},  // 32 GiB
        {36, "e64005a6bfe3777953b8ad6ef93f0fca1049b2041654f2a411f7702799cece02"},  // 64 GiB
        {37, "259d3d6b1f4d876d1185e1123af6f5501af0f67cf15b5216255b7b178d12051d"},  // 128 GiB
        {38, "3f9a4d411da4ef1b36f35ff0a195ae392ab23fee7967b7c41b03d1613fc29239"},  // 256 GiB
        {39, "fe4ef328c61aa39cfdb2484eaa32a151b1fe3dfd1f96dd8c9711fd86d6c58113"},  // 512 GiB
        {40, "f55d68900e2d8381eccb8164cb9976f24b2de0dd61a31b97ce6eb23850d5e819"},  // 1 TiB
        {41, "aaaa8c4cb40aacee1e02dc65424b2a6c8e99f803b72f7929c4101d7fae6bff32"},  // 2 TiB
    };
    static_assert(std::size(table) == 36);
    for (const auto& e : table) {
        EXPECT_EQ(domain_to_hex(zero_comm_d(uint64_t(1) << e.log2_size)), e.comm) << "2^" << e.log2_size << " bytes";
        EXPECT_EQ(zero_subtree_root(e.log2_size - 5), domain_from_hex(e.comm));
    }
    // The 2 KiB entry is also the root of an actual tree over 64 zero leaves.
    std::vector<Domain> zeros(64);
    EXPECT_EQ(BinaryTree(zeros).root(), zero_comm_d(2048));
    EXPECT_EQ(binary_tree_root(zeros), zero_comm_d(2048));
    EXPECT_EQ(zero_subtree_root(0), Domain{});
    EXPECT_NO_THROW(zero_comm_d(uint64_t(1) << 63));
    EXPECT_THROW(zero_comm_d(32), std::invalid_argument);
    EXPECT_THROW(zero_comm_d(0), std::invalid_argument);
    EXPECT_THROW(zero_comm_d(3 * 1024), std::invalid_argument);
}

// ---- binary tree ----------------------------------------------------------------------------------------------

Domain naive_binary_root(std::span<const Domain> leaves) {
    if (leaves.size() == 1) return leaves[0];
    size_t h = leaves.size() / 2;
    return openssl_node(naive_binary_root(leaves.first(h)), naive_binary_root(leaves.subspan(h)));
}

TEST(FilecoinTree, BinaryTreeAndPaths) {
    auto rng = seeded_rng("BinaryTreeAndPaths");
    for (size_t n : {2u, 4u, 64u, 1024u}) {
        std::vector<Domain> leaves(n);
        for (auto& l : leaves) l = random_node(rng);
        BinaryTree tree(leaves);
        Domain expected = naive_binary_root(leaves);
        ASSERT_EQ(tree.root(), expected) << n << " leaves";
        EXPECT_EQ(binary_tree_root(leaves), expected);
        EXPECT_EQ(tree.height(), (unsigned)std::countr_zero(n));
        EXPECT_EQ(tree.row(0).size(), n);
        EXPECT_EQ(tree.row(tree.height()).size(), 1u);
        for (int t = 0; t < 20; t++) {
            uint64_t i = rng() % n;
            BinaryPath p = tree.path(i);
            ASSERT_EQ(p.siblings.size(), tree.height());
            EXPECT_EQ(p.index, i);
            EXPECT_TRUE(verify_binary_path(tree.root(), leaves[i], p)) << "leaf " << i;
            // A changed sibling, a changed leaf, a wrong index or an index above the tree: all rejected.
            BinaryPath bad = p;
            bad.siblings[rng() % bad.siblings.size()][rng() % 31] ^= 1;
            EXPECT_FALSE(verify_binary_path(tree.root(), leaves[i], bad));
            Domain other = leaves[i];
            other[0] ^= 0x80;
            EXPECT_FALSE(verify_binary_path(tree.root(), other, p));
            bad = p;
            bad.index ^= 1;
            EXPECT_FALSE(verify_binary_path(tree.root(), leaves[i], bad));
            bad = p;
            bad.index |= uint64_t(1) << tree.height();
            EXPECT_FALSE(verify_binary_path(tree.root(), leaves[i], bad));
        }
    }
    std::vector<Domain> three(3), one(1);
    EXPECT_THROW(BinaryTree{three}, std::invalid_argument);
    EXPECT_THROW(BinaryTree{one}, std::invalid_argument);
    EXPECT_THROW(binary_tree_root(three), std::invalid_argument);
    std::vector<Domain> four(4);
    EXPECT_THROW(BinaryTree(four).path(4), std::invalid_argument);
}

TEST(FilecoinTree, BinaryRootOnlyAcrossSubtrees) {
    auto rng = seeded_rng("BinaryRootOnlyAcrossSubtrees");
    // 2^17 leaves: more than one of binary_tree_root's 2^15-leaf subtrees, so the split and the join both run.
    std::vector<Domain> leaves(size_t(1) << 17);
    for (auto& l : leaves) l = random_node(rng);
    BinaryTree tree(leaves);
    EXPECT_EQ(binary_tree_root(leaves), tree.root());
    // The rows agree with a direct recomputation of one node high up.
    auto row = tree.row(15);
    EXPECT_EQ(row[1], naive_binary_root(std::span<const Domain>(leaves).subspan(size_t(1) << 15, size_t(1) << 15)));
}

// ---- Poseidon trees -------------------------------------------------------------------------------------------

Fr naive_poseidon_root(std::span<const Fr> leaves, uint32_t arity) {
    if (leaves.size() == 1) return leaves[0];
    size_t part = leaves.size() / arity;
    std::vector<Fr> children;
    for (uint32_t j = 0; j < arity; j++) children.push_back(naive_poseidon_root(leaves.subspan(j * part, part), arity));
    return gadgets::poseidon_hash(children);
}

// rust-fil-proofs' construction: sub·top base trees over contiguous leaf ranges, then the sub level over runs
// of `sub` base roots, then the top level.
Fr naive_shaped_root(TreeShape s, std::span<const Fr> leaves) {
    size_t trees = size_t(s.sub ? s.sub : 1) * (s.top ? s.top : 1);
    size_t base_leaves = leaves.size() / trees;
    std::vector<Fr> roots;
    for (size_t t = 0; t < trees; t++)
        roots.push_back(naive_poseidon_root(leaves.subspan(t * base_leaves, base_leaves), s.base));
    if (s.sub) {
        std::vector<Fr> subs;
        for (size_t i = 0; i < roots.size(); i += s.sub)
            subs.push_back(gadgets::poseidon_hash(std::span<const Fr>(roots).subspan(i, s.sub)));
        roots = subs;
    }
    if (s.top) roots = {gadgets::poseidon_hash(roots)};
    return roots.at(0);
}

TEST(FilecoinTree, PoseidonTreeShapes) {
    auto rng = seeded_rng("PoseidonTreeShapes");
    struct Case {
        TreeShape shape;
        size_t leaves;
        std::vector<uint32_t> arities;
    };
    const Case cases[] = {
        {{8, 0, 0}, 64, {8, 8}},              // 2 KiB
        {{8, 2, 0}, 128, {8, 8, 2}},          // 4 KiB
        {{8, 4, 0}, 32, {8, 4}},              // 1 KiB (SnapDeals test size): one base level
        {{8, 8, 0}, 512, {8, 8, 8}},          // 16 KiB; 32 GiB is the same with 9 base levels
        {{8, 8, 2}, 1024, {8, 8, 8, 2}},      // 32 KiB; 64 GiB is the same with 9 base levels
        {{8, 4, 2}, 64, {8, 4, 2}},           // upstream's 8-4-2 test shape
    };
    for (const auto& c : cases) {
        std::vector<Fr> leaves(c.leaves);
        for (auto& l : leaves) l = Fr::random(rng);
        SCOPED_TRACE(std::to_string(c.shape.base) + "-" + std::to_string(c.shape.sub) + "-" +
                     std::to_string(c.shape.top));
        EXPECT_EQ(poseidon_tree_arities(c.shape, c.leaves), c.arities);
        PoseidonTree tree(c.shape, leaves);
        Fr expected = naive_shaped_root(c.shape, leaves);
        ASSERT_EQ(tree.root(), expected);
        EXPECT_EQ(poseidon_tree_root(c.shape, leaves), expected);
        ASSERT_EQ(tree.row_count(), c.arities.size() + 1);
        size_t bits_expected = 0;
        for (uint32_t a : c.arities) bits_expected += std::countr_zero(a);
        for (int t = 0; t < 12; t++) {
            uint64_t i = t == 0 ? 0 : t == 1 ? c.leaves - 1 : rng() % c.leaves;
            PoseidonPath p = tree.path(i);
            ASSERT_EQ(p.levels.size(), c.arities.size());
            for (size_t l = 0; l < p.levels.size(); l++) {
                EXPECT_EQ(p.levels[l].arity, c.arities[l]);
                EXPECT_EQ(p.levels[l].siblings.size(), c.arities[l] - 1);
            }
            EXPECT_EQ(p.leaf_index(), i);
            std::vector<bool> bits = p.index_bits();
            ASSERT_EQ(bits.size(), bits_expected);
            uint64_t packed = 0;
            for (size_t b = 0; b < bits.size(); b++) packed |= uint64_t(bits[b]) << b;
            EXPECT_EQ(packed, i) << "path bits must pack to the leaf index";
            EXPECT_TRUE(verify_poseidon_path(tree.root(), leaves[i], p)) << "leaf " << i;
            EXPECT_EQ(poseidon_path_root(leaves[i], p), tree.root());

            PoseidonPath bad = p;
            auto& lv = bad.levels[rng() % bad.levels.size()];
            lv.siblings[rng() % lv.siblings.size()] += Fr::one();
            EXPECT_FALSE(verify_poseidon_path(tree.root(), leaves[i], bad));
            EXPECT_FALSE(verify_poseidon_path(tree.root(), leaves[i] + Fr::one(), p));
            bad = p;
            bad.levels[0].index = (bad.levels[0].index + 1) % bad.levels[0].arity;
            EXPECT_FALSE(verify_poseidon_path(tree.root(), leaves[i], bad));
            bad = p;
            bad.levels.back().index = bad.levels.back().arity;  // out of range: malformed, not a proof
            EXPECT_FALSE(verify_poseidon_path(tree.root(), leaves[i], bad));
            bad = p;
            bad.levels.back().siblings.pop_back();
            EXPECT_FALSE(verify_poseidon_path(tree.root(), leaves[i], bad));
        }
    }
}

TEST(FilecoinTree, PoseidonTreeRejectsBadShapes) {
    std::vector<Fr> leaves(64);
    EXPECT_THROW(PoseidonTree({8, 0, 0}, std::span(leaves).first(63)), std::invalid_argument);
    EXPECT_THROW(PoseidonTree({8, 0, 0}, std::span(leaves).first(1)), std::invalid_argument);
    EXPECT_THROW(PoseidonTree({8, 0, 0}, std::span(leaves).first(32)), std::invalid_argument);  // 32 != 8^k
    EXPECT_THROW(PoseidonTree({8, 0, 2}, leaves), std::invalid_argument);                       // top, no sub
    EXPECT_THROW(PoseidonTree({3, 0, 0}, std::span(leaves).first(9)), std::invalid_argument);
    EXPECT_NO_THROW(PoseidonTree({8, 8, 0}, leaves));  // eight base trees of 8 leaves
    EXPECT_THROW(PoseidonTree({8, 8, 0}, std::span(leaves).first(8)), std::invalid_argument);  // 1-leaf bases
    EXPECT_THROW(poseidon_tree_root({8, 8, 0}, std::span(leaves).first(16)), std::invalid_argument);
    EXPECT_THROW(PoseidonTree({8, 0, 0}, leaves).path(64), std::invalid_argument);
}

TEST(FilecoinTree, CommR) {
    // comm_r = Poseidon-2 MerkleTree(comm_c, comm_r_last): with (0, 1) it is neptune's published arity-2 vector
    // (SPEC §3), which also pins the argument order.
    EXPECT_EQ(comm_r(Fr::zero(), Fr::one()).to_hex(),
              "0x396508d75e76a56b739e0fd902efe161a6fba9339d05a69d2e203c369a02e7ff");
    EXPECT_EQ(comm_r(Fr::zero(), Fr::zero()).to_hex(),
              "0x48fe0b1331196f6cdb33a7c6e5af61b76fd388e1ef1d3d418be5147f0e4613d4");
    EXPECT_NE(comm_r(Fr::one(), Fr::zero()), comm_r(Fr::zero(), Fr::one()));
    // With real trees: comm_c and comm_r_last as roots of a tree C and a tree R_last of the 2 KiB shape.
    auto rng = seeded_rng("CommR");
    std::vector<Fr> c(64), r(64);
    for (auto& x : c) x = Fr::random(rng);
    for (auto& x : r) x = Fr::random(rng);
    Fr comm_c = PoseidonTree({8, 0, 0}, c).root(), comm_r_last = PoseidonTree({8, 0, 0}, r).root();
    const Fr pair[2] = {comm_c, comm_r_last};
    EXPECT_EQ(comm_r(comm_c, comm_r_last), gadgets::poseidon_hash(std::span<const Fr>(pair)));
}

}  // namespace
}  // namespace cuzk::filecoin
