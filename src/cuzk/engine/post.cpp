#include "cuzk/engine/post.hpp"

#include <algorithm>
#include <string>

#include "cuzk/engine/filecoin_job.hpp"

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
    for (size_t k = 0; k * per < vanilla.size(); k++) {
        const auto sectors = vanilla.subspan(k * per, std::min(per, vanilla.size() - k * per));
        job.partitions.push_back(filecoin::post_partition_witness(job.circuit, filecoin::PoStType::Window,
                                                                  randomness, sectors, (uint32_t)k));
    }
    return job;
}

JobSpec post_spec(const PostJob& job, const r1cs::PrecompiledR1cs* pce) {
    JobSpec spec;
    spec.name = std::string(filecoin::proof_name(job.proof));
    if (job.partitions.size() == 1) spec.name += " partition " + std::to_string(job.first_partition);
    spec.partitions = job.partitions.size();
    spec.pce = pce;  // the engine makes the products (on the GPU where it can) and sizes the partitions
    spec.synthesize = [&job, pce](size_t i) {
        return partition_witness(filecoin::FallbackPostCircuit(job.circuit, job.partitions.at(i).sectors), pce);
    };
    return spec;
}

std::vector<uint8_t> post_proof(const PostJob& job, const JobResult& result, const groth16::VerifyingKey& vk) {
    return verified_proof_bytes(
        filecoin::proof_name(job.proof), result, job.partitions.size(), vk, job.circuit.public_input_count(),
        [&job](size_t k) { return std::span<const Fr>(job.partitions[k].public_inputs); }, job.first_partition);
}

}  // namespace cuzk::engine
