#include "cuzk/engine/engine.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <future>
#include <map>
#include <optional>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

#include <unistd.h>

#include "cuzk/util/deallocator.hpp"
#include "cuzk/groth16/prover.hpp"
#include "cuzk/groth16/verifier.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "cuzk/util/random.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::engine {

namespace {
using Clock = std::chrono::steady_clock;
constexpr TimingLayer kLayer = TimingLayer::Pipeline;
// How often a waiting worker or prover looks at the job's cancel flag.
constexpr auto kPoll = std::chrono::milliseconds(20);
// JobSpec::first_upload_alone: the longest the other syntheses wait for the first partition's witness to go up (a
// 32 GiB PoRep partition's 4.2 GB take ~0.15 s on a free host).
constexpr auto kFirstUploadWait = std::chrono::seconds(2);

size_t assignment_bytes(const r1cs::ProvingAssignment& a) {
    return (a.inputs().capacity() + a.aux().capacity() + a.a().capacity() + a.b().capacity() + a.c().capacity()) *
           sizeof(Fr);
}
}  // namespace

const char* priority_name(Priority p) {
    switch (p) {
        case Priority::Low: return "low";
        case Priority::Normal: return "normal";
        case Priority::High: return "high";
        default: return "critical";
    }
}

const char* job_state_name(JobState s) {
    switch (s) {
        case JobState::Queued: return "queued";
        case JobState::Running: return "running";
        case JobState::Done: return "done";
        case JobState::Failed: return "failed";
        default: return "cancelled";
    }
}

// Scheduling (engine.hpp has the picture). Everything below mu: the job table, each running job's queue of
// synthesized partitions and its counters, the budget of partitions in memory. Synthesis and proving themselves run
// outside the lock.
struct Engine::Impl {
    struct Ready {
        size_t index;
        r1cs::ProvingAssignment asg;
        double synthesized_at;  // seconds since the sink's epoch
        size_t working = 0;     // the backend's working bytes reserved for it until a lane takes it
    };
    struct Lane;

    struct Job {
        JobId id = 0;
        uint64_t seq = 0;
        JobSpec spec;
        JobState state = JobState::Queued;
        JobResult result;
        Clock::time_point submitted, started;
        std::optional<Clock::time_point> deadline;
        std::atomic<bool> cancel{false};
        std::atomic<size_t> proven{0};  // partitions proven so far (progress)
        bool reported = false;          // ended and on_end has returned (await and forget wait for it)
        // The run, under mu.
        std::vector<std::pair<Lane*, Backend*>> provers;  // its backends and their lanes (a failed one leaves)
        size_t next = 0;                // next partition to synthesize
        std::vector<size_t> redo;       // partitions to synthesize again: their backend failed (before `next`)
        size_t taken = 0;               // partitions a lane has taken
        size_t awaiting = 0;            // of them, those whose proof has not begun (a lane helper's next one)
        size_t in_flight = 0;           // partitions being synthesized, waiting, or being proven
        std::deque<Ready> ready;        // synthesized, in index order
        bool halt = false;              // a partition failed: nothing more starts
        bool deadline_hit = false;
        bool finishing = false;         // finish() has been claimed
        std::string error;              // the first error
        // r, s per partition (wiped when the job ends; the prover's copies wipe themselves).
        std::vector<Fr> r, s;
        std::vector<groth16::Proof> proofs;
        std::optional<groth16::PreparedVerifyingKey> pvk;
        std::mutex fallback_mu;  // result.fallbacks; one fallback proof at a time
        // Set by submit: every backend holds the matrices of spec.pce (these handles, released when the job ends),
        // so the synthesis worker leaves the products to them.
        bool device_products = false;
        std::vector<std::shared_ptr<const void>> product_holds;
        // JobSpec::first_upload_alone: when the first partition was synthesized, and whether its witness is on the
        // device (or a proof ended). Under mu.
        Clock::time_point first_ready_at;
        bool first_sent = false;
    };

    // One proving thread per lane (ProverBackend::lane: a GPU, the CPU, or a backend of its own).
    struct Lane {
        std::thread thread;
    };

    EngineConfig cfg;
    std::shared_ptr<ProvingKeyStore> keys;
    mutable std::mutex mu;
    std::condition_variable work_cv, done_cv;
    std::map<JobId, std::shared_ptr<Job>> jobs;
    JobId next_id = 1;
    uint64_t next_seq = 0;
    bool stop = false;
    size_t synthesizing = 0, waiting = 0;  // partitions of all jobs being synthesized / synthesized and not taken
    size_t synthesizing_bytes = 0;         // the partition_bytes of those being synthesized
    size_t reserved_working = 0;           // the working bytes of those being synthesized or waiting
    size_t proving = 0;                    // partitions taken by a lane and not yet counted
    size_t active = 0;                     // jobs started and not finished
    Deallocator dealloc;
    std::vector<std::thread> workers;
    std::map<std::string, std::unique_ptr<Lane>> lanes;

    explicit Impl(const EngineConfig& c)
        : cfg(c), keys(c.key_store ? c.key_store : std::make_shared<ProvingKeyStore>(c.keys)) {
        if (cfg.synthesis_workers == 0) cfg.synthesis_workers = auto_synthesis_workers();
        if (cfg.lookahead == 0) cfg.lookahead = 1;
        if (cfg.synthesis_nice < 0 || cfg.synthesis_nice > 19)
            throw std::invalid_argument("engine: synthesis_nice must be in [0, 19], not " +
                                        std::to_string(cfg.synthesis_nice));
        if (cfg.synthesis_nice) {  // threads made lazily are made here, at this thread's priority
            (void)ThreadPool::global();
            (void)Deallocator::global();
        }
        for (size_t w = 0; w < cfg.synthesis_workers; w++)
            workers.emplace_back([this] {
                lower_thread_priority(cfg.synthesis_nice);
                synthesis_loop(false);
            });
        workers.emplace_back([this] { synthesis_loop(true); });
    }

