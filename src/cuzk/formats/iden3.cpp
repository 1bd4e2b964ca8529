#include "cuzk/formats/iden3.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <type_traits>

#include "cuzk/msm/batch_subgroup.hpp"
#include "cuzk/ec/subgroup.hpp"
#include "cuzk/ff/fq.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::formats::iden3 {

std::string_view iden3_error_kind_name(Iden3ErrorKind kind) {
    switch (kind) {
        case Iden3ErrorKind::Io: return "io";
        case Iden3ErrorKind::Truncated: return "truncated";
        case Iden3ErrorKind::BadMagic: return "bad-magic";
        case Iden3ErrorKind::BadVersion: return "bad-version";
        case Iden3ErrorKind::MissingSection: return "missing-section";
        case Iden3ErrorKind::DuplicateSection: return "duplicate-section";
        case Iden3ErrorKind::BadSectionSize: return "bad-section-size";
        case Iden3ErrorKind::CountTooLarge: return "count-too-large";
        case Iden3ErrorKind::UnsupportedCurve: return "unsupported-curve";
        case Iden3ErrorKind::BadHeader: return "bad-header";
        case Iden3ErrorKind::BadValue: return "bad-value";
        case Iden3ErrorKind::BadPoint: return "bad-point";
    }
    return "unknown";
}

Iden3Error::Iden3Error(Iden3ErrorKind kind, const std::string& message, std::string section,
                       std::optional<size_t> index)
    : std::runtime_error(message), kind_(kind), section_(std::move(section)), index_(index) {}

std::string_view snarkjs_curve_name(CurveId curve) {
    switch (curve) {
        case CurveId::Bls12_381: return "bls12381";
        case CurveId::Bn254: return "bn128";
    }
    return "unknown";
}

namespace {

[[noreturn]] void fail(Iden3ErrorKind kind, std::string_view source, std::string_view section, const std::string& what,
                       std::optional<size_t> index = std::nullopt) {
    std::string msg(source);
    if (!section.empty()) msg += ": section " + std::string(section);
    if (index) msg += ", index " + std::to_string(*index);
    msg += ": " + what;
    throw Iden3Error(kind, msg, std::string(section), index);
}

// Reads little-endian fields from one section, throwing Truncated when a field runs past its end.
class Reader {
  public:
    Reader(std::span<const uint8_t> body, std::string_view source, std::string_view section)
        : body_(body), source_(source), section_(section) {}
    std::span<const uint8_t> bytes(size_t n) {
        if (n > body_.size() - pos_)
            fail(Iden3ErrorKind::Truncated, source_, section_,
                 "needs " + std::to_string(n) + " bytes at offset " + std::to_string(pos_) + " but the section has " +
                     std::to_string(body_.size() - pos_) + " left");
        auto r = body_.subspan(pos_, n);
        pos_ += n;
        return r;
    }
    uint32_t u32() {
        auto b = bytes(4);
        return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    }
    uint64_t u64() {
        uint64_t lo = u32();
        return lo | (uint64_t)u32() << 32;
    }
    size_t remaining() const { return body_.size() - pos_; }
    size_t pos() const { return pos_; }

