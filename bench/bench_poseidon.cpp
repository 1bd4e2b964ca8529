// neptune Poseidon (gadgets/poseidon.hpp): native hashes per second for Filecoin's arities 2 (binary trees), 8 (tree
// C / tree R) and 11 (columns) on one thread, the batched form that builds trees on every pool thread (items = hashes,
// bytes = input bytes hashed), and the gadget's synthesis per hash in the prover's and the witness-only systems
// (items = constraints). Medians of 5 repetitions.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "cuzk/gadgets/poseidon.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/r1cs/witness_assignment.hpp"
#include "cuzk/util/thread_pool.hpp"

using namespace cuzk;
using namespace cuzk::gadgets;

namespace {

std::vector<Fr> random_values(size_t n) {
    std::mt19937_64 rng(42);
    std::vector<Fr> v(n);
    for (auto& x : v) x = Fr::random(rng);
    return v;
}

// One hash at a time on the calling thread; each output feeds the next input so the calls cannot overlap.
void BM_poseidon_hash(benchmark::State& state) {
    const size_t arity = (size_t)state.range(0);
    std::vector<Fr> in = random_values(arity);
    (void)poseidon_constants(arity);  // derive the constants outside the timed loop
    for (auto _ : state) {
        in[0] = poseidon_hash(in);
        benchmark::DoNotOptimize(in[0]);
    }
    state.SetItemsProcessed(state.iterations());
    state.SetBytesProcessed(state.iterations() * (int64_t)(arity * 32));
}

// poseidon_hash_many over 2^14 hashes on the whole pool (a tree level's worth of work).
void BM_poseidon_hash_many(benchmark::State& state) {
    const size_t arity = (size_t)state.range(0);
    const size_t n = size_t{1} << 14;
    const std::vector<Fr> in = random_values(n * arity);
    std::vector<Fr> out(n);
    poseidon_hash_many(arity, in, out);  // warm the pool and the constants
    for (auto _ : state) {
        poseidon_hash_many(arity, in, out);
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["threads"] = (double)num_threads();
    state.SetItemsProcessed(state.iterations() * (int64_t)n);
    state.SetBytesProcessed(state.iterations() * (int64_t)(n * arity * 32));
}

// The gadget: one hash of `arity` allocated inputs per iteration, in a fresh system.
template <class CS>
void BM_poseidon_gadget(benchmark::State& state) {
    const size_t arity = (size_t)state.range(0);
    const std::vector<Fr> in = random_values(arity);
    (void)poseidon_detail::circuit_shape(arity);
    for (auto _ : state) {
        CS cs;
        cs.alloc_input("one", [] { return Fr::one(); });
        std::vector<AllocatedNum> vars;
        for (size_t i = 0; i < arity; i++) vars.push_back(AllocatedNum::alloc(cs, "x", in[i]));
        AllocatedNum out = poseidon_hash_gadget(cs, std::span<const AllocatedNum>(vars));
        benchmark::DoNotOptimize(out);
    }
    state.SetItemsProcessed(state.iterations() * (int64_t)poseidon_gadget_constraints(arity));
}

}  // namespace

BENCHMARK(BM_poseidon_hash)
    ->Name("poseidon_hash")
    ->ArgName("arity")
    ->Arg(2)
    ->Arg(8)
    ->Arg(11)
    ->Unit(benchmark::kMicrosecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_poseidon_hash_many)
    ->Name("poseidon_hash_many")
    ->ArgName("arity")
    ->Arg(2)
    ->Arg(8)
    ->Arg(11)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_poseidon_gadget<r1cs::ProvingAssignment>)
    ->Name("poseidon_gadget_proving")
    ->ArgName("arity")
    ->Arg(8)
    ->Arg(11)
    ->Unit(benchmark::kMicrosecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_poseidon_gadget<r1cs::WitnessAssignment>)
    ->Name("poseidon_gadget_witness")
    ->ArgName("arity")
    ->Arg(8)
    ->Arg(11)
    ->Unit(benchmark::kMicrosecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);
