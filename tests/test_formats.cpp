// formats/: bellman parameter and verifying-key files, proofs, public inputs. Round trips, and every way an input can
// be wrong: each must end in a FormatError naming where, never in a crash or another exception.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <optional>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cuzk/ec/encoding.hpp"
#include "cuzk/ec/random_points.hpp"
#include "cuzk/groth16/types.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/formats/proof_io.hpp"

namespace cuzk {
namespace {

using formats::FormatError;
using formats::FormatErrorKind;
using groth16::Parameters;
using groth16::Proof;
using groth16::VerifyingKey;

// ---- helpers ------------------------------------------------------------------------------------------------------

struct Sizes {
    size_t ic = 3, h = 40, l = 20, a = 9, b_g1 = 7, b_g2 = 5;
};

// Parameters of random subgroup points: the reader never checks any relation between them, only each point.
Parameters random_params(uint64_t seed, Sizes s = {}) {
    auto g1 = random_points<G1Config>(3 + s.ic + s.h + s.l + s.a + s.b_g1, seed);
    auto g2 = random_points<G2Config>(3 + s.b_g2, seed + 1);
    size_t i = 0, j = 0;
    Parameters p;
    p.vk.alpha_g1 = g1[i++];
    p.vk.beta_g1 = g1[i++];
    p.vk.delta_g1 = g1[i++];
    p.vk.beta_g2 = g2[j++];
    p.vk.gamma_g2 = g2[j++];
    p.vk.delta_g2 = g2[j++];
    auto take1 = [&](size_t n) {
        std::vector<G1Affine> v(g1.begin() + (ptrdiff_t)i, g1.begin() + (ptrdiff_t)(i + n));
        i += n;
        return v;
    };
    p.vk.ic = take1(s.ic);
    p.h = take1(s.h);
    p.l = take1(s.l);
    p.a = take1(s.a);
    p.b_g1 = take1(s.b_g1);
    p.b_g2.assign(g2.begin() + (ptrdiff_t)j, g2.end());
    return p;
}

std::mt19937_64& rng() {
    static std::mt19937_64 g(0xf0f0a7ULL);  // fixed: failures reproduce
    return g;
}

// Points of E(Fq) / E'(Fq2) from a random x, without cofactor clearing: outside G1 / G2 except with probability
// 1/h (asserted below, so the tests that use them cannot pass vacuously).
G1Affine point_outside_g1() {
    for (;;) {
        Fq x = Fq::random(rng());
        if (auto y = (x.square() * x + G1Config::b()).sqrt()) {
            G1Affine p = G1Affine::from_xy(x, *y);
            EXPECT_FALSE(g1_from_uncompressed(g1_to_uncompressed(p)).has_value());
            return p;
        }
    }
}
G2Affine point_outside_g2() {
    for (;;) {
        Fq2 x = Fq2::random(rng());
        if (auto y = (x.square() * x + G2Config::b()).sqrt()) {
            G2Affine p = G2Affine::from_xy(x, *y);
            EXPECT_FALSE(g2_from_uncompressed(g2_to_uncompressed(p)).has_value());
            return p;
        }
    }
}

// A fresh path under the system temp directory, removed when the test ends.
struct TempPath {
    std::filesystem::path path;
    explicit TempPath(const std::string& name) {
        path = std::filesystem::temp_directory_path() / ("cuzk_formats_" + std::to_string(::getpid()) + "_" + name);
        std::filesystem::remove(path);
    }
    ~TempPath() {
        std::error_code ec;
        std::filesystem::remove(path, ec);
    }
};

void write_bytes(const std::filesystem::path& p, std::span<const uint8_t> b) {
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(b.data()), (std::streamsize)b.size());
    ASSERT_TRUE(f.good());
}

// Runs fn, which must throw a FormatError; returns it (a default kind of 0 signals "did not throw" to the caller's
// EXPECTs).
template <class Fn>
FormatError expect_format_error(Fn&& fn) {
    try {
        fn();
    } catch (const FormatError& e) {
        return e;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "expected FormatError, got another exception: " << e.what();
        return FormatError(FormatErrorKind{}, "wrong exception");
    }
    ADD_FAILURE() << "expected FormatError, nothing was thrown";
    return FormatError(FormatErrorKind{}, "no exception");
}

bool contains(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

// Byte offset of point i of a section in an encoded parameter file.
size_t point_offset(std::span<const uint8_t> file, std::string_view section, size_t i) {
    auto layout = formats::parse_parameters_layout(file, "x");
    const auto& s = layout.section(section);
    return s.offset + i * s.point_bytes();
}

template <class Bytes, size_t N>
void put(Bytes& file, size_t offset, const std::array<uint8_t, N>& enc) {
    std::copy(enc.begin(), enc.end(), file.begin() + (ptrdiff_t)offset);
}

// ---- parameters: round trips --------------------------------------------------------------------------------------

TEST(FormatsParams, RoundTripThroughBytesStreamAndFile) {
    Parameters p = random_params(1);
    std::vector<uint8_t> bytes = formats::parameters_to_bytes(p);
    // 3 G1 + 3 G2 + 6 counts + (ic + h + l + a + b_g1) G1 + b_g2 G2
    size_t expected = 3 * 96 + 3 * 192 + 6 * 4 + (3 + 40 + 20 + 9 + 7) * 96 + 5 * 192;
    ASSERT_EQ(bytes.size(), expected);
    EXPECT_EQ(formats::parameters_size(p), expected);
    // The first bytes are alpha_g1 in the zcash uncompressed encoding, the ic count sits after the six points.
    auto alpha = g1_to_uncompressed(p.vk.alpha_g1);
    EXPECT_TRUE(std::equal(alpha.begin(), alpha.end(), bytes.begin()));
    size_t ic_count_at = 3 * 96 + 3 * 192;
    EXPECT_EQ(bytes[ic_count_at], 0);
    EXPECT_EQ(bytes[ic_count_at + 3], 3);

    auto r = formats::read_parameters(bytes, "mem");
    EXPECT_EQ(r.params, p);
    EXPECT_EQ(r.parameters_bytes, bytes.size());
    EXPECT_EQ(r.trailing_bytes, 0u);
    // Re-encoding the decoded parameters reproduces the bytes exactly.
    EXPECT_EQ(formats::parameters_to_bytes(r.params), bytes);

    std::ostringstream os;
    formats::write_parameters(os, p);
    std::string s = os.str();
    EXPECT_EQ(std::vector<uint8_t>(s.begin(), s.end()), bytes);

    TempPath file("params.bin");
    formats::write_parameters(file.path, p);
    EXPECT_EQ(std::filesystem::file_size(file.path), bytes.size());
    auto from_file = formats::read_parameters(file.path);
    EXPECT_EQ(from_file.params, p);
    EXPECT_EQ(from_file.trailing_bytes, 0u);
    // No temporary file is left beside the target.
    size_t siblings = 0;
    for (const auto& e : std::filesystem::directory_iterator(file.path.parent_path()))
        if (contains(e.path().filename().string(), file.path.filename().string())) siblings++;
    EXPECT_EQ(siblings, 1u);
}

TEST(FormatsParams, EmptySectionsRoundTrip) {
    Parameters p = random_params(2, Sizes{0, 0, 0, 0, 0, 0});
    auto bytes = formats::parameters_to_bytes(p);
    EXPECT_EQ(bytes.size(), 3 * 96 + 3 * 192 + 6 * 4u);
    EXPECT_EQ(formats::read_parameters(bytes, "mem").params, p);
}

TEST(FormatsParams, UncheckedReadGivesTheSameParameters) {
    Parameters p = random_params(3);
    auto bytes = formats::parameters_to_bytes(p);
    formats::ParamsReadOptions o;
    o.check_subgroup = false;
    EXPECT_EQ(formats::read_parameters(bytes, "mem", o).params, p);
}

TEST(FormatsParams, LayoutViewIsBoundsChecked) {
    Parameters p = random_params(4);
    auto bytes = formats::parameters_to_bytes(p);
    auto layout = formats::parse_parameters_layout(bytes, "mem");
    ASSERT_EQ(layout.sections.size(), 12u);
    const char* names[] = {"alpha_g1", "beta_g1", "beta_g2", "gamma_g2", "delta_g1", "delta_g2",
                           "ic",       "h",       "l",       "a",        "b_g1",     "b_g2"};
    size_t counts[] = {1, 1, 1, 1, 1, 1, 3, 40, 20, 9, 7, 5};
    for (size_t k = 0; k < 12; k++) {
        EXPECT_EQ(layout.sections[k].name, names[k]);
        EXPECT_EQ(layout.sections[k].count, counts[k]) << names[k];
        EXPECT_EQ(layout.sections[k].data.size(), counts[k] * layout.sections[k].point_bytes());
    }
    EXPECT_EQ(layout.used_bytes, bytes.size());
    const auto& l = layout.section("l");
    auto enc = g1_to_uncompressed(p.l[19]);
    auto view = l.point(19);
    EXPECT_TRUE(std::equal(enc.begin(), enc.end(), view.begin(), view.end()));
    EXPECT_THROW(l.point(20), std::out_of_range);
    EXPECT_THROW(layout.section("nope"), std::out_of_range);
}

TEST(FormatsParams, VerifyingKeyRoundTripAndPrefixOfParameters) {
    Parameters p = random_params(5);
    auto vk_bytes = formats::verifying_key_to_bytes(p.vk);
    EXPECT_EQ(vk_bytes.size(), formats::verifying_key_size(p.vk));
    EXPECT_EQ(vk_bytes.size(), 3 * 96 + 3 * 192 + 4 + 3 * 96u);
    auto r = formats::read_verifying_key(vk_bytes, "vk");
    EXPECT_EQ(r.vk, p.vk);
    EXPECT_EQ(r.trailing_bytes, 0u);

    // A parameter file starts with its verifying key: reading it as one reports the proving key as trailing bytes.
    auto params_bytes = formats::parameters_to_bytes(p);
    EXPECT_TRUE(std::equal(vk_bytes.begin(), vk_bytes.end(), params_bytes.begin()));
    auto r2 = formats::read_verifying_key(params_bytes, "params");
    EXPECT_EQ(r2.vk, p.vk);
    EXPECT_EQ(r2.verifying_key_bytes, vk_bytes.size());
    EXPECT_EQ(r2.trailing_bytes, params_bytes.size() - vk_bytes.size());
    formats::ParamsReadOptions strict;
    strict.reject_trailing_bytes = true;
    auto e = expect_format_error([&] { formats::read_verifying_key(params_bytes, "params", strict); });
    EXPECT_EQ(e.kind(), FormatErrorKind::TrailingBytes);

    TempPath file("vk.bin");
    formats::write_verifying_key(file.path, p.vk);
    EXPECT_EQ(formats::read_verifying_key(file.path).vk, p.vk);
    std::ostringstream os;
    formats::write_verifying_key(os, p.vk);
    EXPECT_EQ(os.str().size(), vk_bytes.size());
}

// ---- parameters: structural errors --------------------------------------------------------------------------------

// Cutting the file at every byte offset: the reader names the section the cut falls in, and never reads past it.
TEST(FormatsParams, TruncatedAtEveryOffsetNamesTheSection) {
    Parameters p = random_params(6, Sizes{2, 3, 2, 2, 1, 2});
    auto bytes = formats::parameters_to_bytes(p);
    auto layout = formats::parse_parameters_layout(bytes, "x");
    size_t checked = 0;
    for (size_t cut = 0; cut < bytes.size(); cut++) {
        // The first section that does not end within the cut is the one that runs out of bytes (a section's offset
        // is after its count, so a cut inside a count lands there too).
        const formats::SectionView* expect = nullptr;
        for (const auto& s : layout.sections)
            if (s.offset + s.data.size() > cut) {
                expect = &s;
                break;
            }
        ASSERT_NE(expect, nullptr);
        std::vector<uint8_t> cut_bytes(bytes.begin(), bytes.begin() + (ptrdiff_t)cut);
        auto e = expect_format_error([&] { formats::read_parameters(cut_bytes, "cut.params"); });
        EXPECT_TRUE(e.kind() == FormatErrorKind::Truncated || e.kind() == FormatErrorKind::CountTooLarge)
            << cut << ": " << e.what();
        EXPECT_EQ(e.section(), expect->name) << "cut at " << cut << ": " << e.what();
        EXPECT_TRUE(contains(e.what(), "cut.params: section " + std::string(expect->name))) << e.what();
        checked++;
    }
    EXPECT_EQ(checked, bytes.size());
    // And the whole file still loads.
    EXPECT_EQ(formats::read_parameters(bytes, "x").params, p);
}

TEST(FormatsParams, TruncationInsideACountIsTruncatedInsideAPointIsCountTooLarge) {
    Parameters p = random_params(7);
    auto bytes = formats::parameters_to_bytes(p);
    auto layout = formats::parse_parameters_layout(bytes, "x");
    const auto& h = layout.section("h");
    // Two bytes of h's four-byte count.
    std::vector<uint8_t> a(bytes.begin(), bytes.begin() + (ptrdiff_t)(h.offset - 2));
    auto e1 = expect_format_error([&] { formats::read_parameters(a, "p"); });
    EXPECT_EQ(e1.kind(), FormatErrorKind::Truncated);
    EXPECT_EQ(e1.section(), "h");
    // Half of h's last point: the count promises more than remains.
    std::vector<uint8_t> b(bytes.begin(), bytes.begin() + (ptrdiff_t)(h.offset + h.data.size() - 48));
    auto e2 = expect_format_error([&] { formats::read_parameters(b, "p"); });
    EXPECT_EQ(e2.kind(), FormatErrorKind::CountTooLarge);
    EXPECT_EQ(e2.section(), "h");
    // Inside beta_g2 (a fixed point, no count).
    std::vector<uint8_t> c(bytes.begin(), bytes.begin() + 2 * 96 + 100);
    auto e3 = expect_format_error([&] { formats::read_parameters(c, "p"); });
    EXPECT_EQ(e3.kind(), FormatErrorKind::Truncated);
    EXPECT_EQ(e3.section(), "beta_g2");
}

TEST(FormatsParams, CountLargerThanTheFileIsRejectedBeforeAllocating) {
    Parameters p = random_params(8);
    auto bytes = formats::parameters_to_bytes(p);
    auto layout = formats::parse_parameters_layout(bytes, "x");
    for (std::string section : {"ic", "h", "l", "a", "b_g1", "b_g2"}) {
        size_t count_at = layout.section(section).offset - 4;
        for (uint32_t bad : {0xffffffffu, 0x80000000u, uint32_t(layout.section(section).count + 1000)}) {
            auto mutated = bytes;
            mutated[count_at] = uint8_t(bad >> 24);
            mutated[count_at + 1] = uint8_t(bad >> 16);
            mutated[count_at + 2] = uint8_t(bad >> 8);
            mutated[count_at + 3] = uint8_t(bad);
            // 2^32 - 1 G2 points would be 768 GiB: only a check before allocating lets this return at once.
            auto e = expect_format_error([&] { formats::read_parameters(mutated, "big.params"); });
            EXPECT_EQ(e.kind(), FormatErrorKind::CountTooLarge) << e.what();
            EXPECT_EQ(e.section(), section);
            EXPECT_TRUE(contains(e.what(), "big.params: section " + section + ": count " + std::to_string(bad)))
                << e.what();
        }
    }
}

TEST(FormatsParams, SmallerCountLeavesTrailingBytesThatCanBeRejected) {
    Parameters p = random_params(9);
    auto bytes = formats::parameters_to_bytes(p);
    // Announce one b_g2 point fewer: the file parses, with the last point's 192 bytes left over.
    auto layout = formats::parse_parameters_layout(bytes, "x");
    size_t count_at = layout.section("b_g2").offset - 4;
    bytes[count_at + 3] -= 1;
    auto r = formats::read_parameters(bytes, "x");
    EXPECT_EQ(r.trailing_bytes, 192u);
    EXPECT_EQ(r.params.b_g2.size(), p.b_g2.size() - 1);
}

TEST(FormatsParams, TrailingBytesAreReportedOrRejected) {
    Parameters p = random_params(10);
    auto bytes = formats::parameters_to_bytes(p);
    size_t n = bytes.size();
    bytes.resize(n + 100, 0xab);
    auto r = formats::read_parameters(bytes, "t.params");
    EXPECT_EQ(r.params, p);
    EXPECT_EQ(r.parameters_bytes, n);
    EXPECT_EQ(r.trailing_bytes, 100u);

    formats::ParamsReadOptions o;
    o.reject_trailing_bytes = true;
    auto e = expect_format_error([&] { formats::read_parameters(bytes, "t.params", o); });
    EXPECT_EQ(e.kind(), FormatErrorKind::TrailingBytes);
    EXPECT_TRUE(contains(e.what(), "t.params: 100 bytes follow the parameters")) << e.what();
    // Without trailing bytes the option changes nothing.
    bytes.resize(n);
    EXPECT_EQ(formats::read_parameters(bytes, "t.params", o).params, p);
}

// ---- parameters: bad points ---------------------------------------------------------------------------------------

TEST(FormatsParams, BadFlagsNameSectionAndIndex) {
    Parameters p = random_params(11);
    auto bytes = formats::parameters_to_bytes(p);
    bytes[point_offset(bytes, "l", 2)] |= ENCODING_FLAG_COMPRESSED;
    auto e = expect_format_error([&] { formats::read_parameters(bytes, "f.params"); });
    EXPECT_EQ(e.kind(), FormatErrorKind::BadPoint);
    EXPECT_EQ(e.decode_error(), DecodeError::BadFlags);
    EXPECT_EQ(e.section(), "l");
    EXPECT_EQ(e.index(), 2u);
    EXPECT_TRUE(contains(e.what(), "f.params: section l, point 2: ")) << e.what();
}

TEST(FormatsParams, CoordinateNotInField) {
    Parameters p = random_params(12);
    auto bytes = formats::parameters_to_bytes(p);
    // x = 2^381 - 1 > p with the flag bits clear.
    size_t at = point_offset(bytes, "a", 4);
    bytes[at] = 0x1f;
    std::fill(bytes.begin() + (ptrdiff_t)at + 1, bytes.begin() + (ptrdiff_t)at + 48, 0xff);
    auto e = expect_format_error([&] { formats::read_parameters(bytes, "f.params"); });
    EXPECT_EQ(e.decode_error(), DecodeError::CoordinateNotInField);
    EXPECT_EQ(e.section(), "a");
    EXPECT_EQ(e.index(), 4u);
}

TEST(FormatsParams, PointOffTheCurveIsRejectedEvenUnchecked) {
    Parameters p = random_params(13);
    auto bytes = formats::parameters_to_bytes(p);
    bytes[point_offset(bytes, "b_g1", 6) + 95] ^= 1;  // last byte of y
    bytes[point_offset(bytes, "b_g2", 1) + 191] ^= 1;
    for (bool checked : {true, false}) {
        formats::ParamsReadOptions o;
        o.check_subgroup = checked;
        auto e = expect_format_error([&] { formats::read_parameters(bytes, "f.params", o); });
        EXPECT_EQ(e.kind(), FormatErrorKind::BadPoint);
        EXPECT_EQ(e.decode_error(), DecodeError::NotOnCurve);
        // b_g1 comes before b_g2 in the file.
        EXPECT_EQ(e.section(), "b_g1");
        EXPECT_EQ(e.index(), 6u);
    }
}

TEST(FormatsParams, PointOutsideTheSubgroup) {
    Parameters p = random_params(14);
    G1Affine bad1 = point_outside_g1();
    {
        auto bytes = formats::parameters_to_bytes(p);
        put(bytes, point_offset(bytes, "l", 17), g1_to_uncompressed(bad1));
        auto e = expect_format_error([&] { formats::read_parameters(bytes, "params.bin"); });
        EXPECT_EQ(e.kind(), FormatErrorKind::BadPoint);
        EXPECT_EQ(e.decode_error(), DecodeError::NotInSubgroup);
        EXPECT_STREQ(e.what(), "params.bin: section l, point 17: point is not in the prime-order subgroup");
        // Unchecked (on the curve only), the point is accepted as it is.
        formats::ParamsReadOptions o;
        o.check_subgroup = false;
        auto r = formats::read_parameters(bytes, "params.bin", o);
        EXPECT_EQ(r.params.l[17], bad1);
    }
    {
        auto bytes = formats::parameters_to_bytes(p);
        put(bytes, point_offset(bytes, "b_g2", 3), g2_to_uncompressed(point_outside_g2()));
        auto e = expect_format_error([&] { formats::read_parameters(bytes, "params.bin"); });
        EXPECT_EQ(e.decode_error(), DecodeError::NotInSubgroup);
        EXPECT_EQ(e.section(), "b_g2");
        EXPECT_EQ(e.index(), 3u);
    }
}

TEST(FormatsParams, VerifyingKeyAndIcAreAlwaysFullyChecked) {
    Parameters p = random_params(15);
    formats::ParamsReadOptions unchecked;
    unchecked.check_subgroup = false;
    {
        auto bytes = formats::parameters_to_bytes(p);
        put(bytes, 2 * 96, g2_to_uncompressed(point_outside_g2()));  // beta_g2
        auto e = expect_format_error([&] { formats::read_parameters(bytes, "vk", unchecked); });
        EXPECT_EQ(e.decode_error(), DecodeError::NotInSubgroup);
        EXPECT_EQ(e.section(), "beta_g2");
        EXPECT_TRUE(contains(e.what(), "vk: section beta_g2: point is not")) << e.what();
    }
    {
        auto bytes = formats::parameters_to_bytes(p);
        put(bytes, point_offset(bytes, "ic", 1), g1_to_uncompressed(point_outside_g1()));
        auto e = expect_format_error([&] { formats::read_parameters(bytes, "vk", unchecked); });
        EXPECT_EQ(e.section(), "ic");
        EXPECT_EQ(e.index(), 1u);
    }
}

TEST(FormatsParams, LowestBadIndexIsReportedWhateverTheThreads) {
    Parameters p = random_params(16, Sizes{3, 200, 20, 9, 7, 5});
    auto bytes = formats::parameters_to_bytes(p);
    // Bad points in both halves of h (each decoded by a different thread when there are two), the later one first.
    put(bytes, point_offset(bytes, "h", 170), g1_to_uncompressed(point_outside_g1()));
    bytes[point_offset(bytes, "h", 33)] |= ENCODING_FLAG_SORT;
    put(bytes, point_offset(bytes, "l", 0), g1_to_uncompressed(point_outside_g1()));  // later section
    for (int rep = 0; rep < 5; rep++) {
        auto e = expect_format_error([&] { formats::read_parameters(bytes, "p"); });
        EXPECT_EQ(e.section(), "h");
        EXPECT_EQ(e.index(), 33u);
        EXPECT_EQ(e.decode_error(), DecodeError::BadFlags);
    }
}

TEST(FormatsParams, PointAtInfinityFollowsBellman) {
    Parameters p = random_params(17);
    p.l[5] = G1Affine::identity();
    auto bytes = formats::parameters_to_bytes(p);
    auto e = expect_format_error([&] { formats::read_parameters(bytes, "inf"); });
    EXPECT_EQ(e.kind(), FormatErrorKind::PointAtInfinity);
    EXPECT_EQ(e.section(), "l");
    EXPECT_EQ(e.index(), 5u);
    formats::ParamsReadOptions o;
    o.allow_infinity = true;
    EXPECT_EQ(formats::read_parameters(bytes, "inf", o).params, p);

    // bellman's VerifyingKey::read accepts infinity for the six single points.
    Parameters q = random_params(18);
    q.vk.delta_g1 = G1Affine::identity();
    EXPECT_EQ(formats::read_parameters(formats::parameters_to_bytes(q), "inf").params, q);
}

// ---- files and streams --------------------------------------------------------------------------------------------

TEST(FormatsParams, MissingDirectoryAndEmptyFiles) {
    auto e1 = expect_format_error([] { formats::read_parameters(std::filesystem::path("/nonexistent/cuzk.params")); });
    EXPECT_EQ(e1.kind(), FormatErrorKind::Io);
    EXPECT_TRUE(contains(e1.what(), "/nonexistent/cuzk.params: cannot open: No such file or directory")) << e1.what();

    auto e2 = expect_format_error([] { formats::read_parameters(std::filesystem::temp_directory_path()); });
    EXPECT_EQ(e2.kind(), FormatErrorKind::Io);
    EXPECT_TRUE(contains(e2.what(), "not a regular file")) << e2.what();

    TempPath empty("empty.params");
    write_bytes(empty.path, {});
    auto e3 = expect_format_error([&] { formats::read_parameters(empty.path); });
    EXPECT_EQ(e3.kind(), FormatErrorKind::Truncated);
    EXPECT_EQ(e3.section(), "alpha_g1");
    EXPECT_TRUE(contains(e3.what(), empty.path.string() + ": section alpha_g1")) << e3.what();

    // Writing into a directory that does not exist, and into a failed stream.
    Parameters p = random_params(19, Sizes{1, 1, 1, 1, 1, 1});
    auto e4 = expect_format_error([&] { formats::write_parameters(std::filesystem::path("/nonexistent/x"), p); });
    EXPECT_EQ(e4.kind(), FormatErrorKind::Io);
    std::ostringstream bad;
    bad.setstate(std::ios::badbit);
    auto e5 = expect_format_error([&] { formats::write_parameters(bad, p); });
    EXPECT_EQ(e5.kind(), FormatErrorKind::Io);
}

TEST(FormatsParams, MappedFileMovesAndOwnsItsMapping) {
    TempPath f("mapped.bin");
    std::vector<uint8_t> data = {1, 2, 3, 4, 5};
    write_bytes(f.path, data);
    formats::MappedFile a(f.path);
    ASSERT_EQ(a.bytes().size(), 5u);
    EXPECT_EQ(a.bytes()[4], 5);
    formats::MappedFile b(std::move(a));
    EXPECT_TRUE(a.bytes().empty());
    EXPECT_EQ(b.bytes()[0], 1);
    EXPECT_EQ(b.path(), f.path);
}

// A file truncated by another process while mapped (issue 20 item 4): no SIGBUS, an error naming the file; a file
// modified in place is an error too; a SIGBUS outside cuzk's mappings still ends the process as it would have.
TEST(FormatsParams, AFileThatShrinksOrChangesWhileReadIsAnErrorNotACrash) {
    TempPath f("shrinking.bin");
    write_bytes(f.path, std::vector<uint8_t>(8 << 20, 0x5a));
    formats::MappedFile m(f.path);
    try {
        m.read([&](std::span<const uint8_t> b) {
            EXPECT_EQ(::truncate(f.path.c_str(), 4096), 0);
            uint64_t sum = 0;
            // Every page, the ones past the new end included (SIGBUS unguarded); volatile, so the loads stay.
            const volatile uint8_t* v = b.data();
            for (size_t i = 0; i < b.size(); i += 4096) sum += v[i];
            return sum;
        });
        ADD_FAILURE() << "a truncated file was read without an error";
    } catch (const FormatError& e) {
        EXPECT_EQ(e.kind(), FormatErrorKind::Io);
        EXPECT_NE(std::string(e.what()).find("shrank while it was read"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("shrinking.bin"), std::string::npos) << e.what();
    }
    // The same size, other bytes (and a new modification time).
    write_bytes(f.path, std::vector<uint8_t>(4096, 1));
    formats::MappedFile n(f.path);
    EXPECT_NO_THROW(n.verify_unchanged());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    {
        std::fstream out(f.path, std::ios::in | std::ios::out | std::ios::binary);
        out.put(2);
    }
    EXPECT_THROW(n.verify_unchanged(), FormatError);
    // Unguarded memory: the default action (the child dies of SIGBUS, the guard installed before).
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        formats::MappedFile installs_the_guard(f.path);
        const int fd = ::open(f.path.c_str(), O_RDONLY);
        void* p = ::mmap(nullptr, 8192, PROT_READ, MAP_PRIVATE, fd, 0);
        if (::truncate(f.path.c_str(), 0) != 0) ::_exit(3);
        volatile uint8_t x = static_cast<const uint8_t*>(p)[0];
        (void)x;
        ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS) << "status " << status;
}

// ---- a parameter file as a query source (ParamsFileSource: decoded range by range, issue 19 item 6) -------------

using G1Query = groth16::QuerySource::G1Query;

const std::vector<G1Affine>& query_of(const Parameters& p, G1Query q) {
    switch (q) {
        case G1Query::H: return p.h;
        case G1Query::L: return p.l;
        case G1Query::A: return p.a;
        case G1Query::BG1: break;
    }
    return p.b_g1;
}

TEST(FormatsParamsSource, ReadsWhatReadParametersReads) {
    const uint64_t seed = std::random_device{}();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 g(seed);
    Parameters p = random_params(seed, Sizes{4, 300, 120, 70, 50, 30});
    TempPath f("source.params");
    formats::write_parameters(f.path, p);
    formats::ParamsFileSource src(f.path);
    EXPECT_EQ(src.shape(), groth16::KeyShape::of(p));
    EXPECT_EQ(src.trailing_bytes(), 0u);
    for (G1Query q : {G1Query::H, G1Query::L, G1Query::A, G1Query::BG1}) {
        const auto& want = query_of(p, q);
        std::vector<G1Affine> got(want.size());
        for (size_t lo = 0; lo < want.size();) {  // ranges of random lengths, the last one short
            const size_t hi = std::min(want.size(), lo + 1 + g() % 64);
            src.read(q, lo, hi, got.data() + lo);
            lo = hi;
        }
        EXPECT_EQ(got, want) << groth16::QuerySource::name(q);
    }
    std::vector<G2Affine> b2(p.b_g2.size());
    src.read_b_g2(0, 7, b2.data());
    src.read_b_g2(7, b2.size(), b2.data() + 7);
    EXPECT_EQ(b2, p.b_g2);
    std::vector<G1Affine> room(p.h.size() + 1);
    EXPECT_THROW(src.read(G1Query::H, 10, p.h.size() + 1, room.data()), std::out_of_range);
    EXPECT_NO_THROW(src.verify_unchanged());
    // A file written over in place (a new modification time): what was read from it must not be used. (A file
    // replaced by a rename leaves the mapped one as it was, which stays consistent.)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    {
        std::fstream out(f.path, std::ios::in | std::ios::out | std::ios::binary);
        out.seekp(-1, std::ios::end);
        out.put(0);
    }
    EXPECT_THROW(src.verify_unchanged(), FormatError);
}

TEST(FormatsParamsSource, BadPointsGetTheReadersReport) {
    Parameters p = random_params(17, Sizes{3, 200, 40, 9, 7, 5});
    auto bytes = formats::parameters_to_bytes(p);
    bytes[point_offset(bytes, "h", 33)] |= ENCODING_FLAG_SORT;
    bytes[point_offset(bytes, "h", 170) + 95] ^= 1;  // off the curve
    const G1Affine outside = point_outside_g1();
    put(bytes, point_offset(bytes, "l", 17), g1_to_uncompressed(outside));
    TempPath f("bad.params");
    write_bytes(f.path, bytes);
    const std::string reader = expect_format_error([&] { formats::read_parameters(f.path); }).what();
    formats::ParamsFileSource src(f.path);
    std::vector<G1Affine> out(200);
    // A range holding the section's first bad point: the reader's own report.
    auto e = expect_format_error([&] { src.read(G1Query::H, 0, 50, out.data()); });
    EXPECT_EQ(std::string(e.what()), reader);
    EXPECT_EQ(e.index(), 33u);
    // A range with a later bad point: still the first of the section up to there.
    e = expect_format_error([&] { src.read(G1Query::H, 150, 200, out.data()); });
    EXPECT_EQ(e.index(), 33u);
    EXPECT_EQ(e.decode_error(), DecodeError::BadFlags);
    // A range between them holds none.
    EXPECT_NO_THROW(src.read(G1Query::H, 34, 170, out.data()));
    // No subgroup check while reading: the caller checks where the points go, then asks for the report.
    EXPECT_NO_THROW(src.read(G1Query::L, 0, 40, out.data()));
    EXPECT_EQ(out[17], outside);
    e = expect_format_error([&] { src.throw_not_in_subgroup("l"); });
    EXPECT_EQ(e.decode_error(), DecodeError::NotInSubgroup);
    EXPECT_EQ(e.section(), "l");
    EXPECT_EQ(e.index(), 17u);
    p.l[17] = outside;  // the reader's report for the file with only the subgroup failure
    auto only_l = formats::parameters_to_bytes(p);
    EXPECT_EQ(std::string(e.what()),
              expect_format_error([&] { formats::read_parameters(only_l, f.path.string()); }).what());
    // A section whose points are all in the subgroup: the report says the second look found none.
    e = expect_format_error([&] { src.throw_not_in_subgroup("a"); });
    EXPECT_TRUE(contains(e.what(), "found none")) << e.what();
    // The verifying key and ic are checked when the source is opened.
    put(bytes, point_offset(bytes, "ic", 1), g1_to_uncompressed(point_outside_g1()));
    write_bytes(f.path, bytes);
    e = expect_format_error([&] { formats::ParamsFileSource again(f.path); });
    EXPECT_EQ(e.section(), "ic");
    EXPECT_EQ(e.index(), 1u);
}

// ---- garbage ------------------------------------------------------------------------------------------------------

// Random bytes of many lengths, and valid files with random bytes overwritten: every outcome is a result or a
// FormatError (the reader's bounds come only from the layout view, so no input reaches outside the data).
TEST(FormatsParams, RandomGarbageNeverCrashes) {
    std::mt19937_64 g(77);
    size_t errors = 0, loads = 0;
    auto attempt = [&](const std::vector<uint8_t>& bytes) {
        try {
            formats::read_parameters(bytes, "garbage");
            loads++;
        } catch (const FormatError&) {
            errors++;
        }
        try {
            formats::read_verifying_key(bytes, "garbage");
            loads++;
        } catch (const FormatError&) {
            errors++;
        }
    };
    for (int t = 0; t < 300; t++) {
        size_t len = std::uniform_int_distribution<size_t>(0, t < 150 ? 200 : 4000)(g);
        std::vector<uint8_t> bytes(len);
        for (auto& b : bytes) b = (uint8_t)g();
        // Clear the flag bits sometimes so decoding gets past the flags to the field and curve checks.
        if (t % 2 == 0)
            for (size_t i = 0; i < len; i += 96) bytes[i] &= 0x1f;
        attempt(bytes);
    }
    Parameters p = random_params(20, Sizes{2, 6, 4, 3, 3, 2});
    auto valid = formats::parameters_to_bytes(p);
    for (int t = 0; t < 200; t++) {
        auto bytes = valid;
        int flips = 1 + (int)(g() % 4);
        for (int k = 0; k < flips; k++) bytes[g() % bytes.size()] = (uint8_t)g();
        if (t % 3 == 0) bytes.resize(g() % (bytes.size() + 300), 0);
        attempt(bytes);
    }
    EXPECT_EQ(errors + loads, 2u * 500);
    EXPECT_GT(errors, 800u);  // garbage almost never parses
}

// ---- proofs -------------------------------------------------------------------------------------------------------

std::vector<Proof> random_proofs(size_t n, uint64_t seed) {
    auto g1 = random_points<G1Config>(2 * n, seed);
    auto g2 = random_points<G2Config>(n, seed + 7);
    std::vector<Proof> out(n);
    for (size_t i = 0; i < n; i++) out[i] = Proof{g1[2 * i], g2[i], g1[2 * i + 1]};
    return out;
}

TEST(FormatsProof, LayoutAndRoundTrip) {
    auto proofs = random_proofs(10, 30);
    auto one = formats::encode_proof(proofs[0]);
    auto a = g1_to_compressed(proofs[0].a);
    auto b = g2_to_compressed(proofs[0].b);
    auto c = g1_to_compressed(proofs[0].c);
    EXPECT_TRUE(std::equal(a.begin(), a.end(), one.begin()));
    EXPECT_TRUE(std::equal(b.begin(), b.end(), one.begin() + 48));
    EXPECT_TRUE(std::equal(c.begin(), c.end(), one.begin() + 144));
    EXPECT_EQ(formats::decode_proof(one), proofs[0]);

    auto batch = formats::encode_proofs(proofs);
    ASSERT_EQ(batch.size(), 1920u);
    EXPECT_TRUE(std::equal(one.begin(), one.end(), batch.begin()));
    EXPECT_EQ(formats::decode_proofs(batch), proofs);
    EXPECT_TRUE(formats::decode_proofs(std::span<const uint8_t>()).empty());

    TempPath f("proofs.bin");
    formats::write_proofs(f.path, proofs);
    EXPECT_EQ(std::filesystem::file_size(f.path), 1920u);
    EXPECT_EQ(formats::read_proofs(f.path), proofs);
}

TEST(FormatsProof, LengthErrors) {
    auto batch = formats::encode_proofs(random_proofs(3, 31));
    for (size_t len : {1ul, 191ul, 193ul, 575ul}) {
        std::vector<uint8_t> b(batch.begin(), batch.begin() + (ptrdiff_t)len);
        auto e = expect_format_error([&] { formats::decode_proofs(b, "proofs.bin"); });
        EXPECT_EQ(e.kind(), FormatErrorKind::BadLength);
        EXPECT_TRUE(contains(e.what(), "proofs.bin: " + std::to_string(len) + " bytes")) << e.what();
    }
    auto e = expect_format_error([&] { formats::decode_proof(std::span(batch).first(384)); });
    EXPECT_EQ(e.kind(), FormatErrorKind::BadLength);
    auto e2 = expect_format_error([] { formats::read_proofs("/nonexistent/proofs.bin"); });
    EXPECT_EQ(e2.kind(), FormatErrorKind::Io);
}

TEST(FormatsProof, BadPointNamesProofAndPoint) {
    auto proofs = random_proofs(10, 32);
    auto batch = formats::encode_proofs(proofs);
    // Proof 7: C without the compressed flag. Proof 3: B outside G2. Proof 3 is reported (lowest index).
    batch[7 * 192 + 144] &= (uint8_t)~ENCODING_FLAG_COMPRESSED;
    put(batch, 3 * 192 + 48, g2_to_compressed(point_outside_g2()));
    auto e = expect_format_error([&] { formats::decode_proofs(batch, "proofs.bin"); });
    EXPECT_EQ(e.kind(), FormatErrorKind::BadPoint);
    EXPECT_STREQ(e.what(), "proofs.bin: proof 3, point b: point is not in the prime-order subgroup");
    EXPECT_EQ(e.index(), 3u);
    EXPECT_EQ(e.section(), "b");

    put(batch, 3 * 192 + 48, g2_to_compressed(proofs[3].b));
    auto e2 = expect_format_error([&] { formats::decode_proofs(batch, "proofs.bin"); });
    EXPECT_EQ(e2.decode_error(), DecodeError::BadFlags);
    EXPECT_EQ(e2.index(), 7u);
    EXPECT_EQ(e2.section(), "c");

    // A outside G1 in a single proof.
    auto single = formats::encode_proof(proofs[0]);
    put(single, 0, g1_to_compressed(point_outside_g1()));
    auto e3 = expect_format_error([&] { formats::decode_proof(single, "p"); });
    EXPECT_STREQ(e3.what(), "p: point a: point is not in the prime-order subgroup");
    EXPECT_EQ(e3.section(), "a");
}

TEST(FormatsProof, PointAtInfinityIsRejectedLikeBellman) {
    auto proofs = random_proofs(6, 33);
    proofs[4].c = G1Affine::identity();
    auto batch = formats::encode_proofs(proofs);  // the encoder writes any point
    auto e = expect_format_error([&] { formats::decode_proofs(batch, "inf"); });
    EXPECT_EQ(e.kind(), FormatErrorKind::PointAtInfinity);
    EXPECT_EQ(e.index(), 4u);
    EXPECT_EQ(e.section(), "c");
}

TEST(FormatsProof, RandomGarbageNeverCrashes) {
    std::mt19937_64 g(78);
    auto valid = formats::encode_proofs(random_proofs(4, 34));
    size_t outcomes = 0, errors = 0;
    for (int t = 0; t < 300; t++) {
        std::vector<uint8_t> bytes;
        if (t % 2 == 0) {
            bytes.resize(std::uniform_int_distribution<size_t>(0, 800)(g));
            for (auto& b : bytes) b = (uint8_t)g();
            if (t % 4 == 0) bytes.resize(bytes.size() / 192 * 192);  // past the length check
        } else {
            bytes = valid;
            bytes[g() % bytes.size()] = (uint8_t)g();
        }
        try {
            formats::decode_proofs(bytes, "g");
        } catch (const FormatError&) {
            errors++;
        }
        outcomes++;
    }
    EXPECT_EQ(outcomes, 300u);
    EXPECT_GT(errors, 250u);  // only empty batches and the rare harmless mutation decode
}

// ---- public inputs ------------------------------------------------------------------------------------------------

std::string r_decimal() { return bigint::to_decimal(Fr::P); }

std::vector<Fr> sample_inputs() {
    std::vector<Fr> v = {Fr::zero(), Fr::one(), -Fr::one(), Fr::from_u64(1234567890123456789ULL)};
    for (int i = 0; i < 6; i++) v.push_back(Fr::random(rng()));
    return v;
}

TEST(FormatsPublicInputs, JsonRoundTripAndExactText) {
    auto v = sample_inputs();
    std::string text = formats::public_inputs_to_json(v);
    EXPECT_EQ(formats::parse_public_inputs_json(text), v);
    EXPECT_EQ(formats::public_inputs_to_json(std::vector<Fr>{Fr::from_u64(5), Fr::zero()}), "[\n \"5\",\n \"0\"\n]\n");
    EXPECT_EQ(formats::public_inputs_to_json(std::vector<Fr>{}), "[]\n");
    EXPECT_TRUE(formats::parse_public_inputs_json("[]").empty());
    EXPECT_TRUE(formats::parse_public_inputs_json(" [ ]\n").empty());
    // r - 1 is the largest accepted value.
    std::string r_minus_1 = (-Fr::one()).to_decimal();
    auto parsed = formats::parse_public_inputs_json("\t[\"7\" ,\"" + r_minus_1 + "\"]  \n");
    ASSERT_EQ(parsed.size(), 2u);
    EXPECT_EQ(parsed[0], Fr::from_u64(7));
    EXPECT_EQ(parsed[1], -Fr::one());
}

TEST(FormatsPublicInputs, JsonRejectsWithAClearMessage) {
    struct Case {
        std::string text;
        FormatErrorKind kind;
        std::string message_part;
        std::optional<size_t> index;
    };
    std::string r = r_decimal();
    std::vector<Case> cases = {
        {"[1]", FormatErrorKind::BadValue, "element 0 is a JSON number; write it as a decimal string (\"1\")", 0},
        {"[\"1\", 2]", FormatErrorKind::BadValue, "element 1 is a JSON number", 1},
        {"[\"1\",\"2\",\"-3\"]", FormatErrorKind::BadValue, "element 2 is negative", 2},
        {"[-1]", FormatErrorKind::BadValue, "element 0 is a negative number", 0},
        {"[1.5]", FormatErrorKind::BadValue, "element 0 is a JSON number", 0},
        {"[\"" + r + "\"]", FormatErrorKind::BadValue, "element 0 is not less than the scalar field modulus r", 0},
        {"[\"" + std::string(200, '9') + "\"]", FormatErrorKind::BadValue,
         "is not less than the scalar field modulus r", 0},
        {"[\"0x10\"]", FormatErrorKind::BadValue, "is not a string of decimal digits: \"0x10\"", 0},
        {"[\" 1\"]", FormatErrorKind::BadValue, "is not a string of decimal digits", 0},
        {"[\"+1\"]", FormatErrorKind::BadValue, "is not a string of decimal digits", 0},
        {"[\"01\"]", FormatErrorKind::BadValue, "has a leading zero", 0},
        {"[\"\"]", FormatErrorKind::BadValue, "element 0 is an empty string", 0},
        {"[null]", FormatErrorKind::BadValue, "element 0 is null", 0},
        {"[true]", FormatErrorKind::BadValue, "element 0 is a boolean", 0},
        {"[[\"1\"]]", FormatErrorKind::BadValue, "element 0 is an array", 0},
        {"[{\"a\":\"1\"}]", FormatErrorKind::BadValue, "element 0 is an object", 0},
        {"{\"a\": [\"1\"]}", FormatErrorKind::BadJson, "expected a JSON array of decimal strings, found an object", {}},
        {"\"1\"", FormatErrorKind::BadJson, "expected a JSON array of decimal strings, found a string", {}},
        {"5", FormatErrorKind::BadJson, "expected a JSON array", {}},
        {"", FormatErrorKind::BadJson, "not valid JSON", {}},
        {"[\"1\",]", FormatErrorKind::BadJson, "not valid JSON", {}},
        {"[\"1\" \"2\"]", FormatErrorKind::BadJson, "not valid JSON", {}},
        {"[\"1\"] []", FormatErrorKind::BadJson, "not valid JSON", {}},
        {"[\"1\"", FormatErrorKind::BadJson, "not valid JSON", {}},
        {std::string(100000, '['), FormatErrorKind::BadValue, "element 0 is an array", 0},
    };
    for (const auto& c : cases) {
        auto e = expect_format_error([&] { formats::parse_public_inputs_json(c.text, "public.json"); });
        EXPECT_EQ(e.kind(), c.kind) << c.text.substr(0, 60) << " -> " << e.what();
        EXPECT_TRUE(contains(e.what(), "public.json: ")) << e.what();
        EXPECT_TRUE(contains(e.what(), c.message_part)) << c.text.substr(0, 60) << " -> " << e.what();
        EXPECT_EQ(e.index(), c.index) << c.text.substr(0, 60);
    }
}

TEST(FormatsPublicInputs, RawRoundTripAndErrors) {
    auto v = sample_inputs();
    auto raw = formats::encode_public_inputs_raw(v);
    ASSERT_EQ(raw.size(), 32 * v.size());
    // Little-endian: 1 is a 1 byte followed by 31 zeros.
    EXPECT_EQ(raw[32], 1);
    EXPECT_TRUE(std::all_of(raw.begin() + 33, raw.begin() + 64, [](uint8_t b) { return b == 0; }));
    EXPECT_EQ(formats::decode_public_inputs_raw(raw), v);
    EXPECT_TRUE(formats::decode_public_inputs_raw(std::span<const uint8_t>()).empty());

    std::vector<uint8_t> odd(raw.begin(), raw.begin() + 33);
    auto e1 = expect_format_error([&] { formats::decode_public_inputs_raw(odd, "in.bin"); });
    EXPECT_EQ(e1.kind(), FormatErrorKind::BadLength);
    EXPECT_TRUE(contains(e1.what(), "in.bin: 33 bytes")) << e1.what();

    // r itself at index 2 (non-canonical), and all-ones at index 0: the first is reported.
    auto bad = raw;
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < 8; j++) bad[2 * 32 + 8 * i + j] = uint8_t(Fr::P[i] >> (8 * j));
    auto e2 = expect_format_error([&] { formats::decode_public_inputs_raw(bad, "in.bin"); });
    EXPECT_EQ(e2.kind(), FormatErrorKind::BadValue);
    EXPECT_EQ(e2.index(), 2u);
    EXPECT_TRUE(contains(e2.what(), "in.bin: value 2 is not less than")) << e2.what();
    std::fill(bad.begin(), bad.begin() + 32, 0xff);
    EXPECT_EQ(expect_format_error([&] { formats::decode_public_inputs_raw(bad); }).index(), 0u);
}

