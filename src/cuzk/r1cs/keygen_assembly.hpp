// The key-generation side of the constraint system: records the constraints as three sparse matrices (CSR: one
// row per constraint, terms as (variable, coefficient)). Setup evaluates them at tau; later the pre-compiled
// constraint evaluator reuses the same matrices.
#pragma once

#include <cstdint>
#include <vector>

#include "cuzk/r1cs/constraint_system.hpp"

namespace cuzk::r1cs {

struct SparseMatrix {
    std::vector<uint64_t> row_start{0};  // row i is terms[row_start[i], row_start[i + 1])
    std::vector<Term> terms;

    size_t rows() const { return row_start.size() - 1; }
    std::span<const Term> row(size_t i) const {
        return {terms.data() + row_start[i], terms.data() + row_start[i + 1]};
    }
    void append_row(const LinearCombination& lc) {
        auto t = lc.terms();
        terms.insert(terms.end(), t.begin(), t.end());
        row_start.push_back(terms.size());
    }
};

class KeygenAssembly {
public:
    static constexpr bool kNeedsValues = false;

    template <class N, class V>
    Variable alloc(N&&, V&&) {
        if (num_aux_ > Variable::kMaxIndex) throw SynthesisError(SynthesisErrorKind::Other, "too many variables");
        return Variable::aux((uint32_t)num_aux_++);
    }
    template <class N, class V>
    Variable alloc_input(N&&, V&&) {
        if (num_inputs_ > Variable::kMaxIndex) throw SynthesisError(SynthesisErrorKind::Other, "too many inputs");
        return Variable::input((uint32_t)num_inputs_++);
    }
    template <class N>
    void enforce(N&&, const LC& a, const LC& b, const LC& c) {
        a_.append_row(a);
        b_.append_row(b);
        c_.append_row(c);
    }
    template <class N>
    void push_namespace(N&&) {}
    void pop_namespace() {}

    size_t num_inputs() const { return num_inputs_; }
    size_t num_aux() const { return num_aux_; }
    size_t num_constraints() const { return a_.rows(); }
    const SparseMatrix& a() const { return a_; }
    const SparseMatrix& b() const { return b_; }
    const SparseMatrix& c() const { return c_; }

private:
    size_t num_inputs_ = 0, num_aux_ = 0;
    SparseMatrix a_, b_, c_;
};

}  // namespace cuzk::r1cs
