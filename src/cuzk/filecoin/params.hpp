// Filecoin's Groth16 parameter files: where they are, whether a file fits its circuit, its published digest, and
// self-made parameters of the exact circuit for test sizes (storage-proofs-core parameter_cache.rs, filecoin-proofs
// fil-proofs-param paramcache; SPEC §4.5, §5).
//
//   directory   an explicit one, else $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters
//   names       v28-<prefix>-<SHA-256 of the public parameters' identifier>.params / .vk / .meta (proof_types.hpp)
//   shape       a file's section counts follow from the circuit alone: ic = inputs (ONE included), h = domain - 1,
//               l = aux, a and b at most inputs + aux with b_g1 = b_g2. They are checked from the headers before
//               any point is decoded, so a file of another circuit is refused before gigabytes are allocated.
//   digest      parameters.json records the first 32 hex digits of the BLAKE2b-512 of each file; optional check.
//   .meta       {"sector_size":N}, serde_json's bytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "cuzk/filecoin/proof_types.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/groth16/types.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/r1cs/counting_cs.hpp"

namespace cuzk::filecoin {

inline constexpr std::string_view kParameterCacheEnv = "FIL_PROOFS_PARAMETER_CACHE";
inline constexpr std::string_view kDefaultParameterCache = "/var/tmp/filecoin-proof-parameters";

// `dir` when not empty, else the environment's FIL_PROOFS_PARAMETER_CACHE when set and not empty, else the default.
std::filesystem::path parameter_cache_dir(const std::filesystem::path& dir = {});

// What the section headers of a parameter (or verifying-key) file of a circuit must say.
struct ParameterShape {
    std::string circuit;  // for messages: "the 2KiB PoRep circuit"
    uint64_t ic = 0;      // public inputs, ONE included
    uint64_t h = 0;       // domain - 1
    uint64_t l = 0;       // aux variables
    uint64_t max_ab = 0;  // inputs + aux: a, b_g1 and b_g2 hold at most one point per variable

    // From a circuit's counts (constraints without the appended input rows, inputs with ONE, aux).
    static ParameterShape of(const r1cs::CircuitCounts& counts, std::string circuit);
};

// The PoRep partition circuit's shape (by counting synthesis: seconds at 32 GiB on many cores).
ParameterShape porep_parameter_shape(const PorepConfig& config);

// FilecoinError(KeyMismatch) naming the file, the section, its count and the circuit's, when the layout does not fit.
// A verifying-key layout (no h, l, a, b sections) is checked for ic only.
void check_parameter_layout(const formats::FileLayout& layout, const ParameterShape& shape, std::string_view file);

// `dir / name`, or FilecoinError(MissingParameters) naming the file name Filecoin uses, the directory searched and
// how to make test parameters.
std::filesystem::path find_parameter_file(const std::filesystem::path& dir, const std::string& name,
                                          std::string_view proof_name);

// The .params file of `dir` for the circuit, found and its headers checked against `shape` (nothing decoded): for a
// loader that decodes it itself (the engine's key store, which streams it onto the GPUs).
std::filesystem::path fit_parameter_file(const std::filesystem::path& dir, const ParameterFileNames& names,
                                         const ParameterShape& shape, std::string_view proof_name);
// The .params file of `dir` (parameter_cache_dir's rules) for the circuit: found, its headers checked against
// `shape`, then decoded with `options` (subgroup checks on by default). FilecoinError for a missing or misfitting
// file, formats::FormatError for a damaged one.
struct LoadedParameters {
    groth16::Parameters params;
    std::filesystem::path path;
    size_t file_bytes = 0;
    double seconds = 0;                // the whole load
    double decode_seconds = 0;         // of which the queries' decoding (formats::ParamsReadResult)
    double subgroup_seconds = 0;       // and their batched subgroup checks
    double subgroup_wait_seconds = 0;  // the part of those the load waited for (less when they ran on a device)
};
LoadedParameters load_parameters(const std::filesystem::path& dir, const ParameterFileNames& names,
                                 const ParameterShape& shape, std::string_view proof_name,
                                 const formats::ParamsReadOptions& options = {});
// The same for the .vk file.
groth16::VerifyingKey load_verifying_key(const std::filesystem::path& dir, const ParameterFileNames& names,
                                         const ParameterShape& shape, std::string_view proof_name);

// parameters.json's digest of a file: the first 32 hex digits of its BLAKE2b-512 (read in pieces, no copy).
std::string parameter_file_digest(const std::filesystem::path& path);
// Compares a file's digest with the entry of its file name in a parameters.json manifest: FilecoinError
// (DigestMismatch) naming both digests, (MissingParameters) when the manifest has no entry for it, (Io) when the
// manifest cannot be read or is not the expected JSON.
void check_parameter_digest(const std::filesystem::path& file, const std::filesystem::path& manifest);

// paramcache for one PoRep configuration: a setup of the blank partition circuit with toxic waste from the OS CSPRNG
// (or from `seed`, tests only), written as .params, .vk and .meta under Filecoin's names into `dir` (created when
// missing; each file written atomically). Refuses sector sizes above 512 MiB (FilecoinError(Unsupported)): a setup
// of a 32 GiB partition needs far more memory and time than a test has.
struct GeneratedParameters {
    std::filesystem::path params, vk, meta;
    uint64_t ic = 0, h = 0, l = 0, a = 0, b = 0;  // the sections' sizes
    double seconds = 0;
};
using ParamsGenProgress = std::function<void(const char* stage, size_t done, size_t total)>;
GeneratedParameters generate_porep_parameters(const PorepConfig& config, const std::filesystem::path& dir,
                                              std::optional<uint64_t> seed = std::nullopt,
                                              const ParamsGenProgress& progress = {});
// The same for a PoSt circuit: Winning PoSt of any size (370,590 rows at 32 GiB), Window PoSt up to 512 MiB.
GeneratedParameters generate_post_parameters(RegisteredPoStProof p, const std::filesystem::path& dir,
                                             std::optional<uint64_t> seed = std::nullopt,
                                             const ParamsGenProgress& progress = {});
// The setup of any circuit written under `names` (the two above).
GeneratedParameters generate_circuit_parameters(const r1cs::Circuit& circuit, const ParameterFileNames& names,
                                                uint64_t sector_size, const std::filesystem::path& dir,
                                                std::optional<uint64_t> seed, const ParamsGenProgress& progress);

// The PoSt circuit's shape (post_circuit_info).
ParameterShape post_parameter_shape(RegisteredPoStProof p);

// The same for a SnapDeals circuit (the SHA-256 variant's partition or the Poseidon variant), sectors up to 512 MiB.
GeneratedParameters generate_snap_parameters(RegisteredUpdateProof p, UpdateCircuit variant,
                                             const std::filesystem::path& dir, std::optional<uint64_t> seed = std::nullopt,
                                             const ParamsGenProgress& progress = {});
// The SnapDeals circuit's shape (snap_circuit_info of the variant).
ParameterShape snap_parameter_shape(RegisteredUpdateProof p, UpdateCircuit variant);

}  // namespace cuzk::filecoin
