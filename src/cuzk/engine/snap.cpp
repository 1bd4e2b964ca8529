#include "cuzk/engine/snap.hpp"

#include <string>

#include "cuzk/formats/proof_io.hpp"
#include "cuzk/groth16/verifier.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/util/thread_pool.hpp"

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
    spec.synthesize = [&job, pce](size_t k) {
        const filecoin::EmptySectorUpdateCircuit circuit(job.shape, job.variant, job.partitions[k].witness);
        if (pce) return r1cs::assignment_from_pce(*pce, circuit, ThreadPool::global());
        r1cs::ProvingAssignment asg;
        r1cs::synthesize_groth16(asg, circuit);
        return asg;
    };
    return spec;
}

std::vector<uint8_t> snap_proof(const SnapJob& job, const JobResult& result, const groth16::VerifyingKey& vk) {
    const std::string what = job_name(job);
    if (result.state != JobState::Done)
        throw std::runtime_error(what + ": the job ended " + job_state_name(result.state) +
                                 (result.error.empty() ? "" : ": " + result.error));
    if (result.proofs.size() != job.partitions.size())
        throw std::logic_error(what + ": " + std::to_string(result.proofs.size()) + " proofs for " +
                               std::to_string(job.partitions.size()) + " partitions");
    const size_t inputs = job.partitions.empty() ? 0 : job.partitions[0].public_inputs.size();
    if (vk.ic.size() != inputs + 1)
        throw filecoin::FilecoinError(filecoin::FilecoinErrorKind::KeyMismatch,
                                      what + ": the verifying key has " + std::to_string(vk.ic.size()) +
                                          " IC points, the circuit " + std::to_string(inputs + 1));
    const auto pvk = groth16::prepare_verifying_key(vk);
    std::string bad;
    for (size_t k = 0; k < job.partitions.size(); k++)
        if (!groth16::verify_proof(pvk, result.proofs[k], job.partitions[k].public_inputs))
            bad += (bad.empty() ? "" : ", ") + std::to_string(k);
    if (!bad.empty())
        throw filecoin::FilecoinError(filecoin::FilecoinErrorKind::InvalidProof,
                                      what + ": the proof of partition(s) " + bad +
                                          " does not verify against the public inputs; nothing written");
    return formats::encode_proofs(result.proofs);
}

}  // namespace cuzk::engine