    ~Impl() {
        {
            std::lock_guard<std::mutex> lk(mu);
            stop = true;
            for (auto& [id, j] : jobs) {
                if (j->state == JobState::Queued) {
                    j->state = JobState::Cancelled;
                    j->result.state = JobState::Cancelled;
                    j->reported = true;
                    wipe(*j);
                    release_key(*j);
                }
                j->cancel = true;
            }
        }
        work_cv.notify_all();
        done_cv.notify_all();
        for (auto& t : workers) t.join();
        for (auto& [key, lane] : lanes) lane->thread.join();
        // Jobs the shutdown stopped end here, without on_end (a daemon keeps them for its next start).
        std::lock_guard<std::mutex> lk(mu);
        for (auto& [id, j] : jobs) {
            if (j->reported) continue;
            for (auto& item : j->ready) discard(item.asg);
            j->ready.clear();
            j->result.state = j->state = JobState::Cancelled;
            j->reported = true;
            wipe(*j);
            release_key(*j);
        }
        done_cv.notify_all();
    }

    // The job with this id, under mu; std::out_of_range for an unknown one.
    const std::shared_ptr<Job>& known(JobId id) const {
        auto it = jobs.find(id);
        if (it == jobs.end()) throw std::out_of_range("engine: unknown job " + std::to_string(id));
        return it->second;
    }

    // a before b: higher priority, then submitted earlier.
    static bool before(const Job& a, const Job& b) {
        return a.spec.priority != b.spec.priority ? a.spec.priority > b.spec.priority : a.seq < b.seq;
    }

    // The deadline acts as a cancel request, checked where cancellation is. Under mu.
    static bool expired(Job& j) {
        if (j.deadline && !j.cancel && Clock::now() >= *j.deadline) {
            j.cancel = true;
            j.deadline_hit = true;
        }
        return j.cancel.load();
    }
    static bool stopped(Job& j) { return j.halt || expired(j); }

    // ---- synthesis --------------------------------------------------------------------------------------------
    // The next partition to synthesize, of the first job in (priority, age) order that has one, while the
    // partitions in memory before a prover takes them stay within workers + lookahead. The urgent worker takes
    // CRITICAL jobs' partitions only, whatever the others hold: a WinningPoSt does not wait for a PoRep
    // partition's synthesis to end (one partition more in memory at most). Under mu.
    Job* pick_synthesis(bool urgent) {
        if (!urgent && synthesizing + waiting >= cfg.synthesis_workers + cfg.lookahead) return nullptr;
        Job* best = nullptr;
        for (auto& [id, j] : jobs) {
            if (j->state != JobState::Queued && j->state != JobState::Running) continue;
            if (urgent && j->spec.priority != Priority::Critical) continue;
            if (j->finishing || (j->next >= j->spec.partitions && j->redo.empty()) || stopped(*j)) continue;
            if (first_still_alone(*j)) continue;
            if (!best || before(*j, *best)) best = j.get();
        }
        if (best && !urgent && !fits(*best)) return nullptr;
        return best;
    }

    // JobSpec::first_partition_alone: the job's first partition is being synthesized and nothing of it is ready
    // or taken yet; with JobSpec::first_upload_alone also until its backend has sent its witness to the device or a
    // proof has ended (kFirstUploadWait at most after it was synthesized: neither a backend nor a busy lane holds
    // the job up for longer). Under mu.
    static bool first_still_alone(const Job& j) {
        if (!j.spec.first_partition_alone || j.next == 0 || j.in_flight == 0) return false;
        if (j.taken == 0 && j.ready.empty()) return true;
        return j.spec.first_upload_alone && j.device_products && !j.first_sent && j.taken <= 1 && j.proven == 0 &&
               Clock::now() - j.first_ready_at < kFirstUploadWait;
    }

    // The memory budget (EngineConfig::memory_budget_bytes) has room for one more of the job's partitions, or
    // nothing is in flight. What is resident now is measured; what partitions in flight will still take is
    // reserved: the assignment of each one being synthesized, and the backend's working memory (its 0/1 splits,
    // staging) of each one no lane has taken yet. Under mu.
    bool fits(const Job& j) const {
        if (!cfg.memory_budget_bytes || !j.spec.partition_bytes) return true;
        if (synthesizing + waiting + proving == 0) return true;
        return current_rss_bytes() + synthesizing_bytes + reserved_working + j.spec.partition_bytes +
                   working_bytes(j) <=
               cfg.memory_budget_bytes;
    }

    // What one partition of the job takes on its backend beyond its assignment: the most any of its backends
    // says (ProverBackend::working_bytes).
    static size_t working_bytes(const Job& j) {
        size_t most = 0;
        for (const auto& [lane, backend] : j.provers) most = std::max(most, backend->working_bytes());
        return most;
    }

    void start(Job& j) {
        j.state = JobState::Running;
        j.started = Clock::now();
        if (j.spec.on_start) {
            try {
                j.spec.on_start();
            } catch (...) {
            }
        }
        if (active++ == 0) reset_peak_rss();
        TimingSink& sink = *j.result.timeline;
        sink.record({kLayer, "queued", -1, sink.seconds_since_epoch(j.submitted),
                     std::chrono::duration<double>(j.started - j.submitted).count()});
    }

