// A machine word as N Booleans, least significant first: what bellperson's UInt32 and storage-proofs-core's UInt64
// share (constants, allocation bit by bit, the bit orders in and out, the value when every bit's is known).
// UInt32 and UInt64 derive from it (CRTP) and add their own operations.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/gadgets/boolean.hpp"

namespace cuzk::gadgets {

template <class Derived, class Word>
class BitWord {
public:
    static constexpr int kBits = 8 * (int)sizeof(Word);

    static Derived constant(Word v) {
        Derived r{Raw{}};
        for (int i = 0; i < kBits; i++) r.bits_[i] = Boolean::constant((v >> i) & 1);
        r.value_ = v;
        return r;
    }

    // kBits fresh bits "<name>/allocated bit i" (kBits rows).
    template <class CS, class N>
    static Derived alloc(CS& cs, N&& name, std::optional<Word> value) {
        if constexpr (!CS::kNeedsValues) value = std::nullopt;
        Namespace<CS> ns(cs, std::forward<N>(name));
        Derived r{Raw{}};
        for (int i = 0; i < kBits; i++) {
            std::optional<bool> b;
            if (value) b = (*value >> i) & 1;
            r.bits_[i] = AllocatedBit::alloc(
                cs, [i] { return "allocated bit " + std::to_string(i); }, b);
        }
        r.value_ = value;
        return r;
    }

    // From kBits bits, most significant first (SHA-256's word order).
    static Derived from_bits_be(std::span<const Boolean> bits) {
        check_size(bits, "from_bits_be");
        Derived r{Raw{}};
        for (int i = 0; i < kBits; i++) r.bits_[i] = bits[kBits - 1 - i];
        r.recompute_value();
        return r;
    }
    // From kBits bits, least significant first.
    static Derived from_bits(std::span<const Boolean> bits) {
        check_size(bits, "from_bits");
        Derived r{Raw{}};
        for (int i = 0; i < kBits; i++) r.bits_[i] = bits[i];
        r.recompute_value();
        return r;
    }

    // Most / least significant first.
    std::vector<Boolean> to_bits_be() const { return {bits_.rbegin(), bits_.rend()}; }
    std::vector<Boolean> to_bits_le() const { return {bits_.begin(), bits_.end()}; }
    // Appends the bits most significant first (no temporary vector).
    void append_bits_be(std::vector<Boolean>& out) const { out.insert(out.end(), bits_.rbegin(), bits_.rend()); }
    const std::array<Boolean, kBits>& bits_le() const { return bits_; }
    const std::optional<Word>& value() const { return value_; }

protected:
    struct Raw {};
    BitWord() = default;

    void recompute_value() {
        Word v = 0;
        for (int i = 0; i < kBits; i++) {
            auto b = bits_[i].value();
            if (!b) {
                value_.reset();
                return;
            }
            v |= Word(*b) << i;
        }
        value_ = v;
    }

    std::array<Boolean, kBits> bits_;
    std::optional<Word> value_;

private:
    static void check_size(std::span<const Boolean> bits, const char* who) {
        if ((int)bits.size() != kBits)
            throw std::invalid_argument(Derived::kName + std::string("::") + who + ": need " +
                                        std::to_string(kBits) + " bits");
    }
};

}  // namespace cuzk::gadgets
