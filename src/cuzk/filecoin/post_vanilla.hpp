// FallbackPoSt vanilla proofs as a PoSt's SNARK prover receives them: one bincode FallbackPoStSectorProof per sector
// (filecoin-proofs types/mod.rs; filecoin-proofs-api post.rs deserializes each with bincode 1.x defaults; Curio
// sends them in ProveRequest.vanilla_proofs), and the circuit witness of one partition built from them as
// filecoin-proofs api/post_util.rs single_partition_vanilla_proofs lays them out.
//
// bincode layout (serde derive, bincode 1.x: fixed-width little-endian integers, a u64 length before every Vec, a u32
// variant index before an enum's fields, [u8; 32] as its 32 bytes, structs as their fields in declaration order):
//
//   FallbackPoStSectorProof  sector_id u64 | comm_r [32] | vanilla_proof: Proof
//   Proof (fallback/vanilla.rs)        sectors: Vec<SectorProof>
//   SectorProof                        inclusion_proofs: Vec<MerkleProof> | comm_c [32] | comm_r_last [32]
//   MerkleProof (merkle/proof.rs)      data: ProofData = u32 variant:
//                                        0 Single  root [32] | leaf [32] | path: InclusionPath
//                                        1 Sub     base_proof | sub_proof: InclusionPath | root | leaf
//                                        2 Top     base_proof | sub_proof | top_proof | root | leaf
//   InclusionPath                      path: Vec<PathElement>
//   PathElement                        hashes: Vec<[32]> (arity - 1 siblings) | index u64 (usize)
//
// Window PoSt: each sector's proof holds one SectorProof of challenge_count (10) inclusion proofs in tree R_last.
// Winning PoSt: one proof of one SectorProof holding 66 inclusion proofs, which the circuit takes as 66 "sectors" of
// one challenge each. A partition with fewer sectors than the circuit's repeats its last one.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "cuzk/filecoin/c1.hpp"
#include "cuzk/filecoin/post_circuit.hpp"

namespace cuzk::filecoin {

// fallback/vanilla.rs SectorProof.
struct PostSectorProof {
    std::vector<MerkleProof> inclusion_proofs;  // tree R_last, one per challenge
    Domain comm_c{};
    Domain comm_r_last{};
    friend bool operator==(const PostSectorProof&, const PostSectorProof&) = default;
};

// filecoin-proofs FallbackPoStSectorProof.
struct FallbackPostSectorProof {
    uint64_t sector_id = 0;
    Domain comm_r{};
    std::vector<PostSectorProof> sectors;  // vanilla_proof.sectors: one for a sector's proof
    friend bool operator==(const FallbackPostSectorProof&, const FallbackPostSectorProof&) = default;
};

// One sector's proof in either encoding, told apart by its content (JSON: '{' after optional whitespace, and not a
// complete bincode proof; vanilla_json.hpp looks_like_json): read_post_vanilla_bincode or parse_post_vanilla_json.
FallbackPostSectorProof read_post_vanilla_proof(std::span<const uint8_t> bytes, std::string_view label);
// Decodes the bincode bytes; FilecoinError MalformedVanilla naming `label` and the field for a truncated input, an
// unknown variant, a length the remaining bytes cannot hold, or bytes left over.
FallbackPostSectorProof read_post_vanilla_bincode(std::span<const uint8_t> bytes, std::string_view label);
// The bytes filecoin-proofs would write for `proof` (read_post_vanilla_bincode's inverse).
std::vector<uint8_t> write_post_vanilla_proof(const FallbackPostSectorProof& proof);

// The same type as serde_json writes it (serde derive, vanilla_json.hpp's rules):
//   {"sector_id": u64, "comm_r": [32 u8],
//    "vanilla_proof": {"sectors": [{"inclusion_proofs": [MerkleProof...], "comm_c": [32 u8], "comm_r_last": [32 u8]}]}}
// Read as serde_json reads it (any whitespace and field order, unknown fields skipped); FilecoinError
// MalformedVanilla "<label>: <JSON path>: <what> (at byte N)" for bad JSON, a missing or duplicate field, a wrong
// type, a number out of its type's range or a node of other than 32 bytes, e.g. "v3.json:
// vanilla_proof.sectors[0].inclusion_proofs[4].data.Single.path.path[2].hashes[0]: 31 bytes, expected 32 (at byte
// 2310)".
FallbackPostSectorProof parse_post_vanilla_json(std::string_view text, std::string_view label);
// serde_json::to_string's bytes: compact, fields in declaration order (parse_post_vanilla_json's inverse).
std::string write_post_vanilla_json(const FallbackPostSectorProof& proof);

// Checks one sector's proof against the circuit of a PoSt of `type` (circuit = PostCircuitConfig::make(size, type)):
// one SectorProof; challenge_count inclusion proofs (Window) or sector_count (66, Winning); every proof of the tree
// R_last shape (variant, levels, arities, indices) with comm_r_last as its root; comm_r = Poseidon-2(comm_c,
// comm_r_last); every hash a canonical field element. FilecoinError (MalformedVanilla, NonCanonical or
// InvalidCommitment) naming `label` and the field.
void validate_post_vanilla_proof(const FallbackPostSectorProof& proof, const PostCircuitConfig& circuit, PoStType type,
                                 std::string_view label);

// One partition's circuit witness and public inputs (post_partition_public_inputs of its sectors).
struct PostPartitionWitness {
    std::vector<PostSectorWitness> sectors;  // the circuit pads to sector_count with the last one
    std::vector<Fr> public_inputs;           // without ONE
};

// Partition `partition` of a PoSt from its sectors' vanilla proofs in order (Window: at most sector_count, the
// partition's sectors; Winning: exactly one), each validated, and every inclusion proof checked to prove the leaf
// that the randomness challenges (post_sector_leaf_challenges, as the public inputs derive it): FilecoinError
// MalformedVanilla naming the sector and the challenge otherwise. randomness must be canonical.
PostPartitionWitness post_partition_witness(const PostCircuitConfig& circuit, PoStType type, const Domain& randomness,
                                            std::span<const FallbackPostSectorProof> proofs, uint32_t partition);

}  // namespace cuzk::filecoin
