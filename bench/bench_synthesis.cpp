// Synthesis speed: constraints per second on one core for SHA-256 compressions (81% of a PoRep partition) in the
// prover's constraint system, and in the key generator's (which records the matrices). The goal is
// >= 500 K constraints/s/core for the PoRep-shaped circuit; the seed pipeline did ~270 K/s/core.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "cuzk/gadgets/sha256.hpp"
#include "cuzk/r1cs/keygen_assembly.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"

using namespace cuzk;

namespace {

// `blocks` chained compressions over freshly allocated random message bits.
template <class CS>
void synthesize_sha256_chain(CS& cs, size_t blocks, uint64_t seed) {
    std::mt19937_64 rng(seed);
    cs.alloc_input("one", [] { return Fr::one(); });
    auto state = gadgets::sha256_iv();
    for (size_t b = 0; b < blocks; b++) {
        std::vector<gadgets::Boolean> block;
        block.reserve(512);
        for (size_t i = 0; i < 512; i++) {
            std::optional<bool> v;
            if constexpr (CS::kNeedsValues) v = (rng() & 1) != 0;
            block.push_back(gadgets::Boolean(gadgets::AllocatedBit::alloc(cs, "bit", v)));
        }
        state = gadgets::sha256_compression(cs, "compression", block, state);
    }
}

template <class CS>
void BM_synthesis_sha256(benchmark::State& state) {
    size_t blocks = (size_t)state.range(0);
    size_t constraints = 0;
    for (auto _ : state) {
        CS cs;
        synthesize_sha256_chain(cs, blocks, 7);
        constraints = cs.num_constraints();
        benchmark::DoNotOptimize(constraints);
    }
    state.counters["constraints"] = (double)constraints;
    state.counters["constraints_per_s"] =
        benchmark::Counter((double)constraints * (double)state.iterations(), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_synthesis_sha256<r1cs::ProvingAssignment>)
    ->Name("synthesis_sha256_proving")
    ->Arg(40)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_synthesis_sha256<r1cs::KeygenAssembly>)
    ->Name("synthesis_sha256_keygen")
    ->Arg(40)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);
