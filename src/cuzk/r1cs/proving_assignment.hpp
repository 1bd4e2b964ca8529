// The prover's side of the constraint system: the assignment (inputs, aux), the evaluations a, b, c of every
// constraint's three combinations, and bellperson's density trackers — which aux variables occur in some A
// combination, and which input / aux variables occur in some B combination — so the prover skips the bases that
// setup dropped (a variable that never occurs has the point at infinity, and bellman's files leave it out).
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cuzk/r1cs/constraint_system.hpp"

namespace cuzk::r1cs {

struct PrecompiledR1cs;  // pce.hpp

// One bit per variable: set when the variable occurs in the tracked combinations.
class DensityTracker {
public:
    void add_element() {
        if (size_ % 64 == 0) words_.push_back(0);
        size_++;
    }
    void mark(size_t i) { words_[i / 64] |= uint64_t{1} << (i % 64); }
    // Appends other's bits after this tracker's.
    void append(const DensityTracker& other) {
        const size_t shift = size_ % 64;
        words_.resize((size_ + other.size_ + 63) / 64, 0);
        for (size_t w = 0; w < other.words_.size(); w++) {
            const uint64_t bits = other.words_[w];
            const size_t at = size_ / 64 + w;
            words_[at] |= bits << shift;
            if (shift && bits >> (64 - shift)) words_[at + 1] |= bits >> (64 - shift);
        }
        size_ += other.size_;
    }
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

class AssignmentFragment;

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
    static ProvingAssignment from_parts(std::vector<Fr> inputs, AuxValues aux, std::vector<Fr> a,
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

    // An assignment whose a, b, c are still to be computed from compiled matrices (the witness half of the
    // pre-compiled evaluator, pce.hpp witness_assignment): a, b, c are empty and deferred_products() names the
    // matrices; r1cs::complete_products computes them on the CPU, and a prover backend that holds the matrices on
    // its device computes them there (groth16::ProverBackend::hold_products). `pce` must outlive the assignment.
    static ProvingAssignment deferred(std::vector<Fr> inputs, AuxValues aux, const PrecompiledR1cs& pce,
                                      DensityTracker a_aux_density, DensityTracker b_input_density,
                                      DensityTracker b_aux_density) {
        ProvingAssignment p = from_parts(std::move(inputs), std::move(aux), {}, {}, {}, std::move(a_aux_density),
                                         std::move(b_input_density), std::move(b_aux_density));
        p.deferred_ = &pce;
        return p;
    }
    // The matrices a, b, c are to be computed from, or nullptr once they are there (synthesized or completed).
    const PrecompiledR1cs* deferred_products() const { return deferred_; }
    // Marks the deferred products as computed (a, b, c set by whoever computed them, or consumed on a device).
    void products_done() { deferred_ = nullptr; }

    // Optional, set by whoever hands the assignment to a prover backend: a backend that copies the witness (or a, b,
    // c) to a device calls it once, as soon as that copy no longer reads the host values (the engine holds a job's
    // next syntheses back until its first partition's witness is on the device, JobSpec::first_upload_alone).
    // Backends that copy nothing never call it. notify_sent() calls and clears it.
    std::function<void()> on_sent;
    void notify_sent() {
        if (!on_sent) return;
        auto f = std::move(on_sent);
        on_sent = nullptr;
        f();
    }

    size_t num_constraints() const { return a_.size(); }
    const std::vector<Fr>& inputs() const { return inputs_; }
    const AuxValues& aux() const { return aux_; }
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

    // Appends a fragment forked from this assignment (AssignmentFragment): its inputs, aux variables and
    // constraints follow what is here, and its uses of this assignment's variables mark their density bits.
    // Appending the fragments of one fork in their order gives exactly what synthesizing their parts in that order
    // here would.
    inline void append(AssignmentFragment&& f);
    // All fragments of one fork, in order, with the room reserved first.
    bool can_fork() const { return true; }
    inline void append_all(std::vector<AssignmentFragment>& parts);

private:
    friend class AssignmentFragment;
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

    std::vector<Fr> inputs_;
    AuxValues aux_;
    std::vector<Fr> a_, b_, c_;
    DensityTracker a_aux_density_, b_input_density_, b_aux_density_;
    const PrecompiledR1cs* deferred_ = nullptr;
};

// A part of a ProvingAssignment synthesized on its own (on another thread): it reads the inputs and aux values
// the parent had when it was forked, allocates inputs and aux variables of its own (index kLocalBase + i in the
// input or aux index space, valid only inside the fragment) and records its constraints' evaluations;
// ProvingAssignment::append then adds it to the parent, its inputs after the parent's (and the previous
// fragments'), as sequential synthesis numbers them. Parts that are independent given the parent's variables (a
// PoRep partition's challenges) synthesize in parallel this way with a result identical to sequential synthesis.
// The parent must not change between the fork and the appends, and variables a fragment allocated must not leave
// it.
class AssignmentFragment {
public:
    static constexpr bool kNeedsValues = true;
    static constexpr uint32_t kLocalBase = ForkedValues::kLocalBase;

