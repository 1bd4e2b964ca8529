#include "cuzk/filecoin/hashers.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "cuzk/filecoin/proof_types.hpp"
#include "cuzk/gadgets/sha256_constants.hpp"
#include "cuzk/util/thread_pool.hpp"

#if defined(__x86_64__) || defined(__i386__)
#define CUZK_FILECOIN_X86 1
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace cuzk::filecoin {

// ---- node <-> Fr --------------------------------------------------------------------------------------------

Domain domain_from_fr(const Fr& x) { return fr_to_bytes32(x); }

std::optional<Fr> try_fr_from_domain(const Domain& d) { return Fr::from_bytes_le(d.data()); }

bool is_canonical(const Domain& d) { return try_fr_from_domain(d).has_value(); }

std::string domain_to_hex(const Domain& d) { return to_hex(d); }

Fr fr_from_domain(const Domain& d, std::string_view what) {
    auto x = try_fr_from_domain(d);
    if (!x)
        throw std::invalid_argument(std::string(what) + " is not a canonical field element (bytes " + domain_to_hex(d) +
                                    " encode a little-endian integer >= r)");
    return *x;
}

// proof_types' parser, its error reported as the std::invalid_argument this header promises.
Domain domain_from_hex(std::string_view hex) {
    try {
        return bytes32_from_hex(hex, "domain_from_hex");
    } catch (const FilecoinError& e) {
        throw std::invalid_argument(e.what());
    }
}

// ---- SHA-256 compression ------------------------------------------------------------------------------------

namespace {

// FIPS 180-4's round constants and initial state (shared with the SHA-256 gadget).
constexpr const uint32_t* kK = gadgets::kSha256RoundConstants.data();
constexpr const std::array<uint32_t, 8>& kIV = gadgets::kSha256Iv;

constexpr uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
inline uint32_t load_be32(const uint8_t* p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}
inline void store_be32(uint8_t* p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

void compress_portable(uint32_t* s, const uint8_t* block) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++) w[i] = load_be32(block + 4 * i);
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kK[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    s[0] += a, s[1] += b, s[2] += c, s[3] += d, s[4] += e, s[5] += f, s[6] += g, s[7] += h;
}

// The second block of a 64-byte message is all padding: 0x80, zeros, and the bit length 512 as a big-endian
// u64. It is the same for every node hash, so its message schedule (and W + K) is computed once.
struct PadSchedule {
    alignas(16) uint32_t wk[64] = {};
    constexpr PadSchedule() {
        uint32_t w[64] = {};
        w[0] = 0x80000000u;  // the 0x80 byte right after the message
        w[15] = 512;         // the message length in bits, big-endian, in the last 8 bytes
        for (int i = 16; i < 64; i++) {
            uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        for (int i = 0; i < 64; i++) wk[i] = w[i] + kK[i];
    }
};
constexpr PadSchedule kPad;

void node_portable(const uint8_t* left, const uint8_t* right, uint8_t* out) {
    uint8_t block[64];
    std::memcpy(block, left, 32);
    std::memcpy(block + 32, right, 32);
    std::array<uint32_t, 8> s = kIV;
    compress_portable(s.data(), block);
    // The padding block through the precomputed W + K (the same rounds as compress_portable).
    uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kPad.wk[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    s[0] += a, s[1] += b, s[2] += c, s[3] += d, s[4] += e, s[5] += f, s[6] += g, s[7] += h;
    for (int i = 0; i < 8; i++) store_be32(out + 4 * i, s[i]);
    out[31] &= 0x3F;
}

#ifdef CUZK_FILECOIN_X86
// SHA-NI. The state lives in two registers as (A, B, E, F) and (C, D, G, H), the order sha256rnds2 wants; each
// sha256rnds2 does two rounds, so a 4-round group is two of them with the W + K words shuffled down between.
// L independent messages are hashed together: sha256rnds2's latency is several times its issue interval, so two
// interleaved chains hash 1.6-2x faster than one at a time on Zen (four lanes measured no better than two).
#define CUZK_SHA_TARGET __attribute__((target("sha,sse4.1,ssse3")))

CUZK_SHA_TARGET inline void shani_load_iv(__m128i& abef, __m128i& cdgh) {
    // IV words as little-endian lanes: (A, B, C, D), (E, F, G, H) → (A, B, E, F) in the order rnds2 reads
    // (lane 3 = A), and likewise (C, D, G, H).
    __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kIV.data()));
    __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kIV.data() + 4));
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    abef = _mm_alignr_epi8(cdab, efgh, 8);
    cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
}