  private:
    std::span<const uint8_t> body_;
    size_t pos_ = 0;
    std::string_view source_, section_;
};

template <size_t N>
limbs_t<N> load_le(std::span<const uint8_t> b) {
    limbs_t<N> l{};
    for (size_t i = 0; i < N; i++) {
        uint64_t w = 0;
        for (size_t k = 0; k < 8; k++) w |= (uint64_t)b[8 * i + k] << (8 * k);
        l[i] = w;
    }
    return l;
}

// ---- curves ----------------------------------------------------------------------------------------------------

// The primes as big-endian hex without leading zeros. BLS12-381's come from cuzk's own field constants (one source
// of truth); BN254's are written out because cuzk has no BN254 field yet.
template <size_t N>
std::string limbs_hex(const limbs_t<N>& l) {
    std::string s;
    static const char* digits = "0123456789abcdef";
    for (size_t i = N; i-- > 0;)
        for (int k = 60; k >= 0; k -= 4) s.push_back(digits[(l[i] >> k) & 0xf]);
    size_t nz = s.find_first_not_of('0');
    return nz == std::string::npos ? "0" : s.substr(nz);
}

std::string le_hex(std::span<const uint8_t> b) {
    std::string s;
    static const char* digits = "0123456789abcdef";
    for (size_t i = b.size(); i-- > 0;) {
        s.push_back(digits[b[i] >> 4]);
        s.push_back(digits[b[i] & 0xf]);
    }
    size_t nz = s.find_first_not_of('0');
    return nz == std::string::npos ? "0" : s.substr(nz);
}

struct CurveEntry {
    CurveId id;
    std::string_view display;
    bool supported;
    std::string q_hex, r_hex;
};

const std::vector<CurveEntry>& curve_table() {
    static const std::vector<CurveEntry> table = {
        {CurveId::Bls12_381, "BLS12-381", true, limbs_hex(Fq::P), limbs_hex(Fr::P)},
        // alt_bn128 (circom's default --prime bn128)
        {CurveId::Bn254, "BN254 (bn128)", false, "30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47",
         "30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001"},
    };
    return table;
}

[[noreturn]] void unsupported(std::string_view source, std::string_view section, const CurveEntry* e,
                              const std::string& hex, std::string_view which) {
    if (e)
        fail(Iden3ErrorKind::UnsupportedCurve, source, section,
             std::string("the file is for curve ") + std::string(e->display) +
                 ", which cuzk does not support; cuzk proves on BLS12-381 only (compile the circuit with "
                 "`circom --prime bls12381` and run the ceremony with `snarkjs powersoftau new bls12381 ...`)");
    fail(Iden3ErrorKind::UnsupportedCurve, source, section,
         std::string("unknown ") + std::string(which) + " 0x" + hex + "; cuzk proves on BLS12-381 only");
}

// Identifies the curve by its scalar field prime (what .r1cs and .wtns carry); refuses all but supported curves.
CurveId curve_by_r(std::span<const uint8_t> prime, std::string_view source, std::string_view section) {
    std::string hex = le_hex(prime);
    for (const auto& e : curve_table())
        if (e.r_hex == hex) {
            if (!e.supported) unsupported(source, section, &e, hex, "scalar field prime");
            return e.id;
        }
    unsupported(source, section, nullptr, hex, "scalar field prime");
}

CurveId curve_by_q(std::span<const uint8_t> prime, std::string_view source, std::string_view section) {
    std::string hex = le_hex(prime);
    for (const auto& e : curve_table())
        if (e.q_hex == hex) {
            if (!e.supported) unsupported(source, section, &e, hex, "base field prime");
            return e.id;
        }
    unsupported(source, section, nullptr, hex, "base field prime");
}

// Byte widths the files use for the supported curve (n8 = 8 * ceil(bits / 64)).
constexpr size_t kFrBytes = 32;
constexpr size_t kFqBytes = 48;
constexpr size_t kG1Bytes = 2 * kFqBytes;
constexpr size_t kG2Bytes = 4 * kFqBytes;
static_assert(Fr::N * 8 == kFrBytes && Fq::N * 8 == kFqBytes);
// The file's Fq Montgomery radix is 2^(8 n8q) = 2^384 = cuzk's Fq radix, so the stored limbs are cuzk's.
static_assert(Fq::N * 64 == 8 * kFqBytes);

// A canonical Fr (< r) from 32 little-endian bytes; nullopt when >= r.
std::optional<Fr> fr_canonical(std::span<const uint8_t> b) { return Fr::from_canonical(load_le<4>(b)); }

std::optional<Fq> fq_mont(std::span<const uint8_t> b) {
    limbs_t<6> l = load_le<6>(b);
    if (bigint::cmp(l, Fq::P) >= 0) return std::nullopt;
    return Fq::from_mont_limbs(l);
}

bool all_zero(std::span<const uint8_t> b) {
    return std::all_of(b.begin(), b.end(), [](uint8_t x) { return x == 0; });
}

enum class PointCheck { OnCurve, Subgroup };

// nullopt + reason on a bad point.
std::optional<G1Affine> decode_g1(std::span<const uint8_t> b, PointCheck check, std::string& why) {
    if (all_zero(b)) return G1Affine::identity();
    auto x = fq_mont(b.subspan(0, kFqBytes)), y = fq_mont(b.subspan(kFqBytes, kFqBytes));
    if (!x || !y) return why = "a coordinate is not below q", std::nullopt;
    G1Affine p = G1Affine::from_xy(*x, *y);
    if (!p.is_on_curve()) return why = "point is not on the curve", std::nullopt;
    if (check == PointCheck::Subgroup && !g1_in_subgroup(p))
        return why = "point is not in the prime-order subgroup", std::nullopt;
    return p;
}

std::optional<G2Affine> decode_g2(std::span<const uint8_t> b, PointCheck check, std::string& why) {
    if (all_zero(b)) return G2Affine::identity();
    std::optional<Fq> f[4];
    for (int i = 0; i < 4; i++) {
        f[i] = fq_mont(b.subspan(i * kFqBytes, kFqBytes));
        if (!f[i]) return why = "a coordinate is not below q", std::nullopt;
    }
    G2Affine p = G2Affine::from_xy(Fq2{*f[0], *f[1]}, Fq2{*f[2], *f[3]});
    if (!p.is_on_curve()) return why = "point is not on the curve", std::nullopt;
    if (check == PointCheck::Subgroup && !g2_in_subgroup(p))
        return why = "point is not in the prime-order subgroup", std::nullopt;
    return p;
}

// Decodes count points of `point_bytes` each, in parallel; reports the lowest bad index. With PointCheck::Subgroup
// the points are decoded on-curve-checked and then checked for subgroup membership in one batch
// (cuzk/msm/batch_subgroup.hpp: a point outside passes with probability <= 2^-64; the per-point test for a handful of
// points), which reports the same first bad point as checking every point on its own would.
template <class Point, class Decode>
std::vector<Point> decode_points(std::span<const uint8_t> body, size_t count, size_t point_bytes, PointCheck check,
                                 Decode decode, std::string_view source, std::string_view section) {
    std::vector<Point> out(count);
    std::mutex m;
    size_t bad = SIZE_MAX;
    std::string bad_why;
    parallel_for(count, [&](size_t begin, size_t end) {
        std::string why;
        for (size_t i = begin; i < end; i++) {
            auto p = decode(body.subspan(i * point_bytes, point_bytes), PointCheck::OnCurve, why);
            if (!p) {
                std::lock_guard<std::mutex> g(m);
                if (i < bad) bad = i, bad_why = why;
                return;
            }
            out[i] = *p;
        }
    });
    if (check == PointCheck::Subgroup) {
        // The points below the first decoding failure; a subgroup failure among them comes first.
        std::span<const Point> good(out.data(), bad == SIZE_MAX ? count : bad);
        std::optional<size_t> outside;
        if constexpr (std::is_same_v<Point, G1Affine>) outside = g1_batch_first_not_in_subgroup(good);
        else outside = g2_batch_first_not_in_subgroup(good);
        if (outside) fail(Iden3ErrorKind::BadPoint, source, section, "point is not in the prime-order subgroup", *outside);
    }
    if (bad != SIZE_MAX) fail(Iden3ErrorKind::BadPoint, source, section, bad_why, bad);
    return out;
}

G1Affine read_g1(Reader& r, std::string_view source, std::string_view name) {
    std::string why;
    auto p = decode_g1(r.bytes(kG1Bytes), PointCheck::Subgroup, why);
    if (!p) fail(Iden3ErrorKind::BadPoint, source, name, why);
    return *p;
}
G2Affine read_g2(Reader& r, std::string_view source, std::string_view name) {
    std::string why;
    auto p = decode_g2(r.bytes(kG2Bytes), PointCheck::Subgroup, why);
    if (!p) fail(Iden3ErrorKind::BadPoint, source, name, why);
    return *p;
}

// Reads the n8 | prime prefix of a header; n8 is bounded before the prime is read.
std::span<const uint8_t> read_prime(Reader& r, std::string_view source, std::string_view section, uint32_t& n8) {
    n8 = r.u32();
    if (n8 == 0 || n8 % 8 != 0 || n8 > 64)
        fail(Iden3ErrorKind::BadHeader, source, section, "field size n8 = " + std::to_string(n8) + " is not 8..64");
    return r.bytes(n8);
}

// The scalar-field header prefix of .r1cs and .wtns: n8 | r, which must name a supported curve, with 32-byte values.
CurveId read_scalar_field(Reader& h, std::string_view source) {
    uint32_t n8 = 0;
    auto prime = read_prime(h, source, "header", n8);
    const CurveId curve = curve_by_r(prime, source, "header");
    if (n8 != kFrBytes)
        fail(Iden3ErrorKind::BadHeader, source, "header", "n8 = " + std::to_string(n8) + " for BLS12-381 (expected 32)");
    return curve;
}

void expect_size(const Section& s, uint64_t want, std::string_view source, std::string_view name,
                 const std::string& why) {
    if (s.body.size() != want)
        fail(want > s.body.size() ? Iden3ErrorKind::CountTooLarge : Iden3ErrorKind::BadSectionSize, source, name,
             "holds " + std::to_string(s.body.size()) + " bytes but " + why + " needs " + std::to_string(want));
}

template <class F>
auto with_file(const std::filesystem::path& path, F&& f) {
    std::optional<MappedFile> file;
    try {
        file.emplace(path);
        return file->read([&](std::span<const uint8_t> bytes) { return f(bytes, path.string()); });
    } catch (const FormatError& e) {
        throw Iden3Error(Iden3ErrorKind::Io, e.what());
    }
}

// Overflow-safe a * b for sizes checked against a file (returns SIZE_MAX on overflow, which never fits).
uint64_t mul_sat(uint64_t a, uint64_t b) {
    if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
    return a * b;
}

}  // namespace

