#include "cuzk/daemon/daemon.hpp"

#include <grpcpp/grpcpp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <condition_variable>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "cuzk.grpc.pb.h"
#include "cuzk/circuits/catalog.hpp"
#include "cuzk/daemon/job_store.hpp"
#include "cuzk/daemon/metrics_http.hpp"
#include "cuzk/daemon/requests.hpp"
#include "cuzk/daemon/service.hpp"
#include "cuzk/engine/engine.hpp"
#include "cuzk/engine/key_store.hpp"
#include "cuzk/formats/iden3.hpp"
#include "cuzk/formats/iden3_circom.hpp"
#include "cuzk/formats/proof_io.hpp"
#include "cuzk/formats/snarkjs_json.hpp"
#include "cuzk/groth16/backend.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "cuzk/util/random.hpp"
#include "cuzk/util/thread_pool.hpp"

#ifdef CUZK_HAVE_CUDA
#include "cuzk/backends/cuda/prover_gpu.hpp"
#include "cuzk/backends/cuda/subgroup_checks.hpp"
#include "cuzk/gpu/device.hpp"
#endif

namespace cuzk::daemon {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// Seconds on the steady clock (for ages of ended jobs in memory).
double steady_seconds() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

double unix_now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

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

v1::JobState from_engine(engine::JobState s) {
    switch (s) {
        case engine::JobState::Queued: return v1::QUEUED;
        case engine::JobState::Running: return v1::RUNNING;
        case engine::JobState::Done: return v1::DONE;
        case engine::JobState::Failed: return v1::FAILED;
        default: return v1::CANCELLED;
    }
}

engine::Priority to_engine(v1::Priority p) {
    switch (p) {
        case v1::LOW: return engine::Priority::Low;
        case v1::HIGH: return engine::Priority::High;
        case v1::CRITICAL: return engine::Priority::Critical;
        default: return engine::Priority::Normal;
    }
}

size_t current_rss_bytes() {
    std::ifstream f("/proc/self/statm");
    size_t pages_total = 0, pages_resident = 0;
    if (!(f >> pages_total >> pages_resident)) return 0;
    return pages_resident * (size_t)sysconf(_SC_PAGESIZE);
}

}  // namespace

std::string grpc_target(const std::string& s) {
    if (s.rfind("unix:", 0) == 0) return s;
    if (!s.empty() && (s[0] == '/' || s[0] == '.')) return "unix:" + fs::absolute(s).string();
    if (s.find(':') == std::string::npos) return "unix:" + fs::absolute(s).string();
    return s;
}

#ifdef CUZK_HAVE_CUDA
namespace {

// Each GPU's budget for resident keys: its memory less what one proof needs beside them (its H arrays and MSM
// scratch; a 2^27 partition's MSM scratch alone is ~20 GB), max(16 GiB, 1/4 of the device).
std::map<std::string, size_t> device_key_budgets() {
    std::map<std::string, size_t> b;
    const auto devs = gpu::devices();
    for (size_t i = 0; i < devs.size(); i++) {
        const size_t total = devs[i].total_memory, reserve = std::max<size_t>(size_t{16} << 30, total / 4);
        b["cuda:" + std::to_string(i)] = total > reserve ? total - reserve : 0;
    }
    return b;
}

// What a key's copy will take on every GPU before it is made: its host size (the device keeps the same affine
// points).
std::map<std::string, size_t> device_key_bytes(size_t host_bytes) {
    std::map<std::string, size_t> b;
    for (size_t i = 0; i < gpu::devices().size(); i++) b["cuda:" + std::to_string(i)] = host_bytes;
    return b;
}

// One copy of the parameters per GPU, each with its backend.
std::vector<engine::DeviceCopy> device_copies(const groth16::Parameters& p, const gpu::GpuProverConfig& gc) {
    std::vector<engine::DeviceCopy> v;
    for (auto& b : gpu::gpu_backends(p, 0, gc)) {
        engine::DeviceCopy d{b->lane(), b->resident_bytes(), nullptr};
        d.backend = std::move(b);
        v.push_back(std::move(d));
    }
    return v;
}
}  // namespace
#endif

// ---- the daemon's state -----------------------------------------------------------------------------------------

