// 64-bit words as 64 Booleans, least significant first, exactly as rust-fil-proofs' storage-proofs-core
// gadgets/uint64.rs: PoRep's challenge is a UInt64 of 64 allocated bits (64 rows) exposed as one public input by
// pack_into_input (1 row), and enters the label preimage as its big-endian bits.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/gadgets/boolean.hpp"
#include "cuzk/gadgets/multipack.hpp"

namespace cuzk::gadgets {

class UInt64 {
public:
    UInt64() : UInt64(constant(0)) {}

    static UInt64 constant(uint64_t v) {
        UInt64 r(Raw{});
        for (int i = 0; i < 64; i++) r.bits_[i] = Boolean::constant((v >> i) & 1);
        r.value_ = v;
        return r;
    }

    // 64 fresh bits "<name>/allocated bit i" (64 rows).
    template <class CS, class N>
    static UInt64 alloc(CS& cs, N&& name, std::optional<uint64_t> value) {
        if constexpr (!CS::kNeedsValues) value = std::nullopt;
        Namespace<CS> ns(cs, std::forward<N>(name));
        UInt64 r(Raw{});
        for (int i = 0; i < 64; i++) {
            std::optional<bool> b;
            if (value) b = (*value >> i) & 1;
            r.bits_[i] = AllocatedBit::alloc(
                cs, [i] { return "allocated bit " + std::to_string(i); }, b);
        }
        r.value_ = value;
        return r;
    }

    // The value as one public input: pack_into_inputs of the 64 bits, in the namespace `name` (1 input, 1 row).
    template <class CS, class N>
    AllocatedNum pack_into_input(CS& cs, N&& name) const {
        return pack_into_inputs(cs, std::forward<N>(name), std::span<const Boolean>(bits_)).at(0);
    }

    // Most significant first.
    std::vector<Boolean> to_bits_be() const { return {bits_.rbegin(), bits_.rend()}; }
    static UInt64 from_bits_be(std::span<const Boolean> bits) {
        if (bits.size() != 64) throw std::invalid_argument("UInt64::from_bits_be: need 64 bits");
        UInt64 r(Raw{});
        for (int i = 0; i < 64; i++) r.bits_[i] = bits[63 - i];
        r.recompute_value();
        return r;
    }
    // Least significant first.
    std::vector<Boolean> to_bits_le() const { return {bits_.begin(), bits_.end()}; }
    static UInt64 from_bits(std::span<const Boolean> bits) {
        if (bits.size() != 64) throw std::invalid_argument("UInt64::from_bits: need 64 bits");
        UInt64 r(Raw{});
        for (int i = 0; i < 64; i++) r.bits_[i] = bits[i];
        r.recompute_value();
        return r;
    }

    const std::array<Boolean, 64>& bits_le() const { return bits_; }
    const std::optional<uint64_t>& value() const { return value_; }

private:
    struct Raw {};
    explicit UInt64(Raw) {}
    void recompute_value() {
        uint64_t v = 0;
        for (int i = 0; i < 64; i++) {
            auto b = bits_[i].value();
            if (!b) {
                value_.reset();
                return;
            }
            v |= uint64_t(*b) << i;
        }
        value_ = v;
    }

    std::array<Boolean, 64> bits_;
    std::optional<uint64_t> value_;
};

}  // namespace cuzk::gadgets
