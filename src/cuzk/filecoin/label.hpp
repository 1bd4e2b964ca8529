// SDR's labeling function in the constraint system, exactly as rust-fil-proofs'
// storage-proofs-porep/src/stacked/circuit/create_label.rs `create_label_circuit`: the label of a node is
//   SHA-256( replica_id (padded to 32 bytes) ‖ layer as u32 BE ‖ node as u64 BE ‖ zeros to 64 bytes ‖
//            37 parent labels of 32 bytes each )
// read as a little-endian number of its first 254 bits (the vanilla label trims byte 31 with & 0x3F, the same).
// The preimage is 39 × 32 = 1,248 bytes: 20 compressions with padding. Layer and node are constants in the
// upstream test (532,025 rows with the 37 parents and the id allocated from bytes, pinned in
// tests/test_filecoin_label.cpp); in the PoRep circuit the node is the challenge's allocated UInt64 and the
// parents come from to_bits_le + reverse_bit_numbering of the parents' labels.
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/gadgets/boolean.hpp"
#include "cuzk/gadgets/multipack.hpp"
#include "cuzk/gadgets/num.hpp"
#include "cuzk/gadgets/sha256.hpp"
#include "cuzk/gadgets/uint32.hpp"
#include "cuzk/gadgets/uint64.hpp"

namespace cuzk::filecoin {

// Parents hashed into a label: the 6 DRG + 8 expander parents expanded to 37 (stacked/vanilla TOTAL_PARENTS).
inline constexpr size_t kLabelTotalParents = 37;

// The label of `node` in `layer_index` from the replica id's bits (32..256 bits, SHA-256 bit order; padded with
// constant zeros to 256) and the 37 parents' bits (each padded to a multiple of 256), as one number
// "<name>/result_num/input/num"; the hash runs in "<name>/hash".
template <class CS, class N>
gadgets::AllocatedNum create_label_circuit(CS& cs, N&& name, std::span<const gadgets::Boolean> replica_id,
                                           std::span<const std::vector<gadgets::Boolean>> parents,
                                           const gadgets::UInt32& layer_index, const gadgets::UInt64& node) {
    using gadgets::Boolean;
    if (replica_id.size() < 32) throw std::invalid_argument("create_label_circuit: replica id is too small");
    if (replica_id.size() > 256) throw std::invalid_argument("create_label_circuit: replica id is too large");
    if (parents.size() != kLabelTotalParents)
        throw std::invalid_argument("create_label_circuit: " + std::to_string(parents.size()) + " parents, need 37");

    // id | layer | node | parent_0 | parent_1 | ...
    std::vector<Boolean> preimage;
    preimage.reserve((2 + kLabelTotalParents) * 256);
    preimage.assign(replica_id.begin(), replica_id.end());
    preimage.resize(256, Boolean::constant(false));
    layer_index.append_bits_be(preimage);
    const std::vector<Boolean> node_bits = node.to_bits_be();
    preimage.insert(preimage.end(), node_bits.begin(), node_bits.end());
    preimage.resize(512, Boolean::constant(false));
    for (const auto& parent : parents) {
        preimage.insert(preimage.end(), parent.begin(), parent.end());
        preimage.resize((preimage.size() + 255) / 256 * 256, Boolean::constant(false));
    }
    if (preimage.size() != (2 + kLabelTotalParents) * 256)
        throw std::invalid_argument("create_label_circuit: a parent is longer than 256 bits");

    gadgets::Namespace<CS> ns(cs, std::forward<N>(name));
    std::vector<Boolean> digest = gadgets::sha256(cs, "hash", std::span<const Boolean>(preimage));
    // Digest bits are big-endian within bytes; reversed inside each byte they are the little-endian bits of the
    // little-endian number, of which the first 254 are packed (the vanilla trim of byte 31's top two bits).
    std::vector<Boolean> bits = gadgets::reverse_bit_numbering(std::move(digest));
    return gadgets::pack_bits(cs, "result_num", std::span<const Boolean>(bits).first(gadgets::kFrCapacity));
}

}  // namespace cuzk::filecoin
