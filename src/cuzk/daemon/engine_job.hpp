// A daemon job as the engine's job and back: the JobSpec that proves it (its partitions made from the built-in
// circuit, through its PCE or by full synthesis, or from the circom witnesses through the zkey's rows; the key's
// backends; its deadline; every proof verified when the daemon verifies), and the engine's result as the protocol's
// ProofResult (proofs, public inputs, timeline).
#pragma once

#include <functional>
#include <memory>

#include "cuzk.pb.h"
#include "cuzk/daemon/event_log.hpp"
#include "cuzk/daemon/job_table.hpp"
#include "cuzk/engine/engine.hpp"
#include "cuzk/engine/key_store.hpp"

namespace cuzk::daemon {

// The engine's spec for `job` proven with `key`; the job's key and matrices must be set before the engine
// synthesizes its first partition (JobTable::launch sets them before it submits). The job is held weakly: a job
// gone from the table fails its remaining partitions, and `on_end` is called only while it exists.
engine::JobSpec engine_spec(const std::shared_ptr<Job>& job, std::shared_ptr<const engine::ProvingKey> key,
                            bool verify_proofs, EventLog log,
                            std::function<void(Job&, const engine::JobResult&)> on_end);

// The engine's result of `job` as the protocol's; `verified`: every proof was checked before it was accepted.
v1::ProofResult proof_result(Job& job, const engine::JobResult& res, bool verified);

}  // namespace cuzk::daemon
