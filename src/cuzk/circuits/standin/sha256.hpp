// SHA-256 (FIPS 180-4) in the constraint system, over Booleans in big-endian bit order (the first bit is the most
// significant bit of the first byte), as bellman's gadget: sha256_compression on one 512-bit block and a state,
// sha256_block_no_padding, and sha256 with the standard padding (constant bits, so padding costs nothing).
//
// Constraint count of one compression with the constant IV and an allocated 512-bit block (the bits' own 512
// booleanity constraints not counted), pinned in tests/test_standin_sha256.cpp:
//   message schedule, 46 materialized words W16..W61:  sigma0 61 xors (shr 3 leaves 3 constant bits) + sigma1 54
//                                                       (shr 10) + 34 sum bits          = 149 x 46      =  6,854
//   W62, W63: never rotated (sigma0 reads W[i-15] <= W48, sigma1 W[i-2] <= W61), only added, so their four summands
//             go straight into the rounds' additions (deferred): their 2 x (115 xors) stay, their 2 x 34 sum bits
//             go, and the 4 round additions that take them widen from 35 to 36 bits: 230 + 4          =    234
//   rounds: Sigma1(e) and Sigma0(a), 64 xors each once e / a are allocated (rounds 1..63)  2 x 63 x 64 =  8,064
//           ch 32 per round once e, f are allocated (rounds 2..63; round 1 has constant f, g) 62 x 32  =  1,984
//           maj 64 per round (rounds 3..63) and 32 in round 2 (c = IV constant: one AND/OR)  61 x 64 + 32 = 3,936
//           new e = d + h + S1 + ch + K + W and new a = h + S1 + ch + K + W + S0 + maj are kept as operand lists
//           and materialized once, when the next round needs their bits (rounds 1..63), and at the end with
//           the IV word added (h0, h4): 35 sum bits each (the 4 widenings to 36 counted above)  128 x 35  =  4,480
//   final state: h1..h3, h5..h7 = IV + word: 33 sum bits each                            6 x 33        =    198
//   equalities: ~180 additions' linear equalities merged into shared constraints of <= 253 bits (EqualityBatch;
//               ~7 per constraint)
//                                                                                                       =     23
//   total                                                                                               = 25,773
// bellman's gadget costs 25,840 for the same: the same per-bit formulations (xor 1, ch 1, maj 2, booleanity 1,
// constants folded, MultiEq merging) but it materializes W62 and W63 (2 x 34 sum bits), 64 of the 67 saved
// here; the other 3 are merged-equality constraints (its 26 vs 23), as its widths differ slightly.
#pragma once

#include <array>
#include <optional>
#include <stdexcept>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "cuzk/circuits/standin/uint32.hpp"

namespace cuzk::standin {

// FIPS 180-4 4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
inline constexpr std::array<uint32_t, 64> kSha256RoundConstants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};
// FIPS 180-4 5.3.3: the first 32 bits of the fractional parts of the square roots of the first 8 primes.
inline constexpr std::array<uint32_t, 8> kSha256Iv = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

