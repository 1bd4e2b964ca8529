#include "cuzk/engine/porep_c2.hpp"

#include <string>

#include "cuzk/engine/filecoin_job.hpp"
#include "cuzk/formats/proof_io.hpp"
#include "cuzk/groth16/verifier.hpp"

namespace cuzk::engine {

JobSpec porep_c2_spec(const PorepC2Job& job, const r1cs::PrecompiledR1cs* pce) {
    JobSpec spec;
    spec.name = "porep-c2 " + filecoin::sector_size_name(job.config.sector_size);
    spec.partitions = job.partitions.size();
    spec.pce = pce;  // the engine makes the products (on the GPU where it can) and sizes the partitions
    spec.first_partition_alone = true;  // a partition's challenges are synthesized in parallel
    spec.first_upload_alone = true;     // and its witness goes to the GPU faster alone (docs/perf.md)
    spec.defer_ones = true;             // the partitions' ones summed together at the end (docs/perf.md)
    spec.synthesize = [&job, pce](size_t i) {
        return partition_witness(filecoin::StackedPorepCircuit(job.partitions.at(i)), pce);
    };
    return spec;
}

std::vector<uint8_t> porep_c2_proof(const PorepC2Job& job, const JobResult& result, const groth16::VerifyingKey& vk) {
    require_proofs("PoRep C2", result, job.partitions.size());
    const auto bytes = formats::encode_proofs(result.proofs);
    const auto ok = filecoin::verify_porep_partitions(groth16::prepare_verifying_key(vk), job.config, job.replica, bytes);
    std::string bad;
    for (size_t k = 0; k < ok.size(); k++)
        if (!ok[k]) bad += (bad.empty() ? "" : ", ") + std::to_string(k);
    if (!bad.empty())
        throw filecoin::FilecoinError(filecoin::FilecoinErrorKind::InvalidProof,
                                      "PoRep C2: the proof of partition(s) " + bad +
                                          " does not verify against Filecoin's public inputs; nothing written");
    return bytes;
}

}  // namespace cuzk::engine
