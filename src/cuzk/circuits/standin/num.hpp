// A field element in a rank-1 constraint system: one variable with its value (known exactly when the system needs
// values, CS::kNeedsValues, as for the bits in boolean.hpp; never computed for setup).
//
// Costs (constraints):
//   alloc                 0   (the variable is unconstrained: whatever consumes it must pin it down)
//   alloc_input           0   (a public input)
//   inputize              1   (a public copy x_pub of an aux x: x * 1 = x_pub)
//   mul, square           1   (a * b = c)
//   enforce_equal         1   ((a - b) * 1 = 0)
//   select                1   (b * (y - x) = out - x; 0 when b is a constant)
//   conditional_swap      2   (one select per output; 0 when b is a constant)
//   to_bits_le(n)         n + 1  (n booleanity constraints and one packing constraint; boolean.hpp's unpack)
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "cuzk/circuits/standin/boolean.hpp"

namespace cuzk::standin {

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

    // Makes this (aux) value public: a new input equal to it, bound by one linear constraint x * 1 = input.
    // The constraint is named "<name>/inputize" and the input "<name>/input".
    template <class CS, class N>
    AllocatedNum inputize(CS& cs, N&& name) const {
        Namespace<CS> ns(cs, std::forward<N>(name));
        AllocatedNum pub = alloc_input(cs, "input", value_);
        cs.enforce("inputize", as_lc(), LC(Variable::one()), pub.as_lc());
        return pub;
    }

    // this * other, one constraint.
    template <class CS, class N>
    AllocatedNum mul(CS& cs, N&& name, const AllocatedNum& other) const {
        Namespace<CS> ns(cs, std::forward<N>(name));
        std::optional<Fr> v;
        if (value_ && other.value_) v = *value_ * *other.value_;
        AllocatedNum c = alloc(cs, "product", v);
        cs.enforce("multiplication", as_lc(), other.as_lc(), c.as_lc());
        return c;
    }

    // this^2, one constraint.
    template <class CS, class N>
    AllocatedNum square(CS& cs, N&& name) const {
        Namespace<CS> ns(cs, std::forward<N>(name));
        std::optional<Fr> v;
        if (value_) v = value_->square();
        AllocatedNum c = alloc(cs, "square", v);
        cs.enforce("squaring", as_lc(), as_lc(), c.as_lc());
        return c;
    }

    // a == b as one linear constraint (a - b) * 1 = 0.
    template <class CS, class N>
    static void enforce_equal(CS& cs, N&& name, const AllocatedNum& a, const AllocatedNum& b) {
        cs.enforce(std::forward<N>(name), a.as_lc() - b.var_, LC(Variable::one()), LC());
    }

    // b ? when_true : when_false, with one constraint b * (y - x) = out - x (x = when_false, y = when_true): for
    // b = 0 it says out = x, for b = 1 out = y. b must be a constrained bit (an AllocatedBit or its negation), or
    // the prover could pick any point on the line through x and y. A constant b costs nothing (no new variable).
    template <class CS, class N>
    static AllocatedNum select(CS& cs, N&& name, const Boolean& b, const AllocatedNum& when_false,
                               const AllocatedNum& when_true) {
        if (b.is_constant()) return b.constant_value() ? when_true : when_false;
        Namespace<CS> ns(cs, std::forward<N>(name));
        std::optional<Fr> v;
        if (auto bv = b.value(); bv && when_false.value_ && when_true.value_) v = *bv ? *when_true.value_ : *when_false.value_;
        AllocatedNum out = alloc(cs, "selected", v);
        cs.enforce("selection", b.lc(), when_true.as_lc() - when_false.var_, out.as_lc() - when_false.var_);
        return out;
    }

    // b ? (y, x) : (x, y): two selections (2 constraints; 0 when b is a constant). The second output could be the
    // linear combination x + y - first, but an AllocatedNum is one variable, so it costs a constraint either way.
    template <class CS, class N>
    static std::pair<AllocatedNum, AllocatedNum> conditional_swap(CS& cs, N&& name, const Boolean& b,
                                                                  const AllocatedNum& x, const AllocatedNum& y) {
        if (b.is_constant()) return b.constant_value() ? std::pair{y, x} : std::pair{x, y};
        Namespace<CS> ns(cs, std::forward<N>(name));
        AllocatedNum first = select(cs, "first", b, x, y);
        AllocatedNum second = select(cs, "second", b, y, x);
        return {first, second};
    }

    // The n low bits, little-endian, as constrained bits with a packing constraint tying them to this value
    // (n + 1 constraints; n <= 254 so the decomposition is unique, see boolean.hpp). A value that needs more than
    // n bits leaves the packing constraint unsatisfied. (A full 255-bit decomposition would also need a
    // "below r" comparison; no caller here needs it.)
    template <class CS, class N>
    std::vector<Boolean> to_bits_le(CS& cs, N&& name, size_t n) const {
        return unpack(cs, std::forward<N>(name), var_, value_, n);
    }

    LC as_lc() const { return LC(var_); }
    Variable variable() const { return var_; }
    const std::optional<Fr>& value() const { return value_; }

private:
    static Fr need(const std::optional<Fr>& v, const char* what) {
        if (!v) throw SynthesisError(SynthesisErrorKind::AssignmentMissing, what);
        return *v;
    }

    Variable var_;
    std::optional<Fr> value_;
};

}  // namespace cuzk::standin