// Compresses block[l] into (abef[l], cdgh[l]) for each of the L lanes.
template <int L>
CUZK_SHA_TARGET inline void shani_compress(__m128i* abef, __m128i* cdgh, const uint8_t* const* block) {
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i w[L][4], abef0[L], cdgh0[L];
    for (int l = 0; l < L; l++) abef0[l] = abef[l], cdgh0[l] = cdgh[l];
    // Fully unrolled, so the message words stay in registers (the ring index g & 3 becomes a constant).
#pragma GCC unroll 16
    for (int g = 0; g < 16; g++) {
        __m128i k = _mm_load_si128(reinterpret_cast<const __m128i*>(kK + 4 * g));
#pragma GCC unroll 2
        for (int l = 0; l < L; l++) {
            __m128i& wg = w[l][g & 3];
            if (g < 4) {
                wg = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block[l] + 16 * g)), bswap);
            } else {
                // W_g = msg2(msg1(W_{g-4}, W_{g-3}) + (W_{g-2} words 1..3, W_{g-1} word 0), W_{g-1}):
                // msg1 adds σ0 terms, the alignr supplies the w[t-7] words, msg2 adds the σ1 terms.
                const __m128i& w1 = w[l][(g + 3) & 3];  // W_{g-1}
                const __m128i& w2 = w[l][(g + 2) & 3];  // W_{g-2}
                const __m128i& w3 = w[l][(g + 1) & 3];  // W_{g-3}
                wg = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(wg, w3), _mm_alignr_epi8(w1, w2, 4)),
                                          w1);
            }
            __m128i m = _mm_add_epi32(wg, k);
            cdgh[l] = _mm_sha256rnds2_epu32(cdgh[l], abef[l], m);
            abef[l] = _mm_sha256rnds2_epu32(abef[l], cdgh[l], _mm_shuffle_epi32(m, 0x0E));
        }
    }
    for (int l = 0; l < L; l++) {
        abef[l] = _mm_add_epi32(abef[l], abef0[l]);
        cdgh[l] = _mm_add_epi32(cdgh[l], cdgh0[l]);
    }
}

// The constant padding block: only the rounds, with the precomputed W + K.
template <int L>
CUZK_SHA_TARGET inline void shani_compress_pad(__m128i* abef, __m128i* cdgh) {
    __m128i abef0[L], cdgh0[L];
    for (int l = 0; l < L; l++) abef0[l] = abef[l], cdgh0[l] = cdgh[l];
#pragma GCC unroll 16
    for (int g = 0; g < 16; g++) {
        __m128i m = _mm_load_si128(reinterpret_cast<const __m128i*>(kPad.wk + 4 * g));
        __m128i mh = _mm_shuffle_epi32(m, 0x0E);
        for (int l = 0; l < L; l++) {
            cdgh[l] = _mm_sha256rnds2_epu32(cdgh[l], abef[l], m);
            abef[l] = _mm_sha256rnds2_epu32(abef[l], cdgh[l], mh);
        }
    }
    for (int l = 0; l < L; l++) {
        abef[l] = _mm_add_epi32(abef[l], abef0[l]);
        cdgh[l] = _mm_add_epi32(cdgh[l], cdgh0[l]);
    }
}

