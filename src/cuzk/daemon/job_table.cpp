#include "cuzk/daemon/job_table.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "cuzk/daemon/daemon.hpp"
#include "cuzk/daemon/filecoin_jobs.hpp"
#include "cuzk/filecoin/hashers.hpp"

namespace cuzk::daemon {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// How often the janitor runs.
constexpr auto kJanitorPeriod = std::chrono::seconds(2);
// An ended job stays in memory this long after its end (then the store answers for it).
constexpr double kEndedInMemorySeconds = 60;
// A fetched result stays in the store this long after its first fetch (a client that retries gets it again).
constexpr double kFetchedResultGraceSeconds = 60;
// How often await() looks whether its client went away (gRPC says so only when asked).
constexpr auto kAwaitPollPeriod = std::chrono::milliseconds(100);

// Seconds on the steady clock (for ages of ended jobs in memory).
double steady_seconds() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

double unix_now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The store's text for a state.
const char* state_text(v1::JobState s) {
    switch (s) {
        case v1::QUEUED: return "queued";
        case v1::RUNNING: return "running";
        case v1::DONE: return "done";
        case v1::FAILED: return "failed";
        case v1::CANCELLED: return "cancelled";
        default: return "unknown";
    }
}

// The store's state text (state_text) back to the protocol's state; unfinished jobs read as QUEUED.
v1::JobState state_from_text(const std::string& s) {
    if (s == "done") return v1::DONE;
    if (s == "failed") return v1::FAILED;
    if (s == "cancelled") return v1::CANCELLED;
    return v1::QUEUED;
}

// The state directory exists before the store opens its database there.
fs::path prepare_state_dir(const DaemonConfig& c) {
    std::error_code ec;
    fs::create_directories(c.state_dir, ec);
    if (ec)
        throw std::runtime_error("daemon: cannot create the state directory " + c.state_dir.string() + ": " +
                                 ec.message());
    return c.database();
}

std::string unknown_job(uint64_t id) { return "job " + std::to_string(id) + " is unknown"; }

std::string serialized(const google::protobuf::Message& m) {
    std::string bytes;
    m.SerializeToString(&bytes);
    return bytes;
}

// SHA-256 (hex) of what the request asks to prove: everything but its priority and deadline.
std::string request_digest(const v1::SubmitProofRequest& r) {
    v1::SubmitProofRequest c = r;
    c.clear_priority();
    c.clear_deadline_seconds();
    const std::string bytes = serialized(c);
    const auto d = filecoin::sha256(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    return filecoin::to_hex(d);
}

uint64_t to_ms(double seconds) { return seconds > 0 ? (uint64_t)(seconds * 1000.0 + 0.5) : 0; }

// What the job log calls a job's request: its kind and what it proves.
std::string describe(const v1::SubmitProofRequest& r, const Job& job) {
    std::string d = proof_kind_label(r.proof_kind()) + " " + job.plan.spec.name + ", " +
                    std::to_string(job.plan.partitions) + " partition(s), priority " + v1::Priority_Name(r.priority());
    if (!r.request_id().empty()) d += ", request_id " + r.request_id();
    return d + ", params " + job.plan.params_path.filename().string();
}

}  // namespace

v1::SubmitProofRequest without_bulk(const v1::SubmitProofRequest& r) {
    v1::SubmitProofRequest s = r;
    s.clear_vanilla_proof();
    s.clear_vanilla_proofs();
    if (s.has_job()) s.mutable_job()->clear_witnesses();
    return s;
}

v1::AwaitProofResponse::Status await_status(v1::JobState s) {
    switch (s) {
        case v1::DONE: return v1::AwaitProofResponse::COMPLETED;
        case v1::FAILED: return v1::AwaitProofResponse::FAILED;
        case v1::CANCELLED: return v1::AwaitProofResponse::CANCELLED;
        default: return v1::AwaitProofResponse::UNKNOWN;
    }
}

v1::JobState from_engine(engine::JobState s) {
    switch (s) {
        case engine::JobState::Queued: return v1::QUEUED;
        case engine::JobState::Running: return v1::RUNNING;
        case engine::JobState::Done: return v1::DONE;
        case engine::JobState::Failed: return v1::FAILED;
        default: return v1::CANCELLED;
    }
}

JobTable::JobTable(const DaemonConfig& cfg, std::unique_ptr<engine::Engine> engine, EventLog log)
    : max_queued_(cfg.max_queued),
      result_ttl_seconds_(cfg.result_ttl_seconds),
      log_(log),
      store_(prepare_state_dir(cfg)),
      engine_(std::move(engine)) {}

JobTable::~JobTable() { stop(); }

// ---- admission --------------------------------------------------------------------------------------------------

void JobTable::resume(const Plan& plan) {
    for (const StoredJob& sj : store_.unfinished()) {
        auto job = std::make_shared<Job>();
        job->id = sj.id;
        job->digest = sj.digest;
        job->accepted_at = steady_seconds();
        v1::SubmitProofRequest r;
        std::string why;
        if (!r.ParseFromString(sj.request)) {
            why = "its stored request cannot be read";
        } else {
            try {
                plan(r, *job);  // the files may have gone since
            } catch (const std::exception& e) {
                why = e.what();
            }
        }
        jobs_[job->id] = job;
        if (!why.empty()) {
            finish_failed(*job, "resumed after a restart, but " + why);
            continue;
        }
        store_quietly("state", [&] { store_.set_state(job->id, "queued"); });
        pending_.push_back(job->id);
    }
}

std::optional<Submitted> JobTable::existing_job(const std::string& request_id, const std::string& digest) {
    for (auto it = jobs_.rbegin(); it != jobs_.rend(); ++it)  // the newest job of the id decides
        if (it->second->req.request_id() == request_id) {
            const v1::JobState st = it->second->state;
            if (st == v1::FAILED || st == v1::CANCELLED || it->second->digest != digest) return std::nullopt;
            return Submitted{it->first, queue_position(it->first), true};
        }
    // Not in memory: an ended job whose result the store still keeps.
    auto sj = store_.latest_with_request_id(request_id);
    if (!sj || sj->state != "done" || sj->digest != digest) return std::nullopt;
    return Submitted{sj->id, 0, true};
}

uint32_t JobTable::queue_position(uint64_t id) const {
    auto it = jobs_.find(id);
    if (it == jobs_.end() || std::find(pending_.begin(), pending_.end(), id) == pending_.end()) return 0;
    const auto p = it->second->req.priority();
    return (uint32_t)std::count_if(pending_.begin(), pending_.end(), [&](uint64_t o) {
        const auto po = jobs_.at(o)->req.priority();
        return po > p || (po == p && o < id);
    });
}

Submitted JobTable::submit(const v1::SubmitProofRequest& request, const Plan& plan) {
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (!accepting_) throw DaemonError(ErrorCode::Unavailable, "the daemon is shutting down");
    }
    auto job = std::make_shared<Job>();
    job->digest = request_digest(request);
    if (!request.request_id().empty()) {
        std::lock_guard<std::mutex> lk(mu_);
        if (auto e = existing_job(request.request_id(), job->digest)) {
            counted_.resubmitted++;
            log_("request_id " + request.request_id() + " submitted again: job " + std::to_string(e->id));
            return *e;
        }
    }
    v1::SubmitProofRequest r = request;
    try {
        plan(r, *job);
    } catch (const std::exception& e) {
        log_(std::string("request refused: ") + e.what());
        std::lock_guard<std::mutex> lk(mu_);
        counted_.rejected++;
        throw;
    }
    std::lock_guard<std::mutex> lk(mu_);
    if (!accepting_) throw DaemonError(ErrorCode::Unavailable, "the daemon is shutting down");
    require_writable_store();
    const size_t open = (size_t)std::count_if(jobs_.begin(), jobs_.end(), [](const auto& e) {
        return e.second->state == v1::QUEUED || e.second->state == v1::RUNNING;
    });
    if (open >= max_queued_) {
        counted_.rejected++;
        throw DaemonError(ErrorCode::ResourceExhausted,
                          std::to_string(open) + " jobs are waiting or running (jobs.max_queued)");
    }
    try {
        // With its bulk: a restart parses it again. Durable before the id is returned.
        job->id = store_.insert(serialized(r), (int)r.priority(), unix_now(), r.request_id(), job->digest);
    } catch (const StoreError& e) {
        counted_.rejected++;
        {
            std::lock_guard<std::mutex> ulk(unrecorded_mu_);
            store_failures_++;
        }
        log_(std::string("request refused: the job store cannot write: ") + e.what());
        throw DaemonError(ErrorCode::Unavailable, std::string("the job store cannot write: ") + e.what());
    }
    job->accepted_at = steady_seconds();
    jobs_[job->id] = job;
    pending_.push_back(job->id);
    counted_.submitted++;
    cv_.notify_all();
    log_("job " + std::to_string(job->id) + " accepted: " + describe(job->req, *job));
    return Submitted{job->id, queue_position(job->id), false};
}

