#include "cuzk/util/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cuzk/util/random.hpp"

namespace cuzk {

namespace {

std::string describe(const std::filesystem::path& p, const std::string& what, int err) {
    std::string s = p.string() + ": " + what;
    if (err) s += ": " + std::string(std::strerror(err));
    return s;
}

std::filesystem::path parent_or_dot(const std::filesystem::path& p) {
    std::filesystem::path d = p.parent_path();
    return d.empty() ? std::filesystem::path(".") : d;
}

// A name nobody can guess: .<name>.cuzk-<16 hex digits> in the target's directory.
std::filesystem::path temporary_beside(const std::filesystem::path& target) {
    uint64_t r = 0;
    OsRng::fill(&r, sizeof r);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)r);
    return parent_or_dot(target) / ("." + target.filename().string() + ".cuzk-" + hex);
}

void fsync_directory(const std::filesystem::path& dir, const std::filesystem::path& target) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) throw OutputFileError(describe(target, "cannot open its directory to flush it", errno));
    const int rc = ::fsync(fd), err = errno;
    ::close(fd);
    // Some file systems cannot flush a directory (EINVAL); the rename itself has happened.
    if (rc != 0 && err != EINVAL) throw OutputFileError(describe(target, "cannot flush its directory", err));
}

}  // namespace

OutputFile::OutputFile(const std::filesystem::path& target) : target_(target) {
    if (target.empty()) throw OutputFileError("an output path is empty");
    if (!target.has_filename()) throw OutputFileError(describe(target, "is not a file name", 0));
    struct stat st {};
    int keep_mode = -1;
    if (::stat(target.c_str(), &st) == 0) {
        if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
            // In place; a FIFO without a reader would block forever, so it must have one now.
            in_place_ = true;
            fd_ = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | (S_ISFIFO(st.st_mode) ? O_NONBLOCK : 0));
            if (fd_ < 0)
                fail(errno == ENXIO ? "is a FIFO that nobody reads" : "cannot open for writing", errno == ENXIO ? 0 : errno);
            if (S_ISFIFO(st.st_mode)) ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
            temp_ = final_ = target;
            return;
        }
        if (S_ISDIR(st.st_mode)) fail("is a directory", 0);
        if (!S_ISREG(st.st_mode)) fail("is neither a regular file nor a device or FIFO; refusing to replace it", 0);
        std::error_code ec;
        final_ = std::filesystem::canonical(target, ec);  // a symbolic link: the file it names
        if (ec) fail("cannot resolve: " + ec.message(), 0);
        keep_mode = (int)(st.st_mode & 07777);
    } else {
        const int err = errno;
        if (err != ENOENT) fail("cannot inspect", err);
        struct stat lst {};
        if (::lstat(target.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode))
            fail("is a symbolic link to a missing file; refusing to follow it", 0);
        final_ = target;
    }
    for (int attempt = 0;; attempt++) {
        temp_ = temporary_beside(final_);
        fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd_ >= 0) break;
        if (errno != EEXIST || attempt == 16) {
            const int err = errno;
            temp_.clear();
            throw OutputFileError(describe(target, "cannot create a file in " + parent_or_dot(final_).string(), err));
        }
    }
    if (keep_mode >= 0 && ::fchmod(fd_, (mode_t)keep_mode) != 0) fail("cannot keep the file's permissions", errno);
}

OutputFile::~OutputFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_ && !in_place_ && !temp_.empty()) ::unlink(temp_.c_str());
}

void OutputFile::fail(const std::string& what, int err) const { throw OutputFileError(describe(target_, what, err)); }

void OutputFile::write(std::span<const uint8_t> bytes) {
    if (fd_ < 0) throw std::logic_error("OutputFile::write after commit");
    // Small writes (a point at a time) gather in the buffer; large ones go straight through.
    if (buffer_.size() + bytes.size() <= kBufferBytes) {
        buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
        return;
    }
    flush_buffer();
    if (bytes.size() < kBufferBytes) buffer_.assign(bytes.begin(), bytes.end());
    else write_all(bytes);
}

void OutputFile::flush_buffer() {
    write_all(buffer_);
    buffer_.clear();
}

void OutputFile::write_all(std::span<const uint8_t> bytes) {
    const uint8_t* p = bytes.data();
    size_t left = bytes.size();
    while (left > 0) {
        const ssize_t n = ::write(fd_, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("write failed", errno);
        }
        if (n == 0) fail("write made no progress", 0);
        p += n;
        left -= (size_t)n;
    }
}

void OutputFile::commit() {
    if (fd_ < 0) throw std::logic_error("OutputFile::commit twice");
    flush_buffer();
    if (in_place_) {
        const int rc = ::close(fd_);
        fd_ = -1;
        committed_ = true;
        if (rc != 0) fail("close failed", errno);
        return;
    }
    if (::fsync(fd_) != 0) fail("cannot flush to disk", errno);
    const int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) fail("close failed", errno);
    if (::rename(temp_.c_str(), final_.c_str()) != 0) fail("cannot move " + temp_.string() + " into place", errno);
    committed_ = true;
    fsync_directory(parent_or_dot(final_), target_);
}

void write_file_atomically(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
    OutputFile out(path);
    out.write(bytes);
    out.commit();
}

void write_file_atomically(const std::filesystem::path& path, const std::function<void(OutputFile&)>& fill) {
    OutputFile out(path);
    fill(out);
    out.commit();
}

}  // namespace cuzk
