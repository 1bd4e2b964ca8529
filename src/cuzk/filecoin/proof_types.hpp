// Filecoin's proof identifiers and the sizes they imply, as filecoin-proofs-api (src/registry.rs) and
// filecoin-proofs (src/constants.rs, types/porep_config.rs, parameters.rs) define them:
//
//   RegisteredSealProof    ids 0..19: StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB} x {V1, V1_1, V1_1_Feat_SyntheticPoRep,
//                          V1_2_Feat_NonInteractivePoRep} (the synthetic name says V1_1 but its api version is 1.2.0:
//                          upstream published it with the wrong number and kept it).
//   RegisteredPoStProof    ids 0..14: StackedDrgWinning{size}V1, StackedDrgWindow{size}V1, StackedDrgWindow{size}V1_2.
//   RegisteredUpdateProof  ids 0..4:  StackedDrg{size}V1 (SnapDeals, api version 1.1.0).
// The numeric id of each is its position in the Rust enum, which is also the number the chain uses (go-state-types
// abi; go-state-types calls the Window V1_2 proofs "V1_1", accepted here as aliases when parsing).
//
// PorepConfig mirrors filecoin-proofs' PoRepConfig: the seal regression records carry porep ids that no registered
// proof has (127, 128, 129), so the config, not the registered proof, is what public inputs and verification take.
//
// Parameter files (storage-proofs-core parameter_cache.rs): "v28-" + prefix + "-" + hex(SHA-256(identifier)) with
// the extensions .params / .vk / .meta, the identifier being the Rust Display of the circuit's public parameters.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "cuzk/ff/fr.hpp"

