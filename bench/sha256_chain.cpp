#include "sha256_chain.hpp"

#include <optional>
#include <random>
#include <span>
#include <vector>

#include "cuzk/gadgets/boolean.hpp"
#include "cuzk/gadgets/sha256.hpp"

namespace cuzk::bench {

template <class CS>
void sha256_chain(CS& cs, size_t blocks, uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto state = gadgets::sha256_iv();
    for (size_t b = 0; b < blocks; b++) {
        std::vector<gadgets::Boolean> block;
        block.reserve(512);
        for (size_t i = 0; i < 512; i++) {
            std::optional<bool> v;
            if constexpr (CS::kNeedsValues) v = (rng() & 1) != 0;
            block.push_back(gadgets::Boolean(gadgets::AllocatedBit::alloc(cs, "bit", v)));
        }
        state = gadgets::sha256_compression_function(cs, "compression", std::span<const gadgets::Boolean>(block), state);
    }
}

template void sha256_chain(r1cs::KeygenAssembly&, size_t, uint64_t);
template void sha256_chain(r1cs::ProvingAssignment&, size_t, uint64_t);
template void sha256_chain(r1cs::TestConstraintSystem&, size_t, uint64_t);
template void sha256_chain(r1cs::WitnessAssignment&, size_t, uint64_t);

}  // namespace cuzk::bench
