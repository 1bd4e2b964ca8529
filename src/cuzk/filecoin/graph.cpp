#include "cuzk/filecoin/graph.hpp"

#include <bit>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <type_traits>
#include <utility>

#include "cuzk/filecoin/hashers.hpp"
#include "cuzk/util/output_file.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::filecoin {

static_assert(std::endian::native == std::endian::little,
              "the parent cache is written as the in-memory u32 words; a big-endian host would need a byte swap");

namespace {

// ---- SHA-256 (OpenSSL, SHA-NI where the CPU has it) --------------------------------------------------------------

// "Filecoin_DRSample" / "Filecoin_Feistel" domain separation (storage-proofs-core crypto/mod.rs).
Bytes32 porep_domain_seed(std::string_view tag, const Bytes32& porep_id) {
    Sha256 h;
    h.update({reinterpret_cast<const uint8_t*>(tag.data()), tag.size()}).update(porep_id);
    return h.finalize();
}

uint64_t load_le64(const uint8_t* p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

uint32_t load_le32(const uint8_t* p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// ---- ChaCha --------------------------------------------------------------------------------------------------------

// "expand 32-byte k"
constexpr uint32_t kChaChaConstants[4] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};

inline void quarter_round(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d) {
    a += b, d = std::rotl(d ^ a, 16);
    c += d, b = std::rotl(b ^ c, 12);
    a += b, d = std::rotl(d ^ a, 8);
    c += d, b = std::rotl(b ^ c, 7);
}

void chacha_key_state(std::array<uint32_t, 16>& s, const std::array<uint8_t, 32>& key) {
    for (int i = 0; i < 4; i++) s[i] = kChaChaConstants[i];
    for (int i = 0; i < 8; i++) s[4 + i] = load_le32(key.data() + 4 * i);
}

// ---- BLAKE2b -------------------------------------------------------------------------------------------------------

// The SHA-512 IV (RFC 7693 section 2.6).
constexpr uint64_t kBlake2bIv[8] = {0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
                                    0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179};

// Message schedule (RFC 7693 section 2.7); rounds 10 and 11 reuse rows 0 and 1.
constexpr uint8_t kSigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

// GCC notes that passing wide vectors by value depends on the target's vector extensions (-Wpsabi). These helpers
// are internal to this file and inlined, so no call crosses a boundary between differently compiled code.
#pragma GCC diagnostic ignored "-Wpsabi"

// Four 64-bit lanes: one AVX2 register (two SSE registers, or scalar code, where AVX2 is missing). Expander time
// per node measured on a 2-core AVX2 EPYC: scalar 7.0 us; 8 lanes (64-byte vectors, split by GCC) 5.5 us; 4 lanes
// with shift rotations 3.5-4.2 us; 4 lanes with byte-shuffle rotations (below) 2.6-3.7 us.
typedef uint64_t U64x4 __attribute__((vector_size(32)));
typedef uint8_t U8x32 __attribute__((vector_size(32)));

// Rotation right by a whole number of bytes of every 64-bit lane as one byte shuffle (vpshufb), which is cheaper
// than two shifts and an or.
template <int Bytes, size_t... I>
inline U64x4 rotr_bytes(const U64x4& x, std::index_sequence<I...>) {
    // Byte i of a lane takes byte (i + Bytes) mod 8 of the same lane (little-endian lanes).
#if defined(__clang__)  // (the fuzz build; clang has no __builtin_shuffle)
    return (U64x4)__builtin_shufflevector((U8x32)x, (U8x32)x, int(I / 8 * 8 + (I % 8 + Bytes) % 8)...);
#else
    constexpr U8x32 mask = {uint8_t(I / 8 * 8 + (I % 8 + Bytes) % 8)...};
    return (U64x4)__builtin_shuffle((U8x32)x, mask);
#endif
}

// Works for uint64_t and for U64x4 (one independent hash per lane).
template <int N, class W>
inline W rotr64(const W& x) {
    if constexpr (std::is_same_v<W, U64x4> && N % 8 == 0) {
        return rotr_bytes<N / 8>(x, std::make_index_sequence<32>());
    } else if constexpr (N == 63) {
        return (x >> 63) | (x + x);  // rotl by 1
    } else {
        return (x >> N) | (x << (64 - N));
    }
}

template <class W>
inline void blake2b_g(W& a, W& b, W& c, W& d, const W& x, const W& y) {
    a = a + b + x, d = rotr64<32>(d ^ a);
    c = c + d, b = rotr64<24>(b ^ c);
    a = a + b + y, d = rotr64<16>(d ^ a);
    c = c + d, b = rotr64<63>(b ^ c);
}

// F of RFC 7693 section 3.2 with the 128-bit counter's high half zero (messages here are far below 2^64 bytes).
template <class W>
[[gnu::always_inline]] inline void blake2b_compress(W h[8], const W m[16], uint64_t t, bool last) {
    W v[16];
    for (int i = 0; i < 8; i++) v[i] = h[i];
    for (int i = 0; i < 8; i++) v[8 + i] = W{} + kBlake2bIv[i];
    v[12] ^= t;
    if (last) v[14] = ~v[14];
#pragma GCC unroll 12
    for (int r = 0; r < 12; r++) {
        const uint8_t* s = kSigma[r];
        blake2b_g(v[0], v[4], v[8], v[12], m[s[0]], m[s[1]]);
        blake2b_g(v[1], v[5], v[9], v[13], m[s[2]], m[s[3]]);
        blake2b_g(v[2], v[6], v[10], v[14], m[s[4]], m[s[5]]);
        blake2b_g(v[3], v[7], v[11], v[15], m[s[6]], m[s[7]]);
        blake2b_g(v[0], v[5], v[10], v[15], m[s[8]], m[s[9]]);
        blake2b_g(v[1], v[6], v[11], v[12], m[s[10]], m[s[11]]);
        blake2b_g(v[2], v[7], v[8], v[13], m[s[12]], m[s[13]]);
        blake2b_g(v[3], v[4], v[9], v[14], m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; i++) h[i] ^= v[i] ^ v[8 + i];
}

// The Feistel round function on one 16-byte block: BLAKE2b-512 (parameter word 0x01010040: digest 64, no key) of
// right BE || key BE, one final block of 16 bytes; the first 8 digest bytes are h[0] in little-endian order, read
// back big-endian. Loading the big-endian message bytes as little-endian words is a byte swap.
template <class W>
inline W feistel_round_function(const W& right, const W& key) {
    W h[8];
    for (int i = 0; i < 8; i++) h[i] = W{} + kBlake2bIv[i];
    h[0] ^= 0x01010040;
    W m[16] = {};
    m[0] = right;
    m[1] = key;
    blake2b_compress(h, m, 16, true);
    return h[0];
}

// ---- Feistel lanes -------------------------------------------------------------------------------------------------

constexpr int kLanes = 4;  // = the lanes of U64x4

inline uint64_t bswap64(uint64_t x) { return __builtin_bswap64(x); }

// Runs the expander permutations of nodes [first, first + count), writing parents 6..13 of each node into out
// (14 words a node). Each step is one BLAKE2b for all lanes; a lane that finishes takes the next permutation from
// a shared queue, and a lane whose three rounds land outside [0, N) starts another encode (cycle walking) while
// the others move on, so no lane waits for another.
void expander_parents_lanes(uint64_t first, uint64_t count, const std::array<uint64_t, 4>& keys,
                            const FeistelParams& fp, uint64_t num_elements, ApiVersion version, uint32_t* out) {
    const uint64_t items = count * EXP_DEGREE;
    struct Lane {
        uint64_t item;   // which permutation: node (first + item / 8), output i = item % 8
        uint64_t left, right;
        unsigned round;  // 0..2
        bool active;
    } lanes[kLanes];
    uint64_t next_item = 0;
    auto load = [&](Lane& l) {
        if (next_item >= items) {
            l.active = false;
            return;
        }
        l.item = next_item++;
        const uint64_t x = EXP_DEGREE * (first + l.item / EXP_DEGREE) + l.item % EXP_DEGREE;
        l.left = (x & fp.left_mask) >> fp.half_bits;
        l.right = x & fp.right_mask;
        l.round = 0;
        l.active = true;
    };
    int active = 0;
    for (auto& l : lanes) {
        load(l);
        active += l.active;
    }
    while (active > 0) {
        U64x4 right{}, key{};
        for (int j = 0; j < kLanes; j++) {
            right[j] = bswap64(lanes[j].right);
            key[j] = bswap64(keys[lanes[j].round]);
        }
        const U64x4 f = feistel_round_function(right, key);
        for (int j = 0; j < kLanes; j++) {
            Lane& l = lanes[j];
            if (!l.active) continue;
            const uint64_t new_right = l.left ^ (bswap64(f[j]) & fp.right_mask);
            l.left = l.right;
            l.right = new_right;
            if (++l.round < FEISTEL_ROUNDS) continue;
            const uint64_t value = (l.left << fp.half_bits) | l.right;
            if (value >= num_elements) {  // cycle walking: encode the encoded value again
                l.left = (value & fp.left_mask) >> fp.half_bits;
                l.right = value & fp.right_mask;
                l.round = 0;
                continue;
            }
            // v1.0 casts the permuted u64 to u32 before dividing (a bug that matters from 2^32 / 8 nodes up);
            // v1.1 and v1.2 divide first. value < 8 * nodes, so the v1.1 quotient always fits.
            const uint32_t parent = version == ApiVersion::V1_0_0 ? uint32_t(value) / uint32_t(EXP_DEGREE)
                                                                  : uint32_t(value / EXP_DEGREE);
            out[(l.item / EXP_DEGREE) * DEGREE + BASE_DEGREE + l.item % EXP_DEGREE] = parent;
            load(l);
            active -= !l.active;
        }
    }
}

[[noreturn]] void fail(FilecoinErrorKind kind, const std::string& message) { throw FilecoinError(kind, message); }

}  // namespace

// ---- ChaCha --------------------------------------------------------------------------------------------------------

void chacha_block(const std::array<uint32_t, 16>& input, unsigned rounds, std::array<uint32_t, 16>& out) {
    if (rounds == 0 || rounds % 2 != 0) throw std::invalid_argument("chacha_block: rounds must be even and positive");
    std::array<uint32_t, 16> x = input;
    for (unsigned r = 0; r < rounds; r += 2) {
        quarter_round(x[0], x[4], x[8], x[12]);
        quarter_round(x[1], x[5], x[9], x[13]);
        quarter_round(x[2], x[6], x[10], x[14]);
        quarter_round(x[3], x[7], x[11], x[15]);
        quarter_round(x[0], x[5], x[10], x[15]);
        quarter_round(x[1], x[6], x[11], x[12]);
        quarter_round(x[2], x[7], x[8], x[13]);
        quarter_round(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; i++) out[i] = x[i] + input[i];
}

ChaChaRng::ChaChaRng(const std::array<uint8_t, 32>& seed, unsigned rounds) : rounds_(rounds) {
    if (rounds == 0 || rounds % 2 != 0) throw std::invalid_argument("ChaChaRng: rounds must be even and positive");
    chacha_key_state(state_, seed);
    // words 12..13: block counter 0; words 14..15: stream 0.
}

uint32_t ChaChaRng::next_u32() {
    if (index_ == 16) {
        chacha_block(state_, rounds_, block_);
        if (++state_[12] == 0) ++state_[13];  // the 64-bit counter
        index_ = 0;
    }
    return block_[index_++];
}

uint64_t ChaChaRng::next_u64() {
    const uint64_t lo = next_u32();
    return uint64_t(next_u32()) << 32 | lo;
}

void ChaChaRng::set_word_pos(uint64_t pos) {
    const uint64_t block = pos / 16;
    state_[12] = uint32_t(block);
    state_[13] = uint32_t(block >> 32);
    index_ = 16;
    const unsigned skip = unsigned(pos % 16);
    if (skip != 0) {
        next_u32();
        index_ = skip;
    }
}

ChaCha20Ietf::ChaCha20Ietf(const std::array<uint8_t, 32>& key, const std::array<uint8_t, 12>& nonce) {
    chacha_key_state(state_, key);
    state_[12] = 0;
    for (int i = 0; i < 3; i++) state_[13 + i] = load_le32(nonce.data() + 4 * i);
}

void ChaCha20Ietf::seek(uint64_t byte_offset) {
    if (byte_offset > (uint64_t(1) << 38))
        fail(FilecoinErrorKind::OutOfRange, "ChaCha20 seek to byte " + std::to_string(byte_offset) +
                                                " is past the end of the keystream (2^32 blocks of 64 bytes)");
    pos_ = byte_offset;
}

void ChaCha20Ietf::keystream(std::span<uint8_t> out) {
    if (out.size() > (uint64_t(1) << 38) - pos_)
        fail(FilecoinErrorKind::OutOfRange, "ChaCha20 keystream exhausted (2^32 blocks of 64 bytes)");
    std::array<uint32_t, 16> block{};
    uint64_t have_block = UINT64_MAX;
    for (uint8_t& b : out) {
        const uint64_t index = pos_ / 64;
        if (index != have_block) {
            std::array<uint32_t, 16> input = state_;
            input[12] = uint32_t(index);
            chacha_block(input, 20, block);
            have_block = index;
        }
        const unsigned byte = unsigned(pos_ % 64);
        b = uint8_t(block[byte / 4] >> (8 * (byte % 4)));
        pos_++;
    }
}

// ---- BLAKE2b -------------------------------------------------------------------------------------------------------

void blake2b(std::span<const uint8_t> message, std::span<uint8_t> out, std::span<const uint8_t> key) {
    if (out.empty() || out.size() > 64) throw std::invalid_argument("blake2b: digest size must be 1..64 bytes");
    if (key.size() > 64) throw std::invalid_argument("blake2b: key size must be at most 64 bytes");
    uint64_t h[8];
    for (int i = 0; i < 8; i++) h[i] = kBlake2bIv[i];
    h[0] ^= 0x01010000 ^ (uint64_t(key.size()) << 8) ^ uint64_t(out.size());

    // The input is the key block (when keyed) followed by the message; the last block, full or not, is final.
    std::vector<uint8_t> data;
    if (!key.empty()) {
        data.assign(128, 0);
        std::memcpy(data.data(), key.data(), key.size());
    }
    data.insert(data.end(), message.begin(), message.end());
    const size_t blocks = data.empty() ? 1 : (data.size() + 127) / 128;
    for (size_t b = 0; b < blocks; b++) {
        uint8_t block[128] = {};
        const size_t off = b * 128, n = std::min<size_t>(128, data.size() - std::min(data.size(), off));
        if (n) std::memcpy(block, data.data() + off, n);
        uint64_t m[16];
        for (int i = 0; i < 16; i++) m[i] = load_le64(block + 8 * i);
        const bool last = b + 1 == blocks;
        blake2b_compress(h, m, last ? data.size() : off + 128, last);
    }
    for (size_t i = 0; i < out.size(); i++) out[i] = uint8_t(h[i / 8] >> (8 * (i % 8)));
}

Blake2b::Blake2b(size_t digest_bytes) : out_bytes_(digest_bytes) {
    if (digest_bytes == 0 || digest_bytes > 64) throw std::invalid_argument("blake2b: digest size must be 1..64 bytes");
    for (int i = 0; i < 8; i++) h_[i] = kBlake2bIv[i];
    h_[0] ^= 0x01010000 ^ uint64_t(digest_bytes);
}

void Blake2b::compress(const uint8_t* block, bool last) {
    uint64_t m[16];
    for (int i = 0; i < 16; i++) m[i] = load_le64(block + 8 * i);
    blake2b_compress(h_, m, total_, last);
}

void Blake2b::update(std::span<const uint8_t> bytes) {
    // A full buffer is compressed only once more input arrives: the last block must be compressed as final.
    while (!bytes.empty()) {
        if (buffered_ == 128) {
            compress(buf_, false);
            buffered_ = 0;
        }
        if (buffered_ == 0 && bytes.size() > 128) {  // whole blocks straight from the input
            total_ += 128;
            compress(bytes.data(), false);
            bytes = bytes.subspan(128);
            continue;
        }
        const size_t n = std::min(bytes.size(), 128 - buffered_);
        std::memcpy(buf_ + buffered_, bytes.data(), n);
        buffered_ += n;
        total_ += n;
        bytes = bytes.subspan(n);
    }
}

std::vector<uint8_t> Blake2b::finish() {
    std::memset(buf_ + buffered_, 0, 128 - buffered_);
    compress(buf_, true);
    std::vector<uint8_t> out(out_bytes_);
    for (size_t i = 0; i < out_bytes_; i++) out[i] = uint8_t(h_[i / 8] >> (8 * (i % 8)));
    return out;
}

// ---- Feistel -------------------------------------------------------------------------------------------------------

FeistelParams feistel_precompute(uint64_t num_elements) {
    uint64_t next_pow4 = 4;
    unsigned log4 = 1;
    while (next_pow4 < num_elements) {
        next_pow4 *= 4;
        log4 += 1;
    }
    FeistelParams p;
    p.right_mask = (uint64_t(1) << log4) - 1;
    p.left_mask = p.right_mask << log4;
    p.half_bits = log4;
    return p;
}

uint64_t feistel_round(uint64_t right, uint64_t key, uint64_t right_mask) {
    return bswap64(feistel_round_function<uint64_t>(bswap64(right), bswap64(key))) & right_mask;
}

uint64_t feistel_permute(uint64_t num_elements, uint64_t index, const std::array<uint64_t, 4>& keys,
                         const FeistelParams& p) {
    uint64_t value = index;
    do {
        uint64_t left = (value & p.left_mask) >> p.half_bits, right = value & p.right_mask;
        for (unsigned r = 0; r < FEISTEL_ROUNDS; r++) {
            const uint64_t new_right = left ^ feistel_round(right, keys[r], p.right_mask);
            left = right;
            right = new_right;
        }
        value = (left << p.half_bits) | right;
    } while (value >= num_elements);
    return value;
}

// ---- the graph ---------------------------------------------------------------------------------------------------

StackedGraph::StackedGraph(uint64_t nodes, const Bytes32& porep_id, ApiVersion version)
    : nodes_(nodes), porep_id_(porep_id), version_(version) {
    if (nodes < 2 || nodes > UINT32_MAX)
        fail(FilecoinErrorKind::OutOfRange,
             "SDR graph of " + std::to_string(nodes) + " nodes: need 2 .. 2^32 - 1 nodes");
    const Bytes32 drg = porep_domain_seed("Filecoin_DRSample", porep_id);
    std::memcpy(drg_seed_.data(), drg.data(), drg_seed_.size());
    const Bytes32 feistel = porep_domain_seed("Filecoin_Feistel", porep_id);
    for (int i = 0; i < 4; i++) feistel_keys_[i] = load_le64(feistel.data() + 8 * i);
    feistel_ = feistel_precompute(EXP_DEGREE * nodes);
}

StackedGraph::StackedGraph(const PorepConfig& config)
    : StackedGraph(config.nodes(), config.porep_id, config.api_version) {}

void StackedGraph::base_parents_into(uint32_t node, uint32_t* out) const {
    if (node < 2) {
        for (size_t i = 0; i < BASE_DEGREE; i++) out[i] = 0;
        return;
    }
    std::array<uint8_t, 32> seed{};
    std::memcpy(seed.data(), drg_seed_.data(), 28);
    for (int i = 0; i < 4; i++) seed[28 + i] = uint8_t(node >> (8 * i));
    ChaCha8Rng rng(seed);

    constexpr uint64_t m_prime = BASE_DEGREE - 1;
    const uint64_t meta = uint64_t(node) * m_prime;
    // Upstream: ceil(log2(meta as f64)). meta <= 5 * 2^32 < 2^53 is exact as a double and log2 of an integer
    // that is not a power of two stays > 1e-10 away from an integer at these sizes, so this is the same value.
    const uint64_t n_buckets = std::bit_width(meta - 1);

    // v1.0: the drawn parents fill [0..5) and the predecessor is last; v1.1/v1.2: the predecessor comes first.
    uint32_t* drawn = version_ == ApiVersion::V1_0_0 ? out : out + 1;
    for (size_t k = 0; k < m_prime; k++) {
        const uint64_t bucket = rng.next_u64() % n_buckets + 1;
        const uint64_t largest = std::min(meta, uint64_t(1) << bucket);
        const uint64_t smallest = std::max<uint64_t>(2, largest >> 1);
        const uint64_t distance = smallest + rng.next_u64() % (largest - smallest + 1);
        const uint32_t mapped = uint32_t((meta - distance) / m_prime);
        drawn[k] = mapped == node ? node - 1 : mapped;
    }
    out[version_ == ApiVersion::V1_0_0 ? m_prime : 0] = node - 1;
}

std::array<uint32_t, BASE_DEGREE> StackedGraph::base_parents(uint64_t node) const {
    if (node >= nodes_)
        fail(FilecoinErrorKind::OutOfRange,
             "node " + std::to_string(node) + " is outside a graph of " + std::to_string(nodes_) + " nodes");
    std::array<uint32_t, BASE_DEGREE> out{};
    base_parents_into(uint32_t(node), out.data());
    return out;
}

std::array<uint32_t, EXP_DEGREE> StackedGraph::expander_parents(uint64_t node) const {
    if (node >= nodes_)
        fail(FilecoinErrorKind::OutOfRange,
             "node " + std::to_string(node) + " is outside a graph of " + std::to_string(nodes_) + " nodes");
    std::array<uint32_t, EXP_DEGREE> out{};
    const uint64_t n = EXP_DEGREE * nodes_;
    for (size_t i = 0; i < EXP_DEGREE; i++) {
        const uint64_t value = feistel_permute(n, EXP_DEGREE * node + i, feistel_keys_, feistel_);
        out[i] = version_ == ApiVersion::V1_0_0 ? uint32_t(value) / uint32_t(EXP_DEGREE)
                                                : uint32_t(value / EXP_DEGREE);
    }
    return out;
}

Parents StackedGraph::parents(uint64_t node) const {
    Parents p{};
    const auto base = base_parents(node);
    const auto exp = expander_parents(node);
    std::copy(base.begin(), base.end(), p.begin());
    std::copy(exp.begin(), exp.end(), p.begin() + BASE_DEGREE);
    return p;
}

void StackedGraph::parents_range(uint64_t first, std::span<uint32_t> out) const {
    if (out.size() % DEGREE != 0) throw std::invalid_argument("parents_range: output size is not a multiple of 14");
    const uint64_t count = out.size() / DEGREE;
    if (first > nodes_ || count > nodes_ - first)
        fail(FilecoinErrorKind::OutOfRange, "nodes " + std::to_string(first) + " .. " + std::to_string(first + count) +
                                                " are outside a graph of " + std::to_string(nodes_) + " nodes");
    for (uint64_t i = 0; i < count; i++) base_parents_into(uint32_t(first + i), out.data() + i * DEGREE);
    expander_parents_lanes(first, count, feistel_keys_, feistel_, EXP_DEGREE * nodes_, version_, out.data());
}

std::string StackedGraph::identifier() const {
    return "stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: " +
           std::to_string(nodes_) + "; degree: 6; hasher: poseidon_hasher} }";
}

std::string StackedGraph::parent_cache_id() const {
    auto bytes = [](std::string_view s) { return std::span(reinterpret_cast<const uint8_t*>(s.data()), s.size()); };
    const std::string id = identifier();
    Sha256 h;
    h.update(bytes("poseidon_hasher")).update(bytes(id));
    for (uint64_t key : feistel_keys_) h.update_u64_le(key);
    h.update_u32_le(uint32_t(nodes_));
    const Bytes32 d = h.finalize();
    return versioned_cache_name("sdr-parent-" + to_hex(d));
}

// ---- the parent cache --------------------------------------------------------------------------------------------

namespace {

// Fills out with the parents of nodes [first, first + out.size() / 14) on the thread pool. Chunks of a few
// thousand nodes keep the threads balanced although cycle walking makes some nodes dearer than others.
void generate_parallel(const StackedGraph& graph, uint64_t first, std::span<uint32_t> out) {
    const uint64_t count = out.size() / DEGREE;
    const size_t pieces = std::max<size_t>(1, std::min<uint64_t>(count / 1024, 16 * num_threads()));
    parallel_for(
        count,
        [&](size_t begin, size_t end) {
            graph.parents_range(first + begin, out.subspan(begin * DEGREE, (end - begin) * DEGREE));
        },
        pieces);
}

}  // namespace

Bytes32 parent_cache_sha256(const StackedGraph& graph, const ParentCacheOptions& options) {
    const uint64_t nodes = graph.nodes();
    const uint64_t chunk = std::max<uint64_t>(1, std::min(options.chunk_nodes, nodes));
    std::vector<uint32_t> buffer(chunk * DEGREE);

    // The file appears whole or not at all (util/output_file.hpp).
    std::optional<OutputFile> file;
    try {
        if (!options.output.empty()) file.emplace(options.output);
        Sha256 sha;
        for (uint64_t first = 0; first < nodes; first += chunk) {
            const uint64_t n = std::min(chunk, nodes - first);
            const auto item = int64_t(first / chunk);
            std::span<uint32_t> part(buffer.data(), n * DEGREE);
            {
                ScopedTiming span(options.timing, TimingLayer::Pipeline, "parent_cache.generate", item);
                generate_parallel(graph, first, part);
            }
            ScopedTiming span(options.timing, TimingLayer::Pipeline, "parent_cache.sha256", item);
            sha.update({reinterpret_cast<const uint8_t*>(part.data()), part.size_bytes()});
            if (file) file->write(part.data(), part.size_bytes());
        }
        if (file) file->commit();
        return sha.finalize();
    } catch (const OutputFileError& e) {
        fail(FilecoinErrorKind::Io, std::string("parent cache file: ") + e.what());
    }
}

std::vector<uint32_t> parent_cache(const StackedGraph& graph) {
    std::vector<uint32_t> out(graph.nodes() * DEGREE);
    generate_parallel(graph, 0, out);
    return out;
}

}  // namespace cuzk::filecoin