    // Jobs stopped (a deadline, a cancel) with nothing in flight: no partition's end will end them. Under mu.
    std::vector<std::shared_ptr<Job>> idle_stopped() {
        std::vector<std::shared_ptr<Job>> out;
        for (auto& [id, j] : jobs) {
            if ((j->state == JobState::Queued || j->state == JobState::Running) && !j->finishing &&
                j->in_flight == j->ready.size() && stopped(*j))
                out.push_back(j);
        }
        return out;
    }

    void synthesis_loop(bool urgent) {
        std::unique_lock<std::mutex> lk(mu);
        for (;;) {
            Job* job = nullptr;
            // Engine::cancel and deadlines only set flags: poll them.
            while (!stop && !(job = pick_synthesis(urgent))) {
                if (auto idle = idle_stopped(); !idle.empty()) {
                    lk.unlock();
                    for (auto& j : idle) finish_if_over(j);
                    lk.lock();
                    continue;
                }
                work_cv.wait_for(lk, kPoll);
            }
            if (stop) return;
            std::shared_ptr<Job> hold = jobs.at(job->id);
            if (job->state == JobState::Queued) start(*job);
            size_t i;
            if (!job->redo.empty()) {
                i = job->redo.back();
                job->redo.pop_back();
            } else {
                i = job->next++;
            }
            job->in_flight++;
            synthesizing++;
            synthesizing_bytes += job->spec.partition_bytes;
            Ready item{i, {}, 0, working_bytes(*job)};
            reserved_working += item.working;
            lk.unlock();
            std::string error;
            try {
                ScopedTiming t(job->result.timeline.get(), kLayer, "synthesis", (int64_t)i);
                item.asg = job->spec.synthesize(i);
                if (item.asg.deferred_products() && !job->device_products) r1cs::complete_products(item.asg);
                if (i == 0 && job->spec.first_upload_alone) item.asg.on_sent = [this, job] { first_sent(*job); };
                item.synthesized_at = job->result.timeline->seconds_since_epoch(Clock::now());
            } catch (const std::exception& e) {
                error = "partition " + std::to_string(i) + ": synthesis: " + e.what();
            }
            lk.lock();
            synthesizing--;
            synthesizing_bytes -= job->spec.partition_bytes;
            if (!error.empty()) fail(*job, error);
            if (!error.empty() || stop || stopped(*job)) {
                job->in_flight--;
                reserved_working -= item.working;
                lk.unlock();
                discard(item.asg);
                finish_if_over(hold);
                lk.lock();
            } else {
                enqueue_ready(*job, std::move(item));
            }
            work_cv.notify_all();
        }
    }

    // ProvingAssignment::on_sent of a job's first partition: the other syntheses may start.
    void first_sent(Job& job) {
        {
            std::lock_guard<std::mutex> lk(mu);
            job.first_sent = true;
        }
        work_cv.notify_all();
    }

    // A synthesized partition into its job's queue, kept in index order, and counted as waiting. Under mu.
    void enqueue_ready(Job& job, Ready&& item) {
        const size_t i = item.index;
        if (i == 0) job.first_ready_at = Clock::now();
        auto at = std::find_if(job.ready.begin(), job.ready.end(), [i](const Ready& r) { return r.index > i; });
        job.ready.insert(at, std::move(item));
        waiting++;
    }

    // ---- proving ----------------------------------------------------------------------------------------------
    struct Taken {
        std::shared_ptr<Job> job;
        Backend* backend = nullptr;
        Ready item;
        std::unique_ptr<groth16::PreparedCircuit> ticket;
        std::string prepare_error;
        bool begun = false;  // prove() has started on it (no longer counted in Job::awaiting)
    };

    // What became of a taken partition: Proven (on its backend or the job's fallback); Deferred (proven into the
    // lane's group, finished later); Requeued (its backend failed and left the job, whose other backends take it);
    // Failed (with the error); Skipped (not proven: its job stopped first; a group's members only).
    enum class Outcome { Proven, Deferred, Requeued, Failed, Skipped };

    // A lane's open group (JobSpec::defer_ones): partitions of one job proven into one backend's DeferredGroup, whose
    // proofs are finished, verified and stored together once the lane moves on from the job (flush). They count as
    // in flight until then.
    struct Group {
        std::shared_ptr<Job> job;
        Backend* backend = nullptr;
        std::unique_ptr<groth16::DeferredGroup> group;
        std::vector<size_t> index;               // each member's partition, in the group's order
        std::vector<std::vector<Fr>> publics;    // each member's public inputs (verification)
    };

    // The lowest waiting partition of the first job in (priority, age) order with a backend in this lane (and a
    // priority above `above`, when given). Under mu.
    std::optional<Taken> pick_proving(Lane* lane, std::optional<Priority> above = std::nullopt) {
        Job* best = nullptr;
        Backend* backend = nullptr;
        for (auto& [id, j] : jobs) {
            if (j->state != JobState::Running || j->ready.empty() || j->finishing) continue;
            if (above && j->spec.priority <= *above) continue;
            for (auto& [l, b] : j->provers) {
                if (l == lane && (!best || before(*j, *best))) best = j.get(), backend = b;
            }
        }
        if (!best) return std::nullopt;
        std::optional<Taken> t(Taken{jobs.at(best->id), backend, std::move(best->ready.front()), nullptr, {}});
        best->ready.pop_front();
        best->taken++;
        best->awaiting++;
        waiting--;
        reserved_working -= t->item.working;
        proving++;
        work_cv.notify_all();  // room for another synthesis
        return t;
    }

