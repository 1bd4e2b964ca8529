#include "cuzk/formats/bellman_params.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <functional>
#include <future>
#include <limits>
#include <mutex>
#include <ostream>
#include <system_error>

#include "cuzk/formats/point_decode.hpp"
#include "cuzk/msm/batch_subgroup.hpp"
#include "cuzk/util/huge_pages.hpp"
#include "cuzk/util/output_file.hpp"
#include "cuzk/util/thread_pool.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::formats {

static_assert(sizeof(size_t) >= 8, "count * point size (< 2^40) must not overflow size_t");

// ---- errors -------------------------------------------------------------------------------------------------------

std::string_view format_error_kind_name(FormatErrorKind kind) {
    switch (kind) {
        case FormatErrorKind::Io:
            return "io";
        case FormatErrorKind::Truncated:
            return "truncated";
        case FormatErrorKind::CountTooLarge:
            return "count-too-large";
        case FormatErrorKind::BadPoint:
            return "bad-point";
        case FormatErrorKind::PointAtInfinity:
            return "point-at-infinity";
        case FormatErrorKind::TrailingBytes:
            return "trailing-bytes";
        case FormatErrorKind::BadLength:
            return "bad-length";
        case FormatErrorKind::BadJson:
            return "bad-json";
        case FormatErrorKind::BadValue:
            return "bad-value";
        case FormatErrorKind::TooLarge:
            return "too-large";
    }
    return "unknown";
}

FormatError::FormatError(FormatErrorKind kind, const std::string& message, std::string section,
                         std::optional<size_t> index, std::optional<DecodeError> decode)
    : std::runtime_error(message), kind_(kind), section_(std::move(section)), index_(index), decode_(decode) {}

namespace {

std::string os_reason(int err) { return std::generic_category().message(err); }

[[noreturn]] void throw_io(const std::filesystem::path& path, std::string_view what, int err) {
    std::string msg = path.string() + ": " + std::string(what);
    if (err != 0) msg += ": " + os_reason(err);
    throw FormatError(FormatErrorKind::Io, msg);
}

}  // namespace

// ---- MappedFile ---------------------------------------------------------------------------------------------------

namespace {

// The SIGBUS guard: slots naming the mappings in use (lock-free, read by the signal handler). A fault inside one
// maps zeros over the rest of that mapping and marks the slot; any other SIGBUS goes where it would have gone.
constexpr int kGuardSlots = 512;
struct GuardSlot {
    std::atomic<bool> used{false};
    std::atomic<uintptr_t> begin{0}, end{0};
    std::atomic<bool> faulted{false};
};
GuardSlot g_guard[kGuardSlots];
struct sigaction g_previous_sigbus {};
uintptr_t g_page_size = 4096;

void on_sigbus(int sig, siginfo_t* info, void* context) {
    const uintptr_t at = (uintptr_t)info->si_addr;
    for (GuardSlot& s : g_guard) {
        const uintptr_t begin = s.begin.load(std::memory_order_acquire), end = s.end.load(std::memory_order_acquire);
        if (begin <= at && at < end) {
            const uintptr_t page = at & ~(g_page_size - 1);
            if (::mmap((void*)page, end - page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
                s.faulted.store(true, std::memory_order_release);
                return;  // the access is retried and reads zeros
            }
            break;
        }
    }
    const struct sigaction& prev = g_previous_sigbus;
    if ((prev.sa_flags & SA_SIGINFO) != 0 && prev.sa_sigaction != nullptr) return prev.sa_sigaction(sig, info, context);
    if (prev.sa_handler == SIG_IGN) return;
    if (prev.sa_handler != SIG_DFL && prev.sa_handler != nullptr) return prev.sa_handler(sig);
    // The default action: the faulting access is retried with it in place.
    ::signal(SIGBUS, SIG_DFL);
}

int claim_guard(const uint8_t* data, size_t size) {
    static std::once_flag installed;
    std::call_once(installed, [] {
        g_page_size = (uintptr_t)::sysconf(_SC_PAGESIZE);
        struct sigaction sa {};
        sa.sa_sigaction = on_sigbus;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        ::sigaction(SIGBUS, &sa, &g_previous_sigbus);
    });
    for (int i = 0; i < kGuardSlots; i++) {
        bool expected = false;
        if (g_guard[i].used.compare_exchange_strong(expected, true)) {
            g_guard[i].faulted.store(false);
            // begin before end, so the range is never [0, end) in between (and the reverse on release)
            g_guard[i].begin.store((uintptr_t)data, std::memory_order_release);
            g_guard[i].end.store((uintptr_t)data + size, std::memory_order_release);
            return i;
        }
    }
    return -1;  // more than kGuardSlots files mapped at once: this one is unguarded
}

void release_guard(int slot) {
    if (slot < 0) return;
    g_guard[slot].end.store(0, std::memory_order_release);
    g_guard[slot].begin.store(0, std::memory_order_release);
    g_guard[slot].used.store(false, std::memory_order_release);
}

int64_t mtime_ns(const struct stat& st) { return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec; }

}  // namespace

MappedFile::MappedFile(const std::filesystem::path& path) : path_(path) {
    // O_NONBLOCK: a FIFO without a writer would block open() forever; it is refused below like any non-file.
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) throw_io(path, "cannot open", errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        int err = errno;
        ::close(fd);
        throw_io(path, "cannot stat", err);
    }
    // A directory opens read-only without error and a pipe has no size to map: say what is wrong instead.
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        throw_io(path, "not a regular file", 0);
    }
    size_ = (size_t)st.st_size;
    mtime_ns_ = mtime_ns(st);
    if (size_ > 0) {  // mmap rejects a zero length; an empty file is an empty span
        void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int err = errno;
            ::close(fd);
            size_ = 0;
            throw_io(path, "cannot map", err);
        }
        // The decoder touches every page once, from a few threads each walking a contiguous range.
        ::madvise(p, size_, MADV_WILLNEED);
        data_ = static_cast<const uint8_t*>(p);
        guard_ = claim_guard(data_, size_);
    }
    fd_ = fd;
}

