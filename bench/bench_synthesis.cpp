// Synthesis speed: constraints per second on one core for SHA-256 compressions (most of a PoRep partition's rows) in
// the prover's constraint system, and in the key generator's (which records the matrices); and for Filecoin's 2 KiB
// PoRep partition with real (generated) data: one partition on one thread, and one partition per pool thread
// synthesized in parallel, reported per core. (Until issue 17 this benchmark ran a PoRep-shaped stand-in circuit of
// 1 M constraints, "synthesis_porep_1m"; docs/perf.md keeps its figures as history.)
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "cuzk/filecoin/c1.hpp"
#include "cuzk/filecoin/c1_gen.hpp"
#include "cuzk/filecoin/porep_circuit.hpp"
#include "cuzk/r1cs/circuit.hpp"
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

// Filecoin's 2 KiB PoRep partition (filecoin/porep_circuit.hpp, 2.69 M rows) with real data: one partition per
// generated sector (generate_c1_sector + filecoin::porep_c2_job, made once, outside the timing). threads:1 is one
// partition on the calling thread with its challenges in order; threads:0 one partition per pool thread, in
// parallel (one task each, challenges in order within it).
void BM_synthesis_porep(benchmark::State& state) {
    const bool parallel = state.range(0) == 0;
    const size_t parts = parallel ? num_threads() : 1;
    std::vector<filecoin::StackedPorepCircuit> circuits;
    for (size_t p = 0; p < parts; p++) {
        const auto job = filecoin::porep_c2_job(
            filecoin::generate_c1_sector(filecoin::RegisteredSealProof::StackedDrg2KiBV1_1, 7 + p).c1);
        circuits.emplace_back(job.partitions.at(0));
    }
    r1cs::set_parallel_synthesis_threads(1);
    size_t constraints = 0;
    for (auto _ : state) {
        if (parallel) {
            std::vector<r1cs::ProvingAssignment> out(parts);
            ThreadPool::global().run_tasks(parts, [&](size_t p) { r1cs::synthesize_groth16(out[p], circuits[p]); });
            constraints = 0;
            for (const auto& pa : out) constraints += pa.num_constraints();
        } else {
            r1cs::ProvingAssignment pa;
            r1cs::synthesize_groth16(pa, circuits[0]);
            constraints = pa.num_constraints();
        }
        benchmark::DoNotOptimize(constraints);
    }
    r1cs::set_parallel_synthesis_threads(0);
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
    ->Name("synthesis_porep_2k")
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