struct Job {
    uint64_t id = 0;
    v1::ProofRequest req;  // as normalized by submit (partitions, priority, seed filled in)
    circuits::CircuitSpec spec;
    size_t partitions = 1;
    fs::path params_path, pce_path;
    bool circom = false;
    std::vector<formats::iden3::Witness> witnesses;  // circom jobs, one per partition
    v1::JobState state = v1::QUEUED;
    std::optional<engine::JobId> eid;
    std::shared_ptr<const engine::ProvingKey> key;  // while queued or running: never evicted meanwhile
    std::shared_ptr<const r1cs::PrecompiledR1cs> pce;
    std::mutex pub_mu;
    std::vector<std::vector<Fr>> publics;
    std::optional<v1::ProofResult> result;
    double ended_at = 0;  // steady seconds; ended jobs leave memory a while later (the store keeps them)
};

struct Daemon::Impl {
    DaemonConfig cfg;
    size_t budget = 0;
    JobStore store;
    engine::ProvingKeyStore keys;  // parameter sets, their GPU copies and compiled matrices, under the budgets
    std::unique_ptr<engine::Engine> eng;

    mutable std::mutex mu;
    std::condition_variable cv;         // job state changes, pending jobs, shutdown
    std::map<uint64_t, std::shared_ptr<Job>> jobs;  // queued, running, and recently ended
    std::vector<uint64_t> pending;      // accepted, not yet in the engine
    bool accepting = true, stopping = false, shutdown_requested = false, shut = false;
    std::vector<engine::JobId> to_forget;

    // counters for the metrics
    uint64_t submitted = 0, rejected = 0, ended_done = 0, ended_failed = 0, ended_cancelled = 0;
    uint64_t partitions_proven = 0, fallbacks = 0;
    double proving_s = 0, synthesis_s = 0, wall_s = 0;

    std::thread starter, janitor;
    std::unique_ptr<grpc::Server> server;
    std::unique_ptr<grpc::Service> service;
    std::unique_ptr<MetricsHttpServer> metrics_http;
    int tcp_port = 0;

    // One line per event on stderr (cfg.log), with the time.
    void log(const std::string& line) const {
        if (!cfg.log) return;
        const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
        char ts[32];
        std::strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
        std::fprintf(stderr, "%s cuzk daemon: %s\n", ts, line.c_str());
    }

    // The key store: the subgroup checks of a load on the first GPU and one resident copy per GPU (one proving
    // lane each, each GPU's copies under its device budget) unless the daemon proves on the CPU.
    static engine::KeyStoreConfig key_store_config(const DaemonConfig& c, size_t budget) {
        engine::KeyStoreConfig kc;
        kc.budget_bytes = budget;
        kc.check_subgroup = c.check_params;
        kc.cpu_fallback = c.cpu_fallback;
#ifdef CUZK_HAVE_CUDA
        if (c.backend != "cpu") {
            if (c.check_params) kc.device_checks = backends::gpu_subgroup_checks();
            kc.device_budget_bytes = device_key_budgets();
            kc.device_bytes = [](const groth16::Parameters& p) {
                return device_key_bytes(engine::ProvingKeyStore::resident_bytes(p));
            };
            kc.make_device_copies = [pin = c.pin_params](const groth16::Parameters& p) {
                gpu::GpuProverConfig gc;
                gc.pin_host_params = pin;  // locked while the key is loaded (the backends live with it)
                return device_copies(p, gc);
            };
        }
#endif
        if (c.backend == "gpu" && !kc.make_device_copies)
            throw std::runtime_error("backend gpu: built without CUDA");
        return kc;
    }

    explicit Impl(const DaemonConfig& c)
        : cfg(c),
          budget(c.total_budget ? c.total_budget : engine::auto_memory_budget()),
          store(prepare_state_dir(c)),
          keys(key_store_config(c, budget)) {
        if (cfg.synthesis_workers == 0) cfg.synthesis_workers = engine::auto_synthesis_workers();
        engine::EngineConfig ec;
        ec.synthesis_workers = cfg.synthesis_workers;
        ec.lookahead = cfg.lookahead;
        ec.memory_budget_bytes = budget;
        eng = std::make_unique<engine::Engine>(ec);
        resume();
        starter = std::thread([this] { start_loop(); });
        janitor = std::thread([this] { janitor_loop(); });
    }

    static fs::path prepare_state_dir(const DaemonConfig& c) {
        std::error_code ec;
        fs::create_directories(c.state_dir, ec);
        if (ec) throw std::runtime_error("daemon: cannot create the state directory " + c.state_dir.string() + ": " +
                                         ec.message());
        return c.database();
    }

    // ---- requests ----------------------------------------------------------------------------------------------

