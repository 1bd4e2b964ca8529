// Variables and linear combinations of a rank-1 constraint system.
//
// A variable is an index into the input (public) or the aux (private) assignment; input 0 is the constant one.
// A linear combination is a flat run of (variable, coefficient) terms with a flag for coefficient 1, so evaluating
// the common "+ variable" term costs an addition, not a multiplication. Up to kInline terms live inside the object:
// the proving assignment evaluates and drops each constraint's three combinations at once, so synthesis of 10^8
// constraints makes no heap allocation for the usual short combinations (longer ones, e.g. bit packings, spill to
// one heap block).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>

#include "cuzk/ff/fr.hpp"

namespace cuzk::r1cs {

class Variable {
public:
    static constexpr uint32_t kAuxBit = 0x80000000u;
    static constexpr uint32_t kMaxIndex = 0x7fffffffu;

    constexpr Variable() = default;
    static constexpr Variable input(uint32_t i) { return Variable(i); }
    static constexpr Variable aux(uint32_t i) { return Variable(i | kAuxBit); }
    // The constant one (input 0).
    static constexpr Variable one() { return input(0); }

    constexpr bool is_input() const { return !(raw_ & kAuxBit); }
    constexpr bool is_aux() const { return raw_ & kAuxBit; }
    constexpr uint32_t index() const { return raw_ & kMaxIndex; }
    constexpr uint32_t raw() const { return raw_; }
    friend constexpr bool operator==(Variable a, Variable b) { return a.raw_ == b.raw_; }

private:
    constexpr explicit Variable(uint32_t raw) : raw_(raw) {}
    uint32_t raw_ = 0;
};

struct Term {
    Variable var;
    uint32_t coeff_is_one = 0;  // 1: coeff == 1 (and the multiplication is skipped)
    Fr coeff;
};

class LinearCombination {
public:
    static constexpr uint32_t kInline = 6;

    LinearCombination() = default;
    LinearCombination(Variable v) { push(v, Fr::one(), true); }  // NOLINT: implicit, as bellman's `lc + var`
    static LinearCombination zero() { return {}; }

    LinearCombination(const LinearCombination& o) { copy_from(o); }
    LinearCombination& operator=(const LinearCombination& o) {
        if (this != &o) {
            size_ = 0;
            copy_from(o);
        }
        return *this;
    }
    LinearCombination(LinearCombination&& o) noexcept { move_from(o); }
    LinearCombination& operator=(LinearCombination&& o) noexcept {
        if (this != &o) {
            heap_.reset();
            cap_ = kInline;
            size_ = 0;
            move_from(o);
        }
        return *this;
    }

    // + coeff * v
    LinearCombination& add(const Fr& coeff, Variable v) {
        push(v, coeff, coeff.is_one());
        return *this;
    }
    LinearCombination& add(Variable v) {
        push(v, Fr::one(), true);
        return *this;
    }
    LinearCombination& sub(Variable v) {
        push(v, -Fr::one(), false);
        return *this;
    }
    LinearCombination& sub(const Fr& coeff, Variable v) { return add(-coeff, v); }
    LinearCombination& add(const LinearCombination& o) {
        for (const Term& t : o.terms()) push(t.var, t.coeff, t.coeff_is_one);
        return *this;
    }
    LinearCombination& add(const Fr& scale, const LinearCombination& o) {
        for (const Term& t : o.terms()) add(t.coeff_is_one ? scale : scale * t.coeff, t.var);
        return *this;
    }
    LinearCombination& sub(const LinearCombination& o) {
        for (const Term& t : o.terms()) push(t.var, -t.coeff, false);
        return *this;
    }

    friend LinearCombination operator+(LinearCombination lc, Variable v) { return std::move(lc.add(v)); }
    friend LinearCombination operator-(LinearCombination lc, Variable v) { return std::move(lc.sub(v)); }
    friend LinearCombination operator+(LinearCombination lc, const LinearCombination& o) { return std::move(lc.add(o)); }
    friend LinearCombination operator-(LinearCombination lc, const LinearCombination& o) { return std::move(lc.sub(o)); }

    std::span<const Term> terms() const { return {data(), size_}; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }

    // sum coeff * value(var); inputs and aux give the assignment (input 0 must be 1).
    Fr evaluate(std::span<const Fr> inputs, std::span<const Fr> aux) const {
        Fr acc = Fr::zero();
        for (const Term& t : terms()) {
            const Fr& v = t.var.is_input() ? inputs[t.var.index()] : aux[t.var.index()];
            if (t.coeff_is_one) acc += v;
            else acc += t.coeff * v;
        }
        return acc;
    }

private:
    Term* data() { return heap_ ? heap_.get() : inline_; }
    const Term* data() const { return heap_ ? heap_.get() : inline_; }
    void push(Variable v, const Fr& c, bool one) {
        if (size_ == cap_) grow();
        Term& t = data()[size_++];
        t.var = v;
        t.coeff_is_one = one;
        t.coeff = c;
    }
    void grow() {
        uint32_t cap = cap_ * 2;
        std::unique_ptr<Term[]> h(new Term[cap]);
        std::memcpy((void*)h.get(), (const void*)data(), size_ * sizeof(Term));
        heap_ = std::move(h);
        cap_ = cap;
    }
    void copy_from(const LinearCombination& o) {
        while (cap_ < o.size_) grow();
        std::memcpy((void*)data(), (const void*)o.data(), o.size_ * sizeof(Term));
        size_ = o.size_;
    }
    void move_from(LinearCombination& o) {
        if (o.heap_) {
            heap_ = std::move(o.heap_);
            cap_ = o.cap_;
            size_ = o.size_;
        } else {
            std::memcpy((void*)inline_, (const void*)o.inline_, o.size_ * sizeof(Term));
            size_ = o.size_;
        }
        o.cap_ = kInline;
        o.size_ = 0;
    }

    uint32_t size_ = 0;
    uint32_t cap_ = kInline;
    Term inline_[kInline];
    std::unique_ptr<Term[]> heap_;
};

using LC = LinearCombination;

}  // namespace cuzk::r1cs
