#include "cuzk/r1cs/canonical.hpp"

#include <openssl/evp.h>

#include <algorithm>
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

std::string variable_name(Variable v) {
    if (v.is_aux()) return "a" + std::to_string(v.index());
    if (v.index() == 0) return "one";
    return "i" + std::to_string(v.index());
}

void append_lc(std::string& s, const LC& lc) {
    s += '[';
    bool first = true;
    for (const CanonicalTerm& t : canonicalize(lc)) {
        if (!first) s += ',';
        first = false;
        s += "[\"";
        s += variable_name(t.var);
        s += "\",\"";
        s += t.coeff.to_decimal();
        s += "\"]";
    }
    s += ']';
}

// Emits the canonical JSON in pieces (header, one row at a time, trailer) so a caller can stream or hash it.
template <class Sink>
void emit(const TestConstraintSystem& cs, Sink&& sink) {
    std::string s = "{\"inputs\":" + std::to_string(cs.num_inputs()) + ",\"aux\":" + std::to_string(cs.num_aux()) +
                    ",\"constraints\":[";
    sink(s);
    bool first = true;
    for (const auto& c : cs.constraints()) {
        s.clear();
        if (!first) s += ",\n";
        first = false;
        s += '[';
        append_lc(s, c.a);
        s += ',';
        append_lc(s, c.b);
        s += ',';
        append_lc(s, c.c);
        s += ']';
        sink(s);
    }
    sink(std::string("]}\n"));
}

}  // namespace

void write_canonical_json(std::ostream& out, const TestConstraintSystem& cs) {
    emit(cs, [&](const std::string& s) { out << s; });
}

std::array<uint8_t, 32> canonical_digest(const TestConstraintSystem& cs) {
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("canonical_digest: SHA-256 unavailable");
    emit(cs, [&](const std::string& s) { EVP_DigestUpdate(ctx.get(), s.data(), s.size()); });
    std::array<uint8_t, 32> d{};
    unsigned len = 0;
    EVP_DigestFinal_ex(ctx.get(), d.data(), &len);
    return d;
}

}  // namespace cuzk::r1cs