    void lane_loop(Lane* lane) {
        std::optional<Taken> cur;
        std::optional<Group> open;
        for (;;) {
            if (!cur) {
                flush(open);  // the lane has nothing more of the group's job: its helper waited while it had
                std::unique_lock<std::mutex> lk(mu);
                while (!stop && !(cur = pick_proving(lane))) work_cv.wait_for(lk, kPoll);
                if (stop) {
                    lk.unlock();
                    if (cur) skip(*cur);
                    return;
                }
            }
            // Pipelining below the seam (ProverBackend::prepare): while this partition is proven, a helper thread
            // takes the lane's next partition as soon as one is waiting and, when it is for the same backend, lets
            // the backend move its data ahead (the GPU backend uploads a, b, c into a second set of device arrays).
            // The helper keeps waiting after this proof while this job has partitions to come, and stops then
            // otherwise. A partition taken so has started: a job of higher priority that comes meanwhile goes after
            // it.
            std::atomic<bool> done{false};
            const std::shared_ptr<Job> cur_job = cur->job;
            Backend* const cur_backend = cur->backend;
            auto helper = std::async(std::launch::async, [&, lane]() -> std::optional<Taken> {
                std::optional<Taken> n;
                {
                    std::unique_lock<std::mutex> lk(mu);
                    while (!stop && !(n = pick_proving(lane))) {
                        if (done && (stopped(*cur_job) || cur_job->taken >= cur_job->spec.partitions)) break;
                        work_cv.wait_for(lk, kPoll);
                    }
                }
                if (n && n->backend == cur_backend && n->job->spec.pipeline) {
                    try {
                        n->ticket = n->backend->prepare(n->item.asg, n->job->result.timeline.get(),
                                                        (int64_t)n->item.index);
                    } catch (const std::exception& e) {
                        n->prepare_error = e.what();  // a, b, c may be gone: the proof fails and falls back
                    }
                }
                return n;
            });
            prove(*cur, open);
            done = true;
            work_cv.notify_all();
            cur = helper.get();
            // A partition of a higher priority that came while the helper's was taken goes first (proven without
            // a ticket; the taken one keeps its own meanwhile).
            while (cur) {
                std::optional<Taken> urgent;
                {
                    std::lock_guard<std::mutex> lk(mu);
                    urgent = pick_proving(lane, cur->job->spec.priority);
                }
                if (!urgent) break;
                prove(*urgent, open);
            }
        }
    }

    // A taken partition that is not proven (its job stopped, or the engine): dropped and counted.
    void skip(Taken& t) {
        t.ticket.reset();
        discard(t.item.asg);
        {
            std::lock_guard<std::mutex> lk(mu);
            if (!t.begun) t.job->awaiting--;
            t.job->in_flight--;
            proving--;
        }
        work_cv.notify_all();
        finish_if_over(t.job);
    }

    // Proves one partition on its backend (verified, with the fallback), then counts it; or, for a job that defers
    // its ones to groups (JobSpec::defer_ones), into the lane's open group, which is flushed first when it belongs to
    // another job or backend (unless this partition is a CRITICAL one of a job without groups: it goes in between).
    void prove(Taken& t, std::optional<Group>& open) {
        Job& job = *t.job;
        bool go, left, last;
        {
            std::lock_guard<std::mutex> lk(mu);
            job.awaiting--;
            t.begun = true;
            go = !stop && !stopped(job);
            left = std::none_of(job.provers.begin(), job.provers.end(),
                                [&t](const std::pair<Lane*, Backend*>& p) { return p.second == t.backend; });
            // no partition of the job is left to take, now or after a synthesis, nor taken and waiting for its
            // proof (a lane helper may have taken the next one already: it is not this one's group's last)
            last = job.taken >= job.spec.partitions && job.redo.empty() && job.ready.empty() && job.awaiting == 0;
        }
        const bool wants_group = go && !left && job.spec.defer_ones && job.spec.partitions > 1;
        const bool other = open && (open->job != t.job || open->backend != t.backend);
        if (other && (wants_group || job.spec.priority != Priority::Critical)) flush(open);
        if (!go) return skip(t);
        if (left) return hand_back(t);
        if (wants_group && !open) {
            auto g = t.backend->defer_group();
            if (g) open = Group{t.job, t.backend, std::move(g), {}, {}};
        }
        std::string error;
        const Outcome out = prove_partition(t, error, wants_group && open ? &*open : nullptr, last);
        t.ticket.reset();
        discard(t.item.asg);  // what the prover left (witness, densities) goes to the background thread
        {
            std::lock_guard<std::mutex> lk(mu);
            job.first_sent = true;  // whatever the backend said: a proof has ended
            count(job, out, error);
            proving--;
        }
        work_cv.notify_all();
        finish_if_over(t.job);
    }

    // A partition's outcome in its job's counters; a Deferred one stays in flight (its group counts it). Under mu.
    void count(Job& job, Outcome out, const std::string& error) {
        if (out == Outcome::Deferred) return;
        if (out == Outcome::Proven) job.proven++;
        if (out == Outcome::Failed) fail(job, error);
        if (out == Outcome::Requeued) job.taken--;  // taken again once synthesized again
        job.in_flight--;
    }

