// The daemon's proving keys: the engine's key store (engine/key_store.hpp) configured from DaemonConfig — on a GPU
// build, the subgroup checks of a load on the first GPU and one resident copy per GPU under each device's budget,
// unless the daemon proves on the CPU — and what a job takes from it: its key, and the matrices its partitions are
// made from (a .pce file the request names, the built-in or Filecoin circuit's PCE compiled once and kept in
// [paths] circuits, or a zkey's rows). The only unit of the daemon that knows about GPUs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cuzk.pb.h"
#include "cuzk/daemon/config.hpp"
#include "cuzk/daemon/event_log.hpp"
#include "cuzk/daemon/requests.hpp"
#include "cuzk/engine/key_store.hpp"

namespace cuzk::daemon {

// The key store's configuration: `budget_bytes` of host memory, the parameter checks, the CPU fallback and, unless
// cfg.backend is "cpu", the GPUs' copies. std::runtime_error for backend "gpu" in a build without CUDA.
engine::KeyStoreConfig key_store_config(const DaemonConfig& cfg, size_t budget_bytes);
// A GPU's budget for resident keys out of its `total_bytes`: what is left after one proof's workspace (its H arrays
// and MSM scratch; a 2^27-constraint partition's MSM scratch alone is ~20 GB), max(16 GiB, a quarter of the card),
// but at least half the card, so that a 16-24 GB card still holds the small sets (a Winning PoSt's) whose proofs
// need far less than 16 GiB.
size_t gpu_key_budget(size_t total_bytes);
// The GPUs the daemon proves on: [engine] gpus, else every visible device (none for backend cpu or without CUDA);
// std::runtime_error naming the key for an ordinal with no device (CUDA_VISIBLE_DEVICES applies first).
std::vector<size_t> gpu_ordinals(const DaemonConfig& cfg);

class ProvingKeys {
public:
    ProvingKeys(const DaemonConfig& cfg, size_t budget_bytes, EventLog log);

    // The key in `params_path`, loaded now or shared. A key the GPUs have no room for proves on the CPU (logged);
    // with backend "gpu", std::runtime_error instead, as for a key without any device copy.
    std::shared_ptr<const engine::ProvingKey> key(const std::filesystem::path& params_path);
    // What the job's partitions are made from with `key`: a .pce file the request named, the built-in circuit's PCE
    // ([engine] pce = "auto"), or a circom job's zkey rows; null: full synthesis.
    std::shared_ptr<const r1cs::PrecompiledR1cs> matrices(const engine::ProvingKey& key, const JobPlan& plan);

    // PreloadSRS and EvictSRS: a circuit id's parameter file ("porep-32g": Filecoin's file name in [paths] params;
    // preload also compiles its rows, as its first job would), or the request's `params` inside [paths] params. DaemonError: InvalidArgument for an unknown id,
    // FailedPrecondition for a missing file or a set that cannot be loaded.
    v1::PreloadSrsResponse preload(const v1::PreloadSrsRequest& q);
    v1::EvictSrsResponse evict(const v1::EvictSrsRequest& q);

    // Into a status report: the backend ("gpu" when the daemon proves on GPUs, else "cpu"), the GPUs, the parameter
    // sets (loaded ones HOT on the GPUs or pinned, WARM in host memory; the known Filecoin files of [paths] params
    // that are not loaded COLD) with `refs(path)` jobs holding each, pinned host memory.
    void report(v1::GetStatusResponse& r, const std::function<uint32_t(const std::filesystem::path&)>& refs) const;
    engine::ProvingKeyStore::Stats stats() const { return store_->stats(); }
    // Whether a bellman parameter file's points go from the file straight to the GPUs (GPUs present, parameters not
    // pinned): its key then holds no host copy of them, and admission does not count them.
    bool streams_to_devices() const { return streams_; }
    // "GPU 0 (NVIDIA H200), GPU 2 (...)", or "the CPU": where the daemon proves (logged at start).
    std::string devices_line() const;
    // The store itself, shared with the engine (EngineConfig::key_store): the one place keys live.
    const std::shared_ptr<engine::ProvingKeyStore>& store() const { return store_; }

private:
    // The file a PreloadSRS or EvictSRS request names.
    std::filesystem::path srs_path(const std::string& circuit_id, const std::string& params) const;
    // A circuit's PCE named `shape`: [paths] circuits/<shape>.pce when it is there and sound, else `compile`d now
    // and written there for the next start (a write failure is only logged).
    r1cs::PrecompiledR1cs kept_pce(const std::string& shape, const std::function<r1cs::PrecompiledR1cs()>& compile);

    DaemonConfig cfg_;
    EventLog log_;
    std::shared_ptr<engine::ProvingKeyStore> store_;  // parameter sets, their GPU copies and compiled matrices
    bool streams_ = false;
    std::vector<size_t> gpus_;  // gpu_ordinals(cfg_), found once at start
    // The last loaded key of each path whose devices_left_out or streaming was logged (once per load, not per job).
    std::mutex left_out_mu_;
    std::map<std::string, std::weak_ptr<const engine::ProvingKey>> left_out_logged_;
};

}  // namespace cuzk::daemon
