// Proving keys loaded once and shared by every job that uses them (ARCHITECTURE.md: parameters are immutable once
// loaded and shared by reference), under one budget for host memory and one per device. A key is a parameter file's
// parameters (a bellman/bellperson file, or a snarkjs .zkey with the coefficients its assignments are made from),
// their resident copies on the devices (one prover backend each), a CPU backend (the prover where there is no
// device, the fallback behind the devices), and the constraint matrices compiled for its circuit (the PCE).
//
// Eviction: a key no job holds (the store's reference is the only one) is idle; when a new key or matrices need
// room in host memory or on a device, idle keys go, least recently used first, with their device copies and
// matrices. A key that a queued or running job holds is never evicted. A load that cannot fit in host memory even
// then is refused with a message naming the budget; one whose device copies cannot fit is loaded for the CPU
// (ProvingKey::without_devices: slow, but the job is proven) and gets its copies once it is idle and asked for
// again.
//
// Host points: a file's key whose every device holds a copy, and none of whose backends reads the host points after
// it was made (a GPU's resident copy: GpuProverConfig::pin_host_params off), keeps only its shape
// (groth16::KeyShape) in host memory: the CPU fallback reads the file again for each proof it makes (counted in its
// working memory). With KeyStoreConfig::stream_device_copies the points go from the file straight to the devices
// (decoded into the pinned staging buffers, checked there), so a 32 GiB PoRep key never costs the host its ~45 GB;
// without it they are read into host memory and freed once the copies are made.
//
// Keys are canonical paths. Concurrent gets of the same file load it once (the others wait for that load); loads of
// different files run in parallel. A failed load is not kept: its error goes to every waiter and the next get tries
// again. Matrices are made once per key and name the same way.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/formats/iden3.hpp"
#include "cuzk/groth16/backend.hpp"
#include "cuzk/groth16/types.hpp"
#include "cuzk/r1cs/pce.hpp"

