// The daemon's proving keys: the engine's key store (engine/key_store.hpp) configured from DaemonConfig — on a GPU
// build, the subgroup checks of a load on the first GPU and one resident copy per GPU under each device's budget,
// unless the daemon proves on the CPU — and what a job takes from it: its key, and the matrices its partitions are
// made from (a .pce file the request names, the built-in circuit's PCE compiled once and kept in [paths] circuits,
// or a zkey's rows). The only unit of the daemon that knows about GPUs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "cuzk.pb.h"
#include "cuzk/daemon/config.hpp"
#include "cuzk/daemon/event_log.hpp"
#include "cuzk/daemon/requests.hpp"
#include "cuzk/engine/key_store.hpp"

namespace cuzk::daemon {

// The key store's configuration: `budget_bytes` of host memory, the parameter checks, the CPU fallback and, unless
// cfg.backend is "cpu", the GPUs' copies. std::runtime_error for backend "gpu" in a build without CUDA.
engine::KeyStoreConfig key_store_config(const DaemonConfig& cfg, size_t budget_bytes);

class ProvingKeys {
public:
    ProvingKeys(const DaemonConfig& cfg, size_t budget_bytes, EventLog log);

    // The key in `params_path`, loaded now or shared. A key the GPUs have no room for proves on the CPU (logged);
    // with backend "gpu", std::runtime_error instead, as for a key without any device copy.
    std::shared_ptr<const engine::ProvingKey> key(const std::filesystem::path& params_path);
    // What the job's partitions are made from with `key`: a .pce file the request named, the built-in circuit's PCE
    // ([engine] pce = "auto"), or a circom job's zkey rows; null: full synthesis.
    std::shared_ptr<const r1cs::PrecompiledR1cs> matrices(const engine::ProvingKey& key, const JobPlan& plan);

    // PreloadParams and EvictParams: `name` inside [paths] params. DaemonError (FailedPrecondition for a set that
    // cannot be loaded); preload returns the set's host bytes.
    uint64_t preload(const std::string& name);
    bool evict(const std::string& name);

    // Into a status report: the backend ("gpu" when the daemon proves on GPUs, else "cpu"), the GPUs, the cached
    // parameter sets.
    void report(v1::GetStatusResponse& r) const;
    engine::ProvingKeyStore::Stats stats() const { return store_->stats(); }
    // The store itself, shared with the engine (EngineConfig::key_store): the one place keys live.
    const std::shared_ptr<engine::ProvingKeyStore>& store() const { return store_; }

private:
    // The built-in circuit's PCE: [paths] circuits/<shape>.pce when it is there and sound, else compiled now and
    // written there for the next start (a write failure is only logged).
    r1cs::PrecompiledR1cs auto_pce(const circuits::CircuitSpec& spec, const std::string& shape);

    DaemonConfig cfg_;
    EventLog log_;
    std::shared_ptr<engine::ProvingKeyStore> store_;  // parameter sets, their GPU copies and compiled matrices
};

}  // namespace cuzk::daemon
