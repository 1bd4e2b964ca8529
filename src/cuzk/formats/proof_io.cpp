#include "cuzk/formats/proof_io.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "cuzk/util/thread_pool.hpp"

namespace cuzk::formats {

// ---- proofs -------------------------------------------------------------------------------------------------------

std::array<uint8_t, PROOF_BYTES> encode_proof(const groth16::Proof& proof) {
    std::array<uint8_t, PROOF_BYTES> out{};
    auto a = g1_to_compressed(proof.a);
    auto b = g2_to_compressed(proof.b);
    auto c = g1_to_compressed(proof.c);
    auto it = std::copy(a.begin(), a.end(), out.begin());
    it = std::copy(b.begin(), b.end(), it);
    std::copy(c.begin(), c.end(), it);
    return out;
}

std::vector<uint8_t> encode_proofs(std::span<const groth16::Proof> proofs) {
    std::vector<uint8_t> out(proofs.size() * PROOF_BYTES);
    for (size_t i = 0; i < proofs.size(); i++) {
        auto e = encode_proof(proofs[i]);
        std::copy(e.begin(), e.end(), out.begin() + (ptrdiff_t)(i * PROOF_BYTES));
    }
    return out;
}

namespace {

// Why a proof's bytes were rejected, or nothing: decoding never throws, so a batch can be decoded in parallel and
// the lowest bad index reported afterwards.
struct ProofProblem {
    char point;                         // 'a', 'b' or 'c'
    std::optional<DecodeError> decode;  // nullopt: the point at infinity
};

std::optional<ProofProblem> try_decode_proof(std::span<const uint8_t> in, groth16::Proof& out) {
    auto a = g1_from_compressed(in.subspan(0, G1_COMPRESSED_BYTES));
    if (!a) return ProofProblem{'a', a.error()};
    if (a->is_identity()) return ProofProblem{'a', std::nullopt};
    auto b = g2_from_compressed(in.subspan(G1_COMPRESSED_BYTES, G2_COMPRESSED_BYTES));
    if (!b) return ProofProblem{'b', b.error()};
    if (b->is_identity()) return ProofProblem{'b', std::nullopt};
    auto c = g1_from_compressed(in.subspan(G1_COMPRESSED_BYTES + G2_COMPRESSED_BYTES, G1_COMPRESSED_BYTES));
    if (!c) return ProofProblem{'c', c.error()};
    if (c->is_identity()) return ProofProblem{'c', std::nullopt};
    out = groth16::Proof{*a, *b, *c};
    return std::nullopt;
}

[[noreturn]] void throw_proof_problem(const ProofProblem& p, std::string_view source, std::optional<size_t> index) {
    std::string at = std::string(source) + ": ";
    if (index) at += "proof " + std::to_string(*index) + ", ";
    at += "point ";
    at += p.point;
    std::string section(1, p.point);
    if (p.decode)
        throw FormatError(FormatErrorKind::BadPoint, at + ": " + std::string(decode_error_message(*p.decode)), section,
                          index, p.decode);
    throw FormatError(FormatErrorKind::PointAtInfinity,
                      at + ": the point at infinity, which a Groth16 proof never holds", section, index);
}

}  // namespace

groth16::Proof decode_proof(std::span<const uint8_t> bytes, std::string_view source) {
    if (bytes.size() != PROOF_BYTES)
        throw FormatError(FormatErrorKind::BadLength, std::string(source) + ": a proof is " +
                                                          std::to_string(PROOF_BYTES) + " bytes, not " +
                                                          std::to_string(bytes.size()));
    groth16::Proof p;
    if (auto problem = try_decode_proof(bytes, p)) throw_proof_problem(*problem, source, std::nullopt);
    return p;
}

std::vector<groth16::Proof> decode_proofs(std::span<const uint8_t> bytes, std::string_view source) {
    if (bytes.size() % PROOF_BYTES != 0)
        throw FormatError(FormatErrorKind::BadLength, std::string(source) + ": " + std::to_string(bytes.size()) +
                                                          " bytes is not a whole number of " +
                                                          std::to_string(PROOF_BYTES) + "-byte proofs (" +
                                                          std::to_string(bytes.size() / PROOF_BYTES) + " proofs and " +
                                                          std::to_string(bytes.size() % PROOF_BYTES) + " bytes over)");
    size_t n = bytes.size() / PROOF_BYTES;
    std::vector<groth16::Proof> out(n);
    constexpr size_t NONE = std::numeric_limits<size_t>::max();
    std::atomic<size_t> first_bad{NONE};
    auto work = [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; i++) {
            if (i > first_bad.load(std::memory_order_relaxed)) return;  // a lower bad proof is already known
            if (try_decode_proof(bytes.subspan(i * PROOF_BYTES, PROOF_BYTES), out[i])) {
                size_t cur = first_bad.load(std::memory_order_relaxed);
                while (i < cur && !first_bad.compare_exchange_weak(cur, i, std::memory_order_relaxed)) {
                }
                return;
            }
        }
    };
    // Each proof costs two square roots and three subgroup checks (~0.3 ms): worth the pool from a handful on.
    if (n < 4)
        work(0, n);
    else
        parallel_for(n, work);
    size_t bad = first_bad.load();
    if (bad != NONE) {
        groth16::Proof ignored;
        auto problem = try_decode_proof(bytes.subspan(bad * PROOF_BYTES, PROOF_BYTES), ignored);
        throw_proof_problem(*problem, source, bad);
    }
    return out;
}

