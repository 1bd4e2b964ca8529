#include "cuzk/filecoin/post_circuit.hpp"

#include <stdexcept>
#include <string>

#include "cuzk/filecoin/challenges_post.hpp"
#include "cuzk/filecoin/post_synthesis.hpp"
#include "cuzk/r1cs/counting_cs.hpp"

namespace cuzk::filecoin {

PostCircuitConfig PostCircuitConfig::make(uint64_t sector_size, PoStType type, ApiVersion version) {
    const SectorShape& shape = sector_shape(sector_size);
    PostCircuitConfig c;
    c.sector_nodes = shape.nodes;
    c.tree = shape.tree;
    c.api_version = version;
    if (type == PoStType::Winning) {
        // winning_post_setup_params: 66 challenges over 1 sector become 66 "sectors" of 1 challenge each.
        const uint32_t sectors = WINNING_POST_CHALLENGE_COUNT / WINNING_POST_SECTOR_COUNT;
        c.sector_count = sectors;
        c.challenge_count = WINNING_POST_CHALLENGE_COUNT / sectors;
    } else {
        c.sector_count = shape.window_post_sector_count;
        c.challenge_count = WINDOW_POST_CHALLENGE_COUNT;
    }
    return c;
}

PostCircuitConfig PostCircuitConfig::from_registered(RegisteredPoStProof p) {
    return make(sector_size(p), post_type(p), filecoin::api_version(p));
}

PostSectorWitness PostSectorWitness::blank(const PostCircuitConfig& config) {
    PostSectorWitness s;
    s.leaves.assign(config.challenge_count, std::nullopt);
    s.paths.assign(config.challenge_count,
                   blank_por_path(config.sector_nodes, config.tree.base, config.tree.sub, config.tree.top));
    return s;
}

PostSectorWitness PostSectorWitness::from_tree(const PoseidonTree& tree_r_last, const Fr& comm_c,
                                               std::span<const uint64_t> challenges) {
    PostSectorWitness s;
    s.comm_c = comm_c;
    s.comm_r_last = tree_r_last.root();
    s.comm_r = filecoin::comm_r(comm_c, tree_r_last.root());
    const std::span<const Fr> leaves = tree_r_last.row(0);
    for (uint64_t c : challenges) {
        if (c >= leaves.size())
            throw std::invalid_argument("PoSt sector: challenge " + std::to_string(c) + " outside a tree of " +
                                        std::to_string(leaves.size()) + " leaves");
        s.leaves.push_back(leaves[c]);
        s.paths.push_back(por_path(tree_r_last.path(c), tree_r_last.shape()));
    }
    return s;
}

FallbackPostCircuit::FallbackPostCircuit(PostCircuitConfig config, std::vector<PostSectorWitness> sectors)
    : config_(config), sectors_(std::move(sectors)) {
    if (config_.sector_count == 0 || config_.challenge_count == 0)
        throw std::invalid_argument("FallbackPoSt: sector_count and challenge_count must be positive");
    if (sectors_.empty() || sectors_.size() > config_.sector_count)
        throw std::invalid_argument("FallbackPoSt: " + std::to_string(sectors_.size()) + " sectors for a circuit of " +
                                    std::to_string(config_.sector_count));
    for (size_t i = 0; i < sectors_.size(); i++)
        if (sectors_[i].leaves.size() != config_.challenge_count || sectors_[i].paths.size() != config_.challenge_count)
            throw std::invalid_argument("FallbackPoSt: sector " + std::to_string(i) + " has " +
                                        std::to_string(sectors_[i].leaves.size()) + " leaves and " +
                                        std::to_string(sectors_[i].paths.size()) + " paths, the circuit " +
                                        std::to_string(config_.challenge_count) + " challenges");
}

FallbackPostCircuit FallbackPostCircuit::blank(const PostCircuitConfig& config) {
    // Every blank sector is the same: one witness, repeated by sector().
    return FallbackPostCircuit(config, {PostSectorWitness::blank(config)});
}

std::vector<Fr> post_public_inputs(const PostCircuitConfig& config, const Domain& randomness,
                                   std::span<const PostPublicSector> sectors, uint32_t partition) {
    const size_t first = size_t(partition) * config.sector_count;
    if (config.sector_count == 0 || first >= sectors.size())
        throw std::invalid_argument("PoSt public inputs: no sectors in partition " + std::to_string(partition) +
                                    " (" + std::to_string(sectors.size()) + " sectors, " +
                                    std::to_string(config.sector_count) + " per partition)");
    const size_t count = std::min<size_t>(config.sector_count, sectors.size() - first);
    return post_partition_public_inputs(config, randomness, sectors.subspan(first, count), first);
}

std::vector<Fr> post_partition_public_inputs(const PostCircuitConfig& config, const Domain& randomness,
                                             std::span<const PostPublicSector> sectors, uint64_t first_index) {
    if (sectors.empty() || sectors.size() > config.sector_count)
        throw std::invalid_argument("PoSt public inputs: " + std::to_string(sectors.size()) +
                                    " sectors for a partition of " + std::to_string(config.sector_count));
    std::vector<Fr> inputs;
    inputs.reserve(config.public_input_count());
    for (size_t i = 0; i < sectors.size(); i++) {
        inputs.push_back(sectors[i].comm_r);
        // The path input of a PoR is the leaf index.
        for (uint64_t leaf : post_sector_leaf_challenges(config.api_version, randomness, sectors[i].id,
                                                         first_index + i, config.challenge_count, config.sector_nodes))
            inputs.push_back(Fr::from_u64(leaf));
    }
    const size_t per_sector = 1 + size_t(config.challenge_count);
    while (inputs.size() < config.public_input_count())
        for (size_t j = inputs.size() - per_sector, end = inputs.size(); j < end; j++) inputs.push_back(inputs[j]);
    return inputs;
}

CircuitCounts post_circuit_info(const PostCircuitConfig& config) {
    const FallbackPostCircuit circuit = FallbackPostCircuit::blank(config);
    r1cs::CountingSystem outer;
    return count_parts(outer, config.sector_count,
                       [&](r1cs::CountingSystem& cs, size_t i) { circuit.synthesize_sector(cs, i); });
}

CircuitCounts post_circuit_info(RegisteredPoStProof p) {
    return post_circuit_info(PostCircuitConfig::from_registered(p));
}

CircuitCounts post_circuit_info(uint64_t sector_size, PoStType type) {
    return post_circuit_info(PostCircuitConfig::make(sector_size, type));
}

// ---- synthesis ----------------------------------------------------------------------------------------------------

// The systems post_circuit.hpp names (post_synthesis.hpp declares the same list extern).
CUZK_FALLBACK_POST_SYNTHESIS(, r1cs::KeygenAssembly)
CUZK_FALLBACK_POST_SYNTHESIS(, r1cs::ProvingAssignment)
CUZK_FALLBACK_POST_SYNTHESIS(, r1cs::TestConstraintSystem)
CUZK_FALLBACK_POST_SYNTHESIS(, r1cs::WitnessAssignment)
CUZK_FALLBACK_POST_SYNTHESIS(, r1cs::CountingSystem)

}  // namespace cuzk::filecoin
