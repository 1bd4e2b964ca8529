// The key-generation side of the constraint system: records the constraints as three sparse matrices (CSR: one
// row per constraint, terms as (variable, coefficient)). Setup evaluates them at tau. For the pre-compiled
// constraint evaluator (pce.hpp) it records them compactly instead: each distinct coefficient once, a term as
// (variable, index of its coefficient), 8 bytes instead of 40 (a 2^27-constraint PoRep partition has ~750 M terms
// but only a few thousand distinct coefficients: ~6 GB instead of ~30 GB).
#pragma once

#include <array>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
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

// Appends lc as one row of m, its coefficients interned in `coeffs` (one stays index 0).
inline void append_compact_row(CompactMatrix& m, CoeffTable& coeffs, const LC& lc) {
    for (const Term& t : lc.terms()) m.terms.push_back({t.var, t.coeff_is_one ? 0u : coeffs.intern(t.coeff)});
    m.row_start.push_back(m.terms.size());
}

class KeygenFragment;

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
            append_compact_row(ca_, coeffs_, a);
            append_compact_row(cb_, coeffs_, b);
            append_compact_row(cc_, coeffs_, c);
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
    // Parts synthesized in parallel (synthesize_parts; compact recording only), appended in order: their inputs and
    // aux variables are numbered after this one's, their coefficients interned here.
    void append_all(std::vector<KeygenFragment>& parts);
    bool can_fork() const { return compact_; }
    // Compact recording: the matrices and the coefficient table, moved out.
    CompactMatrix take_compact(int which) { return std::move(which == 0 ? ca_ : which == 1 ? cb_ : cc_); }
    std::vector<Fr> take_coefficients() { return coeffs_.take(); }

private:
    friend class KeygenFragment;
    bool compact_ = false;
    size_t num_inputs_ = 0, num_aux_ = 0;
    SparseMatrix a_, b_, c_;
    CompactMatrix ca_, cb_, cc_;
    CoeffTable coeffs_;
};

// A part of a compact KeygenAssembly recorded on its own thread (r1cs::synthesize_parts), as AssignmentFragment is
// for ProvingAssignment: its inputs and aux variables are numbered kLocalBase + i (valid only inside the fragment)
// and its coefficients go to a table of its own; KeygenAssembly::append_all renumbers them, so the matrices equal
// the sequential recording's.
class KeygenFragment {
public:
    static constexpr bool kNeedsValues = false;
    static constexpr uint32_t kLocalBase = ForkedValues::kLocalBase;

    explicit KeygenFragment(const KeygenAssembly& parent)
        : n_inputs_(parent.num_inputs_), n_parent_aux_(parent.num_aux_) {}

    template <class N, class V>
    Variable alloc(N&&, V&&) {
        if (num_aux_ >= Variable::kMaxIndex - kLocalBase)
            throw SynthesisError(SynthesisErrorKind::Other, "too many variables in a fragment");
        return Variable::aux(kLocalBase + (uint32_t)num_aux_++);
    }
    template <class N, class V>
    Variable alloc_input(N&&, V&&) {
        if (num_inputs_ >= Variable::kMaxIndex - kLocalBase)
            throw SynthesisError(SynthesisErrorKind::Other, "too many inputs in a fragment");
        return Variable::input(kLocalBase + (uint32_t)num_inputs_++);
    }
    template <class N>
    void enforce(N&&, const LC& a, const LC& b, const LC& c) {
        for (const LC* lc : {&a, &b, &c}) check(*lc);
        append_compact_row(m_[0], coeffs_, a);
        append_compact_row(m_[1], coeffs_, b);
        append_compact_row(m_[2], coeffs_, c);
    }
    template <class N>
    void push_namespace(N&&) {}
    void pop_namespace() {}
    // Room for about this many constraints (terms: ~6 per constraint over A, B and C, as PoRep's).
    void reserve(size_t /*aux*/, size_t constraints) {
        for (auto& m : m_) {
            m.row_start.reserve(constraints + 1);
            m.terms.reserve(2 * constraints);
        }
    }

private:
    friend class KeygenAssembly;
    // A constraint over a variable this fragment cannot see (allocated after the fork, or in another fragment).
    void check(const LC& lc) const {
        for (const Term& t : lc.terms()) {
            const uint32_t i = t.var.index();
            const bool ok = i >= kLocalBase ? i - kLocalBase < (t.var.is_input() ? num_inputs_ : num_aux_)
                                            : i < (t.var.is_input() ? n_inputs_ : n_parent_aux_);
            if (!ok) ForkedValues::unknown(t.var);
        }
    }
    size_t n_inputs_, n_parent_aux_;
    size_t num_inputs_ = 0, num_aux_ = 0;  // local
    CompactMatrix m_[3];
    CoeffTable coeffs_;
};

