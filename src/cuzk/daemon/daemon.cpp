// The daemon's wiring: the job table (job_table.hpp: the jobs, their store and the engine), the proving keys
// (keys.hpp), the gRPC service and listeners (service.hpp) and the metrics endpoint, started, resumed and shut down
// in order. Requests are checked by requests.hpp; a job becomes the engine's by engine_job.hpp.
#include "cuzk/daemon/daemon.hpp"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <mutex>

#include "cuzk.grpc.pb.h"
#include "cuzk/daemon/engine_job.hpp"
#include "cuzk/daemon/event_log.hpp"
#include "cuzk/daemon/job_table.hpp"
#include "cuzk/daemon/keys.hpp"
#include "cuzk/daemon/state_dir.hpp"
#include "cuzk/daemon/metrics.hpp"
#include "cuzk/daemon/metrics_http.hpp"
#include "cuzk/daemon/requests.hpp"
#include "cuzk/daemon/service.hpp"
#include "cuzk/engine/engine.hpp"

#ifndef CUZK_VERSION
#define CUZK_VERSION "unknown"  // the build sets it from the project's version (CMakeLists.txt)
#endif

namespace cuzk::daemon {

namespace fs = std::filesystem;

namespace {

// How long a shutdown lets calls in progress finish before it cancels them (an AwaitProof waiting for a job that
// an interrupt leaves queued ends at once: it sees the daemon stopping within its poll period).
constexpr auto kRpcShutdownGrace = std::chrono::seconds(2);

// The engine with cfg's synthesis workers and lookahead, under the memory budget, proving with the keys of `keys`.
std::unique_ptr<engine::Engine> make_engine(const DaemonConfig& cfg, size_t budget_bytes,
                                            std::shared_ptr<engine::ProvingKeyStore> keys) {
    engine::EngineConfig ec;
    ec.key_store = std::move(keys);
    ec.synthesis_workers = cfg.synthesis_workers;
    ec.lookahead = cfg.lookahead;
    ec.memory_budget_bytes = budget_bytes;
    return std::make_unique<engine::Engine>(ec);
}

// cfg with its "auto" synthesis workers resolved.
DaemonConfig resolved(DaemonConfig cfg) {
    if (cfg.synthesis_workers == 0) cfg.synthesis_workers = engine::auto_synthesis_workers();
    return cfg;
}

}  // namespace

std::string grpc_target(const std::string& s) {
    if (s.rfind("unix:", 0) == 0) return s;
    if (!s.empty() && (s[0] == '/' || s[0] == '.')) return "unix:" + fs::absolute(s).string();
    if (s.find(':') == std::string::npos) return "unix:" + fs::absolute(s).string();
    return s;
}

struct Daemon::Impl {
    StateDir state;  // first: private, and this daemon's alone, before the socket is claimed or a job resumed
    const DaemonConfig cfg;
    const size_t budget;  // bytes for parameter sets and jobs
    EventLog log;
    ProvingKeys keys;  // std::runtime_error for backend "gpu" without CUDA
    JobTable table;    // the jobs, their store and the engine (which proves with keys' store)

    std::unique_ptr<grpc::Server> server;
    std::unique_ptr<grpc::Service> service;
    std::unique_ptr<MetricsHttpServer> metrics_http;
    int tcp_port = 0;
    std::optional<SocketId> socket;  // the socket this daemon created (removed at shutdown only if still there)

    const std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    std::mutex shutdown_mu;
    std::condition_variable shutdown_cv;
    bool shutdown_requested = false;

    explicit Impl(const DaemonConfig& c)
        : state(c),
          cfg(resolved(claim_socket(c))),
          budget(c.total_budget ? c.total_budget : engine::auto_memory_budget()),
          log(c.log),
          keys(cfg, budget, log),
          table(cfg, make_engine(cfg, budget, keys.store()), log) {
        table.resume([this](v1::SubmitProofRequest& r, Job& job) { plan(r, job); });
        table.run([this](const std::shared_ptr<Job>& job) { start(job); });
    }

    ~Impl() { shutdown(true); }

    // A request checked and completed (requests.hpp) and admitted under the memory budget into `job`.
    void plan(v1::SubmitProofRequest& r, Job& job) const {
        JobPlan plan = plan_request(r, cfg);
        if (keys.streams_to_devices() && !plan.circom) plan.params_bytes = 0;  // on the GPUs, not in host memory
        check_memory_budget(plan, budget);
        job.plan = std::move(plan);
        // Parsed into the plan; the raw bytes (a 32 GiB C1 is ~50 MB) go to the store only.
        job.req = without_bulk(r);
    }

    // On the table's starter thread: loads what the job needs (a parameter set may take minutes), then hands it to
    // the engine.
    void start(const std::shared_ptr<Job>& job) {
        const auto t0 = std::chrono::steady_clock::now();
        std::shared_ptr<const engine::ProvingKey> key = keys.key(job->plan.params_path);
        job->key_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const std::string file = job->plan.params_path.filename().string();
        if (job->plan.circom && !key->zkey) throw std::runtime_error("circom job: " + file + " is not a .zkey");
        if (!job->plan.circom && key->zkey) throw std::runtime_error(file + " is a .zkey: use circuit \"circom\"");
        auto pce = keys.matrices(*key, job->plan);
        auto on_end = [this](Job& j, const engine::JobResult& res) {
            table.ended(j, res, proof_result(j, res, cfg.verify_proofs));
        };
        engine::JobSpec spec = engine_spec(job, key, pce, cfg.verify_proofs, log, std::move(on_end));
        spec.defer_ones = spec.defer_ones && cfg.defer_ones;  // the job's own choice (PoRep C2), or off
        table.launch(job, std::move(key), std::move(pce), std::move(spec));
    }

