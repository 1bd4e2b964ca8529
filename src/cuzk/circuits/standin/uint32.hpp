// 32-bit words as 32 Booleans (least significant first), for SHA-256.
//
// Rotations and shifts only reorder bits (shifted-in bits are constant false): no constraints. Bitwise operations
// go bit by bit through the Boolean gadgets, which fold constants. Addition modulo 2^32 of several words is one
// carry decomposition: allocate the bits of the full (unreduced) sum, low 32 being the result and the rest the
// carry, and enforce one linear equation  sum of the operands (as packed bits) = packed result + 2^32 * carry.
// Constant words enter that equation as a single term on the constant one.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "cuzk/circuits/standin/boolean.hpp"

namespace cuzk::standin {

// Several linear equalities lhs_k = rhs_k, each between integers known to lie in [0, 2^{n_k}), merged into one
// constraint  sum_k 2^{s_k} lhs_k = sum_k 2^{s_k} rhs_k  with s_k = n_0 + ... + n_{k-1} (bellman's MultiEq idea).
// While the total stays <= 253 bits both sides are integers below 2^253 < r, so the field equation is an integer
// equation, and base-2^{n_k} digits are unique: each lhs_k = rhs_k still holds. SHA-256 makes ~180 additions per
// compression; merging saves ~150 constraints. Call flush() when done (the destructor flushes too, unless an
// exception is unwinding).
template <class CS>
class EqualityBatch {
public:
    static constexpr size_t kCapacityBits = 253;

    explicit EqualityBatch(CS& cs) : cs_(cs) {}
    EqualityBatch(const EqualityBatch&) = delete;
    EqualityBatch& operator=(const EqualityBatch&) = delete;
    ~EqualityBatch() {
        if (bits_used_ > 0 && std::uncaught_exceptions() == 0) flush();
    }

    // lhs = rhs where both are below 2^num_bits as integers (num_bits <= 253).
    void enforce_equal(size_t num_bits, const LC& lhs, const LC& rhs) {
        if (num_bits > kCapacityBits) throw SynthesisError(SynthesisErrorKind::Other, "equality wider than 253 bits");
        if constexpr (!records_constraints<CS>()) return;
        if (bits_used_ + num_bits > kCapacityBits) flush();
        const Fr& scale = pow2_table()[bits_used_];
        lhs_.add(scale, lhs);
        rhs_.add(scale, rhs);
        bits_used_ += num_bits;
    }
    void flush() {
        if (bits_used_ == 0) return;
        size_t k = flushed_++;
        cs_.enforce([k] { return "merged equality " + std::to_string(k); }, lhs_, LC(Variable::one()), rhs_);
        lhs_ = LC();
        rhs_ = LC();
        bits_used_ = 0;
    }
    size_t constraints() const { return flushed_; }

private:
    CS& cs_;
    LC lhs_, rhs_;
    size_t bits_used_ = 0;
    size_t flushed_ = 0;
};

class UInt32 {
public:
    UInt32() : UInt32(constant(0)) {}

    static UInt32 constant(uint32_t v) {
        UInt32 r(0);
        for (int i = 0; i < 32; i++) r.bits_[i] = Boolean::constant((v >> i) & 1);
        r.value_ = v;
        return r;
    }

    // 32 fresh bits with booleanity (32 constraints).
    template <class CS, class N>
    static UInt32 alloc(CS& cs, N&& name, std::optional<uint32_t> value) {
        if constexpr (!CS::kNeedsValues) value = std::nullopt;
        Namespace<CS> ns(cs, std::forward<N>(name));
        UInt32 r(0);
        for (int i = 0; i < 32; i++) {
            std::optional<bool> b;
            if (value) b = (*value >> i) & 1;
            r.bits_[i] = AllocatedBit::alloc(cs, [i] { return "bit " + std::to_string(i); }, b);
        }
        r.value_ = value;
        return r;
    }

    // From 32 bits, most significant first (SHA-256's byte and word order).
    static UInt32 from_bits_be(std::span<const Boolean> bits) {
        if (bits.size() != 32) throw std::invalid_argument("UInt32::from_bits_be: need 32 bits");
        UInt32 r(0);
        for (int i = 0; i < 32; i++) r.bits_[i] = bits[31 - i];
        r.recompute_value();
        return r;
    }
    static UInt32 from_bits_le(std::span<const Boolean> bits) {
        if (bits.size() != 32) throw std::invalid_argument("UInt32::from_bits_le: need 32 bits");
        UInt32 r(0);
        for (int i = 0; i < 32; i++) r.bits_[i] = bits[i];
        r.recompute_value();
        return r;
    }
    std::vector<Boolean> to_bits_be() const { return {bits_.rbegin(), bits_.rend()}; }
    const std::array<Boolean, 32>& bits_le() const { return bits_; }
    const std::optional<uint32_t>& value() const { return value_; }
    bool is_constant() const {
        for (const Boolean& b : bits_)
            if (!b.is_constant()) return false;
        return true;
    }

    UInt32 rotr(unsigned by) const {
        by %= 32;
        UInt32 r(0);
        for (unsigned i = 0; i < 32; i++) r.bits_[i] = bits_[(i + by) % 32];
        if (value_) r.value_ = std::rotr(*value_, (int)by);
        return r;
    }
    UInt32 shr(unsigned by) const {
        UInt32 r(0);
        for (unsigned i = 0; i < 32; i++) r.bits_[i] = i + by < 32 ? bits_[i + by] : Boolean::constant(false);
        if (value_) r.value_ = by >= 32 ? 0u : *value_ >> by;
        return r;
    }