// ---- starting ---------------------------------------------------------------------------------------------------

void JobTable::run(Start start) {
    starter_ = std::thread([this, start] { start_loop(start, false); });
    urgent_starter_ = std::thread([this, start = std::move(start)] { start_loop(start, true); });
    janitor_ = std::thread([this] { janitor_loop(); });
}

std::shared_ptr<Job> JobTable::take_next(bool urgent_only) {
    auto first = [&](uint64_t a, uint64_t b) {  // higher priority first, then the older (smaller id)
        const auto pa = jobs_[a]->req.priority(), pb = jobs_[b]->req.priority();
        return pa > pb || (pa == pb && a < b);
    };
    const auto best = std::min_element(pending_.begin(), pending_.end(), first);
    if (best == pending_.end() || (urgent_only && jobs_[*best]->req.priority() != v1::CRITICAL)) return nullptr;
    auto job = jobs_[*best];
    pending_.erase(best);
    return job;
}

void JobTable::start_loop(const Start& start, bool urgent_only) {
    for (;;) {
        std::shared_ptr<Job> job;
        {
            std::unique_lock<std::mutex> lk(mu_);
            cv_.wait(lk, [&] { return stopping_ || (job = take_next(urgent_only)) != nullptr; });
            if (stopping_) {
                if (job) pending_.push_back(job->id);  // stays queued (in the store) for the next start
                return;
            }
            job->started_at = steady_seconds();
        }
        try {
            start(job);  // outside the lock: a parameter set may take minutes to load
        } catch (const std::exception& e) {
            std::lock_guard<std::mutex> lk(mu_);
            finish_failed(*job, e.what());
            cv_.notify_all();
        }
    }
}

