// Groth16 verification: e(A, B) = e(alpha, beta) e(sum_i x_i IC_i, gamma) e(C, delta), checked as
//   e(A, B) e(acc, -gamma) e(C, -delta) == e(alpha, beta)
// with one Miller loop over three pairs and one final exponentiation (bellman's verify_proof); and a batch of
// proofs under one key by a random linear combination with 128-bit coefficients z_k (one multi-pairing in all).
#pragma once

#include <span>
#include <vector>

#include "cuzk/ff/fq12.hpp"
#include "cuzk/ff/fr.hpp"
#include "cuzk/groth16/types.hpp"
#include "cuzk/pairing/pairing.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::groth16 {

struct PreparedVerifyingKey {
    Fq12 alpha_g1_beta_g2;      // e(alpha, beta)
    G2Prepared neg_gamma_g2;    // -gamma, prepared for the Miller loop
    G2Prepared neg_delta_g2;    // -delta
    std::vector<G1Affine> ic;   // as in the verifying key: ic[0] for the constant one
};

// Throws std::invalid_argument when the key has no IC point or a point off its curve.
PreparedVerifyingKey prepare_verifying_key(const VerifyingKey& vk);

// public_inputs excludes the constant one. Throws std::invalid_argument when public_inputs.size() != ic.size() - 1.
// A proof point off its curve or outside its prime-order subgroup makes the proof invalid (false), never an
// exception. Timing span "verify" (layer Pipeline: the engine's check before a proof leaves it).
bool verify_proof(const PreparedVerifyingKey& pvk, const Proof& proof, std::span<const Fr> public_inputs,
                  TimingSink* timing = nullptr);

// All proofs valid (true for an empty batch). With z_k random nonzero 128-bit scalars from the OS CSPRNG, checks
//   prod_k e(z_k A_k, B_k) * e(sum_k z_k acc_k, -gamma) * e(sum_k z_k C_k, -delta) == e(alpha, beta)^(sum_k z_k)
// where a batch with an invalid proof passes with probability about 2^-128. Throws std::invalid_argument when the
// number of input vectors differs from the number of proofs or any vector has the wrong length.
bool verify_proofs_batch(const PreparedVerifyingKey& pvk, std::span<const Proof> proofs,
                         std::span<const std::vector<Fr>> public_inputs, TimingSink* timing = nullptr);

}  // namespace cuzk::groth16
