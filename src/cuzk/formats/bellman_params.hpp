// bellman / bellperson Groth16 parameter and verifying-key files.
//
// Parameter file (bellman `Parameters::write`; bellperson writes the same bytes):
//   alpha_g1 G1 | beta_g1 G1 | beta_g2 G2 | gamma_g2 G2 | delta_g1 G1 | delta_g2 G2     the verifying key's points
//   u32 n_ic | n_ic x G1                                                                 ic
//   u32 n_h  | n_h  x G1                                                                 h
//   u32 n_l  | n_l  x G1                                                                 l
//   u32 n_a  | n_a  x G1                                                                 a
//   u32 n_b  | n_b  x G1                                                                 b_g1
//   u32 n_b2 | n_b2 x G2                                                                 b_g2
// Every count is big-endian; every point is the zcash uncompressed encoding (G1 96 bytes, G2 192 bytes; see
// cuzk/ec/encoding.hpp). Nothing marks the end: files from a phase-2 MPC ceremony carry the ceremony transcript
// after b_g2, so a reader reports the bytes that follow the parameters instead of failing or ignoring them.
//
// Verifying-key file (bellman `VerifyingKey::write`): the first seven sections above (the six points and ic).
// A parameter file therefore also reads as a verifying-key file whose trailing bytes are the proving key.
//
// Reading is done in two steps so that no input can make the reader allocate or index past the data:
//   1. parse_*_layout walks the section headers of the raw bytes and checks every count against the bytes that
//      remain, producing a bounds-checked view (SectionView) of each section; nothing is decoded or allocated yet.
//   2. read_* decodes every point of the view, in parallel, and reports the first bad point of the first bad section
//      with the section's name and the point's index.
// Which points are accepted follows bellman's reader: the verifying key's six points and ic are always fully
// checked (on the curve and in the prime-order subgroup; they are few, and the verifier trusts them); the five
// query sections are fully checked unless ParamsReadOptions::check_subgroup is false; ic and the queries never hold
// the point at infinity (bellman rejects it there) unless ParamsReadOptions::allow_infinity is true.
//
// Every problem with an input is a FormatError (kind + a message naming the file, the section and the index);
// no input crashes the reader or reaches undefined behaviour.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cuzk/ec/encoding.hpp"
#include "cuzk/groth16/types.hpp"

namespace cuzk::formats {

// ---- errors (shared by every reader and writer in formats/) -----------------------------------------------------

enum class FormatErrorKind : uint8_t {
    Io = 1,           // missing, unreadable or not a regular file; or a write failed
    Truncated,        // the data ends inside a fixed-size field (a verifying-key point or a section's count)
    CountTooLarge,    // a section's count needs more bytes than remain in the data
    BadPoint,         // a point's encoding is rejected; decode_error() says why
    PointAtInfinity,  // the point at infinity where the format forbids it
    TrailingBytes,    // bytes after the parameters when the caller asked to reject them
    BadLength,        // a length that is not a multiple of the record size (proof batch, raw public inputs)
    BadJson,          // not JSON, or JSON of the wrong shape
    BadValue,         // a public input that is not a canonical field element
    TooLarge,         // writing: a section holds more points than its u32 count can say
};

// "io", "truncated", "count-too-large", ... (stable: the CLI prints them).
std::string_view format_error_kind_name(FormatErrorKind kind);

class FormatError : public std::runtime_error {
  public:
    // `message` is the complete what(): it names the source (file name), the section and the index.
    FormatError(FormatErrorKind kind, const std::string& message, std::string section = {},
                std::optional<size_t> index = std::nullopt, std::optional<DecodeError> decode = std::nullopt);

    FormatErrorKind kind() const { return kind_; }
    // The section ("h", "b_g2", "ic", "alpha_g1", a proof's "a"/"b"/"c", ...); empty when the error has none.
    const std::string& section() const { return section_; }
    // The index of the point, proof or value inside its section, when the error concerns one.
    std::optional<size_t> index() const { return index_; }
    // Why the point decoder rejected the encoding (only for FormatErrorKind::BadPoint).
    std::optional<DecodeError> decode_error() const { return decode_; }

  private:
    FormatErrorKind kind_;
    std::string section_;
    std::optional<size_t> index_;
    std::optional<DecodeError> decode_;
};

// ---- a read-only memory map of a whole file ---------------------------------------------------------------------

// Owns the mapping; bytes() stays valid for the object's lifetime. Throws FormatError(Io) naming the file and the
// OS reason when the file is missing, unreadable, or not a regular file. An empty file maps to an empty span.
//
// A file that another process truncates while it is mapped (an operator copying a new parameter set over the old
// one) would raise SIGBUS on the next access and end the process. Here it does not: a process-wide SIGBUS handler
// maps zeros over the rest of such a mapping and marks it, and verify_unchanged() then throws FormatError(Io)
// ("changed while it was read"); it also compares the file's size and modification time with those at open. Read
// through read(), which decodes and then verifies (even when the decoder threw on the zeros), so nothing decoded
// from a changing file is ever used.
class MappedFile {
  public:
    explicit MappedFile(const std::filesystem::path& path);
    ~MappedFile();
    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&& other) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    std::span<const uint8_t> bytes() const { return {data_, size_}; }
    const std::filesystem::path& path() const { return path_; }

