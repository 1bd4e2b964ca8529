// 32-bit words as 32 Booleans, least significant first, exactly as bellperson's gadgets/uint32.rs.
//
// Rotations and shifts only reorder bits (shifted-in bits are constant false): no rows. Bitwise operations go bit
// by bit through the Boolean gadgets, which fold constants. addmany allocates the bits of the unreduced sum — as
// many as the bit length of n * (2^32 - 1) for n operands, whatever their values or constness, as bellperson does —
// and hands the linear equality "sum of operands = sum of result bits" to a MultiEq, which merges it with others.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/gadgets/bit_word.hpp"
#include "cuzk/gadgets/boolean.hpp"
#include "cuzk/gadgets/multieq.hpp"

namespace cuzk::gadgets {

class UInt32 : public BitWord<UInt32, uint32_t> {
public:
    static constexpr const char* kName = "UInt32";
    UInt32() : UInt32(constant(0)) {}

    UInt32 rotr(unsigned by) const {
        by %= 32;
        UInt32 r(Raw{});
        for (unsigned i = 0; i < 32; i++) r.bits_[i] = bits_[(i + by) % 32];
        if (value_) r.value_ = std::rotr(*value_, (int)by);
        return r;
    }
    // As bellperson: the shift is taken mod 32 (shr(32) is the identity), shifted-in bits are constant false.
    UInt32 shr(unsigned by) const {
        by %= 32;
        UInt32 r(Raw{});
        for (unsigned i = 0; i < 32; i++) r.bits_[i] = i + by < 32 ? bits_[i + by] : Boolean::constant(false);
        if (value_) r.value_ = *value_ >> by;
        return r;
    }

    // Bitwise xor, bit i in "<name>/xor of bit i".
    template <class CS, class N>
    UInt32 xor_(CS& cs, N&& name, const UInt32& o) const {
        Namespace<CS> ns(cs, std::forward<N>(name));
        UInt32 r(Raw{});
        for (int i = 0; i < 32; i++)
            r.bits_[i] = Boolean::xor_(
                cs, [i] { return "xor of bit " + std::to_string(i); }, bits_[i], o.bits_[i]);
        if (value_ && o.value_) r.value_ = *value_ ^ *o.value_;
        return r;
    }

    // Bitwise SHA-256 ch / maj, bit i in "<name>/ch i" / "<name>/maj i".
    template <class CS, class N>
    static UInt32 sha256_ch(CS& cs, N&& name, const UInt32& a, const UInt32& b, const UInt32& c) {
        Namespace<CS> ns(cs, std::forward<N>(name));
        UInt32 r(Raw{});
        for (int i = 0; i < 32; i++)
            r.bits_[i] = Boolean::sha256_ch(
                cs, [i] { return "ch " + std::to_string(i); }, a.bits_[i], b.bits_[i], c.bits_[i]);
        if (a.value_ && b.value_ && c.value_) r.value_ = (*a.value_ & *b.value_) ^ (~*a.value_ & *c.value_);
        return r;
    }
    template <class CS, class N>
    static UInt32 sha256_maj(CS& cs, N&& name, const UInt32& a, const UInt32& b, const UInt32& c) {
        Namespace<CS> ns(cs, std::forward<N>(name));
        UInt32 r(Raw{});
        for (int i = 0; i < 32; i++)
            r.bits_[i] = Boolean::sha256_maj(
                cs, [i] { return "maj " + std::to_string(i); }, a.bits_[i], b.bits_[i], c.bits_[i]);
        if (a.value_ && b.value_ && c.value_)
            r.value_ = (*a.value_ & *b.value_) ^ (*a.value_ & *c.value_) ^ (*b.value_ & *c.value_);
        return r;
    }

    // The sum of 2..10 operands mod 2^32. All-constant operands give a constant and no row. Otherwise the
    // bit_length(n * (2^32 - 1)) bits of the full sum are allocated as "<name>/result bit j" (booleanity each;
    // 33 bits for 2 operands, 34 for 3-4, 35 for 5-8, 36 for 9-10), then the equality
    //   sum_ops sum_i 2^i op_i = sum_j 2^j r_j
    // goes to `meq` (both sides below 2^36, far below r, so it is the integer equation and bits 32.. are the
    // carry that is dropped). `meq` must wrap `cs`.
    template <class CS, class N>
    static UInt32 addmany(CS& cs, MultiEq<CS>& meq, N&& name, std::span<const UInt32> ops) {
        if (ops.size() < 2 || ops.size() > 10) throw std::invalid_argument("UInt32::addmany: 2 to 10 operands");
        const uint64_t max_value = (uint64_t)ops.size() * 0xffffffffull;
        // The integer sum when every operand's value is known (a plain flag: GCC 12 reports std::optional<uint64_t>
        // here as maybe-uninitialized).
        uint64_t sum = 0;
        bool sum_known = true;
        bool all_constants = true;
        for (const UInt32& op : ops) {
            if (sum_known && op.value_)
                sum += *op.value_;
            else
                sum_known = false;
            for (const Boolean& b : op.bits_) all_constants &= b.is_constant();
        }
        if (all_constants && sum_known) return constant((uint32_t)sum);

        Namespace<CS> ns(cs, std::forward<N>(name));
        const size_t nbits = (size_t)std::bit_width(max_value);
        std::array<Variable, 36> result_vars;
        UInt32 r(Raw{});
        for (size_t j = 0; j < nbits; j++) {
            std::optional<bool> b;
            if (sum_known) b = (sum >> j) & 1;
            AllocatedBit bit = AllocatedBit::alloc(
                cs, [j] { return "result bit " + std::to_string(j); }, b);
            result_vars[j] = bit.variable();
            if (j < 32) r.bits_[j] = bit;
        }
        if (sum_known) r.value_ = (uint32_t)sum;
        if constexpr (!CS::kNeedsValues) r.value_ = std::nullopt;

        // The equality joins the pending MultiEq row after the result bits' booleanity rows, where bellperson's
        // enforce_equal (and any row it flushes) comes.
        const size_t shift = meq.begin_equality(nbits);
        if constexpr (records_constraints<CS>()) {
            const Fr* pow2 = pow2_table().data() + shift;
            LC& lhs = meq.lhs();
            Fr& one_part = meq.lhs_one();
            for (const UInt32& op : ops)
                for (int i = 0; i < 32; i++) op.bits_[i].add_to_lc_folding(lhs, one_part, pow2[i]);
            LC& rhs = meq.rhs();
            for (size_t j = 0; j < nbits; j++) rhs.add(pow2[j], result_vars[j]);
        }
        return r;
    }

private:
    friend class BitWord<UInt32, uint32_t>;
    explicit UInt32(Raw) {}
};

}  // namespace cuzk::gadgets
