#include "cuzk/filecoin/porep.hpp"

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "cuzk/filecoin/graph.hpp"
#include "cuzk/filecoin/hashers.hpp"
#include "cuzk/formats/proof_io.hpp"

namespace cuzk::filecoin {

namespace {

[[noreturn]] void fail(FilecoinErrorKind kind, const std::string& message) { throw FilecoinError(kind, message); }

// SHA-256 of the concatenation of the parts.
Bytes32 sha256_concat(std::initializer_list<std::span<const uint8_t>> parts) {
    Sha256 h;
    for (auto part : parts) h.update(part);
    return h.finalize();
}

std::span<const uint8_t> bytes_of(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

// challenges.rs bigint_to_challenge: the bytes as a little-endian 256-bit integer, mod (nodes - 1), plus 1.
uint64_t challenge_from_bytes(std::span<const uint8_t, 32> bytes, uint64_t sector_nodes) {
    const uint64_t m = sector_nodes - 1;
    unsigned __int128 r = 0;
    for (int limb = 3; limb >= 0; limb--) {
        uint64_t w = 0;
        for (int i = 7; i >= 0; i--) w = w << 8 | bytes[8 * limb + i];
        r = ((r << 64) | w) % m;
    }
    return uint64_t(r) + 1;
}

void check_nodes(uint64_t sector_nodes) {
    // Upstream debug-asserts nodes < 2^32; one node leaves no node to challenge.
    if (sector_nodes < 2 || sector_nodes >= (uint64_t(1) << 32))
        fail(FilecoinErrorKind::OutOfRange,
             "a sector of " + std::to_string(sector_nodes) + " nodes cannot be challenged (2 .. 2^32 - 1 nodes)");
}

std::array<uint8_t, 4> le32(uint32_t v) { return {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)}; }

// The ChaCha20 keys of synthetic PoRep: BLAKE2b-256 keyed by the domain tag over replica_id || other.
std::array<uint8_t, 32> synthetic_key(std::string_view tag, const Bytes32& replica_id, const Bytes32& other) {
    std::array<uint8_t, 64> message{};
    std::copy(replica_id.begin(), replica_id.end(), message.begin());
    std::copy(other.begin(), other.end(), message.begin() + 32);
    std::array<uint8_t, 32> key{};
    blake2b(message, key, bytes_of(tag));
    return key;
}

constexpr std::array<uint8_t, 12> kSyntheticNonce = {'s', 'y', 'n', 't', 'h', '-', 'p', 'o', 'r', 'e', 'p', 0};
constexpr uint64_t kSyntheticChallengeBytes = 32;
constexpr uint64_t kSyntheticIndexBytes = 4;

// Everything the inputs of every partition share.
struct PorepContext {
    const PorepConfig& config;
    uint32_t challenges_per_partition;
    StackedGraph graph;
    Bytes32 replica_id;
    Bytes32 seed;
    Bytes32 comm_r;
    Fr replica_fr, comm_d_fr, comm_r_fr;

    PorepContext(const PorepConfig& c, const ReplicaInputs& s)
        : config(c),
          challenges_per_partition(c.challenges_per_partition()),
          graph(c),
          replica_id(s.replica_id),
          seed(s.seed),
          comm_r(s.comm_r),
          replica_fr(fr_from_bytes32(s.replica_id, "replica_id")),
          comm_d_fr(fr_from_bytes32(s.comm_d, "comm_d")),
          comm_r_fr(fr_from_bytes32(s.comm_r, "comm_r")) {}

