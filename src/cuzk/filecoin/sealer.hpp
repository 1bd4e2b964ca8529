// A native SDR sealer for small sectors (tests, CI, benchmarks): what rust-fil-proofs' seal_pre_commit_phase1/2
// and seal_commit_phase1 compute, in memory.
//
//   replica_id  SHA-256(prover_id ‖ sector_id BE ‖ ticket ‖ comm_d ‖ porep_id), trimmed (porep.hpp)
//   labels      layer l, node n: SHA-256(replica_id ‖ l u32 BE ‖ n u64 BE ‖ 0^20 ‖ 37 parent labels), trimmed;
//               layer 1 takes the 6 DRG parents of its own layer six times and the first once more, layer l > 1 the
//               6 DRG parents of layer l and the 8 expander parents of layer l - 1, twice, then the first nine
//               (stacked/vanilla create_label/single.rs). Node 0 has no parents.
//   tree D      binary SHA-256 tree over the data nodes; comm_d its root
//   tree C      Poseidon tree (the proof's base-sub-top shape) over the columns' Poseidon-L hashes; comm_c
//   tree R_last Poseidon tree over the replica nodes data + label_L (field addition); comm_r_last
//   comm_r      Poseidon-2(comm_c, comm_r_last)
// and for a seed the vanilla proofs of every challenge of every partition (stacked/vanilla/proof.rs
// prove_layers), as C1 holds them.
//
// Everything is kept in memory: labels (L x 32 B a node), the three trees (about 2.3 x the sector each for the
// Poseidon trees' Fr rows): fine up to 512 MiB. Layers are labelled node after node (node n needs n - 1 of the
// same layer); the parents come from the parent cache built on all threads, the trees' hashes on all threads.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "cuzk/ff/fr.hpp"
#include "cuzk/filecoin/c1.hpp"
#include "cuzk/filecoin/hashers.hpp"
#include "cuzk/filecoin/proof_types.hpp"
#include "cuzk/filecoin/tree.hpp"

namespace cuzk::filecoin {

// The inclusion proof of `leaf` in a Poseidon tree as rust-fil-proofs writes it (merkle/proof.rs try_from_proof:
// Single, Sub or Top by the tree's shape).
MerkleProof poseidon_proof(const PoseidonTree& tree, uint64_t leaf);

struct SealedReplica {
    PorepConfig config;
    Bytes32 prover_id{};
    uint64_t sector_id = 0;
    Bytes32 ticket{};
    std::vector<Domain> data;                 // the sector's nodes (fr32-padded data)
    Bytes32 replica_id{};
    std::vector<std::vector<Domain>> labels;  // [layer - 1][node]
    std::shared_ptr<const BinaryTree> tree_d;
    std::shared_ptr<const PoseidonTree> tree_c;
    std::shared_ptr<const PoseidonTree> tree_r_last;
    Fr comm_c;
    Fr comm_r_last;
    Fr comm_r;

    Bytes32 comm_d_bytes() const { return tree_d->root(); }
    Bytes32 comm_r_bytes() const { return fr_to_bytes32(comm_r); }
    // The column of `node` (its labels in layers 1..L).
    std::vector<Domain> column(uint64_t node) const;
};

// Seals `data` (config.sector_size bytes, each 32-byte node a canonical field element, as fr32 padding leaves it;
// empty = an all-zero sector). FilecoinError: UnsupportedSectorSize, OutOfRange (data of another length),
// NonCanonical (a data node >= r, naming it).
SealedReplica seal_sector(const PorepConfig& config, std::span<const uint8_t> data, const Bytes32& prover_id,
                          uint64_t sector_id, const Bytes32& ticket);

// The vanilla proof of one challenge (prove_layers_generate's Proof).
VanillaSealProof vanilla_seal_proof(const SealedReplica& replica, uint64_t challenge);

// Every partition's vanilla proofs for `seed` (the config's challenges: interactive, synthetic or NI).
std::vector<std::vector<VanillaSealProof>> vanilla_seal_proofs(const SealedReplica& replica, const Bytes32& seed);

// The registered proof a configuration is (its porep_id, size, api version and feature), or nullopt for test sizes
// and the regression records' odd porep ids.
std::optional<RegisteredSealProof> registered_seal_proof(const PorepConfig& config);

// seal_commit_phase1: the C1 of the replica for `seed`. FilecoinError(Unsupported) when the config is no
// registered proof (C1 names one).
C1Output commit_phase1(const SealedReplica& replica, const Bytes32& seed);

}  // namespace cuzk::filecoin
