// Bits in a rank-1 constraint system.
//
//   AllocatedBit  an aux variable constrained to {0, 1} (or, for the results of and/xor/ch/maj, a variable whose
//                 defining constraint already forces it into {0, 1} when its inputs are bits, so no second
//                 booleanity constraint is spent on it).
//   Boolean       a constant, an allocated bit, or the negation of one. Negation and constants cost nothing: they
//                 are folded into the linear combinations of whatever consumes the Boolean (1 - b is the LC
//                 one - b), which is what makes SHA-256's rotations, shifts and constant round keys free.
//
// Every gadget takes the constraint system and a name; the name becomes a namespace so that a test system can say
// which constraint fails ("sha256/round 7/ch/bit 3/ch"), while the key generator and the prover never build it.
// Values are std::optional: known exactly when the system needs values (CS::kNeedsValues), never computed for
// setup. The logical operators are spelled and_/or_/xor_/not_ because `and`, `or`, `xor` and `not` are reserved
// alternative tokens in C++.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cuzk/r1cs/constraint_system.hpp"

namespace cuzk::standin {

using r1cs::LC;
using r1cs::Namespace;
using r1cs::records_constraints;
using r1cs::SynthesisError;
using r1cs::SynthesisErrorKind;
using r1cs::Variable;

// 2^i in Fr for i < 256 (bit packings use coefficients up to 2^253).
inline const std::array<Fr, 256>& pow2_table() {
    static const std::array<Fr, 256> table = [] {
        std::array<Fr, 256> t;
        t[0] = Fr::one();
        for (size_t i = 1; i < t.size(); i++) t[i] = t[i - 1] + t[i - 1];
        return t;
    }();
    return table;
}

namespace detail {
inline Fr bit_value(const std::optional<bool>& v, const char* what) {
    if (!v) throw SynthesisError(SynthesisErrorKind::AssignmentMissing, what);
    return *v ? Fr::one() : Fr::zero();
}
template <class F>
std::optional<bool> lift2(const std::optional<bool>& a, const std::optional<bool>& b, F&& f) {
    if (a && b) return f(*a, *b);
    return std::nullopt;
}
}  // namespace detail

class AllocatedBit {
public:
    AllocatedBit() = default;
    AllocatedBit(Variable var, std::optional<bool> value) : var_(var), value_(value) {}

    // A fresh bit with the booleanity constraint (1 - b) * b = 0: its only roots are 0 and 1.
    template <class CS, class N>
    static AllocatedBit alloc(CS& cs, N&& name, std::optional<bool> value) {
        Namespace<CS> ns(cs, std::forward<N>(name));
        AllocatedBit b = alloc_unconstrained(cs, "bit", value);
        if constexpr (records_constraints<CS>()) cs.enforce("boolean", LC(Variable::one()) - b.var_, LC(b.var_), LC());
        return b;
    }

    // A variable holding `value` with no constraint: the caller's next constraint must determine it (as the
    // and/xor/ch/maj constraints below do) or it is free for the prover.
    template <class CS, class N>
    static AllocatedBit alloc_unconstrained(CS& cs, N&& name, std::optional<bool> value) {
        if constexpr (!CS::kNeedsValues) value = std::nullopt;
        Variable v = cs.alloc(std::forward<N>(name), [&] { return detail::bit_value(value, "bit value"); });
        return AllocatedBit(v, value);
    }

    Variable variable() const { return var_; }
    const std::optional<bool>& value() const { return value_; }

private:
    Variable var_;
    std::optional<bool> value_;
};

class Boolean {
public:
    enum class Kind : uint8_t { Constant, Is, Not };

    Boolean() : kind_(Kind::Constant), constant_(false) {}
    Boolean(const AllocatedBit& bit) : kind_(Kind::Is), bit_(bit) {}  // NOLINT: implicit, as bellman's From
    static Boolean constant(bool v) {
        Boolean b;
        b.constant_ = v;
        return b;
    }

    Kind kind() const { return kind_; }
    bool is_constant() const { return kind_ == Kind::Constant; }
    bool constant_value() const { return constant_; }
    // The underlying allocated bit (Is / Not only).
    const AllocatedBit& bit() const { return bit_; }
    std::optional<bool> value() const {
        switch (kind_) {
            case Kind::Constant: return constant_;
            case Kind::Is: return bit_.value();
            default:
                if (bit_.value()) return !*bit_.value();
                return std::nullopt;
        }
    }

