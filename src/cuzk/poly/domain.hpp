// Evaluation domains of Fr: the multiplicative subgroup {omega^i : 0 <= i < n} of size n = 2^k, k <= Fr::S = 32,
// and its coset g * <omega> with g = Fr::generator() = 7, the shift bellman uses for Groth16's H polynomial (the
// vanishing polynomial Z(X) = X^n - 1 is nonzero on the coset, so H = (A*B - C) / Z can be divided pointwise).
//
// A domain holds a handful of field elements and never allocates, so even the 2^32 domain is cheap to create;
// the NTT twiddle tables live in ntt.cpp (shared by all domains, see there).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuzk/ff/fr.hpp"

namespace cuzk {

class EvaluationDomain {
public:
    // Largest supported log2(size): Fr's two-adicity, r - 1 = 2^32 * T.
    static constexpr unsigned MAX_LOG_SIZE = (unsigned)Fr::S;

    // The smallest domain with size >= min_size (min_size 0 or 1 gives the size-1 domain).
    // Throws std::invalid_argument when min_size > 2^32.
    static EvaluationDomain for_size(size_t min_size);
    // The domain of size 2^log_size; throws std::invalid_argument when log_size > 32.
    static EvaluationDomain from_log_size(unsigned log_size);

    size_t size() const { return size_t{1} << log_size_; }
    unsigned log_size() const { return log_size_; }
    // A primitive n-th root of unity: Fr::root_of_unity() squared 32 - k times.
    const Fr& omega() const { return omega_; }
    const Fr& omega_inv() const { return omega_inv_; }
    // 1/n in Fr.
    const Fr& size_inv() const { return size_inv_; }
    // The coset shift g = 7 and 1/g.
    const Fr& coset_shift() const { return shift_; }
    const Fr& coset_shift_inv() const { return shift_inv_; }
    // Z(g * omega^i) = g^n - 1 for every i: the vanishing polynomial is constant on the coset.
    const Fr& z_on_coset() const { return z_on_coset_; }
    // Z(x) = x^n - 1 at an arbitrary point (e.g. tau during setup).
    Fr vanishing_at(const Fr& x) const;
    // omega^i (i taken mod n).
    Fr element(uint64_t i) const;

    friend bool operator==(const EvaluationDomain& a, const EvaluationDomain& b) { return a.log_size_ == b.log_size_; }

private:
    explicit EvaluationDomain(unsigned log_size);

    unsigned log_size_;
    Fr omega_, omega_inv_, size_inv_, shift_, shift_inv_, z_on_coset_;
};

}  // namespace cuzk