    // Checks and completes a request (requests.hpp) and admits it: its parameter file plus what it keeps in flight
    // must fit the memory budget; throws DaemonError.
    void normalize(v1::ProofRequest& r, Job& job) const {
        JobPlan plan = plan_request(r, cfg);
        if (plan.params_bytes + plan.in_flight_bytes > budget)
            throw DaemonError(ErrorCode::ResourceExhausted,
                              "the job needs about " + std::to_string((plan.params_bytes + plan.in_flight_bytes) >> 20) +
                                  " MiB (parameters " + std::to_string(plan.params_bytes >> 20) +
                                  " MiB, partitions in flight " + std::to_string(plan.in_flight_bytes >> 20) +
                                  " MiB); the memory budget is " + std::to_string(budget >> 20) + " MiB");
        job.spec = std::move(plan.spec);
        job.partitions = plan.partitions;
        job.params_path = std::move(plan.params_path);
        job.pce_path = std::move(plan.pce_path);
        job.circom = plan.circom;
        job.witnesses = std::move(plan.witnesses);
        job.req = r;
        job.req.clear_witnesses();  // parsed into the plan; the raw bytes go to the store only (issue 19 item 6)
    }

    uint64_t submit(const v1::ProofRequest& request) {
        {
            std::lock_guard<std::mutex> lk(mu);
            if (!accepting) throw DaemonError(ErrorCode::Unavailable, "the daemon is shutting down");
        }
        auto job = std::make_shared<Job>();
        v1::ProofRequest r = request;
        try {
            normalize(r, *job);
        } catch (const std::exception& e) {
            log(std::string("request refused: ") + e.what());
            std::lock_guard<std::mutex> lk(mu);
            rejected++;
            throw;
        }
        std::lock_guard<std::mutex> lk(mu);
        if (!accepting) throw DaemonError(ErrorCode::Unavailable, "the daemon is shutting down");
        size_t open = 0;
        for (const auto& [id, j] : jobs)
            if (j->state == v1::QUEUED || j->state == v1::RUNNING) open++;
        if (open >= cfg.max_queued) {
            rejected++;
            throw DaemonError(ErrorCode::ResourceExhausted,
                              std::to_string(open) + " jobs are waiting or running (jobs.max_queued)");
        }
        std::string bytes;
        r.SerializeToString(&bytes);
        job->id = store.insert(bytes, (int)r.priority(), unix_now());  // durable before the id is returned
        jobs[job->id] = job;
        pending.push_back(job->id);
        submitted++;
        cv.notify_all();
        log("job " + std::to_string(job->id) + " accepted: " + r.circuit() + ", " + std::to_string(r.partitions()) +
            " partition(s), priority " + v1::Priority_Name(r.priority()) + ", params " + r.params());
        return job->id;
    }

    // Jobs accepted by an earlier run that had not ended: queued again under their ids.
    void resume() {
        for (const StoredJob& sj : store.unfinished()) {
            auto job = std::make_shared<Job>();
            job->id = sj.id;
            v1::ProofRequest r;
            std::string why;
            if (!r.ParseFromString(sj.request)) {
                why = "its stored request cannot be read";
            } else {
                try {
                    normalize(r, *job);  // the files may have gone since
                } catch (const std::exception& e) {
                    why = e.what();
                }
            }
            jobs[job->id] = job;
            if (!why.empty()) {
                finish_failed(*job, "resumed after a restart, but " + why);
                continue;
            }
            store.set_state(job->id, "queued");
            pending.push_back(job->id);
        }
    }

    // ---- starting jobs ----------------------------------------------------------------------------------------

    // The job's key, loaded now or shared; proving on a GPU when the daemon's backend asks for one.
    std::shared_ptr<const engine::ProvingKey> proving_key(const fs::path& path) {
        auto key = keys.get(path);
        if (key->without_devices) {
            const std::string why = path.filename().string() + " does not fit on the GPUs next to the parameter sets "
                                    "that running jobs hold";
            if (cfg.backend == "gpu") throw std::runtime_error("backend gpu: " + why);
            log(why + ": proving on the CPU until it fits");
        } else if (cfg.backend == "gpu" && key->devices.empty()) {
            throw std::runtime_error("backend gpu: no CUDA device (or built without CUDA)");
        }
        return key;
    }

