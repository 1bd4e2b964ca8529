// Bits in a rank-1 constraint system, exactly as bellpepper-core's gadgets/boolean.rs synthesizes them (the
// version rust-fil-proofs' circuits use through bellperson 0.27): the same variables in the same order, the same
// constraint rows with the same per-variable coefficients. A Filecoin parameter file encodes that R1CS, so an
// equivalent-but-different formulation (another operand order in xor, A and B swapped in ch) would not prove.
//
//   AllocatedBit  an aux variable. `alloc` adds the booleanity row (1 - b) * b = 0; the results of xor / and /
//                 and_not / nor are bits because their defining row forces them to be when the operands are bits,
//                 so they get no booleanity row of their own.
//   Boolean       Constant, Is(bit) or Not(bit). Negations and constants cost nothing: they fold into the linear
//                 combinations of whatever consumes them, which is what makes SHA-256's rotations, shifts and
//                 constant round keys free.
//
// Names: every gadget takes the constraint system and a name, and the name becomes a namespace holding exactly the
// names bellpepper gives inside the namespace its callers pass (`AllocatedBit::alloc(cs, "a", v)` makes "a/boolean"
// and "a/boolean constraint", as `AllocatedBit::alloc(cs.namespace(|| "a"), v)` does). A gadget that folds to a
// constant or to an existing bit pushes no namespace, so a test system builds no name for it. The key generator
// and the prover never build names at all.
//
// Values are std::optional: known exactly when the system needs values (CS::kNeedsValues), never computed for
// setup. Linear combinations are built only for systems that record constraints (records_constraints<CS>()), and
// the constant parts of Booleans are folded into one term on ONE: a combination counts by the per-variable sum of
// its coefficients, as bellpepper merges repeated variables. `and`, `or`, `xor` and `not` are alternative tokens in
// C++, hence the trailing underscores.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cuzk/r1cs/constraint_system.hpp"

namespace cuzk::gadgets {

using r1cs::LC;
using r1cs::Namespace;
using r1cs::records_constraints;
using r1cs::SynthesisError;
using r1cs::SynthesisErrorKind;
using r1cs::Variable;

// 2^i in Fr for i < 256: bit packings and MultiEq's shifted equalities use coefficients up to 2^253.
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
[[noreturn, gnu::noinline, gnu::cold]] inline void bit_missing(const char* what) {
    throw SynthesisError(SynthesisErrorKind::AssignmentMissing, what);
}
// Called once per allocated bit (most of a PoRep witness): the throw kept out of line so that this inlines.
inline Fr bit_to_fr(const std::optional<bool>& v, const char* what) {
    if (!v) [[unlikely]] bit_missing(what);
    return *v ? Fr::one() : Fr::zero();
}
template <class F>
std::optional<bool> lift2(const std::optional<bool>& a, const std::optional<bool>& b, F&& f) {
    if (a && b) return f(*a, *b);
    return std::nullopt;
}
template <class CS>
std::optional<bool> keep_if_needed(std::optional<bool> v) {
    if constexpr (!CS::kNeedsValues)
        return std::nullopt;
    else
        return v;
}
}  // namespace detail

class Boolean;

class AllocatedBit {
public:
    AllocatedBit() = default;
    AllocatedBit(Variable var, std::optional<bool> value) : var_(var), value_(value) {}

    Variable variable() const { return var_; }
    const std::optional<bool>& value() const { return value_; }

    // A fresh bit "<name>/boolean" with the row "<name>/boolean constraint": (1 - b) * b = 0.
    template <class CS, class N>
    static AllocatedBit alloc(CS& cs, N&& name, std::optional<bool> value) {
        Namespace<CS> ns(cs, std::forward<N>(name));
        return alloc_here(cs, value);
    }

    // A fresh bit that must be 0 when `must_be_false` is 1: (1 - must_be_false - b) * b = 0.
    template <class CS, class N>
    static AllocatedBit alloc_conditionally(CS& cs, N&& name, std::optional<bool> value,
                                            const AllocatedBit& must_be_false) {
        Namespace<CS> ns(cs, std::forward<N>(name));
        value = detail::keep_if_needed<CS>(value);
        Variable v = cs.alloc("boolean", [&] { return detail::bit_to_fr(value, "AllocatedBit::alloc_conditionally"); });
        if constexpr (records_constraints<CS>()) {
            LC a(Variable::one());
            a.sub(must_be_false.var_).sub(v);
            cs.enforce("boolean constraint", a, LC(v), LC());
        }
        return AllocatedBit(v, value);
    }

