// What a PoRep verifier computes natively (rust-fil-proofs storage-proofs-porep stacked/vanilla/{params,challenges}.rs,
// stacked/circuit/proof.rs generate_public_inputs, core gadgets/por.rs; filecoin-proofs api/seal.rs verify_seal):
//
//   replica_id = SHA-256(prover_id || sector_id u64 BE || ticket || comm_d || porep_id), byte 31 &= 0x3f (an Fr, LE).
//   challenge  = (256-bit little-endian integer) mod (nodes - 1) + 1        (node 0 is never challenged), from
//     interactive     SHA-256(replica_id || seed || j u32 LE)                              j = k * C + i
//     non-interactive SHA-256("filecoin.io|PoRep|1|NonInteractive|1" || replica_id || comm_r || j u32 LE)
//     synthetic       32 bytes at offset 32 s of ChaCha20(key = BLAKE2b-256 keyed "…|Synthetic|1|Generation" over
//                     replica_id || comm_r, nonce "synth-porep\0"), for s = u32 LE at offset 4 j of ChaCha20(key =
//                     BLAKE2b-256 keyed "…|Synthetic|1|Selection" over replica_id || seed, same nonce) mod the
//                     number of synthetic challenges (min(nodes, 2^18)).
//   public inputs of partition k, all Fr: replica_id, comm_d, comm_r, then for each of its C challenges c:
//     c (tree-D path), the 6 base parents of c, the 8 expander parents of c, c (the challenge as a UInt64),
//     c (tree-R path), c (tree-C path)  ->  3 + 18 C inputs (39 at 2 KiB, 327 at 32 GiB).
// A Merkle path's public input packs the path's index bits little-endian, which is the leaf index itself.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cuzk/ff/fr.hpp"
#include "cuzk/filecoin/proof_types.hpp"
#include "cuzk/groth16/types.hpp"
#include "cuzk/groth16/verifier.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::filecoin {

Bytes32 replica_id(const Bytes32& prover_id, uint64_t sector_id, const Bytes32& ticket, const Bytes32& comm_d,
                   const Bytes32& porep_id);

// ---- challenges (node indices in [1, sector_nodes)) -----------------------------------------------------------

// Partition k's challenges; sector_nodes >= 2.
std::vector<uint64_t> interactive_challenges(uint64_t sector_nodes, const Bytes32& replica_id, const Bytes32& seed,
                                             uint32_t challenges_per_partition, uint32_t partition);
std::vector<uint64_t> ni_challenges(uint64_t sector_nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                    uint32_t challenges_per_partition, uint32_t partition);

// The synthetic challenge set of a sector (SyntheticPoRep, api 1.2) and the PoRep challenges selected from it.
class SyntheticChallenges {
  public:
    static constexpr uint64_t DEFAULT_COUNT = uint64_t(1) << 18;

    // count 0: upstream's default, min(sector_nodes, 2^18). FilecoinError(OutOfRange) for count >= 2^32.
    SyntheticChallenges(uint64_t sector_nodes, const Bytes32& replica_id, const Bytes32& comm_r, uint64_t count = 0);

    uint64_t count() const { return count_; }
    // The i-th synthetic challenge, i < count() (else FilecoinError(OutOfRange)).
    uint64_t challenge(uint64_t i) const;
    std::vector<uint64_t> all() const;
    // Which synthetic challenges partition k uses (indexes into the set), and those challenges.
    std::vector<uint64_t> partition_indexes(const Bytes32& seed, uint32_t challenges_per_partition,
                                            uint32_t partition) const;
    std::vector<uint64_t> partition_challenges(const Bytes32& seed, uint32_t challenges_per_partition,
                                               uint32_t partition) const;

  private:
    uint64_t sector_nodes_;
    uint64_t count_;
    Bytes32 replica_id_;
    std::array<uint8_t, 32> generation_key_{};
};

// Partition k's challenges as the configuration derives them (interactive, synthetic or NI).
std::vector<uint64_t> porep_challenges(const PorepConfig& config, const Bytes32& replica_id, const Bytes32& seed,
                                       const Bytes32& comm_r, uint32_t partition);

// ---- public inputs and verification -----------------------------------------------------------------------------

// What verify_seal takes besides the configuration and the proof.
struct SealedSector {
    Bytes32 prover_id{};
    uint64_t sector_id = 0;
    Bytes32 ticket{};
    Bytes32 seed{};
    Bytes32 comm_d{};
    Bytes32 comm_r{};
};

// What the verifier needs of a sector once replica_id is known (a C1 output carries replica_id instead of the
// prover and sector ids it is derived from).
struct ReplicaInputs {
    Bytes32 replica_id{};
    Bytes32 seed{};
    Bytes32 comm_d{};
    Bytes32 comm_r{};
};
ReplicaInputs replica_inputs(const PorepConfig& config, const SealedSector& sector);

// Partition k's public inputs (3 + 18 C). FilecoinError: OutOfRange for partition >= config.partitions,
// NonCanonical for a comm_d / comm_r that is not a canonical Fr, InvalidConfig for a configuration upstream refuses.
std::vector<Fr> porep_public_inputs(const PorepConfig& config, const SealedSector& sector, uint32_t partition);
std::vector<Fr> porep_public_inputs(const PorepConfig& config, const ReplicaInputs& replica, uint32_t partition);
std::vector<Fr> porep_public_inputs(const PorepConfig& config, const Bytes32& prover_id, uint64_t sector_id,
                                    const Bytes32& ticket, const Bytes32& seed, const Bytes32& comm_d,
                                    const Bytes32& comm_r, uint32_t partition);

// Checks a PoRep proof (config.partitions proofs of 192 bytes, concatenated in partition order) against every
// partition's public inputs, in one batch (a random linear combination, as filecoin-proofs' verify_seal).
// False for an invalid proof, including proof bytes that do not decode to curve points. FilecoinError:
// BadProofLength (not partitions x 192 bytes), InvalidCommitment (all-zero comm_d or comm_r), NonCanonical,
// KeyMismatch (the key's IC count is not 3 + 18 C + 1), Unsupported (NI-PoRep: its proofs are SnarkPack aggregates).
// Timing: a span "porep.inputs" (layer Pipeline) and the verifier's own "verify" spans.
bool verify_porep(const groth16::PreparedVerifyingKey& pvk, const PorepConfig& config, const SealedSector& sector,
                  std::span<const uint8_t> proof, TimingSink* timing = nullptr);
bool verify_porep(const groth16::PreparedVerifyingKey& pvk, const PorepConfig& config, const ReplicaInputs& replica,
                  std::span<const uint8_t> proof, TimingSink* timing = nullptr);
bool verify_porep(const groth16::VerifyingKey& vk, const PorepConfig& config, const SealedSector& sector,
                  std::span<const uint8_t> proof, TimingSink* timing = nullptr);
// The same checks, one partition at a time: entry k says whether partition k's proof is valid.
std::vector<bool> verify_porep_partitions(const groth16::PreparedVerifyingKey& pvk, const PorepConfig& config,
                                          const SealedSector& sector, std::span<const uint8_t> proof,
                                          TimingSink* timing = nullptr);
std::vector<bool> verify_porep_partitions(const groth16::PreparedVerifyingKey& pvk, const PorepConfig& config,
                                          const ReplicaInputs& replica, std::span<const uint8_t> proof,
                                          TimingSink* timing = nullptr);

}  // namespace cuzk::filecoin
