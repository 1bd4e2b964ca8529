// Output files that are written whole or not at all, safely in directories other users can write.
//
// What the target path names decides how it is written:
//   - a regular file, or nothing yet: the bytes go to a new temporary file beside it (random name, created with
//     O_CREAT | O_EXCL | O_NOFOLLOW, so nobody can plant a link or a file under that name), which is flushed to
//     disk, renamed over the target and the directory flushed too. A crash or an error leaves the old file (or
//     none); the temporary is removed. An existing file keeps its permission bits. A symbolic link to a regular file
//     is followed (the file it names is replaced, the link stays), as `cp` and shell redirection do.
//   - a character device or a FIFO (`/dev/null`, `/dev/stdout`, a pipe): written in place, never replaced.
//   - a directory, a socket, or a symbolic link to nothing: refused.
// Every write is checked: a full disk fails the command (OutputFileError), it never reports success.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace cuzk {

class OutputFileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class OutputFile {
public:
    explicit OutputFile(const std::filesystem::path& target);
    ~OutputFile();  // not committed: the temporary file is removed (a device or FIFO is just closed)
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    void write(std::span<const uint8_t> bytes);
    void write(const void* data, size_t size) { write({static_cast<const uint8_t*>(data), size}); }
    // Flushes and puts the file in place; the object is done afterwards.
    void commit();

    // Where the bytes go until commit (the target itself when written in place).
    const std::filesystem::path& temporary_path() const { return temp_; }

private:
    [[noreturn]] void fail(const std::string& what, int err) const;
    void flush_buffer();
    void write_all(std::span<const uint8_t> bytes);

    static constexpr size_t kBufferBytes = size_t(1) << 20;
    std::vector<uint8_t> buffer_;

    std::filesystem::path target_;  // what the caller named
    std::filesystem::path final_;   // the file that commit replaces (symbolic links resolved)
    std::filesystem::path temp_;
    int fd_ = -1;
    bool in_place_ = false;
    bool committed_ = false;
};

// The whole file from `bytes`, or from what `fill` writes.
void write_file_atomically(const std::filesystem::path& path, std::span<const uint8_t> bytes);
void write_file_atomically(const std::filesystem::path& path, const std::function<void(OutputFile&)>& fill);

}  // namespace cuzk
