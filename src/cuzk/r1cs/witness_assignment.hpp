// The witness-only constraint system: alloc / alloc_input record the values, enforce does nothing. With a
// pre-compiled R1CS (pce.hpp) it replaces full synthesis per proof: witness here, then a = A·z etc. by a sparse
// product.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
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
template <class A>
inline void reserve_huge(std::vector<Fr, A>& v, size_t n, ThreadPool* pool = nullptr) {
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

namespace detail {
// Bit j of `bits` as a field element.
inline Fr bit_fr(uint64_t bits, int j) { return (bits >> j) & 1 ? Fr::one() : Fr::zero(); }

// Field elements 1 and 0 for bits 0..count-1 of `bits` at out. With SSE2 and a 16-byte aligned destination the
// stores bypass the cache: a witness is written once and read much later (by its upload), so they skip reading the
// lines they overwrite (half the memory traffic). stores_done() orders them before the thread's later stores.
inline void store_bits(Fr* out, uint64_t bits, int count) {
#if defined(__SSE2__)
    static_assert(sizeof(Fr) == 32);
    if (((uintptr_t)out & 15) == 0) {
        const Fr one = Fr::one();
        __m128i one_lo, one_hi;
        std::memcpy(&one_lo, &one, 16);
        std::memcpy(&one_hi, reinterpret_cast<const char*>(&one) + 16, 16);
        __m128i* p = reinterpret_cast<__m128i*>(out);
        for (int j = 0; j < count; j++) {
            const __m128i m = _mm_set1_epi64x(-(int64_t)((bits >> j) & 1));
            _mm_stream_si128(p + 2 * j, _mm_and_si128(one_lo, m));
            _mm_stream_si128(p + 2 * j + 1, _mm_and_si128(one_hi, m));
        }
        return;
    }
#endif
    for (int j = 0; j < count; j++) out[j] = bit_fr(bits, j);
}
inline void stores_done() {
#if defined(__SSE2__)
    _mm_sfence();
#endif
}
}  // namespace detail

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
    // `count` (<= 64) aux bits at once, bit j of `bits` the j-th: consecutive variables, the first returned. The
    // caller calls detail::stores_done() before its values are read by another thread.
    Variable alloc_bits(uint64_t bits, int count) {
        if (aux_.size() + count > size_t{Variable::kMaxIndex} + 1)
            throw SynthesisError(SynthesisErrorKind::Other, "too many variables");
        const size_t first = aux_.size();
        for (int j = 0; j < count; j++) aux_.push_back(detail::bit_fr(bits, j));
        return Variable::aux((uint32_t)first);
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
    const AuxValues& aux() const { return aux_; }
    std::vector<Fr>& inputs() { return inputs_; }
    AuxValues& aux() { return aux_; }
    // Preallocation for a known shape (e.g. from a PrecompiledR1cs), so the witness pass does not regrow.
    void reserve(size_t num_inputs, size_t num_aux, ThreadPool* pool = nullptr) {
        inputs_.reserve(num_inputs);
        reserve_huge(aux_, num_aux, pool);
    }

    // Parts synthesized in parallel (synthesize_parts), in order: open_windows gives each fragment its slice of
    // this assignment's reserved room (when there is room for all parts: the reservation of a known shape, split
    // evenly between the parts), so fragments write their aux values where they end up; append_all then adds their
    // inputs and aux values after this one's (nothing moves when every fragment filled its slice exactly; a
    // fragment that outgrew its slice continues in a vector of its own, and the values are gathered).
    inline void open_windows(std::vector<WitnessFragment>& frags, std::span<const size_t> parts_of, size_t parts);
    inline void append_all(std::vector<WitnessFragment>& parts);
    bool can_fork() const { return true; }

private:
    friend class WitnessFragment;
    // Room per part below which fragments keep their own vectors (no reservation was made).
    static constexpr size_t kMinWindow = 1024;
    static constexpr size_t kNoWindows = ~size_t{0};
    std::vector<Fr> inputs_;
    AuxValues aux_;
    size_t windows_at_ = kNoWindows;  // where the open windows start in aux_
};

// A part of a WitnessAssignment synthesized on its own thread (r1cs::synthesize_parts), as AssignmentFragment is
// for ProvingAssignment: it reads the parent's inputs and aux values as they were at the fork, allocates inputs and
// aux variables of its own (index kLocalBase + i, valid only inside the fragment), and append_all adds its values to
// the parent in order, so the witness equals the sequential one. Its aux values go to its window in the parent
// (WitnessAssignment::open_windows) while they fit there, else to a vector of its own.
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
        if (size_ >= Variable::kMaxIndex - kLocalBase)
            throw SynthesisError(SynthesisErrorKind::Other, "too many variables in a fragment");
        if (window_) {
            if (size_ < window_size_) {
                window_[size_++] = value();
                return Variable::aux(kLocalBase + (uint32_t)(size_ - 1));
            }
            leave_window();
        }
        own_.push_back(value());
        size_++;
        return Variable::aux(kLocalBase + (uint32_t)(size_ - 1));
    }
    // WitnessAssignment::alloc_bits for a fragment: into its window with streaming stores while they fit.
    Variable alloc_bits(uint64_t bits, int count) {
        if (window_ && size_ + count <= window_size_ && size_ + count < Variable::kMaxIndex - kLocalBase) {
            detail::store_bits(window_ + size_, bits, count);
            size_ += count;
            return Variable::aux(kLocalBase + (uint32_t)(size_ - count));
        }
        const Variable first = alloc("", [&] { return detail::bit_fr(bits, 0); });
        for (int j = 1; j < count; j++) alloc("", [&] { return detail::bit_fr(bits, j); });
        return first;
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
    void reserve(size_t aux, size_t /*constraints*/) {
        if (!window_) reserve_huge(own_, aux);
    }
    // The value of a combination (gadgets that need one evaluate it here, as with AssignmentFragment).
    Fr evaluate(const LC& lc) const {
        return ForkedValues{inputs_, n_inputs_, parent_aux_, n_parent_aux_}.evaluate(lc, values(), local_inputs_);
    }

private:
    friend class WitnessAssignment;
    std::span<const Fr> values() const { return window_ ? std::span<const Fr>(window_, size_) : std::span<const Fr>(own_); }
    // The window is full: its values move to the fragment's own vector, which takes the rest.
    void leave_window() {
        reserve_huge(own_, 2 * window_size_ + 1024);
        own_.assign(window_, window_ + size_);
        window_ = nullptr;
    }

    const Fr* inputs_;
    size_t n_inputs_;
    const Fr* parent_aux_;
    size_t n_parent_aux_;
    std::vector<Fr> local_inputs_;
    Fr* window_ = nullptr;  // its slice of the parent's aux while its values fit there
    size_t window_size_ = 0;
    size_t size_ = 0;       // aux values allocated
    std::vector<Fr> own_;   // its aux values once out of the window (or without one)
};

