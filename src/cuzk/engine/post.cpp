#include "cuzk/engine/post.hpp"

#include <string>

#include "cuzk/formats/proof_io.hpp"
#include "cuzk/groth16/verifier.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::engine {

PostJob post_job(filecoin::RegisteredPoStProof proof, const filecoin::Domain& randomness,
                 std::span<const filecoin::FallbackPostSectorProof> vanilla, uint32_t partition) {
    PostJob job;
    job.proof = proof;
    job.circuit = filecoin::PostCircuitConfig::from_registered(proof);
    job.partition = partition;
    job.witness = filecoin::post_partition_witness(job.circuit, filecoin::post_type(proof), randomness, vanilla,
                                                   partition);
    return job;
}

JobSpec post_spec(const PostJob& job, const r1cs::PrecompiledR1cs* pce) {
    JobSpec spec;
    spec.name = std::string(filecoin::proof_name(job.proof)) + " partition " + std::to_string(job.partition);
    spec.partitions = 1;
    spec.synthesize = [&job, pce](size_t) {
        const filecoin::FallbackPostCircuit circuit(job.circuit, job.witness.sectors);
        if (pce) return r1cs::assignment_from_pce(*pce, circuit, ThreadPool::global());
        r1cs::ProvingAssignment asg;
        r1cs::synthesize_groth16(asg, circuit);
        return asg;
    };
    return spec;
}

std::vector<uint8_t> post_proof(const PostJob& job, const JobResult& result, const groth16::VerifyingKey& vk) {
    const std::string what(filecoin::proof_name(job.proof));
    if (result.state != JobState::Done)
        throw std::runtime_error(what + ": the job ended " + job_state_name(result.state) +
                                 (result.error.empty() ? "" : ": " + result.error));
    if (result.proofs.size() != 1)
        throw std::logic_error(what + ": " + std::to_string(result.proofs.size()) + " proofs for one partition");
    if (vk.ic.size() != job.witness.public_inputs.size() + 1)
        throw filecoin::FilecoinError(filecoin::FilecoinErrorKind::KeyMismatch,
                                      what + ": the verifying key has " + std::to_string(vk.ic.size()) +
                                          " IC points, the circuit " + std::to_string(job.witness.public_inputs.size() + 1));
    if (!groth16::verify_proof(groth16::prepare_verifying_key(vk), result.proofs[0], job.witness.public_inputs))
        throw filecoin::FilecoinError(filecoin::FilecoinErrorKind::InvalidProof,
                                      what + ": the proof does not verify against the public inputs; nothing written");
    return formats::encode_proofs(result.proofs);
}

}  // namespace cuzk::engine
