// The witness-only constraint system: alloc / alloc_input record the values, enforce does nothing. With a
// pre-compiled R1CS (pce.hpp) it replaces full synthesis per proof: witness here, then a = A·z etc. by a sparse
// product.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "cuzk/r1cs/constraint_system.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::r1cs {

// Reserves room for n values and, on Linux, asks for transparent huge pages for the part of the block that covers
// whole 2 MiB pages. A fresh block of 10^6 field elements (32 MB) otherwise takes ~8,000 page faults when first
// written: on a 2-core Zen 4 that is ~13 ms per vector, a sixth of the PCE path for the retired 1 M-constraint
// stand-in. Advice only: without THP (or with THP off) nothing changes but the speed.
// With a pool, the block's pages are also faulted in (MADV_POPULATE_WRITE) by all its threads: the kernel zeroes
// fresh pages as it maps them, and a single thread that first writes GBs (std::vector's resize, an insert) spends
// most of its time there (H200 host, 4 GB of a 2^27 partition's a, b or c: ~1 s on one thread).
inline void reserve_huge(std::vector<Fr>& v, size_t n, ThreadPool* pool = nullptr) {
    v.reserve(n);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr uintptr_t kHuge = uintptr_t{2} << 20;
    const uintptr_t lo = ((uintptr_t)v.data() + kHuge - 1) & ~(kHuge - 1);
    const uintptr_t hi = ((uintptr_t)(v.data() + v.capacity())) & ~(kHuge - 1);
    if (hi > lo) (void)madvise((void*)lo, hi - lo, MADV_HUGEPAGE);
#if defined(MADV_POPULATE_WRITE)
    if (pool && pool->size() > 1 && hi > lo + 8 * kHuge) {
        const size_t pages = (hi - lo) / kHuge;
        pool->parallel_for(pages, [lo](size_t a, size_t b) {
            (void)madvise((void*)(lo + a * kHuge), (b - a) * kHuge, MADV_POPULATE_WRITE);  // advice: may fail
        });
    }
#endif
#else
    (void)pool;
#endif
}

class WitnessFragment;

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
    void reserve(size_t num_inputs, size_t num_aux, ThreadPool* pool = nullptr) {
        inputs_.reserve(num_inputs);
        reserve_huge(aux_, num_aux, pool);
    }

    // Appends parts synthesized in parallel (synthesize_parts), in order: their inputs and aux values follow this
    // one's.
    inline void append_all(std::vector<WitnessFragment>& parts);
    bool can_fork() const { return true; }

private:
    friend class WitnessFragment;
    std::vector<Fr> inputs_, aux_;
};

// A part of a WitnessAssignment synthesized on its own thread (r1cs::synthesize_parts), as AssignmentFragment is
// for ProvingAssignment: it reads the parent's inputs and aux values as they were at the fork, allocates inputs and
// aux variables of its own (index kLocalBase + i, valid only inside the fragment), and append_all adds its values to
// the parent in order, so the witness equals the sequential one.
class WitnessFragment {
public:
    static constexpr bool kNeedsValues = true;
    static constexpr bool kRecordsConstraints = false;
    static constexpr uint32_t kLocalBase = ForkedValues::kLocalBase;

    explicit WitnessFragment(const WitnessAssignment& parent)
        : inputs_(parent.inputs_.data()),
          n_inputs_(parent.inputs_.size()),
          parent_aux_(parent.aux_.data()),
          n_parent_aux_(parent.aux_.size()) {}

    template <class N, class V>
    Variable alloc(N&&, V&& value) {
        if (aux_.size() >= Variable::kMaxIndex - kLocalBase)
            throw SynthesisError(SynthesisErrorKind::Other, "too many variables in a fragment");
        aux_.push_back(value());
        return Variable::aux(kLocalBase + (uint32_t)(aux_.size() - 1));
    }
    template <class N, class V>
    Variable alloc_input(N&&, V&& value) {
        if (local_inputs_.size() >= Variable::kMaxIndex - kLocalBase)
            throw SynthesisError(SynthesisErrorKind::Other, "too many inputs in a fragment");
        local_inputs_.push_back(value());
        return Variable::input(kLocalBase + (uint32_t)(local_inputs_.size() - 1));
    }
    template <class N>
    void enforce(N&&, const LC&, const LC&, const LC&) {}
    template <class N>
    void push_namespace(N&&) {}
    void pop_namespace() {}
    void reserve(size_t aux, size_t /*constraints*/) { reserve_huge(aux_, aux); }
    // The value of a combination (gadgets that need one evaluate it here, as with AssignmentFragment).
    Fr evaluate(const LC& lc) const {
        return ForkedValues{inputs_, n_inputs_, parent_aux_, n_parent_aux_}.evaluate(lc, aux_, local_inputs_);
    }

private:
    friend class WitnessAssignment;
    const Fr* inputs_;
    size_t n_inputs_;
    const Fr* parent_aux_;
    size_t n_parent_aux_;
    std::vector<Fr> local_inputs_, aux_;
};

inline void WitnessAssignment::append_all(std::vector<WitnessFragment>& parts) {
    size_t n = aux_.size();
    for (const auto& f : parts) {
        if (f.n_inputs_ != inputs_.size() || f.n_parent_aux_ > aux_.size())
            throw SynthesisError(SynthesisErrorKind::Other, "append: a fragment was not forked from this assignment");
        n += f.aux_.size();
    }
    if (n > aux_.capacity()) aux_.reserve(n);
    for (auto& f : parts) {
        inputs_.insert(inputs_.end(), f.local_inputs_.begin(), f.local_inputs_.end());
        aux_.insert(aux_.end(), f.aux_.begin(), f.aux_.end());
        std::vector<Fr>().swap(f.local_inputs_);
        std::vector<Fr>().swap(f.aux_);
    }
}

}  // namespace cuzk::r1cs
