#include "cuzk/daemon/keys.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include "cuzk/circuits/catalog.hpp"
#include "cuzk/daemon/daemon.hpp"
#include "cuzk/daemon/filecoin_jobs.hpp"
#include "cuzk/formats/iden3_circom.hpp"
#include "cuzk/r1cs/pce.hpp"

#ifdef CUZK_HAVE_CUDA
#include "cuzk/backends/cuda/prover_gpu.hpp"
#include "cuzk/backends/cuda/subgroup_checks.hpp"
#include "cuzk/gpu/device.hpp"
#endif

namespace cuzk::daemon {

namespace fs = std::filesystem;

#ifdef CUZK_HAVE_CUDA
namespace {

// A GPU's budget name: its proving lane ("cuda:0").
std::string device_name(size_t i) { return "cuda:" + std::to_string(i); }

// The GPUs the driver lists that this build has no code for, for the messages that say which GPUs are used.
std::string unusable_gpus_text() {
    std::string s;
    for (const auto& u : gpu::unusable_devices())
        s += "; CUDA device " + std::to_string(u.info.id) + " (" + u.info.name + ") is left out: " + u.why;
    return s;
}

// Each GPU's budget for resident keys: its memory less one proof's workspace.
std::map<std::string, size_t> device_key_budgets(const std::vector<size_t>& ordinals) {
    std::map<std::string, size_t> b;
    const auto devs = gpu::devices();
    for (size_t i : ordinals) {
        b[device_name(i)] = gpu_key_budget(devs.at(i).total_memory);
    }
    return b;
}

// What a key's copy will take on every GPU before it is made: its host size (the device keeps the same affine
// points).
std::map<std::string, size_t> device_key_bytes(const std::vector<size_t>& ordinals, size_t host_bytes) {
    std::map<std::string, size_t> b;
    for (size_t i : ordinals) b[device_name(i)] = host_bytes;
    return b;
}

// The ordinals among `ordinals` whose budget names are in `only` (the key store's choice of the GPUs that can hold
// a key); all of them when `only` is empty.
std::vector<size_t> chosen_gpus(const std::vector<size_t>& ordinals, const std::vector<std::string>& only) {
    if (only.empty()) return ordinals;
    std::vector<size_t> out;
    for (size_t i : ordinals)
        if (std::find(only.begin(), only.end(), device_name(i)) != only.end()) out.push_back(i);
    return out;
}

// One copy of the parameters per GPU, each with its backend; streamed copies share one host copy of the queries,
// counted once.
std::vector<engine::DeviceCopy> copies_of(std::vector<std::unique_ptr<gpu::GpuBackend>> backends) {
    std::vector<engine::DeviceCopy> v;
    std::set<const gpu::StreamedKey*> counted;
    for (auto& b : backends) {
        const bool first = counted.insert(b->streamed_key()).second;
        engine::DeviceCopy d{b->lane(), b->resident_bytes(), nullptr, first ? b->streamed_host_bytes() : 0};
        d.backend = std::move(b);
        v.push_back(std::move(d));
    }
    return v;
}

// The copies made straight from the file; with the check, the first device's resident points are checked (the
// others hold the same bytes of the same file, which is verified unchanged afterwards).
std::vector<engine::DeviceCopy> streamed_copies(const std::vector<size_t>& ordinals,
                                                const formats::ParamsFileSource& src, bool check_subgroup,
                                                const gpu::GpuProverConfig& gc = {}) {
    auto backends = gpu::gpu_backends(src, ordinals, gc);
    if (check_subgroup && !backends.empty())
        if (auto query = backends.front()->query_outside_subgroup()) src.throw_not_in_subgroup(*query);
    return copies_of(std::move(backends));
}

}  // namespace
#endif

size_t gpu_key_budget(size_t total_bytes) {
    constexpr size_t kWorkspaceMin = size_t{16} << 30;  // one proof's workspace at least
    const size_t workspace = std::min(std::max(kWorkspaceMin, total_bytes / 4), total_bytes / 2);
    return total_bytes - workspace;
}

std::vector<size_t> gpu_ordinals(const DaemonConfig& c) {
    if (c.backend == "cpu") return {};
#ifdef CUZK_HAVE_CUDA
    const auto devs = gpu::devices();
    std::vector<size_t> out = c.gpus;
    if (out.empty())
        for (size_t i = 0; i < devs.size(); i++) out.push_back(i);
    for (size_t i : out) {
        if (i < devs.size()) continue;
        const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
        throw std::runtime_error("engine.gpus: no CUDA device " + std::to_string(i) + ": " +
                                 std::to_string(devs.size()) + " usable" +
                                 (visible ? std::string(" (CUDA_VISIBLE_DEVICES=") + visible + ")" : std::string()) +
                                 unusable_gpus_text());
    }
    return out;
#else
    if (!c.gpus.empty()) throw std::runtime_error("engine.gpus: built without CUDA");
    return {};
#endif
}

engine::KeyStoreConfig key_store_config(const DaemonConfig& c, size_t budget_bytes) {
    engine::KeyStoreConfig kc;
    kc.budget_bytes = budget_bytes;
    kc.check_subgroup = c.check_params;
    kc.cpu_fallback = c.cpu_fallback;
#ifdef CUZK_HAVE_CUDA
    if (c.backend == "gpu" && gpu::devices().empty())
        throw std::runtime_error("backend gpu: no usable CUDA device found (backend \"auto\" proves on the CPU then)" +
                                 unusable_gpus_text());
#endif
    const std::vector<size_t> ordinals = gpu_ordinals(c);  // throws for a GPU named and not there
#ifdef CUZK_HAVE_CUDA
    if (c.backend != "cpu") {
        if (c.check_params) kc.device_checks = backends::gpu_subgroup_checks();
        kc.device_budget_bytes = device_key_budgets(ordinals);
        kc.device_bytes = [ordinals](const groth16::KeyShape& k) {
            return device_key_bytes(ordinals, engine::ProvingKeyStore::resident_bytes(k));
        };
        gpu::GpuProverConfig base;
        base.overlap_query_msms = c.overlap_msms;
        base.share_slot = c.share_slot;
        base.upload_from_split = c.upload_from_split;
        kc.make_device_copies = [pin = c.pin_params, ordinals, base](const groth16::Parameters& p,
                                                                    const std::vector<std::string>& only) {
            gpu::GpuProverConfig gc = base;
            gc.pin_host_params = pin;  // locked while the key is loaded (the backends live with it)
            return copies_of(gpu::gpu_backends(p, chosen_gpus(ordinals, only), gc));
        };
        // Pinned parameters stay in host memory; else a file's points go straight to the devices.
        if (!c.pin_params)
            kc.stream_device_copies = [ordinals, base](const formats::ParamsFileSource& src, bool check_subgroup,
                                                       const std::vector<std::string>& only) {
                return streamed_copies(chosen_gpus(ordinals, only), src, check_subgroup, base);
            };
        // A set no GPU holds whole: its queries in host memory, sent to the GPUs at every MSM.
        if (!c.pin_params && c.stream_large_keys) {
            gpu::GpuProverConfig streamed = base;
            streamed.stream_queries = true;
            kc.streamed_copies = [ordinals, streamed](const formats::ParamsFileSource& src, bool check_subgroup,
                                                      const std::vector<std::string>& devices) {
                return streamed_copies(chosen_gpus(ordinals, devices), src, check_subgroup, streamed);
            };
            kc.streamed_device_bytes = [ordinals, streamed](const groth16::KeyShape& k) {
                std::map<std::string, size_t> b;
                for (size_t i : ordinals) {
                    gpu::GpuProverConfig on = streamed;
                    on.device = (int)i;
                    b[device_name(i)] = gpu::streamed_query_device_bytes(k, on);
                }
                return b;
            };
        }
    }
#else
    (void)ordinals;
#endif
    if (c.backend == "gpu" && !kc.make_device_copies) throw std::runtime_error("backend gpu: built without CUDA");
    return kc;
}

ProvingKeys::ProvingKeys(const DaemonConfig& cfg, size_t budget_bytes, EventLog log)
    : cfg_(cfg), log_(log) {
    const engine::KeyStoreConfig kc = key_store_config(cfg, budget_bytes);
    streams_ = (bool)kc.stream_device_copies && !kc.device_budget_bytes.empty();
    store_ = std::make_shared<engine::ProvingKeyStore>(kc);
    gpus_ = gpu_ordinals(cfg);
    std::string left_out;
#ifdef CUZK_HAVE_CUDA
    if (cfg.backend != "cpu") left_out = unusable_gpus_text();
#endif
    log_("proving on " + devices_line() + left_out);
}

std::string ProvingKeys::devices_line() const {
    std::string line;
#ifdef CUZK_HAVE_CUDA
    const auto devs = gpu::devices();
    for (size_t i : gpus_)
        line += (line.empty() ? "GPU " : ", GPU ") + std::to_string(i) + " (" + devs.at(i).name + ")";
#endif
    return line.empty() ? "the CPU" : line;
}

std::shared_ptr<const engine::ProvingKey> ProvingKeys::key(const fs::path& params_path) {
    auto key = store_->get(params_path);
    if (key->without_devices) {
        const std::string name = params_path.filename().string();
        if (!key->devices_too_small.empty()) {
            // No GPU's whole budget holds it (a GPU that can gets a copy and the others none: devices_left_out).
            const std::string why = name + " does not fit on the GPUs: " + key->devices_too_small;
            if (cfg_.backend == "gpu") throw std::runtime_error("backend gpu: " + why);
            log_(why + "; proving on the CPU (slow: a GPU with more memory proves it)");
            return key;
        }
        const std::string why = name + " does not fit on the GPUs next to the parameter sets that running jobs hold";
        if (cfg_.backend == "gpu") throw std::runtime_error("backend gpu: " + why);
        log_(why + ": proving on the CPU until it fits");
    } else if (cfg_.backend == "gpu" && key->devices.empty()) {
        throw std::runtime_error("backend gpu: no CUDA device (or built without CUDA)");
    } else if (!key->devices_left_out.empty() || key->streamed) {
        std::lock_guard<std::mutex> lk(left_out_mu_);
        auto& logged = left_out_logged_[key->path];
        if (logged.lock() != key) {
            logged = key;
            const std::string name = params_path.filename().string();
            if (key->streamed)
                log_(name + " does not fit on the GPUs whole (" + key->devices_too_small + "): its points stay in " +
                     "host memory and go to " + std::to_string(key->devices.size()) + " GPU(s) at every proof" +
                     (key->devices_left_out.empty() ? "" : "; " + key->devices_left_out));
            else
                log_(name + " is proven on " + std::to_string(key->devices.size()) + " of the GPUs: " +
                     key->devices_left_out);
        }
    }
    return key;
}

std::shared_ptr<const r1cs::PrecompiledR1cs> ProvingKeys::matrices(const engine::ProvingKey& key, const JobPlan& plan) {
    if (plan.filecoin) {
        if (cfg_.pce != "auto") return nullptr;
        // The circuit's rows, compiled once (kept in [paths] circuits for later starts), shared by its jobs.
        const FilecoinJob& f = *plan.filecoin;
        return store_->matrices(key, f.matrices_name(),
                                [&] { return kept_pce(f.matrices_name(), [&] { return f.compile_matrices(); }); });
    }
    if (plan.circom) {
        if (!key.zkey) return nullptr;
        // The zkey's A/B rows, compiled once per key instead of bucketed again for every witness.
        return store_->matrices(key, "zkey rows", [&] { return formats::iden3::zkey_matrices(*key.zkey); });
    }
    const std::string shape = circuits::circuit_shape_name(plan.spec);
    if (!plan.pce_path.empty())
        return store_->matrices(key, plan.pce_path.string(), [&] { return r1cs::read_pce(plan.pce_path, shape); });
    if (cfg_.pce == "auto")
        return store_->matrices(key, "shape:" + shape, [&] {
            return kept_pce(shape, [&] { return r1cs::compile_r1cs(*circuits::make_circuit(plan.spec, false, 0, nullptr)); });
        });
    return nullptr;
}

r1cs::PrecompiledR1cs ProvingKeys::kept_pce(const std::string& shape,
                                            const std::function<r1cs::PrecompiledR1cs()>& compile) {
    std::string file;
    for (char ch : shape) file += std::isalnum((unsigned char)ch) || ch == '-' || ch == '.' ? ch : '_';
    const fs::path path = cfg_.circuits_dir / (file + ".pce");
    std::error_code ec;
    if (fs::exists(path, ec)) {
        try {
            return r1cs::read_pce(path, shape);
        } catch (const std::exception& e) {
            log_("pce " + path.string() + " not used (" + e.what() + "); compiling it again");
        }
    }
    const auto t0 = std::chrono::steady_clock::now();
    r1cs::PrecompiledR1cs pce = compile();
    pce.circuit = shape;
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    try {
        fs::create_directories(cfg_.circuits_dir, ec);
        r1cs::write_pce(path, pce);
        log_("pce for " + shape + " compiled in " + std::to_string(secs) + " s, kept in " + path.string());
    } catch (const std::exception& e) {
        log_("pce for " + shape + " compiled in " + std::to_string(secs) + " s, not written: " + e.what());
    }
    return pce;
}

fs::path ProvingKeys::srs_path(const std::string& circuit_id, const std::string& params) const {
    if (!params.empty()) {
        if (!circuit_id.empty())
            throw DaemonError(ErrorCode::InvalidArgument, "name a circuit_id or params, not both");
        return inside(cfg_.params_dir, params, "params");
    }
    const auto c = circuit_params(circuit_id);
    if (!c) {
        std::string ids;
        for (const auto& id : circuit_ids()) ids += (ids.empty() ? "" : ", ") + id;
        throw DaemonError(ErrorCode::InvalidArgument, "circuit_id '" + circuit_id + "' is unknown (" + ids + ")");
    }
    const fs::path path = cfg_.params_dir / c->files.params;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        throw DaemonError(ErrorCode::FailedPrecondition, circuit_id + " (" + c->proof_name + "): its parameter file " +
                                                             c->files.params + " is not in " + cfg_.params_dir.string());
    return fs::canonical(path, ec);
}

namespace {

// The loaded key of `path`, if any.
std::shared_ptr<const engine::ProvingKey> loaded_key(const engine::ProvingKeyStore& store, const fs::path& path) {
    std::error_code ec;
    const std::string canon = fs::weakly_canonical(path, ec).string();
    for (auto& k : store.loaded())
        if (k->path == canon || k->path == path.string()) return k;
    return nullptr;
}

uint64_t key_bytes(const engine::ProvingKey& k) {
    size_t device = 0;
    for (const auto& d : k.devices) device = std::max(device, d.bytes);
    return std::max(k.host_bytes, device);
}

}  // namespace

v1::PreloadSrsResponse ProvingKeys::preload(const v1::PreloadSrsRequest& q) {
    const fs::path path = srs_path(q.circuit_id(), q.params());
    v1::PreloadSrsResponse r;
    r.set_already_loaded(loaded_key(*store_, path) != nullptr);
    const auto t0 = std::chrono::steady_clock::now();
    try {
        const auto k = key(path);
        r.set_size_bytes(key_bytes(*k));
        // A circuit id's jobs also need its compiled rows: made now too, as their first job would.
        if (const auto c = circuit_params(q.circuit_id()); c && cfg_.pce == "auto")
            store_->matrices(*k, c->matrices_name(),
                             [&] { return kept_pce(c->matrices_name(), [&] { return compile_circuit(*c); }); });
    } catch (const DaemonError&) {
        throw;
    } catch (const std::exception& e) {
        throw DaemonError(ErrorCode::FailedPrecondition, path.filename().string() + ": " + e.what());
    }
    r.set_load_time_ms((uint64_t)std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    return r;
}

v1::EvictSrsResponse ProvingKeys::evict(const v1::EvictSrsRequest& q) {
    const fs::path path = srs_path(q.circuit_id(), q.params());
    v1::EvictSrsResponse r;
    uint64_t bytes = 0;
    if (auto k = loaded_key(*store_, path)) bytes = key_bytes(*k);
    r.set_was_loaded(store_->evict(path));
    if (r.was_loaded()) r.set_freed_bytes(bytes);
    return r;
}

void ProvingKeys::report(v1::GetStatusResponse& r, const std::function<uint32_t(const fs::path&)>& refs) const {
    r.set_backend("cpu");
#ifdef CUZK_HAVE_CUDA
    if (cfg_.backend != "cpu") {
        const auto devs = gpu::devices();
        for (size_t i : gpus_) {
            auto* g = r.add_gpus();
            g->set_ordinal((uint32_t)i);
            g->set_name(devs[i].name);
            g->set_vram_total_bytes(devs[i].total_memory);
            try {  // on this (gRPC) thread's current device, set for the question
                gpu::use_device(devs[i].id);
                g->set_vram_free_bytes(gpu::free_device_memory());
            } catch (const std::exception&) {
            }
        }
        if (r.gpus_size()) r.set_backend("gpu");
    }
#endif
    const auto ks = store_->stats();
    r.set_params_cached_bytes(ks.bytes);
    r.set_params_cached_sets((uint32_t)ks.entries);
    std::set<std::string> loaded_files;
    uint64_t pinned = 0;
    for (const auto& k : store_->loaded()) {
        const std::string file = fs::path(k->path).filename().string();
        loaded_files.insert(file);
        auto* s = r.add_loaded_srs();
        const std::string id = circuit_id_of_file(file);
        s->set_circuit_id(id.empty() ? file : id);
        const bool pinned_key = cfg_.pin_params && k->params && !k->devices.empty();
        s->set_tier(!k->devices.empty() ? v1::SRSStatus::HOT : v1::SRSStatus::WARM);
        s->set_size_bytes(key_bytes(*k));
        s->set_ref_count(refs ? refs(k->path) : 0);
        if (pinned_key) pinned += k->host_bytes;
    }
    for (const auto& id : circuit_ids()) {
        const auto c = circuit_params(id);
        std::error_code ec;
        const fs::path path = cfg_.params_dir / c->files.params;
        if (loaded_files.count(c->files.params) || !fs::is_regular_file(path, ec)) continue;
        auto* s = r.add_loaded_srs();
        s->set_circuit_id(id);
        s->set_tier(v1::SRSStatus::COLD);
        s->set_size_bytes(fs::file_size(path, ec));
    }
    r.set_pinned_memory_bytes(pinned);
    r.set_pinned_memory_limit_bytes(ks.budget);
}

}  // namespace cuzk::daemon