    explicit AssignmentFragment(const ProvingAssignment& parent)
        : inputs_(parent.inputs_.data()),
          n_inputs_(parent.inputs_.size()),
          parent_aux_(parent.aux_.data()),
          n_parent_aux_(parent.aux_.size()),
          ext_a_((n_parent_aux_ + 63) / 64, 0),
          ext_b_((n_parent_aux_ + 63) / 64, 0),
          ext_b_inputs_((n_inputs_ + 63) / 64, 0) {}

    template <class N, class V>
    Variable alloc(N&&, V&& value) {
        if (aux_.size() >= Variable::kMaxIndex - kLocalBase)
            throw SynthesisError(SynthesisErrorKind::Other, "too many variables in a fragment");
        aux_.push_back(value());
        a_aux_density_.add_element();
        b_aux_density_.add_element();
        return Variable::aux(kLocalBase + (uint32_t)(aux_.size() - 1));
    }
    template <class N, class V>
    Variable alloc_input(N&&, V&& value) {
        if (local_inputs_.size() >= Variable::kMaxIndex - kLocalBase)
            throw SynthesisError(SynthesisErrorKind::Other, "too many inputs in a fragment");
        local_inputs_.push_back(value());
        b_input_density_.add_element();
        return Variable::input(kLocalBase + (uint32_t)(local_inputs_.size() - 1));
    }
    template <class N>
    void enforce(N&&, const LC& a, const LC& b, const LC& c) {
        a_.push_back(eval(a, 1));
        b_.push_back(eval(b, 2));
        c_.push_back(eval(c, 0));
    }
    template <class N>
    void push_namespace(N&&) {}
    void pop_namespace() {}
    size_t num_constraints() const { return a_.size(); }
    // Room for about this many variables and constraints (no regrowth copies while synthesizing GBs).
    void reserve(size_t aux, size_t constraints) {
        aux_.reserve(aux);
        for (auto* v : {&a_, &b_, &c_}) v->reserve(constraints);
    }
    // The value of a combination (what gadgets compute natively with LC::evaluate(inputs, aux) elsewhere).
    Fr evaluate(const LC& lc) const { return forked().evaluate(lc, aux_, local_inputs_); }

private:
    friend class ProvingAssignment;

    ForkedValues forked() const { return {inputs_, n_inputs_, parent_aux_, n_parent_aux_}; }

    // track: 0 none, 1 A (aux density), 2 B (input and aux density)
    Fr eval(const LC& lc, int track) {
        Fr acc = Fr::zero();
        for (const Term& t : lc.terms()) {
            if (!t.coeff_is_one && t.coeff.is_zero()) continue;  // as ProvingAssignment: no value, no density
            const Fr* v;
            const uint32_t i = t.var.index();
            if (t.var.is_input()) {
                if (i >= kLocalBase) {
                    const uint32_t l = i - kLocalBase;
                    if (l >= local_inputs_.size()) unknown(t.var);
                    v = &local_inputs_[l];
                    if (track == 2) b_input_density_.mark(l);
                } else {
                    if (i >= n_inputs_) unknown(t.var);
                    v = &inputs_[i];
                    if (track == 2) ext_b_inputs_[i / 64] |= uint64_t{1} << (i % 64);
                }
            } else if (i >= kLocalBase) {
                const uint32_t l = i - kLocalBase;
                if (l >= aux_.size()) unknown(t.var);
                v = &aux_[l];
                if (track == 1) a_aux_density_.mark(l);
                if (track == 2) b_aux_density_.mark(l);
            } else {
                if (i >= n_parent_aux_) unknown(t.var);
                v = &parent_aux_[i];
                if (track == 1) ext_a_[i / 64] |= uint64_t{1} << (i % 64);
                if (track == 2) ext_b_[i / 64] |= uint64_t{1} << (i % 64);
            }
            if (t.coeff_is_one) acc += *v;
            else acc += t.coeff * *v;
        }
        return acc;
    }
    [[noreturn]] static void unknown(Variable v) { ForkedValues::unknown(v); }