void MappedFile::verify_unchanged() const {
    const bool shrank = guard_ >= 0 && g_guard[guard_].faulted.load(std::memory_order_acquire);
    struct stat st {};
    const bool changed = fd_ >= 0 && ::fstat(fd_, &st) == 0 && ((size_t)st.st_size != size_ || mtime_ns(st) != mtime_ns_);
    if (shrank || changed)
        throw_io(path_, std::string(shrank ? "the file shrank" : "the file was modified") +
                            " while it was read (replaced in place by another process?); nothing read from it is used",
                 0);
}

void MappedFile::release() noexcept {
    release_guard(guard_);
    guard_ = -1;
    if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
    if (fd_ >= 0) ::close(fd_);
    data_ = nullptr;
    size_ = 0;
    fd_ = -1;
}

MappedFile::~MappedFile() { release(); }

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)), data_(other.data_), size_(other.size_), fd_(other.fd_), guard_(other.guard_),
      mtime_ns_(other.mtime_ns_) {
    other.data_ = nullptr;
    other.size_ = 0;
    other.fd_ = -1;
    other.guard_ = -1;
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
    if (this != &other) {
        release();
        path_ = std::move(other.path_);
        data_ = other.data_;
        size_ = other.size_;
        fd_ = other.fd_;
        guard_ = other.guard_;
        mtime_ns_ = other.mtime_ns_;
        other.data_ = nullptr;
        other.size_ = 0;
        other.fd_ = -1;
        other.guard_ = -1;
    }
    return *this;
}

// ---- layout -------------------------------------------------------------------------------------------------------

std::span<const uint8_t> SectionView::point(size_t i) const {
    if (i >= count)
        throw std::out_of_range("SectionView::point: index " + std::to_string(i) + " of section " + std::string(name) +
                                " with " + std::to_string(count) + " points");
    return data.subspan(i * point_bytes(), point_bytes());
}

const SectionView& FileLayout::section(std::string_view name) const {
    for (const auto& s : sections)
        if (s.name == name) return s;
    throw std::out_of_range("FileLayout::section: no section " + std::string(name));
}

