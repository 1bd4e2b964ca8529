// Packing bits into field elements and the bit-order helpers Filecoin's circuits use, exactly as bellperson's
// gadgets/multipack.rs (pack_bits, pack_into_inputs, compute_multipacking, bytes_to_bits[_le]) and
// rust-fil-proofs' storage-proofs-core util.rs (reverse_bit_numbering, bytes_into_boolean_vec[_be]).
//
// A packing row sums at most Fr::CAPACITY = 254 bits, so the sum is below 2^254 < r: the packed number is the
// integer, and two different bit strings never pack to the same value.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cuzk/gadgets/boolean.hpp"
#include "cuzk/gadgets/num.hpp"

namespace cuzk::gadgets {

// Fr::CAPACITY: the number of bits one field element packs.
inline constexpr size_t kFrCapacity = Fr::BITS - 1;  // 254

namespace detail {
// sum 2^i bits[i] as one combination (constants and negations folded into one term on ONE) and its value
// (nullopt when some bit has none): bellpepper's Num built by add_bool_with_coeff.
template <class CS>
std::pair<LC, std::optional<Fr>> pack_lc(std::span<const Boolean> bits) {
    LC lc;
    std::optional<Fr> value = Fr::zero();
    Fr one_part = Fr::zero();
    for (size_t i = 0; i < bits.size(); i++) {
        if constexpr (records_constraints<CS>()) bits[i].add_to_lc_folding(lc, one_part, pow2_table()[i]);
        if (value) {
            auto v = bits[i].value();
            if (!v)
                value.reset();
            else if (*v)
                *value += pow2_table()[i];
        }
    }
    if constexpr (records_constraints<CS>()) {
        if (!one_part.is_zero()) lc.add(one_part, Variable::one());
    }
    if constexpr (!CS::kNeedsValues) value.reset();
    return {std::move(lc), value};
}
}  // namespace detail

// The first (at most) 254 bits, little-endian, as one number: "<name>/input/num" with the row
// "<name>/packing constraint": (sum 2^i b_i) * ONE = num. 1 aux, 1 row. Bits past 254 are ignored, as bellperson's.
template <class CS, class N>
AllocatedNum pack_bits(CS& cs, N&& name, std::span<const Boolean> bits) {
    bits = bits.first(std::min(bits.size(), kFrCapacity));
    Namespace<CS> ns(cs, std::forward<N>(name));
    auto [lc, value] = detail::pack_lc<CS>(bits);
    AllocatedNum num;
    {
        Namespace<CS> ins(cs, "input");
        num = AllocatedNum::alloc(cs, "num", value);
    }
    if constexpr (records_constraints<CS>()) cs.enforce("packing constraint", lc, LC(Variable::one()), num.as_lc());
    return num;
}

// The bits as public inputs, 254 per input, little-endian: for chunk i the input "<name>/input i" and the row
// "<name>/packing constraint i": (sum 2^j b_j) * ONE = input. Returns the inputs.
template <class CS, class N>
std::vector<AllocatedNum> pack_into_inputs(CS& cs, N&& name, std::span<const Boolean> bits) {
    Namespace<CS> ns(cs, std::forward<N>(name));
    std::vector<AllocatedNum> inputs;
    for (size_t i = 0, start = 0; start < bits.size(); i++, start += kFrCapacity) {
        auto chunk = bits.subspan(start, std::min(kFrCapacity, bits.size() - start));
        auto [lc, value] = detail::pack_lc<CS>(chunk);
        AllocatedNum in = AllocatedNum::alloc_input(
            cs, [i] { return "input " + std::to_string(i); }, value);
        if constexpr (records_constraints<CS>())
            cs.enforce([i] { return "packing constraint " + std::to_string(i); }, lc, LC(Variable::one()), in.as_lc());
        inputs.push_back(in);
    }
    return inputs;
}

// What pack_into_inputs makes the inputs (the verifier's side): each chunk of 254 bits as sum 2^j b_j.
inline std::vector<Fr> compute_multipacking(const std::vector<bool>& bits) {
    std::vector<Fr> out;
    for (size_t start = 0; start < bits.size(); start += kFrCapacity) {
        Fr cur = Fr::zero();
        for (size_t j = 0; j < kFrCapacity && start + j < bits.size(); j++)
            if (bits[start + j]) cur += pow2_table()[j];
        out.push_back(cur);
    }
    return out;
}

// Bytes as bits, most significant bit of each byte first (SHA-256's order).
inline std::vector<bool> bytes_to_bits(std::span<const uint8_t> bytes) {
    std::vector<bool> out;
    out.reserve(8 * bytes.size());
    for (uint8_t b : bytes)
        for (int i = 7; i >= 0; i--) out.push_back((b >> i) & 1);
    return out;
}
// Bytes as bits, least significant bit of each byte first (little-endian numbers).
inline std::vector<bool> bytes_to_bits_le(std::span<const uint8_t> bytes) {
    std::vector<bool> out;
    out.reserve(8 * bytes.size());
    for (uint8_t b : bytes)
        for (int i = 0; i < 8; i++) out.push_back((b >> i) & 1);
    return out;
}

// Pads with constant false to whole bytes, then reverses the bit order inside each byte (byte order unchanged):
// little-endian bits of a number (to_bits_le) become the big-endian-within-bytes order of its little-endian bytes,
// which is how SHA-256 reads a 32-byte node; and back, for a digest.
inline std::vector<Boolean> reverse_bit_numbering(std::vector<Boolean> bits) {
    while (bits.size() % 8 != 0) bits.push_back(Boolean::constant(false));
    for (size_t i = 0; i < bits.size(); i += 8) std::reverse(bits.begin() + i, bits.begin() + i + 8);
    return bits;
}

namespace detail {
template <class CS, class N>
std::vector<Boolean> bytes_into_bits_alloc(CS& cs, N&& name, std::optional<std::span<const uint8_t>> bytes,
                                           size_t size_if_unknown, bool msb_first) {
    Namespace<CS> ns(cs, std::forward<N>(name));
    const size_t n = bytes ? 8 * bytes->size() : size_if_unknown;
    std::vector<Boolean> bits;
    bits.reserve(n);
    for (size_t i = 0; i < n; i++) {
        std::optional<bool> v;
        if (bytes) {
            const uint8_t byte = (*bytes)[i / 8];
            v = msb_first ? (byte >> (7 - i % 8)) & 1 : (byte >> (i % 8)) & 1;
        }
        bits.push_back(AllocatedBit::alloc(
            cs, [i] { return "bit " + std::to_string(i); }, v));
    }
    return bits;
}
}  // namespace detail

// Bytes as constrained bits "<name>/bit i", most significant bit of each byte first (storage-proofs-core
// bytes_into_boolean_vec_be). Without bytes (key generation), `size_if_unknown` bits — as upstream, whose callers
// pass the byte count there, so give the bit count to get the same shape.
template <class CS, class N>
std::vector<Boolean> bytes_into_boolean_vec_be(CS& cs, N&& name, std::optional<std::span<const uint8_t>> bytes,
                                               size_t size_if_unknown) {
    return detail::bytes_into_bits_alloc(cs, std::forward<N>(name), bytes, size_if_unknown, true);
}
// The same, least significant bit of each byte first (bytes_into_boolean_vec).
template <class CS, class N>
std::vector<Boolean> bytes_into_boolean_vec(CS& cs, N&& name, std::optional<std::span<const uint8_t>> bytes,
                                            size_t size_if_unknown) {
    return detail::bytes_into_bits_alloc(cs, std::forward<N>(name), bytes, size_if_unknown, false);
}

}  // namespace cuzk::gadgets