namespace cuzk::engine {

// A parameter set's resident copy on one device and the backend that proves against it.
struct DeviceCopy {
    std::string device;  // its budget's name (the backend's lane: "cuda:0")
    size_t bytes = 0;    // device memory it holds
    std::unique_ptr<groth16::ProverBackend> backend;
    size_t host_bytes = 0;  // host memory it holds (a streamed copy's queries, page-locked), in the host budget
};

struct KeyStoreConfig {
    // Bytes the keys may occupy in host memory (parameters and matrices); 0 = auto_memory_budget().
    size_t budget_bytes = 0;
    // Bytes the keys' copies may occupy on each device, by name; a device not named has no limit here (its
    // backend refuses what does not fit).
    std::map<std::string, size_t> device_budget_bytes;
    // Subgroup checks of every query point while loading (bellman's `checked`); off only for files whose hash is
    // pinned.
    bool check_subgroup = true;
    // Where those checks run (formats::ParamsReadOptions::device_checks): empty, on the CPU.
    formats::SubgroupChecks device_checks;
    // The device copies of a loaded set (one per GPU), and the bytes they will take on each device before they are
    // made (for room). Unset or empty: the key proves on the CPU alone. `only`, when not empty, names the devices
    // (their budgets' names) that get a copy: those whose budget can hold the set when another's cannot (a 32 GiB
    // key on an 80 GB card beside a 24 GB one); empty, every device does.
    std::function<std::vector<DeviceCopy>(const groth16::Parameters&, const std::vector<std::string>& only)>
        make_device_copies;
    std::function<std::map<std::string, size_t>(const groth16::KeyShape&)> device_bytes;
    // Device copies made straight from a bellman parameter file (formats::ParamsFileSource: the points decoded into
    // the pinned staging buffers as they go up, never all in host memory), their points checked for their subgroups
    // on the device when the flag says so (a failure: the reader's FormatError). Set, a file's key whose copies fit
    // is loaded this way; unset, or for a .zkey or a key that must prove on the CPU, the file is read into host
    // memory and make_device_copies makes the copies. The copies' backends must not need host points. `only` as for
    // make_device_copies.
    std::function<std::vector<DeviceCopy>(const formats::ParamsFileSource&, bool check_subgroup,
                                          const std::vector<std::string>& only)>
        stream_device_copies;
    // Copies for a file's key that no device's budget can hold whole (a 32 GiB PoRep key on 16-24 GB cards): the
    // queries stay in host memory and go to the device at every MSM (GpuProverConfig::stream_queries), each copy's
    // DeviceCopy::host_bytes counted in the host budget. `devices` names those to use (every device whose budget
    // holds streamed_device_bytes). Unset: such a key proves on the CPU (ProvingKey::devices_too_small).
    std::function<std::vector<DeviceCopy>(const formats::ParamsFileSource&, bool check_subgroup,
                                          const std::vector<std::string>& devices)>
        streamed_copies;
    // The device bytes a streamed copy takes on each device (its chunk buffers), by name; unset: nothing.
    std::function<std::map<std::string, size_t>(const groth16::KeyShape&)> streamed_device_bytes;
    // A CPU backend behind the device copies (the engine's fallback); a key without device copies always has one.
    bool cpu_fallback = true;
    // Matrices made for a key (matrices()) also go onto its devices and stay there while the key does
    // (ProverBackend::hold_products, counted in the device budget), so the jobs of a daemon share one copy instead
    // of copying them again each (~9 GB, ~1 s before a 32 GiB PoRep's first partition). Where the budget or the
    // device has no room, the jobs hold them for themselves as before.
    bool keep_device_products = true;
};

// One loaded key; immutable and shared (std::shared_ptr<const ProvingKey>) by the jobs that use it.
struct ProvingKey {
    std::string path;  // canonical
    groth16::KeyShape shape;  // the verifying key and the query sizes
    // The host points; null once released (see the top of this file: every device holds a copy).
    std::shared_ptr<const groth16::Parameters> params;
    std::shared_ptr<const formats::iden3::Zkey> zkey;  // a .zkey: its header and A, B coefficients (points moved out)
    std::vector<DeviceCopy> devices;
    std::unique_ptr<groth16::ProverBackend> cpu;  // the fallback behind the devices, or the prover without them
    size_t host_bytes = 0;
    // Device copies were wanted but the keys that jobs held left no room: this key proves on the CPU, and is loaded
    // again (with its copies) the first time it is asked for while no job holds it.
    bool without_devices = false;
    // Why no device can hold this key at all, even with every other key gone (its copy is larger than every
    // device's whole budget: a 32 GiB PoRep key on a 16 GB card); empty when one can. Such a key proves on the CPU
    // for as long as it is loaded (without_devices is set too) and is not read again to try the devices.
    std::string devices_too_small;
    // The devices left without a copy because the key is larger than their whole budget while others hold it (a
    // smaller card beside larger ones), and why; empty when every device can. Its jobs prove on the others.
    std::string devices_left_out;
    // Its device copies stream the queries from host memory (KeyStoreConfig::streamed_copies): devices_too_small
    // says why a whole copy fits on none.
    bool streamed = false;

    // The backend a job proves on (the first device's, else the CPU's), every device's (one proving lane each),
    // and the fallback (the CPU's behind devices; nullptr without devices or with cpu_fallback off).
    groth16::ProverBackend* backend() const;
    std::vector<groth16::ProverBackend*> backends() const;
    groth16::ProverBackend* fallback() const;
    // Host bytes one synthesized partition of this key's circuit holds until it is proven: a, b, c over the domain
    // (H's points + 1) and the witness (one Fr per input and aux variable; the L query has one point per aux).
    size_t partition_bytes() const;
};

class ProvingKeyStore {
public:
    explicit ProvingKeyStore(const KeyStoreConfig& cfg = {});

    // The key in `path` (a bellman parameter file, or a .zkey), loaded now or shared. Throws formats::FormatError
    // for a bad file and std::runtime_error when it cannot fit in a budget even after evicting every idle key.
    std::shared_ptr<const ProvingKey> get(const std::filesystem::path& path);
    // Parameters already in memory (generated, or read and checked by the caller: a Filecoin file found by name and
    // its header checked against the circuit) as the key "memory:<name>", with their device copies and CPU backend
    // as for a file; a second adopt of the same name shares the first key while it is loaded (the parameters given
    // are then unused). Counted and evicted like a file's key; the store keeps `params` alive while it holds it.
    std::shared_ptr<const ProvingKey> adopt(const std::string& name, std::shared_ptr<const groth16::Parameters> params);
    // The matrices named `name` (a circuit's shape, a .pce file) of `key`, made by `make` the first time (others
    // wait), counted in the host budget and kept while the key is, with their copies on the key's devices
    // (KeyStoreConfig::keep_device_products); a failure is not kept.
    std::shared_ptr<const r1cs::PrecompiledR1cs> matrices(const ProvingKey& key, const std::string& name,
                                                          const std::function<r1cs::PrecompiledR1cs()>& make);
    // Drops the key (a path, or "memory:<name>" for an adopted one) unless a job holds it; false when it is not
    // loaded or in use.
    bool evict(const std::filesystem::path& path);

