// The daemon's jobs: each accepted job from its admission to some time after its end, persisted in the job store
// (job_store.hpp) as it goes, and the engine that proves them.
//
//   submit ──> queued (in the store before its id is returned) ──> the starter thread takes queued jobs by priority
//   then age (an urgent starter takes CRITICAL jobs only, beside it) and calls `start` (daemon.cpp: key, matrices, engine spec), which hands the job to the engine through
//   launch() ──> the engine's end (ended) or a failure or cancel before it: the result is stored and every await()
//   waiting for it returns it. The janitor thread forgets ended engine jobs, drops ended jobs from memory a while
//   after their end (the store keeps them) and purges fetched or expired results from the store.
//
// One mutex guards the table; the engine is called under it except where it may call back (cancel).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cuzk.pb.h"
#include "cuzk/daemon/config.hpp"
#include "cuzk/daemon/event_log.hpp"
#include "cuzk/daemon/job_store.hpp"
#include "cuzk/daemon/requests.hpp"
#include "cuzk/engine/engine.hpp"
#include "cuzk/engine/key_store.hpp"
#include "cuzk/ff/fr.hpp"
#include "cuzk/r1cs/pce.hpp"

namespace cuzk::daemon {

struct Job {
    uint64_t id = 0;               // the store's
    v1::SubmitProofRequest req;    // as completed by plan_request, without_bulk: what the store keeps once it ended
    std::string digest;            // of the request's inputs as submitted (request_digest)
    JobPlan plan;                  // the parsed inputs (Filecoin job data, circom witnesses) until the job ends
    v1::JobState state = v1::QUEUED;
    std::optional<engine::JobId> eid;               // once in the engine
    std::shared_ptr<const engine::ProvingKey> key;  // from launch to the end: never evicted meanwhile
    std::shared_ptr<const r1cs::PrecompiledR1cs> pce;
    std::mutex pub_mu;
    std::vector<std::vector<Fr>> publics;  // each partition's public inputs, as synthesized
    std::optional<v1::AwaitProofResponse> result;
    size_t proven_at_end = 0;  // partitions the engine had proven when the job ended
    double accepted_at = 0;    // steady seconds
    double started_at = 0;     // when the starter took it (0: not yet)
    double key_seconds = 0;    // getting its parameter set
    double ended_at = 0;
};

// What the table counted, for the metrics.
struct JobCounters {
    uint64_t submitted = 0, rejected = 0, ended_done = 0, ended_failed = 0, ended_cancelled = 0;
    uint64_t resubmitted = 0;  // submissions answered with the job of the same request_id
    // Per proof kind (proof_kind_label): ended jobs, and the total seconds from submission to end of the done ones.
    std::map<std::string, uint64_t> done_by_kind, failed_by_kind;
    std::map<std::string, double> done_seconds_by_kind;
    uint64_t partitions_proven = 0, fallbacks = 0;
    uint64_t store_failures = 0;    // writes to the job store that failed
    size_t unrecorded_results = 0;  // ended jobs whose result the store has not taken yet (retried)
    double proving_s = 0, synthesis_s = 0, wall_s = 0;  // the ended jobs' pipeline-layer times and wall times
    size_t waiting = 0;    // accepted, not yet handed to the engine
    size_t in_engine = 0;  // queued there or running
};

v1::JobState from_engine(engine::JobState s);
// The request without its bulk (the C1, vanilla proofs, circom witnesses), which the plan has parsed.
v1::SubmitProofRequest without_bulk(const v1::SubmitProofRequest& r);
// Curio's status of a job's end.
v1::AwaitProofResponse::Status await_status(v1::JobState s);


class JobTable {
public:
    // Checks and completes a request into its job (plan_request, admission); throws DaemonError.
    using Plan = std::function<void(v1::SubmitProofRequest& request, Job& job)>;
    // Hands a taken job to the engine (through launch); an exception fails the job with its message.
    using Start = std::function<void(const std::shared_ptr<Job>& job)>;

    // Opens the store (cfg.database(), its directory created). The engine proves the jobs from run() on.
    JobTable(const DaemonConfig& cfg, std::unique_ptr<engine::Engine> engine, EventLog log);
    ~JobTable();  // stop()
    JobTable(const JobTable&) = delete;
    JobTable& operator=(const JobTable&) = delete;

    // Jobs an earlier run accepted that had not ended, queued again under their ids (one that `plan` refuses now
    // fails, saying why). Before run().
    void resume(const Plan& plan);
    // Starts the starter and janitor threads.
    void run(Start start);

