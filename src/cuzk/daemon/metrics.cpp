#include "cuzk/daemon/metrics.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace cuzk::daemon {

size_t current_rss_bytes() {
    std::ifstream f("/proc/self/statm");
    size_t pages_total = 0, pages_resident = 0;
    if (!(f >> pages_total >> pages_resident)) return 0;
    return pages_resident * (size_t)sysconf(_SC_PAGESIZE);
}

std::string prometheus_text(const JobCounters& jobs, const engine::ProvingKeyStore::Stats& keys,
                            const engine::Engine::Stats& engine, size_t memory_budget_bytes,
                            const v1::GetStatusResponse& status) {
    std::ostringstream o;
    auto metric = [&](const char* name, const char* type, const char* help, auto value) {
        o << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n" << name << " " << value
          << "\n";
    };
    // Curio's daemon's names first (its dashboards read them).
    metric("cuzk_proofs_completed_total", "counter", "Total proofs completed", jobs.ended_done);
    metric("cuzk_proofs_failed_total", "counter", "Total proofs failed", jobs.ended_failed);
    metric("cuzk_uptime_seconds", "gauge", "Daemon uptime", status.uptime_seconds());
    metric("cuzk_queue_depth", "gauge", "Current queue depth", status.queued());
    // Curio's metric labels write the kinds with underscores ("porep_c2").
    auto label = [](std::string k) {
        for (char& c : k) c = c == '-' ? '_' : c;
        return k;
    };
    o << "# HELP cuzk_proofs_completed Per proof-kind completions\n# TYPE cuzk_proofs_completed counter\n";
    for (const auto& [k, n] : jobs.done_by_kind) o << "cuzk_proofs_completed{proof_kind=\"" << label(k) << "\"} " << n << "\n";
    o << "# HELP cuzk_proofs_failed Per proof-kind failures\n# TYPE cuzk_proofs_failed counter\n";
    for (const auto& [k, n] : jobs.failed_by_kind) o << "cuzk_proofs_failed{proof_kind=\"" << label(k) << "\"} " << n << "\n";
    if (!jobs.done_by_kind.empty()) {
        o << "# HELP cuzk_proof_duration_seconds Proof duration\n# TYPE cuzk_proof_duration_seconds summary\n";
        for (const auto& [k, n] : jobs.done_by_kind) {
            const auto it = jobs.done_seconds_by_kind.find(k);
            o << "cuzk_proof_duration_seconds_count{proof_kind=\"" << label(k) << "\"} " << n << "\n"
              << "cuzk_proof_duration_seconds_sum{proof_kind=\"" << label(k) << "\"} "
              << (it == jobs.done_seconds_by_kind.end() ? 0.0 : it->second) << "\n";
        }
    }
    metric("cuzk_running_jobs", "gauge", "Currently running proofs", status.running());
    metric("cuzk_gpu_workers", "gauge", "Number of GPU workers", status.gpus_size());
    metric("cuzk_jobs_resubmitted_total", "counter", "Submissions answered with the job of the same request_id.",
           jobs.resubmitted);
    metric("cuzk_jobs_submitted_total", "counter", "Jobs accepted.", jobs.submitted);
    metric("cuzk_jobs_rejected_total", "counter", "Requests refused (bad request, budget, queue full).", jobs.rejected);
    o << "# HELP cuzk_jobs_ended_total Jobs ended, by state.\n# TYPE cuzk_jobs_ended_total counter\n"
      << "cuzk_jobs_ended_total{state=\"done\"} " << jobs.ended_done << "\n"
      << "cuzk_jobs_ended_total{state=\"failed\"} " << jobs.ended_failed << "\n"
      << "cuzk_jobs_ended_total{state=\"cancelled\"} " << jobs.ended_cancelled << "\n";
    metric("cuzk_jobs_waiting", "gauge", "Accepted jobs not yet handed to the engine.", jobs.waiting);
    metric("cuzk_jobs_in_engine", "gauge", "Jobs in the engine (queued there or running).", jobs.in_engine);
    metric("cuzk_partitions_proven_total", "counter", "Partitions proven in jobs that completed.",
           jobs.partitions_proven);
    metric("cuzk_fallbacks_total", "counter",
           "Partitions proven again after a backend failed (on another GPU, else the CPU backend).", jobs.fallbacks);
    metric("cuzk_store_failures_total", "counter", "Writes the job store refused (a full disk?).", jobs.store_failures);
    metric("cuzk_store_unrecorded_results", "gauge", "Ended jobs whose result waits to be written to the job store.",
           jobs.unrecorded_results);
    metric("cuzk_proving_seconds_total", "counter", "Pipeline-layer proving time of ended jobs.", jobs.proving_s);
    metric("cuzk_synthesis_seconds_total", "counter", "Pipeline-layer synthesis time of ended jobs.", jobs.synthesis_s);
    metric("cuzk_job_wall_seconds_total", "counter", "Wall time of ended jobs (start to end).", jobs.wall_s);
    metric("cuzk_params_cached_bytes", "gauge", "Host bytes of cached parameter sets.", keys.bytes);
    metric("cuzk_params_cached_sets", "gauge", "Cached parameter sets.", keys.entries);
    metric("cuzk_params_cache_hits_total", "counter", "Parameter cache hits.", keys.hits);
    metric("cuzk_params_cache_misses_total", "counter", "Parameter cache misses (loads).", keys.misses);
    metric("cuzk_memory_budget_bytes", "gauge", "The memory budget (total_budget).", memory_budget_bytes);
    metric("cuzk_resident_memory_bytes", "gauge", "Resident set of the daemon.", current_rss_bytes());
    metric("cuzk_freed_bytes_total", "counter", "Bytes freed off the hot path by the deallocator.",
           engine.freed_bytes);
    metric("cuzk_free_seconds_total", "counter", "Time the deallocator spent freeing, off the hot path.",
           engine.free_seconds);
    return o.str();
}

}  // namespace cuzk::daemon
