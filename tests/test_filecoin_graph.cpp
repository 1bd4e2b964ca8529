// The SDR graph and its primitives: ChaCha (rand_chacha's and RFC 8439's vectors, the eSTREAM ChaCha8 vector),
// BLAKE2b (RFC 7693 and the BLAKE2 reference KAT), the Feistel permutation, and the parent caches whose SHA-256
// filecoin-proofs publishes (parent_cache.json, read from the vectors directory at run time).
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <unistd.h>

#include "cuzk/filecoin/graph.hpp"
#include "cuzk/filecoin/proof_types.hpp"
#include "cuzk/util/timing.hpp"

using namespace cuzk::filecoin;
using cuzk::seconds_since;

namespace {

std::vector<uint8_t> from_hex(std::string_view hex) {
    std::vector<uint8_t> out(hex.size() / 2);
    for (size_t i = 0; i < out.size(); i++) out[i] = uint8_t(std::stoi(std::string(hex.substr(2 * i, 2)), nullptr, 16));
    return out;
}

std::array<uint8_t, 32> seed_of(std::initializer_list<uint8_t> bytes) {
    std::array<uint8_t, 32> s{};
    std::copy(bytes.begin(), bytes.end(), s.begin());
    return s;
}

Bytes32 porep_id_byte(uint8_t id) {
    Bytes32 p{};
    p[0] = id;
    return p;
}

// parent_cache.json of rust-fil-proofs (copied to the vectors directory); nullopt where it is not present.
std::optional<nlohmann::json> parent_cache_json() {
#ifdef CUZK_VECTORS_DIR
    std::ifstream in(std::filesystem::path(CUZK_VECTORS_DIR) / "filecoin" / "parent_cache.json");
    if (in) return nlohmann::json::parse(in);
#endif
    return std::nullopt;
}

// Generates the whole cache of the graph and checks its SHA-256 and its name against parent_cache.json.
void check_published_cache(uint64_t sector_size, uint8_t porep_id, ApiVersion version) {
    const auto json = parent_cache_json();
    if (!json) GTEST_SKIP() << "parent_cache.json not found under CUZK_VECTORS_DIR";
    const StackedGraph graph(sector_size / NODE_SIZE, porep_id_byte(porep_id), version);
    const std::string id = graph.parent_cache_id();
    ASSERT_TRUE(json->contains(id)) << "no entry " << id << " in parent_cache.json";
    EXPECT_EQ((*json)[id]["sector_size"].get<uint64_t>(), sector_size);
    const auto t0 = std::chrono::steady_clock::now();
    const Bytes32 digest = parent_cache_sha256(graph);
    const double s = seconds_since(t0);
    EXPECT_EQ(to_hex(digest), (*json)[id]["digest"].get<std::string>()) << id;
    std::printf("    parent cache %s porep_id %u: %llu nodes in %.3f s (%.0f nodes/s)\n",
                sector_size_name(sector_size).c_str(), unsigned(porep_id), (unsigned long long)graph.nodes(), s,
                double(graph.nodes()) / s);
}

}  // namespace

// ---- ChaCha ---------------------------------------------------------------------------------------------------------

