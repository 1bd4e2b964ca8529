// SnapDeals (EmptySectorUpdate) vanilla proofs as the update's SNARK prover receives them: one bincode PartitionProof
// per partition (storage-proofs-update vanilla.rs; filecoin-proofs-api update.rs deserializes each with bincode 1.x
// defaults; Curio sends them in ProveRequest.vanilla_proofs), and the circuit witness of a partition built from one.
// bincode layout (bincode.hpp's rules):
//
//   PartitionProof   comm_c [32] | apex_leafs: Vec<[32]> | challenge_proofs: Vec<ChallengeProof>
//   ChallengeProof   proof_r_old: MerkleProof (tree R old, the sector's tree-R shape)
//                    | proof_d_new: MerkleProof (tree D new, binary SHA-256, Single)
//                    | proof_r_new: MerkleProof (tree R new)
//
// The EmptySectorUpdate-Poseidon variant (poseidon/vanilla.rs) has its own PartitionProof without apex_leafs
// (comm_c | challenge_proofs), and its proof_d_new has tree R's shape (tree D is a Poseidon tree there). Upstream
// defines the type but has no vanilla prover for it (its prove is unimplemented!), so only cuzk's generator makes
// such files; the layout is what serde derives for the type.
//
// From a partition proof to the circuit (circuit.rs PrivateInputs::new, compound.rs circuit): comm_c, root_r_old
// and root_r_new from challenge 0's proofs, the apex leaves, per challenge the three leaves and sibling lists; the
// public inputs from k, h and the three commitments the caller gives (never from the vanilla proof).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "cuzk/filecoin/c1.hpp"
#include "cuzk/filecoin/snap_circuit.hpp"

namespace cuzk::filecoin {

struct SnapChallengeProof {
    MerkleProof proof_r_old;
    MerkleProof proof_d_new;
    MerkleProof proof_r_new;
    friend bool operator==(const SnapChallengeProof&, const SnapChallengeProof&) = default;
};

struct SnapPartitionProof {
    Domain comm_c{};
    std::vector<Domain> apex_leafs;  // empty in the Poseidon variant
    std::vector<SnapChallengeProof> challenge_proofs;
    friend bool operator==(const SnapPartitionProof&, const SnapPartitionProof&) = default;
};

// A partition's proof in either encoding, told apart by its content (JSON: '{' after optional whitespace, and not a
// complete bincode proof; vanilla_json.hpp looks_like_json): read_snap_vanilla_bincode or parse_snap_vanilla_json.
SnapPartitionProof read_snap_vanilla_proof(std::span<const uint8_t> bytes, std::string_view label,
                                           UpdateCircuit variant = UpdateCircuit::Sha256);
// FilecoinError(MalformedVanilla) naming `label` and the field for a truncated input, an unknown variant, a length
// the remaining bytes cannot hold, or bytes left over.
SnapPartitionProof read_snap_vanilla_bincode(std::span<const uint8_t> bytes, std::string_view label,
                                             UpdateCircuit variant = UpdateCircuit::Sha256);
// std::invalid_argument for apex leaves in a Poseidon-variant proof (its layout has no place for them).
std::vector<uint8_t> write_snap_vanilla_proof(const SnapPartitionProof& proof,
                                              UpdateCircuit variant = UpdateCircuit::Sha256);

// The same types as serde_json writes them (serde derive, vanilla_json.hpp's rules):
//   {"comm_c": [32 u8], "apex_leafs": [[32 u8]...],
//    "challenge_proofs": [{"proof_r_old": MerkleProof, "proof_d_new": MerkleProof, "proof_r_new": MerkleProof}...]}
// and the Poseidon variant's without "apex_leafs" (an "apex_leafs" there is an unknown field, skipped as serde
// does). Read as serde_json reads them (any whitespace and field order, unknown fields skipped); FilecoinError
// MalformedVanilla "<label>: <JSON path>: <what> (at byte N)" for bad JSON, a missing or duplicate field, a wrong
// type, a number out of range or a node of other than 32 bytes.
SnapPartitionProof parse_snap_vanilla_json(std::string_view text, std::string_view label,
                                           UpdateCircuit variant = UpdateCircuit::Sha256);
// serde_json::to_string's bytes (parse_snap_vanilla_json's inverse); std::invalid_argument as write_snap_vanilla_proof.
std::string write_snap_vanilla_json(const SnapPartitionProof& proof, UpdateCircuit variant = UpdateCircuit::Sha256);

// The shape checks, before anything is hashed: apex_leaf_count apex leaves (SHA-256 variant; none in the Poseidon
// one), snap_circuit_challenge_count challenge proofs, and every Merkle proof of its tree's kind (Single / Sub / Top),
// level count, arities (hashes + 1) and indices (< arity) — proof_r_old and proof_r_new of tree R's shape,
// proof_d_new binary with challenge_bit_len levels (Poseidon variant: tree R's shape) — with canonical nodes.
// FilecoinError(MalformedVanilla) "<label>: <field>: <what>", e.g.
// "partition 3: challenge_proofs[7].proof_d_new: 9 levels, expected 10".
void validate_snap_vanilla_proof(const SnapPartitionProof& proof, const SnapShape& shape, UpdateCircuit variant,
                                 std::string_view label);

// What a partition's circuit takes.
struct SnapPartitionWitness {
    SnapWitness witness;
    std::vector<Fr> public_inputs;  // without ONE: snap_public_inputs / snap_poseidon_public_inputs
};

// Partition k of an update from its vanilla proof and the update's commitments: validate_snap_vanilla_proof, then
// what upstream's vanilla verify checks, field by field —
//   - Poseidon-2(comm_c, root of proof_r_old) = comm_r_old and the same with proof_r_new's root for comm_r_new; all
//     challenges' tree-R roots equal; every proof_d_new's root = comm_d_new;
//   - challenge i's three proofs prove the leaf snap_challenges(shape, comm_r_new, k)[i] (Poseidon variant:
//     snap_challenges_poseidon), and every path hashes from its leaf to its root;
//   - leaf_r_new = leaf_r_old + leaf_d_new * rho(phi, high h bits of the challenge);
//   - SHA-256 variant: the apex leaves hash to the node of challenge 0's tree-D path at the apex root's height,
//     every tree-D path passes through the apex leaf its bits select and shares challenge 0's partition path
//     (its top partition_bit_len siblings).
// So a proof that passes satisfies the circuit. k < partition_count (Poseidon variant: k = 0) and h one of shape.hs,
// else FilecoinError(OutOfRange). Other failures: FilecoinError(MalformedVanilla) naming "partition k" and the
// field, e.g. "partition 0: challenge_proofs[3].proof_r_old: proves leaf 17, the challenge is leaf 40".
SnapPartitionWitness snap_partition_witness(const SnapShape& shape, UpdateCircuit variant,
                                            const SnapPartitionProof& proof, uint32_t k, uint32_t h,
                                            const Fr& comm_r_old, const Fr& comm_d_new, const Fr& comm_r_new);

}  // namespace cuzk::filecoin
