// The witness-only constraint system: alloc / alloc_input record the values, enforce does nothing. With a
// pre-compiled R1CS (pce.hpp) it replaces full synthesis per proof: witness here, then a = A·z etc. by a sparse
// product.
#pragma once

#include <vector>

#include "cuzk/r1cs/constraint_system.hpp"

namespace cuzk::r1cs {

// A constraint system that records only the assignment: alloc / alloc_input store the values, enforce does
// nothing (the constraints are in the PrecompiledR1cs already).
class WitnessAssignment {
public:
    static constexpr bool kNeedsValues = true;

    template <class N, class V>
    Variable alloc(N&&, V&& value) {
        if (aux_.size() > Variable::kMaxIndex) throw SynthesisError(SynthesisErrorKind::Other, "too many variables");
        aux_.push_back(value());
        return Variable::aux((uint32_t)(aux_.size() - 1));
    }
    template <class N, class V>
    Variable alloc_input(N&&, V&& value) {
        if (inputs_.size() > Variable::kMaxIndex) throw SynthesisError(SynthesisErrorKind::Other, "too many inputs");
        inputs_.push_back(value());
        return Variable::input((uint32_t)(inputs_.size() - 1));
    }
    template <class N>
    void enforce(N&&, const LC&, const LC&, const LC&) {}
    template <class N>
    void push_namespace(N&&) {}
    void pop_namespace() {}

    const std::vector<Fr>& inputs() const { return inputs_; }
    const std::vector<Fr>& aux() const { return aux_; }
    std::vector<Fr>& inputs() { return inputs_; }
    std::vector<Fr>& aux() { return aux_; }
    // Preallocation for a known shape (e.g. from a PrecompiledR1cs), so the witness pass does not regrow.
    void reserve(size_t num_inputs, size_t num_aux) {
        inputs_.reserve(num_inputs);
        aux_.reserve(num_aux);
    }

private:
    std::vector<Fr> inputs_, aux_;
};

}  // namespace cuzk::r1cs
