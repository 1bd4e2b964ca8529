#include "cuzk/daemon/state_dir.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace cuzk::daemon {

namespace fs = std::filesystem;

namespace {

constexpr mode_t kPrivateDir = S_IRWXU;            // 0700
constexpr mode_t kPrivateFile = S_IRUSR | S_IWUSR;  // 0600
// What the umask clears: every group and other bit, so whatever the daemon creates is private to its user.
constexpr mode_t kPrivateUmask = S_IRWXG | S_IRWXO;  // 077

[[noreturn]] void fail(const fs::path& dir, const std::string& what, int err = 0) {
    throw std::runtime_error("daemon: the state directory " + dir.string() + ": " + what +
                             (err ? std::string(": ") + std::strerror(err) : std::string()));
}

// The directory, created 0700 when it is not there (with the umask above, its missing parents too). One that
// exists keeps its mode (it may be "." or a directory the operator shares on purpose): the files in it are private
// either way.
void make_dir(const fs::path& dir) {
    std::error_code ec;
    const bool made = fs::create_directories(dir, ec);
    if (ec) fail(dir, "cannot create it", ec.value());
    struct stat st{};
    if (::stat(dir.c_str(), &st) != 0) fail(dir, "cannot stat it", errno);
    if (!S_ISDIR(st.st_mode)) fail(dir, "is not a directory");
    if (made && ::chmod(dir.c_str(), kPrivateDir) != 0) fail(dir, "cannot make it private (chmod 0700)", errno);
}

// A regular file an older daemon left readable by others, made 0600 (a missing file is fine).
void tighten(const fs::path& file) {
    struct stat st{};
    if (::lstat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
    if ((st.st_mode & 07777) != kPrivateFile) (void)::chmod(file.c_str(), kPrivateFile);
}

}  // namespace

StateDir::StateDir(const DaemonConfig& cfg) {
    ::umask(kPrivateUmask);
    make_dir(cfg.state_dir);
    const fs::path db = cfg.database();
    for (const char* suffix : {"", "-wal", "-shm"}) tighten(db.string() + suffix);
    const fs::path lock = lock_path(cfg);
    lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, kPrivateFile);
    if (lock_fd_ < 0) fail(cfg.state_dir, "cannot open its lock file " + lock.filename().string(), errno);
    if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        ::close(lock_fd_);
        if (err == EWOULDBLOCK) fail(cfg.state_dir, "another daemon is using it (it holds " + lock.string() + ")");
        fail(cfg.state_dir, "cannot lock " + lock.string(), err);
    }
}

StateDir::~StateDir() {
    if (lock_fd_ >= 0) ::close(lock_fd_);  // closing the descriptor releases the flock
}

}  // namespace cuzk::daemon