void JobTable::launch(const std::shared_ptr<Job>& job, std::shared_ptr<const engine::ProvingKey> key,
                      std::shared_ptr<const r1cs::PrecompiledR1cs> pce, engine::JobSpec spec) {
    std::lock_guard<std::mutex> lk(mu_);
    if (stopping_) return;                    // interrupted before it started: it stays queued for the next start
    if (job->state == v1::CANCELLED) return;  // cancelled while its parameters loaded
    job->key = std::move(key);
    job->pce = std::move(pce);
    job->eid = engine_->submit(std::move(spec));
    job->state = v1::RUNNING;  // in the engine (its own queue included)
    store_quietly("state", [&] { store_.set_state(job->id, "running"); });
    log_("job " + std::to_string(job->id) + " handed to the engine (" + job->key->backend()->name() +
         " backend); it starts when the engine reaches it");
}

// ---- ends -------------------------------------------------------------------------------------------------------

void JobTable::ended(Job& job, const engine::JobResult& res, v1::AwaitProofResponse out) {
    double proving_s = 0, synthesis_s = 0;
    if (res.timeline) {
        proving_s = res.timeline->total(TimingLayer::Pipeline, "proving");
        synthesis_s = res.timeline->total(TimingLayer::Pipeline, "synthesis");
    }
    const double total_s = steady_seconds() - job.accepted_at;
    out.set_queue_wait_ms(to_ms(job.started_at - job.accepted_at));
    out.set_srs_load_ms(to_ms(job.key_seconds));
    out.set_synthesis_ms(to_ms(synthesis_s));
    out.set_gpu_compute_ms(to_ms(proving_s));
    out.set_total_ms(to_ms(total_s));
    persist(job.id, out, serialized(job.req));  // Job::req is already without its bulk
    {
        std::ostringstream line;
        line << "job " << job.id << " " << state_text(out.state()) << ": wall " << res.wall_seconds << " s, proving "
             << proving_s << " s, synthesis " << synthesis_s << " s, " << res.proofs.size() << " proof(s), peak RSS "
             << mib(res.peak_rss_bytes) << " MiB";
        if (!res.error.empty()) line << "; " << res.error;
        for (const auto& f : res.fallbacks) line << "; fallback: " << f;
        log_(line.str());
    }
    std::lock_guard<std::mutex> lk(mu_);
    const bool done = res.state == engine::JobState::Done;
    // The engine still knows the job here (it forgets a job only after its on_end returned).
    job.proven_at_end = done ? job.plan.partitions : engine_ && job.eid ? engine_->proven(*job.eid) : 0;
    settle(job, std::move(out));
    if (job.eid) to_forget_.push_back(*job.eid);
    counted_.partitions_proven += done ? res.proofs.size() : 0;
    counted_.fallbacks += res.fallbacks.size();
    counted_.proving_s += proving_s;
    counted_.synthesis_s += synthesis_s;
    counted_.wall_s += res.wall_seconds;
    if (job.state == v1::DONE) counted_.done_seconds_by_kind[proof_kind_label(job.req.proof_kind())] += total_s;
    cv_.notify_all();
}

