#include "cuzk/formats/snarkjs_json.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cuzk/ec/subgroup.hpp"
#include "cuzk/ff/fq.hpp"
#include "cuzk/formats/json_depth.hpp"
#include "cuzk/pairing/pairing.hpp"
#include "cuzk/util/input_file.hpp"

namespace cuzk::formats::snarkjs {

namespace {

using ojson = nlohmann::ordered_json;

[[noreturn]] void fail(FormatErrorKind kind, std::string_view source, const std::string& field, const std::string& why) {
    throw FormatError(kind, std::string(source) + ": " + (field.empty() ? "" : field + ": ") + why, field);
}

ojson g1_json(const G1Affine& p) {
    if (p.is_identity()) return ojson::array({"0", "1", "0"});
    return ojson::array({p.x.to_decimal(), p.y.to_decimal(), "1"});
}
ojson fq2_json(const Fq2& f) { return ojson::array({f.c0.to_decimal(), f.c1.to_decimal()}); }
ojson g2_json(const G2Affine& p) {
    if (p.is_identity()) return ojson::array({fq2_json(Fq2::zero()), fq2_json(Fq2::one()), fq2_json(Fq2::zero())});
    return ojson::array({fq2_json(p.x), fq2_json(p.y), fq2_json(Fq2::one())});
}
ojson fq6_json(const Fq6& f) { return ojson::array({fq2_json(f.c0), fq2_json(f.c1), fq2_json(f.c2)}); }

// An input value in an error message: a number or a short string as it is, anything else by its type (an input's
// containers are never serialised back: that recursion is what a deeply nested file would overflow).
std::string describe(const ojson& v) {
    if (v.is_number() || v.is_boolean() || v.is_null()) return v.dump();
    if (v.is_string()) {
        const std::string& s = v.get_ref<const std::string&>();
        return s.size() <= 40 ? ojson(s).dump() : ojson(s.substr(0, 40)).dump() + "...";
    }
    return std::string("a JSON ") + v.type_name();
}

// JSON.stringify(v, null, 1) and nlohmann's dump(1) agree for arrays, objects and strings (", " -> ",\n",
// "key": value, empty containers as [] / {}); only the object key order needs ordered_json.
std::string dump(const ojson& j) { return j.dump(1); }

ojson parse(std::string_view text, std::string_view source) {
    check_json_depth(text, source);
    try {
        return ojson::parse(text.begin(), text.end());
    } catch (const nlohmann::json::exception& e) {
        fail(FormatErrorKind::BadJson, source, "", std::string("not JSON: ") + e.what());
    }
}

const ojson& field(const ojson& obj, const char* name, std::string_view source) {
    if (!obj.is_object()) fail(FormatErrorKind::BadJson, source, "", "expected a JSON object");
    auto it = obj.find(name);
    if (it == obj.end()) fail(FormatErrorKind::BadJson, source, name, "missing");
    return *it;
}

template <class F>
F decimal(const ojson& j, std::string_view source, const std::string& where) {
    if (!j.is_string()) fail(FormatErrorKind::BadJson, source, where, "expected a decimal string");
    const std::string& s = j.get_ref<const std::string&>();
    if (s.empty() || (s.size() > 1 && s[0] == '0'))
        fail(FormatErrorKind::BadValue, source, where, "\"" + s + "\" is not a canonical decimal");
    auto v = F::from_decimal(s);
    if (!v) fail(FormatErrorKind::BadValue, source, where, "\"" + s + "\" is not a decimal below the field modulus");
    return *v;
}

const ojson& array_of(const ojson& j, size_t n, std::string_view source, const std::string& where) {
    if (!j.is_array() || j.size() != n)
        fail(FormatErrorKind::BadJson, source, where, "expected an array of " + std::to_string(n) + " elements");
    return j;
}

G1Affine parse_g1(const ojson& j, std::string_view source, const std::string& where) {
    array_of(j, 3, source, where);
    Fq x = decimal<Fq>(j[0], source, where), y = decimal<Fq>(j[1], source, where);
    Fq z = decimal<Fq>(j[2], source, where);
    if (z.is_zero()) return G1Affine::identity();
    if (z != Fq::one()) fail(FormatErrorKind::BadPoint, source, where, "projective z other than 0 or 1");
    G1Affine p = G1Affine::from_xy(x, y);
    if (!p.is_on_curve()) fail(FormatErrorKind::BadPoint, source, where, "point is not on the curve");
    if (!g1_in_subgroup(p)) fail(FormatErrorKind::BadPoint, source, where, "point is not in the prime-order subgroup");
    return p;
}

Fq2 parse_fq2(const ojson& j, std::string_view source, const std::string& where) {
    array_of(j, 2, source, where);
    return Fq2{decimal<Fq>(j[0], source, where), decimal<Fq>(j[1], source, where)};
}

G2Affine parse_g2(const ojson& j, std::string_view source, const std::string& where) {
    array_of(j, 3, source, where);
    Fq2 x = parse_fq2(j[0], source, where), y = parse_fq2(j[1], source, where), z = parse_fq2(j[2], source, where);
    if (z.c0.is_zero() && z.c1.is_zero()) return G2Affine::identity();
    if (!(z.c0 == Fq::one() && z.c1.is_zero()))
        fail(FormatErrorKind::BadPoint, source, where, "projective z other than 0 or 1");
    G2Affine p = G2Affine::from_xy(x, y);
    if (!p.is_on_curve()) fail(FormatErrorKind::BadPoint, source, where, "point is not on the curve");
    if (!g2_in_subgroup(p)) fail(FormatErrorKind::BadPoint, source, where, "point is not in the prime-order subgroup");
    return p;
}

void expect_string(const ojson& obj, const char* name, const char* want, std::string_view source) {
    const ojson& v = field(obj, name, source);
    if (!v.is_string() || v.get_ref<const std::string&>() != want)
        fail(FormatErrorKind::BadValue, source, name,
             "is " + describe(v) + ", cuzk reads only \"" + want + "\"");
}

}  // namespace

std::string proof_to_json(const groth16::Proof& proof) {
    ojson j;
    j["pi_a"] = g1_json(proof.a);
    j["pi_b"] = g2_json(proof.b);
    j["pi_c"] = g1_json(proof.c);
    j["protocol"] = "groth16";
    j["curve"] = "bls12381";
    return dump(j);
}

groth16::Proof parse_proof_json(std::string_view text, std::string_view source) {
    ojson j = parse(text, source);
    expect_string(j, "protocol", "groth16", source);
    expect_string(j, "curve", "bls12381", source);
    groth16::Proof p;
    p.a = parse_g1(field(j, "pi_a", source), source, "pi_a");
    p.b = parse_g2(field(j, "pi_b", source), source, "pi_b");
    p.c = parse_g1(field(j, "pi_c", source), source, "pi_c");
    return p;
}

std::string public_signals_to_json(std::span<const Fr> signals) {
    ojson j = ojson::array();
    for (const Fr& v : signals) j.push_back(v.to_decimal());
    return dump(j);
}

std::vector<Fr> parse_public_signals_json(std::string_view text, std::string_view source) {
    ojson j = parse(text, source);
    if (!j.is_array()) fail(FormatErrorKind::BadJson, source, "", "expected a JSON array of decimal strings");
    std::vector<Fr> out;
    out.reserve(j.size());
    for (size_t i = 0; i < j.size(); i++) out.push_back(decimal<Fr>(j[i], source, "signal " + std::to_string(i)));
    return out;
}

std::string verification_key_to_json(const groth16::VerifyingKey& vk) {
    ojson j;
    j["protocol"] = "groth16";
    j["curve"] = "bls12381";
    j["nPublic"] = vk.num_public_inputs();
    j["vk_alpha_1"] = g1_json(vk.alpha_g1);
    j["vk_beta_2"] = g2_json(vk.beta_g2);
    j["vk_gamma_2"] = g2_json(vk.gamma_g2);
    j["vk_delta_2"] = g2_json(vk.delta_g2);
    const Fq12 ab = pairing(vk.alpha_g1, vk.beta_g2);
    j["vk_alphabeta_12"] = ojson::array({fq6_json(ab.c0), fq6_json(ab.c1)});
    ojson ic = ojson::array();
    for (const auto& p : vk.ic) ic.push_back(g1_json(p));
    j["IC"] = ic;
    return dump(j);
}

groth16::VerifyingKey parse_verification_key_json(std::string_view text, std::string_view source) {
    ojson j = parse(text, source);
    expect_string(j, "protocol", "groth16", source);
    expect_string(j, "curve", "bls12381", source);
    groth16::VerifyingKey vk;
    vk.alpha_g1 = parse_g1(field(j, "vk_alpha_1", source), source, "vk_alpha_1");
    vk.beta_g2 = parse_g2(field(j, "vk_beta_2", source), source, "vk_beta_2");
    vk.gamma_g2 = parse_g2(field(j, "vk_gamma_2", source), source, "vk_gamma_2");
    vk.delta_g2 = parse_g2(field(j, "vk_delta_2", source), source, "vk_delta_2");
    const ojson& ic = field(j, "IC", source);
    if (!ic.is_array() || ic.empty()) fail(FormatErrorKind::BadJson, source, "IC", "expected a non-empty array");
    for (size_t i = 0; i < ic.size(); i++) vk.ic.push_back(parse_g1(ic[i], source, "IC[" + std::to_string(i) + "]"));
    const ojson& np = field(j, "nPublic", source);
    if (!np.is_number_unsigned() || np.get<uint64_t>() + 1 != vk.ic.size())
        fail(FormatErrorKind::BadValue, source, "nPublic",
             describe(np) + " does not match the " + std::to_string(vk.ic.size()) + " IC points (nPublic + 1)");
    // snarkjs's key has no beta_1 or delta_1; the verifier does not use them.
    return vk;
}

std::string read_text_file(const std::filesystem::path& path) {
    try {
        return read_input_file(path, kMaxJsonInputBytes);
    } catch (const InputFileError& e) {
        throw FormatError(FormatErrorKind::Io, e.what());
    }
}

void write_text_file(const std::filesystem::path& path, std::string_view text) {
    detail::write_file_atomically(path, std::span<const uint8_t>((const uint8_t*)text.data(), text.size()));
}

}  // namespace cuzk::formats::snarkjs