    // Finishes the lane's open group, if any: its proofs made by the backend, each verified and stored; a finish that
    // fails, or a proof that does not verify, goes the way a failed partition goes (recover: the job's other
    // backends, else its fallback). A stopped job's members are dropped.
    void flush(std::optional<Group>& open) {
        if (!open) return;
        Group g = std::move(*open);
        open.reset();
        Job& job = *g.job;
        TimingSink& sink = *job.result.timeline;
        bool go;
        {
            std::lock_guard<std::mutex> lk(mu);
            go = !stop && !stopped(job);
        }
        std::vector<groth16::Proof> proofs;
        std::string failure;
        if (go) {
            try {
                ScopedTiming st(&sink, kLayer, "finish_group", -1);
                proofs = g.backend->finish_group(*g.group, &sink);
                if (proofs.size() != g.index.size())
                    throw std::logic_error("the backend finished " + std::to_string(proofs.size()) + " of " +
                                           std::to_string(g.index.size()) + " proofs");
            } catch (const std::exception& e) {
                failure = e.what();
            }
        }
        // The proofs verified side by side (~2.3 ms each on one thread).
        std::vector<char> valid(g.index.size(), 0);
        if (go && failure.empty())
            parallel_for(g.index.size(), [&](size_t lo, size_t hi) {
                for (size_t m = lo; m < hi; m++) valid[m] = verifies(job, proofs[m], g.publics[m], g.index[m]);
            }, g.index.size());
        for (size_t m = 0; m < g.index.size(); m++) {
            const size_t i = g.index[m];
            Outcome out = Outcome::Skipped;
            std::string error;
            if (go) {
                std::string what = failure.empty() ? std::string() : "finishing its group: " + failure;
                if (what.empty() && !valid[m]) what = "the proof did not verify";
                if (what.empty()) {
                    job.proofs[i] = proofs[m];
                    out = Outcome::Proven;
                } else {
                    out = recover(job, g.backend, i, what, error);
                }
            }
            std::lock_guard<std::mutex> lk(mu);
            count(job, out, error);
        }
        work_cv.notify_all();
        finish_if_over(g.job);
    }

    // A partition taken for a backend that has left the job since (it failed, requeue): not tried there, but back
    // in the job's queue for its other backends when its assignment is whole (nothing was prepared on the failed
    // backend, which may have consumed a, b, c), else synthesized again.
    void hand_back(Taken& t) {
        Job& job = *t.job;
        const bool whole = !t.ticket && t.prepare_error.empty();
        t.ticket.reset();
        {
            std::lock_guard<std::mutex> lk(mu);
            job.taken--;
            proving--;
            if (whole) {
                reserved_working += t.item.working;
                enqueue_ready(job, std::move(t.item));
            } else {
                job.redo.push_back(t.item.index);
                job.in_flight--;
            }
        }
        if (!whole) discard(t.item.asg);
        work_cv.notify_all();
        finish_if_over(t.job);
    }

    // A failed backend among several leaves the job, and its partition is synthesized again (the failed backend
    // consumed a, b, c) for the job's other backends. False when no other backend is left. Under mu.
    static bool requeue(Job& job, Backend* failed, size_t i) {
        const auto is_failed = [failed](const std::pair<Lane*, Backend*>& p) { return p.second == failed; };
        if (std::all_of(job.provers.begin(), job.provers.end(), is_failed)) return false;
        std::erase_if(job.provers, is_failed);
        job.redo.push_back(i);
        return true;
    }

    // A line of JobResult::fallbacks, also given to the job's on_fallback.
    static void report_fallback(Job& job, const std::string& line) {
        {
            std::lock_guard<std::mutex> lk(job.fallback_mu);
            job.result.fallbacks.push_back(line);
        }
        if (job.spec.on_fallback) {
            try {
                job.spec.on_fallback(line);
            } catch (...) {
            }
        }
    }

    // Why the fallback cannot run now within the memory budget, or empty: the host memory it says it needs beyond
    // the assignment (ProverBackend::working_bytes: a CPU prover that reads a key's points again, ~45 GB for a
    // 32 GiB PoRep set) must fit beside what is resident. A job then fails with that reason rather than the process
    // being killed for memory mid-proof (a streamed set's page-locked copy stays resident meanwhile).
    std::string fallback_short_of_memory(Backend& fallback) const {
        if (!cfg.memory_budget_bytes) return {};
        const size_t need = fallback.working_bytes(), resident = current_rss_bytes();
        if (resident + need <= cfg.memory_budget_bytes) return {};
        auto gib = [](size_t b) {  // one decimal: a budget short by less than a GiB is not "0 GiB"
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.1f GiB", (double)b / (double)(size_t{1} << 30));
            return std::string(buf);
        };
        return "it needs " + gib(need) + " of host memory beside the " + gib(resident) +
               " in use, over the budget of " + gib(cfg.memory_budget_bytes);
    }

    // Proven on its backend or on the job's fallback; Deferred: proven into the lane's group (`into`), finished
    // later; Requeued: its backend failed and the job's other backends take it (requeue); Failed, with the error,
    // otherwise.
    // `last`: no partition of the job is left to take or taken and waiting for its proof (the group may be finished
    // during this one's proof).
    Outcome prove_partition(Taken& t, std::string& error, Group* into, bool last) {
        Job& job = *t.job;
        TimingSink& sink = *job.result.timeline;
        const size_t i = t.item.index;
        const double now = sink.seconds_since_epoch(Clock::now());
        sink.record({kLayer, "handover", (int64_t)i, t.item.synthesized_at, now - t.item.synthesized_at});
        try {
            if (into) {
                {
                    ScopedTiming st(&sink, kLayer, "proving", (int64_t)i);
                    if (!t.ticket && !t.prepare_error.empty()) throw std::runtime_error("prepare: " + t.prepare_error);
                    t.backend->prove_deferred(std::move(t.ticket), t.item.asg, job.r[i], job.s[i], &sink, (int64_t)i,
                                              *into->group, last);
                }
                into->index.push_back(i);
                const auto p = publics_of(t.item.asg);
                into->publics.emplace_back(p.begin(), p.end());
                return Outcome::Deferred;
            }
            prove_on(job, *t.backend, i, t.item.asg, std::move(t.ticket), t.prepare_error, "proving");
            return Outcome::Proven;
        } catch (const std::exception& e) {
            return recover(job, t.backend, i, e.what(), error);
        }
    }

