// The BLS parameter x = -0xd201000000010000 that generates BLS12-381: p = (x - 1)^2 (x^4 - x^2 + 1) / 3 + x and
// r = x^4 - x^2 + 1 (tests/test_tower re-derives both). The Miller loop runs over |x|, the hard part of the final
// exponentiation exponentiates by x, and the G2 subgroup check compares psi(P) with [x]P. One definition for all.
#pragma once

#include <cstdint>

namespace cuzk {

inline constexpr uint64_t BLS_X_ABS = 0xd201000000010000ULL;
inline constexpr bool BLS_X_IS_NEGATIVE = true;

}  // namespace cuzk