inline void KeygenAssembly::append_all(std::vector<KeygenFragment>& parts) {
    if (!compact_) throw SynthesisError(SynthesisErrorKind::Other, "append: fragments need compact recording");
    for (const auto& f : parts)
        if (f.n_inputs_ != num_inputs_ || f.n_parent_aux_ > num_aux_)
            throw SynthesisError(SynthesisErrorKind::Other, "append: a fragment was not forked from this assignment");
    // Each fragment's coefficient indices and input and aux numbers in this assembly.
    std::vector<std::vector<uint32_t>> coeff_map(parts.size());
    std::vector<uint32_t> input_base(parts.size()), aux_base(parts.size());
    size_t inputs = num_inputs_, aux = num_aux_;
    for (size_t g = 0; g < parts.size(); g++) {
        const std::vector<Fr> values = parts[g].coeffs_.take();
        coeff_map[g].reserve(values.size());
        for (const Fr& v : values) coeff_map[g].push_back(coeffs_.intern(v));
        input_base[g] = (uint32_t)inputs;
        inputs += parts[g].num_inputs_;
        aux_base[g] = (uint32_t)aux;
        aux += parts[g].num_aux_;
    }
    if (aux > (size_t)Variable::kMaxIndex + 1) throw SynthesisError(SynthesisErrorKind::Other, "too many variables");
    if (inputs > (size_t)Variable::kMaxIndex + 1) throw SynthesisError(SynthesisErrorKind::Other, "too many inputs");
    // A, B and C on three threads (GBs of terms at Filecoin sizes).
    CompactMatrix* dst[3] = {&ca_, &cb_, &cc_};
    std::vector<std::thread> threads;
    std::exception_ptr errors[3];
    for (int k = 0; k < 3; k++)
        threads.emplace_back([&, k] {
            try {
                CompactMatrix& d = *dst[k];
                size_t terms = d.terms.size(), rows = d.rows();
                for (auto& f : parts) terms += f.m_[k].terms.size(), rows += f.m_[k].rows();
                d.terms.reserve(terms);
                d.row_start.reserve(rows + 1);
                for (size_t g = 0; g < parts.size(); g++) {
                    CompactMatrix& s = parts[g].m_[k];
                    const uint64_t shift = d.terms.size();
                    for (size_t r = 1; r < s.row_start.size(); r++) d.row_start.push_back(s.row_start[r] + shift);
                    const uint32_t* cmap = coeff_map[g].data();
                    for (const CompactTerm& t : s.terms) {
                        const uint32_t i = t.var.index();
                        const uint32_t l = i - KeygenFragment::kLocalBase;
                        const Variable v = i < KeygenFragment::kLocalBase ? t.var
                                           : t.var.is_aux()               ? Variable::aux(aux_base[g] + l)
                                                                          : Variable::input(input_base[g] + l);
                        d.terms.push_back({v, cmap[t.coeff]});
                    }
                    CompactMatrix().row_start.swap(s.row_start);
                    std::vector<CompactTerm>().swap(s.terms);
                }
            } catch (...) {
                errors[k] = std::current_exception();
            }
        });
    for (auto& t : threads) t.join();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
    num_inputs_ = inputs;
    num_aux_ = aux;
}

}  // namespace cuzk::r1cs
