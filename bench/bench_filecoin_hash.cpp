// Filecoin native hashing: the tree-D node hash trim(SHA-256(left ‖ right)) one at a time, batched on one thread
// and batched on all threads (items/s = node hashes per second), against OpenSSL's SHA256_Init/Update/Final on the
// same 64-byte messages; tree D over 2^20 leaves (every row, and the root alone); the all-zero comm_d of 64 GiB; an
// 8-ary Poseidon tree root (tree R / tree C hashing) over 8^5 leaves. Arg "threads" = global pool size (1, then all
// hardware threads), real time.
#include <benchmark/benchmark.h>
#include <openssl/sha.h>

#include <random>
#include <thread>
#include <vector>

#include "cuzk/filecoin/hashers.hpp"
#include "cuzk/filecoin/tree.hpp"
#include "cuzk/util/thread_pool.hpp"

using namespace cuzk;
using namespace cuzk::filecoin;

namespace {

std::vector<Domain> random_nodes(size_t n) {
    std::mt19937_64 rng(7);
    std::vector<Domain> v(n);
    for (auto& d : v) {
        for (auto& b : d) b = (uint8_t)rng();
        trim_to_fr32(d);
    }
    return v;
}

// Latency of one node hash (the form path checks use).
void BM_sha256_node_single(benchmark::State& state) {
    auto children = random_nodes(2 << 12);
    size_t i = 0;
    for (auto _ : state) {
        Domain d = sha256_node(children[2 * i], children[2 * i + 1]);
        benchmark::DoNotOptimize(d);
        i = (i + 1) & ((1 << 12) - 1);
    }
    state.SetItemsProcessed(state.iterations());
}

// The same messages through OpenSSL's low-level interface, the baseline the batched forms are measured against.
void BM_sha256_node_openssl(benchmark::State& state) {
    auto children = random_nodes(2 << 12);
    size_t i = 0;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    for (auto _ : state) {
        SHA256_CTX ctx;
        Domain d;
        SHA256_Init(&ctx);
        SHA256_Update(&ctx, children[2 * i].data(), 64);
        SHA256_Final(d.data(), &ctx);
        d[31] &= 0x3F;
        benchmark::DoNotOptimize(d);
        i = (i + 1) & ((1 << 12) - 1);
    }
#pragma GCC diagnostic pop
    state.SetItemsProcessed(state.iterations());
}

// A row of 2^16 parents (4 MiB of children, about L2-to-L3 sized), one thread.
void BM_sha256_nodes_serial(benchmark::State& state) {
    const size_t n = size_t(1) << 16;
    auto children = random_nodes(2 * n);
    std::vector<Domain> parents(n);
    for (auto _ : state) {
        sha256_nodes_serial(children, parents);
        benchmark::DoNotOptimize(parents.data());
    }
    state.SetItemsProcessed(state.iterations() * (int64_t)n);
}

// A row of 2^20 parents on `threads` threads.
void BM_sha256_nodes_parallel(benchmark::State& state) {
    ThreadPool::set_global_threads((size_t)state.range(0));
    const size_t n = size_t(1) << 20;
    auto children = random_nodes(2 * n);
    std::vector<Domain> parents(n);
    for (auto _ : state) {
        sha256_nodes(children, parents);
        benchmark::DoNotOptimize(parents.data());
    }
    state.SetItemsProcessed(state.iterations() * (int64_t)n);
    ThreadPool::set_global_threads(0);
}

// Tree D over 2^20 leaves (a 32 MiB piece): the root alone, and every row kept.
void BM_tree_d_root_2p20(benchmark::State& state) {
    ThreadPool::set_global_threads((size_t)state.range(0));
    auto leaves = random_nodes(size_t(1) << 20);
    for (auto _ : state) benchmark::DoNotOptimize(binary_tree_root(leaves));
    state.SetItemsProcessed(state.iterations() * (int64_t)(leaves.size() - 1));  // hashes per tree
    ThreadPool::set_global_threads(0);
}

void BM_tree_d_all_rows_2p20(benchmark::State& state) {
    ThreadPool::set_global_threads((size_t)state.range(0));
    auto leaves = random_nodes(size_t(1) << 20);
    for (auto _ : state) {
        BinaryTree t(leaves);
        benchmark::DoNotOptimize(t.root());
    }
    state.SetItemsProcessed(state.iterations() * (int64_t)(leaves.size() - 1));
    ThreadPool::set_global_threads(0);
}

// comm_d of an empty 64 GiB sector: 31 hashes of a zero tree collapsed level by level.
void BM_zero_comm_d_64GiB(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(zero_comm_d(uint64_t(64) << 30));
}

// An 8-ary Poseidon tree over 8^5 leaves (4,681 arity-8 hashes): the node rate of tree R / tree C building.
void BM_poseidon_tree_root_8p5(benchmark::State& state) {
    ThreadPool::set_global_threads((size_t)state.range(0));
    std::mt19937_64 rng(9);
    std::vector<Fr> leaves(size_t(1) << 15);
    for (auto& x : leaves) x = Fr::random(rng);
    for (auto _ : state) benchmark::DoNotOptimize(poseidon_tree_root({8, 0, 0}, leaves));
    state.SetItemsProcessed(state.iterations() * (int64_t)((leaves.size() - 1) / 7));  // node hashes per tree
    ThreadPool::set_global_threads(0);
}

// One thread, then every hardware thread (the pool's default size).
void thread_counts(benchmark::internal::Benchmark* b) {
    b->ArgName("threads")->Arg(1);
    if (unsigned hw = std::thread::hardware_concurrency(); hw > 1) b->Arg((int)hw);
    b->UseRealTime()->Unit(benchmark::kMillisecond);
}

}  // namespace

BENCHMARK(BM_sha256_node_single);
BENCHMARK(BM_sha256_node_openssl);
BENCHMARK(BM_sha256_nodes_serial)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_sha256_nodes_parallel)->Apply(thread_counts);
BENCHMARK(BM_tree_d_root_2p20)->Apply(thread_counts);
BENCHMARK(BM_tree_d_all_rows_2p20)->Apply(thread_counts);
BENCHMARK(BM_zero_comm_d_64GiB)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_poseidon_tree_root_8p5)->Apply(thread_counts);
