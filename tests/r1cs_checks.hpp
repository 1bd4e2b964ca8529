// Checks the constraint-system tests share: the prover's rows satisfied, and the key generator's rows equal to the
// test system's term for term.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>

#include "cuzk/r1cs/keygen_assembly.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/r1cs/test_cs.hpp"

namespace cuzk::testing {

// Two assignments equal to the bit: inputs, aux, a, b, c and the three density trackers.
inline void expect_same_assignment(const r1cs::ProvingAssignment& x, const r1cs::ProvingAssignment& y) {
    EXPECT_EQ(x.inputs(), y.inputs());
    EXPECT_EQ(x.aux(), y.aux());
    EXPECT_EQ(x.a(), y.a());
    EXPECT_EQ(x.b(), y.b());
    EXPECT_EQ(x.c(), y.c());
    EXPECT_TRUE(x.a_aux_density() == y.a_aux_density());
    EXPECT_TRUE(x.b_input_density() == y.b_input_density());
    EXPECT_TRUE(x.b_aux_density() == y.b_aux_density());
}

// Rows j of an assignment (ProvingAssignment: a, b, c evaluated per row) with a_j * b_j != c_j.
template <class Assignment>
size_t unsatisfied_rows(const Assignment& pa) {
    size_t bad = 0;
    for (size_t j = 0; j < pa.num_constraints(); j++) bad += !(pa.a()[j] * pa.b()[j] == pa.c()[j]);
    return bad;
}

// Matrix rows (A, B and C of each constraint counted apart) where the key generator's terms differ from the test
// system's, in order and coefficient, over the rows both have.
inline size_t rows_differing(const r1cs::KeygenAssembly& kg, const r1cs::TestConstraintSystem& tcs) {
    size_t mismatched = 0;
    for (size_t r = 0; r < std::min(kg.num_constraints(), tcs.num_constraints()); r++) {
        const auto& c = tcs.constraints()[r];
        const r1cs::SparseMatrix* ms[3] = {&kg.a(), &kg.b(), &kg.c()};
        const r1cs::LC* ls[3] = {&c.a, &c.b, &c.c};
        for (int m = 0; m < 3; m++) {
            auto row = ms[m]->row(r);
            auto t = ls[m]->terms();
            bool same = row.size() == t.size();
            for (size_t k = 0; same && k < t.size(); k++) same = row[k].var == t[k].var && row[k].coeff == t[k].coeff;
            mismatched += !same;
        }
    }
    return mismatched;
}

}  // namespace cuzk::testing
