// serde_json's form of the vanilla proof types, shared by the readers and writers of C1 (c1.cpp), PoSt
// (post_vanilla.cpp) and SnapDeals (snap_vanilla.cpp) vanilla proofs: a pull parser that knows the JSON path it is
// at, serde's required-field bookkeeping, merkle/proof.rs MerkleProof in both directions, and telling JSON from
// bincode. Internal to those files, as bincode.hpp is.
//
// serde derive with serde_json (upstream's attributes are only `bound`s and `#[serde(skip)]` on PhantomData, so the
// shapes are the defaults): a struct is an object of its fields in declaration order (any order, unknown fields
// skipped, duplicates refused on reading); a newtype struct (SectorId(u64), Sha256Domain([u8; 32]),
// PoseidonDomain(<Fr as PrimeField>::Repr = blstrs' [u8; 32], little-endian)) is its inner value; [u8; 32] is an
// array of 32 numbers; an enum is externally tagged ({"Variant": {fields}}); usize/u64 are numbers.
//   MerkleProof   = {"data": {"Single": {"root": D, "leaf": D, "path": InclusionPath}}}
//                 | {"data": {"Sub": {"base_proof": IP, "sub_proof": IP, "root": D, "leaf": D}}}
//                 | {"data": {"Top": {"base_proof": IP, "sub_proof": IP, "top_proof": IP, "root": D, "leaf": D}}}
//   InclusionPath = {"path": [{"hashes": [D x (arity - 1)], "index": usize}, ...]}
// (storage-proofs-core merkle/proof.rs MerkleProof, ProofData, SingleProof, SubProof, TopProof, InclusionPath,
// PathElement; read at rust-fil-proofs 87348a74, SPEC.md's FP, with blstrs 0.7.1.)
#pragma once

#include <array>
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cuzk/filecoin/c1.hpp"

namespace cuzk::filecoin::json {

// A pull parser over the text with the JSON path of the current value kept as a stack of segments, so that an
// error names the field without building any string on the good path. Errors are C1Error(kind, path, message "(at
// byte N)"); the PoSt and SnapDeals readers turn them into their own (rethrow_as_malformed).
class Cursor {
  public:
    explicit Cursor(std::string_view text) : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()) {}

    struct Segment {
        std::string_view key;  // empty: an array index
        size_t index = 0;
    };

    [[noreturn]] void fail(C1ErrorKind kind, const std::string& message) const;
    std::string path() const;
    void push_key(std::string_view k) { stack_.push_back({k, 0}); }
    void push_index(size_t i) { stack_.push_back({{}, i}); }
    void pop() { stack_.pop_back(); }

    void ws() {
        while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) p_++;
    }
    char peek() {
        ws();
        if (p_ >= end_) fail(C1ErrorKind::Syntax, "unexpected end of input");
        return *p_;
    }
    void expect(char c, const char* what) {
        if (peek() != c) fail_expected(what);
        p_++;
    }
    // A token where a value of another type was expected is a schema error; garbage is a syntax error.
    C1ErrorKind peek_kind();
    // "expected <what>" at the next token; at the end of the text "unexpected end of input", as every truncation
    // reads (a syntax error).
    [[noreturn]] void fail_expected(std::string_view what);
    void expect_end();

    // A string; `scratch` holds it when it has escapes. Validates UTF-8.
    std::string_view string(std::string& scratch);
    // An unsigned integer of at most `max`.
    uint64_t number(uint64_t max, const char* what);
    void null();
    // Any value, checked for syntax only.
    void skip(int depth = 0);

    // serde's [u8; 32] / Domain: a sequence of exactly 32 numbers 0..255. The hot path of a C1 (~95% of its bytes).
    void bytes32(uint8_t* out) {
        expect('[', "an array of 32 bytes");
        size_t n = 0;
        ws();
        if (p_ < end_ && *p_ == ']') fail(C1ErrorKind::Schema, "0 bytes, expected 32");
        while (true) {
            ws();
            unsigned v = 0;
            const char* s = p_;
            while (p_ < end_ && unsigned(*p_ - '0') < 10 && p_ - s < 4) v = v * 10 + unsigned(*p_++ - '0');
            if (p_ == s) fail_expected("a byte (0..255)");
            if (v > 255 || (p_ < end_ && unsigned(*p_ - '0') < 10)) fail(C1ErrorKind::Schema, "byte out of range");
            if (n == 32) fail(C1ErrorKind::Schema, "more than 32 bytes");
            out[n++] = uint8_t(v);
            ws();
            if (p_ >= end_) fail(C1ErrorKind::Syntax, "unexpected end of input");
            if (*p_ == ',') {
                p_++;
                continue;
            }
            if (*p_ == ']') {
                p_++;
                break;
            }
            fail(C1ErrorKind::Syntax, "expected ',' or ']'");
        }
        if (n != 32) fail(C1ErrorKind::Schema, std::to_string(n) + " bytes, expected 32");
    }
    Bytes32 bytes32() {
        Bytes32 b;
        bytes32(b.data());
        return b;
    }

    // Calls item(i) for each element of an array, with the index on the path.
    template <class F>
    void array(F&& item) {
        expect('[', "an array");
        if (peek() == ']') {
            p_++;
            return;
        }
        for (size_t i = 0;; i++) {
            push_index(i);
            item(i);
            pop();
            const char c = peek();
            p_++;
            if (c == ',') continue;
            if (c == ']') return;
            p_--;
            fail(C1ErrorKind::Syntax, "expected ',' or ']'");
        }
    }

    // Calls field(key) for each member of an object, with the key on the path; field returns false for a key it
    // does not know (the value is skipped, as serde does). Keys must be distinct (serde: "duplicate field").
    template <class F>
    void object(F&& field) {
        expect('{', "an object");
        if (peek() == '}') {
            p_++;
            return;
        }
        std::string scratch;
        while (true) {
            if (peek() != '"') fail(C1ErrorKind::Syntax, "expected a key");
            std::string key(string(scratch));
            expect(':', "':'");
            push_key(key);
            if (!field(std::string_view(key))) skip();
            pop();
            const char c = peek();
            p_++;
            if (c == ',') continue;
            if (c == '}') return;
            p_--;
            fail(C1ErrorKind::Syntax, "expected ',' or '}'");
        }
    }

    // An externally tagged enum value ({"Variant": value}): calls variant(name) once, with the name on the path.
    template <class F>
    void enum_value(F&& variant) {
        bool seen = false;
        object([&](std::string_view name) {
            if (seen) fail(C1ErrorKind::Schema, "an enum value has exactly one variant");
            seen = true;
            variant(name);
            return true;
        });
        if (!seen) fail(C1ErrorKind::Schema, "an enum value has exactly one variant");
    }

  private:
    void utf8();

    const char* begin_;
    const char* p_;
    const char* end_;
    std::vector<Segment> stack_;
};