    // a XOR b: "xor result" c with (a + a) * b = a + b - c (for bits, a + b - 2ab is the exclusive or).
    template <class CS, class N>
    static AllocatedBit xor_(CS& cs, N&& name, const AllocatedBit& a, const AllocatedBit& b) {
        Namespace<CS> ns(cs, std::forward<N>(name));
        return xor_here(cs, a, b);
    }
    // a AND b: "and result" c with a * b = c.
    template <class CS, class N>
    static AllocatedBit and_(CS& cs, N&& name, const AllocatedBit& a, const AllocatedBit& b) {
        Namespace<CS> ns(cs, std::forward<N>(name));
        return and_here(cs, a, b);
    }
    // a AND NOT b: "and not result" c with a * (1 - b) = c.
    template <class CS, class N>
    static AllocatedBit and_not(CS& cs, N&& name, const AllocatedBit& a, const AllocatedBit& b) {
        Namespace<CS> ns(cs, std::forward<N>(name));
        return and_not_here(cs, a, b);
    }
    // NOT a AND NOT b: "nor result" c with (1 - a) * (1 - b) = c.
    template <class CS, class N>
    static AllocatedBit nor(CS& cs, N&& name, const AllocatedBit& a, const AllocatedBit& b) {
        Namespace<CS> ns(cs, std::forward<N>(name));
        return nor_here(cs, a, b);
    }

private:
    friend class Boolean;

    // The gadgets above in the caller's current namespace (bellpepper's functions taking the caller's cs).
    template <class CS>
    static AllocatedBit alloc_here(CS& cs, std::optional<bool> value) {
        value = detail::keep_if_needed<CS>(value);
        Variable v = cs.alloc("boolean", [&] { return detail::bit_to_fr(value, "AllocatedBit::alloc"); });
        if constexpr (records_constraints<CS>()) cs.enforce("boolean constraint", LC(Variable::one()) - v, LC(v), LC());
        return AllocatedBit(v, value);
    }
    template <class CS>
    static AllocatedBit xor_here(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
        auto value = detail::lift2(a.value_, b.value_, [](bool x, bool y) { return x != y; });
        Variable c = cs.alloc("xor result", [&] { return detail::bit_to_fr(value, "AllocatedBit::xor"); });
        if constexpr (records_constraints<CS>()) {
            // bellpepper writes a + a; one term 2a is the same row.
            LC c_lc(a.var_);
            c_lc.add(b.var_).sub(c);
            cs.enforce("xor constraint", LC().add(pow2_table()[1], a.var_), LC(b.var_), c_lc);
        }
        return AllocatedBit(c, value);
    }
    template <class CS>
    static AllocatedBit and_here(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
        auto value = detail::lift2(a.value_, b.value_, [](bool x, bool y) { return x && y; });
        Variable c = cs.alloc("and result", [&] { return detail::bit_to_fr(value, "AllocatedBit::and"); });
        if constexpr (records_constraints<CS>()) cs.enforce("and constraint", LC(a.var_), LC(b.var_), LC(c));
        return AllocatedBit(c, value);
    }
    template <class CS>
    static AllocatedBit and_not_here(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
        auto value = detail::lift2(a.value_, b.value_, [](bool x, bool y) { return x && !y; });
        Variable c = cs.alloc("and not result", [&] { return detail::bit_to_fr(value, "AllocatedBit::and_not"); });
        if constexpr (records_constraints<CS>())
            cs.enforce("and not constraint", LC(a.var_), LC(Variable::one()) - b.var_, LC(c));
        return AllocatedBit(c, value);
    }
    template <class CS>
    static AllocatedBit nor_here(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
        auto value = detail::lift2(a.value_, b.value_, [](bool x, bool y) { return !x && !y; });
        Variable c = cs.alloc("nor result", [&] { return detail::bit_to_fr(value, "AllocatedBit::nor"); });
        if constexpr (records_constraints<CS>())
            cs.enforce("nor constraint", LC(Variable::one()) - a.var_, LC(Variable::one()) - b.var_, LC(c));
        return AllocatedBit(c, value);
    }

    Variable var_;
    std::optional<bool> value_;
};

class Boolean {
public:
    enum class Kind : uint8_t { Constant, Is, Not };

    Boolean() = default;                                              // Constant(false)
    Boolean(const AllocatedBit& bit) : kind_(Kind::Is), bit_(bit) {}  // NOLINT: implicit, as bellpepper's From
    static Boolean constant(bool v) {
        Boolean b;
        b.constant_ = v;
        return b;
    }
    static Boolean is(const AllocatedBit& bit) { return Boolean(bit); }
    static Boolean not_of(const AllocatedBit& bit) { return Boolean(bit).not_(); }

