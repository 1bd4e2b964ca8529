#include "cuzk/engine/snap.hpp"

#include <string>

#include "cuzk/engine/filecoin_job.hpp"

namespace cuzk::engine {

namespace {

std::string job_name(const SnapJob& job) {
    return std::string(filecoin::proof_name(job.proof)) +
           (job.variant == filecoin::UpdateCircuit::Poseidon ? " update (Poseidon)" : " update");
}

}  // namespace

SnapJob snap_job(filecoin::RegisteredUpdateProof proof, filecoin::UpdateCircuit variant,
                 std::span<const filecoin::SnapPartitionProof> vanilla, const Fr& comm_r_old, const Fr& comm_d_new,
                 const Fr& comm_r_new, std::optional<uint32_t> h) {
    SnapJob job;
    job.proof = proof;
    job.variant = variant;
    job.shape = filecoin::SnapShape::from_sector_size(filecoin::sector_size(proof));
    job.h = h ? *h : job.shape.h_default;
    const size_t partitions = variant == filecoin::UpdateCircuit::Sha256 ? job.shape.partition_count : 1;
    if (vanilla.size() != partitions)
        throw filecoin::FilecoinError(filecoin::FilecoinErrorKind::MalformedVanilla,
                                      job_name(job) + ": vanilla_proofs: " + std::to_string(vanilla.size()) +
                                          " partition proofs, the update has " + std::to_string(partitions));
    for (size_t k = 0; k < partitions; k++)
        job.partitions.push_back(filecoin::snap_partition_witness(job.shape, variant, vanilla[k], uint32_t(k), job.h,
                                                                  comm_r_old, comm_d_new, comm_r_new));
    return job;
}

JobSpec snap_spec(const SnapJob& job, const r1cs::PrecompiledR1cs* pce) {
    JobSpec spec;
    spec.name = job_name(job);
    spec.partitions = job.partitions.size();
    spec.pce = pce;  // the engine makes the products (on the GPU where it can) and sizes the partitions
    spec.synthesize = [&job, pce](size_t k) {
        return partition_witness(
            filecoin::EmptySectorUpdateCircuit(job.shape, job.variant, job.partitions[k].witness), pce);
    };
    return spec;
}

std::vector<uint8_t> snap_proof(const SnapJob& job, const JobResult& result, const groth16::VerifyingKey& vk) {
    const size_t inputs = job.partitions.empty() ? 0 : job.partitions[0].public_inputs.size();
    return verified_proof_bytes(job_name(job), result, job.partitions.size(), vk, inputs,
                                [&job](size_t k) { return std::span<const Fr>(job.partitions[k].public_inputs); });
}

}  // namespace cuzk::engine