namespace {

struct SectionSpec {
    std::string_view name;
    PointGroup group;
    bool has_count;
};

// bellman VerifyingKey::write, then the rest of Parameters::write.
constexpr std::array<SectionSpec, 7> VK_SECTIONS = {{
    {"alpha_g1", PointGroup::G1, false},
    {"beta_g1", PointGroup::G1, false},
    {"beta_g2", PointGroup::G2, false},
    {"gamma_g2", PointGroup::G2, false},
    {"delta_g1", PointGroup::G1, false},
    {"delta_g2", PointGroup::G2, false},
    {"ic", PointGroup::G1, true},
}};
constexpr std::array<SectionSpec, 5> QUERY_SECTIONS = {{
    {"h", PointGroup::G1, true},
    {"l", PointGroup::G1, true},
    {"a", PointGroup::G1, true},
    {"b_g1", PointGroup::G1, true},
    {"b_g2", PointGroup::G2, true},
}};

std::string where(std::string_view source, std::string_view section) {
    return std::string(source) + ": section " + std::string(section);
}

void append_sections(FileLayout& layout, std::span<const uint8_t> data, std::string_view source,
                     std::span<const SectionSpec> specs) {
    size_t pos = layout.used_bytes;
    for (const SectionSpec& spec : specs) {
        SectionView v;
        v.name = spec.name;
        v.group = spec.group;
        v.has_count = spec.has_count;
        v.count = 1;
        if (spec.has_count) {
            size_t left = data.size() - pos;
            if (left < 4)
                throw FormatError(FormatErrorKind::Truncated,
                                  where(source, spec.name) + ": the data ends inside the point count at offset " +
                                      std::to_string(pos) + " (" + std::to_string(left) + " of 4 bytes)",
                                  std::string(spec.name));
            v.count = (size_t(data[pos]) << 24) | (size_t(data[pos + 1]) << 16) | (size_t(data[pos + 2]) << 8) |
                      size_t(data[pos + 3]);
            pos += 4;
        }
        // count < 2^32 and point_bytes <= 192, so the product cannot overflow (static_assert above).
        size_t need = v.count * v.point_bytes();
        size_t left = data.size() - pos;
        if (need > left) {
            if (!spec.has_count)
                throw FormatError(FormatErrorKind::Truncated,
                                  where(source, spec.name) + ": the data ends inside the point at offset " +
                                      std::to_string(pos) + " (" + std::to_string(left) + " of " +
                                      std::to_string(need) + " bytes)",
                                  std::string(spec.name), 0);
            throw FormatError(FormatErrorKind::CountTooLarge,
                              where(source, spec.name) + ": count " + std::to_string(v.count) + " needs " +
                                  std::to_string(need) + " bytes at offset " + std::to_string(pos) + " but only " +
                                  std::to_string(left) + " remain (truncated data or corrupt count)",
                              std::string(spec.name));
        }
        v.offset = pos;
        v.data = data.subspan(pos, need);
        pos += need;
        layout.sections.push_back(v);
    }
    layout.used_bytes = pos;
    layout.trailing_bytes = data.size() - pos;
}

}  // namespace

FileLayout parse_verifying_key_layout(std::span<const uint8_t> data, std::string_view source) {
    FileLayout layout;
    layout.sections.reserve(VK_SECTIONS.size());
    append_sections(layout, data, source, VK_SECTIONS);
    return layout;
}

FileLayout parse_parameters_layout(std::span<const uint8_t> data, std::string_view source) {
    FileLayout layout;
    layout.sections.reserve(VK_SECTIONS.size() + QUERY_SECTIONS.size());
    append_sections(layout, data, source, VK_SECTIONS);
    append_sections(layout, data, source, QUERY_SECTIONS);
    return layout;
}

// ---- decoding -----------------------------------------------------------------------------------------------------