// Native compression of one 64-byte block into `state` (the reference the gadget is tested against, and a way to
// compute intermediate states for a circuit that starts from one).
inline void sha256_compress_native(std::array<uint32_t, 8>& state, const uint8_t block[64]) {
    auto rotr = [](uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = uint32_t(block[4 * i]) << 24 | uint32_t(block[4 * i + 1]) << 16 | uint32_t(block[4 * i + 2]) << 8 |
               block[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6],
             h = state[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kSha256RoundConstants[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    state[0] += a, state[1] += b, state[2] += c, state[3] += d;
    state[4] += e, state[5] += f, state[6] += g, state[7] += h;
}

// The 8 IV words as constants.
inline std::array<UInt32, 8> sha256_iv() {
    std::array<UInt32, 8> iv;
    for (int i = 0; i < 8; i++) iv[i] = UInt32::constant(kSha256Iv[i]);
    return iv;
}

namespace detail {
// A word known only as a sum of operands not yet reduced mod 2^32 (a bellman-style deferred addition): it is
// materialized into bits only when bits are needed, so several additions share one carry decomposition.
struct DeferredWord {
    std::vector<UInt32> ops;
    template <class CS, class N>
    UInt32 materialize(CS& cs, N&& name, EqualityBatch<CS>& batch) const {
        if (ops.size() == 1) return ops[0];
        return UInt32::add_many(cs, std::forward<N>(name), std::span<const UInt32>(ops), &batch);
    }
};

template <class CS, class N>
UInt32 xor3(CS& cs, N&& name, const UInt32& x, const UInt32& y, const UInt32& z) {
    Namespace<CS> ns(cs, std::forward<N>(name));
    return x.xor_(cs, "first xor", y).xor_(cs, "second xor", z);
}
}  // namespace detail

// One compression: 512 input bits (big-endian words) and the current state; returns the next state.
template <class CS, class N>
std::array<UInt32, 8> sha256_compression(CS& cs, N&& name, std::span<const Boolean> block,
                                         const std::array<UInt32, 8>& state) {
    if (block.size() != 512) throw std::invalid_argument("sha256_compression: block must be 512 bits");
    Namespace<CS> ns(cs, std::forward<N>(name));
    EqualityBatch<CS> batch(cs);
    using detail::DeferredWord;

    // Message schedule. W62 and W63 are never an input of sigma0/sigma1, only of the round additions, so they stay
    // deferred: their summands join the round sums instead of costing a carry decomposition of their own.
    std::vector<DeferredWord> w(64);
    std::vector<UInt32> wb(62);  // materialized words
    for (int i = 0; i < 16; i++) {
        wb[i] = UInt32::from_bits_be(block.subspan(32 * i, 32));
        w[i].ops = {wb[i]};
    }
    for (int i = 16; i < 64; i++) {
        Namespace<CS> wns(cs, [i] { return "w " + std::to_string(i); });
        UInt32 s0 = detail::xor3(cs, "s0", wb[i - 15].rotr(7), wb[i - 15].rotr(18), wb[i - 15].shr(3));
        UInt32 s1 = detail::xor3(cs, "s1", wb[i - 2].rotr(17), wb[i - 2].rotr(19), wb[i - 2].shr(10));
        w[i].ops = {wb[i - 16], s0, wb[i - 7], s1};
        if (i < 62) {
            wb[i] = w[i].materialize(cs, "sum", batch);
            w[i].ops = {wb[i]};
        }
    }

    DeferredWord a{{state[0]}}, e{{state[4]}};
    UInt32 b = state[1], c = state[2], d = state[3], f = state[5], g = state[6], h = state[7];
    for (int i = 0; i < 64; i++) {
        Namespace<CS> rns(cs, [i] { return "round " + std::to_string(i); });
        UInt32 e_bits = e.materialize(cs, "e", batch);
        UInt32 s1 = detail::xor3(cs, "S1", e_bits.rotr(6), e_bits.rotr(11), e_bits.rotr(25));
        UInt32 ch = UInt32::sha256_ch(cs, "ch", e_bits, f, g);
        UInt32 a_bits = a.materialize(cs, "a", batch);
        UInt32 s0 = detail::xor3(cs, "S0", a_bits.rotr(2), a_bits.rotr(13), a_bits.rotr(22));
        UInt32 maj = UInt32::sha256_maj(cs, "maj", a_bits, b, c);

        // temp1 = h + S1 + ch + K_i + W_i;  e' = d + temp1;  a' = temp1 + S0 + maj
        std::vector<UInt32> temp1 = {h, s1, ch, UInt32::constant(kSha256RoundConstants[i])};
        temp1.insert(temp1.end(), w[i].ops.begin(), w[i].ops.end());
        h = g, g = f, f = e_bits;
        e.ops = temp1;
        e.ops.push_back(d);
        d = c, c = b, b = a_bits;
        a.ops = std::move(temp1);
        a.ops.push_back(s0);
        a.ops.push_back(maj);
    }

    std::array<UInt32, 8> out;
    a.ops.push_back(state[0]);
    e.ops.push_back(state[4]);
    out[0] = a.materialize(cs, "h0", batch);
    out[4] = e.materialize(cs, "h4", batch);
    const UInt32* rest[8] = {nullptr, &b, &c, &d, nullptr, &f, &g, &h};
    for (int j : {1, 2, 3, 5, 6, 7}) {
        std::array<UInt32, 2> ops = {state[j], *rest[j]};
        out[j] = UInt32::add_many(cs, [j] { return "h" + std::to_string(j); }, std::span<const UInt32>(ops), &batch);
    }
    batch.flush();
    return out;
}

inline std::vector<Boolean> sha256_state_bits_be(const std::array<UInt32, 8>& state) {
    std::vector<Boolean> out;
    out.reserve(256);
    for (const UInt32& word : state) {
        auto bits = word.to_bits_be();
        out.insert(out.end(), bits.begin(), bits.end());
    }
    return out;
}

// The 32 bytes of a digest given as 256 big-endian bits (the gadgets' output order); nullopt when some bit has no
// known value (key generation). Throws std::invalid_argument for a vector that is not 256 bits.
inline std::optional<std::array<uint8_t, 32>> sha256_digest_bytes(const std::vector<Boolean>& bits) {
    if (bits.size() != 256) throw std::invalid_argument("sha256_digest_bytes: a digest is 256 bits");
    std::array<uint8_t, 32> out{};
    for (size_t i = 0; i < 256; i++) {
        auto v = bits[i].value();
        if (!v) return std::nullopt;
        if (*v) out[i / 8] |= uint8_t(0x80 >> (i % 8));
    }
    return out;
}

// One compression of a 512-bit block from the IV, returning the 256 state bits (big-endian).
template <class CS>
std::vector<Boolean> sha256_block_no_padding(CS& cs, std::span<const Boolean> block) {
    return sha256_state_bits_be(sha256_compression(cs, "sha256 block", block, sha256_iv()));
}

// SHA-256 of a whole number of bytes given as bits (big-endian within bytes): the message, a 1 bit, zeros up to
// 448 mod 512, and the 64-bit big-endian bit length — all constants — then one compression per 512-bit block.
template <class CS>
std::vector<Boolean> sha256(CS& cs, std::span<const Boolean> input) {
    if (input.size() % 8 != 0) throw std::invalid_argument("sha256: input must be whole bytes");
    std::vector<Boolean> padded(input.begin(), input.end());
    uint64_t len = input.size();
    padded.push_back(Boolean::constant(true));
    while ((padded.size() + 64) % 512 != 0) padded.push_back(Boolean::constant(false));
    for (int i = 63; i >= 0; i--) padded.push_back(Boolean::constant((len >> i) & 1));
    std::array<UInt32, 8> state = sha256_iv();
    for (size_t blk = 0; blk < padded.size() / 512; blk++)
        state = sha256_compression(cs, [blk] { return "block " + std::to_string(blk); },
                                   std::span<const Boolean>(padded).subspan(512 * blk, 512), state);
    return sha256_state_bits_be(state);
}

}  // namespace cuzk::standin