// A failed write (a full disk) keeps the result in memory (waiters get it), counts the failure, and queues the
// write again: the janitor retries it, and no new job is accepted until the store has taken every such result
// (issue 20 item 8: they were dropped, and a restart proved the jobs again).
void JobTable::persist(uint64_t id, const v1::AwaitProofResponse& out, const std::optional<std::string>& slim_request) {
    try {
        store_.finish(id, state_text(out.state()), serialized(out), unix_now(), slim_request);
    } catch (const std::exception& e) {
        {
            std::lock_guard<std::mutex> lk(unrecorded_mu_);
            unrecorded_.emplace_back(id, out);
            store_error_ = e.what();
            store_failures_++;
        }
        log_("job " + std::to_string(id) + ": its result was not written to the store (" + e.what() +
             "); retried, and new jobs are refused until it is written");
    }
}

// A write whose loss only costs a little (a state shown after a restart, an earlier purge): logged and counted,
// never an error for the job or its client.
void JobTable::store_quietly(const char* what, const std::function<void()>& write) {
    try {
        write();
    } catch (const std::exception& e) {
        {
            std::lock_guard<std::mutex> lk(unrecorded_mu_);
            store_failures_++;
        }
        log_(std::string("the job store did not take a ") + what + " update: " + e.what());
    }
}

bool JobTable::record_unrecorded() {
    std::lock_guard<std::mutex> lk(unrecorded_mu_);
    if (unrecorded_.empty()) return true;
    size_t written = 0;
    for (auto it = unrecorded_.begin(); it != unrecorded_.end();) {
        try {
            store_.finish(it->first, state_text(it->second.state()), serialized(it->second), unix_now());
            it = unrecorded_.erase(it);
            written++;
        } catch (const std::exception& e) {
            store_error_ = e.what();
            store_failures_++;
            ++it;
        }
    }
    if (written) log_("the job store takes writes again: " + std::to_string(written) + " result(s) recorded");
    if (unrecorded_.empty()) store_error_.clear();
    return unrecorded_.empty();
}

void JobTable::require_writable_store() {
    if (record_unrecorded()) return;
    std::lock_guard<std::mutex> lk(unrecorded_mu_);
    counted_.rejected++;
    throw DaemonError(ErrorCode::Unavailable, "the job store cannot write (" + store_error_ + "): " +
                                                  std::to_string(unrecorded_.size()) +
                                                  " finished result(s) wait to be recorded; new jobs are refused "
                                                  "until they are");
}