    // The public inputs of a proven assignment (the backend consumed a, b, c only): its inputs after input 0, the
    // constant one.
    static std::span<const Fr> publics_of(const r1cs::ProvingAssignment& asg) {
        const auto& in = asg.inputs();
        return in.empty() ? std::span<const Fr>() : std::span<const Fr>(in).subspan(1);
    }

    // Whether partition i's proof verifies against the job's key (true without one).
    static bool verifies(Job& job, const groth16::Proof& proof, std::span<const Fr> publics, size_t i) {
        if (!job.pvk) return true;
        ScopedTiming st(job.result.timeline.get(), kLayer, "verify", (int64_t)i);
        return groth16::verify_proof(*job.pvk, proof, publics);
    }

    // Proves partition i on `backend` (through its ticket when it has one), verifies the proof and stores it; throws
    // on a failure or a proof that does not verify.
    void prove_on(Job& job, Backend& backend, size_t i, r1cs::ProvingAssignment& asg,
                  std::unique_ptr<groth16::PreparedCircuit> ticket, const std::string& prepare_error,
                  const char* span) {
        TimingSink& sink = *job.result.timeline;
        groth16::Proof proof;
        {
            ScopedTiming st(&sink, kLayer, span, (int64_t)i);
            if (ticket) {
                proof = backend.prove_prepared(std::move(ticket), asg, job.r[i], job.s[i], &sink, (int64_t)i);
            } else {
                if (!prepare_error.empty()) throw std::runtime_error("prepare: " + prepare_error);
                // A one-circuit call numbers its spans' circuit 0: relabelled as partition i.
                TimingSink call;
                proof = backend
                            .prove(std::span<r1cs::ProvingAssignment>(&asg, 1), std::span<const Fr>(&job.r[i], 1),
                                   std::span<const Fr>(&job.s[i], 1), &call)
                            .at(0);
                sink.absorb(call, (int64_t)i);
            }
        }
        if (!verifies(job, proof, publics_of(asg), i)) throw std::runtime_error("the proof did not verify");
        job.proofs[i] = proof;  // each partition's own slot: no lock
    }

    // Partition i failed on `backend` (`cause` says how): Requeued when the job's other backends take it (the failed
    // one leaves the job), else proven again on the job's fallback (synthesized again: the failed backend consumed
    // a, b, c) when it has one and its memory fits, else Failed with the error.
    Outcome recover(Job& job, Backend* backend, size_t i, const std::string& cause, std::string& error) {
        const std::string what =
            "partition " + std::to_string(i) + ": proving (" + backend->name() + " backend): " + cause;
        const JobSpec& spec = job.spec;
        TimingSink& sink = *job.result.timeline;
        bool requeued;
        {
            std::lock_guard<std::mutex> lk(mu);
            requeued = requeue(job, backend, i);
        }
        if (requeued) {
            report_fallback(job, what + "; proven again on the job's other backends (the " + backend->name() +
                                     " backend left the job)");
            return Outcome::Requeued;
        }
        if (!spec.fallback) {
            error = what;
            return Outcome::Failed;
        }
        if (const std::string short_of = fallback_short_of_memory(*spec.fallback); !short_of.empty()) {
            error = what + "; not proven again on the " + spec.fallback->name() + " backend: " + short_of;
            return Outcome::Failed;
        }
        // Only on this rare path, rather than keeping a copy of every assignment.
        report_fallback(job, what + "; proven again on the " + spec.fallback->name() + " backend");
        try {
            r1cs::ProvingAssignment again;
            {
                ScopedTiming st(&sink, kLayer, "synthesis.fallback", (int64_t)i);
                again = spec.synthesize(i);
            }
            std::lock_guard<std::mutex> lk(job.fallback_mu);  // one fallback proof at a time
            prove_on(job, *spec.fallback, i, again, nullptr, {}, "proving.fallback");
            discard(again);
            return Outcome::Proven;
        } catch (const std::exception& e2) {
            error = what + "; the " + spec.fallback->name() + " backend failed too: " + e2.what();
            return Outcome::Failed;
        }
    }

    // ---- ends -------------------------------------------------------------------------------------------------
    // The first error stops the job: nothing more of it starts. Under mu.
    static void fail(Job& j, const std::string& what) {
        if (j.error.empty()) j.error = what;
        j.halt = true;
    }

    // Ends the job when nothing of it is in flight and it is complete or stopped (a stopped job's waiting
    // partitions are dropped first). The thread that ends it reports it.
    void finish_if_over(const std::shared_ptr<Job>& hold) {
        Job& j = *hold;
        std::deque<Ready> dropped;
        {
            std::lock_guard<std::mutex> lk(mu);
            if (j.finishing || stop || (j.state != JobState::Running && j.state != JobState::Queued)) return;
            const bool stopping = stopped(j);
            if (stopping && !j.ready.empty()) {
                waiting -= j.ready.size();
                j.in_flight -= j.ready.size();
                for (const Ready& r : j.ready) reserved_working -= r.working;
                dropped.swap(j.ready);
            }
            if (j.in_flight != 0 || !(stopping || j.proven == j.spec.partitions)) {
                if (!dropped.empty()) work_cv.notify_all();
                return;
            }
            j.finishing = true;
        }
        for (auto& item : dropped) discard(item.asg);
        work_cv.notify_all();
        finish(j);
    }

