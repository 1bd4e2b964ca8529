// What the Filecoin engine jobs (porep_c2, post, snap) share: a partition's assignment from its circuit, and the
// checks between a Done job and the proof bytes written for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "cuzk/engine/engine.hpp"
#include "cuzk/ff/fr.hpp"
#include "cuzk/groth16/types.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/r1cs/pce.hpp"

namespace cuzk::engine {

// The partition's assignment: its witness and the sparse products of the compiled matrices when `pce` is given (the
// same circuit's r1cs::compile_r1cs), else full synthesis.
r1cs::ProvingAssignment partition_assignment(const r1cs::Circuit& circuit, const r1cs::PrecompiledR1cs* pce);
// The same for an engine job (JobSpec::synthesize with JobSpec::pce = pce): with `pce`, the witness with the sparse
// products deferred to it (r1cs::witness_assignment; the engine makes them, on the GPU where it can); without it,
// full synthesis.
r1cs::ProvingAssignment partition_witness(const r1cs::Circuit& circuit, const r1cs::PrecompiledR1cs* pce);

// std::runtime_error naming `what` unless the job ended Done; std::logic_error unless it holds `partitions` proofs.
void require_proofs(std::string_view what, const JobResult& result, size_t partitions);

// The proof bytes of a Done job of `partitions` partitions (192 each, partition order), every proof verified first
// against inputs(k) (ONE not included): FilecoinError(KeyMismatch) when vk is not a key of `input_count` inputs,
// (InvalidProof) naming the failing partitions (numbered from first_partition) otherwise.
std::vector<uint8_t> verified_proof_bytes(std::string_view what, const JobResult& result, size_t partitions,
                                          const groth16::VerifyingKey& vk, size_t input_count,
                                          const std::function<std::span<const Fr>(size_t)>& inputs,
                                          size_t first_partition = 0);

}  // namespace cuzk::engine
