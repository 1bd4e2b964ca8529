// Curio's requests as Filecoin engine jobs (issue 21): a SubmitProofRequest of kind POREP_SEAL_COMMIT,
// WINDOW_POST_PARTITION, WINNING_POST or SNAP_DEALS_UPDATE checked and parsed into the engine's job data
// (engine/porep_c2.hpp, post.hpp, snap.hpp), with the parameter file Filecoin names for its circuit; and the circuit
// ids Curio uses for parameter sets ("porep-32g", "wpost-32g", "winning-32g", "snap-32g", and the other sizes).
//
//   POREP_SEAL_COMMIT      vanilla_proof: Curio's C1 envelope or the bare C1 JSON; its registered proof must be the
//                          request's, its sector the request's (replica_id recomputed from the miner's prover id,
//                          the sector number, the C1's ticket and comm_d), the envelope's SectorNum/SectorSize too
//   WINDOW_POST_PARTITION  vanilla_proofs (bincode or JSON FallbackPoStSectorProof, one per sector), randomness,
//                          partition_index: one partition's proof
//   WINNING_POST           vanilla_proofs, randomness
//   SNAP_DEALS_UPDATE      vanilla_proofs (bincode or JSON PartitionProof, one per partition), comm_r_old,
//                          comm_r_new, comm_d_new (raw 32 bytes each); the SHA-256 variant's circuit
// Every error is a DaemonError naming the field: InvalidArgument for the request, FailedPrecondition for a missing
// or misfitting parameter file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cuzk.pb.h"
#include "cuzk/engine/porep_c2.hpp"
#include "cuzk/engine/post.hpp"
#include "cuzk/engine/snap.hpp"
#include "cuzk/filecoin/params.hpp"
#include "cuzk/r1cs/pce.hpp"

namespace cuzk::daemon {

// What the protocol's kinds are called in status and metrics (as Curio's daemon names them): "porep-c2",
// "snap-update", "window-post", "winning-post"; cuzk's own jobs "cuzk-job".
std::string proof_kind_label(v1::ProofKind kind);
// The kind's default priority (Curio's): WINNING_POST CRITICAL, WINDOW_POST_PARTITION HIGH, else NORMAL.
v1::Priority default_priority(v1::ProofKind kind);

struct FilecoinJob {
    v1::ProofKind kind = v1::PROOF_KIND_UNSPECIFIED;
    uint64_t registered_proof = 0;
    std::string proof_name;  // the registered proof's, e.g. "StackedDrg32GiBV1_1"
    std::string circuit_id;  // "porep-32g"
    filecoin::ParameterFileNames files;
    filecoin::ParameterShape shape;  // what the parameter file's headers must say
    size_t partitions = 0;
    std::variant<engine::PorepC2Job, engine::PostJob, engine::SnapJob> data;

    // The key store's name for the circuit's compiled matrices, and the compilation (compile_circuit: seconds at
    // 32 GiB).
    std::string matrices_name() const { return "filecoin:" + files.cache_id; }
    r1cs::PrecompiledR1cs compile_matrices() const;
    // The engine's job (name, partitions, synthesize) through `pce` when given; this object must outlive it.
    engine::JobSpec spec(const r1cs::PrecompiledR1cs* pce) const;
    // The proof bytes of a Done job (192 per partition), each verified against Filecoin's public inputs first.
    std::vector<uint8_t> proof(const engine::JobResult& result, const groth16::VerifyingKey& vk) const;
};

// The request checked and parsed (see the top of this file). DaemonError.
std::shared_ptr<const FilecoinJob> filecoin_job(const v1::SubmitProofRequest& r);

// The job's parameter file in `dir`, found by Filecoin's name and its headers checked. DaemonError(FailedPrecondition)
// naming the file and the directory.
std::filesystem::path filecoin_params_path(const FilecoinJob& job, const std::filesystem::path& dir);

// A circuit id's parameter file names (nullopt for an unknown id), and the id of a parameter file's name ("" when
// it is no circuit's).
struct CircuitParams {
    std::string circuit_id;
    std::string proof_name;
    filecoin::ParameterFileNames files;
    v1::ProofKind kind = v1::PROOF_KIND_UNSPECIFIED;
    uint64_t registered_proof = 0;
    std::string matrices_name() const { return "filecoin:" + files.cache_id; }  // as FilecoinJob's
};
std::optional<CircuitParams> circuit_params(const std::string& circuit_id);
std::string circuit_id_of_file(const std::string& file_name);
// Every known circuit id, for messages.
std::vector<std::string> circuit_ids();
// The circuit's compiled rows (its blank circuit's; the same as FilecoinJob::compile_matrices of a job of it).
r1cs::PrecompiledR1cs compile_circuit(const CircuitParams& c);

}  // namespace cuzk::daemon
