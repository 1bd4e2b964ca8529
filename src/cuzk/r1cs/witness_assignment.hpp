// The witness-only constraint system: alloc / alloc_input record the values, enforce does nothing. With a
// pre-compiled R1CS (pce.hpp) it replaces full synthesis per proof: witness here, then a = A·z etc. by a sparse
// product.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "cuzk/r1cs/constraint_system.hpp"

namespace cuzk::r1cs {

// Reserves room for n values and, on Linux, asks for transparent huge pages for the part of the block that covers
// whole 2 MiB pages. A fresh block of 10^6 field elements (32 MB) otherwise takes ~8,000 page faults when first
// written: on a 2-core Zen 4 that is ~13 ms per vector, a sixth of the PCE path for porep-1m. Advice only: without
// THP (or with THP off) nothing changes but the speed.
inline void reserve_huge(std::vector<Fr>& v, size_t n) {
    v.reserve(n);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr uintptr_t kHuge = uintptr_t{2} << 20;
    const uintptr_t lo = ((uintptr_t)v.data() + kHuge - 1) & ~(kHuge - 1);
    const uintptr_t hi = ((uintptr_t)(v.data() + v.capacity())) & ~(kHuge - 1);
    if (hi > lo) (void)madvise((void*)lo, hi - lo, MADV_HUGEPAGE);
#endif
}

// A constraint system that records only the assignment: alloc / alloc_input store the values, enforce does
// nothing (the constraints are in the PrecompiledR1cs already).
class WitnessAssignment {
public:
    static constexpr bool kNeedsValues = true;
    static constexpr bool kRecordsConstraints = false;  // gadgets skip building enforce()'s combinations

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
        reserve_huge(aux_, num_aux);
    }

private:
    std::vector<Fr> inputs_, aux_;
};

}  // namespace cuzk::r1cs
