// The daemon's persistent job table (SQLite, WAL, synchronous=FULL): an accepted job is on disk before its id is
// returned, and a finished job's result stays there until a client fetched it (plus a grace period) or it expired,
// so a restart loses neither; a job submitted with a request_id keeps its result until it expires (a client that
// submits the same id again gets it). Requests and results are stored as opaque bytes (serialized protobuf
// messages); an ended job's request is replaced by its slim form (no C1 or vanilla proofs).
// Thread-safe (one connection behind a mutex).
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

struct sqlite3;

namespace cuzk::daemon {

class StoreError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct StoredJob {
    uint64_t id = 0;          // > 0, never reused
    std::string request;      // opaque bytes
    std::string state;        // queued | running | done | failed | cancelled
    int priority = 0;
    double submitted_at = 0;  // unix seconds
    double finished_at = 0;   // 0 until the job ended
    double fetched_at = 0;    // 0 until a client fetched the result
    std::string result;       // opaque bytes, empty until the job ended
    std::string request_id;   // the client's idempotency key; empty when none
    std::string digest;       // of the request's inputs (what a resubmission under request_id is compared with)
};

class JobStore {
public:
    // Opens or creates the database (":memory:" for none on disk). StoreError with SQLite's message.
    explicit JobStore(const std::filesystem::path& path);
    ~JobStore();
    JobStore(const JobStore&) = delete;
    JobStore& operator=(const JobStore&) = delete;

    // A new queued job; returns its id once it is durable.
    uint64_t insert(const std::string& request, int priority, double now, const std::string& request_id = "",
                    const std::string& digest = "");
    void set_state(uint64_t id, const std::string& state);
    // The job ended: its state (done, failed, cancelled) and result; its request replaced by `slim_request` when given.
    void finish(uint64_t id, const std::string& state, const std::string& result, double now,
                const std::optional<std::string>& slim_request = std::nullopt);
    void mark_fetched(uint64_t id, double now);
    std::optional<StoredJob> get(uint64_t id) const;
    // The newest job submitted with `request_id` (not empty).
    std::optional<StoredJob> latest_with_request_id(const std::string& request_id) const;
    // Jobs not ended (queued or running), oldest first: what a restart resumes.
    std::vector<StoredJob> unfinished() const;
    // Deletes ended jobs ended before `ended_before`, and those without a request_id fetched before `fetched_before`;
    // returns how many.
    size_t purge(double fetched_before, double ended_before);
    size_t count() const;

    // Tests only: while `why` is non-empty every write throws StoreError(why), as a full disk would.
    void fail_writes_for_testing(std::string why);

private:
    void exec(const char* sql) const;
    void check_writable() const;  // under mu_
    [[noreturn]] void fail(const std::string& what) const;

    mutable std::mutex mu_;
    sqlite3* db_ = nullptr;
    std::filesystem::path path_;
    std::string failing_writes_;
};

}  // namespace cuzk::daemon