    std::vector<Fr> inputs(uint32_t partition) const {
        if (partition >= config.partitions)
            fail(FilecoinErrorKind::OutOfRange, "partition " + std::to_string(partition) + " of a PoRep with " +
                                                    std::to_string(config.partitions) + " partitions");
        const std::vector<uint64_t> challenges = porep_challenges(config, replica_id, seed, comm_r, partition);
        std::vector<Fr> out;
        out.reserve(config.public_input_count());
        out.push_back(replica_fr);
        out.push_back(comm_d_fr);
        out.push_back(comm_r_fr);
        for (uint64_t c : challenges) {
            const Fr challenge = Fr::from_u64(c);
            out.push_back(challenge);  // tree D path
            for (uint32_t p : graph.base_parents(c)) out.push_back(Fr::from_u64(p));      // tree C paths
            for (uint32_t p : graph.expander_parents(c)) out.push_back(Fr::from_u64(p));  // tree C paths
            out.push_back(challenge);  // the challenge as a UInt64
            out.push_back(challenge);  // tree R_last path
            out.push_back(challenge);  // tree C path of the challenged column
        }
        return out;
    }
};

void check_verifiable(const PorepConfig& config, const ReplicaInputs& sector, const groth16::PreparedVerifyingKey& pvk,
                      std::span<const uint8_t> proof) {
    if (config.non_interactive())
        fail(FilecoinErrorKind::Unsupported,
             "NI-PoRep proofs are SnarkPack aggregates of " + std::to_string(config.partitions) +
                 " partition proofs; verifying the aggregate is not implemented");
    const size_t expected = size_t(config.partitions) * GROTH_PROOF_BYTES;
    if (proof.size() != expected)
        fail(FilecoinErrorKind::BadProofLength,
             "a " + sector_size_name(config.sector_size) + " PoRep proof is " + std::to_string(expected) + " bytes (" +
                 std::to_string(config.partitions) + " partitions x 192), got " + std::to_string(proof.size()));
    const Bytes32 zero{};
    if (sector.comm_d == zero) fail(FilecoinErrorKind::InvalidCommitment, "invalid all-zero commitment (comm_d)");
    if (sector.comm_r == zero) fail(FilecoinErrorKind::InvalidCommitment, "invalid all-zero commitment (comm_r)");
    const size_t inputs = config.public_input_count();
    if (pvk.ic.size() != inputs + 1)
        fail(FilecoinErrorKind::KeyMismatch,
             "the verifying key has " + std::to_string(pvk.ic.size()) + " IC points, a " +
                 sector_size_name(config.sector_size) + " PoRep partition needs " + std::to_string(inputs + 1) +
                 " (" + std::to_string(inputs) + " public inputs and the constant one)");
}

std::vector<std::vector<Fr>> all_partition_inputs(const PorepConfig& config, const ReplicaInputs& sector,
                                                   TimingSink* timing) {
    ScopedTiming span(timing, TimingLayer::Pipeline, "porep.inputs");
    const PorepContext ctx(config, sector);
    std::vector<std::vector<Fr>> inputs(config.partitions);
    for (uint32_t k = 0; k < config.partitions; k++) inputs[k] = ctx.inputs(k);
    return inputs;
}

// The proofs, or nullopt when some slice does not decode (an invalid proof, not an input error).
std::optional<std::vector<groth16::Proof>> decode_partition_proofs(std::span<const uint8_t> proof) {
    try {
        return formats::decode_proofs(proof, "PoRep proof");
    } catch (const formats::FormatError&) {
        return std::nullopt;
    }
}

}  // namespace

Bytes32 replica_id(const Bytes32& prover_id, uint64_t sector_id, const Bytes32& ticket, const Bytes32& comm_d,
                   const Bytes32& porep_id) {
    std::array<uint8_t, 8> sector_be{};
    for (int i = 0; i < 8; i++) sector_be[i] = uint8_t(sector_id >> (56 - 8 * i));
    Bytes32 id = sha256_concat({prover_id, sector_be, ticket, comm_d, porep_id});
    id[31] &= 0x3f;  // fr32 bytes_into_fr_repr_safe: below 2^254, so a canonical Fr
    return id;
}

std::vector<uint64_t> interactive_challenges(uint64_t sector_nodes, const Bytes32& replica_id, const Bytes32& seed,
                                             uint32_t challenges_per_partition, uint32_t partition) {
    check_nodes(sector_nodes);
    std::vector<uint64_t> out(challenges_per_partition);
    for (uint32_t i = 0; i < challenges_per_partition; i++) {
        const uint32_t j = challenges_per_partition * partition + i;
        out[i] = challenge_from_bytes(sha256_concat({replica_id, seed, le32(j)}), sector_nodes);
    }
    return out;
}

std::vector<uint64_t> ni_challenges(uint64_t sector_nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                    uint32_t challenges_per_partition, uint32_t partition) {
    check_nodes(sector_nodes);
    static constexpr std::string_view tag = "filecoin.io|PoRep|1|NonInteractive|1";
    std::vector<uint64_t> out(challenges_per_partition);
    for (uint32_t i = 0; i < challenges_per_partition; i++) {
        const uint32_t j = challenges_per_partition * partition + i;
        out[i] = challenge_from_bytes(sha256_concat({bytes_of(tag), replica_id, comm_r, le32(j)}), sector_nodes);
    }
    return out;
}

// ---- synthetic -----------------------------------------------------------------------------------------------------

SyntheticChallenges::SyntheticChallenges(uint64_t sector_nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                         uint64_t count)
    : sector_nodes_(sector_nodes),
      count_(count == 0 ? std::min(sector_nodes, DEFAULT_COUNT) : count),
      replica_id_(replica_id),
      generation_key_(synthetic_key("filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id, comm_r)) {
    check_nodes(sector_nodes);
    if (count_ >= (uint64_t(1) << 32))
        fail(FilecoinErrorKind::OutOfRange,
             "at most 2^32 - 1 synthetic challenges, asked for " + std::to_string(count_));
}

uint64_t SyntheticChallenges::challenge(uint64_t i) const {
    if (i >= count_)
        fail(FilecoinErrorKind::OutOfRange,
             "synthetic challenge " + std::to_string(i) + " of " + std::to_string(count_));
    ChaCha20Ietf stream(generation_key_, kSyntheticNonce);
    stream.seek(i * kSyntheticChallengeBytes);
    std::array<uint8_t, 32> bytes{};
    stream.keystream(bytes);
    return challenge_from_bytes(bytes, sector_nodes_);
}

std::vector<uint64_t> SyntheticChallenges::all() const {
    ChaCha20Ietf stream(generation_key_, kSyntheticNonce);
    std::vector<uint64_t> out(count_);
    for (uint64_t& c : out) {
        std::array<uint8_t, 32> bytes{};
        stream.keystream(bytes);
        c = challenge_from_bytes(bytes, sector_nodes_);
    }
    return out;
}

std::vector<uint64_t> SyntheticChallenges::partition_indexes(const Bytes32& seed, uint32_t challenges_per_partition,
                                                             uint32_t partition) const {
    ChaCha20Ietf stream(synthetic_key("filecoin.io|PoRep|1|Synthetic|1|Selection", replica_id_, seed),
                        kSyntheticNonce);
    stream.seek(uint64_t(partition) * challenges_per_partition * kSyntheticIndexBytes);
    std::vector<uint8_t> bytes(size_t(challenges_per_partition) * kSyntheticIndexBytes);
    stream.keystream(bytes);
    std::vector<uint64_t> out(challenges_per_partition);
    for (uint32_t i = 0; i < challenges_per_partition; i++) {
        const uint8_t* b = bytes.data() + kSyntheticIndexBytes * i;
        const uint32_t index = uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
        out[i] = index % count_;
    }
    return out;
}

std::vector<uint64_t> SyntheticChallenges::partition_challenges(const Bytes32& seed, uint32_t challenges_per_partition,
                                                                uint32_t partition) const {
    std::vector<uint64_t> out = partition_indexes(seed, challenges_per_partition, partition);
    for (uint64_t& c : out) c = challenge(c);
    return out;
}

std::vector<uint64_t> porep_challenges(const PorepConfig& config, const Bytes32& replica_id, const Bytes32& seed,
                                       const Bytes32& comm_r, uint32_t partition) {
    const uint32_t c = config.challenges_per_partition();
    if (config.synthetic())
        return SyntheticChallenges(config.nodes(), replica_id, comm_r).partition_challenges(seed, c, partition);
    if (config.non_interactive()) return ni_challenges(config.nodes(), replica_id, comm_r, c, partition);
    return interactive_challenges(config.nodes(), replica_id, seed, c, partition);
}

// ---- public inputs and verification -----------------------------------------------------------------------------

ReplicaInputs replica_inputs(const PorepConfig& config, const SealedSector& sector) {
    return {replica_id(sector.prover_id, sector.sector_id, sector.ticket, sector.comm_d, config.porep_id), sector.seed,
            sector.comm_d, sector.comm_r};
}

std::vector<Fr> porep_public_inputs(const PorepConfig& config, const ReplicaInputs& replica, uint32_t partition) {
    return PorepContext(config, replica).inputs(partition);
}

std::vector<Fr> porep_public_inputs(const PorepConfig& config, const SealedSector& sector, uint32_t partition) {
    return porep_public_inputs(config, replica_inputs(config, sector), partition);
}

std::vector<Fr> porep_public_inputs(const PorepConfig& config, const Bytes32& prover_id, uint64_t sector_id,
                                    const Bytes32& ticket, const Bytes32& seed, const Bytes32& comm_d,
                                    const Bytes32& comm_r, uint32_t partition) {
    return porep_public_inputs(config, SealedSector{prover_id, sector_id, ticket, seed, comm_d, comm_r}, partition);
}

bool verify_porep(const groth16::PreparedVerifyingKey& pvk, const PorepConfig& config, const ReplicaInputs& replica,
                  std::span<const uint8_t> proof, TimingSink* timing) {
    check_verifiable(config, replica, pvk, proof);
    const std::vector<std::vector<Fr>> inputs = all_partition_inputs(config, replica, timing);
    const auto proofs = decode_partition_proofs(proof);
    if (!proofs) return false;
    return groth16::verify_proofs_batch(pvk, *proofs, inputs, timing);
}

bool verify_porep(const groth16::PreparedVerifyingKey& pvk, const PorepConfig& config, const SealedSector& sector,
                  std::span<const uint8_t> proof, TimingSink* timing) {
    return verify_porep(pvk, config, replica_inputs(config, sector), proof, timing);
}

bool verify_porep(const groth16::VerifyingKey& vk, const PorepConfig& config, const SealedSector& sector,
                  std::span<const uint8_t> proof, TimingSink* timing) {
    return verify_porep(groth16::prepare_verifying_key(vk), config, sector, proof, timing);
}

std::vector<bool> verify_porep_partitions(const groth16::PreparedVerifyingKey& pvk, const PorepConfig& config,
                                          const ReplicaInputs& replica, std::span<const uint8_t> proof,
                                          TimingSink* timing) {
    check_verifiable(config, replica, pvk, proof);
    const std::vector<std::vector<Fr>> inputs = all_partition_inputs(config, replica, timing);
    std::vector<bool> ok(config.partitions, false);
    for (uint32_t k = 0; k < config.partitions; k++) {
        std::optional<groth16::Proof> p;
        try {
            p = formats::decode_proof(proof.subspan(size_t(k) * GROTH_PROOF_BYTES, GROTH_PROOF_BYTES), "PoRep proof");
        } catch (const formats::FormatError&) {
            continue;  // undecodable: this partition's proof is invalid
        }
        ok[k] = groth16::verify_proof(pvk, *p, inputs[k], timing);
    }
    return ok;
}

std::vector<bool> verify_porep_partitions(const groth16::PreparedVerifyingKey& pvk, const PorepConfig& config,
                                          const SealedSector& sector, std::span<const uint8_t> proof,
                                          TimingSink* timing) {
    return verify_porep_partitions(pvk, config, replica_inputs(config, sector), proof, timing);
}

}  // namespace cuzk::filecoin