    Boolean not_() const {
        Boolean r = *this;
        if (kind_ == Kind::Constant) r.constant_ = !constant_;
        else r.kind_ = kind_ == Kind::Is ? Kind::Not : Kind::Is;
        return r;
    }

    // lc += coeff * this, where a negated bit contributes coeff * (1 - b) and a constant coeff * 0 or coeff * 1.
    // Appends at most two terms to the caller's combination (no temporary LC).
    void add_to_lc(LC& lc, const Fr& coeff) const {
        switch (kind_) {
            case Kind::Constant:
                if (constant_) lc.add(coeff, Variable::one());
                break;
            case Kind::Is: lc.add(coeff, bit_.variable()); break;
            case Kind::Not:
                lc.add(coeff, Variable::one());
                lc.sub(coeff, bit_.variable());
                break;
        }
    }
    // Like add_to_lc, but the constant part (coeff for Constant(true) and for Not) goes into `constant` so that a
    // caller packing many bits folds all of them into one term on the constant one.
    void add_to_lc_folding(LC& lc, Fr& constant, const Fr& coeff) const {
        switch (kind_) {
            case Kind::Constant:
                if (constant_) constant += coeff;
                break;
            case Kind::Is: lc.add(coeff, bit_.variable()); break;
            case Kind::Not:
                constant += coeff;
                lc.sub(coeff, bit_.variable());
                break;
        }
    }
    LC lc(const Fr& coeff = Fr::one()) const {
        LC r;
        add_to_lc(r, coeff);
        return r;
    }

    // a AND b. For bits, the product is the conjunction, so one constraint a * b = c defines c and keeps it a bit.
    template <class CS, class N>
    static Boolean and_(CS& cs, N&& name, const Boolean& a, const Boolean& b) {
        if (a.is_constant()) return a.constant_ ? b : constant(false);
        if (b.is_constant()) return b.constant_ ? a : constant(false);
        Namespace<CS> ns(cs, std::forward<N>(name));
        return product(cs, a, b);
    }

    // a OR b = NOT(NOT a AND NOT b): one constraint (1 - a) * (1 - b) = 1 - c, with c's negation free.
    template <class CS, class N>
    static Boolean or_(CS& cs, N&& name, const Boolean& a, const Boolean& b) {
        return and_(cs, std::forward<N>(name), a.not_(), b.not_()).not_();
    }

    // a XOR b. For bits, a + b - 2ab is the exclusive or, so (2a) * b = a + b - c defines c in one constraint.
    // Negations pull out: (NOT a) XOR b = NOT (a XOR b), so only the underlying bits enter the constraint.
    template <class CS, class N>
    static Boolean xor_(CS& cs, N&& name, const Boolean& a, const Boolean& b) {
        if (a.is_constant()) return a.constant_ ? b.not_() : b;
        if (b.is_constant()) return b.constant_ ? a.not_() : a;
        bool negate = (a.kind_ == Kind::Not) != (b.kind_ == Kind::Not);
        const AllocatedBit& x = a.bit_;
        const AllocatedBit& y = b.bit_;
        Namespace<CS> ns(cs, std::forward<N>(name));
        auto value = detail::lift2(x.value(), y.value(), [](bool p, bool q) { return p != q; });
        AllocatedBit c = AllocatedBit::alloc_unconstrained(cs, "xor result", value);
        if constexpr (records_constraints<CS>())
            cs.enforce("xor", LC().add(pow2_table()[1], x.variable()), LC(y.variable()),
                       LC(x.variable()) + y.variable() - c.variable());
        Boolean r(c);
        return negate ? r.not_() : r;
    }

