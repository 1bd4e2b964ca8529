// SHA-256 (FIPS 180-4) in the constraint system exactly as bellperson's gadgets/sha256.rs synthesizes it: the
// same aux variables in the same order and the same rows, so a circuit built on it matches Filecoin's parameter
// files. Bits are big-endian (the first bit is the most significant bit of the first byte).
//
// The algorithm, step for step as bellperson:
//   - one MultiEq per compression; every UInt32 addition goes through it, its last row is emitted at the end;
//   - the message schedule materializes all 48 words W16..W63 (4-operand additions, 34 result bits each), with
//     sigma0 / sigma1 as two UInt32 xors each (the shifted-in constant bits fold away);
//   - in each round the new e and a stay deferred (operand lists) until the next round needs their bits:
//     e = [h, S1, ch, K_i, W_i, d] (6 operands, 35 bits), a = [h, S1, ch, K_i, W_i, S0, maj] (7 operands, 35 bits);
//     a concrete word (the incoming state) is used as is;
//   - the final state: h0 = deferred a plus the incoming h0 (8 operands), h4 = deferred e plus h4 (7 operands),
//     the other six are 2-operand additions (33 bits).
// With the constant IV and a 512-bit allocated block this is 25,840 rows (bellperson's test_full_block); two blocks
// (512 allocated bits through `sha256`, the second block all padding) 44,874 (test_full_hash); a fully constant
// block 0 (test_blank_hash). Pinned in tests/test_gadgets_sha256.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/gadgets/multieq.hpp"
#include "cuzk/gadgets/sha256_constants.hpp"
#include "cuzk/gadgets/sha256_witness.hpp"
#include "cuzk/gadgets/uint32.hpp"

namespace cuzk::gadgets {

// The IV as 8 constant words.
inline std::array<UInt32, 8> sha256_iv() {
    std::array<UInt32, 8> iv;
    for (int i = 0; i < 8; i++) iv[i] = UInt32::constant(kSha256Iv[i]);
    return iv;
}

namespace detail {
// bellperson's `Maybe`: a word known either as bits (concrete) or as a list of operands whose sum (mod 2^32) it
// is, turned into bits by one addmany when needed. At most 8 operands occur (h0 = 7 deferred + 1).
struct MaybeWord {
    static constexpr size_t kMaxOps = 10;  // addmany's limit
    bool concrete = true;
    UInt32 word;
    std::array<UInt32, kMaxOps> ops;
    size_t n = 0;