// rand_chacha's tests (ChaCha20Rng): test_chacha_true_values_a/b/c, test_chacha_multiple_blocks, construction.
TEST(FilecoinGraph, ChaCha20RngMatchesRandChachaVectors) {
    {
        ChaChaRng rng(seed_of({}), 20);
        const uint32_t block0[16] = {0xade0b876, 0x903df1a0, 0xe56a5d40, 0x28bd8653, 0xb819d2bd, 0x1aed8da0,
                                     0xccef36a8, 0xc70d778b, 0x7c5941da, 0x8d485751, 0x3fe02477, 0x374ad8b8,
                                     0xf4b8436a, 0x1ca11815, 0x69b687c3, 0x8665eeb2};
        const uint32_t block1[16] = {0xbee7079f, 0x7a385155, 0x7c97ba98, 0x0d082d73, 0xa0290fcb, 0x6965e348,
                                     0x3e53c612, 0xed7aee32, 0x7621b729, 0x434ee69c, 0xb03371d5, 0xd539d874,
                                     0x281fed31, 0x45fb0a51, 0x1f0ae1ac, 0x6f4d794b};
        for (uint32_t w : block0) EXPECT_EQ(rng.next_u32(), w);
        for (uint32_t w : block1) EXPECT_EQ(rng.next_u32(), w);
    }
    {
        std::array<uint8_t, 32> seed{};
        seed[31] = 1;
        ChaChaRng rng(seed, 20);
        for (int i = 0; i < 16; i++) rng.next_u32();
        const uint32_t expected[16] = {0x2452eb3a, 0x9249f8ec, 0x8d829d9b, 0xddd4ceb1, 0xe8252083, 0x60818b01,
                                       0xf38422b8, 0x5aaa49c9, 0xbb00ca8e, 0xda3ba7b4, 0xc4b592d1, 0xfdf2732f,
                                       0x4436274e, 0x2561b3c8, 0xebdd4aa6, 0xa0136c00};
        for (uint32_t w : expected) EXPECT_EQ(rng.next_u32(), w);
    }
    {
        const auto seed = seed_of({0, 0xff});
        const uint32_t expected[16] = {0xfb4dd572, 0x4bc42ef1, 0xdf922636, 0x327f1394, 0xa78dea8f, 0x5e269039,
                                       0xa1bebbc1, 0xcaf09aae, 0xa25ab213, 0x48a6b46c, 0x1b9d9bcb, 0x092c5be6,
                                       0x546ca624, 0x1bec45d5, 0x87f47473, 0x96f0992e};
        ChaChaRng skip(seed, 20), sought(seed, 20);
        for (int i = 0; i < 32; i++) skip.next_u32();
        sought.set_word_pos(32);
        for (uint32_t w : expected) {
            EXPECT_EQ(skip.next_u32(), w);
            EXPECT_EQ(sought.next_u32(), w);
        }
        // A position inside a block.
        ChaChaRng mid(seed, 20);
        mid.set_word_pos(32 + 5);
        EXPECT_EQ(mid.next_u32(), expected[5]);
    }
    {
        ChaChaRng rng(seed_of({0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 7}),
                      20);
        const uint32_t expected[16] = {0xf225c81a, 0x6ab1be57, 0x04d42951, 0x70858036, 0x49884684, 0x64efec72,
                                       0x4be2d186, 0x3615b384, 0x11cfa18e, 0xd3c50049, 0x75c775f6, 0x434c6530,
                                       0x2c5bad8f, 0x898881dc, 0x5f1c86d9, 0xc1f8e7f4};
        for (uint32_t w : expected) {
            EXPECT_EQ(rng.next_u32(), w);
            for (int i = 0; i < 16; i++) rng.next_u32();
        }
    }
    {
        ChaChaRng rng(seed_of({0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3}), 20);
        EXPECT_EQ(rng.next_u32(), 137206642u);
    }
}

// rand_core's next_u64: two consecutive words, low first, even across a block boundary.
TEST(FilecoinGraph, ChaChaRngU64IsTwoWordsLowFirst) {
    const auto seed = seed_of({9, 8, 7});
    ChaChaRng words(seed, 8), pairs(seed, 8);
    words.next_u32();
    pairs.next_u32();
    for (int i = 0; i < 40; i++) {  // starts at an odd word, so some pairs straddle a block
        const uint64_t lo = words.next_u32(), hi = words.next_u32();
        EXPECT_EQ(pairs.next_u64(), hi << 32 | lo);
    }
}

// ChaCha8, 256-bit zero key and zero IV: the eSTREAM / draft-strombergson-chacha-test-vectors TC1 keystream.
TEST(FilecoinGraph, ChaCha8KnownAnswer) {
    const auto expected = from_hex(
        "3e00ef2f895f40d67f5bb8e81f09a5a12c840ec3ce9a7f3b181be188ef711a1e984ce172b9216f419f445367456d5619314a42a3da86b0"
        "01387bfdb80e0cfe42d2aefa0deaa5c151bf0adb6c01f2a5adc0fd581259f9a2aadcf20f8fd566a26b5032ec38bbc5da98ee0c6f568b87"
        "2a65a08abf251deb21bb4b56e5d8821e68aa");
    ChaCha8Rng rng(seed_of({}));
    std::vector<uint8_t> got;
    for (size_t i = 0; i < expected.size() / 4; i++) {
        const uint32_t w = rng.next_u32();
        for (int b = 0; b < 4; b++) got.push_back(uint8_t(w >> (8 * b)));
    }
    EXPECT_EQ(got, expected);
}