void JobTable::settle(Job& job, v1::AwaitProofResponse out) {
    job.state = out.state();
    out.set_status(await_status(job.state));
    job.result = std::move(out);
    job.ended_at = steady_seconds();
    job.key.reset();
    job.pce.reset();
    job.plan.witnesses.clear();
    job.plan.filecoin.reset();
    const std::string kind = proof_kind_label(job.req.proof_kind());
    if (job.state == v1::DONE) {
        counted_.ended_done++;
        counted_.done_by_kind[kind]++;
    } else if (job.state == v1::FAILED) {
        counted_.ended_failed++;
        counted_.failed_by_kind[kind]++;
    } else {
        counted_.ended_cancelled++;
    }
}

void JobTable::finish_failed(Job& job, const std::string& why, v1::JobState state) {
    v1::AwaitProofResponse out;
    out.set_job_id(std::to_string(job.id));
    out.set_state(state);
    out.set_status(await_status(state));
    out.set_error_message(why);
    out.set_total_ms(to_ms(steady_seconds() - job.accepted_at));
    persist(job.id, out, serialized(job.req));  // Job::req is already without its bulk
    settle(job, std::move(out));
}

void JobTable::janitor_loop() {
    std::unique_lock<std::mutex> lk(mu_);
    while (!stopping_) {
        cv_.wait_for(lk, kJanitorPeriod);
        if (stopping_) return;
        record_unrecorded();
        for (auto it = to_forget_.begin(); it != to_forget_.end();)
            it = engine_->forget(*it) ? to_forget_.erase(it) : it + 1;
        const double now = steady_seconds();
        std::set<uint64_t> unrecorded;  // their results live in memory only: kept until the store has them
        {
            std::lock_guard<std::mutex> ulk(unrecorded_mu_);
            for (const auto& u : unrecorded_) unrecorded.insert(u.first);
        }
        std::erase_if(jobs_, [&](const auto& e) {
            return e.second->result && now - e.second->ended_at > kEndedInMemorySeconds && !unrecorded.count(e.first);
        });
        const double t = unix_now();
        lk.unlock();
        try {
            store_.purge(t - kFetchedResultGraceSeconds, t - result_ttl_seconds_);
        } catch (const std::exception& e) {
            log_(std::string("old results were not purged from the store: ") + e.what());
        }
        lk.lock();
    }
}

// ---- waiting, cancelling, status --------------------------------------------------------------------------------

v1::AwaitProofResponse JobTable::stored_result(uint64_t id) {
    auto sj = store_.get(id);
    if (!sj) throw DaemonError(ErrorCode::NotFound, unknown_job(id) + " (or its result expired)");
    v1::AwaitProofResponse r;
    if (sj->result.empty())
        throw DaemonError(ErrorCode::FailedPrecondition, "job " + std::to_string(id) + " has no result yet");
    if (!r.ParseFromString(sj->result))
        throw DaemonError(ErrorCode::DataLoss, "job " + std::to_string(id) + ": its stored result cannot be read (" +
                                                   std::to_string(sj->result.size()) + " bytes); prove it again");
    store_quietly("fetch time", [&] { store_.mark_fetched(id, unix_now()); });
    return r;
}

v1::AwaitProofResponse JobTable::await(uint64_t id, double timeout_s, const std::function<bool()>& cancelled) {
    const auto t0 = Clock::now();
    std::unique_lock<std::mutex> lk(mu_);
    auto it = jobs_.find(id);
    if (it == jobs_.end()) {
        lk.unlock();
        return stored_result(id);
    }
    auto job = it->second;
    while (!job->result) {
        if (cancelled && cancelled()) throw DaemonError(ErrorCode::Cancelled, "the client went away");
        if (stopping_) throw DaemonError(ErrorCode::Unavailable, "the daemon is shutting down");
        if (timeout_s > 0 && std::chrono::duration<double>(Clock::now() - t0).count() >= timeout_s)
            throw DaemonError(ErrorCode::DeadlineExceeded, "job " + std::to_string(id) + " has not ended after " +
                                                               std::to_string(timeout_s) + " s");
        cv_.wait_for(lk, kAwaitPollPeriod);
    }
    v1::AwaitProofResponse r = *job->result;
    lk.unlock();
    try {
        store_quietly("fetch time", [&] { store_.mark_fetched(id, unix_now()); });
    } catch (const std::exception& e) {
        log_("job " + std::to_string(id) + ": not marked fetched in the store (" + e.what() +
             "); its result is kept until result_ttl_seconds");
    }
    return r;
}

