// SDR parent-cache generation (cuzk/filecoin/graph.hpp), nodes per second.
//   BM_parent_cache/<porep id>: the whole 512 MiB cache (2^24 nodes, 896 MiB of parents) on every thread of the
//     pool, streamed through SHA-256 in 2^20-node chunks, and the digest checked against rust-fil-proofs'
//     parent_cache.json (porep id 2 = StackedDrg512MiBV1, 7 = StackedDrg512MiBV1_1). This is the full-size check
//     that is too slow for CI; a wrong digest fails the benchmark.
//   BM_parent_cache_8MiB: the 2^18-node cache the test suite checks.
//   BM_parents_range: one thread, 2^12 consecutive nodes of a 32 GiB graph (what a node costs: 6 ChaCha8 draws'
//     worth of base parents and 8 Feistel permutations of 3 BLAKE2b rounds, ~2 encodes each by cycle walking).
// The vectors directory is $CUZK_VECTORS_DIR, else the CUZK_VECTORS_DIR macro, else ../../shared/vectors from here.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "cuzk/filecoin/graph.hpp"
#include "cuzk/util/thread_pool.hpp"

using namespace cuzk;
using namespace cuzk::filecoin;

namespace {

std::filesystem::path vectors_dir() {
    if (const char* env = std::getenv("CUZK_VECTORS_DIR")) return env;
#ifdef CUZK_VECTORS_DIR
    return CUZK_VECTORS_DIR;
#else
    return std::filesystem::path(__FILE__).parent_path() / ".." / ".." / "shared" / "vectors";
#endif
}

// The published digest of this graph's cache, or nullopt when parent_cache.json is absent or has no entry.
std::optional<std::string> published_digest(const StackedGraph& graph) {
    std::ifstream in(vectors_dir() / "filecoin" / "parent_cache.json");
    if (!in) return std::nullopt;
    const auto json = nlohmann::json::parse(in);
    const std::string id = graph.parent_cache_id();
    if (!json.contains(id)) return std::nullopt;
    return json[id]["digest"].get<std::string>();
}

Bytes32 porep_id_byte(uint8_t id) {
    Bytes32 p{};
    p[0] = id;
    return p;
}

void run_cache(benchmark::State& state, uint64_t nodes, uint8_t porep_id, ApiVersion version) {
    const StackedGraph graph(nodes, porep_id_byte(porep_id), version);
    const auto expected = published_digest(graph);
    if (!expected) {
        state.SkipWithError(("parent_cache.json (or its entry " + graph.parent_cache_id() + ") not found under " +
                             vectors_dir().string() + "; set CUZK_VECTORS_DIR")
                                .c_str());
        return;
    }
    std::string digest;
    for (auto _ : state) digest = to_hex(parent_cache_sha256(graph));
    if (digest != *expected) {
        state.SkipWithError(("digest " + digest + " differs from the published " + *expected).c_str());
        return;
    }
    state.counters["nodes_per_s"] =
        benchmark::Counter(double(nodes) * double(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["threads"] = double(num_threads());
    state.SetBytesProcessed(int64_t(state.iterations() * nodes * DEGREE * sizeof(uint32_t)));
    state.SetLabel("digest matches parent_cache.json");
}

void BM_parent_cache(benchmark::State& state) {
    const auto id = uint8_t(state.range(0));
    run_cache(state, uint64_t(1) << 24, id, id < 5 ? ApiVersion::V1_0_0 : ApiVersion::V1_1_0);
}

void BM_parent_cache_8MiB(benchmark::State& state) { run_cache(state, uint64_t(1) << 18, 6, ApiVersion::V1_1_0); }

void BM_parents_range(benchmark::State& state) {
    const StackedGraph graph(uint64_t(1) << 30, porep_id_byte(8), ApiVersion::V1_1_0);
    const uint64_t count = 1 << 12;
    std::vector<uint32_t> out(count * DEGREE);
    uint64_t first = 12345;
    for (auto _ : state) {
        graph.parents_range(first, out);
        benchmark::DoNotOptimize(out.data());
        first += count;
    }
    state.SetItemsProcessed(int64_t(state.iterations() * count));
}

}  // namespace

BENCHMARK(BM_parent_cache)->Arg(7)->Arg(2)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_parent_cache_8MiB)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_parents_range)->Unit(benchmark::kMillisecond);
