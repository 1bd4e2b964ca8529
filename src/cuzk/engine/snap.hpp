// Filecoin's SnapDeals (EmptySectorUpdate) proof as an engine job: every partition's vanilla proof (one bincode
// PartitionProof each, filecoin/snap_vanilla.hpp) and the update's three commitments in, one 192-byte Groth16 proof
// per partition out, concatenated in partition order (what filecoin-proofs' generate_empty_sector_update_proof
// _with_vanilla returns: 16 partitions at 32 GiB for the SHA-256 variant; the Poseidon variant has one).
//
//   snap_job     checks the partition count, then each partition's vanilla proof against the circuit and the
//                commitments (snap_partition_witness: shapes, challenges, paths, encoding, apex leaves), and derives
//                its public inputs from k, h and the commitments
//   snap_spec    the engine job: one partition per vanilla proof, the EmptySectorUpdate circuit of the variant
//                synthesized from its witness (or its witness and the circuit's compiled matrices)
//   snap_proof   after the job: every partition's proof checked against its public inputs, then encoded;
//                FilecoinError(InvalidProof) naming the partitions that fail, so nothing wrong is ever written
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "cuzk/engine/engine.hpp"
#include "cuzk/filecoin/snap_vanilla.hpp"
#include "cuzk/groth16/types.hpp"
#include "cuzk/r1cs/pce.hpp"

namespace cuzk::engine {

struct SnapJob {
    filecoin::RegisteredUpdateProof proof{};
    filecoin::UpdateCircuit variant = filecoin::UpdateCircuit::Sha256;
    filecoin::SnapShape shape;
    uint32_t h = 0;
    std::vector<filecoin::SnapPartitionWitness> partitions;  // in partition order
};

// FilecoinError(MalformedVanilla) for a vanilla proof count other than the variant's partition count, and whatever
// snap_partition_witness raises for a partition (naming it and the field). h: the proof's default when absent.
SnapJob snap_job(filecoin::RegisteredUpdateProof proof, filecoin::UpdateCircuit variant,
                 std::span<const filecoin::SnapPartitionProof> vanilla, const Fr& comm_r_old, const Fr& comm_d_new,
                 const Fr& comm_r_new, std::optional<uint32_t> h = std::nullopt);

// The job's spec (name, partitions, synthesize); `job` (and `pce`) must outlive the job. With the circuit's compiled
// matrices (r1cs::compile_r1cs of the same shape and variant; every partition has the same rows) a partition needs
// only its witness and the sparse products (r1cs::assignment_from_pce), else it is fully synthesized.
JobSpec snap_spec(const SnapJob& job, const r1cs::PrecompiledR1cs* pce = nullptr);

// The proof bytes of a Done job, each partition's proof verified against its public inputs first
// (FilecoinError(KeyMismatch) for a key of another circuit, (InvalidProof) naming the failing partitions).
std::vector<uint8_t> snap_proof(const SnapJob& job, const JobResult& result, const groth16::VerifyingKey& vk);

}  // namespace cuzk::engine