    // SHA-256's ch(a, b, c) = (a AND b) XOR (NOT a AND c) = a ? b : c = c + a(b - c): one constraint
    // a * (b - c) = ch - c, and ch is a bit because it equals b or c.
    template <class CS, class N>
    static Boolean ch(CS& cs, N&& name, const Boolean& a, const Boolean& b, const Boolean& c) {
        if (a.is_constant()) return a.constant_ ? b : c;
        if (b.is_constant() && c.is_constant()) {
            if (b.constant_ == c.constant_) return b;
            return b.constant_ ? a : a.not_();
        }
        if (b.is_constant()) {  // a ? 0 : c = NOT a AND c;  a ? 1 : c = a OR c
            return b.constant_ ? or_(cs, std::forward<N>(name), a, c) : and_(cs, std::forward<N>(name), a.not_(), c);
        }
        if (c.is_constant()) {  // a ? b : 0 = a AND b;  a ? b : 1 = NOT a OR b
            return c.constant_ ? or_(cs, std::forward<N>(name), a.not_(), b) : and_(cs, std::forward<N>(name), a, b);
        }
        Namespace<CS> ns(cs, std::forward<N>(name));
        std::optional<bool> value;
        if (auto av = a.value(), bv = b.value(), cv = c.value(); av && bv && cv) value = *av ? *bv : *cv;
        AllocatedBit r = AllocatedBit::alloc_unconstrained(cs, "ch result", value);
        if constexpr (records_constraints<CS>()) {
            LC b_minus_c = b.lc();
            c.add_to_lc(b_minus_c, -Fr::one());
            LC ch_minus_c(r.variable());
            c.add_to_lc(ch_minus_c, -Fr::one());
            cs.enforce("ch", a.lc(), b_minus_c, ch_minus_c);
        }
        return Boolean(r);
    }

    // SHA-256's maj(a, b, c) = (a AND b) XOR (a AND c) XOR (b AND c). As a polynomial on bits it is
    // ab + ac + bc - 2abc = bc + a(b + c - 2bc): degree 3, so no single rank-1 constraint holds it, but with the
    // product bc allocated it is one more: a * (2bc - b - c) = bc - maj (2 constraints). A constant operand makes it
    // one AND or OR (maj(0, b, c) = b AND c, maj(1, b, c) = b OR c): 1 constraint.
    template <class CS, class N>
    static Boolean maj(CS& cs, N&& name, const Boolean& a, const Boolean& b, const Boolean& c) {
        const Boolean* k = a.is_constant() ? &a : b.is_constant() ? &b : c.is_constant() ? &c : nullptr;
        if (k) {
            const Boolean& x = (k == &a) ? b : a;
            const Boolean& y = (k == &c) ? b : c;
            return k->constant_ ? or_(cs, std::forward<N>(name), x, y) : and_(cs, std::forward<N>(name), x, y);
        }
        Namespace<CS> ns(cs, std::forward<N>(name));
        Boolean bc = product(cs, b, c);
        return maj_with_bc(cs, a, b, c, bc);
    }

    // maj(a, b, c) given bc = b AND c already in the system: the single constraint a * (2bc - b - c) = bc - maj.
    // SHA-256 uses it to share one AND between consecutive rounds (see sha256.hpp). All of a, b, c allocated.
    template <class CS>
    static Boolean maj_with_bc(CS& cs, const Boolean& a, const Boolean& b, const Boolean& c, const Boolean& bc) {
        std::optional<bool> value;
        if (auto av = a.value(), bv = b.value(), cv = c.value(); av && bv && cv)
            value = (*av && *bv) || (*av && *cv) || (*bv && *cv);
        AllocatedBit m = AllocatedBit::alloc_unconstrained(cs, "maj result", value);
        if constexpr (records_constraints<CS>()) {
            LC lin = bc.lc(pow2_table()[1]);
            b.add_to_lc(lin, -Fr::one());
            c.add_to_lc(lin, -Fr::one());
            LC rhs = bc.lc();
            rhs.sub(m.variable());
            cs.enforce("maj", a.lc(), lin, rhs);
        }
        return Boolean(m);
    }