    void start_loop() {
        for (;;) {
            std::shared_ptr<Job> job;
            {
                std::unique_lock<std::mutex> lk(mu);
                cv.wait(lk, [&] { return stopping || !pending.empty(); });
                if (stopping) return;
                // highest priority first, then the oldest
                auto best = pending.begin();
                for (auto it = pending.begin(); it != pending.end(); ++it) {
                    const auto& a = jobs[*it]->req;
                    const auto& b = jobs[*best]->req;
                    if (a.priority() > b.priority() || (a.priority() == b.priority() && *it < *best)) best = it;
                }
                job = jobs[*best];
                pending.erase(best);
            }
            try {
                start(job);
            } catch (const std::exception& e) {
                std::lock_guard<std::mutex> lk(mu);
                finish_failed(*job, e.what());
                cv.notify_all();
            }
        }
    }

    // pce = "auto": the circuit's PCE from [paths] circuits/<shape>.pce when it is there and sound, else compiled
    // now and written there for the next start (a write failure is only logged).
    r1cs::PrecompiledR1cs auto_pce(const circuits::CircuitSpec& spec, const std::string& shape) {
        std::string file;
        for (char ch : shape) file += std::isalnum((unsigned char)ch) || ch == '-' || ch == '.' ? ch : '_';
        const fs::path path = cfg.circuits_dir / (file + ".pce");
        std::error_code ec;
        if (fs::exists(path, ec)) {
            try {
                return r1cs::read_pce(path, shape);
            } catch (const std::exception& e) {
                log("pce " + path.string() + " not used (" + e.what() + "); compiling it again");
            }
        }
        const auto t0 = std::chrono::steady_clock::now();
        r1cs::PrecompiledR1cs pce = r1cs::compile_r1cs(*circuits::make_circuit(spec, false, 0, nullptr));
        pce.circuit = shape;
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        try {
            fs::create_directories(cfg.circuits_dir, ec);
            r1cs::write_pce(path, pce);
            log("pce for " + shape + " compiled in " + std::to_string(secs) + " s, kept in " + path.string());
        } catch (const std::exception& e) {
            log("pce for " + shape + " compiled in " + std::to_string(secs) + " s, not written: " + e.what());
        }
        return pce;
    }

    // Loads what the job needs (outside the lock: a parameter set may take minutes), then hands it to the engine,
    // unless it was cancelled or the daemon interrupted meanwhile. job->key and job->pce are set under the lock
    // (a cancel resets them).
    void start(const std::shared_ptr<Job>& job) {
        std::shared_ptr<const engine::ProvingKey> key = proving_key(job->params_path);
        std::shared_ptr<const r1cs::PrecompiledR1cs> pce;
        if (!job->circom) {
            const std::string shape = circuits::circuit_shape_name(job->spec);
            if (!job->pce_path.empty())
                pce = keys.matrices(*key, job->pce_path.string(), [&] { return r1cs::read_pce(job->pce_path, shape); });
            else if (cfg.pce == "auto")
                pce = keys.matrices(*key, "shape:" + shape, [&] { return auto_pce(job->spec, shape); });
        } else if (key->zkey) {
            // The zkey's A/B rows, compiled once per key instead of bucketed again for every witness.
            pce = keys.matrices(*key, "zkey rows", [&] { return formats::iden3::zkey_matrices(*key->zkey); });
        }
        job->publics.assign(job->partitions, {});
        engine::JobSpec spec;
        spec.name = job->spec.name;
        spec.priority = to_engine(job->req.priority());
        spec.partitions = job->partitions;
        spec.backend = key->backend();
        if (key->devices.size() > 1) spec.backends = key->backends();
        spec.fallback = key->fallback();
        spec.on_fallback = [this, name = spec.name](const std::string& line) { log("job " + name + ": " + line); };
        spec.verify_key = cfg.verify_proofs ? &key->params->vk : nullptr;
        if (job->req.deadline_seconds() > 0) spec.deadline_seconds = job->req.deadline_seconds();
        std::weak_ptr<Job> weak = job;
        if (job->circom && !key->zkey)
            throw std::runtime_error("circom job: " + job->params_path.filename().string() + " is not a .zkey");
        if (!job->circom && key->zkey)
            throw std::runtime_error(job->params_path.filename().string() + " is a .zkey: use circuit \"circom\"");
        if (job->circom)
            spec.synthesize = [weak](size_t i) {
                auto j = weak.lock();
                if (!j) throw std::runtime_error("job gone");
                const auto& w = j->witnesses[i];
                auto asg = formats::iden3::zkey_assignment(*j->pce, *j->key->zkey, w);
                std::lock_guard<std::mutex> lk(j->pub_mu);
                j->publics[i] = formats::iden3::public_signals(w, j->key->zkey->n_public);
                return asg;
            };
        else spec.synthesize = [weak](size_t i) {
            auto j = weak.lock();
            if (!j) throw std::runtime_error("job gone");
            std::vector<Fr> pub;
            auto circuit = circuits::make_circuit(j->spec, true, i, &pub);
            r1cs::ProvingAssignment asg;
            if (j->pce) asg = r1cs::assignment_from_pce(*j->pce, *circuit, ThreadPool::global());
            else r1cs::synthesize_groth16(asg, *circuit);
            std::lock_guard<std::mutex> lk(j->pub_mu);
            j->publics[i] = std::move(pub);
            return asg;
        };
        spec.on_end = [this, weak](uint64_t, const engine::JobResult& res) {
            if (auto j = weak.lock()) ended(*j, res);
        };
        std::lock_guard<std::mutex> lk(mu);
        if (stopping) {  // interrupted before it started: it stays queued for the next start
            return;
        }
        if (job->state == v1::CANCELLED) return;  // cancelled while its parameters loaded
        job->key = std::move(key);
        job->pce = std::move(pce);
        job->eid = eng->submit(std::move(spec));
        job->state = v1::RUNNING;  // in the engine (its own queue included)
        store.set_state(job->id, "running");
        log("job " + std::to_string(job->id) + " started on the " + job->key->backend()->name() + " backend");
    }