namespace cuzk::filecoin {

// ---- errors --------------------------------------------------------------------------------------------------------

enum class FilecoinErrorKind : uint8_t {
    UnknownProofType = 1,   // a name or numeric id that no registered proof has
    UnsupportedSectorSize,  // a sector size filecoin-proofs does not support
    BadHex,                 // hex text of the wrong length or with a non-hex character
    NonCanonical,           // 32 bytes that are not a canonical Fr (>= r), where a field element is required
    OutOfRange,             // a number outside its domain (partition index, sector id text, node index, ...)
    BadProofLength,         // proof bytes that are not partitions x 192
    InvalidConfig,          // a PoRep configuration upstream would refuse (conflicting features, too many challenges)
    InvalidCommitment,      // an all-zero comm_d or comm_r (verify_seal refuses them)
    KeyMismatch,            // a verifying key whose input count does not fit the proof's circuit
    Unsupported,            // valid input that this code does not handle (e.g. an aggregated NI-PoRep proof)
    Io,                     // a file could not be read or written
    MissingParameters,      // no parameter file of the circuit's name in the directory searched
    DigestMismatch,         // a parameter file whose digest differs from the manifest's
    InvalidProof,           // a proof this code made does not verify (never written out)
    MalformedVanilla,       // vanilla proof bytes that do not decode or do not fit the proof's circuit
};

// "unknown-proof-type", "unsupported-sector-size", ... (stable).
std::string_view filecoin_error_kind_name(FilecoinErrorKind kind);

class FilecoinError : public std::runtime_error {
  public:
    FilecoinError(FilecoinErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    FilecoinErrorKind kind() const { return kind_; }

  private:
    FilecoinErrorKind kind_;
};

// ---- bytes ---------------------------------------------------------------------------------------------------------

// Ids, tickets, seeds and commitments: 32 raw bytes (a commitment is a little-endian canonical Fr).
using Bytes32 = std::array<uint8_t, 32>;

// Exactly 64 hex digits (either case, an optional "0x" prefix); FilecoinError(BadHex) naming `what` otherwise.
Bytes32 bytes32_from_hex(std::string_view hex, std::string_view what = "value");
std::string to_hex(std::span<const uint8_t> bytes);  // lower case, no prefix

// The little-endian canonical Fr the 32 bytes encode; FilecoinError(NonCanonical) naming `what` when >= r.
Fr fr_from_bytes32(const Bytes32& bytes, std::string_view what = "value");
Bytes32 fr_to_bytes32(const Fr& x);

// A decimal u64 (a sector id as text); FilecoinError(OutOfRange) when it is not digits or does not fit in 64 bits.
uint64_t parse_u64(std::string_view text, std::string_view what = "number");

// The prover id of a miner actor: the payload of its ID address (the actor id as an unsigned LEB128 varint, 1 to 10
// bytes) zero-padded to 32 bytes (filecoin-ffi's toProverID over go-address NewIDAddress; Curio's daemon does the same).
Bytes32 prover_id_of_actor(uint64_t actor_id);

// ---- api versions and features ---------------------------------------------------------------------------------

enum class ApiVersion : uint8_t { V1_0_0, V1_1_0, V1_2_0 };
enum class ApiFeature : uint8_t { SyntheticPoRep, NonInteractivePoRep };

std::string_view api_version_name(ApiVersion v);  // "V1_0_0" (serde's spelling, as in the regression records)
// Accepts "V1_0_0" and "1.0.0"; FilecoinError(UnknownProofType) otherwise.
ApiVersion api_version_from_name(std::string_view name);
std::string_view api_feature_name(ApiFeature f);  // "SyntheticPoRep", "NonInteractivePoRep"
ApiFeature api_feature_from_name(std::string_view name);

// ---- sector sizes and shapes ---------------------------------------------------------------------------------------

inline constexpr uint64_t NODE_SIZE = 32;
inline constexpr uint32_t MAX_CHALLENGES_PER_PARTITION = 18;
inline constexpr uint32_t WINNING_POST_CHALLENGE_COUNT = 66;
inline constexpr uint32_t WINNING_POST_SECTOR_COUNT = 1;
inline constexpr uint32_t WINDOW_POST_CHALLENGE_COUNT = 10;
inline constexpr size_t GROTH_PROOF_BYTES = 192;

// Arities of tree R / tree C (and PoSt's tree R): base (8), sub (0 = none, 2 or 8), top (0 = none, or 2).
struct TreeShape {
    uint32_t base = 8;
    uint32_t sub = 0;
    uint32_t top = 0;
    friend bool operator==(const TreeShape&, const TreeShape&) = default;
};
std::string tree_shape_name(TreeShape shape);  // "8-8-0"

// One of the ten sector sizes filecoin-proofs supports (five published, five test-only).
struct SectorShape {
    uint64_t sector_size;               // bytes
    uint64_t nodes;                     // sector_size / 32
    uint32_t layers;                    // SDR layers
    uint32_t porep_partitions;          // interactive and synthetic PoRep
    uint32_t porep_min_challenges;      // interactive minimum over all partitions
    uint32_t ni_porep_partitions;       // non-interactive PoRep
    uint32_t ni_porep_min_challenges;   // non-interactive minimum
    TreeShape tree;                     // tree R / tree C shape
    uint32_t window_post_sector_count;  // sectors per Window PoSt partition
    bool published;                     // has registered proofs and published parameters
};

std::span<const SectorShape> supported_sector_shapes();
// FilecoinError(UnsupportedSectorSize) for any other size.
const SectorShape& sector_shape(uint64_t sector_size);
std::string sector_size_name(uint64_t sector_size);  // "2KiB", "32GiB" (exact binary units)

// ---- registered proofs ---------------------------------------------------------------------------------------------

enum class RegisteredSealProof : uint8_t {
    StackedDrg2KiBV1 = 0,
    StackedDrg8MiBV1,
    StackedDrg512MiBV1,
    StackedDrg32GiBV1,
    StackedDrg64GiBV1,
    StackedDrg2KiBV1_1 = 5,
    StackedDrg8MiBV1_1,
    StackedDrg512MiBV1_1,
    StackedDrg32GiBV1_1,
    StackedDrg64GiBV1_1,
    StackedDrg2KiBV1_1_Feat_SyntheticPoRep = 10,
    StackedDrg8MiBV1_1_Feat_SyntheticPoRep,
    StackedDrg512MiBV1_1_Feat_SyntheticPoRep,
    StackedDrg32GiBV1_1_Feat_SyntheticPoRep,
    StackedDrg64GiBV1_1_Feat_SyntheticPoRep,
    StackedDrg2KiBV1_2_Feat_NonInteractivePoRep = 15,
    StackedDrg8MiBV1_2_Feat_NonInteractivePoRep,
    StackedDrg512MiBV1_2_Feat_NonInteractivePoRep,
    StackedDrg32GiBV1_2_Feat_NonInteractivePoRep,
    StackedDrg64GiBV1_2_Feat_NonInteractivePoRep,
};
inline constexpr size_t REGISTERED_SEAL_PROOF_COUNT = 20;

enum class RegisteredPoStProof : uint8_t {
    StackedDrgWinning2KiBV1 = 0,
    StackedDrgWinning8MiBV1,
    StackedDrgWinning512MiBV1,
    StackedDrgWinning32GiBV1,
    StackedDrgWinning64GiBV1,
    StackedDrgWindow2KiBV1 = 5,
    StackedDrgWindow8MiBV1,
    StackedDrgWindow512MiBV1,
    StackedDrgWindow32GiBV1,
    StackedDrgWindow64GiBV1,
    StackedDrgWindow2KiBV1_2 = 10,
    StackedDrgWindow8MiBV1_2,
    StackedDrgWindow512MiBV1_2,
    StackedDrgWindow32GiBV1_2,
    StackedDrgWindow64GiBV1_2,
};
inline constexpr size_t REGISTERED_POST_PROOF_COUNT = 15;

enum class RegisteredUpdateProof : uint8_t {
    StackedDrg2KiBV1 = 0,
    StackedDrg8MiBV1,
    StackedDrg512MiBV1,
    StackedDrg32GiBV1,
    StackedDrg64GiBV1,
};
inline constexpr size_t REGISTERED_UPDATE_PROOF_COUNT = 5;

enum class PoStType : uint8_t { Winning, Window };

// Seal proofs.
std::string_view proof_name(RegisteredSealProof p);
uint64_t proof_id(RegisteredSealProof p);
RegisteredSealProof seal_proof_from_name(std::string_view name);  // FilecoinError(UnknownProofType)
RegisteredSealProof seal_proof_from_id(uint64_t id);              // FilecoinError(UnknownProofType)
uint64_t sector_size(RegisteredSealProof p);
ApiVersion api_version(RegisteredSealProof p);
std::optional<ApiFeature> api_feature(RegisteredSealProof p);  // at most one: the two features conflict
uint32_t partitions(RegisteredSealProof p);                    // 13 / 126 for NI-PoRep
// registered-proof id as u64 LE || nonce (0) as u64 LE || 16 zero bytes.
Bytes32 porep_id(RegisteredSealProof p);

// PoSt proofs.
std::string_view proof_name(RegisteredPoStProof p);
uint64_t proof_id(RegisteredPoStProof p);
RegisteredPoStProof post_proof_from_name(std::string_view name);  // also go-state-types' "...WindowXV1_1" aliases
RegisteredPoStProof post_proof_from_id(uint64_t id);
uint64_t sector_size(RegisteredPoStProof p);
ApiVersion api_version(RegisteredPoStProof p);  // V1_0_0, or V1_2_0 for the Window V1_2 proofs
PoStType post_type(RegisteredPoStProof p);
uint32_t post_sector_count(RegisteredPoStProof p);     // 1 (Winning) or the Window sector count of the size
uint32_t post_challenge_count(RegisteredPoStProof p);  // 66 (Winning) or 10 (Window)

// Update (SnapDeals) proofs.
std::string_view proof_name(RegisteredUpdateProof p);
uint64_t proof_id(RegisteredUpdateProof p);
RegisteredUpdateProof update_proof_from_name(std::string_view name);
RegisteredUpdateProof update_proof_from_id(uint64_t id);
uint64_t sector_size(RegisteredUpdateProof p);
ApiVersion api_version(RegisteredUpdateProof p);  // V1_1_0
Bytes32 porep_id(RegisteredUpdateProof p);        // the update proof's own id in the same layout

// ---- PoRep configuration ---------------------------------------------------------------------------------------

struct PorepConfig {
    uint64_t sector_size = 0;
    uint32_t partitions = 0;
    Bytes32 porep_id{};
    ApiVersion api_version = ApiVersion::V1_1_0;
    std::optional<ApiFeature> feature;  // SyntheticPoRep and NonInteractivePoRep conflict, so at most one

