// Filecoin's Winning and Window PoSt as an engine job: one partition's vanilla proofs (one bincode
// FallbackPoStSectorProof per sector, filecoin/post_vanilla.hpp) and the challenge randomness in, one 192-byte
// Groth16 proof out (what filecoin-proofs' generate_single_window_post_with_vanilla / generate_winning_post_with_vanilla
// return for one partition).
//
//   post_job     validates the vanilla proofs against the registered proof's circuit, checks every inclusion proof
//                proves the leaf the randomness challenges, and derives the public inputs (from the randomness,
//                the sector ids and comm_r)
//   post_spec    the engine job: one partition, the FallbackPoSt circuit synthesized from the witness (or its
//                witness and the compiled matrices)
//   post_proof   after the job: the proof checked against the public inputs, then encoded; FilecoinError
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
    uint32_t partition = 0;
    filecoin::PostPartitionWitness witness;
};

// FilecoinError naming the sector and field for vanilla proofs that do not fit (post_partition_witness).
PostJob post_job(filecoin::RegisteredPoStProof proof, const filecoin::Domain& randomness,
                 std::span<const filecoin::FallbackPostSectorProof> vanilla, uint32_t partition = 0);

// The job's spec (name, one partition, synthesize); `job` (and `pce`) must outlive the job. With the circuit's
// compiled matrices (r1cs::compile_r1cs of the same config) the partition needs only its witness and the sparse
// products (r1cs::assignment_from_pce), else it is fully synthesized; the sectors run in parallel either way.
JobSpec post_spec(const PostJob& job, const r1cs::PrecompiledR1cs* pce = nullptr);

// The proof bytes of a Done job, verified against the public inputs first (FilecoinError(InvalidProof) otherwise).
std::vector<uint8_t> post_proof(const PostJob& job, const JobResult& result, const groth16::VerifyingKey& vk);

}  // namespace cuzk::engine