    // ---- ends -------------------------------------------------------------------------------------------------

    void ended(Job& job, const engine::JobResult& res) {
        v1::ProofResult out;
        out.set_job_id(std::to_string(job.id));
        out.set_state(from_engine(res.state));
        out.set_error(res.error);
        out.set_wall_seconds(res.wall_seconds);
        out.set_peak_rss_bytes(res.peak_rss_bytes);
        for (const auto& f : res.fallbacks) out.add_fallbacks(f);
        if (res.state == engine::JobState::Done) {
            for (const auto& p : res.proofs) {
                const auto bytes = formats::encode_proof(p);
                out.add_proofs(std::string(bytes.begin(), bytes.end()));
                if (job.circom) out.add_proofs_json(formats::snarkjs::proof_to_json(p));
            }
            std::string pubs = "[";
            {
                std::lock_guard<std::mutex> lk(job.pub_mu);
                for (size_t i = 0; i < job.publics.size(); i++)
                    pubs += (i ? "," : "") + formats::public_inputs_to_json(job.publics[i]);
            }
            out.set_public_inputs_json(pubs + "]");
            out.set_verified(cfg.verify_proofs);
        }
        double prov = 0, syn = 0;
        if (res.timeline) {
            out.set_timeline_json(res.timeline->to_json());
            prov = res.timeline->total(TimingLayer::Pipeline, "proving");
            syn = res.timeline->total(TimingLayer::Pipeline, "synthesis");
        }
        persist(job.id, out);
        {
            std::ostringstream line;
            line << "job " << job.id << " " << state_text(out.state()) << ": wall " << res.wall_seconds
                 << " s, proving " << prov << " s, synthesis " << syn << " s, " << res.proofs.size()
                 << " proof(s), peak RSS " << (res.peak_rss_bytes >> 20) << " MiB";
            if (!res.error.empty()) line << "; " << res.error;
            for (const auto& f : res.fallbacks) line << "; fallback: " << f;
            log(line.str());
        }
        std::lock_guard<std::mutex> lk(mu);
        settle(job, std::move(out));
        if (job.eid) to_forget.push_back(*job.eid);
        partitions_proven += res.state == engine::JobState::Done ? res.proofs.size() : 0;
        fallbacks += res.fallbacks.size();
        proving_s += prov;
        synthesis_s += syn;
        wall_s += res.wall_seconds;
        cv.notify_all();
    }

    // An ended job's result into the store; a failed write only means a restart would prove the job again (the
    // result is still handed to waiters).
    void persist(uint64_t id, const v1::ProofResult& out) {
        std::string bytes;
        out.SerializeToString(&bytes);
        try {
            store.finish(id, state_text(out.state()), bytes, unix_now());
        } catch (const std::exception& e) {
            log("job " + std::to_string(id) + ": its result was not written to the store (" + e.what() +
                "); a restart would prove it again");
        }
    }

