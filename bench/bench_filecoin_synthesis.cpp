// The real PoRep partition's synthesis from a C1 (filecoin/porep_circuit.hpp), per proof type: the witness alone
// (WitnessAssignment: values only, the combinations are never built) and the prover's full assignment
// (ProvingAssignment: a, b, c per row and the densities). The challenges synthesize in parallel
// (r1cs::synthesize_parts): on one thread (threads:1) and on every hardware thread (threads:0). The C1 comes from
// filecoin/c1_gen (consistent, no sealing); partition 0 is synthesized.
//   build/bench/cuzk_bench --benchmark_filter=porep_partition_synthesis
// Args: the RegisteredSealProof id (5 = 2 KiB V1_1, 6 = 8 MiB, 7 = 512 MiB, 8 = 32 GiB), synthesis threads.
#include <benchmark/benchmark.h>

#include <thread>

#include "cuzk/filecoin/c1.hpp"
#include "cuzk/filecoin/c1_gen.hpp"
#include "cuzk/filecoin/porep_circuit.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "cuzk/r1cs/witness_assignment.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::filecoin;

filecoin::StackedPorepPartition partition0(int64_t proof_id) {
    const auto g = generate_c1_sector(seal_proof_from_id(uint64_t(proof_id)), 1);
    return c1_to_partitions(g.c1)[0];
}

// The synthesis threads of argument 1 (0: every hardware thread) for one benchmark, then the previous number again.
struct SynthesisThreads {
    size_t before = r1cs::parallel_synthesis_threads();
    explicit SynthesisThreads(const benchmark::State& state) {
        r1cs::set_parallel_synthesis_threads(size_t(state.range(1)) ? size_t(state.range(1))
                                                                    : std::thread::hardware_concurrency());
    }
    ~SynthesisThreads() { r1cs::set_parallel_synthesis_threads(before); }
};

template <class CS>
void BM_porep_partition_synthesis(benchmark::State& state) {
    const SynthesisThreads threads(state);
    const StackedPorepPartition part = partition0(state.range(0));
    const StackedPorepCircuit circuit(part);
    size_t rows = 0;
    for (auto _ : state) {
        CS cs;
        r1cs::synthesize_groth16(cs, circuit);
        rows = cs.aux().size();
        benchmark::DoNotOptimize(rows);
    }
    state.counters["aux"] = double(rows);
    state.counters["aux_per_s"] = benchmark::Counter(double(rows) * double(state.iterations()), benchmark::Counter::kIsRate);
}

// The witness as the engine makes it (r1cs::witness_assignment): the assignment reserved to the partition's known
// size first (its pages faulted in by every pool thread), as the compiled matrices' counts allow.
void BM_porep_partition_witness_reserved(benchmark::State& state) {
    const SynthesisThreads threads(state);
    const StackedPorepPartition part = partition0(state.range(0));
    const StackedPorepCircuit circuit(part);
    size_t inputs = 0, aux = 0;
    {
        r1cs::WitnessAssignment probe;
        r1cs::witness_groth16(probe, circuit);
        inputs = probe.inputs().size();
        aux = probe.aux().size();
    }
    for (auto _ : state) {
        r1cs::WitnessAssignment cs;
        cs.reserve(inputs, aux, &ThreadPool::global());
        r1cs::witness_groth16(cs, circuit);
        benchmark::DoNotOptimize(cs.aux().data());
    }
    state.counters["aux"] = double(aux);
    state.counters["aux_per_s"] = benchmark::Counter(double(aux) * double(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_porep_partition_witness_reserved)
    ->Name("porep_partition_synthesis/witness_reserved")
    ->ArgNames({"proof", "threads"})
    ->ArgsProduct({{5, 8}, {1, 0}})
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();
BENCHMARK(BM_porep_partition_synthesis<r1cs::WitnessAssignment>)
    ->Name("porep_partition_synthesis/witness")
    ->ArgNames({"proof", "threads"})
    ->ArgsProduct({{5, 8}, {1, 0}})
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();
BENCHMARK(BM_porep_partition_synthesis<r1cs::ProvingAssignment>)
    ->Name("porep_partition_synthesis/proving")
    ->ArgNames({"proof", "threads"})
    ->ArgsProduct({{5, 8}, {1, 0}})
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();
