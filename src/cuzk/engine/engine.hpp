// The proving engine: jobs of one or more partitions, several in flight at once, whose partitions interleave by
// priority, then age, at partition boundaries; a pipeline overlaps the synthesis of partitions with the proving of
// others, big buffers are freed by a background deallocator, and every partition leaves a timeline at the pipeline
// layer (the backend adds the prover layer, the device kernels the kernel layer) in its job's TimingSink.
//
//   submit ──> jobs (priority, then submission order)
//     synthesis workers (config.synthesis_workers threads, shared by all jobs): each takes the next partition of the
//       first job in that order that has one left, while the partitions in memory before a prover takes them stay
//       within synthesis_workers + lookahead; synthesized partitions wait in their job's queue (index order);
//     lanes (one proving thread per ProverBackend::lane: a GPU, the CPU, or a backend of its own): each takes the
//       lowest waiting partition of the first job in that order with a backend in the lane, proves it (verified,
//       with the job's fallback) and stores proof i at index i; the proven assignment's remaining vectors go to the
//       deallocator. While one partition is proven, a helper takes the lane's next and lets its backend prepare it
//       (ProverBackend::prepare: the GPU backend uploads its a, b, c meanwhile, or only its witness when it makes the
//       sparse products itself: JobSpec::pce; JobSpec::pipeline).
//     an urgent synthesis worker takes CRITICAL jobs' partitions only, beside the others and outside the budget;
//     a lane proves a waiting partition of higher priority before the one its helper took meanwhile.
//   So a CRITICAL job submitted while a long job runs starts synthesizing at once and is proven right after the
//   partition being proven now.
//
// A job is Queued until its first partition starts, Running until its last partition is proven or it stops.
// Spans (layer Pipeline, item = partition; "job" and "queued" with item -1): "queued" (submit to first partition),
// "synthesis", "handover" (synthesis end to proving start), "proving", "job" (first partition to end).
// Errors: an exception in synthesis or proving fails that job (its message kept), never the engine, unless the job
// has another backend or names a fallback: a backend that fails (throws, or its proof does not verify) while the job
// has others leaves the job, and its partition is synthesized again and proven on the others; with none left, the
// fallback backend proves it again; each is reported (JobResult::fallbacks). A job can be cancelled while queued or
// between partitions, and by its deadline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cuzk/engine/key_store.hpp"
#include "cuzk/ff/fr.hpp"
#include "cuzk/groth16/backend.hpp"
#include "cuzk/groth16/types.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::engine {

enum class Priority : uint8_t { Low, Normal, High, Critical };
const char* priority_name(Priority p);

// The prover backends (groth16/backend.hpp): the CPU prover, or the GPU prover where one is built and present.
using groth16::CpuBackend;
using Backend = groth16::ProverBackend;

struct JobResult;

