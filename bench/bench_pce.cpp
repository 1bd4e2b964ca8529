// The pre-compiled constraint evaluator (r1cs/pce.hpp) against full synthesis, on the PoRep-shaped circuit (preset
// porep-1m, real generator data) and on a chain of SHA-256 compressions:
//   full     synthesize_groth16 into a fresh ProvingAssignment (what the prover does without a PCE),
//   witness  witness_groth16 into a fresh WitnessAssignment reserved to the compiled shape (enforce is a no-op),
//   spmv     evaluate(): a = A·z, b = B·z, c = C·z into fresh output vectors,
//   pce      witness then spmv, the whole per-proof PCE path.
// threads:1 is one partition on one thread (spmv on a one-thread pool). threads:0 is all pool threads: one partition
// per thread, full synthesis and witnesses in parallel (one task per partition, as synthesize_parallel), and the SpMV
// of each partition with its rows split across the pool. The goal: witness + SpMV >= 3x faster than full
// synthesis. Compilation (once per circuit shape) is outside the timing.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cuzk/circuits/porep.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "cuzk/util/thread_pool.hpp"
#include "sha256_chain.hpp"

using namespace cuzk;
using namespace cuzk::r1cs;

namespace {

// One workload: `parts` partitions (circuits of one shape) and their compiled R1CS, made once per process.
struct Workload {
    std::vector<std::unique_ptr<Circuit>> circuits;
    std::optional<circuits::PorepReplica> replica;  // owns the data the porep circuits were made from
    PrecompiledR1cs pce;
};

Workload& workload(const std::string& name, size_t parts) {
    static std::map<std::pair<std::string, size_t>, std::unique_ptr<Workload>> cache;
    auto& slot = cache[{name, parts}];
    if (slot) return *slot;
    slot = std::make_unique<Workload>();
    Workload& w = *slot;
    if (name == "sha256") {
        for (size_t p = 0; p < parts; p++) {
            auto c = std::make_unique<bench::Sha256ChainCircuit>();
            c->seed = 7 + p;
            w.circuits.push_back(std::move(c));
        }
    } else {
        circuits::PorepParams params = circuits::porep_preset(name);
        params.partitions = parts;
        w.replica.emplace(params, 7);
        for (size_t p = 0; p < parts; p++)
            w.circuits.push_back(std::make_unique<circuits::PorepCircuit>(circuits::porep_partition_circuit(*w.replica, p)));
    }
    w.pce = compile_r1cs(*w.circuits[0]);
    return w;
}

enum class Mode { Full, Witness, Spmv, Pce };

void witness_of(const Workload& w, size_t p, WitnessAssignment& out) {
    out.reserve(w.pce.num_inputs, w.pce.num_aux);
    witness_groth16(out, *w.circuits[p]);
}

void BM_pce(benchmark::State& state, std::string name, Mode m) {
    const bool all = state.range(0) == 0;
    ThreadPool& global = ThreadPool::global();
    ThreadPool one(1);
    ThreadPool& pool = all ? global : one;
    const size_t parts = all ? global.size() : 1;
    Workload& w = workload(name, parts);
    // The SpMV alone runs on witnesses made outside the timing.
    std::vector<WitnessAssignment> fixed(m == Mode::Spmv ? parts : 0);
    for (size_t p = 0; p < fixed.size(); p++) witness_of(w, p, fixed[p]);
    for (auto _ : state) {
        if (m == Mode::Full) {
            std::vector<ProvingAssignment> out(parts);
            if (all) global.run_tasks(parts, [&](size_t p) { synthesize_groth16(out[p], *w.circuits[p]); });
            else synthesize_groth16(out[0], *w.circuits[0]);
            benchmark::DoNotOptimize(out.back().c().data());
        } else {
            std::vector<WitnessAssignment> wit;
            const std::vector<WitnessAssignment>* use = &fixed;
            if (m != Mode::Spmv) {
                wit.resize(parts);
                if (all) global.run_tasks(parts, [&](size_t p) { witness_of(w, p, wit[p]); });
                else witness_of(w, 0, wit[0]);
                use = &wit;
                benchmark::DoNotOptimize(wit.back().aux().data());
            }
            if (m != Mode::Witness) {
                for (size_t p = 0; p < parts; p++) {
                    std::vector<Fr> a, b, c;
                    evaluate(w.pce, (*use)[p].inputs(), (*use)[p].aux(), a, b, c, pool);
                    benchmark::DoNotOptimize(c.data());
                }
            }
        }
    }
    const double constraints = (double)w.pce.num_constraints * (double)parts;
    state.counters["constraints"] = constraints;
    state.counters["threads"] = (double)pool.size();
    state.counters["constraints_per_s"] =
        benchmark::Counter(constraints * (double)state.iterations(), benchmark::Counter::kIsRate);
    state.counters["constraints_per_s_per_core"] = benchmark::Counter(
        constraints * (double)state.iterations() / (double)pool.size(), benchmark::Counter::kIsRate);
}

void configure(benchmark::internal::Benchmark* b) {
    b->ArgName("threads")  // 1: one partition on one thread; 0: all pool threads
        ->Arg(1)
        ->Arg(0)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Repetitions(5)
        ->ReportAggregatesOnly(true);
}

}  // namespace

BENCHMARK_CAPTURE(BM_pce, porep_1m_full, std::string("porep-1m"), Mode::Full)->Apply(configure);
BENCHMARK_CAPTURE(BM_pce, porep_1m_witness, std::string("porep-1m"), Mode::Witness)->Apply(configure);
BENCHMARK_CAPTURE(BM_pce, porep_1m_spmv, std::string("porep-1m"), Mode::Spmv)->Apply(configure);
BENCHMARK_CAPTURE(BM_pce, porep_1m_pce, std::string("porep-1m"), Mode::Pce)->Apply(configure);
BENCHMARK_CAPTURE(BM_pce, sha256x40_full, std::string("sha256"), Mode::Full)->Apply(configure);
BENCHMARK_CAPTURE(BM_pce, sha256x40_witness, std::string("sha256"), Mode::Witness)->Apply(configure);
BENCHMARK_CAPTURE(BM_pce, sha256x40_spmv, std::string("sha256"), Mode::Spmv)->Apply(configure);
BENCHMARK_CAPTURE(BM_pce, sha256x40_pce, std::string("sha256"), Mode::Pce)->Apply(configure);