inline void WitnessAssignment::open_windows(std::vector<WitnessFragment>& frags, std::span<const size_t> parts_of,
                                            size_t parts) {
    if (parts == 0 || frags.size() != parts_of.size() || windows_at_ != kNoWindows) return;
    const size_t per_part = (aux_.capacity() - aux_.size()) / parts;
    if (per_part < kMinWindow) return;
    windows_at_ = aux_.size();
    // Within the capacity: no reallocation, the fork's pointers hold. Not zeroed (AuxValues): the fragments write
    // their slices, and append_all keeps only what they wrote.
    aux_.resize(aux_.size() + per_part * parts);
    Fr* at = aux_.data() + windows_at_;
    for (size_t g = 0; g < frags.size(); g++) {
        frags[g].window_ = at;
        frags[g].window_size_ = parts_of[g] * per_part;
        at += frags[g].window_size_;
    }
}

inline void WitnessAssignment::append_all(std::vector<WitnessFragment>& parts) {
    const size_t before = windows_at_ == kNoWindows ? aux_.size() : windows_at_;
    size_t n = before;
    bool all_in_windows = windows_at_ != kNoWindows;
    for (const auto& f : parts) {
        if (f.n_inputs_ != inputs_.size() || f.n_parent_aux_ != before)
            throw SynthesisError(SynthesisErrorKind::Other, "append: a fragment was not forked from this assignment");
        n += f.size_;
        all_in_windows = all_in_windows && f.window_;
    }
    for (auto& f : parts) {
        inputs_.insert(inputs_.end(), f.local_inputs_.begin(), f.local_inputs_.end());
        std::vector<Fr>().swap(f.local_inputs_);
    }
    if (all_in_windows) {
        // Each slice holds its values at its start: close the gaps of slices not filled (none when the parts are
        // as large as the reservation said), in order, so nothing is overwritten before it moves.
        Fr* to = aux_.data() + before;
        for (auto& f : parts) {
            if (f.window_ != to) std::memmove(static_cast<void*>(to), f.window_, f.size_ * sizeof(Fr));
            to += f.size_;
            f.window_ = nullptr;
        }
        aux_.resize(n);
    } else {
        // Some fragment outgrew its slice (or none had one): gather every fragment's values after this one's.
        AuxValues all;
        reserve_huge(all, n);
        all.assign(aux_.begin(), aux_.begin() + (std::ptrdiff_t)before);
        for (auto& f : parts) {
            const std::span<const Fr> v = f.values();
            all.insert(all.end(), v.begin(), v.end());
            f.window_ = nullptr;
            std::vector<Fr>().swap(f.own_);
        }
        aux_.swap(all);
    }
    windows_at_ = kNoWindows;
}

}  // namespace cuzk::r1cs