    // Under mu: the job ended with `out`. Waiters see it; its inputs are released (the parameter set may now be
    // evicted); it is counted.
    void settle(Job& job, v1::ProofResult out) {
        job.state = out.state();
        job.result = std::move(out);
        job.ended_at = steady_seconds();
        job.key.reset();
        job.pce.reset();
        job.witnesses.clear();
        if (job.state == v1::DONE) ended_done++;
        else if (job.state == v1::FAILED) ended_failed++;
        else ended_cancelled++;
    }

    // Under mu (or before the threads start).
    void finish_failed(Job& job, const std::string& why, v1::JobState state = v1::FAILED) {
        v1::ProofResult out;
        out.set_job_id(std::to_string(job.id));
        out.set_state(state);
        out.set_error(why);
        persist(job.id, out);
        settle(job, std::move(out));
    }

    // Every few seconds: forget ended engine jobs, drop ended jobs from memory a minute after they ended (the
    // store keeps them), purge fetched and expired results from the store.
    void janitor_loop() {
        std::unique_lock<std::mutex> lk(mu);
        while (!stopping) {
            cv.wait_for(lk, std::chrono::seconds(2));
            if (stopping) return;
            for (auto it = to_forget.begin(); it != to_forget.end();)
                it = eng->forget(*it) ? to_forget.erase(it) : it + 1;
            const double now = steady_seconds();
            for (auto it = jobs.begin(); it != jobs.end();)
                it = (it->second->result && now - it->second->ended_at > 60) ? jobs.erase(it) : std::next(it);
            const double t = unix_now();
            lk.unlock();
            try {
                store.purge(t - 60, t - cfg.result_ttl_seconds);
            } catch (const std::exception& e) {
                log(std::string("old results were not purged from the store: ") + e.what());
            }
            lk.lock();
        }
    }

    // ---- the rest of the API ----------------------------------------------------------------------------------

    v1::ProofResult await(uint64_t id, double timeout_s, const std::function<bool()>& cancelled) {
        const auto t0 = Clock::now();
        std::unique_lock<std::mutex> lk(mu);
        auto it = jobs.find(id);
        if (it == jobs.end()) {
            lk.unlock();
            auto sj = store.get(id);
            if (!sj) throw DaemonError(ErrorCode::NotFound, "job " + std::to_string(id) + " is unknown (or its result expired)");
            v1::ProofResult r;
            if (sj->result.empty() || !r.ParseFromString(sj->result))
                throw DaemonError(ErrorCode::FailedPrecondition, "job " + std::to_string(id) + " has no result yet");
            store.mark_fetched(id, unix_now());
            return r;
        }
        auto job = it->second;
        while (!job->result) {
            if (cancelled && cancelled()) throw DaemonError(ErrorCode::Cancelled, "the client went away");
            if (shut) throw DaemonError(ErrorCode::Unavailable, "the daemon is shutting down");
            if (timeout_s > 0 && std::chrono::duration<double>(Clock::now() - t0).count() >= timeout_s)
                throw DaemonError(ErrorCode::DeadlineExceeded,
                                  "job " + std::to_string(id) + " has not ended after " + std::to_string(timeout_s) + " s");
            cv.wait_for(lk, std::chrono::milliseconds(100));
        }
        v1::ProofResult r = *job->result;
        lk.unlock();
        try {
            store.mark_fetched(id, unix_now());
        } catch (const std::exception& e) {
            log("job " + std::to_string(id) + ": not marked fetched in the store (" + e.what() +
                "); its result is kept until result_ttl_seconds");
        }
        return r;
    }

    bool cancel(uint64_t id) {
        std::unique_lock<std::mutex> lk(mu);
        auto it = jobs.find(id);
        if (it == jobs.end()) {
            lk.unlock();
            if (!store.get(id)) throw DaemonError(ErrorCode::NotFound, "job " + std::to_string(id) + " is unknown");
            return false;  // ended earlier
        }
        auto job = it->second;
        if (job->result) return false;
        auto p = std::find(pending.begin(), pending.end(), id);
        if (p != pending.end()) {
            pending.erase(p);
            finish_failed(*job, "cancelled by a client", v1::CANCELLED);
            cv.notify_all();
            return true;
        }
        if (!job->eid) {  // being started: start() sees the state and does not submit it
            finish_failed(*job, "cancelled by a client", v1::CANCELLED);
            cv.notify_all();
            return true;
        }
        const engine::JobId eid = *job->eid;
        lk.unlock();
        return eng->cancel(eid);  // on_end records it
    }