    Kind kind() const { return kind_; }
    bool is_constant() const { return kind_ == Kind::Constant; }
    // Whether this is the constant v.
    bool is_constant(bool v) const { return kind_ == Kind::Constant && constant_ == v; }
    bool constant_value() const { return constant_; }
    // The underlying allocated bit (Is / Not only).
    const AllocatedBit& bit() const { return bit_; }
    std::optional<bool> value() const {
        switch (kind_) {
            case Kind::Constant: return constant_;
            case Kind::Is: return bit_.value();
            case Kind::Not: break;
        }
        if (bit_.value()) return !*bit_.value();
        return std::nullopt;
    }

    Boolean not_() const {
        Boolean r = *this;
        switch (kind_) {
            case Kind::Constant: r.constant_ = !constant_; break;
            case Kind::Is: r.kind_ = Kind::Not; break;
            case Kind::Not: r.kind_ = Kind::Is; break;
        }
        return r;
    }

    // coeff * this as a combination: coeff * ONE (true), nothing (false), coeff * b (Is), coeff * (ONE - b) (Not).
    LC lc(const Fr& coeff = Fr::one()) const {
        LC r;
        Fr one_part = Fr::zero();
        add_to_lc_folding(r, one_part, coeff);
        if (!one_part.is_zero()) r.add(one_part, Variable::one());
        return r;
    }
    // lc += coeff * this, its constant part added to `one_part` instead, so a caller summing many Booleans writes
    // one term on ONE (bellpepper merges them into one as well).
    void add_to_lc_folding(LC& lc, Fr& one_part, const Fr& coeff) const {
        switch (kind_) {
            case Kind::Constant:
                if (constant_) one_part += coeff;
                break;
            case Kind::Is: lc.add(coeff, bit_.variable()); break;
            case Kind::Not:
                one_part += coeff;
                lc.sub(coeff, bit_.variable());
                break;
        }
    }

    // a XOR b. A constant folds (x XOR 0 = x, x XOR 1 = NOT x); Is/Not pairs pull the negation out
    // (a XOR NOT b = NOT(a XOR b)) with the Is operand first in the row, as bellpepper orders them; Is/Is and
    // Not/Not are the xor of the two bits in operand order.
    template <class CS, class N>
    static Boolean xor_(CS& cs, N&& name, const Boolean& a, const Boolean& b) {
        if (a.is_constant(false)) return b;
        if (b.is_constant(false)) return a;
        if (a.is_constant(true)) return b.not_();
        if (b.is_constant(true)) return a.not_();
        Namespace<CS> ns(cs, std::forward<N>(name));
        if (a.kind_ == b.kind_) return Boolean(AllocatedBit::xor_here(cs, a.bit_, b.bit_));
        const Boolean& is = a.kind_ == Kind::Is ? a : b;
        const Boolean& not_b = a.kind_ == Kind::Is ? b : a;
        return Boolean(AllocatedBit::xor_here(cs, is.bit_, not_b.bit_)).not_();
    }

    // a AND b: false if either is constant false, the other if one is constant true; otherwise one of
    // and (Is, Is), and_not (Is, Not: the Is operand first), nor (Not, Not).
    template <class CS, class N>
    static Boolean and_(CS& cs, N&& name, const Boolean& a, const Boolean& b) {
        if (a.is_constant(false) || b.is_constant(false)) return constant(false);
        if (a.is_constant(true)) return b;
        if (b.is_constant(true)) return a;
        Namespace<CS> ns(cs, std::forward<N>(name));
        if (a.kind_ == Kind::Is && b.kind_ == Kind::Is) return Boolean(AllocatedBit::and_here(cs, a.bit_, b.bit_));
        if (a.kind_ == Kind::Not && b.kind_ == Kind::Not) return Boolean(AllocatedBit::nor_here(cs, a.bit_, b.bit_));
        const Boolean& is = a.kind_ == Kind::Is ? a : b;
        const Boolean& not_b = a.kind_ == Kind::Is ? b : a;
        return Boolean(AllocatedBit::and_not_here(cs, is.bit_, not_b.bit_));
    }

    // a OR b = NOT(NOT a AND NOT b), the AND in the namespace "<name>/not and (not a) (not b)".
    template <class CS, class N>
    static Boolean or_(CS& cs, N&& name, const Boolean& a, const Boolean& b) {
        if (a.is_constant() || b.is_constant()) return and_(cs, "", a.not_(), b.not_()).not_();  // folds, no row
        Namespace<CS> ns(cs, std::forward<N>(name));
        return and_(cs, "not and (not a) (not b)", a.not_(), b.not_()).not_();
    }

