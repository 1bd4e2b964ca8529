// A constraint system that only counts: inputs, aux variables, constraints, and the non-zero terms of each matrix
// (a variable's terms merged within a row, as the matrices hold them), with no values and nothing stored. It is what
// `cuzk filecoin circuit-info` synthesizes a circuit into to pin its shape at any size (a 32 GiB PoRep partition's
// 130 M constraints in well under a minute, in a few bytes of memory).
//
// Input 0 (the constant one) exists from the start, as in the test system, so num_inputs() counts it.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "cuzk/r1cs/constraint_system.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::r1cs {

class CountingSystem {
public:
    static constexpr bool kNeedsValues = false;

    // count_nonzeros: also count each matrix's non-zero terms (costs a sort per row).
    explicit CountingSystem(bool count_nonzeros = false) : count_nonzeros_(count_nonzeros) {}

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
        num_constraints_++;
        if (!count_nonzeros_) return;
        nonzeros_[0] += nonzero_terms(a);
        nonzeros_[1] += nonzero_terms(b);
        nonzeros_[2] += nonzero_terms(c);
    }
    template <class N>
    void push_namespace(N&&) {}
    void pop_namespace() {}

    uint64_t num_inputs() const { return num_inputs_; }
    uint64_t num_aux() const { return num_aux_; }
    uint64_t num_constraints() const { return num_constraints_; }
    // Non-zero terms of A, B, C (count_nonzeros only).
    const std::array<uint64_t, 3>& nonzeros() const { return nonzeros_; }
    bool counts_nonzeros() const { return count_nonzeros_; }

private:
    // Terms after merging a variable's terms and dropping those that cancel. Most rows name each variable once:
    // then the count is the terms with a non-zero coefficient, found by sorting the variable ids alone; only a row
    // with a repeated variable sums coefficients.
    uint64_t nonzero_terms(const LC& lc) {
        const auto& terms = lc.terms();
        ids_.clear();
        for (const Term& t : terms) ids_.push_back(t.var.raw());
        std::sort(ids_.begin(), ids_.end());
        if (std::adjacent_find(ids_.begin(), ids_.end()) == ids_.end()) {
            uint64_t n = 0;
            for (const Term& t : terms) n += t.coeff_is_one || !t.coeff.is_zero();
            return n;
        }
        scratch_.clear();
        for (const Term& t : terms) scratch_.push_back({t.var.raw(), t.coeff_is_one ? Fr::one() : t.coeff});
        std::sort(scratch_.begin(), scratch_.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        uint64_t n = 0;
        for (size_t i = 0; i < scratch_.size();) {
            Fr sum = Fr::zero();
            size_t j = i;
            for (; j < scratch_.size() && scratch_[j].first == scratch_[i].first; j++) sum += scratch_[j].second;
            if (!sum.is_zero()) n++;
            i = j;
        }
        return n;
    }

    bool count_nonzeros_;
    uint64_t num_inputs_ = 1;
    uint64_t num_aux_ = 0;
    uint64_t num_constraints_ = 0;
    std::array<uint64_t, 3> nonzeros_{};
    std::vector<std::pair<uint32_t, Fr>> scratch_;
    std::vector<uint32_t> ids_;
};

// A circuit's size as bellperson's synthesis gives it: `constraints` without the input constraints the Groth16 driver
// appends (one per input), `inputs` with the constant ONE (the verifying key's IC length), and, when counted, the
// non-zero terms of A, B and C.
struct CircuitCounts {
    uint64_t constraints = 0;
    uint64_t inputs = 0;
    uint64_t aux = 0;
    std::optional<std::array<uint64_t, 3>> nonzeros;
    friend bool operator==(const CircuitCounts&, const CircuitCounts&) = default;
};

// `base` (the circuit so far: its top level, ONE included) plus parts 0 .. n - 1 that share no variable with each
// other (a PoRep's challenges, a PoSt's sectors): each contiguous range of parts is synthesized by part(cs, i) into a
// copy of `base` on cuzk's thread pool, so its variables are numbered after base's as in the sequential synthesis
// (rows that mix a part's and base's variables merge terms as the real rows do, and the non-zero counts are exact),
// and each copy's growth beyond base is added.
template <class F>
CircuitCounts count_parts(const CountingSystem& base, size_t n, F&& part) {
    CircuitCounts total{base.num_constraints(), base.num_inputs(), base.num_aux(), std::nullopt};
    std::array<uint64_t, 3> nz = base.nonzeros();
    std::mutex mu;
    ThreadPool::global().parallel_for(n, [&](size_t lo, size_t hi) {
        CountingSystem cs = base;
        for (size_t i = lo; i < hi; i++) part(cs, i);
        std::lock_guard<std::mutex> lock(mu);
        total.constraints += cs.num_constraints() - base.num_constraints();
        total.inputs += cs.num_inputs() - base.num_inputs();
        total.aux += cs.num_aux() - base.num_aux();
        for (int m = 0; m < 3; m++) nz[m] += cs.nonzeros()[m] - base.nonzeros()[m];
    });
    if (base.counts_nonzeros()) total.nonzeros = nz;
    return total;
}

}  // namespace cuzk::r1cs
