// Whole input files read into memory, refusing what would hang or exhaust memory (issue 20 item 10): the file is
// opened without blocking (a FIFO with no writer would block open() forever), must be a regular file (not a
// FIFO, a device such as /dev/zero, or a directory), and must not exceed a cap the caller states.
// (Large binary inputs are mapped instead: formats::MappedFile, which applies the same checks.)
#pragma once

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cuzk {

class InputFileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Caps for the kinds of input cuzk reads whole.
inline constexpr size_t kMaxJsonInputBytes = size_t(256) << 20;  // proofs, keys, public inputs, manifests
inline constexpr size_t kMaxC1InputBytes = size_t(4) << 30;      // a C1 (a 32 GiB sector's is ~50 MB)
inline constexpr size_t kMaxConfigBytes = size_t(1) << 20;

// The file's bytes. InputFileError names `what` (e.g. "--c1") and the path when it cannot be opened, is not a
// regular file, is larger than max_bytes, or a read fails.
std::string read_input_file(const std::filesystem::path& path, size_t max_bytes, std::string_view what = {});

}  // namespace cuzk