// Tracks the required fields of one struct (serde: "missing field `x`").
class Required {
  public:
    Required(Cursor& c, std::initializer_list<const char*> names) : c_(c) {
        for (const char* n : names) names_[count_++] = n;
    }
    bool take(std::string_view key) {
        for (size_t i = 0; i < count_; i++) {
            if (key == names_[i]) {
                if (seen_ & (1u << i)) c_.fail(C1ErrorKind::Schema, "duplicate field `" + std::string(key) + "`");
                seen_ |= 1u << i;
                return true;
            }
        }
        return false;
    }
    void finish() const {
        for (size_t i = 0; i < count_; i++)
            if (!(seen_ & (1u << i))) c_.fail(C1ErrorKind::Schema, std::string("missing field `") + names_[i] + "`");
    }

  private:
    Cursor& c_;
    std::array<const char*, 8> names_{};
    size_t count_ = 0;
    uint32_t seen_ = 0;
};

std::vector<Domain> parse_domains(Cursor& c);
std::vector<MerklePathElement> parse_inclusion_path(Cursor& c);
MerkleProof parse_merkle_proof(Cursor& c);

// serde_json::to_string's bytes: compact, fields in declaration order.
class Writer {
  public:
    std::string out;

    void raw(std::string_view s) { out.append(s); }
    void key(std::string_view k) {
        out += '"';
        out.append(k);
        out += "\":";
    }
    void number(uint64_t v) {
        char buf[24];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        out.append(buf, r.ptr);
    }
    void bytes32(const uint8_t* b) {
        static const Table table;
        out += '[';
        for (int i = 0; i < 32; i++) {
            if (i) out += ',';
            out.append(table.text[b[i]], table.len[b[i]]);
        }
        out += ']';
    }
    // [item(v[0]),item(v[1]),...]
    template <class T, class F>
    void array(const std::vector<T>& v, F&& item) {
        out += '[';
        for (size_t i = 0; i < v.size(); i++) {
            if (i) out += ',';
            item(v[i]);
        }
        out += ']';
    }
    void domains(const std::vector<Domain>& v) {
        array(v, [&](const Domain& d) { bytes32(d.data()); });
    }
    void inclusion_path(const std::vector<MerklePathElement>& path);
    void merkle_proof(const MerkleProof& p);

  private:
    struct Table {
        char text[256][4];
        uint8_t len[256];
        Table() {
            for (int i = 0; i < 256; i++) {
                const auto r = std::to_chars(text[i], text[i] + 4, i);
                len[i] = uint8_t(r.ptr - text[i]);
            }
        }
    };
};

// ---- PoSt and SnapDeals vanilla proofs --------------------------------------------------------------------------

// Whether a vanilla proof file is JSON rather than bincode: after optional whitespace, '{', optional whitespace and
// '"' or '}'. A bincode proof can start so (a PoSt sector id whose low bytes are '{' and '"', e.g. 8827), so the
// readers take such a file as JSON only when it does not decode as bincode in full; JSON never does (its bytes are
// text, so the first Vec length it would hold is at least 0x0909090909090909).
bool looks_like_json(std::span<const uint8_t> bytes);

// A vanilla proof file in either encoding: bincode(bytes) unless the file looks like JSON and is not a complete
// bincode proof, then json(text). Each throws FilecoinError naming the field.
template <class Bincode, class Json>
auto read_bincode_or_json(std::span<const uint8_t> bytes, Bincode&& bincode, Json&& json) {
    if (looks_like_json(bytes)) {
        try {
            return bincode(bytes);
        } catch (const FilecoinError&) {
            return json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
        }
    }
    return bincode(bytes);
}

// The parser's C1Error as the vanilla readers' FilecoinError(MalformedVanilla) "<label>: <JSON path>: <what> (at
// byte N)", as the bincode reader names a field.
[[noreturn]] void rethrow_as_malformed(const C1Error& e, std::string_view label);

// Runs parse(cursor) over the whole text (nothing but whitespace after the value), errors as rethrow_as_malformed.
template <class T, class F>
T parse_vanilla(std::string_view text, std::string_view label, F&& parse) {
    try {
        Cursor c(text);
        T out = parse(c);
        c.expect_end();
        return out;
    } catch (const C1Error& e) {
        rethrow_as_malformed(e, label);
    }
}

}  // namespace cuzk::filecoin::json