// ---- containers ----------------------------------------------------------------------------------------------------

const Section& Container::unique(uint32_t type, std::string_view name, std::string_view source) const {
    const Section* found = nullptr;
    for (const auto& s : sections)
        if (s.type == type) {
            if (found)
                fail(Iden3ErrorKind::DuplicateSection, source, name,
                     "section type " + std::to_string(type) + " occurs more than once");
            found = &s;
        }
    if (!found)
        fail(Iden3ErrorKind::MissingSection, source, name, "section type " + std::to_string(type) + " is missing");
    return *found;
}

bool Container::has(uint32_t type) const {
    return std::any_of(sections.begin(), sections.end(), [&](const Section& s) { return s.type == type; });
}

Container parse_container(std::span<const uint8_t> data, std::string_view magic, uint32_t max_version,
                          std::string_view source) {
    Reader r(data, source, "container header");
    if (data.size() < 4 || std::memcmp(data.data(), magic.data(), 4) != 0) {
        std::string got;
        for (size_t i = 0; i < std::min<size_t>(4, data.size()); i++)
            got.push_back(data[i] >= 32 && data[i] < 127 ? (char)data[i] : '?');
        fail(data.size() < 4 ? Iden3ErrorKind::Truncated : Iden3ErrorKind::BadMagic, source, "",
             "not a ." + std::string(magic) + " file (magic \"" + got + "\", expected \"" + std::string(magic) +
                 "\")");
    }
    r.bytes(4);
    Container c;
    c.version = r.u32();
    if (c.version == 0 || c.version > max_version)
        fail(Iden3ErrorKind::BadVersion, source, "",
             "." + std::string(magic) + " version " + std::to_string(c.version) + " is not supported (1.." +
                 std::to_string(max_version) + ")");
    uint32_t n = r.u32();
    // Every section header takes 12 bytes: the count cannot exceed what the file holds.
    if (n > r.remaining() / 12)
        fail(Iden3ErrorKind::CountTooLarge, source, "",
             std::to_string(n) + " sections do not fit in the " + std::to_string(data.size()) + "-byte file");
    c.sections.reserve(n);
    for (uint32_t i = 0; i < n; i++) {
        Section s;
        s.type = r.u32();
        uint64_t size = r.u64();
        if (size > r.remaining())
            fail(Iden3ErrorKind::CountTooLarge, source, "type " + std::to_string(s.type),
                 "section of " + std::to_string(size) + " bytes runs past the end of the file (" +
                     std::to_string(r.remaining()) + " bytes left)",
                 i);
        s.offset = r.pos();
        s.body = r.bytes((size_t)size);
        c.sections.push_back(s);
    }
    return c;
}

