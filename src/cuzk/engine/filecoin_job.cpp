#include "cuzk/engine/filecoin_job.hpp"

#include <stdexcept>
#include <string>

#include "cuzk/filecoin/proof_types.hpp"
#include "cuzk/formats/proof_io.hpp"
#include "cuzk/groth16/verifier.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::engine {

r1cs::ProvingAssignment partition_assignment(const r1cs::Circuit& circuit, const r1cs::PrecompiledR1cs* pce) {
    if (pce) return r1cs::assignment_from_pce(*pce, circuit, ThreadPool::global());
    r1cs::ProvingAssignment asg;
    r1cs::synthesize_groth16(asg, circuit);
    return asg;
}

r1cs::ProvingAssignment partition_witness(const r1cs::Circuit& circuit, const r1cs::PrecompiledR1cs* pce) {
    if (pce) return r1cs::witness_assignment(*pce, circuit, ThreadPool::global());
    return partition_assignment(circuit, nullptr);
}

void require_proofs(std::string_view what, const JobResult& result, size_t partitions) {
    if (result.state != JobState::Done)
        throw std::runtime_error(std::string(what) + ": the job ended " + job_state_name(result.state) +
                                 (result.error.empty() ? "" : ": " + result.error));
    if (result.proofs.size() != partitions)
        throw std::logic_error(std::string(what) + ": " + std::to_string(result.proofs.size()) + " proofs for " +
                               std::to_string(partitions) + " partitions");
}

std::vector<uint8_t> verified_proof_bytes(std::string_view what, const JobResult& result, size_t partitions,
                                          const groth16::VerifyingKey& vk, size_t input_count,
                                          const std::function<std::span<const Fr>(size_t)>& inputs,
                                          size_t first_partition) {
    require_proofs(what, result, partitions);
    if (vk.ic.size() != input_count + 1)
        throw filecoin::FilecoinError(filecoin::FilecoinErrorKind::KeyMismatch,
                                      std::string(what) + ": the verifying key has " + std::to_string(vk.ic.size()) +
                                          " IC points, the circuit " + std::to_string(input_count + 1));
    const auto pvk = groth16::prepare_verifying_key(vk);
    std::string bad;
    for (size_t k = 0; k < partitions; k++)
        if (!groth16::verify_proof(pvk, result.proofs[k], inputs(k)))
            bad += (bad.empty() ? "" : ", ") + std::to_string(first_partition + k);
    if (!bad.empty())
        throw filecoin::FilecoinError(filecoin::FilecoinErrorKind::InvalidProof,
                                      std::string(what) + ": the proof of partition(s) " + bad +
                                          " does not verify against its public inputs; nothing written");
    return formats::encode_proofs(result.proofs);
}

}  // namespace cuzk::engine
