#include "cuzk/groth16/verifier.hpp"

#include <array>
#include <stdexcept>
#include <string>

#include "cuzk/ec/subgroup.hpp"
#include "cuzk/msm/msm.hpp"
#include "cuzk/util/random.hpp"

namespace cuzk::groth16 {

namespace {

constexpr TimingLayer kLayer = TimingLayer::Pipeline;

void check_input_count(const PreparedVerifyingKey& pvk, size_t got, const std::string& where) {
    if (pvk.ic.empty()) throw std::invalid_argument(where + ": the verifying key has no IC point");
    if (got != pvk.ic.size() - 1)
        throw std::invalid_argument(where + ": " + std::to_string(got) +
                                    " public inputs but the verifying key expects " +
                                    std::to_string(pvk.ic.size() - 1) + " (the constant one not counted)");
}

// Proof points as the decoders would accept them: on the curve and in the order-r subgroup (the pairing is only
// bilinear there; a small-order component could otherwise cancel).
bool proof_points_valid(const Proof& p) {
    return p.a.is_on_curve() && p.b.is_on_curve() && p.c.is_on_curve() && g1_in_subgroup(p.a) &&
           g2_in_subgroup(p.b) && g1_in_subgroup(p.c);
}

// ic[0] + sum_i x_i ic[i + 1]
G1Jacobian input_accumulator(const PreparedVerifyingKey& pvk, std::span<const Fr> inputs) {
    return G1Jacobian::from_affine(pvk.ic[0]) + msm_g1(std::span<const G1Affine>(pvk.ic).subspan(1), inputs);
}

}  // namespace

PreparedVerifyingKey prepare_verifying_key(const VerifyingKey& vk) {
    if (vk.ic.empty()) throw std::invalid_argument("prepare_verifying_key: the verifying key has no IC point");
    for (size_t i = 0; i < vk.ic.size(); i++)
        if (!vk.ic[i].is_on_curve())
            throw std::invalid_argument("prepare_verifying_key: ic[" + std::to_string(i) + "] is not on the curve");
    PreparedVerifyingKey pvk;
    pvk.alpha_g1_beta_g2 = pairing(vk.alpha_g1, vk.beta_g2);  // throws for points off their curves
    pvk.neg_gamma_g2 = G2Prepared(-vk.gamma_g2);
    pvk.neg_delta_g2 = G2Prepared(-vk.delta_g2);
    pvk.ic = vk.ic;
    return pvk;
}

bool verify_proof(const PreparedVerifyingKey& pvk, const Proof& proof, std::span<const Fr> public_inputs,
                  TimingSink* timing) {
    ScopedTiming t(timing, kLayer, "verify");
    check_input_count(pvk, public_inputs.size(), "verify_proof");
    if (!proof_points_valid(proof)) return false;
    G1Affine acc = input_accumulator(pvk, public_inputs).to_affine();
    std::array<G1Affine, 3> g1{proof.a, acc, proof.c};
    std::array<G2Prepared, 3> g2{G2Prepared(proof.b), pvk.neg_gamma_g2, pvk.neg_delta_g2};
    return final_exponentiation(multi_miller_loop(g1, g2)) == pvk.alpha_g1_beta_g2;
}

bool verify_proofs_batch(const PreparedVerifyingKey& pvk, std::span<const Proof> proofs,
                         std::span<const std::vector<Fr>> public_inputs, TimingSink* timing) {
    ScopedTiming t(timing, kLayer, "verify");
    if (public_inputs.size() != proofs.size())
        throw std::invalid_argument("verify_proofs_batch: " + std::to_string(proofs.size()) + " proofs but " +
                                    std::to_string(public_inputs.size()) + " public input vectors");
    for (size_t k = 0; k < proofs.size(); k++)
        check_input_count(pvk, public_inputs[k].size(), "verify_proofs_batch: proof " + std::to_string(k));
    if (proofs.empty()) return true;
    for (const Proof& p : proofs)
        if (!proof_points_valid(p)) return false;

    // z_k: uniform in [1, 2^128). The coefficients must be unknown to whoever made the proofs, hence the CSPRNG.
    OsRng rng;
    const size_t n = proofs.size(), ni = pvk.ic.size() - 1;
    std::vector<Fr> z(n);
    Fr z_sum = Fr::zero();
    for (size_t k = 0; k < n; k++) {
        do {
            z[k] = Fr::from_canonical_unchecked(limbs_t<4>{rng(), rng(), 0, 0});  // < 2^128 < r
        } while (z[k].is_zero());
        z_sum += z[k];
    }

    // sum_k z_k acc_k = (sum_k z_k) ic[0] + sum_i (sum_k z_k x_{k,i}) ic[i + 1]: one MSM over the IC points.
    std::vector<Fr> combined(ni + 1, Fr::zero());
    combined[0] = z_sum;
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < ni; i++) combined[i + 1] += z[k] * public_inputs[k][i];
    G1Affine acc = msm_g1(pvk.ic, combined).to_affine();

    std::vector<G1Affine> c_points(n);
    for (size_t k = 0; k < n; k++) c_points[k] = proofs[k].c;
    G1Affine c_sum = msm_g1(c_points, z).to_affine();

    std::vector<G1Affine> g1;
    std::vector<G2Prepared> g2;
    g1.reserve(n + 2);
    g2.reserve(n + 2);
    for (size_t k = 0; k < n; k++) {
        g1.push_back(G1Jacobian::from_affine(proofs[k].a).mul(z[k].to_canonical()).to_affine());
        g2.emplace_back(proofs[k].b);
    }
    g1.push_back(acc);
    g2.push_back(pvk.neg_gamma_g2);
    g1.push_back(c_sum);
    g2.push_back(pvk.neg_delta_g2);
    Fq12 lhs = final_exponentiation(multi_miller_loop(g1, g2));
    return lhs == pvk.alpha_g1_beta_g2.pow(z_sum.to_canonical());
}

}  // namespace cuzk::groth16
