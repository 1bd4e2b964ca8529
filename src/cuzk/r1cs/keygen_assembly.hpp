// The key-generation side of the constraint system: records the constraints as three sparse matrices (CSR: one
// row per constraint, terms as (variable, coefficient)). Setup evaluates them at tau. For the pre-compiled
// constraint evaluator (pce.hpp) it records them compactly instead: each distinct coefficient once, a term as
// (variable, index of its coefficient), 8 bytes instead of 40 (a 2^27-constraint PoRep partition has ~750 M terms
// but only a few thousand distinct coefficients: ~6 GB instead of ~30 GB).
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <unordered_map>
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

// A term of a compact matrix: the variable and the index of its coefficient in the matrix set's coefficient table
// (index 0 is always the coefficient one).
struct CompactTerm {
    Variable var;
    uint32_t coeff = 0;
};
struct CompactMatrix {
    std::vector<uint64_t> row_start{0};  // row i is terms[row_start[i], row_start[i + 1])
    std::vector<CompactTerm> terms;
    size_t rows() const { return row_start.size() - 1; }
};

// Distinct coefficients in first-seen order, one at index 0.
class CoeffTable {
public:
    CoeffTable() { intern(Fr::one()); }
    uint32_t intern(const Fr& c) {
        const auto& l = c.mont_limbs();
        const Key k{l[0], l[1], l[2], l[3]};
        auto it = index_.find(k);
        if (it != index_.end()) return it->second;
        if (values_.size() > UINT32_MAX) throw std::length_error("coefficient table: more than 2^32 coefficients");
        const uint32_t id = (uint32_t)values_.size();
        values_.push_back(c);
        index_.emplace(k, id);
        return id;
    }
    std::vector<Fr> take() { return std::move(values_); }

private:
    using Key = std::array<uint64_t, 4>;
    struct KeyHash {
        size_t operator()(const Key& k) const { return (size_t)(k[0] * 0x9E3779B97F4A7C15ull ^ k[1] ^ (k[2] << 1) ^ (k[3] << 2)); }
    };
    std::vector<Fr> values_;
    std::unordered_map<Key, uint32_t, KeyHash> index_;
};

class KeygenAssembly {
public:
    static constexpr bool kNeedsValues = false;

    // compact: record CompactMatrix rows (a_compact() ...) instead of SparseMatrix rows.
    explicit KeygenAssembly(bool compact = false) : compact_(compact) {}

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
        if (compact_) {
            append_compact(ca_, a);
            append_compact(cb_, b);
            append_compact(cc_, c);
            return;
        }
        a_.append_row(a);
        b_.append_row(b);
        c_.append_row(c);
    }
    template <class N>
    void push_namespace(N&&) {}
    void pop_namespace() {}

    size_t num_inputs() const { return num_inputs_; }
    size_t num_aux() const { return num_aux_; }
    size_t num_constraints() const { return compact_ ? ca_.rows() : a_.rows(); }
    const SparseMatrix& a() const { return a_; }
    const SparseMatrix& b() const { return b_; }
    const SparseMatrix& c() const { return c_; }
    // Compact recording: the matrices and the coefficient table, moved out.
    CompactMatrix take_compact(int which) { return std::move(which == 0 ? ca_ : which == 1 ? cb_ : cc_); }
    std::vector<Fr> take_coefficients() { return coeffs_.take(); }

private:
    void append_compact(CompactMatrix& m, const LC& lc) {
        for (const Term& t : lc.terms()) m.terms.push_back({t.var, t.coeff_is_one ? 0u : coeffs_.intern(t.coeff)});
        m.row_start.push_back(m.terms.size());
    }
    bool compact_ = false;
    size_t num_inputs_ = 0, num_aux_ = 0;
    SparseMatrix a_, b_, c_;
    CompactMatrix ca_, cb_, cc_;
    CoeffTable coeffs_;
};

}  // namespace cuzk::r1cs