namespace {

template <class A>
using Decoder = Decoded<A> (*)(std::span<const uint8_t>);

template <class A>
[[noreturn]] void throw_bad_point(const SectionView& s, size_t i, const Decoded<A>& d, std::string_view source) {
    std::string at = where(source, s.name);
    if (s.has_count) at += ", point " + std::to_string(i);
    if (!d)
        throw FormatError(FormatErrorKind::BadPoint, at + ": " + std::string(decode_error_message(*d.error())),
                          std::string(s.name), i, d.error());
    throw FormatError(FormatErrorKind::PointAtInfinity,
                      at + ": the point at infinity, which bellman parameters never hold here", std::string(s.name), i);
}

constexpr size_t NO_BAD_POINT = std::numeric_limits<size_t>::max();

// Sizes out to n points. std::vector<A>(n) constructs its elements on one thread, and for a large section most of
// that time is the kernel faulting in and zeroing the pages on first touch (a 2^27-point section is 14 GB, ~0.3 s
// per GB here): so the storage is reserved first, its pages are touched by all threads (asking for transparent huge
// pages), and only then are the elements constructed, which leaves plain memory writes on one thread.
// (Touching reserved, not yet constructed storage through data(): libstdc++ and libc++ return the allocation.)
template <class A>
void size_output(std::vector<A>& out, size_t n) {
    out.clear();
    out.reserve(n);
    const size_t bytes = n * sizeof(A);
    constexpr size_t kPage = 4096;
    if (advise_huge_pages(out.data(), bytes)) {
        auto* base = reinterpret_cast<unsigned char*>(out.data());
        parallel_for((bytes + kPage - 1) / kPage, [&](size_t p0, size_t p1) {
            for (size_t p = p0; p < p1; p++) base[p * kPage] = 0;
        });
    }
    out.resize(n);
}

// A vector of n points made on its own thread (storage faulted in as huge pages where the kernel allows, then
// constructed), for the section after the one being decoded. A section that fails to decode leaves the future
// unread; its destructor then waits for the thread.
template <class A>
std::future<std::vector<A>> sized_async(size_t n) {
    return std::async(std::launch::async, [n] {
        std::vector<A> v;
        v.reserve(n);
        advise_huge_pages(v.data(), n * sizeof(A));
        v.resize(n);
        return v;
    });
}

// Decodes a run of points into out[0, n) (formats/point_decode.hpp); returns the first failing index or n.
template <class A>
using BulkDecoder = size_t (*)(const uint8_t*, size_t, A*, bool);

// Decodes every point of the section in parallel, with `bulk` when given (runs of points, eight at a time on
// AVX-512 IFMA) and else point by point with `decode`; returns the lowest index whose point fails (or is the point
// at infinity where that is not allowed), NO_BAD_POINT when none does, so the report does not depend on the thread
// count or timing. Every point below that index is decoded; those above may be left unset.
template <class A>
size_t decode_points(const SectionView& s, Decoder<A> decode, BulkDecoder<A> bulk, bool allow_infinity,
                     std::vector<A>& out) {
    if (out.size() != s.count) size_output(out, s.count);
    const size_t bytes = s.point_bytes();
    std::atomic<size_t> first_bad{NO_BAD_POINT};
    auto record = [&](size_t i) {
        size_t cur = first_bad.load(std::memory_order_relaxed);
        while (i < cur && !first_bad.compare_exchange_weak(cur, i, std::memory_order_relaxed)) {
        }
    };
    auto one_by_one = [&](size_t begin, size_t end) -> size_t {
        for (size_t i = begin; i < end; i++) {
            Decoded<A> d = decode(s.point(i));
            if (!d || (!allow_infinity && d->is_identity())) return i;
            out[i] = *d;
        }
        return end;
    };
    auto work = [&](size_t begin, size_t end) {
        constexpr size_t kRun = 2048;  // points between looks at first_bad
        for (size_t r = begin; r < end; r += kRun) {
            // Nothing above an already-found bad point can change the report.
            if (r > first_bad.load(std::memory_order_relaxed)) return;
            const size_t e = std::min(end, r + kRun);
            const size_t bad = bulk ? r + bulk(s.data.data() + r * bytes, e - r, out.data() + r, allow_infinity)
                                    : one_by_one(r, e);
            if (bad != e) return record(bad);
        }
    };
    // A decode costs a microsecond (tens with the subgroup test); below a few dozen points the pool's hand-off
    // costs more.
    if (s.count < 32)
        work(0, s.count);
    else
        parallel_for(s.count, work);
    return first_bad.load();
}

template <class A>
std::vector<A> decode_section(const SectionView& s, Decoder<A> decode, BulkDecoder<A> bulk, bool allow_infinity,
                              std::string_view source) {
    std::vector<A> out;
    size_t bad = decode_points(s, decode, bulk, allow_infinity, out);
    if (bad != NO_BAD_POINT) throw_bad_point(s, bad, decode(s.point(bad)), source);
    return out;
}

template <class A>
using SubgroupBatchCheck = std::optional<size_t> (*)(std::span<const A>, const BatchSubgroupOptions&);

template <class A>
using DeviceBatchCheck = std::function<std::optional<size_t>(std::span<const A>)>;

// The device check of the section before the one being decoded, and how to report its bad point.
struct PendingCheck {
    std::future<std::optional<size_t>> outside;
    std::function<void(size_t)> report;  // throws the FormatError for that section's point