std::vector<groth16::Proof> read_proofs(const std::filesystem::path& path) {
    MappedFile file(path);
    return file.read([&](std::span<const uint8_t> b) { return decode_proofs(b, path.string()); });
}

void write_proofs(const std::filesystem::path& path, std::span<const groth16::Proof> proofs) {
    detail::write_file_atomically(path, encode_proofs(proofs));
}

// ---- public inputs ------------------------------------------------------------------------------------------------

PublicInputsFormat public_inputs_format_for(const std::filesystem::path& path) {
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return (char)std::tolower(c); });
    return ext == ".json" ? PublicInputsFormat::Json : PublicInputsFormat::RawLe;
}

namespace {

// A string from the input, shortened and with control bytes replaced, safe to put in a message.
std::string quote(std::string_view s) {
    constexpr size_t MAX = 80;
    std::string out = "\"";
    for (size_t i = 0; i < s.size() && i < MAX; i++) {
        unsigned char c = (unsigned char)s[i];
        out += (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (s.size() > MAX) out += "...";
    out += '"';
    return out;
}

// nullopt and `out` set when s is a canonical decimal value < r; otherwise why not.
std::optional<std::string> parse_canonical_decimal(std::string_view s, Fr& out) {
    if (s.empty()) return "is an empty string";
    if (s[0] == '-') return "is negative (" + quote(s) + "); public inputs are field elements in [0, r)";
    for (char c : s)
        if (c < '0' || c > '9') return "is not a string of decimal digits: " + quote(s);
    // One value has one spelling, so equal inputs give equal files and hashes.
    if (s.size() > 1 && s[0] == '0') return "has a leading zero (" + quote(s) + "), which is not canonical";
    // The digits are valid, so from_decimal fails only when the value does not fit below r.
    auto v = Fr::from_decimal(s);
    if (!v) return "is not less than the scalar field modulus r (" + quote(s) + "); reduce it modulo r";
    out = *v;
    return std::nullopt;
}

using json = nlohmann::json;

// Accepts exactly a flat array of strings; builds no DOM, so no input can make it allocate more than its size or
// recurse (nesting is refused at the first inner '[' or '{').
class PublicInputsSax : public nlohmann::json_sax<json> {
  public:
    std::vector<Fr> values;
    std::optional<std::string> error;  // the complete message
    FormatErrorKind kind = FormatErrorKind::BadJson;
    std::optional<size_t> error_index;
    bool finished = false;

    explicit PublicInputsSax(std::string_view source) : source_(source) {}

    bool null() override { return reject_element("is null"); }
    bool boolean(bool) override { return reject_element("is a boolean"); }
    bool number_integer(number_integer_t v) override {
        return reject_element(v < 0 ? "is a negative number; public inputs are field elements in [0, r)"
                                    : "is a JSON number; write it as a decimal string (\"" + std::to_string(v) +
                                          "\") so that no value loses precision");
    }
    bool number_unsigned(number_unsigned_t v) override {
        return reject_element("is a JSON number; write it as a decimal string (\"" + std::to_string(v) +
                              "\") so that no value loses precision");
    }
    bool number_float(number_float_t v, const string_t&) override {
        return reject_element(v < 0 ? "is a negative number; public inputs are field elements in [0, r)"
                                    : "is a JSON number, not a decimal string");
    }
    bool binary(binary_t&) override { return reject_element("is binary data"); }
    bool string(string_t& s) override {
        if (depth_ == 0)
            return fail(FormatErrorKind::BadJson, "expected a JSON array of decimal strings, found a string");
        Fr v;
        if (auto why = parse_canonical_decimal(s, v)) return reject_element(*why, FormatErrorKind::BadValue);
        values.push_back(v);
        return true;
    }
    bool start_object(std::size_t) override {
        if (depth_ == 0)
            return fail(FormatErrorKind::BadJson, "expected a JSON array of decimal strings, found an object");
        return reject_element("is an object");
    }
    bool key(string_t&) override { return false; }  // unreachable: objects are refused at start_object
    bool end_object() override { return false; }    // likewise
    bool start_array(std::size_t) override {
        if (depth_ > 0) return reject_element("is an array; the public inputs are one flat array");
        depth_ = 1;
        return true;
    }
    bool end_array() override {
        depth_ = 0;
        finished = true;
        return true;
    }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
        return fail(FormatErrorKind::BadJson,
                    "not valid JSON (at byte " + std::to_string(position) + "): " + ex.what());
    }

  private:
    bool fail(FormatErrorKind k, const std::string& detail) {
        if (!error) {
            kind = k;
            error = std::string(source_) + ": " + detail;
        }
        return false;
    }
    bool reject_element(const std::string& detail, FormatErrorKind k = FormatErrorKind::BadValue) {
        if (depth_ == 0) return fail(FormatErrorKind::BadJson, "expected a JSON array of decimal strings");
        error_index = values.size();
        return fail(k, "element " + std::to_string(values.size()) + " " + detail);
    }

    std::string_view source_;
    int depth_ = 0;
};

}  // namespace

std::vector<Fr> parse_public_inputs_json(std::string_view text, std::string_view source) {
    PublicInputsSax sax(source);
    bool ok = false;
    try {
        ok = json::sax_parse(text.begin(), text.end(), &sax, json::input_format_t::json, /*strict=*/true);
    } catch (const std::exception& e) {  // the SAX interface reports errors by return value; this is a safety net
        throw FormatError(FormatErrorKind::BadJson, std::string(source) + ": not valid JSON: " + e.what());
    }
    if (sax.error) throw FormatError(sax.kind, *sax.error, {}, sax.error_index);
    if (!ok || !sax.finished)
        throw FormatError(FormatErrorKind::BadJson, std::string(source) + ": expected a JSON array of decimal strings");
    return std::move(sax.values);
}

std::string public_inputs_to_json(std::span<const Fr> inputs) {
    if (inputs.empty()) return "[]\n";
    std::string out = "[\n";
    for (size_t i = 0; i < inputs.size(); i++) {
        out += " \"" + inputs[i].to_decimal() + "\"";
        out += i + 1 < inputs.size() ? ",\n" : "\n";
    }
    out += "]\n";
    return out;
}

std::vector<Fr> decode_public_inputs_raw(std::span<const uint8_t> bytes, std::string_view source) {
    if (bytes.size() % FR_RAW_BYTES != 0)
        throw FormatError(FormatErrorKind::BadLength,
                          std::string(source) + ": " + std::to_string(bytes.size()) +
                              " bytes is not a whole number of 32-byte little-endian field elements");
    std::vector<Fr> out;
    out.reserve(bytes.size() / FR_RAW_BYTES);
    for (size_t i = 0; i < bytes.size() / FR_RAW_BYTES; i++) {
        auto v = Fr::from_bytes_le(bytes.data() + i * FR_RAW_BYTES);
        if (!v)
            throw FormatError(FormatErrorKind::BadValue,
                              std::string(source) + ": value " + std::to_string(i) +
                                  " is not less than the scalar field modulus r (non-canonical)",
                              {}, i);
        out.push_back(*v);
    }
    return out;
}

std::vector<uint8_t> encode_public_inputs_raw(std::span<const Fr> inputs) {
    static_assert(Fr::BYTES == FR_RAW_BYTES);
    std::vector<uint8_t> out(inputs.size() * FR_RAW_BYTES);
    for (size_t i = 0; i < inputs.size(); i++) inputs[i].to_bytes_le(out.data() + i * FR_RAW_BYTES);
    return out;
}

std::vector<Fr> read_public_inputs(const std::filesystem::path& path, PublicInputsFormat format) {
    MappedFile file(path);
    return file.read([&](std::span<const uint8_t> bytes) {
        if (format == PublicInputsFormat::Json)
            return parse_public_inputs_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                                            path.string());
        return decode_public_inputs_raw(bytes, path.string());
    });
}

void write_public_inputs(const std::filesystem::path& path, std::span<const Fr> inputs, PublicInputsFormat format) {
    if (format == PublicInputsFormat::Json) {
        std::string text = public_inputs_to_json(inputs);
        detail::write_file_atomically(
            path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    } else {
        detail::write_file_atomically(path, encode_public_inputs_raw(inputs));
    }
}

}  // namespace cuzk::formats