struct JobSpec {
    std::string name;  // for reports
    Priority priority = Priority::Normal;
    size_t partitions = 1;
    // Synthesizes partition i (called on a synthesis worker, possibly concurrently for different i).
    std::function<r1cs::ProvingAssignment(size_t i)> synthesize;
    // One partition's synthesis already uses every core (PoRep: its challenges run in parallel): the job's first
    // partition is then synthesized alone, so the idle prover gets it in about half the time, and the other
    // workers start on the job once it is ready (they catch up while it is proven). Off: all workers start at once.
    bool first_partition_alone = false;
    // With first_partition_alone and the products on the devices: the other workers also wait while the first
    // partition's witness goes to its device (ProvingAssignment::on_sent; until a proof ends at the latest, and at
    // most 2 s after that partition was synthesized), so that upload has the host's memory bandwidth to itself
    // instead of sharing it with two syntheses.
    bool first_upload_alone = false;
    // Optional: the compiled matrices synthesize's assignments defer their sparse products to (r1cs::
    // witness_assignment). With EngineConfig::device_products, the engine asks every backend of the job to hold
    // them on its device (ProverBackend::hold_products) for the job's life; when all do, only witnesses are kept
    // between synthesis and proving, and the products are made on the devices; otherwise the synthesis worker
    // completes them (r1cs::complete_products). partition_bytes, when 0, follows: the witness alone, or a, b, c and
    // the witness. Must outlive the job.
    const r1cs::PrecompiledR1cs* pce = nullptr;
    // The proving key (Engine::keys()): the job proves on its backends (one lane per device copy, else its CPU
    // backend) with its CPU backend as the fallback, unless backend, backends or fallback below name others, and
    // holds it until the job ends, so the store never evicts a key a queued or running job uses.
    std::shared_ptr<const ProvingKey> key;
    // Proves the partitions (default: the key's); must outlive the job.
    Backend* backend = nullptr;
    // Optional: several backends (one per GPU), each with its own proving worker taking partitions as they are
    // synthesized; proofs still come back in partition order. One that fails leaves the job and the others prove
    // its partition again (synthesized again: the failed backend consumed it). Empty: `backend` alone. Must
    // outlive the job.
    std::vector<Backend*> backends;
    // Optional: a partition whose proving throws on its backend (a GPU fault or out of memory), or whose proof
    // does not verify, when the job has no other backend left, is synthesized again and proven here (typically the
    // CPU backend); each such retry is reported in JobResult::fallbacks. Must outlive the job.
    Backend* fallback = nullptr;
    // Let the backend move partition i + 1's data while partition i is proven (ProverBackend::prepare; the GPU
    // backend uploads a, b, c into a second set of device arrays). Backends without it ignore it.
    bool pipeline = true;
    // Prove the partitions in groups where the backend offers them (ProverBackend::defer_group): the A, B and L
    // scalars equal to one of the partitions a lane proves one after another are summed for all of them at once
    // (the GPU backend adds each base once for the group instead of once per partition that has a one there), and
    // their proofs are finished, verified and stored then. For jobs of several partitions of one circuit (a PoRep
    // C2). A lane's group ends when the lane has no more of the job's partitions, or before it proves another job's
    // (a CRITICAL partition of a job without groups goes in between without ending it); a group that fails to
    // finish, or a proof of it that does not verify, is proven again as a failed partition is.
    bool defer_ones = false;
    // Optional: every proof is verified against this key and the partition's public inputs before it is accepted
    // (GPU faults happen in the field); one that does not verify is proven again as a failed proof is (on the
    // job's other backends, else on the fallback backend when there is one, else the job fails). Must outlive the job.
    const groth16::VerifyingKey* verify_key = nullptr;
    // Optional: the job is cancelled when it has not ended this long after submission (checked between partitions
    // and by waiting workers); the result then says so.
    std::optional<double> deadline_seconds;
    // r, s from the OS CSPRNG unless a seed is given (tests and benchmarks only: proofs become predictable).
    std::optional<uint64_t> randomness_seed;
    // Optional: called once when the job ends (done, failed, or cancelled by cancel() or its deadline), on the
    // thread that ended it, without the engine's lock held, before await() returns; not for jobs the engine's
    // destruction stops (a daemon that shuts down keeps those for its next start). Exceptions from it are swallowed.
    std::function<void(uint64_t id, const JobResult& result)> on_end;
    // Host memory one synthesized partition holds until it is proven (a, b, c and the witness), for
    // EngineConfig::memory_budget_bytes; 0: the key's ProvingKey::partition_bytes(), or unknown without a key.
    size_t partition_bytes = 0;
    // Optional: called with each JobResult::fallbacks line as it happens (a partition proven again on `fallback`
    // can take minutes where the GPU takes a second: the CLI says so on stderr). Exceptions from it are swallowed.
    std::function<void(const std::string& line)> on_fallback;
    // Optional: called once when the job leaves the engine's queue and starts (its first partition is about to be
    // synthesized), under the engine's lock: it must not call the engine (a log line). Exceptions are swallowed.
    std::function<void()> on_start;
};

enum class JobState : uint8_t { Queued, Running, Done, Failed, Cancelled };
const char* job_state_name(JobState s);

struct JobResult {
    JobState state = JobState::Queued;
    std::string error;                   // for Failed; for Cancelled by the deadline, a note saying so
    std::vector<std::string> fallbacks;  // one line per partition proven again (other backends, or the fallback)
    std::vector<groth16::Proof> proofs;  // partition order, for Done
    std::shared_ptr<TimingSink> timeline;
    double wall_seconds = 0;             // start to end (not the time queued)
    size_t peak_rss_bytes = 0;           // the process's peak resident set since the job started, or since the
                                         // last moment no job ran if others ran beside it (0 where /proc is
                                         // unavailable)
};