// Digest bytes (A..H big-endian) from the (A, B, E, F), (C, D, G, H) registers, trimmed.
CUZK_SHA_TARGET inline void shani_store_trimmed(__m128i abef, __m128i cdgh, uint8_t* out) {
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    __m128i dcba = _mm_blend_epi16(feba, dchg, 0xF0);
    __m128i hgfe = _mm_alignr_epi8(dchg, feba, 8);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_shuffle_epi8(dcba, bswap));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16), _mm_shuffle_epi8(hgfe, bswap));
    out[31] &= 0x3F;
}

// L node hashes: out[l] = trim(SHA-256(children[2l] ‖ children[2l+1])); each pair is 64 contiguous bytes.
template <int L>
CUZK_SHA_TARGET void shani_nodes(const uint8_t* pairs, uint8_t* out) {
    __m128i abef[L], cdgh[L];
    const uint8_t* blocks[L];
    for (int l = 0; l < L; l++) {
        shani_load_iv(abef[l], cdgh[l]);
        blocks[l] = pairs + 64 * l;
    }
    shani_compress<L>(abef, cdgh, blocks);
    shani_compress_pad<L>(abef, cdgh);
    for (int l = 0; l < L; l++) shani_store_trimmed(abef[l], cdgh[l], out + 32 * l);
}

CUZK_SHA_TARGET void shani_compress_one(uint32_t* s, const uint8_t* block) {
    // To and from the register order around one compression (for the streaming hasher).
    __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 4));
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
    shani_compress<1>(&abef, &cdgh, &block);
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(s), _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(s + 4), _mm_alignr_epi8(dchg, feba, 8));
}

// A function-local static, so a node hash during another translation unit's static initialisation still sees
// the detected value.
bool sha_ni() {
    // CPUID directly (clang's __builtin_cpu_supports knows no "sha"): leaf 1 ECX bits 9 (SSSE3) and 19 (SSE4.1),
    // leaf 7 EBX bit 29 (SHA).
    static const bool available = [] {
        unsigned a = 0, b = 0, c = 0, d = 0;
        if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
        const bool ssse3 = (c >> 9) & 1, sse41 = (c >> 19) & 1;
        if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
        return ssse3 && sse41 && ((b >> 29) & 1) != 0;
    }();
    return available;
}
#else
constexpr bool sha_ni() { return false; }
#endif

inline void compress(uint32_t* s, const uint8_t* block) {
#ifdef CUZK_FILECOIN_X86
    if (sha_ni()) return shani_compress_one(s, block);
#endif
    compress_portable(s, block);
}

// n node hashes from n contiguous 64-byte pairs.
void nodes_from_pairs(const uint8_t* pairs, uint8_t* out, size_t n) {
#ifdef CUZK_FILECOIN_X86
    if (sha_ni()) {
        size_t i = 0;
        for (; i + 2 <= n; i += 2) shani_nodes<2>(pairs + 64 * i, out + 32 * i);
        if (i < n) shani_nodes<1>(pairs + 64 * i, out + 32 * i);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++) node_portable(pairs + 64 * i, pairs + 64 * i + 32, out + 32 * i);
}

}  // namespace

namespace detail {
bool sha_ni_available() { return sha_ni(); }
void sha256_compress_portable(std::array<uint32_t, 8>& state, const uint8_t block[64]) {
    compress_portable(state.data(), block);
}
Domain sha256_node_portable(const Domain& left, const Domain& right) {
    Domain out;
    node_portable(left.data(), right.data(), out.data());
    return out;
}
}  // namespace detail

// ---- streaming SHA-256 --------------------------------------------------------------------------------------

Sha256::Sha256() : state_(kIV) {}

