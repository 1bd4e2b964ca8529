// The Groth16 prover on the CPU: the seam (a batch of synthesized assignments plus one parameter set in, proofs
// out) and the convenience entry points that synthesize circuits first. For the same parameters, assignment and
// r, s the proof is the same group elements bellman / bellperson compute (or snarkjs, for a parameter set with
// h_convention Snarkjs, see types.hpp):
//   H:  Bellman: a, b, c padded to the domain size n, inverse NTT, coset NTT, (a*b - c) / Z on the coset, inverse
//       coset NTT (computed as (coset_intt(a*b on the coset) - C) / Z: the same values, C never on the coset); the
//       first n - 1 coefficients against params.h (the top one is zero for a satisfied assignment).
//       Snarkjs: a, b, c on snarkjs's domain, each interpolated and evaluated on the odd coset of the 2n domain,
//       a*b - c there (n values) against params.h;
//   A = alpha_1 + sum_{inputs} x_i A_i + sum_{aux in a_aux_density} w_j A_j + r delta_1
//   B = beta_2  + sum_{inputs in b_input_density} ... + sum_{aux in b_aux_density} ...   + s delta_2   (and in G1)
//   C = sum h_i H_i + sum_aux w_j L_j + s A + r B_1 - r s delta_1
// where the A / B sums run over the density-selected variables in order, matching the query points that setup kept
// (bellman drops the points at infinity, i.e. the variables that occur in no A resp. B combination).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cuzk/ff/fr.hpp"
#include "cuzk/groth16/types.hpp"
#include "cuzk/msm/msm.hpp"
#include "cuzk/poly/domain.hpp"
#include "cuzk/r1cs/constraint_system.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::groth16 {

// The seam. Proves N = assignments.size() circuits that share `params`, with randomness r[i], s[i] for circuit i.
// Every assignment is checked against the parameters before any work starts; a mismatch throws
// std::invalid_argument naming the circuit and what does not match (inputs vs IC points, aux vs L points, density
// sizes and counts vs the A / B query lengths, the domain of the constraint count vs the H query length, r / s
// counts). The a, b, c vectors of each assignment are consumed (left empty) as the proof of that circuit is
// computed, so peak memory holds one circuit's H working set at a time; inputs, aux and densities are only read.
// Timing spans (layer Prover, item = index in the batch): "ntt.intt", "ntt.coset", "ntt.h", "msm.h", "msm.split",
// "msm.a", "msm.b_g1", "msm.b_g2", "msm.l", "assembly"; and "prove" (item -1) over the whole call.
std::vector<Proof> prove_from_assignments(const Parameters& params, std::span<r1cs::ProvingAssignment> assignments,
                                          std::span<const Fr> r, std::span<const Fr> s, TimingSink* timing = nullptr);

// Synthesizes every circuit (span "synthesis", item = index) with a ProvingAssignment and proves it with r, s drawn
// from the OS CSPRNG (wiped after use). Circuits are synthesized and proven one at a time, so only one assignment
// is alive at once. Throws std::invalid_argument for a null circuit, SynthesisError from synthesis.
std::vector<Proof> prove(const Parameters& params, std::span<const r1cs::Circuit* const> circuits,
                         TimingSink* timing = nullptr);

// The same with explicit r, s (r.size() == s.size() == circuits.size()): deterministic proofs for tests and for
// checking backends against each other.
std::vector<Proof> prove(const Parameters& params, std::span<const r1cs::Circuit* const> circuits,
                         std::span<const Fr> r, std::span<const Fr> s, TimingSink* timing = nullptr);

// The H polynomial's coefficients (the first n - 1 of them, n = domain.size()) from the constraint evaluations
// a, b, c (each of size <= n; padded with zeros here). Exposed as the CPU reference for other backends and for the
// test against schoolbook polynomial division. Throws std::invalid_argument when a, b, c differ in size or exceed
// n. Spans "ntt.intt", "ntt.coset", "ntt.h" with the given item.
std::vector<Fr> compute_h(const EvaluationDomain& domain, std::vector<Fr> a, std::vector<Fr> b, std::vector<Fr> c,
                          TimingSink* timing = nullptr, int64_t item = -1);