// ---- .r1cs ---------------------------------------------------------------------------------------------------------

R1cs read_r1cs(std::span<const uint8_t> data, std::string_view source) {
    Container c = parse_container(data, "r1cs", 1, source);
    R1cs out;
    const Section& hs = c.unique(1, "header", source);
    Reader h(hs.body, source, "header");
    out.curve = read_scalar_field(h, source);
    out.n_wires = h.u32();
    out.n_pub_out = h.u32();
    out.n_pub_in = h.u32();
    out.n_prv_in = h.u32();
    out.n_labels = h.u64();
    out.n_constraints = h.u32();
    if (out.n_wires == 0 || (uint64_t)out.n_pub_out + out.n_pub_in + out.n_prv_in + 1 > out.n_wires)
        fail(Iden3ErrorKind::BadHeader, source, "header",
             std::to_string(out.n_wires) + " wires cannot hold the constant one, " + std::to_string(out.n_pub_out) +
                 " outputs, " + std::to_string(out.n_pub_in) + " public and " + std::to_string(out.n_prv_in) +
                 " private inputs");

    const Section& cs = c.unique(2, "constraints", source);
    // Each constraint takes at least three u32 term counts.
    if (out.n_constraints > cs.body.size() / 12)
        fail(Iden3ErrorKind::CountTooLarge, source, "constraints",
             std::to_string(out.n_constraints) + " constraints need at least " +
                 std::to_string(12 * (uint64_t)out.n_constraints) + " bytes, the section has " +
                 std::to_string(cs.body.size()));
    Reader r(cs.body, source, "constraints");
    SparseRows* m[3] = {&out.a, &out.b, &out.c};
    for (auto* s : m) {
        s->row_start.reserve((size_t)out.n_constraints + 1);
        s->row_start.push_back(0);
    }
    const size_t term_bytes = 4 + kFrBytes;
    for (uint32_t i = 0; i < out.n_constraints; i++) {
        for (int k = 0; k < 3; k++) {
            uint32_t nt = r.u32();
            if (nt > r.remaining() / term_bytes)
                fail(Iden3ErrorKind::CountTooLarge, source, "constraints",
                     std::to_string(nt) + " terms in " + "ABC"[k] + std::string(" do not fit in the section"), i);
            SparseRows& s = *m[k];
            for (uint32_t t = 0; t < nt; t++) {
                uint32_t w = r.u32();
                if (w >= out.n_wires)
                    fail(Iden3ErrorKind::BadValue, source, "constraints",
                         std::string("wire ") + std::to_string(w) + " in " + "ABC"[k] + " is not below n_wires = " +
                             std::to_string(out.n_wires),
                         i);
                auto v = fr_canonical(r.bytes(kFrBytes));
                if (!v)
                    fail(Iden3ErrorKind::BadValue, source, "constraints",
                         std::string("a coefficient in ") + "ABC"[k] + " is not below r", i);
                s.wire.push_back(w);
                s.coeff.push_back(*v);
            }
            s.row_start.push_back(s.wire.size());
        }
    }
    if (r.remaining() != 0)
        fail(Iden3ErrorKind::BadSectionSize, source, "constraints",
             std::to_string(r.remaining()) + " bytes follow the last constraint");
    return out;
}

