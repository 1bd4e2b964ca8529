#include "cuzk/filecoin/vanilla_json.hpp"

#include <cstring>

#include "cuzk/filecoin/bincode.hpp"

namespace cuzk::filecoin::json {

// ---- the parser -------------------------------------------------------------------------------------------------

void Cursor::fail(C1ErrorKind kind, const std::string& message) const {
    throw C1Error(kind, path(), message + " (at byte " + std::to_string(p_ - begin_) + ")");
}

std::string Cursor::path() const {
    std::string s;
    for (const Segment& g : stack_) {
        if (!g.key.empty()) {
            if (!s.empty()) s += '.';
            s += g.key;
        } else {
            s += '[' + std::to_string(g.index) + ']';
        }
    }
    return s;
}

C1ErrorKind Cursor::peek_kind() {
    ws();
    if (p_ >= end_) return C1ErrorKind::Syntax;
    const char c = *p_;
    if (c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n')
        return C1ErrorKind::Schema;
    return C1ErrorKind::Syntax;
}

void Cursor::fail_expected(std::string_view what) {
    ws();
    if (p_ >= end_) fail(C1ErrorKind::Syntax, "unexpected end of input");
    fail(peek_kind(), "expected " + std::string(what));
}

void Cursor::expect_end() {
    ws();
    if (p_ != end_) fail(C1ErrorKind::Syntax, "trailing characters after the JSON value");
}

std::string_view Cursor::string(std::string& scratch) {
    expect('"', "a string");
    const char* s = p_;
    bool escaped = false;
    while (true) {
        if (p_ >= end_) fail(C1ErrorKind::Syntax, "unexpected end of input in a string");
        const unsigned char c = (unsigned char)*p_;
        if (c == '"') break;
        if (c == '\\') {
            escaped = true;
            p_ += 2;
            continue;
        }
        if (c < 0x20) fail(C1ErrorKind::Syntax, "control character in a string");
        if (c >= 0x80) {
            utf8();
            continue;
        }
        p_++;
    }
    if (p_ > end_) fail(C1ErrorKind::Syntax, "unexpected end of input in a string");
    const std::string_view raw(s, size_t(p_ - s));
    p_++;
    if (!escaped) return raw;
    scratch.clear();
    for (size_t i = 0; i < raw.size(); i++) {
        if (raw[i] != '\\') {
            scratch += raw[i];
            continue;
        }
        const char e = raw[++i];
        switch (e) {
            case '"': case '\\': case '/': scratch += e; break;
            case 'b': scratch += '\b'; break;
            case 'f': scratch += '\f'; break;
            case 'n': scratch += '\n'; break;
            case 'r': scratch += '\r'; break;
            case 't': scratch += '\t'; break;
            case 'u': {
                if (i + 4 >= raw.size()) fail(C1ErrorKind::Syntax, "bad \\u escape");
                unsigned v = 0;
                for (int k = 1; k <= 4; k++) {
                    const char h = raw[i + k];
                    v = v * 16 + unsigned(h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                                          : h >= 'A' && h <= 'F' ? h - 'A' + 10 : 99);
                    if (v >= 0x10000) fail(C1ErrorKind::Syntax, "bad \\u escape");
                }
                i += 4;
                // Keys and names here are ASCII; other code points are kept as UTF-8 (surrogates unpaired).
                if (v < 0x80) scratch += char(v);
                else if (v < 0x800) scratch += char(0xC0 | (v >> 6)), scratch += char(0x80 | (v & 0x3F));
                else scratch += char(0xE0 | (v >> 12)), scratch += char(0x80 | ((v >> 6) & 0x3F)),
                     scratch += char(0x80 | (v & 0x3F));
                break;
            }
            default: fail(C1ErrorKind::Syntax, "bad escape in a string");
        }
    }
    return scratch;
}

uint64_t Cursor::number(uint64_t max, const char* what) {
    ws();
    if (p_ >= end_ || *p_ < '0' || *p_ > '9') {
        if (p_ < end_ && *p_ == '-') fail(C1ErrorKind::Schema, std::string("negative number, expected ") + what);
        fail_expected(what);
    }
    uint64_t v = 0;
    const auto r = std::from_chars(p_, end_, v);
    if (r.ec == std::errc::result_out_of_range || v > max)
        fail(C1ErrorKind::Schema, std::string("number out of range for ") + what);
    p_ = r.ptr;
    if (p_ < end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E'))
        fail(C1ErrorKind::Schema, std::string("not an integer, expected ") + what);
    return v;
}

void Cursor::null() {
    ws();
    if (end_ - p_ >= 4 && std::memcmp(p_, "null", 4) == 0) {
        p_ += 4;
        return;
    }
    fail_expected("null");
}

void Cursor::skip(int depth) {
    if (depth > 128) fail(C1ErrorKind::Syntax, "nesting too deep");
    const char c = peek();
    std::string scratch;
    if (c == '{') {
        object([&](std::string_view) {
            skip(depth + 1);
            return true;
        });
    } else if (c == '[') {
        array([&](size_t) { skip(depth + 1); });
    } else if (c == '"') {
        string(scratch);
    } else if (c == 't' || c == 'f' || c == 'n') {
        for (const char* lit : {"true", "false", "null"}) {
            const size_t n = std::strlen(lit);
            if (size_t(end_ - p_) >= n && std::memcmp(p_, lit, n) == 0) {
                p_ += n;
                return;
            }
        }
        fail(C1ErrorKind::Syntax, "bad literal");
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        if (*p_ == '-') p_++;
        const char* s = p_;
        while (p_ < end_ && ((*p_ >= '0' && *p_ <= '9') || *p_ == '.' || *p_ == 'e' || *p_ == 'E' || *p_ == '+' ||
                             *p_ == '-'))
            p_++;
        if (p_ == s) fail(C1ErrorKind::Syntax, "bad number");
    } else {
        fail(C1ErrorKind::Syntax, std::string("unexpected character '") + c + "'");
    }
}

void Cursor::utf8() {
    const unsigned char c = (unsigned char)*p_;
    int n = c >= 0xF0 && c <= 0xF4 ? 3 : c >= 0xE0 ? 2 : c >= 0xC2 && c <= 0xDF ? 1 : -1;
    if (c > 0xF4) n = -1;
    if (n < 0 || end_ - p_ <= n) fail(C1ErrorKind::Syntax, "invalid UTF-8");
    for (int k = 1; k <= n; k++)
        if (((unsigned char)p_[k] & 0xC0) != 0x80) fail(C1ErrorKind::Syntax, "invalid UTF-8");
    p_ += n + 1;
}

// ---- merkle/proof.rs --------------------------------------------------------------------------------------------

std::vector<Domain> parse_domains(Cursor& c) {
    std::vector<Domain> out;
    c.array([&](size_t) { c.bytes32(out.emplace_back().data()); });
    return out;
}

std::vector<MerklePathElement> parse_inclusion_path(Cursor& c) {
    std::vector<MerklePathElement> out;
    Required req(c, {"path"});
    c.object([&](std::string_view key) {
        if (!req.take(key)) return false;
        c.array([&](size_t) {
            MerklePathElement& e = out.emplace_back();
            Required r(c, {"hashes", "index"});
            c.object([&](std::string_view k) {
                if (!r.take(k)) return false;
                if (k == "hashes") e.hashes = parse_domains(c);
                else e.index = c.number(UINT64_MAX, "a usize");
                return true;
            });
            r.finish();
        });
        return true;
    });
    req.finish();
    return out;
}

MerkleProof parse_merkle_proof(Cursor& c) {
    MerkleProof p;
    Required outer(c, {"data"});
    c.object([&](std::string_view key) {
        if (!outer.take(key)) return false;
        c.enum_value([&](std::string_view v) {
            if (v == "Single") p.kind = MerkleProofKind::Single;
            else if (v == "Sub") p.kind = MerkleProofKind::Sub;
            else if (v == "Top") p.kind = MerkleProofKind::Top;
            else c.fail(C1ErrorKind::Schema, "unknown variant, expected Single, Sub or Top");
            Required r = p.kind == MerkleProofKind::Single ? Required(c, {"root", "leaf", "path"})
                         : p.kind == MerkleProofKind::Sub  ? Required(c, {"base_proof", "sub_proof", "root", "leaf"})
                                                           : Required(c, {"base_proof", "sub_proof", "top_proof", "root", "leaf"});
            c.object([&](std::string_view k) {
                if (!r.take(k)) return false;
                if (k == "root") c.bytes32(p.root.data());
                else if (k == "leaf") c.bytes32(p.leaf.data());
                else if (k == "path" || k == "base_proof") p.base = parse_inclusion_path(c);
                else if (k == "sub_proof") p.sub = parse_inclusion_path(c);
                else p.top = parse_inclusion_path(c);
                return true;
            });
            r.finish();
        });
        return true;
    });
    outer.finish();
    return p;
}

void Writer::inclusion_path(const std::vector<MerklePathElement>& path) {
    raw("{\"path\":");
    array(path, [&](const MerklePathElement& e) {
        raw("{\"hashes\":");
        domains(e.hashes);
        raw(",\"index\":");
        number(e.index);
        out += '}';
    });
    out += '}';
}

void Writer::merkle_proof(const MerkleProof& p) {
    raw("{\"data\":{");
    switch (p.kind) {
        case MerkleProofKind::Single:
            raw("\"Single\":{\"root\":");
            bytes32(p.root.data());
            raw(",\"leaf\":");
            bytes32(p.leaf.data());
            raw(",\"path\":");
            inclusion_path(p.base);
            break;
        case MerkleProofKind::Sub:
        case MerkleProofKind::Top:
            raw(p.kind == MerkleProofKind::Sub ? "\"Sub\":{\"base_proof\":" : "\"Top\":{\"base_proof\":");
            inclusion_path(p.base);
            raw(",\"sub_proof\":");
            inclusion_path(p.sub);
            if (p.kind == MerkleProofKind::Top) {
                raw(",\"top_proof\":");
                inclusion_path(p.top);
            }
            raw(",\"root\":");
            bytes32(p.root.data());
            raw(",\"leaf\":");
            bytes32(p.leaf.data());
            break;
    }
    raw("}}}");
}

// ---- PoSt and SnapDeals vanilla proofs --------------------------------------------------------------------------

bool looks_like_json(std::span<const uint8_t> bytes) {
    size_t i = 0;
    auto skip_ws = [&] {
        while (i < bytes.size() && (bytes[i] == ' ' || bytes[i] == '\n' || bytes[i] == '\r' || bytes[i] == '\t')) i++;
    };
    skip_ws();
    if (i == bytes.size() || bytes[i] != '{') return false;
    i++;
    skip_ws();
    return i < bytes.size() && (bytes[i] == '"' || bytes[i] == '}');
}

void rethrow_as_malformed(const C1Error& e, std::string_view label) {
    bincode::malformed(label, e.field(), e.message());
}

}  // namespace cuzk::filecoin::json