    // SHA-256's ch(a, b, c) = (a AND b) XOR (NOT a AND c). Constants fold in bellpepper's order of cases (all
    // constant; a false; b false; c false; c true; b true); otherwise (also for a constant true) a fresh "ch" with
    // the row "ch computation": (b - c) * a = ch - c.
    template <class CS, class N>
    static Boolean sha256_ch(CS& cs, N&& name, const Boolean& a, const Boolean& b, const Boolean& c) {
        if (a.is_constant() && b.is_constant() && c.is_constant())
            return constant((a.constant_ && b.constant_) != (!a.constant_ && c.constant_));
        if (a.is_constant(false)) return c;
        if (b.is_constant(false)) return and_(cs, std::forward<N>(name), a.not_(), c);
        if (c.is_constant(false)) return and_(cs, std::forward<N>(name), a, b);
        if (c.is_constant(true)) return and_(cs, std::forward<N>(name), a, b.not_()).not_();
        if (b.is_constant(true)) return and_(cs, std::forward<N>(name), a.not_(), c.not_()).not_();
        Namespace<CS> ns(cs, std::forward<N>(name));
        std::optional<bool> value;
        if (auto av = a.value(), bv = b.value(), cv = c.value(); av && bv && cv) value = (*av && *bv) != (!*av && *cv);
        value = detail::keep_if_needed<CS>(value);
        Variable ch = cs.alloc("ch", [&] { return detail::bit_to_fr(value, "Boolean::sha256_ch"); });
        if constexpr (records_constraints<CS>()) {
            const Fr minus_one = -Fr::one();
            LC b_minus_c;
            Fr one_ab = Fr::zero();
            b.add_to_lc_folding(b_minus_c, one_ab, Fr::one());
            c.add_to_lc_folding(b_minus_c, one_ab, minus_one);
            if (!one_ab.is_zero()) b_minus_c.add(one_ab, Variable::one());
            LC ch_minus_c(ch);
            Fr one_c = Fr::zero();
            c.add_to_lc_folding(ch_minus_c, one_c, minus_one);
            if (!one_c.is_zero()) ch_minus_c.add(one_c, Variable::one());
            cs.enforce("ch computation", b_minus_c, a.lc(), ch_minus_c);
        }
        return Boolean(AllocatedBit(ch, value));
    }

    // SHA-256's maj(a, b, c) = (a AND b) XOR (a AND c) XOR (b AND c). One constant makes it one AND (or an OR as
    // NOT(NOT x AND NOT y)), in bellpepper's order of cases; otherwise a fresh "maj", then bc = b AND c in
    // "b and c", then the row "maj computation": (2bc - b - c) * a = bc - maj (maj = bc + a(b + c - 2bc)).
    template <class CS, class N>
    static Boolean sha256_maj(CS& cs, N&& name, const Boolean& a, const Boolean& b, const Boolean& c) {
        if (a.is_constant() && b.is_constant() && c.is_constant())
            return constant((int)a.constant_ + (int)b.constant_ + (int)c.constant_ >= 2);
        if (a.is_constant(false)) return and_(cs, std::forward<N>(name), b, c);
        if (b.is_constant(false)) return and_(cs, std::forward<N>(name), a, c);
        if (c.is_constant(false)) return and_(cs, std::forward<N>(name), a, b);
        if (c.is_constant(true)) return and_(cs, std::forward<N>(name), a.not_(), b.not_()).not_();
        if (b.is_constant(true)) return and_(cs, std::forward<N>(name), a.not_(), c.not_()).not_();
        if (a.is_constant(true)) return and_(cs, std::forward<N>(name), b.not_(), c.not_()).not_();
        Namespace<CS> ns(cs, std::forward<N>(name));
        std::optional<bool> value;
        if (auto av = a.value(), bv = b.value(), cv = c.value(); av && bv && cv)
            value = (int)*av + (int)*bv + (int)*cv >= 2;
        value = detail::keep_if_needed<CS>(value);
        Variable maj = cs.alloc("maj", [&] { return detail::bit_to_fr(value, "Boolean::sha256_maj"); });
        // b, c are not constant here, so this allocates (and, and_not or nor).
        Boolean bc = and_(cs, "b and c", b, c);
        if constexpr (records_constraints<CS>()) {
            const Fr minus_one = -Fr::one();
            LC lin;
            Fr one_part = Fr::zero();
            bc.add_to_lc_folding(lin, one_part, pow2_table()[1]);
            b.add_to_lc_folding(lin, one_part, minus_one);
            c.add_to_lc_folding(lin, one_part, minus_one);
            if (!one_part.is_zero()) lin.add(one_part, Variable::one());
            cs.enforce("maj computation", lin, a.lc(), bc.lc().sub(maj));
        }
        return Boolean(AllocatedBit(maj, value));
    }

