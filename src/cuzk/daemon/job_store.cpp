#include "cuzk/daemon/job_store.hpp"

#include <sqlite3.h>

namespace cuzk::daemon {

namespace {

// A prepared statement, finalized on scope exit.
class Stmt {
public:
    Stmt(sqlite3* db, const char* sql) : db_(db) {
        if (sqlite3_prepare_v2(db, sql, -1, &st_, nullptr) != SQLITE_OK)
            throw StoreError(std::string("job store: ") + sqlite3_errmsg(db));
    }
    ~Stmt() { sqlite3_finalize(st_); }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;
    Stmt& bind(int i, int64_t v) {
        check(sqlite3_bind_int64(st_, i, v));
        return *this;
    }
    Stmt& bind(int i, double v) {
        check(sqlite3_bind_double(st_, i, v));
        return *this;
    }
    Stmt& bind(int i, const std::string& v) {
        check(sqlite3_bind_blob(st_, i, v.data(), (int)v.size(), SQLITE_TRANSIENT));
        return *this;
    }
    Stmt& text(int i, const std::string& v) {
        check(sqlite3_bind_text(st_, i, v.data(), (int)v.size(), SQLITE_TRANSIENT));
        return *this;
    }
    // true while a row is available
    bool step() {
        const int rc = sqlite3_step(st_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        throw StoreError(std::string("job store: ") + sqlite3_errmsg(db_));
    }
    int64_t i64(int c) const { return sqlite3_column_int64(st_, c); }
    double dbl(int c) const { return sqlite3_column_double(st_, c); }
    std::string blob(int c) const {
        const void* p = sqlite3_column_blob(st_, c);
        const int n = sqlite3_column_bytes(st_, c);
        return p ? std::string(static_cast<const char*>(p), (size_t)n) : std::string();
    }
    std::string str(int c) const {
        const unsigned char* p = sqlite3_column_text(st_, c);
        return p ? std::string(reinterpret_cast<const char*>(p)) : std::string();
    }

private:
    void check(int rc) {
        if (rc != SQLITE_OK) throw StoreError(std::string("job store: ") + sqlite3_errmsg(db_));
    }
    sqlite3* db_;
    sqlite3_stmt* st_ = nullptr;
};

// How long a statement waits for another connection's lock on the database (a second process reading it) before
// it fails.
constexpr int kBusyTimeoutMs = 5000;

constexpr const char* kColumns =
    "id, request, state, priority, submitted_at, finished_at, fetched_at, result, request_id, digest";

StoredJob row(const Stmt& s) {
    StoredJob j;
    j.id = (uint64_t)s.i64(0);
    j.request = s.blob(1);
    j.state = s.str(2);
    j.priority = (int)s.i64(3);
    j.submitted_at = s.dbl(4);
    j.finished_at = s.dbl(5);
    j.fetched_at = s.dbl(6);
    j.result = s.blob(7);
    j.request_id = s.str(8);
    j.digest = s.str(9);
    return j;
}

}  // namespace

JobStore::JobStore(const std::filesystem::path& path) : path_(path) {
    const int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                                   nullptr);
    if (rc != SQLITE_OK) {
        const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        throw StoreError("job store: cannot open " + path.string() + ": " + msg);
    }
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    try {
        exec("PRAGMA journal_mode=WAL");
        exec("PRAGMA synchronous=FULL");
        exec("CREATE TABLE IF NOT EXISTS proof_jobs ("
             " id INTEGER PRIMARY KEY AUTOINCREMENT,"
             " request BLOB NOT NULL,"
             " state TEXT NOT NULL,"
             " priority INTEGER NOT NULL,"
             " submitted_at REAL NOT NULL,"
             " finished_at REAL NOT NULL DEFAULT 0,"
             " fetched_at REAL NOT NULL DEFAULT 0,"
             " result BLOB NOT NULL DEFAULT x'',"
             " request_id TEXT NOT NULL DEFAULT '',"
             " digest TEXT NOT NULL DEFAULT '')");
        exec("CREATE INDEX IF NOT EXISTS proof_jobs_state ON proof_jobs(state)");
        exec("CREATE INDEX IF NOT EXISTS proof_jobs_request_id ON proof_jobs(request_id)");
    } catch (...) {
        sqlite3_close(db_);
        db_ = nullptr;
        throw;
    }
}

JobStore::~JobStore() {
    if (db_) sqlite3_close(db_);
}

void JobStore::exec(const char* sql) const {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
        const std::string msg = err ? err : "unknown error";
        sqlite3_free(err);
        fail(msg);
    }
}

