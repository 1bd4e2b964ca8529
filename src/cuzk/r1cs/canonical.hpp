// The canonical text form of a constraint system's rows, so that any independent implementation can be compared
// with cuzk's row by row (`cuzk filecoin r1cs ... --json`, docs/filecoin.md):
//
//   {"inputs": n, "aux": m, "constraints": [[A, B, C], ...]}
//
// n counts every input including the constant one; constraints are in synthesis order; each of A, B, C is a list
// of [variable, coefficient] with variable "one" (input 0), "i<k>" (input k >= 1) or "a<k>" (aux k, allocation
// order), coefficients as decimal strings in [0, r), the terms of one variable merged into one, zero terms
// dropped, sorted: one, then inputs, then aux, each by index. Two systems have the same rows exactly when their
// canonical forms are equal (duplicate terms and their order are the only freedom an LC has).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cuzk/r1cs/linear_combination.hpp"
#include "cuzk/r1cs/test_cs.hpp"

namespace cuzk::r1cs {

struct CanonicalTerm {
    Variable var;
    Fr coeff;
};

// Merged, zero-free, sorted (inputs by index, then aux by index).
std::vector<CanonicalTerm> canonicalize(const LC& lc);

// Writes the canonical JSON of every constraint of `cs` (inputs counted from the constant one).
void write_canonical_json(std::ostream& out, const TestConstraintSystem& cs);

// SHA-256 of the canonical JSON (what write_canonical_json writes), without building the text in memory.
std::array<uint8_t, 32> canonical_digest(const TestConstraintSystem& cs);

// One row's text ("[A,B,C]", each LC canonical) appended to `out`; coefficients' decimal forms are memoized in
// `decimals` (a circuit's coefficients repeat: 1, -1, powers of two, the Poseidon matrices).
void append_canonical_row(std::string& out, const LC& a, const LC& b, const LC& c,
                          std::unordered_map<std::string, std::string>* decimals = nullptr);

// A constraint system that writes the canonical JSON row by row as a circuit is synthesized, holding nothing but
// the current row: for circuits too large for a TestConstraintSystem (a 32 GiB PoRep partition). The header needs
// the final input and aux counts, so they are given up front (from a CountingSystem pass); finish() checks them and
// writes the trailer. No values: synthesize a blank circuit.
class CanonicalStream {
public:
    static constexpr bool kNeedsValues = false;
    using Sink = std::function<void(std::string_view)>;

    CanonicalStream(uint64_t inputs, uint64_t aux, Sink sink);

    template <class N, class V>
    Variable alloc(N&&, V&&) {
        return Variable::aux((uint32_t)num_aux_++);
    }
    template <class N, class V>
    Variable alloc_input(N&&, V&&) {
        return Variable::input((uint32_t)num_inputs_++);
    }
    template <class N>
    void enforce(N&&, const LC& a, const LC& b, const LC& c) {
        row(a, b, c);
    }
    template <class N>
    void push_namespace(N&&) {}
    void pop_namespace() {}

    uint64_t num_constraints() const { return rows_; }
    // Writes the trailer; throws if the circuit allocated other counts than the header announced.
    void finish();

private:
    void row(const LC& a, const LC& b, const LC& c);

    uint64_t expect_inputs_, expect_aux_;
    uint64_t num_inputs_ = 1;  // the constant one
    uint64_t num_aux_ = 0;
    uint64_t rows_ = 0;
    Sink sink_;
    std::string buf_;
    std::unordered_map<std::string, std::string> decimals_;
};

// A SHA-256 sink for CanonicalStream: feed() the text, digest() at the end.
class Sha256Sink {
public:
    Sha256Sink();
    ~Sha256Sink();
    Sha256Sink(const Sha256Sink&) = delete;
    Sha256Sink& operator=(const Sha256Sink&) = delete;
    void feed(std::string_view text);
    std::array<uint8_t, 32> digest();

private:
    void* ctx_;
};

}  // namespace cuzk::r1cs
