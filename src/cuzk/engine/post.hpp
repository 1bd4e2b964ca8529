// Filecoin's Winning and Window PoSt as an engine job: the sectors' vanilla proofs (one bincode
// FallbackPoStSectorProof per sector, filecoin/post_vanilla.hpp) and the challenge randomness in, one 192-byte
// Groth16 proof per partition out, in partition order (what filecoin-proofs' generate_winning_post_with_vanilla,
// generate_window_post_with_vanilla and, for one partition, generate_single_window_post_with_vanilla return).
//
//   post_job     validates the vanilla proofs against the registered proof's circuit, checks every inclusion proof
//                proves the leaf the randomness challenges, and derives the public inputs (from the randomness,
//                the sector ids and comm_r) of one partition, or of every partition of a Window PoSt
//   post_spec    the engine job: its partitions, the FallbackPoSt circuit synthesized from each witness (or its
//                witness and the compiled matrices)
//   post_proof   after the job: every proof checked against its public inputs, then encoded; FilecoinError
//                (InvalidProof) otherwise, so nothing wrong is ever written
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cuzk/engine/engine.hpp"
#include "cuzk/filecoin/post_vanilla.hpp"
#include "cuzk/groth16/types.hpp"
#include "cuzk/r1cs/pce.hpp"

namespace cuzk::engine {

struct PostJob {
    filecoin::RegisteredPoStProof proof{};
    filecoin::PostCircuitConfig circuit;
    uint32_t first_partition = 0;                          // the index of partitions[0]
    std::vector<filecoin::PostPartitionWitness> partitions;  // in partition order
};

// Partition `partition` of a PoSt (Window: at most the partition's sector count of vanilla proofs, its sectors in
// order; Winning: the one sector, partition 0). FilecoinError naming the sector and field for vanilla proofs that
// do not fit (post_partition_witness).
PostJob post_job(filecoin::RegisteredPoStProof proof, const filecoin::Domain& randomness,
                 std::span<const filecoin::FallbackPostSectorProof> vanilla, uint32_t partition);
// Every partition of a PoSt: a Window PoSt's sectors cut into partitions of the circuit's sector count in order
// (the last one padded with its last sector, as upstream does); a Winning PoSt's one sector. FilecoinError
// (MalformedVanilla) for no vanilla proof at all.
PostJob post_job(filecoin::RegisteredPoStProof proof, const filecoin::Domain& randomness,
                 std::span<const filecoin::FallbackPostSectorProof> vanilla);

// The job's spec (name, one partition, synthesize); `job` (and `pce`) must outlive the job. With the circuit's
// compiled matrices (r1cs::compile_r1cs of the same config) the partition needs only its witness and the sparse
// products (r1cs::assignment_from_pce), else it is fully synthesized; the sectors run in parallel either way.
JobSpec post_spec(const PostJob& job, const r1cs::PrecompiledR1cs* pce = nullptr);

// The proof bytes of a Done job (192 per partition, partition order), every proof verified against its partition's
// public inputs first (FilecoinError(KeyMismatch) for another circuit's key, (InvalidProof) naming the failing
// partitions).
std::vector<uint8_t> post_proof(const PostJob& job, const JobResult& result, const groth16::VerifyingKey& vk);

}  // namespace cuzk::engine