    const Fr* inputs_;
    size_t n_inputs_;
    const Fr* parent_aux_;
    size_t n_parent_aux_;
    std::vector<Fr> local_inputs_, aux_, a_, b_, c_;
    DensityTracker a_aux_density_, b_aux_density_, b_input_density_;  // of the local variables
    std::vector<uint64_t> ext_a_, ext_b_, ext_b_inputs_;                // marks of the parent's variables
};

inline void ProvingAssignment::append(AssignmentFragment&& f) {
    std::vector<AssignmentFragment> one;
    one.push_back(std::move(f));
    append_all(one);
}

inline void ProvingAssignment::append_all(std::vector<AssignmentFragment>& parts) {
    for (const auto& f : parts)
        if (f.n_inputs_ != inputs_.size() || f.n_parent_aux_ > aux_.size())
            throw SynthesisError(SynthesisErrorKind::Other, "append: a fragment was not forked from this assignment");
    size_t aux = aux_.size(), constraints = a_.size();
    for (const auto& f : parts) aux += f.aux_.size(), constraints += f.a_.size();
    // The four value vectors are appended on four threads (GBs each at Filecoin sizes: one thread copying them
    // all was the serial tail of a parallel synthesis), each with its room reserved first; the densities here.
    using Member = std::vector<Fr> AssignmentFragment::*;
    std::thread copiers[4];
    std::exception_ptr errors[4];
    auto copy_column = [&parts, &errors, &copiers](auto* dst, Member member, size_t n, int k) {
        copiers[k] = std::thread([&parts, &err = errors[k], dst, member, n] {
            try {
                dst->reserve(n);
                for (auto& f : parts) {
                    std::vector<Fr>& src = f.*member;
                    dst->insert(dst->end(), src.begin(), src.end());
                    std::vector<Fr>().swap(src);  // freed as soon as copied
                }
            } catch (...) {
                err = std::current_exception();  // out of memory: rethrown below, after the join
            }
        });
    };
    copy_column(&aux_, &AssignmentFragment::aux_, aux, 0);
    copy_column(&a_, &AssignmentFragment::a_, constraints, 1);
    copy_column(&b_, &AssignmentFragment::b_, constraints, 2);
    copy_column(&c_, &AssignmentFragment::c_, constraints, 3);
    for (auto& f : parts) {
        for (size_t w = 0; w < f.ext_a_.size(); w++)
            for (uint64_t bits = f.ext_a_[w]; bits; bits &= bits - 1) a_aux_density_.mark(w * 64 + __builtin_ctzll(bits));
        for (size_t w = 0; w < f.ext_b_.size(); w++)
            for (uint64_t bits = f.ext_b_[w]; bits; bits &= bits - 1) b_aux_density_.mark(w * 64 + __builtin_ctzll(bits));
        for (size_t w = 0; w < f.ext_b_inputs_.size(); w++)
            for (uint64_t bits = f.ext_b_inputs_[w]; bits; bits &= bits - 1)
                b_input_density_.mark(w * 64 + __builtin_ctzll(bits));
        a_aux_density_.append(f.a_aux_density_);
        b_aux_density_.append(f.b_aux_density_);
        f.a_aux_density_ = DensityTracker();
        f.b_aux_density_ = DensityTracker();
        // The fragment's inputs follow the parent's and the previous fragments' (a few per part: no thread).
        inputs_.insert(inputs_.end(), f.local_inputs_.begin(), f.local_inputs_.end());
        b_input_density_.append(f.b_input_density_);
        std::vector<Fr>().swap(f.local_inputs_);
        f.b_input_density_ = DensityTracker();
    }
    for (auto& t : copiers) t.join();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
}

}  // namespace cuzk::r1cs