    // a == b. Two constants are checked here (SynthesisError Unsatisfiable when they differ); otherwise one row
    // 0 * 0 = C with C = ONE - x ("enforce equal to one"), x ("enforce equal to zero") or a - b ("enforce equal"),
    // in "<name>/…".
    template <class CS, class N>
    static void enforce_equal(CS& cs, N&& name, const Boolean& a, const Boolean& b) {
        if (a.is_constant() && b.is_constant()) {
            if (a.constant_ != b.constant_)
                throw SynthesisError(SynthesisErrorKind::Unsatisfiable, "Boolean::enforce_equal of unequal constants");
            return;
        }
        Namespace<CS> ns(cs, std::forward<N>(name));
        if constexpr (records_constraints<CS>()) {
            if (a.is_constant(true) || b.is_constant(true)) {
                const Boolean& x = a.is_constant(true) ? b : a;
                LC c;
                Fr one_part = Fr::one();
                x.add_to_lc_folding(c, one_part, -Fr::one());
                if (!one_part.is_zero()) c.add(one_part, Variable::one());
                cs.enforce("enforce equal to one", LC(), LC(), c);
            } else if (a.is_constant(false) || b.is_constant(false)) {
                const Boolean& x = a.is_constant(false) ? b : a;
                cs.enforce("enforce equal to zero", LC(), LC(), x.lc());
            } else {
                LC c;
                Fr one_part = Fr::zero();
                a.add_to_lc_folding(c, one_part, Fr::one());
                b.add_to_lc_folding(c, one_part, -Fr::one());
                if (!one_part.is_zero()) c.add(one_part, Variable::one());
                cs.enforce("enforce equal", LC(), LC(), c);
            }
        }
    }

private:
    Kind kind_ = Kind::Constant;
    bool constant_ = false;
    AllocatedBit bit_;
};

namespace detail {
// bellpepper's field_into_allocated_bits_le in the caller's namespace: the NUM_BITS = 255 low bits of the canonical
// value, allocated least significant first as "bit i" (each with its booleanity row), no packing row.
template <class CS>
std::vector<AllocatedBit> field_into_allocated_bits_le(CS& cs, const std::optional<Fr>& value) {
    constexpr size_t kBits = Fr::BITS;  // 255
    static_assert(kBits == 255, "bellpepper allocates NUM_BITS bits");
    std::optional<limbs_t<4>> canon;
    if constexpr (CS::kNeedsValues) {
        if (value) canon = value->to_canonical();
    }
    std::vector<AllocatedBit> bits;
    bits.reserve(kBits);
    for (size_t i = 0; i < kBits; i++) {
        std::optional<bool> b;
        if (canon) b = ((*canon)[i / 64] >> (i % 64)) & 1;
        bits.push_back(AllocatedBit::alloc(
            cs, [i] { return "bit " + std::to_string(i); }, b));
    }
    return bits;
}
}  // namespace detail

// The 255 bits of a field element, least significant first, as constrained bits "<name>/bit i" (255 rows). Nothing
// ties them to a variable: AllocatedNum::to_bits_le adds that row.
template <class CS, class N>
std::vector<AllocatedBit> field_into_allocated_bits_le(CS& cs, N&& name, const std::optional<Fr>& value) {
    Namespace<CS> ns(cs, std::forward<N>(name));
    return detail::field_into_allocated_bits_le(cs, value);
}
template <class CS, class N>
std::vector<Boolean> field_into_boolean_vec_le(CS& cs, N&& name, const std::optional<Fr>& value) {
    auto bits = field_into_allocated_bits_le(cs, std::forward<N>(name), value);
    return std::vector<Boolean>(bits.begin(), bits.end());
}

// The 64 bits of a u64, least significant first, as constrained bits "<name>/bit i".
template <class CS, class N>
std::vector<Boolean> u64_into_boolean_vec_le(CS& cs, N&& name, std::optional<uint64_t> value) {
    Namespace<CS> ns(cs, std::forward<N>(name));
    std::vector<Boolean> bits;
    bits.reserve(64);
    for (unsigned i = 0; i < 64; i++) {
        std::optional<bool> b;
        if (value) b = (*value >> i) & 1;
        bits.push_back(AllocatedBit::alloc(
            cs, [i] { return "bit " + std::to_string(i); }, b));
    }
    return bits;
}

}  // namespace cuzk::gadgets
