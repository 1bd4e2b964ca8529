// The test sealer (filecoin/sealer.hpp) per sector size: SDR labels of every layer, trees D, C and R_last, comm_r,
// then the C1 of one seed (every challenge's vanilla proofs). What `cuzk filecoin seal` does; the time is the
// native Poseidon's and the labelling's (the sealer is for tests and benchmarks, not production sealing).
//   build/bench/cuzk_bench --benchmark_filter=filecoin_seal
// Args: the RegisteredSealProof id (5 = 2 KiB V1_1, 6 = 8 MiB, 7 = 512 MiB; 512 MiB holds ~8 GiB of labels and
// trees in memory).
#include <benchmark/benchmark.h>

#include "cuzk/filecoin/c1.hpp"
#include "cuzk/filecoin/proof_types.hpp"
#include "cuzk/filecoin/sealer.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::filecoin;

void BM_filecoin_seal(benchmark::State& state) {
    const auto config = PorepConfig::from_registered(seal_proof_from_id(uint64_t(state.range(0))));
    Bytes32 prover{}, ticket{}, seed{};
    prover[0] = 1, ticket[0] = 2, seed[0] = 3;
    size_t proofs = 0;
    for (auto _ : state) {
        const SealedReplica replica = seal_sector(config, {}, prover, 7, ticket);
        const C1Output c1 = commit_phase1(replica, seed);
        proofs = 0;
        for (const auto& p : c1.vanilla_proofs) proofs += p.size();
        benchmark::DoNotOptimize(proofs);
    }
    state.counters["nodes"] = double(config.nodes());
    state.counters["vanilla_proofs"] = double(proofs);
    state.counters["nodes_per_s"] =
        benchmark::Counter(double(config.nodes()) * double(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_filecoin_seal)
    ->Name("filecoin_seal")
    ->ArgName("proof")
    ->Arg(5)
    ->Arg(6)
    ->Arg(7)
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();