    // What filecoin-proofs-api's as_v1_config gives.
    static PorepConfig from_registered(RegisteredSealProof p);
    // PoRepConfig::new_groth16_with_features: partitions from the size (NI: its NI count). FilecoinError for an
    // unsupported size or two conflicting features.
    static PorepConfig make(uint64_t sector_size, const Bytes32& porep_id, ApiVersion version,
                            std::span<const ApiFeature> features = {});

    bool synthetic() const { return feature == ApiFeature::SyntheticPoRep; }
    bool non_interactive() const { return feature == ApiFeature::NonInteractivePoRep; }
    const SectorShape& shape() const { return sector_shape(sector_size); }
    uint64_t nodes() const { return shape().nodes; }
    uint32_t layers() const { return shape().layers; }
    // The minimum over all partitions (NI: its own minimum).
    uint32_t minimum_challenges() const;
    // ceil(minimum / partitions); FilecoinError(InvalidConfig) when above MAX_CHALLENGES_PER_PARTITION or when
    // partitions is 0 (filecoin-proofs asserts the same).
    uint32_t challenges_per_partition() const;
    // 3 + 18 per challenge: 39 at 2 KiB, 327 at 32 GiB.
    size_t public_input_count() const { return 3 + 18 * size_t(challenges_per_partition()); }

    friend bool operator==(const PorepConfig&, const PorepConfig&) = default;
};

// ---- parameter files (v28) -----------------------------------------------------------------------------------------

inline constexpr unsigned PARAMETER_CACHE_VERSION = 28;
// "v28-" + name: how Filecoin versions the names of its cached files (parameters, parent caches).
std::string versioned_cache_name(std::string_view name);

// Which SnapDeals circuit: the SHA-256 tree-D variant (16 partitions at 32 GiB) or the single-partition Poseidon one.
enum class UpdateCircuit : uint8_t { Sha256, Poseidon };

struct ParameterFileNames {
    std::string identifier;  // the public parameters' Display, whose SHA-256 is in the name
    std::string cache_id;    // prefix + "-" + hex(SHA-256(identifier)), upstream's circuit_identifier()
    std::string params;      // "v28-" + cache_id + ".params"
    std::string vk;          // ... ".vk"
    std::string meta;        // ... ".meta"
};

// Interactive, synthetic and NI PoRep of one size share the circuit (same layers, challenges/partition, tree).
ParameterFileNames parameter_files(const PorepConfig& config);
ParameterFileNames parameter_files(RegisteredSealProof p);
ParameterFileNames parameter_files(RegisteredPoStProof p);
ParameterFileNames parameter_files(RegisteredUpdateProof p, UpdateCircuit circuit = UpdateCircuit::Sha256);

}  // namespace cuzk::filecoin