    v1::JobStatus job_status(const Job& j) const {
        v1::JobStatus s;
        s.set_job_id(std::to_string(j.id));
        s.set_state(j.state);
        s.set_partitions((uint32_t)j.partitions);
        s.set_priority(j.req.priority());
        s.set_circuit(j.req.circuit());
        size_t proven = 0;
        if (j.result && j.state == v1::DONE) proven = j.partitions;
        else if (j.eid) {
            try {
                proven = eng->proven(*j.eid);
                s.set_state(from_engine(eng->state(*j.eid)));
            } catch (const std::out_of_range&) {
            }
        }
        s.set_partitions_proven((uint32_t)proven);
        return s;
    }

    v1::GetStatusResponse status(uint64_t id) {
        v1::GetStatusResponse r;
        r.set_version("0.1.0");
        r.set_synthesis_workers((uint32_t)cfg.synthesis_workers);
        r.set_backend("cpu");
#ifdef CUZK_HAVE_CUDA
        if (cfg.backend != "cpu") {
            for (const auto& d : gpu::devices()) {
                auto* g = r.add_gpus();
                g->set_name(d.name);
                g->set_memory_total_bytes(d.total_memory);
            }
            if (r.gpus_size()) r.set_backend("gpu");
        }
#endif
        r.set_rss_bytes(current_rss_bytes());
        r.set_memory_budget_bytes(budget);
        const auto ks = keys.stats();
        r.set_params_cached_bytes(ks.bytes);
        r.set_params_cached_sets((uint32_t)ks.entries);
        std::lock_guard<std::mutex> lk(mu);
        uint32_t queued = 0, running = 0;
        for (const auto& [jid, j] : jobs) {
            if (j->result) continue;
            auto s = job_status(*j);
            if (s.state() == v1::RUNNING) running++;
            else queued++;
            *r.add_jobs() = s;
        }
        r.set_queued(queued);
        r.set_running(running);
        if (id) {
            auto it = jobs.find(id);
            if (it != jobs.end()) {
                *r.mutable_job() = job_status(*it->second);
            } else {
                auto sj = store.get(id);
                if (!sj) throw DaemonError(ErrorCode::NotFound, "job " + std::to_string(id) + " is unknown");
                v1::ProofRequest req;
                req.ParseFromString(sj->request);
                auto* s = r.mutable_job();
                s->set_job_id(std::to_string(id));
                s->set_state(state_from_text(sj->state));
                s->set_partitions(req.partitions());
                s->set_partitions_proven(sj->state == "done" ? req.partitions() : 0);
                s->set_priority(req.priority());
                s->set_circuit(req.circuit());
            }
        }
        return r;
    }

    std::string metrics_text() {
        std::ostringstream o;
        auto metric = [&](const char* name, const char* type, const char* help, auto value) {
            o << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n" << name << " "
              << value << "\n";
        };
        const auto cs = keys.stats();
        const auto es = eng->stats();
        std::lock_guard<std::mutex> lk(mu);
        size_t queued = pending.size(), running = 0;
        for (const auto& [id, j] : jobs)
            if (!j->result && j->eid) running++;
        metric("cuzk_jobs_submitted_total", "counter", "Jobs accepted.", submitted);
        metric("cuzk_jobs_rejected_total", "counter", "Requests refused (bad request, budget, queue full).", rejected);
        o << "# HELP cuzk_jobs_ended_total Jobs ended, by state.\n# TYPE cuzk_jobs_ended_total counter\n"
          << "cuzk_jobs_ended_total{state=\"done\"} " << ended_done << "\n"
          << "cuzk_jobs_ended_total{state=\"failed\"} " << ended_failed << "\n"
          << "cuzk_jobs_ended_total{state=\"cancelled\"} " << ended_cancelled << "\n";
        metric("cuzk_jobs_waiting", "gauge", "Accepted jobs not yet handed to the engine.", queued);
        metric("cuzk_jobs_in_engine", "gauge", "Jobs in the engine (queued there or running).", running);
        metric("cuzk_partitions_proven_total", "counter", "Partitions proven in jobs that completed.", partitions_proven);
        metric("cuzk_fallbacks_total", "counter", "Partitions proven again on the CPU backend.", fallbacks);
        metric("cuzk_proving_seconds_total", "counter", "Pipeline-layer proving time of ended jobs.", proving_s);
        metric("cuzk_synthesis_seconds_total", "counter", "Pipeline-layer synthesis time of ended jobs.", synthesis_s);
        metric("cuzk_job_wall_seconds_total", "counter", "Wall time of ended jobs (start to end).", wall_s);
        metric("cuzk_params_cached_bytes", "gauge", "Host bytes of cached parameter sets.", cs.bytes);
        metric("cuzk_params_cached_sets", "gauge", "Cached parameter sets.", cs.entries);
        metric("cuzk_params_cache_hits_total", "counter", "Parameter cache hits.", cs.hits);
        metric("cuzk_params_cache_misses_total", "counter", "Parameter cache misses (loads).", cs.misses);
        metric("cuzk_memory_budget_bytes", "gauge", "The memory budget (total_budget).", budget);
        metric("cuzk_resident_memory_bytes", "gauge", "Resident set of the daemon.", current_rss_bytes());
        metric("cuzk_freed_bytes_total", "counter", "Bytes freed off the hot path by the deallocator.", es.freed_bytes);
        metric("cuzk_free_seconds_total", "counter", "Time the deallocator spent freeing, off the hot path.",
               es.free_seconds);
        return o.str();
    }

