// A field element in a rank-1 constraint system, as bellpepper-core's AllocatedNum: one variable with its value
// (known exactly when the system needs values, CS::kNeedsValues; never computed for setup).
//
// The gadgets below synthesize exactly what bellpepper-core's gadgets/num.rs does (the variables in the same order,
// the same rows with the same per-variable coefficients, A/B/C as written there), since Filecoin's parameter files
// encode that R1CS. Names follow bellpepper inside a namespace the caller names (`x.mul(cs, "m", y)` makes
// "m/product num" and "m/multiplication constraint", as `x.mul(cs.namespace(|| "m"), &y)`).
//
// Rows (cost):
//   inputize            1   input * ONE = x                       (a fresh public input equal to x)
//   to_bits_le          256 255 booleanity rows, then 0 * 0 = sum 2^i b_i - x (the whole combination in C)
//   to_bits_le_strict   255 + ANDs of r - 1's runs of ones + 1 (bits forced below r; Filecoin does not use it)
//   add                 1   (a + b) * ONE = sum
//   mul / square        1   a * b = ab / a * a = aa
//   assert_nonzero      1   a * inv = ONE
//   conditionally_reverse 2 (a - b) * cond = a - c, (b - a) * cond = b - d
// and rust-fil-proofs' storage-proofs-core gadgets/constraint.rs (equal, sum, add, sub, difference) and
// gadgets/encode.rs (encode, decode), in namespace `constraint` below.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuzk/gadgets/boolean.hpp"
#include "cuzk/r1cs/constraint_system.hpp"

namespace cuzk::gadgets {

using r1cs::LC;
using r1cs::Namespace;
using r1cs::records_constraints;
using r1cs::SynthesisError;
using r1cs::SynthesisErrorKind;
using r1cs::Variable;

class AllocatedNum {
public:
    AllocatedNum() = default;
    AllocatedNum(Variable var, std::optional<Fr> value) : var_(var), value_(value) {}

    // A fresh aux variable holding `value` (ignored, and never required, by a system that does not need values).
    template <class CS, class N>
    static AllocatedNum alloc(CS& cs, N&& name, std::optional<Fr> value) {
        if constexpr (!CS::kNeedsValues) value = std::nullopt;
        Variable v = cs.alloc(std::forward<N>(name), [&] { return need(value, "AllocatedNum::alloc"); });
        return AllocatedNum(v, value);
    }

    // A fresh public input holding `value`.
    template <class CS, class N>
    static AllocatedNum alloc_input(CS& cs, N&& name, std::optional<Fr> value) {
        if constexpr (!CS::kNeedsValues) value = std::nullopt;
        Variable v = cs.alloc_input(std::forward<N>(name), [&] { return need(value, "AllocatedNum::alloc_input"); });
        return AllocatedNum(v, value);
    }

    LC as_lc() const { return LC(var_); }
    Variable variable() const { return var_; }
    const std::optional<Fr>& value() const { return value_; }

    // A fresh public input "<name>/input variable" equal to this, bound by "<name>/enforce input is correct":
    // input * ONE = x. Returns the input.
    template <class CS, class N>
    AllocatedNum inputize(CS& cs, N&& name) const {
        Namespace<CS> ns(cs, std::forward<N>(name));
        AllocatedNum in = alloc_input(cs, "input variable", value_);
        if constexpr (records_constraints<CS>())
            cs.enforce("enforce input is correct", LC(in.var_), LC(Variable::one()), LC(var_));
        return in;
    }

    // The 255 bits of this value, least significant first ("<name>/bit i", booleanity each), and the row
    // "<name>/unpacking constraint": 0 * 0 = sum 2^i b_i - x. 256 rows. As bellpepper's, this does not force the
    // bits to be the canonical representation: a sum equal to x mod r but >= r also satisfies it.
    template <class CS, class N>
    std::vector<Boolean> to_bits_le(CS& cs, N&& name) const {
        Namespace<CS> ns(cs, std::forward<N>(name));
        std::vector<AllocatedBit> bits = detail::field_into_allocated_bits_le(cs, value_);
        if constexpr (records_constraints<CS>()) {
            LC lc;
            for (size_t i = 0; i < bits.size(); i++) lc.add(pow2_table()[i], bits[i].variable());
            lc.sub(var_);
            cs.enforce("unpacking constraint", LC(), LC(), lc);
        }
        return std::vector<Boolean>(bits.begin(), bits.end());
    }