    void join(ParamsReadResult& timing) {
        if (!outside.valid()) return;
        const auto t0 = std::chrono::steady_clock::now();
        const std::optional<size_t> bad = outside.get();
        timing.subgroup_wait_seconds += seconds_since(t0);
        if (bad) report(*bad);
    }
};

// A query section: decoded with the unchecked decoder (everything but the subgroup test), then, when checked, the
// subgroup membership of all of its points in one batch (cuzk/msm/batch_subgroup.hpp: a point outside the subgroup
// passes with probability <= 2^-64, randomness from the OS) -- the same result and report as the checked decoder
// point by point, for a fraction of the time. The first bad point is the lowest index failing either check: the
// batch covers the points below the first decoding failure. On the CPU the check runs here; with a device check
// it runs on its own thread while the caller decodes the next section, and is joined (`pending`) before this
// section reports anything, so the first bad section is still the one reported. Adds the phases' time to `timing`.
template <class A>
void decode_query(const SectionView& s, std::vector<A>& dst, std::vector<A> out, Decoder<A> unchecked,
                  BulkDecoder<A> bulk, SubgroupBatchCheck<A> cpu_check, const DeviceBatchCheck<A>& device_check,
                  bool allow_infinity, std::string_view source, ParamsReadResult& timing, PendingCheck& pending) {
    auto t0 = std::chrono::steady_clock::now();
    const size_t bad = decode_points(s, unchecked, bulk, allow_infinity, out);
    timing.decode_seconds += seconds_since(t0);
    dst = std::move(out);
    const std::span<const A> good(dst.data(), bad == NO_BAD_POINT ? dst.size() : bad);
    auto report = [&s, source](size_t i) { throw_bad_point(s, i, Decoded<A>::fail(DecodeError::NotInSubgroup), source); };
    if (cpu_check && device_check) {
        pending.join(timing);  // the previous section's bad point comes first
        if (bad == NO_BAD_POINT) {
            pending.report = report;
            pending.outside = std::async(std::launch::async, [&timing, device_check, good] {
                const auto t1 = std::chrono::steady_clock::now();
                auto outside = device_check(good);
                timing.subgroup_seconds += seconds_since(t1);  // one check in flight at a time
                return outside;
            });
            return;
        }
    }
    if (cpu_check) {  // here, waited for: on the CPU, or on the device before a decoding failure is reported
        const auto t1 = std::chrono::steady_clock::now();
        auto outside = device_check ? device_check(good) : cpu_check(good, BatchSubgroupOptions{});
        timing.subgroup_seconds += seconds_since(t1);
        timing.subgroup_wait_seconds += seconds_since(t1);
        if (outside) report(*outside);
    }
    if (bad != NO_BAD_POINT) throw_bad_point(s, bad, unchecked(s.point(bad)), source);
}

G1Affine decode_single_g1(const SectionView& s, std::string_view source) {
    return decode_section<G1Affine>(s, g1_from_uncompressed, nullptr, true, source).at(0);
}
G2Affine decode_single_g2(const SectionView& s, std::string_view source) {
    return decode_section<G2Affine>(s, g2_from_uncompressed, nullptr, true, source).at(0);
}

// bellman's VerifyingKey::read: the six points fully checked (infinity allowed), ic fully checked and finite.
groth16::VerifyingKey decode_verifying_key(const FileLayout& layout, std::string_view source,
                                           const ParamsReadOptions& options) {
    groth16::VerifyingKey vk;
    vk.alpha_g1 = decode_single_g1(layout.section("alpha_g1"), source);
    vk.beta_g1 = decode_single_g1(layout.section("beta_g1"), source);
    vk.beta_g2 = decode_single_g2(layout.section("beta_g2"), source);
    vk.gamma_g2 = decode_single_g2(layout.section("gamma_g2"), source);
    vk.delta_g1 = decode_single_g1(layout.section("delta_g1"), source);
    vk.delta_g2 = decode_single_g2(layout.section("delta_g2"), source);
    vk.ic = decode_section<G1Affine>(layout.section("ic"), g1_from_uncompressed, nullptr, options.allow_infinity,
                                    source);
    return vk;
}

void check_trailing(const FileLayout& layout, std::string_view source, std::string_view what,
                    const ParamsReadOptions& options) {
    if (options.reject_trailing_bytes && layout.trailing_bytes != 0)
        throw FormatError(FormatErrorKind::TrailingBytes,
                          std::string(source) + ": " + std::to_string(layout.trailing_bytes) + " bytes follow the " +
                              std::string(what) + " (from offset " + std::to_string(layout.used_bytes) +
                              "; a phase-2 MPC transcript?) and trailing bytes were to be rejected");
}

}  // namespace

VerifyingKeyReadResult read_verifying_key(std::span<const uint8_t> data, std::string_view source,
                                          const ParamsReadOptions& options) {
    FileLayout layout = parse_verifying_key_layout(data, source);
    check_trailing(layout, source, "verifying key", options);
    VerifyingKeyReadResult r;
    r.vk = decode_verifying_key(layout, source, options);
    r.verifying_key_bytes = layout.used_bytes;
    r.trailing_bytes = layout.trailing_bytes;
    return r;
}

VerifyingKeyReadResult read_verifying_key(const std::filesystem::path& path, const ParamsReadOptions& options) {
    MappedFile file(path);
    return file.read([&](std::span<const uint8_t> b) { return read_verifying_key(b, path.string(), options); });
}

