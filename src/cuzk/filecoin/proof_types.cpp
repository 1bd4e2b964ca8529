#include "cuzk/filecoin/proof_types.hpp"

#include "cuzk/filecoin/hashers.hpp"

#include <algorithm>
#include <limits>

namespace cuzk::filecoin {

namespace {

[[noreturn]] void fail(FilecoinErrorKind kind, const std::string& message) { throw FilecoinError(kind, message); }

constexpr uint64_t KiB = 1ull << 10, MiB = 1ull << 20, GiB = 1ull << 30;

// filecoin-proofs constants.rs: POREP_PARTITIONS, LAYERS, get_porep_(non_)interactive_minimum_challenges,
// get_porep_non_interactive_partitions, WINDOW_POST_SECTOR_COUNT and the with_shape! mapping of sizes to shapes.
constexpr SectorShape kShapes[] = {
    //  size       nodes             L   P  min  NI-P NI-min tree      window published
    {2 * KiB, 2 * KiB / 32, 2, 1, 2, 13, 26, {8, 0, 0}, 2, true},
    {4 * KiB, 4 * KiB / 32, 2, 1, 2, 13, 26, {8, 2, 0}, 2, false},
    {16 * KiB, 16 * KiB / 32, 2, 1, 2, 13, 26, {8, 8, 0}, 2, false},
    {32 * KiB, 32 * KiB / 32, 2, 1, 2, 13, 26, {8, 8, 2}, 2, false},
    {8 * MiB, 8 * MiB / 32, 2, 1, 2, 13, 26, {8, 0, 0}, 2, true},
    {16 * MiB, 16 * MiB / 32, 2, 1, 2, 13, 26, {8, 2, 0}, 2, false},
    {512 * MiB, 512 * MiB / 32, 2, 1, 2, 13, 26, {8, 0, 0}, 2, true},
    {1 * GiB, 1 * GiB / 32, 2, 1, 2, 13, 26, {8, 2, 0}, 2, false},
    {32 * GiB, 32 * GiB / 32, 11, 10, 176, 126, 2253, {8, 8, 0}, 2349, true},
    {64 * GiB, 64 * GiB / 32, 11, 10, 176, 126, 2253, {8, 8, 2}, 2300, true},
};

// The five published sizes in the order every registered-proof family lists them.
constexpr uint64_t kPublishedSizes[5] = {2 * KiB, 8 * MiB, 512 * MiB, 32 * GiB, 64 * GiB};

constexpr std::string_view kSealNames[REGISTERED_SEAL_PROOF_COUNT] = {
    "StackedDrg2KiBV1",
    "StackedDrg8MiBV1",
    "StackedDrg512MiBV1",
    "StackedDrg32GiBV1",
    "StackedDrg64GiBV1",
    "StackedDrg2KiBV1_1",
    "StackedDrg8MiBV1_1",
    "StackedDrg512MiBV1_1",
    "StackedDrg32GiBV1_1",
    "StackedDrg64GiBV1_1",
    "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg8MiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg512MiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg32GiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg64GiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep",
};

constexpr std::string_view kPoStNames[REGISTERED_POST_PROOF_COUNT] = {
    "StackedDrgWinning2KiBV1",  "StackedDrgWinning8MiBV1",  "StackedDrgWinning512MiBV1",
    "StackedDrgWinning32GiBV1", "StackedDrgWinning64GiBV1", "StackedDrgWindow2KiBV1",
    "StackedDrgWindow8MiBV1",   "StackedDrgWindow512MiBV1", "StackedDrgWindow32GiBV1",
    "StackedDrgWindow64GiBV1",  "StackedDrgWindow2KiBV1_2", "StackedDrgWindow8MiBV1_2",
    "StackedDrgWindow512MiBV1_2", "StackedDrgWindow32GiBV1_2", "StackedDrgWindow64GiBV1_2",
};

// go-state-types numbers the same five proofs 10..14 but calls them V1_1 (lotus and Curio use those names).
constexpr std::string_view kPoStAliases[5] = {
    "StackedDrgWindow2KiBV1_1", "StackedDrgWindow8MiBV1_1", "StackedDrgWindow512MiBV1_1",
    "StackedDrgWindow32GiBV1_1", "StackedDrgWindow64GiBV1_1",
};

constexpr std::string_view kUpdateNames[REGISTERED_UPDATE_PROOF_COUNT] = {
    "StackedDrg2KiBV1", "StackedDrg8MiBV1", "StackedDrg512MiBV1", "StackedDrg32GiBV1", "StackedDrg64GiBV1",
};

template <size_t N>
std::optional<size_t> find_name(const std::string_view (&names)[N], std::string_view name) {
    for (size_t i = 0; i < N; i++)
        if (names[i] == name) return i;
    return std::nullopt;
}

}  // namespace

std::string versioned_cache_name(std::string_view name) {
    std::string s = "v";
    s += std::to_string(PARAMETER_CACHE_VERSION);
    s += '-';
    s += name;
    return s;
}

namespace {

std::string sha256_hex(std::string_view text) {
    return to_hex(sha256({reinterpret_cast<const uint8_t*>(text.data()), text.size()}));
}

// merkletree-{hasher}-{base}-{sub}-{top}, MerkleTreeWrapper::display(); every Filecoin tree R uses Poseidon.
std::string tree_display(TreeShape shape) { return "merkletree-poseidon_hasher-" + tree_shape_name(shape); }

ParameterFileNames file_names(const std::string& prefix, std::string identifier) {
    ParameterFileNames f;
    f.identifier = std::move(identifier);
    f.cache_id = prefix;
    f.cache_id += '-';
    f.cache_id += sha256_hex(f.identifier);
    const std::string stem = versioned_cache_name(f.cache_id);
    f.params = stem + ".params";
    f.vk = stem + ".vk";
    f.meta = stem + ".meta";
    return f;
}

Bytes32 porep_id_from(uint64_t registered_id) {
    Bytes32 id{};
    for (int i = 0; i < 8; i++) id[i] = uint8_t(registered_id >> (8 * i));
    // bytes 8..15: the nonce, 0 for every proof so far; bytes 16..31 stay zero.
    return id;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

std::string_view filecoin_error_kind_name(FilecoinErrorKind kind) {
    switch (kind) {
        case FilecoinErrorKind::UnknownProofType: return "unknown-proof-type";
        case FilecoinErrorKind::UnsupportedSectorSize: return "unsupported-sector-size";
        case FilecoinErrorKind::BadHex: return "bad-hex";
        case FilecoinErrorKind::NonCanonical: return "non-canonical";
        case FilecoinErrorKind::OutOfRange: return "out-of-range";
        case FilecoinErrorKind::BadProofLength: return "bad-proof-length";
        case FilecoinErrorKind::InvalidConfig: return "invalid-config";
        case FilecoinErrorKind::InvalidCommitment: return "invalid-commitment";
        case FilecoinErrorKind::KeyMismatch: return "key-mismatch";
        case FilecoinErrorKind::Unsupported: return "unsupported";
        case FilecoinErrorKind::Io: return "io";
        case FilecoinErrorKind::MissingParameters: return "missing-parameters";
        case FilecoinErrorKind::DigestMismatch: return "digest-mismatch";
        case FilecoinErrorKind::InvalidProof: return "invalid-proof";
        case FilecoinErrorKind::MalformedVanilla: return "malformed-vanilla-proof";
    }
    return "unknown";
}

// ---- bytes ---------------------------------------------------------------------------------------------------------

Bytes32 prover_id_of_actor(uint64_t actor_id) {
    Bytes32 out{};
    size_t i = 0;
    do {
        const uint8_t low7 = uint8_t(actor_id & 0x7f);
        actor_id >>= 7;
        out[i++] = actor_id ? uint8_t(low7 | 0x80) : low7;
    } while (actor_id);
    return out;
}

Bytes32 bytes32_from_hex(std::string_view hex, std::string_view what) {
    if (hex.size() >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex.remove_prefix(2);
    if (hex.size() != 64)
        fail(FilecoinErrorKind::BadHex, std::string(what) + ": expected 64 hex digits (32 bytes), got " +
                                            std::to_string(hex.size()) + " characters");
    Bytes32 out{};
    for (size_t i = 0; i < 32; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            fail(FilecoinErrorKind::BadHex, std::string(what) + ": not a hex digit at position " +
                                                std::to_string(2 * i + (hi < 0 ? 0 : 1)));
        out[i] = uint8_t(hi << 4 | lo);
    }
    return out;
}

std::string to_hex(std::span<const uint8_t> bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s(2 * bytes.size(), '0');
    for (size_t i = 0; i < bytes.size(); i++) {
        s[2 * i] = digits[bytes[i] >> 4];
        s[2 * i + 1] = digits[bytes[i] & 15];
    }
    return s;
}

Fr fr_from_bytes32(const Bytes32& bytes, std::string_view what) {
    auto x = Fr::from_bytes_le(bytes.data());
    if (!x)
        fail(FilecoinErrorKind::NonCanonical,
             std::string(what) + " is not a canonical field element (little-endian value >= r): " + to_hex(bytes));
    return *x;
}

Bytes32 fr_to_bytes32(const Fr& x) {
    Bytes32 out{};
    x.to_bytes_le(out.data());
    return out;
}

uint64_t parse_u64(std::string_view text, std::string_view what) {
    if (text.empty()) fail(FilecoinErrorKind::OutOfRange, std::string(what) + ": empty");
    uint64_t v = 0;
    for (char c : text) {
        if (c < '0' || c > '9')
            fail(FilecoinErrorKind::OutOfRange,
                 std::string(what) + ": '" + std::string(text) + "' is not a decimal number");
        uint64_t d = uint64_t(c - '0');
        if (v > (std::numeric_limits<uint64_t>::max() - d) / 10)
            fail(FilecoinErrorKind::OutOfRange,
                 std::string(what) + ": " + std::string(text) + " does not fit in 64 bits (max 18446744073709551615)");
        v = v * 10 + d;
    }
    return v;
}

// ---- versions and features -----------------------------------------------------------------------------------------

std::string_view api_version_name(ApiVersion v) {
    switch (v) {
        case ApiVersion::V1_0_0: return "V1_0_0";
        case ApiVersion::V1_1_0: return "V1_1_0";
        case ApiVersion::V1_2_0: return "V1_2_0";
    }
    return "?";
}

ApiVersion api_version_from_name(std::string_view name) {
    if (name == "V1_0_0" || name == "1.0.0") return ApiVersion::V1_0_0;
    if (name == "V1_1_0" || name == "1.1.0") return ApiVersion::V1_1_0;
    if (name == "V1_2_0" || name == "1.2.0") return ApiVersion::V1_2_0;
    fail(FilecoinErrorKind::UnknownProofType,
         "unknown api version '" + std::string(name) + "' (expected V1_0_0, V1_1_0 or V1_2_0)");
}

std::string_view api_feature_name(ApiFeature f) {
    return f == ApiFeature::SyntheticPoRep ? "SyntheticPoRep" : "NonInteractivePoRep";
}

ApiFeature api_feature_from_name(std::string_view name) {
    if (name == "SyntheticPoRep") return ApiFeature::SyntheticPoRep;
    if (name == "NonInteractivePoRep") return ApiFeature::NonInteractivePoRep;
    fail(FilecoinErrorKind::UnknownProofType,
         "unknown api feature '" + std::string(name) + "' (expected SyntheticPoRep or NonInteractivePoRep)");
}

// ---- sizes ---------------------------------------------------------------------------------------------------------

std::string tree_shape_name(TreeShape s) {
    return std::to_string(s.base) + "-" + std::to_string(s.sub) + "-" + std::to_string(s.top);
}

std::span<const SectorShape> supported_sector_shapes() { return kShapes; }

const SectorShape& sector_shape(uint64_t size) {
    for (const auto& s : kShapes)
        if (s.sector_size == size) return s;
    fail(FilecoinErrorKind::UnsupportedSectorSize,
         "unsupported sector size " + std::to_string(size) +
             " bytes (supported: 2KiB, 4KiB, 16KiB, 32KiB, 8MiB, 16MiB, 512MiB, 1GiB, 32GiB, 64GiB)");
}

std::string sector_size_name(uint64_t size) {
    if (size >= GiB && size % GiB == 0) return std::to_string(size / GiB) + "GiB";
    if (size >= MiB && size % MiB == 0) return std::to_string(size / MiB) + "MiB";
    if (size >= KiB && size % KiB == 0) return std::to_string(size / KiB) + "KiB";
    return std::to_string(size) + "B";
}

// ---- seal proofs ---------------------------------------------------------------------------------------------------

std::string_view proof_name(RegisteredSealProof p) { return kSealNames[size_t(p)]; }
uint64_t proof_id(RegisteredSealProof p) { return uint64_t(p); }

RegisteredSealProof seal_proof_from_name(std::string_view name) {
    if (auto i = find_name(kSealNames, name)) return RegisteredSealProof(*i);
    fail(FilecoinErrorKind::UnknownProofType,
         "unknown RegisteredSealProof '" + std::string(name) +
             "' (expected a filecoin-proofs-api name such as StackedDrg32GiBV1_1)");
}

RegisteredSealProof seal_proof_from_id(uint64_t id) {
    if (id >= REGISTERED_SEAL_PROOF_COUNT)
        fail(FilecoinErrorKind::UnknownProofType,
             "unknown RegisteredSealProof id " + std::to_string(id) + " (ids are 0..19)");
    return RegisteredSealProof(id);
}

uint64_t sector_size(RegisteredSealProof p) { return kPublishedSizes[size_t(p) % 5]; }

ApiVersion api_version(RegisteredSealProof p) {
    switch (size_t(p) / 5) {
        case 0: return ApiVersion::V1_0_0;
        case 1: return ApiVersion::V1_1_0;
        default: return ApiVersion::V1_2_0;  // synthetic (named V1_1, released in 1.2) and NI
    }
}

std::optional<ApiFeature> api_feature(RegisteredSealProof p) {
    switch (size_t(p) / 5) {
        case 2: return ApiFeature::SyntheticPoRep;
        case 3: return ApiFeature::NonInteractivePoRep;
        default: return std::nullopt;
    }
}

uint32_t partitions(RegisteredSealProof p) {
    const SectorShape& s = sector_shape(sector_size(p));
    return api_feature(p) == ApiFeature::NonInteractivePoRep ? s.ni_porep_partitions : s.porep_partitions;
}

Bytes32 porep_id(RegisteredSealProof p) { return porep_id_from(proof_id(p)); }

// ---- PoSt proofs ---------------------------------------------------------------------------------------------------

std::string_view proof_name(RegisteredPoStProof p) { return kPoStNames[size_t(p)]; }
uint64_t proof_id(RegisteredPoStProof p) { return uint64_t(p); }

RegisteredPoStProof post_proof_from_name(std::string_view name) {
    if (auto i = find_name(kPoStNames, name)) return RegisteredPoStProof(*i);
    if (auto i = find_name(kPoStAliases, name)) return RegisteredPoStProof(10 + *i);
    fail(FilecoinErrorKind::UnknownProofType,
         "unknown RegisteredPoStProof '" + std::string(name) +
             "' (expected a filecoin-proofs-api name such as StackedDrgWindow32GiBV1_2 or StackedDrgWinning32GiBV1)");
}

RegisteredPoStProof post_proof_from_id(uint64_t id) {
    if (id >= REGISTERED_POST_PROOF_COUNT)
        fail(FilecoinErrorKind::UnknownProofType,
             "unknown RegisteredPoStProof id " + std::to_string(id) + " (ids are 0..14)");
    return RegisteredPoStProof(id);
}

uint64_t sector_size(RegisteredPoStProof p) { return kPublishedSizes[size_t(p) % 5]; }
ApiVersion api_version(RegisteredPoStProof p) { return size_t(p) >= 10 ? ApiVersion::V1_2_0 : ApiVersion::V1_0_0; }
PoStType post_type(RegisteredPoStProof p) { return size_t(p) < 5 ? PoStType::Winning : PoStType::Window; }

uint32_t post_sector_count(RegisteredPoStProof p) {
    return post_type(p) == PoStType::Winning ? WINNING_POST_SECTOR_COUNT
                                             : sector_shape(sector_size(p)).window_post_sector_count;
}

uint32_t post_challenge_count(RegisteredPoStProof p) {
    return post_type(p) == PoStType::Winning ? WINNING_POST_CHALLENGE_COUNT : WINDOW_POST_CHALLENGE_COUNT;
}

// ---- update proofs -------------------------------------------------------------------------------------------------

std::string_view proof_name(RegisteredUpdateProof p) { return kUpdateNames[size_t(p)]; }
uint64_t proof_id(RegisteredUpdateProof p) { return uint64_t(p); }

RegisteredUpdateProof update_proof_from_name(std::string_view name) {
    if (auto i = find_name(kUpdateNames, name)) return RegisteredUpdateProof(*i);
    fail(FilecoinErrorKind::UnknownProofType,
         "unknown RegisteredUpdateProof '" + std::string(name) + "' (expected e.g. StackedDrg32GiBV1)");
}

RegisteredUpdateProof update_proof_from_id(uint64_t id) {
    if (id >= REGISTERED_UPDATE_PROOF_COUNT)
        fail(FilecoinErrorKind::UnknownProofType,
             "unknown RegisteredUpdateProof id " + std::to_string(id) + " (ids are 0..4)");
    return RegisteredUpdateProof(id);
}

uint64_t sector_size(RegisteredUpdateProof p) { return kPublishedSizes[size_t(p)]; }
ApiVersion api_version(RegisteredUpdateProof) { return ApiVersion::V1_1_0; }
Bytes32 porep_id(RegisteredUpdateProof p) { return porep_id_from(proof_id(p)); }

// ---- PoRep configuration ---------------------------------------------------------------------------------------

PorepConfig PorepConfig::from_registered(RegisteredSealProof p) {
    PorepConfig c;
    c.sector_size = filecoin::sector_size(p);
    c.partitions = filecoin::partitions(p);
    c.porep_id = filecoin::porep_id(p);
    c.api_version = filecoin::api_version(p);
    c.feature = api_feature(p);
    return c;
}

PorepConfig PorepConfig::make(uint64_t size, const Bytes32& id, ApiVersion version,
                              std::span<const ApiFeature> features) {
    const SectorShape& s = sector_shape(size);
    PorepConfig c;
    c.sector_size = size;
    c.partitions = s.porep_partitions;
    c.porep_id = id;
    c.api_version = version;
    for (ApiFeature f : features) {
        if (c.feature && *c.feature != f)
            fail(FilecoinErrorKind::InvalidConfig, "cannot enable feature " + std::string(api_feature_name(f)) +
                                                       " when " + std::string(api_feature_name(*c.feature)) +
                                                       " is already enabled");
        c.feature = f;
    }
    if (c.non_interactive()) c.partitions = s.ni_porep_partitions;
    return c;
}

uint32_t PorepConfig::minimum_challenges() const {
    const SectorShape& s = shape();
    return non_interactive() ? s.ni_porep_min_challenges : s.porep_min_challenges;
}

uint32_t PorepConfig::challenges_per_partition() const {
    if (partitions == 0) fail(FilecoinErrorKind::InvalidConfig, "PoRep configuration with 0 partitions");
    const uint32_t min = minimum_challenges();
    const uint32_t c = (min + partitions - 1) / partitions;
    if (c > MAX_CHALLENGES_PER_PARTITION)
        fail(FilecoinErrorKind::InvalidConfig,
             std::to_string(partitions) + " partitions need " + std::to_string(c) +
                 " challenges per partition, more than the maximum of 18 (" + std::to_string(min) +
                 " challenges at least)");
    return c;
}

// ---- parameter files -----------------------------------------------------------------------------------------------

ParameterFileNames parameter_files(const PorepConfig& config) {
    // StackedCompound::cache_prefix and layered_drgporep PublicParams' Display (storage-proofs-porep
    // stacked/circuit/proof.rs, vanilla/params.rs, vanilla/graph.rs, core drgraph.rs): only the layers, the
    // challenges per partition and the tree shape enter, never the porep id or the api version.
    const SectorShape& s = config.shape();
    const std::string tree = tree_display(s.tree);
    const std::string graph =
        "stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: " +
        std::to_string(s.nodes) + "; degree: 6; hasher: poseidon_hasher} }";
    std::string identifier = "layered_drgporep::PublicParams{ graph: " + graph +
                             ", challenges: LayerChallenges { layers: " + std::to_string(s.layers) +
                             ", max_count: " + std::to_string(config.challenges_per_partition()) + " }, tree: " +
                             tree + " }";
    return file_names("stacked-proof-of-replication-" + tree + "-sha256_hasher", std::move(identifier));
}

ParameterFileNames parameter_files(RegisteredSealProof p) { return parameter_files(PorepConfig::from_registered(p)); }

ParameterFileNames parameter_files(RegisteredPoStProof p) {
    // FallbackPoSt PublicParams' Display (storage-proofs-post fallback/vanilla.rs). Winning PoSt's setup turns
    // 66 challenges over 1 sector into 66 "sectors" of 1 challenge (filecoin-proofs parameters.rs).
    const uint64_t size = sector_size(p);
    uint32_t challenge_count = post_challenge_count(p), sector_count = post_sector_count(p);
    if (post_type(p) == PoStType::Winning) {
        const uint32_t param_sector_count = challenge_count / sector_count;  // 66
        challenge_count /= param_sector_count;                               // 1
        sector_count = param_sector_count;
    }
    std::string identifier = "FallbackPoSt::PublicParams{sector_size: " + std::to_string(size) +
                             ", challenge_count: " + std::to_string(challenge_count) +
                             ", sector_count: " + std::to_string(sector_count) + "}";
    return file_names("proof-of-spacetime-fallback-" + tree_display(sector_shape(size).tree), std::move(identifier));
}

ParameterFileNames parameter_files(RegisteredUpdateProof p, UpdateCircuit circuit) {
    // storage-proofs-update vanilla.rs PublicParams' Display (shared by both circuits) and the two cache prefixes.
    const SectorShape& s = sector_shape(sector_size(p));
    std::string identifier = "empty_sector_update::PublicParams{ sector_nodes: " + std::to_string(s.nodes) + " }";
    const std::string prefix = circuit == UpdateCircuit::Poseidon ? "empty-sector-update-poseidon-"
                                                                   : "empty-sector-update-";
    return file_names(prefix + tree_display(s.tree), std::move(identifier));
}

}  // namespace cuzk::filecoin
