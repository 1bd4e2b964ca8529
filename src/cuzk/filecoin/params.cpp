#include "cuzk/filecoin/params.hpp"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cuzk/filecoin/graph.hpp"
#include "cuzk/filecoin/porep_circuit.hpp"
#include "cuzk/filecoin/post_circuit.hpp"
#include "cuzk/filecoin/snap_circuit.hpp"
#include "cuzk/formats/json_depth.hpp"
#include "cuzk/groth16/setup.hpp"
#include "cuzk/util/input_file.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::filecoin {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(FilecoinErrorKind kind, const std::string& message) { throw FilecoinError(kind, message); }

uint64_t domain_size(uint64_t rows) {
    uint64_t m = 1;
    while (m < rows) m <<= 1;
    return m;
}

std::string porep_circuit_name(const PorepConfig& config) {
    return "the " + sector_size_name(config.sector_size) + " PoRep partition circuit";
}

void write_text(const fs::path& path, const std::string& text) {
    formats::detail::write_file_atomically(path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

}  // namespace

fs::path parameter_cache_dir(const fs::path& dir) {
    if (!dir.empty()) return dir;
    const char* env = std::getenv(std::string(kParameterCacheEnv).c_str());
    if (env && *env) return fs::path(env);
    return fs::path(std::string(kDefaultParameterCache));
}

ParameterShape ParameterShape::of(const r1cs::CircuitCounts& counts, std::string circuit) {
    ParameterShape s;
    s.circuit = std::move(circuit);
    s.ic = counts.inputs;
    s.h = domain_size(counts.constraints + counts.inputs) - 1;
    s.l = counts.aux;
    s.max_ab = counts.inputs + counts.aux;
    return s;
}

ParameterShape porep_parameter_shape(const PorepConfig& config) {
    return ParameterShape::of(porep_circuit_info(config), porep_circuit_name(config));
}

void check_parameter_layout(const formats::FileLayout& layout, const ParameterShape& shape, std::string_view file) {
    auto count = [&](std::string_view name) -> std::optional<uint64_t> {
        for (const auto& s : layout.sections)
            if (s.name == name) return s.count;
        return std::nullopt;
    };
    auto mismatch = [&](std::string_view section, uint64_t got, const std::string& want) {
        fail(FilecoinErrorKind::KeyMismatch, std::string(file) + ": section " + std::string(section) + " has " +
                                                 std::to_string(got) + " points, " + shape.circuit + " needs " + want +
                                                 " (a file of another circuit?)");
    };
    if (const auto ic = count("ic"); ic && *ic != shape.ic) mismatch("ic", *ic, std::to_string(shape.ic));
    if (const auto h = count("h"); h && *h != shape.h) mismatch("h", *h, std::to_string(shape.h));
    if (const auto l = count("l"); l && *l != shape.l) mismatch("l", *l, std::to_string(shape.l));
    for (const char* name : {"a", "b_g1", "b_g2"})
        if (const auto n = count(name); n && *n > shape.max_ab)
            mismatch(name, *n, "at most " + std::to_string(shape.max_ab));
    const auto b1 = count("b_g1"), b2 = count("b_g2");
    if (b1 && b2 && *b1 != *b2) mismatch("b_g2", *b2, std::to_string(*b1) + " (as many as b_g1)");
}

fs::path find_parameter_file(const fs::path& dir, const std::string& name, std::string_view proof_name) {
    const fs::path path = dir / name;
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) return path;
    fail(FilecoinErrorKind::MissingParameters,
         "no parameter file " + name + " in " + dir.string() + " (the directory comes from --params-dir, else " +
             std::string(kParameterCacheEnv) + ", else " + std::string(kDefaultParameterCache) +
             "; test parameters: cuzk filecoin params gen --proof-type " + std::string(proof_name) + ")");
}

fs::path fit_parameter_file(const fs::path& dir, const ParameterFileNames& names, const ParameterShape& shape,
                            std::string_view proof_name) {
    const fs::path path = find_parameter_file(dir, names.params, proof_name);
    const formats::MappedFile file(path);
    file.read([&](std::span<const uint8_t> bytes) {
        check_parameter_layout(formats::parse_parameters_layout(bytes, path.string()), shape, path.string());
        return 0;
    });
    return path;
}

LoadedParameters load_parameters(const fs::path& dir, const ParameterFileNames& names, const ParameterShape& shape,
                                 std::string_view proof_name, const formats::ParamsReadOptions& options) {
    const auto t0 = std::chrono::steady_clock::now();
    LoadedParameters out;
    out.path = find_parameter_file(dir, names.params, proof_name);
    const formats::MappedFile file(out.path);
    const std::string source = out.path.string();
    auto read = file.read([&](std::span<const uint8_t> bytes) {
        check_parameter_layout(formats::parse_parameters_layout(bytes, source), shape, source);
        return formats::read_parameters(bytes, source, options);
    });
    out.params = std::move(read.params);
    out.file_bytes = file.bytes().size();
    out.decode_seconds = read.decode_seconds;
    out.subgroup_seconds = read.subgroup_seconds;
    out.subgroup_wait_seconds = read.subgroup_wait_seconds;
    out.seconds = seconds_since(t0);
    return out;
}

groth16::VerifyingKey load_verifying_key(const fs::path& dir, const ParameterFileNames& names,
                                         const ParameterShape& shape, std::string_view proof_name) {
    const fs::path path = find_parameter_file(dir, names.vk, proof_name);
    const formats::MappedFile file(path);
    return file.read([&](std::span<const uint8_t> bytes) {
        check_parameter_layout(formats::parse_verifying_key_layout(bytes, path.string()), shape, path.string());
        return formats::read_verifying_key(bytes, path.string()).vk;
    });
}

