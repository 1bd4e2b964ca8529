// From circom/snarkjs files to cuzk's prover seam: a .zkey becomes groth16::Parameters (h_convention Snarkjs), a
// .zkey plus a .wtns becomes a ProvingAssignment, and a .r1cs plus a .wtns gives the constraint evaluations the
// zkey's coefficients must reproduce.
//
// Variables: circom's wire 0 is the constant one and wires 1..n_public the public signals (outputs, then public
// inputs), which are cuzk's inputs 0..n_public; wire w > n_public is aux w - n_public - 1.
// The QAP: the zkey's coefficient section holds A and B of the circuit's constraints plus the n_public + 1 input
// constraints setup appended (A = wire s at constraint n_constraints + s); C is not stored, and c = a * b is what
// the zkey's prover uses (equal to C.w for a satisfying witness, which is checked by the r1cs path only).
#pragma once

#include <vector>

#include "cuzk/formats/iden3.hpp"
#include "cuzk/groth16/types.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"

namespace cuzk::formats::iden3 {

// The proving key of a zkey for prove_from_assignments: ic, l = C points, h = H points, and the A / B1 / B2 points
// of the variables whose A resp. B combination has a nonzero coefficient somewhere (the density the assignment from
// zkey_assignment tracks), in input-then-aux order. The zkey is left as it was (points are copied).
groth16::Parameters zkey_to_parameters(const Zkey& zkey);
// The same, moving the points out of the zkey (peak memory one key instead of two); the zkey keeps its header and
// coefficients (enough for zkey_assignment) and loses its A, B1, B2, C and H sections.
groth16::Parameters zkey_to_parameters(Zkey&& zkey);

// Also only the verifying key (what verification_key.json holds).
groth16::VerifyingKey zkey_verifying_key(const Zkey& zkey);

// The assignment of a witness (values[0] = 1, n_vars values) with a, b from the zkey's coefficients and c = a * b,
// one row per constraint up to the last one the coefficients name. Throws std::invalid_argument when the witness
// length is not n_vars or its value 0 is not one.
r1cs::ProvingAssignment zkey_assignment(const Zkey& zkey, const Witness& witness);
// The same from the zkey's rows compiled once (zkey_matrices: A and B as PCE matrices, C empty), instead of bucketing
// its coefficients for every witness; the assignment is the same, to the bit.
r1cs::PrecompiledR1cs zkey_matrices(const Zkey& zkey);
r1cs::ProvingAssignment zkey_assignment(const r1cs::PrecompiledR1cs& rows, const Zkey& zkey, const Witness& witness);

// The public signals of a witness (wires 1..n_public), as snarkjs writes them in public.json.
std::vector<Fr> public_signals(const Witness& witness, uint32_t n_public);

struct ConstraintEvaluations {
    std::vector<Fr> a, b, c;
};
// A.w, B.w, C.w for every constraint of the r1cs; throws std::invalid_argument when the witness length is not
// n_wires.
ConstraintEvaluations evaluate_r1cs(const R1cs& r1cs, const Witness& witness);

}  // namespace cuzk::formats::iden3
