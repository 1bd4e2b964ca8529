// The proving daemon (issues 8, 21): the engine behind Curio's gRPC API (proto/cuzk.proto: cuzk.v1.ProvingEngine,
// wire-compatible with Curio's client), with jobs persisted in SQLite.
//
//   gRPC (unix socket, mode 0600; TCP only when configured) ──> Daemon::submit: a request_id seen before answers
//   its job; else the request is checked (a Filecoin kind's inputs parsed and checked, its parameter file found by
//   Filecoin's name; a cuzk job's circuit, sizes, parameter and PCE files inside the configured directories; the
//   memory budget), stored, and queued ──> the starter thread takes queued jobs by priority, gets their proving key from the key store
//   (engine::ProvingKeyStore: the parameters loaded once, a copy per GPU and the compiled matrices, kept for later
//   jobs while they fit the budgets; a key a job holds is never evicted) and submits them to the engine ──> the engine proves
//   the partitions (synthesis pipelined with proving, proofs verified before they are accepted, a partition whose
//   GPU fails proven again on the other GPUs, else on the CPU) ──> on its end the job's result (proofs, public
//   inputs, timeline) is stored and handed to every AwaitProof waiting for it.
//
// A restart resumes every job that was accepted and had not ended (same id); finished results stay until a client
// fetched them (plus a minute) or result_ttl_seconds passed. Shutdown: stop accepting; then `drain` (finish every
// accepted job) or `interrupt` (stop at the next partition; the jobs stay queued for the next start).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "cuzk.pb.h"
#include "cuzk/daemon/config.hpp"

namespace cuzk::daemon {

// The in-process API's errors; the gRPC service maps them to the status codes of the same names.
enum class ErrorCode { InvalidArgument, NotFound, PermissionDenied, ResourceExhausted, FailedPrecondition,
                       DeadlineExceeded, Unavailable, Cancelled, DataLoss };
class DaemonError : public std::runtime_error {
public:
    DaemonError(ErrorCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
    ErrorCode code() const { return code_; }

private:
    ErrorCode code_;
};

// What submit() answers.
struct Submitted {
    uint64_t id = 0;
    uint32_t queue_position = 0;  // accepted jobs that start before it
    bool existing = false;        // the job of an earlier submission with the same request_id
};

class Daemon {
public:
    // Opens the job store, resumes unfinished jobs, starts the engine and listens (unix socket, optional TCP and
    // metrics endpoints). std::runtime_error when it cannot (socket in use by a running daemon, bad directory...).
    explicit Daemon(const DaemonConfig& cfg);
    // shutdown(), then frees everything.
    ~Daemon();
    Daemon(const Daemon&) = delete;
    Daemon& operator=(const Daemon&) = delete;

    // Stops accepting jobs, then drains (serving await and status meanwhile) or interrupts per the configuration.
    // Idempotent; a second call while the first drains returns at once.
    void shutdown();
    // Ends a drain in progress as an interrupt would (a second SIGTERM).
    void interrupt_drain();
    // For `cuzk daemon`: blocks until request_shutdown() (a signal) is called.
    void wait_for_shutdown_request();
    void request_shutdown();

    std::string socket_path() const;
    int tcp_port() const;      // 0 without TCP
    int metrics_port() const;  // 0 without the metrics endpoint

    // The API behind the gRPC methods. Job ids are the store's (decimal in the protocol).
    Submitted submit(const v1::SubmitProofRequest& request);
    // Waits for the job's end (timeout_s 0: no limit) and returns its result; DeadlineExceeded when it has not
    // ended in time (the service answers status TIMEOUT), NotFound for an unknown (or purged) id; `cancelled` is
    // polled (a client that went away).
    v1::AwaitProofResponse await(uint64_t id, double timeout_s, const std::function<bool()>& cancelled = {});
    // *was_running: the job was in the engine when it was cancelled.
    bool cancel(uint64_t id, bool* was_running = nullptr);
    v1::GetStatusResponse status(uint64_t job_id);  // job_id 0: the daemon only
    std::string metrics_text();
    v1::PreloadSrsResponse preload(const v1::PreloadSrsRequest& request);
    v1::EvictSrsResponse evict(const v1::EvictSrsRequest& request);

    // Tests only: the job store's writes fail with `why` (a full disk) until called again with "".
    void fail_store_writes_for_testing(const std::string& why);
    // Tests only: called by cancel() after the job table let go of its lock and before it calls the engine.
    void before_engine_cancel_for_testing(std::function<void()> hook);

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

// "unix:/abs/path" for a socket path, else the host:port unchanged: a gRPC target.
std::string grpc_target(const std::string& socket_or_address);

}  // namespace cuzk::daemon
