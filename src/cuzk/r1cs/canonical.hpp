// The canonical text form of a constraint system's rows, so that any independent implementation can be compared
// with cuzk's row by row (`cuzk filecoin r1cs ... --json`, docs/filecoin.md):
//
//   {"inputs": n, "aux": m, "constraints": [[A, B, C], ...]}
//
// n counts every input including the constant one; constraints are in synthesis order; each of A, B, C is a list
// of [variable, coefficient] with variable "one" (input 0), "i<k>" (input k >= 1) or "a<k>" (aux k, allocation
// order), coefficients as decimal strings in [0, r), the terms of one variable merged into one, zero terms
// dropped, sorted: one, then inputs, then aux, each by index. Two systems have the same rows exactly when their
// canonical forms are equal (duplicate terms and their order are the only freedom an LC has).
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <vector>

#include "cuzk/r1cs/linear_combination.hpp"
#include "cuzk/r1cs/test_cs.hpp"

namespace cuzk::r1cs {

struct CanonicalTerm {
    Variable var;
    Fr coeff;
};

// Merged, zero-free, sorted (inputs by index, then aux by index).
std::vector<CanonicalTerm> canonicalize(const LC& lc);

// Writes the canonical JSON of every constraint of `cs` (inputs counted from the constant one).
void write_canonical_json(std::ostream& out, const TestConstraintSystem& cs);

// SHA-256 of the canonical JSON (what write_canonical_json writes), without building the text in memory.
std::array<uint8_t, 32> canonical_digest(const TestConstraintSystem& cs);

}  // namespace cuzk::r1cs