    // Throws FormatError(Io) when the file shrank under the mapping or was modified since it was opened.
    void verify_unchanged() const;
    // f(bytes()), then verify_unchanged(); if f throws, verify_unchanged() first (its error wins).
    template <class F>
    decltype(auto) read(F&& f) const {
        try {
            decltype(auto) r = f(bytes());
            verify_unchanged();
            return r;
        } catch (...) {
            verify_unchanged();
            throw;
        }
    }

  private:
    void release() noexcept;
    std::filesystem::path path_;
    const uint8_t* data_ = nullptr;
    size_t size_ = 0;
    int fd_ = -1;         // kept open to compare the file with what was mapped
    int guard_ = -1;      // the SIGBUS guard slot of the mapping (-1: none)
    int64_t mtime_ns_ = 0;
};

// ---- the layout view ----------------------------------------------------------------------------------------------

enum class PointGroup : uint8_t { G1, G2 };

// One section of the file: its points as a bounds-checked span of the underlying bytes (not owned).
struct SectionView {
    std::string_view name;  // "alpha_g1", "beta_g1", "beta_g2", "gamma_g2", "delta_g1", "delta_g2", "ic", "h", ...
    PointGroup group = PointGroup::G1;
    bool has_count = false;         // preceded by a u32 big-endian count (ic and the queries) or a single fixed point
    size_t offset = 0;              // byte offset of the first point in the file
    size_t count = 0;               // number of points
    std::span<const uint8_t> data;  // count * point_bytes() bytes

    size_t point_bytes() const { return group == PointGroup::G1 ? G1_UNCOMPRESSED_BYTES : G2_UNCOMPRESSED_BYTES; }
    // The encoding of point i; throws std::out_of_range for i >= count.
    std::span<const uint8_t> point(size_t i) const;
};

struct FileLayout {
    std::vector<SectionView> sections;  // in file order
    size_t used_bytes = 0;              // bytes the key occupies from the start of the data
    size_t trailing_bytes = 0;          // bytes after it

    // The section of that name; throws std::out_of_range when there is none.
    const SectionView& section(std::string_view name) const;
};

// Walks the headers and validates every count against the bytes that remain; throws FormatError (Truncated,
// CountTooLarge) naming `source` and the section. Decodes nothing and allocates nothing proportional to a count.
FileLayout parse_parameters_layout(std::span<const uint8_t> data, std::string_view source);
FileLayout parse_verifying_key_layout(std::span<const uint8_t> data, std::string_view source);

// ---- reading -----------------------------------------------------------------------------------------------------

// Batched subgroup checks run somewhere other than the CPU (a GPU: backends/cuda/subgroup_checks.hpp), with the
// contract of g1_batch_first_not_in_subgroup / g2_... (msm/batch_subgroup.hpp): the index of the first point
// outside the subgroup, or nullopt.
struct SubgroupChecks {
    std::function<std::optional<size_t>(std::span<const G1Affine>)> g1;
    std::function<std::optional<size_t>(std::span<const G2Affine>)> g2;
    explicit operator bool() const { return g1 && g2; }
};

struct ParamsReadOptions {
    // Check that every point of h, l, a, b_g1, b_g2 is in its prime-order subgroup (bellman's `checked`), in one
    // batch per section (msm/batch_subgroup.hpp: a point outside the subgroup passes with probability at most 2^-64;
    // ~1 s for a 604 MB file on 16 cores against ~35 s point by point). Off, those points are still checked to be
    // on their curve (the *_unchecked decoders); use it only for files whose hash is pinned. The verifying key and
    // ic are always fully checked, point by point.
    bool check_subgroup = true;
    // Where those checks run: empty, on the CPU; set, on the device, each section's check running while the next
    // section is decoded (the first bad point of the first bad section is reported all the same).
    SubgroupChecks device_checks;
    // Accept the point at infinity in ic and the queries (bellman's reader rejects it; a key generated for a circuit
    // with an unconstrained variable has one in l).
    bool allow_infinity = false;
    // Throw FormatError(TrailingBytes) when bytes follow the key instead of reporting their number.
    bool reject_trailing_bytes = false;
};