    // Bitwise xor: one constraint per bit where both bits are allocated, none where either is constant.
    template <class CS, class N>
    UInt32 xor_(CS& cs, N&& name, const UInt32& o) const {
        Namespace<CS> ns(cs, std::forward<N>(name));
        UInt32 r(0);
        for (int i = 0; i < 32; i++)
            r.bits_[i] = Boolean::xor_(cs, [i] { return "bit " + std::to_string(i); }, bits_[i], o.bits_[i]);
        if (value_ && o.value_) r.value_ = *value_ ^ *o.value_;
        return r;
    }

    // Bitwise SHA-256 ch / maj (1 and 2 constraints per fully allocated bit, fewer with constants).
    template <class CS, class N>
    static UInt32 sha256_ch(CS& cs, N&& name, const UInt32& a, const UInt32& b, const UInt32& c) {
        Namespace<CS> ns(cs, std::forward<N>(name));
        UInt32 r(0);
        for (int i = 0; i < 32; i++)
            r.bits_[i] = Boolean::ch(cs, [i] { return "bit " + std::to_string(i); }, a.bits_[i], b.bits_[i], c.bits_[i]);
        if (a.value_ && b.value_ && c.value_) r.value_ = (*a.value_ & *b.value_) ^ (~*a.value_ & *c.value_);
        return r;
    }
    template <class CS, class N>
    static UInt32 sha256_maj(CS& cs, N&& name, const UInt32& a, const UInt32& b, const UInt32& c) {
        Namespace<CS> ns(cs, std::forward<N>(name));
        UInt32 r(0);
        for (int i = 0; i < 32; i++)
            r.bits_[i] = Boolean::maj(cs, [i] { return "bit " + std::to_string(i); }, a.bits_[i], b.bits_[i], c.bits_[i]);
        if (a.value_ && b.value_ && c.value_)
            r.value_ = (*a.value_ & *b.value_) ^ (*a.value_ & *c.value_) ^ (*b.value_ & *c.value_);
        return r;
    }

    // The sum of the operands modulo 2^32. Let M be the largest value the integer sum can take (2^32 - 1 per
    // non-constant word, the value itself per constant word); allocate the bitlength(M) >= 32 bits of the sum
    // (booleanity each), and enforce  sum_ops sum_i 2^i op_i = sum_j 2^j s_j  — one constraint, or a share of one
    // when `batch` merges several. Both sides are below 2^bitlength(M) <= 2^40 (at most 256 operands), far below r,
    // so the field equation is the integer one and bits 32.. of the sum are the carry that is dropped.
    // All-constant operands give a constant and no constraint.
    template <class CS, class N>
    static UInt32 add_many(CS& cs, N&& name, std::span<const UInt32> ops, EqualityBatch<CS>* batch = nullptr) {
        if (ops.empty()) throw std::invalid_argument("UInt32::add_many: no operands");
        if (ops.size() > 256) throw std::invalid_argument("UInt32::add_many: more than 256 operands");
        uint64_t max_sum = 0;
        // The integer sum when every operand's value is known (a plain flag: GCC 12 reports std::optional<uint64_t>
        // here as maybe-uninitialized).
        uint64_t sum = 0;
        bool sum_known = true;
        bool all_constant = true;
        for (const UInt32& op : ops) {
            bool c = op.is_constant();
            all_constant &= c;
            max_sum += c ? *op.value_ : 0xffffffffull;
            if (sum_known && op.value_) sum += *op.value_;
            else sum_known = false;
        }
        if (all_constant) return constant((uint32_t)sum);  // constant words always carry their value
        if constexpr (!CS::kNeedsValues) sum_known = false;
        Namespace<CS> ns(cs, std::forward<N>(name));
        constexpr bool kRecord = records_constraints<CS>();
        LC lhs;
        if constexpr (kRecord) {
            Fr constant_part = Fr::zero();
            for (const UInt32& op : ops)
                for (int i = 0; i < 32; i++) op.bits_[i].add_to_lc_folding(lhs, constant_part, pow2_table()[i]);
            if (!constant_part.is_zero()) lhs.add(constant_part, Variable::one());
        }
        size_t nbits = std::max<size_t>(32, (size_t)std::bit_width(max_sum));
        UInt32 r(0);
        LC rhs;
        for (size_t j = 0; j < nbits; j++) {
            std::optional<bool> b;
            if (sum_known) b = (sum >> j) & 1;
            AllocatedBit bit = AllocatedBit::alloc(cs, [j] { return "sum bit " + std::to_string(j); }, b);
            if constexpr (kRecord) rhs.add(pow2_table()[j], bit.variable());
            if (j < 32) r.bits_[j] = bit;
        }
        if (sum_known) r.value_ = (uint32_t)sum;
        if constexpr (kRecord) {
            if (batch) batch->enforce_equal(nbits, lhs, rhs);
            else cs.enforce("sum", lhs, LC(Variable::one()), rhs);
        }
        return r;
    }

private:
    explicit UInt32(int) {}
    void recompute_value() {
        uint32_t v = 0;
        for (int i = 0; i < 32; i++) {
            auto b = bits_[i].value();
            if (!b) {
                value_.reset();
                return;
            }
            v |= uint32_t(*b) << i;
        }
        value_ = v;
    }

    std::array<Boolean, 32> bits_;
    std::optional<uint32_t> value_;
};

}  // namespace cuzk::standin