// snarkjs's H scalars: with a_j, b_j, c_j the evaluations at w^j (w = snarkjs_root_of_unity(domain)), the n values
// (A*B - C)(s w^j) for the shift s = snarkjs_coset_shift(domain), a primitive 2n-th root with s^2 = w. Same sizes,
// errors and spans as compute_h; n <= 2^31.
std::vector<Fr> compute_h_odd_coset(const EvaluationDomain& domain, std::vector<Fr> a, std::vector<Fr> b,
                                    std::vector<Fr> c, TimingSink* timing = nullptr, int64_t item = -1);

// ffjavascript's primitive n-th root of unity for n = domain.size(): (5^T)^(2^(32 - k)).
Fr snarkjs_root_of_unity(const EvaluationDomain& domain);
// The primitive 2n-th root snarkjs shifts by (Fr.w[k + 1]); needs k < 32.
Fr snarkjs_coset_shift(const EvaluationDomain& domain);
// The odd e < 2^32 with omega_32^e = 5^T for cuzk's omega_32 = Fr::root_of_unity(): snarkjs's w^j is cuzk's
// omega^(e j mod n) on every domain, so a gather by e j mod n converts between the two orders.
uint64_t snarkjs_root_exponent();

// ---- building blocks every backend shares (this CPU prover and those under backends/), so that the parts that are
// not H or an MSM are the same code, and proofs agree byte for byte ----

// Checks assignment `index` against the parameters (everything a proof computation indexes; the messages
// prove_from_assignments documents) and returns its evaluation domain (snarkjs: the H query's length).
EvaluationDomain check_assignment(const Parameters& params, const r1cs::ProvingAssignment& asg, size_t index);
EvaluationDomain check_assignment(const KeyShape& shape, const r1cs::ProvingAssignment& asg, size_t index);
// r.size() == s.size() == circuits, else std::invalid_argument.
void check_randomness(size_t circuits, std::span<const Fr> r, std::span<const Fr> s);

// The scalar vectors of the A, B (shared by B_G1 and B_G2) and L queries, gathered through the densities in the
// order of the query points, each split into zeros / ones / others (msm/msm.hpp).
struct QuerySplits {
    ScalarSplit a, b, l;
};
// What the split reads of an assignment: its values and density bits, taken when this is made. They stay where they
// are when the assignment itself is moved (its vectors' storage moves with it), so a split on another thread holds
// this, not a reference to an assignment its owner may move meanwhile (the engine moves a prepared partition).
struct SplitInputs {
    SplitInputs(const r1cs::ProvingAssignment& asg);  // NOLINT(google-explicit-constructor): an assignment is one
    std::span<const Fr> inputs, aux;
    const uint64_t* a_aux_density;
    const uint64_t* b_input_density;
    const uint64_t* b_aux_density;
};
// montgomery: the other scalars stay in Montgomery form (for a backend whose MSMs convert them). hook: lays out the
// A, B and L lists, in that order (msm/msm.hpp SplitHook; its tails: A, B, L, or empty); without one, every query is
// indexed with listed ones.
QuerySplits split_queries(const SplitInputs& in, bool montgomery = false, const SplitHook& hook = {});

// A = alpha_1 + a_sum + r delta_1, B = beta_2 + b2_sum + s delta_2, B_1 = beta_1 + b1_sum + s delta_1,
// C = h_sum + l_sum + s A + r B_1 - r s delta_1, in affine form; the scalars derived from r, s are wiped.
Proof assemble_proof(const VerifyingKey& vk, const G1Jacobian& a_sum, const G1Jacobian& b1_sum,
                     const G2Jacobian& b2_sum, const G1Jacobian& h_sum, const G1Jacobian& l_sum, const Fr& r,
                     const Fr& s);

}  // namespace cuzk::groth16