bool JobTable::cancel(uint64_t id, bool* was_running) {
    if (was_running) *was_running = false;
    std::unique_lock<std::mutex> lk(mu_);
    auto it = jobs_.find(id);
    if (it == jobs_.end()) {
        lk.unlock();
        if (!store_.get(id)) throw DaemonError(ErrorCode::NotFound, unknown_job(id));
        return false;  // ended earlier
    }
    auto job = it->second;
    if (job->result) return false;
    // Still queued here, or being started (start() sees the state and does not submit it).
    if (const auto p = std::find(pending_.begin(), pending_.end(), id); p != pending_.end() || !job->eid) {
        if (p != pending_.end()) pending_.erase(p);
        finish_failed(*job, "cancelled by a client", v1::CANCELLED);
        cv_.notify_all();
        return true;
    }
    engine::Engine* engine = engine_.get();
    if (!engine) return false;  // stopped: the job stays queued in the store for the next start
    if (was_running) *was_running = true;
    const engine::JobId eid = *job->eid;
    // Outside the lock (on_end, through ended(), records the result, maybe on this thread), so stop() must not
    // destroy the engine meanwhile: it waits for the callers counted here.
    engine_callers_++;
    lk.unlock();
    struct Release {
        JobTable& t;
        ~Release() {
            std::lock_guard<std::mutex> g(t.mu_);
            if (--t.engine_callers_ == 0) t.cv_.notify_all();
        }
    } release{*this};
    if (before_engine_cancel_for_testing) before_engine_cancel_for_testing();
    return engine->cancel(eid);
}

v1::JobStatus JobTable::job_status(const Job& j) const {
    v1::JobStatus s;
    s.set_job_id(std::to_string(j.id));
    s.set_state(j.state);
    s.set_partitions((uint32_t)j.plan.partitions);
    s.set_priority(j.req.priority());
    s.set_circuit(j.plan.spec.name);
    s.set_proof_kind(proof_kind_label(j.req.proof_kind()));
    s.set_request_id(j.req.request_id());
    size_t proven = 0;
    if (j.result) {
        proven = j.proven_at_end;
    } else if (j.eid && engine_) {  // in the engine, which forgets a job only after it ended here
        proven = engine_->proven(*j.eid);
        s.set_state(from_engine(engine_->state(*j.eid)));
    }
    s.set_partitions_proven((uint32_t)proven);
    return s;
}