// RFC 8439 section 2.4.2: key 00..1f, nonce 00 00 00 00 00 00 00 4a 00 00 00 00, block counter 1 (= byte 64).
TEST(FilecoinGraph, ChaCha20IetfMatchesRfc8439) {
    std::array<uint8_t, 32> key{};
    for (int i = 0; i < 32; i++) key[i] = uint8_t(i);
    const std::array<uint8_t, 12> nonce = {0, 0, 0, 0, 0, 0, 0, 0x4a, 0, 0, 0, 0};
    const std::string plaintext =
        "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would "
        "be it.";
    const auto ciphertext = from_hex(
        "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dabcd62b3571639d624e65152"
        "ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab77937365af90bbf74a35be6b40b8eedf278"
        "5e42874d");
    ChaCha20Ietf stream(key, nonce);
    stream.seek(64);
    std::vector<uint8_t> ks(plaintext.size());
    stream.keystream(ks);
    for (size_t i = 0; i < ks.size(); i++) EXPECT_EQ(uint8_t(plaintext[i] ^ ks[i]), ciphertext[i]) << i;

    // Reading in odd-sized pieces from an unaligned position gives the same bytes.
    ChaCha20Ietf pieces(key, nonce);
    pieces.seek(64 + 7);
    std::vector<uint8_t> a(13), b(50);
    pieces.keystream(a);
    pieces.keystream(b);
    for (size_t i = 0; i < a.size(); i++) EXPECT_EQ(a[i], ks[7 + i]);
    for (size_t i = 0; i < b.size(); i++) EXPECT_EQ(b[i], ks[20 + i]);

    EXPECT_THROW(pieces.seek((uint64_t(1) << 38) + 1), FilecoinError);
}

// ---- BLAKE2b --------------------------------------------------------------------------------------------------------

TEST(FilecoinGraph, Blake2bKnownAnswers) {
    std::array<uint8_t, 64> out{};
    // RFC 7693 appendix A: BLAKE2b-512("abc").
    const std::string abc = "abc";
    blake2b({reinterpret_cast<const uint8_t*>(abc.data()), abc.size()}, out);
    EXPECT_EQ(to_hex(out),
              "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8"
              "dbf1925ab92386edd4009923");
    // The BLAKE2 reference KAT (blake2b-kat.txt), first keyed entry: key 00..3f, empty message.
    std::array<uint8_t, 64> key{};
    for (int i = 0; i < 64; i++) key[i] = uint8_t(i);
    blake2b({}, out, key);
    EXPECT_EQ(to_hex(out),
              "10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786b5e996e8f0f4eb981fc214b005f42d2ff4233499"
              "391653df7aefcbc13fc51568");
    // A 32-byte digest, keyed, over three blocks (CPython's hashlib.blake2b, an independent implementation:
    // blake2b(bytes(range(255)), key=bytes(range(64)), digest_size=32)).
    std::vector<uint8_t> msg(255);
    for (int i = 0; i < 255; i++) msg[i] = uint8_t(i);
    std::array<uint8_t, 32> out32{};
    blake2b(msg, out32, key);
    EXPECT_EQ(to_hex(out32), "fe7b76a61787c089141f9e10fca1e5092488d89c62ea793fb2c5b1f849b4f2cb");

    EXPECT_THROW(blake2b({}, std::span<uint8_t>()), std::invalid_argument);
}

// Unkeyed BLAKE2b-512 against OpenSSL's, over lengths around the block boundaries.
TEST(FilecoinGraph, Blake2bMatchesOpenSsl) {
    std::mt19937 rng(5);
    for (size_t len : {0, 1, 16, 127, 128, 129, 255, 256, 257, 1000}) {
        std::vector<uint8_t> msg(len);
        for (auto& b : msg) b = uint8_t(rng());
        std::array<uint8_t, 64> ours{}, theirs{};
        blake2b(msg, ours);
        unsigned n = 0;
        ASSERT_EQ(EVP_Digest(msg.data(), msg.size(), theirs.data(), &n, EVP_blake2b512(), nullptr), 1);
        EXPECT_EQ(ours, theirs) << len;
    }
}

// ---- Feistel --------------------------------------------------------------------------------------------------------

