// Filecoin's PoRep C2 as an engine job: a C1 output (SealCommitPhase1Output) in, one 192-byte Groth16 proof per
// partition out, concatenated in partition order (what filecoin-proofs' seal_commit_phase2 returns).
//
//   porep_c2_job      (filecoin/c1.hpp) validates the C1 and turns every partition's vanilla proofs into the
//                     circuit's witness, and derives the public inputs Filecoin's verifier will use (from
//                     replica_id, seed, comm_d and comm_r alone: the witness is not trusted for them)
//   porep_c2_spec     the engine job: partition i synthesizes the real StackedDrg circuit (full synthesis, or the
//                     witness and a sparse product when a pre-compiled R1CS of the same circuit is given); the
//                     engine verifies each proof against the assignment's inputs when a key is set
//   porep_c2_proof    after the job: every partition's proof checked against the verifier's inputs, then encoded;
//                     FilecoinError(InvalidProof) naming the partitions that fail, so nothing wrong is ever written
#pragma once

#include <cstdint>
#include <vector>

#include "cuzk/engine/engine.hpp"
#include "cuzk/filecoin/c1.hpp"
#include "cuzk/filecoin/porep.hpp"
#include "cuzk/filecoin/porep_circuit.hpp"
#include "cuzk/groth16/types.hpp"
#include "cuzk/r1cs/pce.hpp"

namespace cuzk::engine {

// The job's data (filecoin/c1.hpp).
using filecoin::porep_c2_job;
using filecoin::PorepC2Job;

// The job's spec (name, partitions, synthesize); the caller sets the backend(s), fallback, verify key, priority.
// `job` and `pce` must outlive the job.
JobSpec porep_c2_spec(const PorepC2Job& job, const r1cs::PrecompiledR1cs* pce = nullptr);

// The proof bytes of a Done job, each partition's proof verified against the verifier's inputs first;
// FilecoinError(InvalidProof) naming the failing partitions otherwise.
std::vector<uint8_t> porep_c2_proof(const PorepC2Job& job, const JobResult& result, const groth16::VerifyingKey& vk);

}  // namespace cuzk::engine