ParamsReadResult read_parameters(std::span<const uint8_t> data, std::string_view source,
                                 const ParamsReadOptions& options) {
    // Structure first: a bad count or a truncation is reported before any point is decoded or any vector sized.
    FileLayout layout = parse_parameters_layout(data, source);
    check_trailing(layout, source, "parameters", options);

    ParamsReadResult r;
    r.params.vk = decode_verifying_key(layout, source, options);
    // The queries: on the curve always; in the subgroup (by default) with the batched check, one section at a time
    // in file order, so the first bad point of the first bad section is reported. Constructing a section's vector
    // is a serial pass over its memory (~6 GB/s: 9 s of a 32 GiB sector's 53 GB of points): the next section's
    // vector is made on another thread while one section is decoded and checked.
    const SubgroupBatchCheck<G1Affine> g1_check = g1_batch_first_not_in_subgroup;
    const SubgroupBatchCheck<G2Affine> g2_check = g2_batch_first_not_in_subgroup;
    const bool sub = options.check_subgroup;
    const std::array<const SectionView*, 4> g1s = {&layout.section("h"), &layout.section("l"), &layout.section("a"),
                                                   &layout.section("b_g1")};
    std::array<std::vector<G1Affine>*, 4> g1_out = {&r.params.h, &r.params.l, &r.params.a, &r.params.b_g1};
    const SectionView& b_g2 = layout.section("b_g2");
    PendingCheck pending;  // after r: joined (or waited for by its future) before r's vectors go
    std::future<std::vector<G1Affine>> next_g1;
    std::future<std::vector<G2Affine>> next_g2;
    for (size_t k = 0; k < g1s.size(); k++) {
        std::vector<G1Affine> out = k == 0 ? std::vector<G1Affine>{} : next_g1.get();
        if (k + 1 < g1s.size()) next_g1 = sized_async<G1Affine>(g1s[k + 1]->count);
        else next_g2 = sized_async<G2Affine>(b_g2.count);
        decode_query<G1Affine>(*g1s[k], *g1_out[k], std::move(out), g1_from_uncompressed_unchecked,
                               decode_g1_uncompressed, sub ? g1_check : nullptr, options.device_checks.g1, options.allow_infinity, source, r, pending);
    }
    decode_query<G2Affine>(b_g2, r.params.b_g2, next_g2.get(), g2_from_uncompressed_unchecked, decode_g2_uncompressed,
                           sub ? g2_check : nullptr, options.device_checks.g2,
                           options.allow_infinity, source, r, pending);
    pending.join(r);
    r.parameters_bytes = layout.used_bytes;
    r.trailing_bytes = layout.trailing_bytes;
    return r;
}

ParamsReadResult read_parameters(const std::filesystem::path& path, const ParamsReadOptions& options) {
    MappedFile file(path);
    return file.read([&](std::span<const uint8_t> b) { return read_parameters(b, path.string(), options); });
}

// ---- a parameter file as a query source ---------------------------------------------------------------------------

namespace {

constexpr size_t kScanRun = 2048;  // points decoded at a time into a scratch block while scanning

// The lowest index below `end` whose point fails to decode (or is the point at infinity where not allowed), or
// `end`: decoded into scratch blocks, nothing kept.
template <class A>
size_t first_bad_before(const SectionView& s, size_t end, BulkDecoder<A> bulk, bool allow_infinity) {
    std::atomic<size_t> first{end};
    parallel_for(end, [&](size_t begin, size_t stop) {
        std::vector<A> scratch(std::min(kScanRun, stop - begin));
        for (size_t r = begin; r < stop; r += kScanRun) {
            if (r > first.load(std::memory_order_relaxed)) return;
            const size_t n = std::min(kScanRun, stop - r);
            const size_t bad = bulk(s.data.data() + r * s.point_bytes(), n, scratch.data(), allow_infinity);
            if (bad == n) continue;
            size_t cur = first.load(std::memory_order_relaxed);
            while (r + bad < cur && !first.compare_exchange_weak(cur, r + bad, std::memory_order_relaxed)) {
            }
            return;
        }
    });
    return first.load();
}

// Points [lo, hi) of the section to out; on a bad point, the report of the section's first bad point up to there.
template <class A>
void read_range(const SectionView& s, size_t lo, size_t hi, A* out, Decoder<A> unchecked, BulkDecoder<A> bulk,
                bool allow_infinity, std::string_view source) {
    if (lo > hi || hi > s.count)
        throw std::out_of_range(where(source, s.name) + ": points [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                ") of " + std::to_string(s.count));
    const size_t bad = bulk(s.data.data() + lo * s.point_bytes(), hi - lo, out, allow_infinity);
    if (bad == hi - lo) return;
    const size_t first = first_bad_before<A>(s, lo + bad, bulk, allow_infinity);
    const size_t at = first < lo + bad ? first : lo + bad;
    throw_bad_point(s, at, unchecked(s.point(at)), source);
}

// The first point of the section outside its subgroup, piece by piece (decoded, then checked by `check`).
template <class A, class Check>
std::optional<size_t> first_outside(const SectionView& s, BulkDecoder<A> bulk, bool allow_infinity, Check&& check) {
    constexpr size_t kPiece = size_t(1) << 22;  // 400 MB of G1 points, 800 MB of G2
    std::vector<A> piece;
    for (size_t off = 0; off < s.count; off += kPiece) {
        const size_t n = std::min(kPiece, s.count - off);
        piece.resize(n);
        parallel_for(n, [&](size_t b, size_t e) {
            bulk(s.data.data() + (off + b) * s.point_bytes(), e - b, piece.data() + b, allow_infinity);
        });
        if (auto bad = check(std::span<const A>(piece))) return off + *bad;
    }
    return std::nullopt;
}

}  // namespace

