// SnapDeals (EmptySectorUpdate) vanilla proofs as the update's SNARK prover receives them: one bincode PartitionProof
// per partition (storage-proofs-update vanilla.rs; filecoin-proofs-api update.rs deserializes each with bincode 1.x
// defaults; Curio sends them in ProveRequest.vanilla_proofs). Layout (bincode.hpp's rules):
//
//   PartitionProof   comm_c [32] | apex_leafs: Vec<[32]> | challenge_proofs: Vec<ChallengeProof>
//   ChallengeProof   proof_r_old: MerkleProof (tree R old, the sector's tree-R shape)
//                    | proof_d_new: MerkleProof (tree D new, binary SHA-256, Single)
//                    | proof_r_new: MerkleProof (tree R new)
//
// Reading and writing only, for now (issue 18): the partition witness of the update circuit is the next step.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "cuzk/filecoin/c1.hpp"

namespace cuzk::filecoin {

struct SnapChallengeProof {
    MerkleProof proof_r_old;
    MerkleProof proof_d_new;
    MerkleProof proof_r_new;
    friend bool operator==(const SnapChallengeProof&, const SnapChallengeProof&) = default;
};

struct SnapPartitionProof {
    Domain comm_c{};
    std::vector<Domain> apex_leafs;
    std::vector<SnapChallengeProof> challenge_proofs;
    friend bool operator==(const SnapPartitionProof&, const SnapPartitionProof&) = default;
};

// FilecoinError(MalformedVanilla) naming `label` and the field for a truncated input, an unknown variant, a length
// the remaining bytes cannot hold, or bytes left over.
SnapPartitionProof read_snap_vanilla_proof(std::span<const uint8_t> bytes, std::string_view label);
std::vector<uint8_t> write_snap_vanilla_proof(const SnapPartitionProof& proof);

}  // namespace cuzk::filecoin