struct ParamsReadResult {
    groth16::Parameters params;
    size_t parameters_bytes = 0;  // bytes the parameters occupy
    size_t trailing_bytes = 0;    // bytes after them (a phase-2 transcript in ceremony files)
    // Time spent on the five queries: decoding (storage, byte parsing, field and curve checks) and the batched
    // subgroup checks (zero when not checked). With device checks the two overlap: subgroup_seconds is then the
    // checks' own time and subgroup_wait_seconds the part of it the reader waited for after decoding.
    double decode_seconds = 0;
    double subgroup_seconds = 0;
    double subgroup_wait_seconds = 0;
};

struct VerifyingKeyReadResult {
    groth16::VerifyingKey vk;
    size_t verifying_key_bytes = 0;
    size_t trailing_bytes = 0;
};

// `source` names the data in error messages (a file name, or e.g. "<memory>").
ParamsReadResult read_parameters(const std::filesystem::path& path, const ParamsReadOptions& options = {});
ParamsReadResult read_parameters(std::span<const uint8_t> data, std::string_view source,
                                 const ParamsReadOptions& options = {});

// A parameter file read as a groth16::QuerySource: open() parses the layout and decodes the verifying key and ic
// (fully checked, as read_parameters does); the five queries' points are decoded range by range as they are read
// (bytes, field and curve checks, the point at infinity refused unless allowed), never all at once, and with no
// subgroup check: the reader checks them where it puts them (a GPU's resident copy: gpu/subgroup.hpp) and, when
// that check fails, calls throw_not_in_subgroup for the report read_parameters would give. A range with a bad
// point throws the FormatError of the first bad point of its section up to that range (the same report as
// read_parameters for a section with one bad point). Call verify_unchanged() once everything was read: nothing read
// from a file that changed meanwhile may be used. device_checks and check_subgroup of the options are unused here
// except by throw_not_in_subgroup.
class ParamsFileSource final : public groth16::QuerySource {
  public:
    ParamsFileSource(const std::filesystem::path& path, const ParamsReadOptions& options = {});
    const groth16::KeyShape& shape() const override { return shape_; }
    void read(G1Query query, size_t lo, size_t hi, G1Affine* out) const override;
    void read_b_g2(size_t lo, size_t hi, G2Affine* out) const override;
    const std::filesystem::path& path() const { return file_.path(); }
    size_t parameters_bytes() const { return layout_.used_bytes; }
    size_t trailing_bytes() const { return layout_.trailing_bytes; }
    // Throws FormatError(Io) when the file changed since it was opened (MappedFile::verify_unchanged).
    void verify_unchanged() const { file_.verify_unchanged(); }
    // Throws the FormatError (NotInSubgroup) of the first point of `section` ("h", "l", "a", "b_g1", "b_g2") outside
    // its subgroup, found piece by piece (a few hundred MB at a time, on the device when the options name device
    // checks); when there is none after all (a file that changed, or a 2^-64 miss of the first check) a FormatError
    // that says so.
    [[noreturn]] void throw_not_in_subgroup(std::string_view section) const;

  private:
    MappedFile file_;
    FileLayout layout_;
    ParamsReadOptions options_;
    groth16::KeyShape shape_;
};

// Only allow_infinity (for ic) and reject_trailing_bytes apply; the verifying key is always fully checked.
VerifyingKeyReadResult read_verifying_key(const std::filesystem::path& path, const ParamsReadOptions& options = {});
VerifyingKeyReadResult read_verifying_key(std::span<const uint8_t> data, std::string_view source,
                                          const ParamsReadOptions& options = {});

// ---- writing (byte-identical to bellman's writers) ---------------------------------------------------------------

// Exact sizes of the encodings; throw FormatError(TooLarge) when a section exceeds 2^32 - 1 points.
size_t parameters_size(const groth16::Parameters& params);
size_t verifying_key_size(const groth16::VerifyingKey& vk);

std::vector<uint8_t> parameters_to_bytes(const groth16::Parameters& params);
std::vector<uint8_t> verifying_key_to_bytes(const groth16::VerifyingKey& vk);

// The stream versions throw FormatError(Io) when the stream fails. The path versions write a temporary file next to
// `path` and rename it over `path`, so a failed or interrupted write never leaves a truncated key behind.
void write_parameters(std::ostream& out, const groth16::Parameters& params);
void write_parameters(const std::filesystem::path& path, const groth16::Parameters& params);
void write_verifying_key(std::ostream& out, const groth16::VerifyingKey& vk);
void write_verifying_key(const std::filesystem::path& path, const groth16::VerifyingKey& vk);

// ---- shared by the formats/ readers and writers ------------------------------------------------------------------
namespace detail {
// Writes `bytes` to a temporary file next to `path`, then renames it over `path`; FormatError(Io) on failure.
void write_file_atomically(const std::filesystem::path& path, std::span<const uint8_t> bytes);
}  // namespace detail

}  // namespace cuzk::formats