ParamsFileSource::ParamsFileSource(const std::filesystem::path& path, const ParamsReadOptions& options)
    : file_(path), options_(options) {
    const std::string source = path.string();
    file_.read([&](std::span<const uint8_t> b) {
        layout_ = parse_parameters_layout(b, source);
        check_trailing(layout_, source, "parameters", options_);
        shape_.vk = decode_verifying_key(layout_, source, options_);
        return 0;
    });
    shape_.h = layout_.section("h").count;
    shape_.l = layout_.section("l").count;
    shape_.a = layout_.section("a").count;
    shape_.b_g1 = layout_.section("b_g1").count;
    shape_.b_g2 = layout_.section("b_g2").count;
    shape_.h_convention = groth16::HConvention::Bellman;
}

void ParamsFileSource::read(G1Query query, size_t lo, size_t hi, G1Affine* out) const {
    read_range<G1Affine>(layout_.section(name(query)), lo, hi, out, g1_from_uncompressed_unchecked,
                         decode_g1_uncompressed, options_.allow_infinity, file_.path().string());
}

void ParamsFileSource::read_b_g2(size_t lo, size_t hi, G2Affine* out) const {
    read_range<G2Affine>(layout_.section("b_g2"), lo, hi, out, g2_from_uncompressed_unchecked, decode_g2_uncompressed,
                         options_.allow_infinity, file_.path().string());
}

void ParamsFileSource::throw_not_in_subgroup(std::string_view section) const {
    const SectionView& s = layout_.section(section);
    const std::string source = file_.path().string();
    const bool inf = options_.allow_infinity;
    if (s.group == PointGroup::G1) {
        auto bad = first_outside<G1Affine>(s, decode_g1_uncompressed, inf, [&](std::span<const G1Affine> p) {
            return options_.device_checks ? options_.device_checks.g1(p) : g1_batch_first_not_in_subgroup(p);
        });
        verify_unchanged();
        if (bad) throw_bad_point(s, *bad, Decoded<G1Affine>::fail(DecodeError::NotInSubgroup), source);
    } else {
        auto bad = first_outside<G2Affine>(s, decode_g2_uncompressed, inf, [&](std::span<const G2Affine> p) {
            return options_.device_checks ? options_.device_checks.g2(p) : g2_batch_first_not_in_subgroup(p);
        });
        verify_unchanged();
        if (bad) throw_bad_point(s, *bad, Decoded<G2Affine>::fail(DecodeError::NotInSubgroup), source);
    }
    throw FormatError(FormatErrorKind::BadPoint,
                      where(source, s.name) +
                          ": the check of its points on the device found one outside the subgroup, but reading the "
                          "section again found none",
                      std::string(s.name));
}

// ---- writing ------------------------------------------------------------------------------------------------------