TEST(FilecoinGraph, FeistelPermutesTheDomain) {
    // feistel.rs precompute: the smallest h >= 1 with 4^h >= n.
    EXPECT_EQ(feistel_precompute(1).half_bits, 1u);
    EXPECT_EQ(feistel_precompute(4).half_bits, 1u);
    EXPECT_EQ(feistel_precompute(5).half_bits, 2u);
    EXPECT_EQ(feistel_precompute(8 * 64).half_bits, 5u);
    EXPECT_EQ(feistel_precompute(8ull << 30).half_bits, 17u);
    EXPECT_EQ(feistel_precompute(8ull << 30).left_mask, ((1ull << 17) - 1) << 17);

    // A bijection of [0, n) for n that are not powers of four (cycle walking in use).
    const std::array<uint64_t, 4> keys = {1, 2, 3, 4};
    for (uint64_t n : {512ull, 1000ull, 8 * 1024ull}) {
        const FeistelParams p = feistel_precompute(n);
        std::set<uint64_t> seen;
        for (uint64_t i = 0; i < n; i++) {
            const uint64_t v = feistel_permute(n, i, keys, p);
            ASSERT_LT(v, n);
            seen.insert(v);
        }
        EXPECT_EQ(seen.size(), n);
    }
    // The round function: the first 8 bytes (big-endian) of BLAKE2b-512(right BE || key BE), masked.
    uint8_t block[16];
    const uint64_t right = 0x0123456789abcdefull, key = 0xfedcba9876543210ull;
    for (int i = 0; i < 8; i++) block[i] = uint8_t(right >> (56 - 8 * i)), block[8 + i] = uint8_t(key >> (56 - 8 * i));
    std::array<uint8_t, 64> digest{};
    blake2b(block, digest);
    uint64_t expected = 0;
    for (int i = 0; i < 8; i++) expected = expected << 8 | digest[i];
    EXPECT_EQ(feistel_round(right, key, ~0ull), expected);
    EXPECT_EQ(feistel_round(right, key, 0xffff), expected & 0xffff);
}

// ---- the graph ------------------------------------------------------------------------------------------------------

TEST(FilecoinGraph, SeedsAndIdentifier) {
    const StackedGraph g(64, porep_id_byte(5), ApiVersion::V1_1_0);
    EXPECT_EQ(g.identifier(),
              "stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: 64; degree: 6; "
              "hasher: poseidon_hasher} }");
    EXPECT_EQ(g.parent_cache_id().rfind("v28-sdr-parent-", 0), 0u);
    EXPECT_EQ(g.parent_cache_id().size(), 15u + 64u);
    EXPECT_THROW(StackedGraph(1, porep_id_byte(5), ApiVersion::V1_1_0), FilecoinError);
    EXPECT_THROW(StackedGraph(1ull << 32, porep_id_byte(5), ApiVersion::V1_1_0), FilecoinError);
    EXPECT_THROW(g.parents(64), FilecoinError);
}

// drgraph.rs graph_bucket test: nodes 0 and 1 have all-zero base parents, the predecessor is in its version's slot,
// no node is its own parent, and base parents are earlier nodes.
TEST(FilecoinGraph, BaseParentsStructure) {
    for (ApiVersion v : {ApiVersion::V1_0_0, ApiVersion::V1_1_0, ApiVersion::V1_2_0}) {
        const StackedGraph g(2048, porep_id_byte(v == ApiVersion::V1_0_0 ? 0 : 5), v);
        EXPECT_EQ(g.base_parents(0), (std::array<uint32_t, 6>{}));
        EXPECT_EQ(g.base_parents(1), (std::array<uint32_t, 6>{}));
        for (uint32_t n = 2; n < 2048; n++) {
            const auto p = g.base_parents(n);
            EXPECT_EQ(p[v == ApiVersion::V1_0_0 ? 5 : 0], n - 1);
            for (uint32_t q : p) {
                EXPECT_NE(q, n);
                EXPECT_LT(q, n);
            }
            for (uint32_t q : g.expander_parents(n)) EXPECT_LT(q, 2048u);
        }
    }
    // v1.1 and v1.2 build the same graph.
    const StackedGraph a(2048, porep_id_byte(5), ApiVersion::V1_1_0), b(2048, porep_id_byte(5), ApiVersion::V1_2_0);
    for (uint32_t n = 0; n < 2048; n += 97) EXPECT_EQ(a.parents(n), b.parents(n));
}

