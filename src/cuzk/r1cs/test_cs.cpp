#include "cuzk/r1cs/test_cs.hpp"

#include <openssl/evp.h>

#include <memory>

namespace cuzk::r1cs {

const char* synthesis_error_name(SynthesisErrorKind kind) {
    switch (kind) {
        case SynthesisErrorKind::AssignmentMissing: return "assignment missing";
        case SynthesisErrorKind::DivisionByZero: return "division by zero";
        case SynthesisErrorKind::Unsatisfiable: return "unsatisfiable";
        case SynthesisErrorKind::Polynomial: return "polynomial degree too large";
        case SynthesisErrorKind::Other: return "synthesis error";
    }
    return "synthesis error";
}

TestConstraintSystem::TestConstraintSystem() {
    // Input 0 is the constant one, as in every system (the Groth16 driver allocates it on the others).
    inputs_.push_back(Fr::one());
    input_names_.push_back("ONE");
    names_["ONE"] = 1;
}

void TestConstraintSystem::pop_namespace() {
    if (namespaces_.empty()) throw SynthesisError(SynthesisErrorKind::Other, "pop_namespace without a namespace");
    namespaces_.pop_back();
}

std::string TestConstraintSystem::full_path(const std::string& name) const {
    std::string p;
    for (const auto& n : namespaces_) p += n + "/";
    return p + name;
}

void TestConstraintSystem::claim(const std::string& path) {
    if (!names_.emplace(path, 1).second) throw SynthesisError(SynthesisErrorKind::Other, "name used twice: " + path);
}

void TestConstraintSystem::check_vars(const LC& lc, const std::string& path) const {
    for (const Term& t : lc.terms()) {
        size_t limit = t.var.is_input() ? inputs_.size() : aux_.size();
        if (t.var.index() >= limit)
            throw SynthesisError(SynthesisErrorKind::Other, "constraint " + path + " uses an unallocated variable");
    }
}

std::optional<std::string> TestConstraintSystem::which_is_unsatisfied() const {
    for (const auto& c : constraints_) {
        Fr a = c.a.evaluate(inputs_, aux_);
        Fr b = c.b.evaluate(inputs_, aux_);
        Fr cv = c.c.evaluate(inputs_, aux_);
        if (a * b != cv) return c.name;
    }
    return std::nullopt;
}

std::optional<Fr> TestConstraintSystem::get(const std::string& path) const {
    for (size_t i = 0; i < aux_names_.size(); i++)
        if (aux_names_[i] == path) return aux_[i];
    for (size_t i = 0; i < input_names_.size(); i++)
        if (input_names_[i] == path) return inputs_[i];
    return std::nullopt;
}

std::array<uint8_t, 32> TestConstraintSystem::shape_hash() const {
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("shape_hash: OpenSSL SHA-256 unavailable");
    auto put = [&](const uint8_t* p, size_t n) { EVP_DigestUpdate(ctx.get(), p, n); };
    auto put64 = [&](uint64_t v) {
        uint8_t b[8];
        for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
        put(b, 8);
    };
    put64(inputs_.size());
    put64(aux_.size());
    put64(constraints_.size());
    for (const auto& c : constraints_) {
        for (const LC* lc : {&c.a, &c.b, &c.c}) {
            put64(lc->size());
            for (const Term& t : lc->terms()) {
                put64(t.var.raw());
                uint8_t le[32];
                t.coeff.to_bytes_le(le);
                put(le, 32);
            }
        }
    }
    std::array<uint8_t, 32> out{};
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx.get(), out.data(), &len);
    return out;
}

std::string TestConstraintSystem::shape_hash_hex() const {
    static const char* hex = "0123456789abcdef";
    std::string s;
    for (uint8_t b : shape_hash()) s += hex[b >> 4], s += hex[b & 15];
    return s;
}

}  // namespace cuzk::r1cs
