// The daemon's state directory, held for the daemon's life (issue 20 items 2 and 3): private, and one daemon's.
//   - created 0700 when it is not there (an existing directory keeps its mode: it may be "."); the process's umask
//     becomes 077, so the job database, its -wal and -shm (a circom job's witness, its private inputs, is stored
//     there) and everything else the daemon creates are 0600; database files an older version left readable are
//     tightened too;
//   - an exclusive lock (flock on <state>/cuzk.lock, taken without waiting) that a second daemon on the same
//     directory cannot take: it refuses to start instead of resuming and proving the same jobs again.
#pragma once

#include <filesystem>

#include "cuzk/daemon/config.hpp"

namespace cuzk::daemon {

class StateDir {
public:
    // std::runtime_error naming the directory: it cannot be created or locked, or another daemon holds it.
    explicit StateDir(const DaemonConfig& cfg);
    ~StateDir();  // releases the lock
    StateDir(const StateDir&) = delete;
    StateDir& operator=(const StateDir&) = delete;

    static std::filesystem::path lock_path(const DaemonConfig& cfg) { return cfg.state_dir / "cuzk.lock"; }

private:
    int lock_fd_ = -1;
};

}  // namespace cuzk::daemon
