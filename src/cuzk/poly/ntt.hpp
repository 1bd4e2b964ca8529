// Number-theoretic transforms over Fr on an EvaluationDomain of size n = 2^k, in place, natural order in and out.
//
//   ntt:        coefficients c_0..c_{n-1}  ->  evaluations  f(omega^i)
//   intt:       evaluations f(omega^i)     ->  coefficients (includes the 1/n scaling)
//   coset_ntt:  coefficients               ->  evaluations  f(g * omega^i),  g = domain.coset_shift() = 7
//   coset_intt: evaluations f(g * omega^i) ->  coefficients
//
// Large transforms run on the global thread pool (cuzk::parallel_for); small ones on the calling thread.
// Each throws std::invalid_argument when values.size() != domain.size(). Algorithm notes are in ntt.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "cuzk/ff/fr.hpp"
#include "cuzk/poly/domain.hpp"

namespace cuzk {

void ntt(const EvaluationDomain& domain, std::span<Fr> values);
void intt(const EvaluationDomain& domain, std::span<Fr> values);
void coset_ntt(const EvaluationDomain& domain, std::span<Fr> values);
void coset_intt(const EvaluationDomain& domain, std::span<Fr> values);

// In-place bit-reversal permutation of a span of size 2^k (values[i] <-> values[bitrev_k(i)]); exposed because
// callers that can consume bit-reversed evaluations (e.g. a pointwise product) may skip it. Throws
// std::invalid_argument when the size is not a power of two.
void bit_reverse_permute(std::span<Fr> values);

namespace ntt_detail {
// Tuning knobs, exposed for the benchmark and tests (not for production callers).
// Transforms with n < parallel_threshold() run single-threaded (measured, see ntt.cpp).
size_t parallel_threshold();
void set_parallel_threshold(size_t n);
// The twiddle W[b] = w32^bitrev_31(b) exactly as the kernels obtain it (table entry, or the product of two table
// entries for b >= 2^20); b < 2^31. Builds the full-size table on first use.
Fr twiddle(uint64_t b);
}  // namespace ntt_detail

}  // namespace cuzk
