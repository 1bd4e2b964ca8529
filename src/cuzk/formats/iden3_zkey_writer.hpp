// A Groth16 .zkey made by cuzk from a .r1cs and explicit toxic waste: for tests and benchmarks only (whoever knows
// the toxic waste can forge proofs; a real key comes from a ceremony). It exists because snarkjs's own route to a
// zkey, the powers-of-tau preparation, takes about an hour at 2^16 on a 2-core machine, while the benchmark
// against snarkjs needs large keys that both provers read.
//
// The key is what snarkjs's `groth16 setup` would make for the same tau, alpha, beta, gamma, delta (a single
// contribution): the QAP over snarkjs's domain (root 5^T), the n_public + 1 input constraints appended, A / B1 / B2
// / C / IC from the Lagrange coefficients L_j(tau), H_j = [L_{2j+1}(tau) / delta]_1 over the 2n domain (its odd
// points), coefficients stored as value * R^2. Sections 1-9 are written; section 10 (the MPC transcript) is
// omitted, so `snarkjs zkey verify` does not apply, but `snarkjs groth16 prove` and `zkey export verificationkey` do.
#pragma once

#include <cstdint>
#include <vector>

#include "cuzk/formats/iden3.hpp"
#include "cuzk/groth16/setup.hpp"

namespace cuzk::formats::iden3 {

// Throws std::invalid_argument for degenerate toxic waste (tau on the 2n domain, a zero secret) or a circuit whose
// domain would exceed 2^28.
std::vector<uint8_t> make_test_zkey(const R1cs& r1cs, const groth16::ToxicWaste& tw);

}  // namespace cuzk::formats::iden3