void JobStore::fail(const std::string& what) const { throw StoreError("job store " + path_.string() + ": " + what); }

void JobStore::fail_writes_for_testing(std::string why) {
    std::lock_guard<std::mutex> lk(mu_);
    failing_writes_ = std::move(why);
}

void JobStore::check_writable() const {
    if (!failing_writes_.empty()) throw StoreError("job store " + path_.string() + ": " + failing_writes_);
}

uint64_t JobStore::insert(const std::string& request, int priority, double now, const std::string& request_id,
                          const std::string& digest) {
    std::lock_guard<std::mutex> lk(mu_);
    check_writable();
    Stmt s(db_,
           "INSERT INTO proof_jobs(request, state, priority, submitted_at, request_id, digest) "
           "VALUES(?, 'queued', ?, ?, ?, ?)");
    s.bind(1, request).bind(2, (int64_t)priority).bind(3, now).text(4, request_id).text(5, digest);
    s.step();
    return (uint64_t)sqlite3_last_insert_rowid(db_);
}

void JobStore::set_state(uint64_t id, const std::string& state) {
    std::lock_guard<std::mutex> lk(mu_);
    check_writable();
    Stmt s(db_, "UPDATE proof_jobs SET state = ? WHERE id = ?");
    s.text(1, state).bind(2, (int64_t)id);
    s.step();
}

void JobStore::finish(uint64_t id, const std::string& state, const std::string& result, double now,
                      const std::optional<std::string>& slim_request) {
    std::lock_guard<std::mutex> lk(mu_);
    check_writable();
    if (slim_request) {
        Stmt s(db_, "UPDATE proof_jobs SET state = ?, result = ?, finished_at = ?, request = ? WHERE id = ?");
        s.text(1, state).bind(2, result).bind(3, now).bind(4, *slim_request).bind(5, (int64_t)id);
        s.step();
        return;
    }
    Stmt s(db_, "UPDATE proof_jobs SET state = ?, result = ?, finished_at = ? WHERE id = ?");
    s.text(1, state).bind(2, result).bind(3, now).bind(4, (int64_t)id);
    s.step();
}

void JobStore::mark_fetched(uint64_t id, double now) {
    std::lock_guard<std::mutex> lk(mu_);
    check_writable();
    Stmt s(db_, "UPDATE proof_jobs SET fetched_at = ? WHERE id = ? AND fetched_at = 0");
    s.bind(1, now).bind(2, (int64_t)id);
    s.step();
}

std::optional<StoredJob> JobStore::get(uint64_t id) const {
    std::lock_guard<std::mutex> lk(mu_);
    Stmt s(db_, (std::string("SELECT ") + kColumns + " FROM proof_jobs WHERE id = ?").c_str());
    s.bind(1, (int64_t)id);
    if (!s.step()) return std::nullopt;
    return row(s);
}

std::optional<StoredJob> JobStore::latest_with_request_id(const std::string& request_id) const {
    std::lock_guard<std::mutex> lk(mu_);
    Stmt s(db_, (std::string("SELECT ") + kColumns + " FROM proof_jobs WHERE request_id = ? ORDER BY id DESC LIMIT 1")
                    .c_str());
    s.text(1, request_id);
    if (!s.step()) return std::nullopt;
    return row(s);
}

std::vector<StoredJob> JobStore::unfinished() const {
    std::lock_guard<std::mutex> lk(mu_);
    Stmt s(db_, (std::string("SELECT ") + kColumns + " FROM proof_jobs WHERE state IN ('queued', 'running') ORDER BY id")
                    .c_str());
    std::vector<StoredJob> v;
    while (s.step()) v.push_back(row(s));
    return v;
}

size_t JobStore::purge(double fetched_before, double ended_before) {
    std::lock_guard<std::mutex> lk(mu_);
    check_writable();
    Stmt s(db_,
           "DELETE FROM proof_jobs WHERE state IN ('done', 'failed', 'cancelled') AND "
           "((fetched_at > 0 AND fetched_at < ? AND request_id = '') OR finished_at < ?)");
    s.bind(1, fetched_before).bind(2, ended_before);
    s.step();
    return (size_t)sqlite3_changes(db_);
}

size_t JobStore::count() const {
    std::lock_guard<std::mutex> lk(mu_);
    Stmt s(db_, "SELECT COUNT(*) FROM proof_jobs");
    s.step();
    return (size_t)s.i64(0);
}

}  // namespace cuzk::daemon
