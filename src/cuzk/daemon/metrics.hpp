// The daemon's metrics in Prometheus's text format (GetMetrics, and GET /metrics: metrics_http.hpp): the jobs'
// counters, the key store's cache, the memory budget and resident set, the engine's deallocator.
#pragma once

#include <cstddef>
#include <string>

#include "cuzk/daemon/job_table.hpp"
#include "cuzk/engine/engine.hpp"
#include "cuzk/engine/key_store.hpp"

namespace cuzk::daemon {

std::string prometheus_text(const JobCounters& jobs, const engine::ProvingKeyStore::Stats& keys,
                            const engine::Engine::Stats& engine, size_t memory_budget_bytes);

// The process's resident set (/proc/self/statm; 0 where it cannot be read).
size_t current_rss_bytes();

}  // namespace cuzk::daemon