    struct Stats {
        size_t entries = 0, bytes = 0, budget = 0;
        std::map<std::string, size_t> device_bytes;
        uint64_t hits = 0, misses = 0, evictions = 0;
    };
    Stats stats() const;
    // The keys loaded now (for a status report).
    std::vector<std::shared_ptr<const ProvingKey>> loaded() const;

    // Host bytes a parameter set's point vectors occupy (as its shape gives them), and a set of compiled matrices.
    static size_t resident_bytes(const groth16::Parameters& p);
    static size_t resident_bytes(const groth16::KeyShape& k);
    static size_t matrices_bytes(const r1cs::PrecompiledR1cs& m);

private:
    struct Entry;
    bool fits(size_t host, const std::map<std::string, size_t>& devices) const;
    // Evicts idle entries (least recently used first, never `keep`) until `host` more bytes and `devices` fit;
    // false if they cannot.
    bool make_room(size_t host, const std::map<std::string, size_t>& devices, const Entry* keep = nullptr);
    void drop(const std::string& key);
    // Sets the entry's device bytes (an estimate, then what its copies hold) in the devices' totals.
    void reserve_devices(Entry& e, const std::map<std::string, size_t>& bytes);
    // A file's key with its backends: streamed onto the devices (stream_device_copies) when they have room, else
    // read into host memory first.
    std::shared_ptr<ProvingKey> load(const std::filesystem::path& path, const std::string& key, Entry& entry);
    std::shared_ptr<ProvingKey> load_streamed(const std::filesystem::path& path, const std::string& key, Entry& entry);
    // The key `key`, loaded now by `read` (about `guess` host bytes; the key with its backends) or shared.
    std::shared_ptr<const ProvingKey> obtain(const std::string& key, size_t guess,
                                             const std::function<std::shared_ptr<ProvingKey>(Entry&)>& read);
    // Where a key of this shape gets device copies: the devices whose whole budget can hold one. When some can
    // and others cannot, why the others cannot goes to left_out; when none can (and the copies need room
    // somewhere), why to too_small.
    struct DevicePlan {
        std::map<std::string, size_t> need;  // bytes per device that gets a copy (empty: none is counted)
        std::string left_out, too_small;
        // The devices the copy makers are asked for (KeyStoreConfig::make_device_copies' `only`): empty, every one,
        // unless some are left out.
        std::vector<std::string> only() const;
    };
    DevicePlan plan_devices(const groth16::KeyShape& shape) const;
    // The same for copies that take `need` bytes on each device.
    DevicePlan plan_devices(const std::map<std::string, size_t>& need) const;
    // The plan of streamed copies for a key no device holds whole (KeyStoreConfig::streamed_copies), or nullopt
    // when there is no such maker.
    std::optional<DevicePlan> plan_streamed(const groth16::KeyShape& shape) const;
    // Reserves the device room the planned copies take, evicting idle keys; false without room, or when no device
    // can hold the key at all (plan.too_small; nothing evicted for it).
    bool reserve_device_room(const DevicePlan& plan, Entry& entry);
    // The device copies (room permitting) and the CPU backend of a key just read.
    void attach_backends(ProvingKey& k, Entry& entry);
    // Copies of new matrices `m` on the key's devices, held by the entry where the device budget has room.
    void hold_on_devices(const ProvingKey& key, const r1cs::PrecompiledR1cs& m, Entry& entry);
    // Adds `delta` device bytes (may be negative) to the entry's and the device's totals.
    void add_device_bytes(Entry& e, const std::string& device, int64_t delta);

    KeyStoreConfig cfg_;
    mutable std::mutex mu_;
    std::condition_variable loaded_cv_;
    std::map<std::string, std::shared_ptr<Entry>> entries_;
    size_t bytes_ = 0;  // host: loaded entries and their matrices, plus the estimates of loads in progress
    std::map<std::string, size_t> device_bytes_;
    uint64_t clock_ = 0;  // LRU counter
    Stats counters_;
};

}  // namespace cuzk::engine