    void finish(Job& j) {
        const JobSpec& spec = j.spec;
        const bool started = j.state == JobState::Running;
        const auto now = Clock::now();
        if (started) {
            TimingSink& sink = *j.result.timeline;
            const double dur = std::chrono::duration<double>(now - j.started).count();
            sink.record({kLayer, "job", -1, sink.seconds_since_epoch(j.started), dur});
            j.result.wall_seconds = dur;
        }
        j.result.peak_rss_bytes = peak_rss_bytes();
        if (!j.error.empty()) {
            j.result.state = JobState::Failed;
            j.result.error = j.error;
        } else if (j.proven < spec.partitions) {
            j.result.state = JobState::Cancelled;
            if (j.deadline_hit) j.result.error = "deadline of " + std::to_string(*spec.deadline_seconds) + " s passed";
        } else {
            j.result.state = JobState::Done;
            j.result.proofs = std::move(j.proofs);
        }
        wipe(j);
        {
            std::lock_guard<std::mutex> lk(mu);
            j.state = j.result.state;
            if (started) active--;
        }
        report(j);
        done_cv.notify_all();
    }

    static void wipe(Job& j) {
        secure_wipe(j.r.data(), j.r.size() * sizeof(Fr));
        secure_wipe(j.s.data(), j.s.size() * sizeof(Fr));
    }

    // The job's on_end, outside the lock (an exception from it is swallowed: it must not take the engine down),
    // then the job counts as reported.
    void report(Job& job) {
        // The holds on device matrices end here, outside the lock (freeing device memory waits for the device) and
        // before the job can be forgotten: a backend knows matrices by their host object, which the job's spec may
        // own, so none may outlive the hold on its device copy.
        job.product_holds.clear();
        if (job.spec.on_end) {
            try {
                job.spec.on_end(job.id, job.result);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "engine: job %llu: its end callback failed: %s\n", (unsigned long long)job.id,
                             e.what());
            } catch (...) {
                std::fprintf(stderr, "engine: job %llu: its end callback failed\n", (unsigned long long)job.id);
            }
        }
        std::lock_guard<std::mutex> lk(mu);
        job.reported = true;
        release_key(job);
    }
    // An ended job lets its key go (the store may evict it now). Under mu.
    static void release_key(Job& job) {
        job.spec.backend = job.spec.fallback = nullptr;
        job.spec.backends.clear();
        job.provers.clear();
        job.spec.key.reset();
    }
    static bool ended(const Job& job) {
        return job.reported &&
               (job.state == JobState::Done || job.state == JobState::Failed || job.state == JobState::Cancelled);
    }

    // Hands an assignment's buffers to the background deallocator.
    void discard(r1cs::ProvingAssignment& asg) {
        const size_t bytes = assignment_bytes(asg);
        dealloc.defer_object(std::make_unique<r1cs::ProvingAssignment>(std::move(asg)), bytes);
    }

    // The lane of a backend (made with its proving thread on first use). Under mu.
    Lane* lane_of(Backend* b) {
        std::string key = b->lane();
        if (key.empty()) key = "backend@" + std::to_string(reinterpret_cast<uintptr_t>(b));
        auto& l = lanes[key];
        if (!l) {
            l = std::make_unique<Lane>();
            Lane* raw = l.get();
            l->thread = std::thread([this, raw] { lane_loop(raw); });
        }
        return l.get();
    }
};

Engine::Engine(const EngineConfig& cfg) : impl_(std::make_unique<Impl>(cfg)) {}
Engine::~Engine() = default;

ProvingKeyStore& Engine::keys() { return *impl_->keys; }

namespace {
// Deadlines beyond a century are the same as none, and stay far from the clock's range (~292 years of nanoseconds
// from its epoch; a larger one overflowed into the past and cancelled the job at once).
constexpr double kMaxDeadline = 100.0 * 365 * 24 * 3600;
}  // namespace

namespace {
// What one partition of compiled matrices keeps in host memory until it is proven: its witness, plus a, b, c when
// they are made on the CPU.
size_t products_partition_bytes(const r1cs::PrecompiledR1cs& pce, bool on_device) {
    const size_t witness = (pce.num_inputs + pce.num_aux) * sizeof(Fr);
    return on_device ? witness : witness + 3 * pce.num_constraints * sizeof(Fr);
}
}  // namespace

