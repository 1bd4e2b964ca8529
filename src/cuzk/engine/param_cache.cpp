#include "cuzk/engine/param_cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <stdexcept>

#include "cuzk/engine/engine.hpp"
#include "cuzk/formats/bellman_params.hpp"

namespace cuzk::engine {

namespace {
std::string key_of(const std::filesystem::path& path) { return std::filesystem::weakly_canonical(path).string(); }

// A file's in-memory size before it is read: affine points take a little more than their encodings (G1 96 -> 104
// bytes, G2 192 -> 200), so a margin of 1/8 covers it.
size_t estimate(const std::filesystem::path& path) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    return ec ? 0 : (size_t)size + (size_t)size / 8;
}
}  // namespace

ParamCache::ParamCache(const ParamCacheConfig& cfg) : cfg_(cfg) {
    if (cfg_.budget_bytes == 0) cfg_.budget_bytes = auto_budget();
}

size_t ParamCache::auto_budget() {
    return auto_memory_budget();
}

size_t ParamCache::resident_bytes(const groth16::Parameters& p) {
    return (p.h.size() + p.l.size() + p.a.size() + p.b_g1.size() + p.vk.ic.size()) * sizeof(G1Affine) +
           p.b_g2.size() * sizeof(G2Affine) + sizeof(p);
}

bool ParamCache::make_room(size_t need) {
    while (bytes_ + need > cfg_.budget_bytes) {
        std::string victim;
        uint64_t oldest = UINT64_MAX;
        for (const auto& [k, e] : entries_) {
            // Only the cache holds it (use_count 1): no job is using it.
            if (e->loading || !e->params || e->params.use_count() > 1) continue;
            if (e->last_use < oldest) oldest = e->last_use, victim = k;
        }
        if (victim.empty()) return false;
        bytes_ -= entries_[victim]->bytes;
        entries_.erase(victim);
        counters_.evictions++;
    }
    return true;
}

std::shared_ptr<const groth16::Parameters> ParamCache::get(const std::filesystem::path& path) {
    const std::string key = key_of(path);
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
        auto it = entries_.find(key);
        if (it == entries_.end()) break;
        if (it->second->loading) {
            loaded_cv_.wait(lk);
            continue;  // loaded, or failed and removed: look again
        }
        counters_.hits++;
        it->second->last_use = ++clock_;
        return it->second->params;
    }
    counters_.misses++;
    const size_t guess = estimate(path);
    if (!make_room(guess))
        throw std::runtime_error("param cache: " + key + " needs about " + std::to_string(guess) +
                                 " bytes; the budget is " + std::to_string(cfg_.budget_bytes) + " and " +
                                 std::to_string(bytes_) + " are held by sets in use");
    auto entry = std::make_shared<Entry>();
    entry->loading = true;
    entry->bytes = guess;
    entries_[key] = entry;
    bytes_ += guess;
    lk.unlock();

    std::shared_ptr<const groth16::Parameters> params;
    try {
        formats::ParamsReadOptions opt;
        opt.check_subgroup = cfg_.check_subgroup;
        opt.device_checks = cfg_.device_checks;
        params = std::make_shared<const groth16::Parameters>(formats::read_parameters(path, opt).params);
    } catch (...) {
        lk.lock();
        bytes_ -= entry->bytes;
        entries_.erase(key);
        loaded_cv_.notify_all();
        throw;
    }
    lk.lock();
    bytes_ -= entry->bytes;
    entry->bytes = resident_bytes(*params);
    bytes_ += entry->bytes;
    entry->params = params;
    entry->loading = false;
    entry->last_use = ++clock_;
    make_room(0);  // the exact size may exceed the estimate: drop unused sets if that went over the budget
    loaded_cv_.notify_all();
    return params;
}

void ParamCache::preload(const std::filesystem::path& path) { (void)get(path); }

bool ParamCache::evict(const std::filesystem::path& path) {
    std::lock_guard<std::mutex> lk(mu_);
    auto it = entries_.find(key_of(path));
    if (it == entries_.end() || it->second->loading || it->second->params.use_count() > 1) return false;
    bytes_ -= it->second->bytes;
    entries_.erase(it);
    counters_.evictions++;
    return true;
}

ParamCache::Stats ParamCache::stats() const {
    std::lock_guard<std::mutex> lk(mu_);
    Stats s = counters_;
    s.entries = entries_.size();
    s.bytes = bytes_;
    s.budget = cfg_.budget_bytes;
    return s;
}

}  // namespace cuzk::engine