    v1::GetStatusResponse status(uint64_t id) const {
        v1::GetStatusResponse r;
        r.set_version(CUZK_VERSION);
        r.set_synthesis_workers((uint32_t)cfg.synthesis_workers);
        keys.report(r, [this](const fs::path& p) { return table.jobs_using(p); });
        r.set_rss_bytes(current_rss_bytes());
        r.set_memory_budget_bytes(budget);
        r.set_uptime_seconds((uint64_t)std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
        table.report(r, id);
        return r;
    }

    std::string metrics_text() const {
        const v1::GetStatusResponse s = status(0);
        return prometheus_text(table.counters(), keys.stats(), table.engine_stats(), budget, s);
    }

    // Stop accepting; drain (every accepted job ends) unless interrupting; stop the job table and its engine.
    // While draining the server keeps serving (await, status, metrics; a submit is refused), so the clients of the
    // jobs it finishes get their results; interrupt_drain() (a second signal) ends the drain early.
    // force_interrupt: a daemon that failed to start does not drain.
    void shutdown(bool force_interrupt = false) {
        if (!table.stop_accepting()) return;
        log("shutting down (" + std::string(force_interrupt ? "interrupt" : cfg.shutdown) + ")");
        if (cfg.shutdown == "drain" && !force_interrupt) table.wait_until_all_ended();
        if (server) server->Shutdown(std::chrono::system_clock::now() + kRpcShutdownGrace);
        metrics_http.reset();
        table.stop();  // interrupt: the running job stops at its next partition and stays queued in the store
        if (server) server->Wait();
        remove_own_socket(cfg.socket_path(), socket);
    }
};

// ---- Daemon -----------------------------------------------------------------------------------------------------

Daemon::Daemon(const DaemonConfig& cfg) : impl_(std::make_unique<Impl>(cfg)) {
    impl_->service = make_prover_service(*this);
    impl_->server = listen(cfg, *impl_->service, &impl_->tcp_port);
    impl_->socket = socket_id(cfg.socket_path());
    if (!impl_->server) {
        impl_->shutdown(true);
        throw std::runtime_error("daemon: cannot listen on " + cfg.socket_path().string() +
                                 (cfg.tcp.empty() ? "" : " and " + cfg.tcp));
    }
    if (!cfg.metrics.empty())
        impl_->metrics_http = std::make_unique<MetricsHttpServer>(cfg.metrics, [this] { return metrics_text(); });
}

Daemon::~Daemon() {
    try {
        shutdown();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cuzk daemon: shutdown failed: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "cuzk daemon: shutdown failed\n");
    }
}

void Daemon::shutdown() { impl_->shutdown(); }

void Daemon::interrupt_drain() {
    impl_->log("interrupting the drain: running jobs stop at their next partition and resume at the next start");
    impl_->table.interrupt_drain();
}

void Daemon::wait_for_shutdown_request() {
    std::unique_lock<std::mutex> lk(impl_->shutdown_mu);
    impl_->shutdown_cv.wait(lk, [&] { return impl_->shutdown_requested; });
}

void Daemon::request_shutdown() {
    {
        std::lock_guard<std::mutex> lk(impl_->shutdown_mu);
        impl_->shutdown_requested = true;
    }
    impl_->shutdown_cv.notify_all();
}

std::string Daemon::socket_path() const { return fs::absolute(impl_->cfg.socket_path()).string(); }
int Daemon::tcp_port() const { return impl_->tcp_port; }
int Daemon::metrics_port() const { return impl_->metrics_http ? impl_->metrics_http->port() : 0; }

Submitted Daemon::submit(const v1::SubmitProofRequest& request) {
    return impl_->table.submit(request, [this](v1::SubmitProofRequest& r, Job& job) { impl_->plan(r, job); });
}
v1::AwaitProofResponse Daemon::await(uint64_t id, double timeout_s, const std::function<bool()>& cancelled) {
    return impl_->table.await(id, timeout_s, cancelled);
}
bool Daemon::cancel(uint64_t id, bool* was_running) { return impl_->table.cancel(id, was_running); }
v1::GetStatusResponse Daemon::status(uint64_t job_id) { return impl_->status(job_id); }
std::string Daemon::metrics_text() { return impl_->metrics_text(); }
v1::PreloadSrsResponse Daemon::preload(const v1::PreloadSrsRequest& q) { return impl_->keys.preload(q); }
v1::EvictSrsResponse Daemon::evict(const v1::EvictSrsRequest& q) { return impl_->keys.evict(q); }
void Daemon::before_engine_cancel_for_testing(std::function<void()> hook) {
    impl_->table.before_engine_cancel_for_testing = std::move(hook);
}

void Daemon::fail_store_writes_for_testing(const std::string& why) {
    impl_->table.store_for_testing().fail_writes_for_testing(why);
}

}  // namespace cuzk::daemon