Sha256& Sha256::update(std::span<const uint8_t> data) {
    const uint8_t* p = data.data();
    size_t n = data.size();
    if (n == 0) return *this;
    total_ += n;
    if (buffered_) {
        size_t take = std::min(n, 64 - buffered_);
        std::memcpy(buf_.data() + buffered_, p, take);
        buffered_ += take, p += take, n -= take;
        if (buffered_ < 64) return *this;
        compress(state_.data(), buf_.data());
        buffered_ = 0;
    }
    for (; n >= 64; p += 64, n -= 64) compress(state_.data(), p);
    std::memcpy(buf_.data(), p, n);
    buffered_ = n;
    return *this;
}

Sha256& Sha256::update_u64_le(uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    return update(b);
}

Sha256& Sha256::update_u32_le(uint32_t v) {
    uint8_t b[4];
    for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i));
    return update(b);
}

Sha256Digest Sha256::finalize() const {
    std::array<uint32_t, 8> s = state_;
    uint8_t block[128] = {};
    std::memcpy(block, buf_.data(), buffered_);
    block[buffered_] = 0x80;
    // The 64-bit big-endian bit length ends the last block; it needs a second block when fewer than 9 bytes
    // remain after the message.
    size_t blocks = buffered_ + 9 <= 64 ? 1 : 2;
    uint64_t bits = total_ * 8;
    for (int i = 0; i < 8; i++) block[64 * blocks - 1 - i] = (uint8_t)(bits >> (8 * i));
    for (size_t b = 0; b < blocks; b++) compress(s.data(), block + 64 * b);
    Sha256Digest out;
    for (int i = 0; i < 8; i++) store_be32(out.data() + 4 * i, s[i]);
    return out;
}

Domain Sha256::finalize_trimmed() const {
    Domain d = finalize();
    trim_to_fr32(d);
    return d;
}

Sha256Digest sha256(std::span<const uint8_t> data) { return Sha256().update(data).finalize(); }

Domain sha256_trimmed(std::span<const uint8_t> data) { return Sha256().update(data).finalize_trimmed(); }

Domain sha256_node(const Domain& left, const Domain& right) {
    alignas(16) uint8_t pair[64];
    std::memcpy(pair, left.data(), 32);
    std::memcpy(pair + 32, right.data(), 32);
    Domain out;
    nodes_from_pairs(pair, out.data(), 1);
    return out;
}

void sha256_nodes_serial(std::span<const Domain> children, std::span<Domain> parents) {
    if (children.size() != 2 * parents.size())
        throw std::invalid_argument("sha256_nodes: " + std::to_string(children.size()) + " children for " +
                                    std::to_string(parents.size()) + " parents (need exactly two per parent)");
    // Domain is a plain 32-byte array, so a child pair is 64 contiguous bytes: the first message block as is.
    static_assert(sizeof(Domain) == 32 && alignof(Domain) == 1);
    nodes_from_pairs(children.data()->data(), parents.data()->data(), parents.size());
}

void sha256_nodes(std::span<const Domain> children, std::span<Domain> parents) {
    if (children.size() != 2 * parents.size())
        throw std::invalid_argument("sha256_nodes: " + std::to_string(children.size()) + " children for " +
                                    std::to_string(parents.size()) + " parents (need exactly two per parent)");
    // Below a few thousand hashes (~100 µs) the pool's hand-off costs more than it saves.
    constexpr size_t kSerialBelow = 4096;
    if (parents.size() < kSerialBelow || num_threads() == 1) return sha256_nodes_serial(children, parents);
    // Chunks of 2^14 parents keep the threads balanced when one is slowed (shared cores).
    constexpr size_t kChunk = 1 << 14;
    size_t chunks = (parents.size() + kChunk - 1) / kChunk;
    parallel_for(
        chunks,
        [&](size_t c0, size_t c1) {
        for (size_t c = c0; c < c1; c++) {
            size_t b = c * kChunk, e = std::min(parents.size(), b + kChunk);
            sha256_nodes_serial(children.subspan(2 * b, 2 * (e - b)), parents.subspan(b, e - b));
        }
    },
        chunks);
}

}  // namespace cuzk::filecoin
