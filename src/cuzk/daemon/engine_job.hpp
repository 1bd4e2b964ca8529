// A daemon job as the engine's job and back: the JobSpec that proves it (a Filecoin job's partitions from its
// parsed inputs, a built-in circuit's through its PCE or by full synthesis, a circom job's from its witnesses through
// the zkey's rows; the key's backends; its deadline; every proof verified when the daemon verifies), and the engine's
// result as the protocol's AwaitProofResponse (the proof bytes, for a Filecoin job verified against Filecoin's public
// inputs; per-partition proofs, public inputs, timeline).
#pragma once

#include <functional>
#include <memory>

#include "cuzk.pb.h"
#include "cuzk/daemon/event_log.hpp"
#include "cuzk/daemon/job_table.hpp"
#include "cuzk/engine/engine.hpp"
#include "cuzk/engine/key_store.hpp"

namespace cuzk::daemon {

// The engine's spec for `job` proven with `key` and its matrices `pce` (null: full synthesis); the job's key and
// matrices must also be set before the engine synthesizes its first partition (JobTable::launch sets them before it
// submits). The job is held weakly: a job gone from the table fails its remaining partitions, and `on_end` is called
// only while it exists.
engine::JobSpec engine_spec(const std::shared_ptr<Job>& job, std::shared_ptr<const engine::ProvingKey> key,
                            std::shared_ptr<const r1cs::PrecompiledR1cs> pce, bool verify_proofs, EventLog log,
                            std::function<void(Job&, const engine::JobResult&)> on_end);

// The engine's result of `job` as the protocol's; `verified`: every proof was checked before it was accepted (a
// Filecoin job's proofs always are, against Filecoin's public inputs; one that fails makes the job FAILED).
v1::AwaitProofResponse proof_result(Job& job, const engine::JobResult& res, bool verified);

}  // namespace cuzk::daemon