struct EngineConfig {
    // Threads that synthesize partitions (0: auto_synthesis_workers()).
    size_t synthesis_workers = 1;
    // Synthesized partitions that may wait for a prover, all jobs together (bounds the memory of assignments in
    // flight: each holds a, b, c and the witness of one partition; at most synthesis_workers + lookahead wait or
    // are being synthesized, plus per lane the one being proven and the one prepared).
    size_t lookahead = 1;
    // Host memory the process may use (0: no limit beyond the counts above). A partition starts synthesizing only
    // when the process's resident set, plus the partitions being synthesized (their JobSpec::partition_bytes), plus
    // the backends' working memory (ProverBackend::working_bytes: the 0/1 splits, staging) of the partitions no
    // lane has taken yet, plus its own partition_bytes and working bytes fit; unless nothing at all is in flight
    // (then one starts whatever the budget says: a job always progresses). A partition is proven again on the
    // job's fallback only when the fallback's working memory fits beside the resident set; otherwise the job fails
    // saying so (a CPU fallback that reads a 32 GiB set again needs ~45 GB).
    size_t memory_budget_bytes = 0;
    // The sparse products of jobs with compiled matrices (JobSpec::pce) on the devices whose backends can hold the
    // matrices; off: always on the synthesis workers (the CPU).
    bool device_products = true;
    // The nice value (0..19) of the synthesis workers and the threads they start (Linux, per thread; elsewhere
    // ignored): above 0, the CPU's other work (the GPU prover's 0/1 split and witness uploads, its host threads)
    // gets the cores first while the next partitions are synthesized. The worker for CRITICAL jobs keeps 0. The
    // global thread pool is made before the workers start, so its threads keep the process's value. Off: a 32 GiB
    // C2 on an H100 host ran the same with 10 (docs/perf.md, forty-sixth session: nothing waits for the CPU there).
    int synthesis_nice = 0;
    // The proving-key store (Engine::keys()): `key_store` when given (shared with whoever else uses it: a daemon's
    // status and preload), else one the engine makes from `keys`.
    KeyStoreConfig keys;
    std::shared_ptr<ProvingKeyStore> key_store;
};

// Synthesis workers for this host when none are configured: one per 8 hardware threads, 1 to 8 (measured on the
// 16-thread H200 host: a 10-partition 32 GiB C2 takes 34.0 s with 2 workers (median of 3), 31.9 s with 3 and
// lookahead 2 for 8 GB more, 50.1 s with 1; docs/perf.md).
size_t auto_synthesis_workers();
// A memory budget for this host: physical memory less a margin of max(4 GiB, 1/8 of it) (125 GiB: 109 GiB).
size_t auto_memory_budget();

using JobId = uint64_t;

class Engine {
public:
    explicit Engine(const EngineConfig& cfg = {});
    // Cancels queued jobs, finishes (or cancels) the running one, joins every thread.
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // The proving keys: parameter sets with their device copies, backends and compiled matrices, loaded once under
    // the host and device budgets (KeyStoreConfig); jobs name theirs in JobSpec::key.
    ProvingKeyStore& keys();

    // std::invalid_argument for a spec without partitions, synthesize, or a key or backend.
    JobId submit(JobSpec spec);
    // Blocks until the job has ended (Done, Failed or Cancelled) and returns its result; std::out_of_range for an
    // unknown id.
    JobResult await(JobId id);
    // Queued: removed at once. Running: stops before its next partition. Returns false when the job had already
    // ended or is unknown.
    bool cancel(JobId id);
    JobState state(JobId id) const;
    // Partitions of the job proven so far; std::out_of_range for an unknown id.
    size_t proven(JobId id) const;
    // Drops an ended job's record (its result included), so a long-running engine does not keep every job; false
    // when the job is unknown, queued or running.
    bool forget(JobId id);

    struct Stats {
        size_t queued = 0, running = 0, done = 0, failed = 0, cancelled = 0;
        size_t freed_buffers = 0, freed_bytes = 0;
        size_t pending_frees = 0;  // buffers handed to the deallocator and not freed yet
        double free_seconds = 0;   // spent by the deallocator, off the hot path
    };
    Stats stats() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

// Peak resident set of this process so far (VmHWM, bytes; 0 where /proc is unavailable), and a reset of that peak
// (so a job's own peak can be read after it).
size_t peak_rss_bytes();
void reset_peak_rss();
// The process's resident set now (VmRSS, bytes; 0 where /proc is unavailable).
size_t current_rss_bytes();

}  // namespace cuzk::engine
