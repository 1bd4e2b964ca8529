#include "cuzk/r1cs/canonical.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

namespace cuzk::r1cs {

std::vector<CanonicalTerm> canonicalize(const LC& lc) {
    std::vector<CanonicalTerm> terms;
    terms.reserve(lc.size());
    for (const Term& t : lc.terms()) terms.push_back({t.var, t.coeff_is_one ? Fr::one() : t.coeff});
    // Inputs sort before aux (the aux flag is the top bit of the raw index), each by index.
    std::stable_sort(terms.begin(), terms.end(),
                     [](const CanonicalTerm& a, const CanonicalTerm& b) { return a.var.raw() < b.var.raw(); });
    std::vector<CanonicalTerm> merged;
    merged.reserve(terms.size());
    for (const CanonicalTerm& t : terms) {
        if (!merged.empty() && merged.back().var == t.var) merged.back().coeff += t.coeff;
        else merged.push_back(t);
    }
    std::erase_if(merged, [](const CanonicalTerm& t) { return t.coeff.is_zero(); });
    return merged;
}

namespace {

// Appends "one", "i<k>" or "a<k>" (appending the digits rather than concatenating temporaries, which also keeps
// GCC 12's -Wrestrict false positive on short string concatenation away).
void append_variable_name(std::string& s, Variable v) {
    if (!v.is_aux() && v.index() == 0) {
        s += "one";
        return;
    }
    s += v.is_aux() ? 'a' : 'i';
    char digits[16];
    const int n = std::snprintf(digits, sizeof digits, "%u", v.index());
    s.append(digits, size_t(n));
}

std::string coeff_key(const Fr& x) {
    uint8_t b[32];
    x.to_bytes_le(b);
    return std::string(reinterpret_cast<const char*>(b), 32);
}

void append_lc(std::string& s, const LC& lc, std::unordered_map<std::string, std::string>* decimals) {
    s += '[';
    bool first = true;
    for (const CanonicalTerm& t : canonicalize(lc)) {
        if (!first) s += ',';
        first = false;
        s += "[\"";
        append_variable_name(s, t.var);
        s += "\",\"";
        if (decimals) {
            auto [it, fresh] = decimals->try_emplace(coeff_key(t.coeff));
            if (fresh) it->second = t.coeff.to_decimal();
            s += it->second;
        } else {
            s += t.coeff.to_decimal();
        }
        s += "\"]";
    }
    s += ']';
}

std::string header(uint64_t inputs, uint64_t aux) {
    return "{\"inputs\":" + std::to_string(inputs) + ",\"aux\":" + std::to_string(aux) + ",\"constraints\":[";
}

// Emits the canonical JSON in pieces (header, one row at a time, trailer) so a caller can stream or hash it.
template <class Sink>
void emit(const TestConstraintSystem& cs, Sink&& sink) {
    std::string s = header(cs.num_inputs(), cs.num_aux());
    sink(s);
    std::unordered_map<std::string, std::string> decimals;
    bool first = true;
    for (const auto& c : cs.constraints()) {
        s.clear();
        if (!first) s += ",\n";
        first = false;
        append_canonical_row(s, c.a, c.b, c.c, &decimals);
        sink(s);
    }
    sink(std::string("]}\n"));
}

}  // namespace

void append_canonical_row(std::string& out, const LC& a, const LC& b, const LC& c,
                          std::unordered_map<std::string, std::string>* decimals) {
    out += '[';
    append_lc(out, a, decimals);
    out += ',';
    append_lc(out, b, decimals);
    out += ',';
    append_lc(out, c, decimals);
    out += ']';
}

CanonicalStream::CanonicalStream(uint64_t inputs, uint64_t aux, Sink sink)
    : expect_inputs_(inputs), expect_aux_(aux), sink_(std::move(sink)) {
    sink_(header(inputs, aux));
}

void CanonicalStream::row(const LC& a, const LC& b, const LC& c) {
    buf_.clear();
    if (rows_++) buf_ += ",\n";
    append_canonical_row(buf_, a, b, c, &decimals_);
    sink_(buf_);
}

void CanonicalStream::finish() {
    if (num_inputs_ != expect_inputs_ || num_aux_ != expect_aux_)
        throw std::logic_error("CanonicalStream: the circuit allocated " + std::to_string(num_inputs_) + " inputs and " +
                               std::to_string(num_aux_) + " aux, the header says " + std::to_string(expect_inputs_) +
                               " and " + std::to_string(expect_aux_));
    sink_("]}\n");
}

Sha256Sink::Sha256Sink() : ctx_(EVP_MD_CTX_new()) {
    if (!ctx_ || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("Sha256Sink: SHA-256 unavailable");
}
Sha256Sink::~Sha256Sink() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }
void Sha256Sink::feed(std::string_view text) { EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), text.data(), text.size()); }
std::array<uint8_t, 32> Sha256Sink::digest() {
    std::array<uint8_t, 32> d{};
    unsigned len = 0;
    EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), d.data(), &len);
    return d;
}

void write_canonical_json(std::ostream& out, const TestConstraintSystem& cs) {
    emit(cs, [&](const std::string& s) { out << s; });
}

std::array<uint8_t, 32> canonical_digest(const TestConstraintSystem& cs) {
    Sha256Sink sha;
    emit(cs, [&](const std::string& s) { sha.feed(s); });
    return sha.digest();
}

}  // namespace cuzk::r1cs