// parents_range (base parents, then the expander in eight lanes) equals the node-by-node scalar path, for ranges
// that start and end anywhere.
TEST(FilecoinGraph, RangeMatchesSingleNodes) {
    for (auto [nodes, id, v] : {std::tuple{uint64_t(64), uint8_t(0), ApiVersion::V1_0_0},
                                std::tuple{uint64_t(1) << 18, uint8_t(6), ApiVersion::V1_1_0},
                                std::tuple{uint64_t(1) << 30, uint8_t(8), ApiVersion::V1_1_0}}) {
        const StackedGraph g(nodes, porep_id_byte(id), v);
        for (uint64_t first : {uint64_t(0), uint64_t(3), nodes - 21}) {
            std::vector<uint32_t> out(21 * DEGREE);
            g.parents_range(first, out);
            for (uint64_t i = 0; i < 21; i++) {
                const Parents p = g.parents(first + i);
                for (size_t j = 0; j < DEGREE; j++) ASSERT_EQ(out[i * DEGREE + j], p[j]) << first + i << " " << j;
            }
        }
        std::vector<uint32_t> past(2 * DEGREE);
        EXPECT_THROW(g.parents_range(nodes - 1, past), FilecoinError);
    }
}

// v1.0 truncates the permuted value to 32 bits before dividing by 8; from 2^29 nodes on that differs from v1.1.
TEST(FilecoinGraph, V1_0ExpanderTruncation) {
    const uint64_t nodes = uint64_t(1) << 30;
    const StackedGraph v10(nodes, porep_id_byte(3), ApiVersion::V1_0_0);
    const StackedGraph v11(nodes, porep_id_byte(3), ApiVersion::V1_1_0);
    const FeistelParams fp = feistel_precompute(8 * nodes);
    bool differs = false;
    for (uint64_t n = 1000; n < 1100; n++) {
        const auto a = v10.expander_parents(n), b = v11.expander_parents(n);
        for (size_t i = 0; i < EXP_DEGREE; i++) {
            const uint64_t value = feistel_permute(8 * nodes, 8 * n + i, v11.feistel_keys(), fp);
            EXPECT_EQ(b[i], value / 8);
            EXPECT_EQ(a[i], uint32_t(value) / 8);
            differs |= a[i] != b[i];
        }
    }
    EXPECT_TRUE(differs);
}

// ---- published parent caches ----------------------------------------------------------------------------------------

TEST(FilecoinGraph, ParentCache2KiBV1_0) { check_published_cache(2048, 0, ApiVersion::V1_0_0); }
TEST(FilecoinGraph, ParentCache2KiBV1_1) { check_published_cache(2048, 5, ApiVersion::V1_1_0); }
TEST(FilecoinGraph, ParentCache8MiBV1_1) { check_published_cache(8ull << 20, 6, ApiVersion::V1_1_0); }

// The streaming digest does not depend on the chunk size, equals the digest of the in-memory cache, and the file
// it writes holds exactly those bytes.
TEST(FilecoinGraph, ParentCacheChunksAndFile) {
    const StackedGraph g(4096, porep_id_byte(5), ApiVersion::V1_1_0);
    const std::vector<uint32_t> cache = parent_cache(g);
    ASSERT_EQ(cache.size(), 4096 * DEGREE);
    for (uint64_t n : {uint64_t(0), uint64_t(1), uint64_t(777), uint64_t(4095)})
        for (size_t j = 0; j < DEGREE; j++) EXPECT_EQ(cache[n * DEGREE + j], g.parents(n)[j]);

    std::array<uint8_t, 32> whole{};
    unsigned len = 0;
    ASSERT_EQ(EVP_Digest(cache.data(), cache.size() * 4, whole.data(), &len, EVP_sha256(), nullptr), 1);
    const auto path = std::filesystem::temp_directory_path() / ("cuzk_parent_cache_" + std::to_string(::getpid()));
    ParentCacheOptions options;
    options.chunk_nodes = 1000;  // not a divisor of 4096
    options.output = path;
    EXPECT_EQ(parent_cache_sha256(g, options), whole);
    EXPECT_EQ(parent_cache_sha256(g), whole);
    ASSERT_EQ(std::filesystem::file_size(path), 4096 * DEGREE * 4);
    std::ifstream in(path, std::ios::binary);
    std::vector<uint32_t> file(4096 * DEGREE);
    in.read(reinterpret_cast<char*>(file.data()), std::streamsize(file.size() * 4));
    EXPECT_EQ(file, cache);
    std::filesystem::remove(path);

    options.output = "/nonexistent-directory/cache";
    EXPECT_THROW(parent_cache_sha256(g, options), FilecoinError);
}
