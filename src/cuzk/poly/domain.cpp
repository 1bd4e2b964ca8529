#include "cuzk/poly/domain.hpp"

#include <stdexcept>
#include <string>

namespace cuzk {

EvaluationDomain::EvaluationDomain(unsigned log_size) : log_size_(log_size) {
    if (log_size > MAX_LOG_SIZE)
        throw std::invalid_argument("EvaluationDomain: log_size " + std::to_string(log_size) + " exceeds Fr's two-adicity 32");
    // root_of_unity() has order exactly 2^32; each squaring halves the order, so 32 - k squarings leave order 2^k.
    omega_ = Fr::root_of_unity();
    for (unsigned i = log_size; i < MAX_LOG_SIZE; i++) omega_ = omega_.square();
    // omega, n (<= 2^32 < r) and g = 7 are nonzero, so these inverses exist.
    omega_inv_ = *omega_.inverse();
    size_inv_ = *Fr::from_u64(uint64_t{1} << log_size).inverse();
    shift_ = Fr::generator();
    shift_inv_ = *shift_.inverse();
    z_on_coset_ = vanishing_at(shift_);
}

EvaluationDomain EvaluationDomain::from_log_size(unsigned log_size) { return EvaluationDomain(log_size); }

EvaluationDomain EvaluationDomain::for_size(size_t min_size) {
    if (min_size > (size_t{1} << MAX_LOG_SIZE))
        throw std::invalid_argument("EvaluationDomain: size " + std::to_string(min_size) + " exceeds 2^32");
    unsigned k = 0;
    while ((size_t{1} << k) < min_size) k++;
    return EvaluationDomain(k);
}

Fr EvaluationDomain::vanishing_at(const Fr& x) const {
    // x^(2^k) by k squarings.
    Fr p = x;
    for (unsigned i = 0; i < log_size_; i++) p = p.square();
    return p - Fr::one();
}

Fr EvaluationDomain::element(uint64_t i) const { return omega_.pow(i & (size() - 1)); }

}  // namespace cuzk
