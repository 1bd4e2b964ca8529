// Groth16 key generation (a single-party "trusted setup") over BLS12-381, producing exactly the parameters
// bellman's / bellperson's `generate_parameters` produces for the same circuit and the same toxic waste:
//   - the circuit is synthesized as bellman does it (constant one as input 0, input constraints x_i * 0 = 0 last);
//   - the domain is the smallest power of two >= the number of constraints (bellman's EvaluationDomain::from_coeffs,
//     which refuses 2^32: SynthesisError(Polynomial));
//   - h_i = [tau^i Z(tau) / delta]_1 for i < n - 1;
//   - per variable the QAP polynomials u, v, w (the A, B, C columns) are evaluated at tau through the Lagrange
//     coefficients L_j(tau) (powers of tau, then an inverse NTT, as bellman does);
//   - a = [u_i(tau)]_1, b_g1 = [v_i(tau)]_1, b_g2 = [v_i(tau)]_2 over inputs then aux, with the points at infinity
//     (u_i(tau) = 0 resp. v_i(tau) = 0) left out;
//   - ic_i = [(beta u_i + alpha v_i + w_i)(tau) / gamma]_1 for inputs, l_j likewise over delta for aux; an aux
//     variable whose l_j is the point at infinity is "unconstrained" and rejected (bellman's UnconstrainedVariable),
//     so the L query is always dense.
// Scalar multiplications by the secret exponents use fixed-base window tables and are not constant time (neither
// are bellman's wNAF tables); run setup on a machine you trust.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "cuzk/ff/fr.hpp"
#include "cuzk/groth16/types.hpp"
#include "cuzk/r1cs/constraint_system.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::groth16 {

// The secrets of a setup. Every copy is wiped when it is destroyed.
struct ToxicWaste {
    Fr tau, alpha, beta, gamma, delta;

    // From the OS CSPRNG (OsRng); never zero.
    static ToxicWaste random();
    // Deterministic (std::mt19937_64 seeded with `seed`), for tests and benchmarks only: anyone who knows the seed
    // can forge proofs for parameters made from it.
    static ToxicWaste from_seed(uint64_t seed);

    ~ToxicWaste();
};

// Called as progress(stage, done, total) while the parameters are computed: stages "powers_of_tau", "evaluate",
// "h", "a", "b_g1", "b_g2", "ic", "l", "vk", each starting with done = 0 and ending with done = total. Calls are
// serialized (never concurrent), possibly from a pool thread, so the callback need not be thread-safe; it must not
// throw.
using SetupProgress = std::function<void(const char* stage, size_t done, size_t total)>;

// Throws std::invalid_argument for degenerate toxic waste (any secret zero, or Z(tau) = 0, i.e. tau in the
// evaluation domain: the H query would be all points at infinity), and SynthesisError for a circuit bellman would
// reject (domain 2^32 or larger: Polynomial; an aux variable in no constraint's A, B or C: Other, "unconstrained
// variable"; a constraint over a variable the circuit did not allocate: Other). Timing spans (layer Prover, item -1):
// "setup.synthesis", "setup.powers_of_tau", "setup.evaluate", "setup.tables", "setup.h", "setup.a", "setup.b_g1",
// "setup.b_g2", "setup.ic", "setup.l", "setup.vk".
Parameters generate_parameters(const r1cs::Circuit& circuit, const ToxicWaste& tw, TimingSink* timing = nullptr,
                               const SetupProgress& progress = {});

// Parameters of the shape `asg` needs (its inputs, aux values and densities fix the A, B, L and IC sizes, its
// constraint count the domain and so the H size) filled with pseudo-random points (ec/random_points.hpp: one
// addition per point on all threads) instead of a setup's. For timing the provers at sizes where a real setup takes
// too long (2^24 and up). Proofs made with them do not verify: benchmarks only. The verifying key's points are random
// too (delta not at infinity, so the prover accepts them).
Parameters benchmark_parameters(const r1cs::ProvingAssignment& asg, uint64_t seed,
                                HConvention convention = HConvention::Bellman);
// The same from the counts alone (e.g. a pre-compiled R1CS's, without synthesizing a witness): inputs (the constant
// one included), aux variables, constraints (input constraints included), aux variables in A's density, and inputs
// plus aux variables in B's densities.
struct QueryShape {
    size_t inputs = 0, aux = 0, constraints = 0, a_aux = 0, b = 0;
};
Parameters benchmark_parameters(const QueryShape& shape, uint64_t seed, HConvention convention = HConvention::Bellman);
// The shape a pre-compiled R1CS fixes (its counts and densities), without a witness.
inline QueryShape query_shape(const r1cs::PrecompiledR1cs& pce) {
    return {pce.num_inputs, pce.num_aux, pce.num_constraints, pce.a_aux_density.count(),
            pce.b_input_density.count() + pce.b_aux_density.count()};
}

}  // namespace cuzk::groth16
