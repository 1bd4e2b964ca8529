// Synthesis speed: constraints per second on one core for SHA-256 compressions (81% of a PoRep partition) in the
// prover's constraint system, and in the key generator's (which records the matrices); and for the PoRep-shaped
// circuit (circuits/porep.hpp, preset porep-1m): one partition on one thread, and one partition per pool thread
// synthesized in parallel (synthesize_parallel), reported per core. The goal is >= 500 K
// constraints/s/core for the PoRep-shaped circuit; the seed pipeline did ~270 K/s/core.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "cuzk/circuits/porep.hpp"
#include "cuzk/r1cs/keygen_assembly.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/util/thread_pool.hpp"
#include "sha256_chain.hpp"

using namespace cuzk;

namespace {

template <class CS>
void BM_synthesis_sha256(benchmark::State& state) {
    size_t blocks = (size_t)state.range(0);
    size_t constraints = 0;
    for (auto _ : state) {
        CS cs;
        cs.alloc_input("one", [] { return Fr::one(); });
        bench::sha256_chain(cs, blocks, 7);
        constraints = cs.num_constraints();
        benchmark::DoNotOptimize(constraints);
    }
    state.counters["constraints"] = (double)constraints;
    state.counters["constraints_per_s"] =
        benchmark::Counter((double)constraints * (double)state.iterations(), benchmark::Counter::kIsRate);
}

// `partitions` partitions of one porep-1m replica (made once, outside the timing). partitions == 0: one per pool
// thread, in parallel; otherwise one partition on the calling thread.
void BM_synthesis_porep(benchmark::State& state) {
    const bool parallel = state.range(0) == 0;
    circuits::PorepParams params = circuits::porep_preset("porep-1m");
    const size_t parts = parallel ? num_threads() : 1;
    params.partitions = parts;
    circuits::PorepReplica replica(params, 7);
    std::vector<circuits::PorepCircuit> circuits;
    for (size_t p = 0; p < parts; p++) circuits.push_back(circuits::porep_partition_circuit(replica, p));
    std::vector<const r1cs::Circuit*> ptrs;
    for (const auto& c : circuits) ptrs.push_back(&c);
    size_t constraints = 0;
    for (auto _ : state) {
        if (parallel) {
            auto out = circuits::synthesize_parallel(ptrs);
            constraints = 0;
            for (const auto& pa : out) constraints += pa.num_constraints();
        } else {
            r1cs::ProvingAssignment pa;
            r1cs::synthesize_groth16(pa, circuits[0]);
            constraints = pa.num_constraints();
        }
        benchmark::DoNotOptimize(constraints);
    }
    const double cores = parallel ? (double)num_threads() : 1.0;
    state.counters["constraints"] = (double)constraints;
    state.counters["threads"] = cores;
    state.counters["constraints_per_s"] =
        benchmark::Counter((double)constraints * (double)state.iterations(), benchmark::Counter::kIsRate);
    state.counters["constraints_per_s_per_core"] =
        benchmark::Counter((double)constraints * (double)state.iterations() / cores, benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_synthesis_porep)
    ->Name("synthesis_porep_1m")
    ->ArgName("threads")  // 1: one partition on one thread; 0: one per pool thread
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);
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