    // The 255 bits of this value, least significant first, forced to be the canonical representation (< r):
    // bellpepper's to_bits_le_strict. Walking r - 1 from its top bit, a bit where r - 1 has a one is a plain
    // AllocatedBit ("<name>/bit i", i counted from the top, 0..254) and joins the current run of ones; at the
    // first zero after a run, the run and the previous runs' result are ANDed ("<name>/run ending at i/and k"):
    // that AND is 1 exactly when x matches r - 1 on every one so far, and then x's bit must be 0
    // (alloc_conditionally). Finally the unpacking row as in to_bits_le. Filecoin's circuits use to_bits_le.
    template <class CS, class N>
    std::vector<Boolean> to_bits_le_strict(CS& cs, N&& name) const {
        Namespace<CS> ns(cs, std::forward<N>(name));
        const limbs_t<4> r_minus_1 = (-Fr::one()).to_canonical();
        std::optional<limbs_t<4>> a;
        if constexpr (CS::kNeedsValues) {
            if (value_) a = value_->to_canonical();
        }
        auto bit_of = [](const limbs_t<4>& l, size_t k) { return bool((l[k / 64] >> (k % 64)) & 1); };

        std::vector<AllocatedBit> result;  // most significant first
        std::vector<AllocatedBit> current_run;
        std::optional<AllocatedBit> last_run;
        bool found_one = false;
        size_t i = 0;
        for (size_t k = 256; k-- > 0;) {
            const bool b = bit_of(r_minus_1, k);
            std::optional<bool> a_bit;
            if (a) a_bit = bit_of(*a, k);
            found_one |= b;
            if (!found_one) continue;  // above r's top bit: x's bit is 0 as x < r
            if (b) {
                AllocatedBit bit = AllocatedBit::alloc(
                    cs, [i] { return "bit " + std::to_string(i); }, a_bit);
                current_run.push_back(bit);
                result.push_back(bit);
            } else {
                if (!current_run.empty()) {
                    if (last_run) current_run.push_back(*last_run);
                    Namespace<CS> rns(cs, [i] { return "run ending at " + std::to_string(i); });
                    AllocatedBit cur = current_run[0];
                    for (size_t j = 1; j < current_run.size(); j++)
                        cur = AllocatedBit::and_(
                            cs, [j] { return "and " + std::to_string(j); }, cur, current_run[j]);
                    last_run = cur;
                    current_run.clear();
                }
                // r - 1 starts with a one, so a run has ended before the first zero.
                result.push_back(AllocatedBit::alloc_conditionally(
                    cs, [i] { return "bit " + std::to_string(i); }, a_bit, *last_run));
            }
            i++;
        }
        // r is odd and prime, so r - 1 ends in a zero: no run is left open.
        if (!current_run.empty()) throw std::logic_error("to_bits_le_strict: r - 1 ends in a one");
        if constexpr (records_constraints<CS>()) {
            LC lc;
            for (size_t k = 0; k < result.size(); k++)
                lc.add(pow2_table()[k], result[result.size() - 1 - k].variable());
            lc.sub(var_);
            cs.enforce("unpacking constraint", LC(), LC(), lc);
        }
        return std::vector<Boolean>(result.rbegin(), result.rend());
    }

    // this + other: "<name>/sum num" with "<name>/addition constraint": (a + b) * ONE = sum.
    template <class CS, class N>
    AllocatedNum add(CS& cs, N&& name, const AllocatedNum& other) const {
        Namespace<CS> ns(cs, std::forward<N>(name));
        std::optional<Fr> v;
        if (value_ && other.value_) v = *value_ + *other.value_;
        AllocatedNum r = alloc(cs, "sum num", v);
        if constexpr (records_constraints<CS>())
            cs.enforce("addition constraint", LC(var_) + other.var_, LC(Variable::one()), LC(r.var_));
        return r;
    }

    // this * other: "<name>/product num" with "<name>/multiplication constraint": a * b = ab.
    template <class CS, class N>
    AllocatedNum mul(CS& cs, N&& name, const AllocatedNum& other) const {
        Namespace<CS> ns(cs, std::forward<N>(name));
        std::optional<Fr> v;
        if (value_ && other.value_) v = *value_ * *other.value_;
        AllocatedNum r = alloc(cs, "product num", v);
        if constexpr (records_constraints<CS>())
            cs.enforce("multiplication constraint", LC(var_), LC(other.var_), LC(r.var_));
        return r;
    }

    // this^2: "<name>/squared num" with "<name>/squaring constraint": a * a = aa.
    template <class CS, class N>
    AllocatedNum square(CS& cs, N&& name) const {
        Namespace<CS> ns(cs, std::forward<N>(name));
        std::optional<Fr> v;
        if (value_) v = value_->square();
        AllocatedNum r = alloc(cs, "squared num", v);
        if constexpr (records_constraints<CS>()) cs.enforce("squaring constraint", LC(var_), LC(var_), LC(r.var_));
        return r;
    }

    // this != 0: "<name>/ephemeral inverse" with "<name>/nonzero assertion constraint": a * inv = ONE. A zero value
    // is SynthesisError DivisionByZero, as bellpepper's.
    template <class CS, class N>
    void assert_nonzero(CS& cs, N&& name) const {
        Namespace<CS> ns(cs, std::forward<N>(name));
        Variable inv = cs.alloc("ephemeral inverse", [&] {
            const Fr& x = need(value_, "AllocatedNum::assert_nonzero");
            if (x.is_zero())
                throw SynthesisError(SynthesisErrorKind::DivisionByZero, "AllocatedNum::assert_nonzero of zero");
            return x.inverse_or_zero();
        });
        if constexpr (records_constraints<CS>())
            cs.enforce("nonzero assertion constraint", LC(var_), LC(inv), LC(Variable::one()));
    }