R1cs read_r1cs(const std::filesystem::path& path) {
    return with_file(path, [](std::span<const uint8_t> d, const std::string& s) { return read_r1cs(d, s); });
}

// ---- .wtns ---------------------------------------------------------------------------------------------------------

Witness read_wtns(std::span<const uint8_t> data, std::string_view source) {
    Container c = parse_container(data, "wtns", 2, source);
    Witness out;
    const Section& hs = c.unique(1, "header", source);
    Reader h(hs.body, source, "header");
    out.curve = read_scalar_field(h, source);
    uint32_t n = h.u32();
    const Section& vs = c.unique(2, "values", source);
    expect_size(vs, mul_sat(n, kFrBytes), source, "values", std::to_string(n) + " witness values");
    out.values.resize(n);
    std::atomic<size_t> bad{SIZE_MAX};
    parallel_for(n, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; i++) {
            auto v = fr_canonical(vs.body.subspan(i * kFrBytes, kFrBytes));
            if (!v) {
                size_t cur = bad.load();
                while (i < cur && !bad.compare_exchange_weak(cur, i)) {
                }
                return;
            }
            out.values[i] = *v;
        }
    });
    if (bad != SIZE_MAX) fail(Iden3ErrorKind::BadValue, source, "values", "value is not below r", bad.load());
    if (n == 0 || out.values[0] != Fr::one())
        fail(Iden3ErrorKind::BadValue, source, "values", "witness value 0 (the constant one) is not 1", 0);
    return out;
}