    static MaybeWord of(const UInt32& w) {
        MaybeWord m;
        m.word = w;
        return m;
    }
    void defer(std::initializer_list<const UInt32*> parts) {
        concrete = false;
        n = 0;
        for (const UInt32* p : parts) push(*p);
    }
    void push(const UInt32& w) {
        if (n == kMaxOps) throw std::logic_error("sha256: more than 10 deferred operands");
        ops[n++] = w;
    }
    // The word's bits; `extra` operands join a deferred sum (a concrete word ignores them, as bellperson's does).
    template <class CS, class N>
    UInt32 compute(CS& cs, MultiEq<CS>& meq, N&& name, const UInt32* extra = nullptr) {
        if (concrete) return word;
        if (extra) push(*extra);
        return UInt32::addmany(cs, meq, std::forward<N>(name), std::span<const UInt32>(ops.data(), n));
    }
};

// The gadget: what every system gets, and the definition the witness-only path (sha256_witness.hpp) follows.
template <class CS>
std::array<UInt32, 8> sha256_compression_gadget(CS& cs, std::span<const Boolean> input,
                                                const std::array<UInt32, 8>& current_hash_value) {
    if (input.size() != 512) throw std::invalid_argument("sha256 compression: the block must be 512 bits");
    std::array<UInt32, 64> w;
    for (int i = 0; i < 16; i++) w[i] = UInt32::from_bits_be(input.subspan(32 * i, 32));

    MultiEq<CS> meq(cs);
    for (int i = 16; i < 64; i++) {
        Namespace<CS> ns(cs, [i] { return "w extension " + std::to_string(i); });
        UInt32 s0 = w[i - 15].rotr(7);
        s0 = s0.xor_(cs, "first xor for s0", w[i - 15].rotr(18));
        s0 = s0.xor_(cs, "second xor for s0", w[i - 15].shr(3));
        UInt32 s1 = w[i - 2].rotr(17);
        s1 = s1.xor_(cs, "first xor for s1", w[i - 2].rotr(19));
        s1 = s1.xor_(cs, "second xor for s1", w[i - 2].shr(10));
        const std::array<UInt32, 4> ops = {w[i - 16], s0, w[i - 7], s1};
        w[i] = UInt32::addmany(cs, meq, "computation of w[i]", std::span<const UInt32>(ops));
    }

    MaybeWord a = MaybeWord::of(current_hash_value[0]);
    UInt32 b = current_hash_value[1];
    UInt32 c = current_hash_value[2];
    UInt32 d = current_hash_value[3];
    MaybeWord e = MaybeWord::of(current_hash_value[4]);
    UInt32 f = current_hash_value[5];
    UInt32 g = current_hash_value[6];
    UInt32 h = current_hash_value[7];

    for (int i = 0; i < 64; i++) {
        Namespace<CS> ns(cs, [i] { return "compression round " + std::to_string(i); });
        // S1 = (e >>> 6) ^ (e >>> 11) ^ (e >>> 25)
        UInt32 new_e = e.compute(cs, meq, "deferred e computation");
        UInt32 s1 = new_e.rotr(6);
        s1 = s1.xor_(cs, "first xor for s1", new_e.rotr(11));
        s1 = s1.xor_(cs, "second xor for s1", new_e.rotr(25));
        UInt32 ch = UInt32::sha256_ch(cs, "ch", new_e, f, g);
        const UInt32 k = UInt32::constant(kSha256RoundConstants[i]);
        // S0 = (a >>> 2) ^ (a >>> 13) ^ (a >>> 22)
        UInt32 new_a = a.compute(cs, meq, "deferred a computation");
        UInt32 s0 = new_a.rotr(2);
        s0 = s0.xor_(cs, "first xor for s0", new_a.rotr(13));
        s0 = s0.xor_(cs, "second xor for s0", new_a.rotr(22));
        UInt32 maj = UInt32::sha256_maj(cs, "maj", new_a, b, c);

        // temp1 = h + S1 + ch + K_i + W_i;  e' = temp1 + d;  a' = temp1 + S0 + maj (all deferred)
        e.defer({&h, &s1, &ch, &k, &w[i], &d});
        a.defer({&h, &s1, &ch, &k, &w[i], &s0, &maj});
        h = g;
        g = f;
        f = new_e;
        d = c;
        c = b;
        b = new_a;
    }

    std::array<UInt32, 8> out;
    out[0] = a.compute(cs, meq, "deferred h0 computation", &current_hash_value[0]);
    auto add2 = [&](int j, const UInt32& x) {
        const std::array<UInt32, 2> ops = {current_hash_value[j], x};
        return UInt32::addmany(
            cs, meq, [j] { return "new h" + std::to_string(j); }, std::span<const UInt32>(ops));
    };
    out[1] = add2(1, b);
    out[2] = add2(2, c);
    out[3] = add2(3, d);
    out[4] = e.compute(cs, meq, "deferred h4 computation", &current_hash_value[4]);
    out[5] = add2(5, f);
    out[6] = add2(6, g);
    out[7] = add2(7, h);
    meq.finish();
    return out;
}

// One compression: 32 bits at a time for witness-only systems (the same aux values; a 32 GiB PoRep partition's
// witness 1.04 -> 0.63 s on the 2-core dev VM), else the gadget.
template <class CS>
std::array<UInt32, 8> sha256_compression(CS& cs, std::span<const Boolean> input,
                                         const std::array<UInt32, 8>& current_hash_value) {
    if constexpr (witness_only<CS>()) {
        if (auto out = WitnessSha256<CS>(cs).compress(input, current_hash_value)) return *out;
    }
    return sha256_compression_gadget(cs, input, current_hash_value);
}

inline std::vector<Boolean> state_bits_be(const std::array<UInt32, 8>& state) {
    std::vector<Boolean> out;
    out.reserve(256);
    for (const UInt32& word : state) word.append_bits_be(out);
    return out;
}
}  // namespace detail

// One compression of a 512-bit block (big-endian words) from `current_hash_value`, in the namespace `name`;
// returns the next state. bellperson's sha256_compression_function.
template <class CS, class N>
std::array<UInt32, 8> sha256_compression_function(CS& cs, N&& name, std::span<const Boolean> input,
                                                  const std::array<UInt32, 8>& current_hash_value) {
    Namespace<CS> ns(cs, std::forward<N>(name));
    return detail::sha256_compression(cs, input, current_hash_value);
}

// One compression of a 512-bit block from the IV, no padding: the 256 state bits, big-endian.
template <class CS, class N>
std::vector<Boolean> sha256_block_no_padding(CS& cs, N&& name, std::span<const Boolean> input) {
    if (input.size() != 512) throw std::invalid_argument("sha256_block_no_padding: the block must be 512 bits");
    Namespace<CS> ns(cs, std::forward<N>(name));
    return detail::state_bits_be(detail::sha256_compression(cs, input, sha256_iv()));
}

// SHA-256 of a whole number of bytes given as bits: the message, a 1 bit, zeros up to 448 mod 512, the 64-bit
// big-endian bit length — all constant — then one compression per block in "<name>/block i". Returns the digest's
// 256 bits, big-endian.
template <class CS, class N>
std::vector<Boolean> sha256(CS& cs, N&& name, std::span<const Boolean> input) {
    if (input.size() % 8 != 0) throw std::invalid_argument("sha256: the input must be whole bytes");
    std::vector<Boolean> padded;
    padded.reserve((input.size() + 64 + 1 + 511) / 512 * 512);
    padded.assign(input.begin(), input.end());
    const uint64_t len = input.size();
    padded.push_back(Boolean::constant(true));
    while ((padded.size() + 64) % 512 != 0) padded.push_back(Boolean::constant(false));
    for (int i = 63; i >= 0; i--) padded.push_back(Boolean::constant((len >> i) & 1));

    Namespace<CS> ns(cs, std::forward<N>(name));
    std::array<UInt32, 8> cur = sha256_iv();
    const std::span<const Boolean> all(padded);
    for (size_t blk = 0; blk < padded.size() / 512; blk++) {
        Namespace<CS> bns(cs, [blk] { return "block " + std::to_string(blk); });
        cur = detail::sha256_compression(cs, all.subspan(512 * blk, 512), cur);
    }
    return detail::state_bits_be(cur);
}

// The 32 bytes of a digest given as 256 big-endian bits; nullopt when some bit has no value (key generation).
inline std::optional<std::array<uint8_t, 32>> sha256_digest_bytes(std::span<const Boolean> bits) {
    if (bits.size() != 256) throw std::invalid_argument("sha256_digest_bytes: a digest is 256 bits");
    std::array<uint8_t, 32> out{};
    for (size_t i = 0; i < 256; i++) {
        auto v = bits[i].value();
        if (!v) return std::nullopt;
        if (*v) out[i / 8] |= uint8_t(0x80 >> (i % 8));
    }
    return out;
}

}  // namespace cuzk::gadgets
