// 64-bit words as 64 Booleans, least significant first, exactly as rust-fil-proofs' storage-proofs-core
// gadgets/uint64.rs: PoRep's challenge is a UInt64 of 64 allocated bits (64 rows) exposed as one public input by
// pack_into_input (1 row), and enters the label preimage as its big-endian bits.
#pragma once

#include <cstdint>
#include <span>

#include "cuzk/gadgets/bit_word.hpp"
#include "cuzk/gadgets/boolean.hpp"
#include "cuzk/gadgets/multipack.hpp"

namespace cuzk::gadgets {

class UInt64 : public BitWord<UInt64, uint64_t> {
public:
    static constexpr const char* kName = "UInt64";
    UInt64() : UInt64(constant(0)) {}

    // The value as one public input: pack_into_inputs of the 64 bits, in the namespace `name` (1 input, 1 row).
    template <class CS, class N>
    AllocatedNum pack_into_input(CS& cs, N&& name) const {
        return pack_into_inputs(cs, std::forward<N>(name), std::span<const Boolean>(bits_)).at(0);
    }

private:
    friend class BitWord<UInt64, uint64_t>;
    explicit UInt64(Raw) {}
};

}  // namespace cuzk::gadgets
