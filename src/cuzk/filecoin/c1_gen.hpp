// A generator of consistent C1 outputs (SealCommitPhase1Output) for any sector size without sealing the sector
// (issue 17 item 4): what the benchmarks and the engine's large tests feed to C2 at 32 GiB and 64 GiB.
//
// Only what the vanilla proofs touch is made, from one seeded RNG:
//   - prover_id, sector_id, ticket, seed: random (32-byte values trimmed like Filecoin's randomness);
//   - the data: a random pattern of P = min(nodes, 2^12) nodes repeated over the whole sector. A periodic sector is
//     a real sector, and its tree D is known everywhere without building it: below level log2 P the pattern's own
//     tree, above it one node per level (the node below hashed with itself). So comm_d is fixed before anything
//     else, replica_id = SHA-256(prover_id ‖ sector_id ‖ ticket ‖ comm_d ‖ porep_id) follows, and the challenges
//     are exactly the ones Filecoin derives from replica_id and the seed; every tree-D path is a true path of the
//     sector's tree (this is what breaks the circularity comm_d -> replica_id -> challenges -> paths -> comm_d);
//   - labels: those of the challenged nodes computed by SDR's labelling function (layers in order, challenges in
//     increasing order within a layer) from their parents' labels; every other label a parent or column needs is
//     random (node 0's is its true, parentless label). So each labeling / encoding proof hashes to the label its
//     column holds, and one node has one label wherever it appears;
//   - tree C and tree R_last: sparse "virtual" Poseidon trees of the proof's shape. The known leaves (the column
//     hashes of the challenged nodes and of their 14 parents; the replica nodes data + label_L of the challenged
//     nodes) are hashed upwards level by level, every missing sibling a random field element (a random subtree
//     root), each sibling drawn once, so all paths of a tree meet in one root: comm_c and comm_r_last;
//     comm_r = Poseidon-2(comm_c, comm_r_last).
// The result passes validate_c1, verify_c1_paths and c1_to_partitions, and its partitions satisfy the circuit.
//
// Limitation: interactive PoRep only (V1, V1_1). Synthetic (V1_1_Feat_SyntheticPoRep) and non-interactive
// (V1_2_Feat_NonInteractivePoRep) proofs derive their challenges from comm_r, which depends on the labels of the
// challenged nodes (SHA-256 outputs at the challenged positions) through trees R and C: there the circularity does
// not break without a hash preimage, and generate_c1 throws FilecoinError(Unsupported).
//
// Cost: about (challenges x 15) column hashes, (challenges x 15 x tree levels) Poseidon node hashes (batched on the
// thread pool), challenges x layers label hashes: well under seconds at 32 GiB (180 challenges).
#pragma once

#include <cstdint>
#include <optional>

#include "cuzk/filecoin/c1.hpp"
#include "cuzk/filecoin/post_vanilla.hpp"
#include "cuzk/filecoin/proof_types.hpp"

namespace cuzk::filecoin {

// A generated C1 with the sector's identifiers (C1 itself carries replica_id, ticket and seed but not prover_id
// and sector_id, which porep_public_inputs / verify_porep take).
struct GeneratedC1 {
    Bytes32 prover_id{};
    uint64_t sector_id = 0;
    uint64_t period_nodes = 0;  // the data pattern's length in nodes
    C1Output c1;
};

// Who seals the sector: its prover id and sector number (random when not given).
struct SectorIdentity {
    Bytes32 prover_id{};
    uint64_t sector_id = 0;
};

// Deterministic in (proof, rng_seed, identity); the identity changes replica_id and so everything after it.
// FilecoinError(Unsupported) for synthetic and non-interactive proofs.
GeneratedC1 generate_c1_sector(RegisteredSealProof proof, uint64_t rng_seed,
                               const std::optional<SectorIdentity>& identity = std::nullopt);
C1Output generate_c1(RegisteredSealProof proof, uint64_t rng_seed);

// The same idea for PoSt (issue 18): the vanilla proof of a sector that is never built, for any size — random
// leaves at the challenged positions (the challenges the randomness gives the sector at `sector_index` among the
// proof's sectors; Winning: its 66), tree R_last as a sparse virtual tree of the proof's shape, comm_c random and
// comm_r = Poseidon-2(comm_c, comm_r_last). It passes validate_post_vanilla_proof and post_partition_witness and
// satisfies the circuit. Deterministic in its arguments.
FallbackPostSectorProof generate_post_vanilla(RegisteredPoStProof proof, const Domain& randomness, uint64_t sector_id,
                                              uint64_t sector_index, uint64_t rng_seed);

}  // namespace cuzk::filecoin