JobId Engine::submit(JobSpec spec) {
    if (spec.partitions == 0) throw std::invalid_argument("engine: a job needs at least one partition");
    if (spec.deadline_seconds && !(std::isfinite(*spec.deadline_seconds) && *spec.deadline_seconds >= 0))
        throw std::invalid_argument("engine: a deadline must be a finite number of seconds >= 0");
    if (!spec.synthesize) throw std::invalid_argument("engine: a job needs a synthesize function");
    if (spec.key && !spec.backend && spec.backends.empty()) {
        spec.backends = spec.key->backends();
        if (!spec.fallback) spec.fallback = spec.key->fallback();
    }
    if (spec.key && spec.partition_bytes == 0) spec.partition_bytes = spec.key->partition_bytes();
    if (!spec.backend && spec.backends.empty()) throw std::invalid_argument("engine: a job needs a key or a backend");
    for (Backend* b : spec.backends)
        if (!b) throw std::invalid_argument("engine: a null backend in JobSpec::backends");
    if (!spec.backend) spec.backend = spec.backends.front();
    auto job = std::make_shared<Impl::Job>();
    if (spec.pce) {
        std::vector<Backend*> all = spec.backends;
        if (all.empty()) all.push_back(spec.backend);
        if (impl_->cfg.device_products) job->product_holds = groth16::hold_products_on(all, *spec.pce);
        job->device_products = !job->product_holds.empty();
        if (spec.partition_bytes == 0) spec.partition_bytes = products_partition_bytes(*spec.pce, job->device_products);
    }
    job->spec = std::move(spec);
    job->result.timeline = std::make_shared<TimingSink>();
    job->submitted = Clock::now();  // after the sink's epoch: the "queued" span never starts before it
    Impl::Job& j = *job;
    const size_t P = j.spec.partitions;
    if (j.spec.deadline_seconds)
        j.deadline = j.submitted + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(std::min(*j.spec.deadline_seconds, kMaxDeadline)));
    // r, s per partition, drawn now (in partition order from the seed, when one is given).
    j.r.resize(P);
    j.s.resize(P);
    if (j.spec.randomness_seed) {
        std::mt19937_64 rng(*j.spec.randomness_seed);
        for (size_t i = 0; i < P; i++) j.r[i] = Fr::random(rng), j.s[i] = Fr::random(rng);
    } else {
        OsRng rng;
        for (size_t i = 0; i < P; i++) j.r[i] = Fr::random(rng), j.s[i] = Fr::random(rng);
    }
    j.proofs.resize(P);
    if (j.spec.verify_key) j.pvk = groth16::prepare_verifying_key(*j.spec.verify_key);
    std::vector<Backend*> provers = j.spec.backends;
    if (provers.empty()) provers.push_back(j.spec.backend);
    JobId id;
    {
        std::lock_guard<std::mutex> lk(impl_->mu);
        if (impl_->stop) {
            Impl::wipe(j);
            throw std::logic_error("engine: shutting down");
        }
        for (Backend* b : provers) j.provers.emplace_back(impl_->lane_of(b), b);
        id = impl_->next_id++;
        job->id = id;
        job->seq = impl_->next_seq++;
        impl_->jobs[id] = job;
    }
    impl_->work_cv.notify_all();
    return id;
}

JobResult Engine::await(JobId id) {
    std::unique_lock<std::mutex> lk(impl_->mu);
    const auto job = impl_->known(id);  // a reference of our own: forget() may drop the map's once it ended
    impl_->done_cv.wait(lk, [&] { return Impl::ended(*job); });
    return job->result;
}

bool Engine::cancel(JobId id) {
    std::shared_ptr<Impl::Job> job;
    bool running = false;
    {
        std::lock_guard<std::mutex> lk(impl_->mu);
        auto it = impl_->jobs.find(id);
        if (it == impl_->jobs.end()) return false;
        job = it->second;
        if (job->state == JobState::Running) {
            job->cancel = true;
            running = true;
        } else if (job->state == JobState::Queued) {
            job->state = JobState::Cancelled;
            job->result.state = JobState::Cancelled;
            Impl::wipe(*job);
        } else {
            return false;
        }
    }
    if (running) {
        // Stops before its next partition; ends now when nothing of it is in flight.
        impl_->finish_if_over(job);
        return true;
    }
    impl_->report(*job);
    impl_->done_cv.notify_all();
    return true;
}

size_t Engine::proven(JobId id) const {
    std::lock_guard<std::mutex> lk(impl_->mu);
    return impl_->known(id)->proven;
}

bool Engine::forget(JobId id) {
    std::lock_guard<std::mutex> lk(impl_->mu);
    auto it = impl_->jobs.find(id);
    if (it == impl_->jobs.end()) return false;
    if (!Impl::ended(*it->second)) return false;
    impl_->jobs.erase(it);
    return true;
}

JobState Engine::state(JobId id) const {
    std::lock_guard<std::mutex> lk(impl_->mu);
    return impl_->known(id)->state;
}

Engine::Stats Engine::stats() const {
    Stats st;
    {
        std::lock_guard<std::mutex> lk(impl_->mu);
        for (auto& [id, j] : impl_->jobs) {
            switch (j->state) {
                case JobState::Queued: st.queued++; break;
                case JobState::Running: st.running++; break;
                case JobState::Done: st.done++; break;
                case JobState::Failed: st.failed++; break;
                default: st.cancelled++; break;
            }
        }
    }
    const auto d = impl_->dealloc.stats();
    st.freed_buffers = d.buffers;
    st.freed_bytes = d.bytes;
    st.pending_frees = d.pending;
    st.free_seconds = d.free_seconds;
    return st;
}

namespace {
// A "Key:   N kB" line of /proc/self/status, in bytes.
size_t proc_status_bytes(const char* key) {
    std::ifstream f("/proc/self/status");
    std::string line;
    const size_t n = std::char_traits<char>::length(key);
    while (std::getline(f, line)) {
        if (line.compare(0, n, key) == 0) return (size_t)std::stoull(line.substr(n)) * 1024;
    }
    return 0;
}
}  // namespace

size_t peak_rss_bytes() { return proc_status_bytes("VmHWM:"); }

size_t auto_synthesis_workers() {
    return std::clamp<size_t>(std::thread::hardware_concurrency() / 8, 1, 8);
}

size_t auto_memory_budget() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0) return size_t(1) << 30;
    const size_t total = (size_t)pages * (size_t)page;
    const size_t margin = std::max(size_t(4) << 30, total / 8);
    return total > margin ? total - margin : total / 2;
}
size_t current_rss_bytes() { return proc_status_bytes("VmRSS:"); }

void reset_peak_rss() {
    std::ofstream f("/proc/self/clear_refs");
    if (f) f << "5";
}

}  // namespace cuzk::engine
