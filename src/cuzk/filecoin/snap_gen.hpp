// A generator of consistent SnapDeals (EmptySectorUpdate) vanilla proofs for any sector size without building a
// sector (issue 18 item 5): what the SnapDeals tests, `cuzk filecoin snap-gen` and the benchmarks prove.
//
// The circularity PoSt's generator does not have: the challenges come from comm_r_new, which hashes tree R new,
// whose challenged leaves are old + data * rho. Random leaves at the challenged positions under a sparse virtual
// tree (as generate_post_vanilla / c1-gen do) cannot break it without a Poseidon preimage. So the generator makes a
// whole sector, in a form whose trees are known everywhere without building them, the idea c1-gen uses for tree D:
//   - the old replica and the new data repeat a random pattern of P = min(nodes, 64) field elements (node i holds
//     pattern[i mod P]); comm_c is random;
//   - the new replica is old + data * rho(high h bits of i): periodic within each of the 2^h rho chunks;
//   - a tree node's subtree lies inside one chunk until the chunks merge, so its value depends only on (level,
//     chunk, phase of its first leaf mod P): each tree is computed once per distinct node (memoized), every node
//     above the chunks once, and every path read from the same memo. At 32 GiB (h = 10): about 14,000 Poseidon
//     hashes for tree R new, a few hundred for tree R old and tree D.
// Then comm_r_old = Poseidon-2(comm_c, root R old), comm_d_new = root D, phi, the rhos, comm_r_new = Poseidon-2(comm_c,
// root R new), and the challenges Filecoin derives from comm_r_new: every partition proof is exactly what upstream's
// vanilla prover would write for that (real, periodic) sector. It passes snap_partition_witness and its witnesses
// satisfy the circuit. Both variants: tree D binary SHA-256 (apex leaves per partition) or Poseidon of tree R's shape.
#pragma once

#include <cstdint>
#include <vector>

#include "cuzk/filecoin/snap_vanilla.hpp"

namespace cuzk::filecoin {

struct GeneratedSnap {
    SnapShape shape;
    UpdateCircuit variant = UpdateCircuit::Sha256;
    uint32_t h = 0;
    Fr comm_r_old, comm_d_new, comm_r_new;
    std::vector<SnapPartitionProof> partitions;  // SHA-256 variant: partition_count; Poseidon: 1
};

// Deterministic in its arguments. h must be one of shape.hs (std::invalid_argument otherwise).
GeneratedSnap generate_snap_vanilla(const SnapShape& shape, UpdateCircuit variant, uint32_t h, uint64_t rng_seed);
// The registered proof's size, h = shape.h_default (what filecoin-proofs' update config uses).
GeneratedSnap generate_snap_vanilla(RegisteredUpdateProof proof, UpdateCircuit variant, uint64_t rng_seed);

}  // namespace cuzk::filecoin
