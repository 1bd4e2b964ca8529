// bellperson's MultiEq (gadgets/multieq.rs): several linear equalities lhs_k = rhs_k, each between integers known
// to lie in [0, 2^{n_k}), merged into one row  (sum_k 2^{s_k} lhs_k) * ONE = sum_k 2^{s_k} rhs_k  with
// s_k = n_0 + ... + n_{k-1}. While the total width stays below Fr's CAPACITY (254 bits) both sides are integers
// below 2^253 < r, so the field equation is the integer one, and base-2^{n_k} digits are unique: every lhs_k = rhs_k
// still holds. SHA-256's ~180 UInt32 additions per compression then cost ~26 rows instead of ~180.
//
// Exactly as bellperson: an equality that would make the width reach 254 first emits the pending row
// "multieq <ops>" (in whatever namespace is current then, as bellperson's root-level enforce does), and the last
// pending row is emitted when the MultiEq is finished (bellperson: dropped) — SHA-256 finishes it at the end of each
// compression. Rows come out at the same points of synthesis as bellperson's, so row order and numbering match.
//
// Hot path: the merged combinations live in two buffers reused across rows (resetting a LinearCombination by
// copy-assigning an empty one keeps its heap block), and UInt32::addmany appends its terms to them directly, scaled
// by 2^{s_k}, instead of building a temporary combination per addition. The constant parts of all merged equalities
// are summed into one term on ONE (a row counts by per-variable sums). Systems that do not record constraints skip
// all of it.
#pragma once

#include <exception>
#include <string>

#include "cuzk/gadgets/boolean.hpp"

namespace cuzk::gadgets {

template <class CS>
class MultiEq {
public:
    // Fr::CAPACITY: the widest integer every value of which is a field element.
    static constexpr size_t kCapacity = Fr::BITS - 1;  // 254

    explicit MultiEq(CS& cs) : cs_(cs) {}
    MultiEq(const MultiEq&) = delete;
    MultiEq& operator=(const MultiEq&) = delete;
    // Emits the pending row, as bellperson's Drop does; skipped while an exception unwinds (synthesis failed, and
    // a throwing destructor would terminate). Call finish() to control where the row is emitted.
    ~MultiEq() {
        if (bits_used_ > 0 && std::uncaught_exceptions() == uncaught_at_start_) accumulate();
    }

    CS& cs() { return cs_; }

    // lhs = rhs where both sides are integers below 2^num_bits (num_bits < 254).
    void enforce_equal(size_t num_bits, const LC& lhs, const LC& rhs) {
        const size_t shift = begin_equality(num_bits);
        if constexpr (records_constraints<CS>()) {
            lhs_.add(pow2_table()[shift], lhs);
            rhs_.add(pow2_table()[shift], rhs);
        }
    }

    // Emits the pending row now (if any).
    void finish() {
        if (bits_used_ > 0) accumulate();
    }

    size_t rows_emitted() const { return ops_; }

    // ---- for UInt32::addmany: start an equality of num_bits, emitting the pending row first if the width would
    // reach capacity; returns its shift s_k. The caller then appends 2^{s_k}-scaled terms to lhs() / rhs() and the
    // constant part of its left side to lhs_one() (only for systems that record constraints).
    size_t begin_equality(size_t num_bits) {
        if (num_bits >= kCapacity)
            throw SynthesisError(SynthesisErrorKind::Other, "MultiEq: an equality as wide as the field's capacity");
        if (kCapacity <= bits_used_ + num_bits) accumulate();
        const size_t shift = bits_used_;
        bits_used_ += num_bits;
        return shift;
    }
    LC& lhs() { return lhs_; }
    LC& rhs() { return rhs_; }
    Fr& lhs_one() { return lhs_one_; }

private:
    void accumulate() {
        if constexpr (records_constraints<CS>()) {
            if (!lhs_one_.is_zero()) lhs_.add(lhs_one_, Variable::one());
            const size_t k = ops_;
            cs_.enforce([k] { return "multieq " + std::to_string(k); }, lhs_, LC(Variable::one()), rhs_);
            static const LC kEmpty;
            lhs_ = kEmpty;  // copy-assigning an empty combination keeps the buffer
            rhs_ = kEmpty;
            lhs_one_ = Fr::zero();
        }
        bits_used_ = 0;
        ops_++;
    }

    CS& cs_;
    size_t ops_ = 0;
    size_t bits_used_ = 0;
    LC lhs_, rhs_;
    Fr lhs_one_ = Fr::zero();
    int uncaught_at_start_ = std::uncaught_exceptions();
};

}  // namespace cuzk::gadgets