    // A new job: `plan`ned, within jobs.max_queued, stored, queued; its id. A request_id of a job that is queued,
    // running or done (its result still kept) with the same inputs answers that job instead, unplanned; after that
    // job failed or was cancelled (Curio retries a failed task under the same id), or with other inputs (a sector
    // sealed again), the id makes a new job. DaemonError.
    Submitted submit(const v1::SubmitProofRequest& request, const Plan& plan);
    // From `start`: the job with its key and matrices into the engine, unless it was cancelled meanwhile or the
    // table is stopping (then it stays queued in the store for the next start).
    void launch(const std::shared_ptr<Job>& job, std::shared_ptr<const engine::ProvingKey> key,
                std::shared_ptr<const r1cs::PrecompiledR1cs> pce, engine::JobSpec spec);
    // The engine ended the job (its JobSpec::on_end) with `res`, answered as `out` (timings filled in here).
    void ended(Job& job, const engine::JobResult& res, v1::AwaitProofResponse out);

    // Daemon::await, cancel, status (daemon.hpp).
    v1::AwaitProofResponse await(uint64_t id, double timeout_s, const std::function<bool()>& cancelled);
    // *was_running: the job was in the engine.
    bool cancel(uint64_t id, bool* was_running = nullptr);
    // The jobs not ended into r (jobs, queued, running, queues per kind, totals, each GPU's current job) and, for
    // id > 0, that job (NotFound when unknown).
    void report(v1::GetStatusResponse& r, uint64_t id) const;
    // The key's jobs: how many queued or running jobs use the parameter file (SRSStatus.ref_count).
    uint32_t jobs_using(const std::filesystem::path& params_path) const;
    JobCounters counters() const;
    engine::Engine::Stats engine_stats() const;

    // Shutdown, in this order. stop_accepting: new submits are refused (false when the table is already stopped);
    // wait_until_all_ended: every accepted job ended (drain); stop: the threads joined, waiters released, the
    // engine destroyed (a running job stops at its next partition and stays queued in the store). Idempotent.
    bool stop_accepting();
    void wait_until_all_ended();
    // Ends wait_until_all_ended() now (a second signal: interrupt instead of drain).
    void interrupt_drain();
    void stop();

    JobStore& store_for_testing() { return store_; }
    // Called by cancel() between releasing the table's lock and calling the engine (a test widens that window).
    std::function<void()> before_engine_cancel_for_testing;

private:
    // The starter takes any queued job; the urgent starter only CRITICAL ones, so that a WinningPoSt never waits
    // behind another job's parameter load (minutes for a 32 GiB set).
    void start_loop(const Start& start, bool urgent_only);
    void janitor_loop();
    // Under mu_: the queued job to start first (urgent_only: only a CRITICAL one); null when none.
    std::shared_ptr<Job> take_next(bool urgent_only);
    // Under mu_ (or before run()): the job ended with `out` (stored first); waiters see it, its key and matrices
    // are released, it is counted.
    void settle(Job& job, v1::AwaitProofResponse out);
    void finish_failed(Job& job, const std::string& why, v1::JobState state = v1::FAILED);
    void persist(uint64_t id, const v1::AwaitProofResponse& out, const std::optional<std::string>& slim_request);
    // An earlier job of the same request_id that answers this submission (see submit), under mu_.
    std::optional<Submitted> existing_job(const std::string& request_id, const std::string& digest);
    uint32_t queue_position(uint64_t id) const;  // under mu_
    // Writes the results the store refused before; true when none is left (then the store writes again).
    bool record_unrecorded();
    void store_quietly(const char* what, const std::function<void()>& write);
    // Under mu_: refuses new work while results wait to be recorded and the store still cannot take them.
    void require_writable_store();
    v1::JobStatus job_status(const Job& j) const;  // under mu_
    v1::AwaitProofResponse stored_result(uint64_t id);  // an ended job no longer in memory

    const size_t max_queued_;
    const double result_ttl_seconds_;
    EventLog log_;
    JobStore store_;
    std::unique_ptr<engine::Engine> engine_;

    mutable std::mutex mu_;
    std::condition_variable cv_;                      // job state changes, queued jobs, stopping
    std::map<uint64_t, std::shared_ptr<Job>> jobs_;   // queued, running, and recently ended
    std::vector<uint64_t> pending_;                   // accepted, not yet in the engine
    std::vector<engine::JobId> to_forget_;            // ended in the engine, not yet forgotten there
    bool accepting_ = true, stopping_ = false, drain_interrupted_ = false;
    size_t engine_callers_ = 0;  // cancel() calls using the engine outside the lock: stop() waits for them
    JobCounters counted_;  // waiting and in_engine are counted when asked

    // Results the store refused (a full disk), retried by the janitor and before new work is accepted. Its own
    // mutex, taken after mu_ when both are held: persist() runs with or without mu_.
    mutable std::mutex unrecorded_mu_;
    std::vector<std::pair<uint64_t, v1::AwaitProofResponse>> unrecorded_;
    std::string store_error_;  // the last failure while any result is unrecorded
    uint64_t store_failures_ = 0;
    std::thread starter_, urgent_starter_, janitor_;
};

}  // namespace cuzk::daemon
