#include "cuzk/util/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cuzk {

namespace {

[[noreturn]] void fail(const std::filesystem::path& path, std::string_view what, const std::string& why, int err = 0) {
    std::string msg = (what.empty() ? std::string() : std::string(what) + ": ") + path.string() + ": " + why;
    if (err) msg += ": " + std::string(std::strerror(err));
    throw InputFileError(msg);
}

struct Fd {
    int fd;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

}  // namespace

std::string read_input_file(const std::filesystem::path& path, size_t max_bytes, std::string_view what) {
    Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
    if (f.fd < 0) fail(path, what, "cannot open", errno);
    struct stat st {};
    if (::fstat(f.fd, &st) != 0) fail(path, what, "cannot stat", errno);
    if (!S_ISREG(st.st_mode))
        fail(path, what, S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file (a FIFO or a device?)");
    if ((uint64_t)st.st_size > max_bytes)
        fail(path, what, "is " + std::to_string(st.st_size) + " bytes, more than the " + std::to_string(max_bytes) +
                             " this input may have");
    ::fcntl(f.fd, F_SETFL, ::fcntl(f.fd, F_GETFL) & ~O_NONBLOCK);
    std::string out((size_t)st.st_size, '\0');
    size_t got = 0;
    while (got < out.size()) {
        const ssize_t n = ::read(f.fd, out.data() + got, out.size() - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail(path, what, "read failed", errno);
        }
        if (n == 0) break;  // shrank while read: what is there
        got += (size_t)n;
    }
    out.resize(got);
    return out;
}

}  // namespace cuzk
