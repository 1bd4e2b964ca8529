// The prover's side of the constraint system: the assignment (inputs, aux), the evaluations a, b, c of every
// constraint's three combinations, and bellperson's density trackers — which aux variables occur in some A
// combination, and which input / aux variables occur in some B combination — so the prover skips the bases that
// setup dropped (a variable that never occurs has the point at infinity, and bellman's files leave it out).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cuzk/r1cs/constraint_system.hpp"

namespace cuzk::r1cs {

// One bit per variable: set when the variable occurs in the tracked combinations.
class DensityTracker {
public:
    void add_element() {
        if (size_ % 64 == 0) words_.push_back(0);
        size_++;
    }
    void mark(size_t i) { words_[i / 64] |= uint64_t{1} << (i % 64); }
    bool get(size_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }
    size_t size() const { return size_; }
    // Bit i of word i / 64 is get(i); ceil(size() / 64) words.
    const uint64_t* words() const { return words_.data(); }
    size_t count() const {
        size_t n = 0;
        for (uint64_t w : words_) n += (size_t)__builtin_popcountll(w);
        return n;
    }
    friend bool operator==(const DensityTracker&, const DensityTracker&) = default;

private:
    std::vector<uint64_t> words_;
    size_t size_ = 0;
};

class ProvingAssignment {
public:
    static constexpr bool kNeedsValues = true;

    template <class N, class V>
    Variable alloc(N&&, V&& value) {
        if (aux_.size() > Variable::kMaxIndex) throw SynthesisError(SynthesisErrorKind::Other, "too many variables");
        aux_.push_back(value());
        a_aux_density_.add_element();
        b_aux_density_.add_element();
        return Variable::aux((uint32_t)(aux_.size() - 1));
    }
    template <class N, class V>
    Variable alloc_input(N&&, V&& value) {
        if (inputs_.size() > Variable::kMaxIndex) throw SynthesisError(SynthesisErrorKind::Other, "too many inputs");
        inputs_.push_back(value());
        b_input_density_.add_element();
        return Variable::input((uint32_t)(inputs_.size() - 1));
    }
    template <class N>
    void enforce(N&&, const LC& a, const LC& b, const LC& c) {
        a_.push_back(eval_tracking(a, nullptr, &a_aux_density_));
        b_.push_back(eval_tracking(b, &b_input_density_, &b_aux_density_));
        c_.push_back(eval_tracking(c, nullptr, nullptr));
    }
    template <class N>
    void push_namespace(N&&) {}
    void pop_namespace() {}

    // An assignment whose a, b, c and densities were computed elsewhere (the pre-compiled evaluator's sparse
    // product, pce.hpp): the prover cannot tell it from one synthesis filled. Sizes are checked by the prover.
    static ProvingAssignment from_parts(std::vector<Fr> inputs, std::vector<Fr> aux, std::vector<Fr> a,
                                        std::vector<Fr> b, std::vector<Fr> c, DensityTracker a_aux_density,
                                        DensityTracker b_input_density, DensityTracker b_aux_density) {
        ProvingAssignment p;
        p.inputs_ = std::move(inputs);
        p.aux_ = std::move(aux);
        p.a_ = std::move(a);
        p.b_ = std::move(b);
        p.c_ = std::move(c);
        p.a_aux_density_ = std::move(a_aux_density);
        p.b_input_density_ = std::move(b_input_density);
        p.b_aux_density_ = std::move(b_aux_density);
        return p;
    }

    size_t num_constraints() const { return a_.size(); }
    const std::vector<Fr>& inputs() const { return inputs_; }
    const std::vector<Fr>& aux() const { return aux_; }
    // a_j, b_j, c_j for every constraint j (the QAP evaluations the prover interpolates).
    std::vector<Fr>& a() { return a_; }
    std::vector<Fr>& b() { return b_; }
    std::vector<Fr>& c() { return c_; }
    const std::vector<Fr>& a() const { return a_; }
    const std::vector<Fr>& b() const { return b_; }
    const std::vector<Fr>& c() const { return c_; }
    const DensityTracker& a_aux_density() const { return a_aux_density_; }
    const DensityTracker& b_input_density() const { return b_input_density_; }
    const DensityTracker& b_aux_density() const { return b_aux_density_; }

private:
    Fr eval_tracking(const LC& lc, DensityTracker* input_density, DensityTracker* aux_density) {
        Fr acc = Fr::zero();
        for (const Term& t : lc.terms()) {
            // A zero coefficient contributes nothing and must not mark density: setup drops the point of a variable
            // whose polynomial is zero, and bellperson skips such terms too. (A variable that cancels inside one
            // combination, x - x, is not merged here; the prover then reports a density/query length mismatch.)
            if (!t.coeff_is_one && t.coeff.is_zero()) continue;
            const Fr* v;
            // An index past the assignment is a circuit bug (a variable of another system); checked because it
            // costs one predictable branch and would otherwise read out of bounds.
            if (t.var.is_input()) {
                if (t.var.index() >= inputs_.size()) throw_unknown(t.var);
                v = &inputs_[t.var.index()];
                if (input_density) input_density->mark(t.var.index());
            } else {
                if (t.var.index() >= aux_.size()) throw_unknown(t.var);
                v = &aux_[t.var.index()];
                if (aux_density) aux_density->mark(t.var.index());
            }
            if (t.coeff_is_one) acc += *v;
            else acc += t.coeff * *v;
        }
        return acc;
    }

    [[noreturn]] static void throw_unknown(Variable v) {
        throw SynthesisError(SynthesisErrorKind::Other, std::string("constraint uses unallocated ") +
                                                            (v.is_input() ? "input " : "aux ") + std::to_string(v.index()));
    }

    std::vector<Fr> inputs_, aux_;
    std::vector<Fr> a_, b_, c_;
    DensityTracker a_aux_density_, b_input_density_, b_aux_density_;
};

}  // namespace cuzk::r1cs
