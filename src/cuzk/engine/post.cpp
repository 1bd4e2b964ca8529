#include "cuzk/engine/post.hpp"

#include <algorithm>
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
    job.first_partition = partition;
    job.partitions.push_back(filecoin::post_partition_witness(job.circuit, filecoin::post_type(proof), randomness,
                                                              vanilla, partition));
    return job;
}

PostJob post_job(filecoin::RegisteredPoStProof proof, const filecoin::Domain& randomness,
                 std::span<const filecoin::FallbackPostSectorProof> vanilla) {
    if (vanilla.empty())
        throw filecoin::FilecoinError(filecoin::FilecoinErrorKind::MalformedVanilla,
                                      std::string(filecoin::proof_name(proof)) + ": no vanilla proofs");
    if (filecoin::post_type(proof) == filecoin::PoStType::Winning) return post_job(proof, randomness, vanilla, 0);
    PostJob job;
    job.proof = proof;
    job.circuit = filecoin::PostCircuitConfig::from_registered(proof);
    const size_t per = job.circuit.sector_count;
    for (size_t k = 0; k * per < vanilla.size(); k++)
        job.partitions.push_back(filecoin::post_partition_witness(job.circuit, filecoin::PoStType::Window, randomness,
                                                                  vanilla.subspan(k * per, std::min(per, vanilla.size() - k * per)),
                                                                  (uint32_t)k));
    return job;
}

JobSpec post_spec(const PostJob& job, const r1cs::PrecompiledR1cs* pce) {
    JobSpec spec;
    spec.name = std::string(filecoin::proof_name(job.proof));
    if (job.partitions.size() == 1) spec.name += " partition " + std::to_string(job.first_partition);
    spec.partitions = job.partitions.size();
    spec.synthesize = [&job, pce](size_t i) {
        const filecoin::FallbackPostCircuit circuit(job.circuit, job.partitions.at(i).sectors);
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
    if (result.proofs.size() != job.partitions.size())
        throw std::logic_error(what + ": " + std::to_string(result.proofs.size()) + " proofs for " +
                               std::to_string(job.partitions.size()) + " partitions");
    if (vk.ic.size() != job.circuit.public_input_count() + 1)
        throw filecoin::FilecoinError(filecoin::FilecoinErrorKind::KeyMismatch,
                                      what + ": the verifying key has " + std::to_string(vk.ic.size()) +
                                          " IC points, the circuit " + std::to_string(job.circuit.public_input_count() + 1));
    const auto pvk = groth16::prepare_verifying_key(vk);
    std::string bad;
    for (size_t k = 0; k < job.partitions.size(); k++)
        if (!groth16::verify_proof(pvk, result.proofs[k], job.partitions[k].public_inputs))
            bad += (bad.empty() ? "" : ", ") + std::to_string(job.first_partition + k);
    if (!bad.empty())
        throw filecoin::FilecoinError(filecoin::FilecoinErrorKind::InvalidProof,
                                      what + ": partition(s) " + bad +
                                          " do not verify against their public inputs; nothing written");
    return formats::encode_proofs(result.proofs);
}

}  // namespace cuzk::engine