void JobTable::report(v1::GetStatusResponse& r, uint64_t id) const {
    std::lock_guard<std::mutex> lk(mu_);
    uint32_t queued = 0, running = 0;
    std::map<std::string, std::pair<uint32_t, uint32_t>> queues;  // kind: pending, in progress
    for (const char* k : {"porep-c2", "snap-update", "window-post", "winning-post"}) queues[k];
    const v1::JobStatus* current = nullptr;  // the running job of the highest priority (then the oldest)
    for (const auto& [jid, j] : jobs_) {
        if (j->result) continue;
        auto* s = r.add_jobs();
        *s = job_status(*j);
        auto& q = queues[s->proof_kind()];
        if (s->state() == v1::RUNNING) {
            running++;
            q.second++;
            if (!current || s->priority() > current->priority()) current = s;
        } else {
            queued++;
            q.first++;
        }
    }
    r.set_queued(queued);
    r.set_running(running);
    for (const auto& [kind, n] : queues) {
        auto* q = r.add_queues();
        q->set_proof_kind(kind);
        q->set_pending(n.first);
        q->set_in_progress(n.second);
    }
    r.set_total_proofs_completed(counted_.ended_done);
    r.set_total_proofs_failed(counted_.ended_failed);
    if (current)  // every GPU proves the partitions of the running jobs, the most urgent first
        for (auto& g : *r.mutable_gpus()) {
            g.set_current_job_id(current->job_id());
            g.set_current_proof_kind(current->proof_kind());
        }
    {
        std::lock_guard<std::mutex> ulk(unrecorded_mu_);
        r.set_store_error(store_error_);
        r.set_unrecorded_results((uint32_t)unrecorded_.size());
    }
    if (!id) return;
    if (auto it = jobs_.find(id); it != jobs_.end()) {
        *r.mutable_job() = job_status(*it->second);
        return;
    }
    auto sj = store_.get(id);
    if (!sj) throw DaemonError(ErrorCode::NotFound, unknown_job(id));
    v1::SubmitProofRequest req;
    if (!req.ParseFromString(sj->request)) log_("job " + std::to_string(id) + ": its stored request cannot be read");
    v1::AwaitProofResponse res;
    const bool has_result = !sj->result.empty() && res.ParseFromString(sj->result);
    const uint32_t partitions = has_result ? (uint32_t)res.proofs_size() : req.job().partitions();
    auto* s = r.mutable_job();
    s->set_job_id(std::to_string(id));
    s->set_state(state_from_text(sj->state));
    s->set_partitions(partitions);
    s->set_partitions_proven(sj->state == "done" ? partitions : 0);
    s->set_priority(req.priority());
    s->set_circuit(req.job().circuit());
    s->set_proof_kind(proof_kind_label(req.proof_kind()));
    s->set_request_id(req.request_id());
}

uint32_t JobTable::jobs_using(const fs::path& params_path) const {
    std::lock_guard<std::mutex> lk(mu_);
    return (uint32_t)std::count_if(jobs_.begin(), jobs_.end(),
                                   [&](const auto& e) { return !e.second->result && e.second->plan.params_path == params_path; });
}

JobCounters JobTable::counters() const {
    std::lock_guard<std::mutex> lk(mu_);
    JobCounters c = counted_;
    {
        std::lock_guard<std::mutex> ulk(unrecorded_mu_);
        c.store_failures = store_failures_;
        c.unrecorded_results = unrecorded_.size();
    }
    c.waiting = pending_.size();
    c.in_engine = (size_t)std::count_if(jobs_.begin(), jobs_.end(),
                                        [](const auto& e) { return !e.second->result && e.second->eid; });
    return c;
}

engine::Engine::Stats JobTable::engine_stats() const {
    std::lock_guard<std::mutex> lk(mu_);
    return engine_ ? engine_->stats() : engine::Engine::Stats{};
}

// ---- shutdown ---------------------------------------------------------------------------------------------------

bool JobTable::stop_accepting() {
    std::lock_guard<std::mutex> lk(mu_);
    if (stopping_ || !accepting_) return false;
    accepting_ = false;
    return true;
}

void JobTable::wait_until_all_ended() {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] {
        return drain_interrupted_ || std::all_of(jobs_.begin(), jobs_.end(),
                                                 [](const auto& e) { return e.second->result.has_value(); });
    });
}

void JobTable::interrupt_drain() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        drain_interrupted_ = true;
    }
    cv_.notify_all();
}

void JobTable::stop() {
    std::unique_ptr<engine::Engine> engine;
    {
        std::lock_guard<std::mutex> lk(mu_);
        accepting_ = false;
        stopping_ = true;
    }
    cv_.notify_all();
    if (starter_.joinable()) starter_.join();
    if (urgent_starter_.joinable()) urgent_starter_.join();
    if (janitor_.joinable()) janitor_.join();
    {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return engine_callers_ == 0; });  // a cancel() in the engine finishes first
        engine = std::move(engine_);
    }
    engine.reset();  // outside the lock: a job ending meanwhile calls ended()
}

}  // namespace cuzk::daemon