    uint64_t preload(const std::string& name) {
        const fs::path path = inside(cfg.params_dir, name, "params");
        try {
            return proving_key(path)->host_bytes;
        } catch (const DaemonError&) {
            throw;
        } catch (const std::exception& e) {
            throw DaemonError(ErrorCode::FailedPrecondition, "params '" + name + "': " + e.what());
        }
    }

    bool evict(const std::string& name) { return keys.evict(inside(cfg.params_dir, name, "params")); }

    // ---- shutdown ---------------------------------------------------------------------------------------------

    ~Impl() { shutdown(true); }

    // force_interrupt: a daemon that failed to start does not drain.
    void shutdown(bool force_interrupt = false) {
        {
            std::lock_guard<std::mutex> lk(mu);
            if (shut) return;
            accepting = false;
        }
        log("shutting down (" + std::string(force_interrupt ? "interrupt" : cfg.shutdown) + ")");
        if (server) server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
        metrics_http.reset();
        if (cfg.shutdown == "drain" && !force_interrupt) {
            std::unique_lock<std::mutex> lk(mu);
            cv.wait(lk, [&] {
                for (const auto& [id, j] : jobs)
                    if (!j->result) return false;
                return true;
            });
        }
        {
            std::lock_guard<std::mutex> lk(mu);
            stopping = true;
            shut = true;
        }
        cv.notify_all();
        if (starter.joinable()) starter.join();
        if (janitor.joinable()) janitor.join();
        eng.reset();  // interrupt: the running job stops at its next partition and stays queued in the store
        if (server) server->Wait();
        std::error_code ec;
        fs::remove(cfg.socket_path(), ec);
    }
};

// ---- Daemon -----------------------------------------------------------------------------------------------------

Daemon::Daemon(const DaemonConfig& cfg) : impl_(std::make_unique<Impl>(claim_socket(cfg))) {
    impl_->service = make_prover_service(*this);
    impl_->server = listen(cfg, *impl_->service, &impl_->tcp_port);
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

void Daemon::wait_for_shutdown_request() {
    std::unique_lock<std::mutex> lk(impl_->mu);
    impl_->cv.wait(lk, [&] { return impl_->shutdown_requested; });
}

void Daemon::request_shutdown() {
    {
        std::lock_guard<std::mutex> lk(impl_->mu);
        impl_->shutdown_requested = true;
    }
    impl_->cv.notify_all();
}

std::string Daemon::socket_path() const { return fs::absolute(impl_->cfg.socket_path()).string(); }
int Daemon::tcp_port() const { return impl_->tcp_port; }
int Daemon::metrics_port() const { return impl_->metrics_http ? impl_->metrics_http->port() : 0; }
uint64_t Daemon::submit(const v1::ProofRequest& request) { return impl_->submit(request); }
v1::ProofResult Daemon::await(uint64_t id, double timeout_s, const std::function<bool()>& cancelled) {
    return impl_->await(id, timeout_s, cancelled);
}
bool Daemon::cancel(uint64_t id) { return impl_->cancel(id); }
v1::GetStatusResponse Daemon::status(uint64_t job_id) { return impl_->status(job_id); }
std::string Daemon::metrics_text() { return impl_->metrics_text(); }
uint64_t Daemon::preload(const std::string& params) { return impl_->preload(params); }
bool Daemon::evict(const std::string& params) { return impl_->evict(params); }

}  // namespace cuzk::daemon