    // Asserts a == b with one linear constraint (a - b) * 1 = 0; two constants are checked here instead.
    template <class CS, class N>
    static void enforce_equal(CS& cs, N&& name, const Boolean& a, const Boolean& b) {
        if (a.is_constant() && b.is_constant()) {
            if (a.constant_ != b.constant_)
                throw SynthesisError(SynthesisErrorKind::Unsatisfiable, "enforce_equal of unequal constants");
            return;
        }
        if constexpr (records_constraints<CS>()) {
            LC diff = a.lc();
            b.add_to_lc(diff, -Fr::one());
            cs.enforce(std::forward<N>(name), diff, LC(Variable::one()), LC());
        }
    }

private:
    // c = a * b for two non-constant Booleans (either may be negated): one constraint, c a bit.
    template <class CS>
    static Boolean product(CS& cs, const Boolean& a, const Boolean& b) {
        auto value = detail::lift2(a.value(), b.value(), [](bool p, bool q) { return p && q; });
        AllocatedBit c = AllocatedBit::alloc_unconstrained(cs, "and result", value);
        if constexpr (records_constraints<CS>()) cs.enforce("and", a.lc(), b.lc(), LC(c.variable()));
        return Boolean(c);
    }

    Kind kind_;
    bool constant_ = false;
    AllocatedBit bit_;
};

// Packs little-endian bits into one allocated field element x = sum 2^i b_i with one constraint
// (sum 2^i b_i) * 1 = x. At most 253 bits, so the sum cannot wrap around r (2^253 < r).
template <class CS, class N>
Variable pack_bits(CS& cs, N&& name, std::span<const Boolean> bits) {
    if (bits.size() > 253) throw SynthesisError(SynthesisErrorKind::Other, "pack_bits: more than 253 bits");
    Namespace<CS> ns(cs, std::forward<N>(name));
    LC sum;
    if constexpr (records_constraints<CS>()) {
        Fr constant = Fr::zero();
        for (size_t i = 0; i < bits.size(); i++) bits[i].add_to_lc_folding(sum, constant, pow2_table()[i]);
        if (!constant.is_zero()) sum.add(constant, Variable::one());
    }
    Variable x = cs.alloc("packed", [&] {
        Fr acc = Fr::zero();
        for (size_t i = 0; i < bits.size(); i++) {
            auto v = bits[i].value();
            if (!v) throw SynthesisError(SynthesisErrorKind::AssignmentMissing, "pack_bits: bit value");
            if (*v) acc += pow2_table()[i];
        }
        return acc;
    });
    if constexpr (records_constraints<CS>()) cs.enforce("packing", sum, LC(Variable::one()), LC(x));
    return x;
}

// Decomposes the field element in `x` (value `x_value` when the system needs values) into n little-endian bits:
// n booleanity constraints and one packing constraint (sum 2^i b_i) * 1 = x. n <= 254, so the decomposition is
// unique: every n-bit sum is below 2^254 < r, hence two decompositions equal mod r are equal as integers. An x that
// does not fit in n bits gives an unsatisfied packing constraint (its low n bits are assigned).
template <class CS, class N>
std::vector<Boolean> to_bits_le(CS& cs, N&& name, Variable x, const std::optional<Fr>& x_value, size_t n) {
    if (n > 254) throw SynthesisError(SynthesisErrorKind::Other, "to_bits_le: more than 254 bits");
    Namespace<CS> ns(cs, std::forward<N>(name));
    std::optional<limbs_t<4>> canon;
    if constexpr (CS::kNeedsValues) {
        if (!x_value) throw SynthesisError(SynthesisErrorKind::AssignmentMissing, "to_bits_le: value");
        canon = x_value->to_canonical();
    }
    std::vector<Boolean> bits;
    bits.reserve(n);
    LC sum;
    for (size_t i = 0; i < n; i++) {
        std::optional<bool> v;
        if (canon) v = ((*canon)[i / 64] >> (i % 64)) & 1;
        AllocatedBit b = AllocatedBit::alloc(cs, [i] { return "bit " + std::to_string(i); }, v);
        if constexpr (records_constraints<CS>()) sum.add(pow2_table()[i], b.variable());
        bits.emplace_back(b);
    }
    if constexpr (records_constraints<CS>()) cs.enforce("packing", sum, LC(Variable::one()), LC(x));
    return bits;
}

// Same as to_bits_le (the name bellman's callers know).
template <class CS, class N>
std::vector<Boolean> unpack(CS& cs, N&& name, Variable x, const std::optional<Fr>& x_value, size_t n) {
    return to_bits_le(cs, std::forward<N>(name), x, x_value, n);
}

}  // namespace cuzk::standin