    // (b, a) if `condition` else (a, b): "<name>/conditional reversal result 1/num" c with
    // "<name>/first conditional reversal": (a - b) * condition = a - c, then "…result 2/num" d with
    // "<name>/second conditional reversal": (b - a) * condition = b - d. Allocates even for a constant condition,
    // as bellpepper does.
    template <class CS, class N>
    static std::pair<AllocatedNum, AllocatedNum> conditionally_reverse(CS& cs, N&& name, const AllocatedNum& a,
                                                                       const AllocatedNum& b,
                                                                       const Boolean& condition) {
        Namespace<CS> ns(cs, std::forward<N>(name));
        const std::optional<bool> cv = condition.value();
        std::optional<Fr> c_value, d_value;
        if (cv && a.value_ && b.value_) {
            c_value = *cv ? *b.value_ : *a.value_;
            d_value = *cv ? *a.value_ : *b.value_;
        }
        AllocatedNum c;
        {
            Namespace<CS> rns(cs, "conditional reversal result 1");
            c = alloc(cs, "num", c_value);
        }
        if constexpr (records_constraints<CS>())
            cs.enforce("first conditional reversal", LC(a.var_) - b.var_, condition.lc(), LC(a.var_) - c.var_);
        AllocatedNum d;
        {
            Namespace<CS> rns(cs, "conditional reversal result 2");
            d = alloc(cs, "num", d_value);
        }
        if constexpr (records_constraints<CS>())
            cs.enforce("second conditional reversal", LC(b.var_) - a.var_, condition.lc(), LC(b.var_) - d.var_);
        return {c, d};
    }

private:
    static Fr need(const std::optional<Fr>& v, const char* what) {
        if (!v) throw SynthesisError(SynthesisErrorKind::AssignmentMissing, what);
        return *v;
    }

    Variable var_;
    std::optional<Fr> value_;
};

// rust-fil-proofs storage-proofs-core gadgets/constraint.rs and gadgets/encode.rs: the rows Filecoin's circuits
// use to tie allocated numbers together.
namespace constraint {

// a == b as the row `name`: a * ONE = b.
template <class CS, class N>
void equal(CS& cs, N&& name, const AllocatedNum& a, const AllocatedNum& b) {
    if constexpr (records_constraints<CS>())
        cs.enforce(std::forward<N>(name), a.as_lc(), LC(Variable::one()), b.as_lc());
}

// a + b == sum as the row `name`: (a + b) * ONE = sum.
template <class CS, class N>
void sum(CS& cs, N&& name, const AllocatedNum& a, const AllocatedNum& b, const AllocatedNum& sum) {
    if constexpr (records_constraints<CS>())
        cs.enforce(std::forward<N>(name), a.as_lc() + b.variable(), LC(Variable::one()), sum.as_lc());
}

// a - b == difference as the row `name`: (difference + b) * ONE = a.
template <class CS, class N>
void difference(CS& cs, N&& name, const AllocatedNum& a, const AllocatedNum& b, const AllocatedNum& difference) {
    if constexpr (records_constraints<CS>())
        cs.enforce(std::forward<N>(name), difference.as_lc() + b.variable(), LC(Variable::one()), a.as_lc());
}

// a + b as "<name>/add_num/num" with the row "<name>/sum constraint".
template <class CS, class N>
AllocatedNum add(CS& cs, N&& name, const AllocatedNum& a, const AllocatedNum& b) {
    Namespace<CS> ns(cs, std::forward<N>(name));
    std::optional<Fr> v;
    if (a.value() && b.value()) v = *a.value() + *b.value();
    AllocatedNum res;
    {
        Namespace<CS> vns(cs, "add_num");
        res = AllocatedNum::alloc(cs, "num", v);
    }
    sum(cs, "sum constraint", a, b, res);
    return res;
}

// a - b as "<name>/sub_num/num" with the row "<name>/subtraction constraint".
template <class CS, class N>
AllocatedNum sub(CS& cs, N&& name, const AllocatedNum& a, const AllocatedNum& b) {
    Namespace<CS> ns(cs, std::forward<N>(name));
    std::optional<Fr> v;
    if (a.value() && b.value()) v = *a.value() - *b.value();
    AllocatedNum res;
    {
        Namespace<CS> vns(cs, "sub_num");
        res = AllocatedNum::alloc(cs, "num", v);
    }
    difference(cs, "subtraction constraint", a, b, res);
    return res;
}

// PoRep's encoding of a node: key + value, in "<name>/encode_add" (encode.rs).
template <class CS, class N>
AllocatedNum encode(CS& cs, N&& name, const AllocatedNum& key, const AllocatedNum& value) {
    Namespace<CS> ns(cs, std::forward<N>(name));
    return add(cs, "encode_add", key, value);
}

// Its inverse: value - key, in "<name>/decode_sub".
template <class CS, class N>
AllocatedNum decode(CS& cs, N&& name, const AllocatedNum& key, const AllocatedNum& value) {
    Namespace<CS> ns(cs, std::forward<N>(name));
    return sub(cs, "decode_sub", value, key);
}

}  // namespace constraint

}  // namespace cuzk::gadgets
