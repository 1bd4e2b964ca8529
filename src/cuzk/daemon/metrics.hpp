// The daemon's metrics in Prometheus's text format (GetMetrics, and GET /metrics: metrics_http.hpp): Curio's daemon's
// names (cuzk_proofs_completed_total, cuzk_proofs_failed_total, cuzk_uptime_seconds, cuzk_queue_depth,
// cuzk_proof_duration_seconds, cuzk_running_jobs, cuzk_gpu_workers), then this daemon's own: the jobs' counters, the
// key store's cache, the memory budget and resident set, the engine's deallocator.
#pragma once

#include "cuzk.pb.h"

#include <cstddef>
#include <string>

#include "cuzk/daemon/job_table.hpp"
#include "cuzk/engine/engine.hpp"
#include "cuzk/engine/key_store.hpp"

namespace cuzk::daemon {

// `status`: the daemon's status report now (queues, uptime, GPUs).
std::string prometheus_text(const JobCounters& jobs, const engine::ProvingKeyStore::Stats& keys,
                            const engine::Engine::Stats& engine, size_t memory_budget_bytes,
                            const v1::GetStatusResponse& status);

// The process's resident set (/proc/self/statm; 0 where it cannot be read).
size_t current_rss_bytes();

}  // namespace cuzk::daemon
