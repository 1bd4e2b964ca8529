// Parameter sets loaded once and shared by every job that uses them (ARCHITECTURE.md: parameters are immutable once
// loaded and shared by reference), kept under a memory budget: least recently used sets that no job holds are
// evicted to make room, and a set that cannot fit is refused with a message instead of exceeding the budget.
//
// Keys are canonical paths of bellman/bellperson parameter files (formats/bellman_params.hpp). Concurrent gets of
// the same file load it once (the others wait for that load); loads of different files run in parallel. A failed
// load is not cached: its error goes to every waiter and the next get tries again.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/groth16/types.hpp"

namespace cuzk::engine {

struct ParamCacheConfig {
    // Bytes the cached sets may occupy in host memory; 0 = auto_budget().
    size_t budget_bytes = 0;
    // Subgroup checks of every query point while loading (bellman's `checked`); off only for files whose hash is
    // pinned.
    bool check_subgroup = true;
    // Where those checks run (formats::ParamsReadOptions::device_checks): empty, on the CPU.
    formats::SubgroupChecks device_checks;
};

class ParamCache {
public:
    explicit ParamCache(const ParamCacheConfig& cfg = {});

    // The parameters in `path`, loaded now or shared from the cache. Throws formats::FormatError for a bad file and
    // std::runtime_error when the set cannot fit in the budget even after evicting every set no one holds.
    std::shared_ptr<const groth16::Parameters> get(const std::filesystem::path& path);
    // Loads without handing out a reference.
    void preload(const std::filesystem::path& path);
    // Drops the set unless a job holds it; false when it is not cached or in use.
    bool evict(const std::filesystem::path& path);

    struct Stats {
        size_t entries = 0, bytes = 0, budget = 0;
        uint64_t hits = 0, misses = 0, evictions = 0;
    };
    Stats stats() const;

    // engine::auto_memory_budget(): physical memory minus a margin for everything else (max(4 GiB, 1/8 of it));
    // 1 GiB where it cannot be read.
    static size_t auto_budget();
    // Host bytes a parameter set's point vectors occupy.
    static size_t resident_bytes(const groth16::Parameters& p);

private:
    struct Entry {
        std::shared_ptr<const groth16::Parameters> params;
        size_t bytes = 0;
        bool loading = false;
        uint64_t last_use = 0;
    };
    // Evicts unused entries (least recently used first) until `need` more bytes fit; false if they cannot.
    bool make_room(size_t need);

    ParamCacheConfig cfg_;
    mutable std::mutex mu_;
    std::condition_variable loaded_cv_;
    std::map<std::string, std::shared_ptr<Entry>> entries_;
    size_t bytes_ = 0;      // of loaded entries, plus the estimates of loads in progress
    uint64_t clock_ = 0;    // LRU counter
    Stats counters_;
};

}  // namespace cuzk::engine