std::string parameter_file_digest(const fs::path& path) {
    const formats::MappedFile file(path);
    return file.read([&](std::span<const uint8_t> bytes) {
        Blake2b hash(64);
        constexpr size_t kPiece = size_t(64) << 20;  // one piece at a time: the page cache, not RSS, holds the file
        for (size_t off = 0; off < bytes.size(); off += kPiece)
            hash.update(bytes.subspan(off, std::min(kPiece, bytes.size() - off)));
        return to_hex(hash.finish()).substr(0, 32);
    });
}

void check_parameter_digest(const fs::path& file, const fs::path& manifest) {
    std::string text;
    try {
        text = read_input_file(manifest, kMaxJsonInputBytes, "the parameter manifest");
    } catch (const InputFileError& e) {
        fail(FilecoinErrorKind::Io, e.what());
    }
    std::string want;
    try {
        formats::check_json_depth(text, manifest.string());
        const auto j = nlohmann::json::parse(text);
        const auto entry = j.find(file.filename().string());
        if (entry == j.end())
            fail(FilecoinErrorKind::MissingParameters,
                 manifest.string() + " has no entry for " + file.filename().string());
        want = entry->at("digest").get<std::string>();
    } catch (const nlohmann::json::exception& e) {
        fail(FilecoinErrorKind::Io, manifest.string() + ": not a parameters.json manifest (" + e.what() + ")");
    } catch (const formats::FormatError& e) {
        fail(FilecoinErrorKind::Io, e.what());
    }
    const std::string got = parameter_file_digest(file);
    if (got != want)
        fail(FilecoinErrorKind::DigestMismatch, file.string() + ": BLAKE2b digest " + got + ", " + manifest.string() +
                                                    " records " + want + " (a damaged or different file)");
}

GeneratedParameters generate_circuit_parameters(const r1cs::Circuit& circuit, const ParameterFileNames& names,
                                                uint64_t sector_size, const fs::path& dir,
                                                std::optional<uint64_t> seed, const ParamsGenProgress& progress) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto tw = seed ? groth16::ToxicWaste::from_seed(*seed) : groth16::ToxicWaste::random();
    const groth16::Parameters params = groth16::generate_parameters(circuit, tw, nullptr, progress);

    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) fail(FilecoinErrorKind::Io, "cannot create " + dir.string() + ": " + ec.message());
    GeneratedParameters out;
    out.params = dir / names.params;
    out.vk = dir / names.vk;
    out.meta = dir / names.meta;
    formats::write_parameters(out.params, params);
    formats::write_verifying_key(out.vk, params.vk);
    write_text(out.meta, nlohmann::json{{"sector_size", sector_size}}.dump());
    out.ic = params.vk.ic.size(), out.h = params.h.size(), out.l = params.l.size();
    out.a = params.a.size(), out.b = params.b_g1.size();
    out.seconds = seconds_since(t0);
    return out;
}

GeneratedParameters generate_porep_parameters(const PorepConfig& config, const fs::path& dir,
                                              std::optional<uint64_t> seed, const ParamsGenProgress& progress) {
    if (config.sector_size > (uint64_t(512) << 20))
        fail(FilecoinErrorKind::Unsupported,
             "params gen makes test parameters for sectors up to 512 MiB; a " + sector_size_name(config.sector_size) +
                 " setup needs far more memory and time (use the published parameters)");
    const StackedPorepCircuit circuit(blank_stacked_porep_partition(StackedPorepShape::of(config)));
    return generate_circuit_parameters(circuit, parameter_files(config), config.sector_size, dir, seed, progress);
}

ParameterShape post_parameter_shape(RegisteredPoStProof p) {
    return ParameterShape::of(post_circuit_info(p), "the " + std::string(proof_name(p)) + " circuit");
}

namespace {
std::string snap_circuit_name(RegisteredUpdateProof p, UpdateCircuit variant) {
    return "the " + std::string(proof_name(p)) + (variant == UpdateCircuit::Poseidon ? " update (Poseidon) circuit"
                                                                                     : " update circuit");
}
}  // namespace

ParameterShape snap_parameter_shape(RegisteredUpdateProof p, UpdateCircuit variant) {
    return ParameterShape::of(snap_circuit_info(p, variant), snap_circuit_name(p, variant));
}

GeneratedParameters generate_snap_parameters(RegisteredUpdateProof p, UpdateCircuit variant, const fs::path& dir,
                                             std::optional<uint64_t> seed, const ParamsGenProgress& progress) {
    if (sector_size(p) > (uint64_t(512) << 20))
        fail(FilecoinErrorKind::Unsupported,
             "params gen makes SnapDeals test parameters for sectors up to 512 MiB; " + snap_circuit_name(p, variant) +
                 " needs far more memory and time (use the published parameters)");
    const auto circuit =
        EmptySectorUpdateCircuit::blank(SnapShape::from_sector_size(sector_size(p)), variant);
    return generate_circuit_parameters(circuit, parameter_files(p, variant), sector_size(p), dir, seed, progress);
}

GeneratedParameters generate_post_parameters(RegisteredPoStProof p, const fs::path& dir, std::optional<uint64_t> seed,
                                             const ParamsGenProgress& progress) {
    if (post_type(p) == PoStType::Window && sector_size(p) > (uint64_t(512) << 20))
        fail(FilecoinErrorKind::Unsupported,
             "params gen makes Window PoSt test parameters for sectors up to 512 MiB (two sectors per partition); "
             "a " + std::string(proof_name(p)) + " setup needs far more memory and time (use the published parameters)");
    const FallbackPostCircuit circuit = FallbackPostCircuit::blank(PostCircuitConfig::from_registered(p));
    return generate_circuit_parameters(circuit, parameter_files(p), sector_size(p), dir, seed, progress);
}

}  // namespace cuzk::filecoin