Witness read_wtns(const std::filesystem::path& path) {
    return with_file(path, [](std::span<const uint8_t> d, const std::string& s) { return read_wtns(d, s); });
}

// ---- .zkey ---------------------------------------------------------------------------------------------------------

Zkey read_zkey(std::span<const uint8_t> data, std::string_view source, const ZkeyReadOptions& options) {
    Container c = parse_container(data, "zkey", 1, source);
    Zkey z;
    {
        Reader p(c.unique(1, "protocol", source).body, source, "protocol");
        uint32_t protocol = p.u32();
        if (protocol != 1)
            fail(Iden3ErrorKind::BadHeader, source, "protocol",
                 "protocol " + std::to_string(protocol) + (protocol == 2 ? " (PLONK)" : protocol == 10 ? " (FFLONK)" : "") +
                     " is not Groth16 (1)");
    }
    Reader h(c.unique(2, "groth16 header", source).body, source, "groth16 header");
    uint32_t n8q = 0, n8r = 0;
    auto q = read_prime(h, source, "groth16 header", n8q);
    z.curve = curve_by_q(q, source, "groth16 header");
    auto r = read_prime(h, source, "groth16 header", n8r);
    if (curve_by_r(r, source, "groth16 header") != z.curve)
        fail(Iden3ErrorKind::BadHeader, source, "groth16 header", "q and r belong to different curves");
    if (n8q != kFqBytes || n8r != kFrBytes)
        fail(Iden3ErrorKind::BadHeader, source, "groth16 header",
             "n8q = " + std::to_string(n8q) + ", n8r = " + std::to_string(n8r) + " (expected 48, 32 for BLS12-381)");
    z.n_vars = h.u32();
    z.n_public = h.u32();
    z.domain_size = h.u32();
    if ((uint64_t)z.n_public + 1 > z.n_vars)
        fail(Iden3ErrorKind::BadHeader, source, "groth16 header",
             std::to_string(z.n_public) + " public signals + the constant one exceed n_vars = " +
                 std::to_string(z.n_vars));
    if (z.domain_size == 0 || (z.domain_size & (z.domain_size - 1)) != 0 || z.domain_size > (1u << 31))
        fail(Iden3ErrorKind::BadHeader, source, "groth16 header",
             "domain size " + std::to_string(z.domain_size) + " is not a power of two <= 2^31");
    if (z.n_public + 1 > z.domain_size)
        fail(Iden3ErrorKind::BadHeader, source, "groth16 header",
             "domain size " + std::to_string(z.domain_size) + " cannot hold the " + std::to_string(z.n_public + 1) +
                 " input constraints");
    z.alpha_1 = read_g1(h, source, "alpha_1");
    z.beta_1 = read_g1(h, source, "beta_1");
    z.beta_2 = read_g2(h, source, "beta_2");
    z.gamma_2 = read_g2(h, source, "gamma_2");
    z.delta_1 = read_g1(h, source, "delta_1");
    z.delta_2 = read_g2(h, source, "delta_2");
    if (z.alpha_1.is_identity() || z.beta_1.is_identity() || z.beta_2.is_identity() || z.gamma_2.is_identity() ||
        z.delta_1.is_identity() || z.delta_2.is_identity())
        fail(Iden3ErrorKind::BadPoint, source, "groth16 header", "a verifying-key point is the point at infinity");

    const uint64_t n_vars = z.n_vars, n_pub1 = (uint64_t)z.n_public + 1, n_priv = n_vars - n_pub1;
    const Section& ic = c.unique(3, "IC", source);
    expect_size(ic, n_pub1 * kG1Bytes, source, "IC", std::to_string(n_pub1) + " G1 points");
    // Sizes of every proving-key section are checked before anything is decoded or allocated.
    const Section& coef = c.unique(4, "coefficients", source);
    const Section& sa = c.unique(5, "A", source);
    const Section& sb1 = c.unique(6, "B1", source);
    const Section& sb2 = c.unique(7, "B2", source);
    const Section& sc = c.unique(8, "C", source);
    const Section& sh = c.unique(9, "H", source);
    expect_size(sa, mul_sat(n_vars, kG1Bytes), source, "A", std::to_string(n_vars) + " G1 points");
    expect_size(sb1, mul_sat(n_vars, kG1Bytes), source, "B1", std::to_string(n_vars) + " G1 points");
    expect_size(sb2, mul_sat(n_vars, kG2Bytes), source, "B2", std::to_string(n_vars) + " G2 points");
    expect_size(sc, mul_sat(n_priv, kG1Bytes), source, "C", std::to_string(n_priv) + " G1 points");
    expect_size(sh, mul_sat(z.domain_size, kG1Bytes), source, "H", std::to_string(z.domain_size) + " G1 points");
    Reader cr(coef.body, source, "coefficients");
    const uint32_t n_coef = cr.u32();
    const size_t coef_bytes = 12 + kFrBytes;
    expect_size(coef, 4 + mul_sat(n_coef, coef_bytes), source, "coefficients",
                std::to_string(n_coef) + " coefficients");

    z.ic = decode_points<G1Affine>(ic.body, n_pub1, kG1Bytes, PointCheck::Subgroup, decode_g1, source, "IC");
    if (options.verifying_key_only) return z;

    // value * R^2 in the file, R = 2^256: the canonical integer times (R^-1)^2 gives the value.
    const Fr r_inv = Fr::from_mont_limbs(limbs_t<4>{1, 0, 0, 0});  // Montgomery limbs 1 = the element R^-1
    const Fr r_inv2 = r_inv * r_inv;
    z.coefficients.resize(n_coef);
    std::atomic<size_t> bad{SIZE_MAX};
    std::atomic<int> bad_kind{0};
    parallel_for(n_coef, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; i++) {
            auto b = coef.body.subspan(4 + i * coef_bytes, coef_bytes);
            auto u = [&](size_t o) { return (uint32_t)b[o] | (uint32_t)b[o + 1] << 8 | (uint32_t)b[o + 2] << 16 | (uint32_t)b[o + 3] << 24; };
            ZkeyCoefficient& e = z.coefficients[i];
            e.matrix = u(0);
            e.constraint = u(4);
            e.signal = u(8);
            auto v = fr_canonical(b.subspan(12, kFrBytes));
            int kind = e.matrix > 1 ? 1 : e.constraint >= z.domain_size ? 2 : e.signal >= z.n_vars ? 3 : !v ? 4 : 0;
            if (kind) {
                size_t cur = bad.load();
                while (i < cur && !bad.compare_exchange_weak(cur, i)) {
                }
                if (bad.load() == i) bad_kind = kind;
                return;
            }
            e.value = *v * r_inv2;
        }
    });
    if (bad != SIZE_MAX) {
        static const char* why[] = {"", "matrix is neither A (0) nor B (1)", "constraint is not below the domain size",
                                    "signal is not below n_vars", "value is not below r"};
        fail(Iden3ErrorKind::BadValue, source, "coefficients", why[bad_kind.load()], bad.load());
    }
    const PointCheck check = options.check_subgroup ? PointCheck::Subgroup : PointCheck::OnCurve;
    z.a = decode_points<G1Affine>(sa.body, n_vars, kG1Bytes, check, decode_g1, source, "A");
    z.b1 = decode_points<G1Affine>(sb1.body, n_vars, kG1Bytes, check, decode_g1, source, "B1");
    z.b2 = decode_points<G2Affine>(sb2.body, n_vars, kG2Bytes, check, decode_g2, source, "B2");
    z.c = decode_points<G1Affine>(sc.body, n_priv, kG1Bytes, check, decode_g1, source, "C");
    z.h = decode_points<G1Affine>(sh.body, z.domain_size, kG1Bytes, check, decode_g1, source, "H");
    return z;
}

Zkey read_zkey(const std::filesystem::path& path, const ZkeyReadOptions& options) {
    return with_file(path,
                     [&](std::span<const uint8_t> d, const std::string& s) { return read_zkey(d, s, options); });
}

}  // namespace cuzk::formats::iden3