namespace {

using Sink = std::function<void(std::span<const uint8_t>)>;

void check_count(size_t n, std::string_view section) {
    if (n > std::numeric_limits<uint32_t>::max())
        throw FormatError(
            FormatErrorKind::TooLarge,
            "section " + std::string(section) + ": " + std::to_string(n) + " points do not fit the format's u32 count",
            std::string(section));
}

void emit_count(size_t n, const Sink& sink) {
    std::array<uint8_t, 4> b = {uint8_t(n >> 24), uint8_t(n >> 16), uint8_t(n >> 8), uint8_t(n)};
    sink(b);
}

// Encodes in bounded chunks (in parallel), so writing a multi-gigabyte key needs only a chunk of extra memory.
template <class A, size_t B>
void emit_points(std::span<const A> pts, std::array<uint8_t, B> (*encode)(const A&), const Sink& sink) {
    constexpr size_t CHUNK = size_t(1) << 14;
    std::vector<uint8_t> buf(std::min(pts.size(), CHUNK) * B);
    for (size_t start = 0; start < pts.size(); start += CHUNK) {
        size_t m = std::min(CHUNK, pts.size() - start);
        auto work = [&](size_t begin, size_t end) {
            for (size_t i = begin; i < end; i++) {
                auto e = encode(pts[start + i]);
                std::copy(e.begin(), e.end(), buf.begin() + (ptrdiff_t)(i * B));
            }
        };
        if (m < 256)
            work(0, m);
        else
            parallel_for(m, work);
        sink(std::span<const uint8_t>(buf.data(), m * B));
    }
}

void emit_single(const G1Affine& p, const Sink& sink) { sink(g1_to_uncompressed(p)); }
void emit_single(const G2Affine& p, const Sink& sink) { sink(g2_to_uncompressed(p)); }

void emit_verifying_key(const groth16::VerifyingKey& vk, const Sink& sink) {
    emit_single(vk.alpha_g1, sink);
    emit_single(vk.beta_g1, sink);
    emit_single(vk.beta_g2, sink);
    emit_single(vk.gamma_g2, sink);
    emit_single(vk.delta_g1, sink);
    emit_single(vk.delta_g2, sink);
    emit_count(vk.ic.size(), sink);
    emit_points<G1Affine, G1_UNCOMPRESSED_BYTES>(vk.ic, g1_to_uncompressed, sink);
}

void emit_parameters(const groth16::Parameters& p, const Sink& sink) {
    emit_verifying_key(p.vk, sink);
    emit_count(p.h.size(), sink);
    emit_points<G1Affine, G1_UNCOMPRESSED_BYTES>(p.h, g1_to_uncompressed, sink);
    emit_count(p.l.size(), sink);
    emit_points<G1Affine, G1_UNCOMPRESSED_BYTES>(p.l, g1_to_uncompressed, sink);
    emit_count(p.a.size(), sink);
    emit_points<G1Affine, G1_UNCOMPRESSED_BYTES>(p.a, g1_to_uncompressed, sink);
    emit_count(p.b_g1.size(), sink);
    emit_points<G1Affine, G1_UNCOMPRESSED_BYTES>(p.b_g1, g1_to_uncompressed, sink);
    emit_count(p.b_g2.size(), sink);
    emit_points<G2Affine, G2_UNCOMPRESSED_BYTES>(p.b_g2, g2_to_uncompressed, sink);
}

Sink ostream_sink(std::ostream& out, std::string what) {
    return [&out, what = std::move(what)](std::span<const uint8_t> b) {
        out.write(reinterpret_cast<const char*>(b.data()), (std::streamsize)b.size());
        if (!out) throw FormatError(FormatErrorKind::Io, "writing " + what + ": the stream failed");
    };
}

// Through `fill` into the file at `path`, whole or not at all (util/output_file.hpp); its errors as FormatError(Io).
void write_via_temp(const std::filesystem::path& path, const std::function<void(const Sink&)>& fill) {
    try {
        write_file_atomically(path, [&](OutputFile& out) { fill([&out](std::span<const uint8_t> b) { out.write(b); }); });
    } catch (const OutputFileError& e) {
        throw FormatError(FormatErrorKind::Io, e.what());
    }
}

}  // namespace

size_t verifying_key_size(const groth16::VerifyingKey& vk) {
    check_count(vk.ic.size(), "ic");
    return 3 * G1_UNCOMPRESSED_BYTES + 3 * G2_UNCOMPRESSED_BYTES + 4 + vk.ic.size() * G1_UNCOMPRESSED_BYTES;
}

size_t parameters_size(const groth16::Parameters& p) {
    check_count(p.h.size(), "h");
    check_count(p.l.size(), "l");
    check_count(p.a.size(), "a");
    check_count(p.b_g1.size(), "b_g1");
    check_count(p.b_g2.size(), "b_g2");
    return verifying_key_size(p.vk) + 5 * 4 +
           (p.h.size() + p.l.size() + p.a.size() + p.b_g1.size()) * G1_UNCOMPRESSED_BYTES +
           p.b_g2.size() * G2_UNCOMPRESSED_BYTES;
}

std::vector<uint8_t> parameters_to_bytes(const groth16::Parameters& params) {
    std::vector<uint8_t> out;
    out.reserve(parameters_size(params));  // also rejects oversized sections before anything is written
    emit_parameters(params, [&](std::span<const uint8_t> b) { out.insert(out.end(), b.begin(), b.end()); });
    return out;
}

std::vector<uint8_t> verifying_key_to_bytes(const groth16::VerifyingKey& vk) {
    std::vector<uint8_t> out;
    out.reserve(verifying_key_size(vk));
    emit_verifying_key(vk, [&](std::span<const uint8_t> b) { out.insert(out.end(), b.begin(), b.end()); });
    return out;
}

void write_parameters(std::ostream& out, const groth16::Parameters& params) {
    parameters_size(params);  // validate the counts before the first byte goes out
    emit_parameters(params, ostream_sink(out, "parameters"));
}

void write_verifying_key(std::ostream& out, const groth16::VerifyingKey& vk) {
    verifying_key_size(vk);
    emit_verifying_key(vk, ostream_sink(out, "verifying key"));
}

void write_parameters(const std::filesystem::path& path, const groth16::Parameters& params) {
    parameters_size(params);
    write_via_temp(path, [&](const Sink& sink) { emit_parameters(params, sink); });
}

void write_verifying_key(const std::filesystem::path& path, const groth16::VerifyingKey& vk) {
    verifying_key_size(vk);
    write_via_temp(path, [&](const Sink& sink) { emit_verifying_key(vk, sink); });
}

namespace detail {
void write_file_atomically(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
    write_via_temp(path, [&](const Sink& sink) { sink(bytes); });
}
}  // namespace detail

}  // namespace cuzk::formats