TEST(FormatsPublicInputs, FilesInBothFormats) {
    auto v = sample_inputs();
    EXPECT_EQ(formats::public_inputs_format_for("a/public.JSON"), formats::PublicInputsFormat::Json);
    EXPECT_EQ(formats::public_inputs_format_for("inputs.bin"), formats::PublicInputsFormat::RawLe);
    EXPECT_EQ(formats::public_inputs_format_for("inputs"), formats::PublicInputsFormat::RawLe);
    for (auto fmt : {formats::PublicInputsFormat::Json, formats::PublicInputsFormat::RawLe}) {
        TempPath f(fmt == formats::PublicInputsFormat::Json ? "public.json" : "public.bin");
        formats::write_public_inputs(f.path, v, fmt);
        EXPECT_EQ(formats::read_public_inputs(f.path, fmt), v);
    }
    TempPath j("written.json");
    formats::write_public_inputs(j.path, std::vector<Fr>{Fr::from_u64(3)}, formats::PublicInputsFormat::Json);
    std::ifstream in(j.path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, "[\n \"3\"\n]\n");
    auto e = expect_format_error(
        [] { formats::read_public_inputs("/nonexistent/public.json", formats::PublicInputsFormat::Json); });
    EXPECT_EQ(e.kind(), FormatErrorKind::Io);
}

TEST(FormatsPublicInputs, RandomGarbageNeverCrashes) {
    std::mt19937_64 g(79);
    const std::string alphabet = "[]{}\",:0123456789-+.eEtruefalsnl \n\\x";
    size_t outcomes = 0;
    for (int t = 0; t < 400; t++) {
        size_t len = std::uniform_int_distribution<size_t>(0, 120)(g);
        std::string s(len, ' ');
        for (auto& ch : s) ch = (t % 2 == 0) ? alphabet[g() % alphabet.size()] : (char)g();
        if (t % 5 == 0) s = "[\"" + s;  // more of them get inside the array
        try {
            formats::parse_public_inputs_json(s);
        } catch (const FormatError&) {
        }
        std::vector<uint8_t> raw(s.begin(), s.end());
        try {
            formats::decode_public_inputs_raw(raw);
        } catch (const FormatError&) {
        }
        outcomes++;
    }
    EXPECT_EQ(outcomes, 400u);
}

}  // namespace
}  // namespace cuzk
