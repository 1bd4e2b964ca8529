#include "cuzk/engine/key_store.hpp"

#include <cstdio>
#include <future>
#include <stdexcept>
#include <string_view>

#include "cuzk/engine/engine.hpp"
#include "cuzk/formats/iden3_circom.hpp"
#include "cuzk/groth16/prover.hpp"

namespace cuzk::engine {

namespace {
// Parameters in memory are named "memory:<name>" (adopt); a file by its canonical path.
constexpr std::string_view kMemoryPrefix = "memory:";
std::string key_of(const std::filesystem::path& path) {
    const std::string s = path.string();
    if (s.rfind(kMemoryPrefix, 0) == 0) return s;
    return std::filesystem::weakly_canonical(path).string();
}

// A file's in-memory size before it is read: affine points take a little more than their encodings (G1 96 -> 104
// bytes, G2 192 -> 200), so a margin of 1/8 covers it.
size_t estimate(const std::filesystem::path& path) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    return ec ? 0 : (size_t)size + (size_t)size / 8;
}

std::string bytes_text(size_t bytes) { return std::to_string(bytes) + " bytes"; }
std::string gb_text(size_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GB", (double)bytes / 1e9);
    return buf;
}

// A key file's parameters (a .zkey's with its header and coefficients, the points moved into the parameters).
struct KeyFile {
    groth16::Parameters params;
    std::shared_ptr<formats::iden3::Zkey> zkey;
};
KeyFile read_key_file(const std::filesystem::path& path, bool check_subgroup,
                      const formats::SubgroupChecks& device_checks) {
    KeyFile f;
    if (path.extension() == ".zkey") {
        f.zkey = std::make_shared<formats::iden3::Zkey>(
            formats::iden3::read_zkey(path, {.check_subgroup = check_subgroup}));
        f.params = formats::iden3::zkey_to_parameters(std::move(*f.zkey));
    } else {
        formats::ParamsReadOptions opt;
        opt.check_subgroup = check_subgroup;
        opt.device_checks = device_checks;
        f.params = formats::read_parameters(path, opt).params;
    }
    return f;
}

// The CPU prover of a key whose host points were released: each call reads the file again (checked as at the
// first load, and refused if its shape changed meanwhile), proves, and frees the points. The fallback behind a
// key's devices, needed rarely; the time to read is the price of not keeping ~45 GB (32 GiB PoRep) in host memory.
class RereadingCpuBackend : public groth16::ProverBackend {
public:
    RereadingCpuBackend(std::filesystem::path path, groth16::KeyShape shape, bool check_subgroup,
                        formats::SubgroupChecks device_checks)
        : path_(std::move(path)),
          shape_(std::move(shape)),
          check_subgroup_(check_subgroup),
          device_checks_(std::move(device_checks)) {}
    std::vector<groth16::Proof> prove(std::span<r1cs::ProvingAssignment> assignments, std::span<const Fr> r,
                                      std::span<const Fr> s, TimingSink* timing) override {
        const groth16::Parameters params = [&] {
            ScopedTiming t(timing, TimingLayer::Prover, "params.reread");
            return read_key_file(path_, check_subgroup_, device_checks_).params;
        }();
        if (!(groth16::KeyShape::of(params) == shape_))
            throw std::runtime_error("key store: " + path_.string() +
                                     " changed since it was loaded (another verifying key or query sizes); evict the "
                                     "key to load the new file");
        return groth16::prove_from_assignments(params, assignments, r, s, timing);
    }
    std::string name() const override { return "cpu"; }
    std::string lane() const override { return "cpu"; }
    // The points it reads, and CpuBackend's vector over the domain.
    size_t working_bytes() const override {
        return ProvingKeyStore::resident_bytes(shape_) + (shape_.h + 1) * sizeof(Fr);
    }
    bool needs_host_points() const override { return false; }

private:
    std::filesystem::path path_;
    groth16::KeyShape shape_;
    bool check_subgroup_;
    formats::SubgroupChecks device_checks_;
};

bool is_memory_key(const std::string& key) { return key.rfind(kMemoryPrefix, 0) == 0; }
}  // namespace

struct ProvingKeyStore::Entry {
    std::shared_ptr<ProvingKey> key;  // null while loading
    bool loading = true;
    size_t bytes = 0;  // host: the key, or the estimate while loading
    std::map<std::string, size_t> device_bytes;
    uint64_t last_use = 0;
    std::mutex matrices_mu;
    std::map<std::string, std::shared_future<std::shared_ptr<const r1cs::PrecompiledR1cs>>> matrices;
    // The devices' holds on those matrices (hold_on_devices; under matrices_mu). Declared after them: released
    // first, as a hold must not outlive its matrices.
    std::vector<std::shared_ptr<const void>> device_holds;

    // Idle: loaded, and no job holds the key or any of its matrices.
    bool idle() {
        if (loading || key.use_count() > 1) return false;
        std::lock_guard<std::mutex> lk(matrices_mu);
        for (auto& [name, f] : matrices)
            if (f.wait_for(std::chrono::seconds(0)) != std::future_status::ready ||
                (f.valid() && f.get().use_count() > 1))
                return false;
        return true;
    }
};

groth16::ProverBackend* ProvingKey::backend() const {
    return devices.empty() ? cpu.get() : devices.front().backend.get();
}

std::vector<groth16::ProverBackend*> ProvingKey::backends() const {
    std::vector<groth16::ProverBackend*> v;
    for (const auto& d : devices) v.push_back(d.backend.get());
    if (v.empty()) v.push_back(cpu.get());
    return v;
}

groth16::ProverBackend* ProvingKey::fallback() const { return devices.empty() ? nullptr : cpu.get(); }

size_t ProvingKey::partition_bytes() const {
    const size_t domain = shape.h + 1, inputs = shape.vk.ic.size(), aux = shape.l;
    return (3 * domain + inputs + aux) * sizeof(Fr);
}

ProvingKeyStore::ProvingKeyStore(const KeyStoreConfig& cfg) : cfg_(cfg) {
    if (cfg_.budget_bytes == 0) cfg_.budget_bytes = auto_memory_budget();
}

size_t ProvingKeyStore::resident_bytes(const groth16::Parameters& p) {
    return resident_bytes(groth16::KeyShape::of(p));
}

size_t ProvingKeyStore::resident_bytes(const groth16::KeyShape& k) {
    return (k.h + k.l + k.a + k.b_g1 + k.vk.ic.size()) * sizeof(G1Affine) + k.b_g2 * sizeof(G2Affine) +
           sizeof(groth16::Parameters);
}

size_t ProvingKeyStore::matrices_bytes(const r1cs::PrecompiledR1cs& m) {
    size_t bytes = m.coeffs.size() * sizeof(Fr) + (m.num_inputs + 2 * m.num_aux) / 8;  // the densities' bits
    for (const auto* x : {&m.a, &m.b, &m.c})
        bytes += x->row_start.size() * sizeof(uint64_t) + x->terms.size() * sizeof(r1cs::CompactTerm);
    return bytes;
}

bool ProvingKeyStore::fits(size_t host, const std::map<std::string, size_t>& devices) const {
    if (bytes_ + host > cfg_.budget_bytes) return false;
    for (const auto& [dev, need] : devices) {
        auto budget = cfg_.device_budget_bytes.find(dev);
        if (budget == cfg_.device_budget_bytes.end()) continue;
        auto used = device_bytes_.find(dev);
        if ((used == device_bytes_.end() ? 0 : used->second) + need > budget->second) return false;
    }
    return true;
}

void ProvingKeyStore::reserve_devices(Entry& e, const std::map<std::string, size_t>& bytes) {
    for (const auto& [dev, b] : e.device_bytes) device_bytes_[dev] -= b;
    e.device_bytes = bytes;
    for (const auto& [dev, b] : e.device_bytes) device_bytes_[dev] += b;
}

void ProvingKeyStore::add_device_bytes(Entry& e, const std::string& device, int64_t delta) {
    e.device_bytes[device] += (size_t)delta;
    device_bytes_[device] += (size_t)delta;
}

void ProvingKeyStore::drop(const std::string& key) {
    auto it = entries_.find(key);
    bytes_ -= it->second->bytes;
    for (const auto& [dev, b] : it->second->device_bytes) device_bytes_[dev] -= b;
    entries_.erase(it);
}

bool ProvingKeyStore::make_room(size_t host, const std::map<std::string, size_t>& devices, const Entry* keep) {
    while (!fits(host, devices)) {
        std::string victim;
        uint64_t oldest = UINT64_MAX;
        for (const auto& [k, e] : entries_)
            if (e.get() != keep && e->idle() && e->last_use < oldest) oldest = e->last_use, victim = k;
        if (victim.empty()) return false;
        drop(victim);
        counters_.evictions++;
    }
    return true;
}

std::shared_ptr<ProvingKey> ProvingKeyStore::load(const std::filesystem::path& path, const std::string& key,
                                                  Entry& entry) {
    if (cfg_.stream_device_copies && path.extension() != ".zkey")
        if (auto k = load_streamed(path, key, entry)) return k;
    auto k = std::make_shared<ProvingKey>();
    k->path = key;
    KeyFile f = read_key_file(path, cfg_.check_subgroup, cfg_.device_checks);
    k->params = std::make_shared<const groth16::Parameters>(std::move(f.params));
    k->zkey = std::move(f.zkey);  // the header and coefficients stay
    k->shape = groth16::KeyShape::of(*k->params);
    k->host_bytes = resident_bytes(*k->params);
    attach_backends(*k, entry);
    return k;
}

std::shared_ptr<ProvingKey> ProvingKeyStore::load_streamed(const std::filesystem::path& path, const std::string& key,
                                                           Entry& entry) {
    formats::ParamsReadOptions opt;
    opt.check_subgroup = cfg_.check_subgroup;
    opt.device_checks = cfg_.device_checks;
    const formats::ParamsFileSource src(path, opt);  // the layout, the verifying key and ic (checked)
    DevicePlan plan = plan_devices(src.shape());
    // No device holds the key whole: streamed copies where their buffers fit, when there is a maker for them.
    const std::string too_small = plan.too_small;
    const std::optional<DevicePlan> streamed = too_small.empty() ? std::nullopt : plan_streamed(src.shape());
    if (streamed) plan = *streamed;
    if (!reserve_device_room(plan, entry)) return nullptr;  // no room: read for the CPU
    auto k = std::make_shared<ProvingKey>();
    k->path = key;
    k->shape = src.shape();
    k->devices_left_out = plan.left_out;
    if (streamed) {
        std::vector<std::string> devices;
        for (const auto& [dev, bytes] : plan.need) devices.push_back(dev);
        k->devices = cfg_.streamed_copies(src, cfg_.check_subgroup, devices);
        k->streamed = true;
        k->devices_too_small = too_small;
    } else {
        k->devices = cfg_.stream_device_copies(src, cfg_.check_subgroup, plan.only());
    }
    src.verify_unchanged();
    if (k->devices.empty()) throw std::logic_error("key store: streamed " + key + " onto no device");
    for (const auto& d : k->devices)
        if (d.backend->needs_host_points())
            throw std::logic_error("key store: a streamed device copy of " + key + " needs host points");
    if (cfg_.cpu_fallback)
        k->cpu = std::make_unique<RereadingCpuBackend>(k->path, k->shape, cfg_.check_subgroup, cfg_.device_checks);
    k->host_bytes = resident_bytes(groth16::KeyShape{k->shape.vk});  // the verifying key, and streamed queries
    for (const auto& d : k->devices) k->host_bytes += d.host_bytes;
    return k;
}

std::shared_ptr<const ProvingKey> ProvingKeyStore::get(const std::filesystem::path& path) {
    const std::string key = key_of(path);
    return obtain(key, estimate(path), [&](Entry& entry) { return load(path, key, entry); });
}

std::shared_ptr<const ProvingKey> ProvingKeyStore::adopt(const std::string& name,
                                                         std::shared_ptr<const groth16::Parameters> params) {
    if (!params) throw std::invalid_argument("key store: adopt " + name + " without parameters");
    const std::string key = std::string(kMemoryPrefix) + name;
    return obtain(key, resident_bytes(*params), [&](Entry& entry) {
        auto k = std::make_shared<ProvingKey>();
        k->path = key;
        k->params = params;
        k->shape = groth16::KeyShape::of(*params);
        k->host_bytes = resident_bytes(*params);
        attach_backends(*k, entry);
        return k;
    });
}

std::shared_ptr<const ProvingKey> ProvingKeyStore::obtain(const std::string& key, size_t guess,
                                                          const std::function<std::shared_ptr<ProvingKey>(Entry&)>& read) {
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
        auto it = entries_.find(key);
        if (it == entries_.end()) break;
        if (it->second->loading) {
            loaded_cv_.wait(lk);
            continue;  // loaded, or failed and removed: look again
        }
        const ProvingKey& held = *it->second->key;
        if (held.without_devices && held.devices_too_small.empty() && it->second->idle()) {
            drop(key);  // loaded for the CPU while the devices were full: try the devices again
            break;
        }
        counters_.hits++;
        it->second->last_use = ++clock_;
        return it->second->key;
    }
    counters_.misses++;
    if (!make_room(guess, {}))
        throw std::runtime_error("key store: " + key + " needs about " + bytes_text(guess) + " of host memory; the budget is " +
                                 bytes_text(cfg_.budget_bytes) + " and " + bytes_text(bytes_) + " are held by keys in use");
    auto entry = std::make_shared<Entry>();
    entry->bytes = guess;
    entries_[key] = entry;
    bytes_ += guess;
    lk.unlock();

    std::shared_ptr<ProvingKey> k;
    try {
        k = read(*entry);
    } catch (...) {
        lk.lock();
        drop(key);
        loaded_cv_.notify_all();
        throw;
    }
    lk.lock();
    bytes_ -= entry->bytes;
    entry->bytes = k->host_bytes;
    bytes_ += entry->bytes;
    std::map<std::string, size_t> held;
    for (const auto& d : k->devices) held[d.device] += d.bytes;
    reserve_devices(*entry, held);
    entry->key = k;
    entry->loading = false;
    entry->last_use = ++clock_;
    make_room(0, {});  // the exact sizes may exceed the estimates: drop idle keys if that went over a budget
    loaded_cv_.notify_all();
    return k;
}

ProvingKeyStore::DevicePlan ProvingKeyStore::plan_devices(const groth16::KeyShape& shape) const {
    return plan_devices(cfg_.device_bytes ? cfg_.device_bytes(shape) : std::map<std::string, size_t>{});
}

std::optional<ProvingKeyStore::DevicePlan> ProvingKeyStore::plan_streamed(const groth16::KeyShape& shape) const {
    if (!cfg_.streamed_copies) return std::nullopt;
    std::map<std::string, size_t> need = cfg_.streamed_device_bytes ? cfg_.streamed_device_bytes(shape)
                                                                      : std::map<std::string, size_t>{};
    if (cfg_.device_bytes)  // every device a whole copy was planned for, nothing where no size is given
        for (const auto& [dev, bytes] : cfg_.device_bytes(shape)) need.emplace(dev, 0);
    DevicePlan plan = plan_devices(need);
    if (!plan.too_small.empty()) return std::nullopt;  // not even the buffers fit: the CPU
    return plan;
}

ProvingKeyStore::DevicePlan ProvingKeyStore::plan_devices(const std::map<std::string, size_t>& need) const {
    DevicePlan plan;
    std::string why;  // the devices too small, each with its sizes
    for (const auto& [dev, bytes] : need) {
        auto budget = cfg_.device_budget_bytes.find(dev);
        if (budget == cfg_.device_budget_bytes.end() || bytes <= budget->second) {
            plan.need[dev] = bytes;
            continue;
        }
        why += std::string(why.empty() ? "" : "; ") + "its copy needs " + gb_text(bytes) + " on " + dev +
               ", whose budget for keys is " + gb_text(budget->second);
    }
    if (why.empty()) return plan;
    if (plan.need.empty()) plan.too_small = why;
    else plan.left_out = why;
    return plan;
}

std::vector<std::string> ProvingKeyStore::DevicePlan::only() const {
    std::vector<std::string> devices;
    if (!left_out.empty())
        for (const auto& [dev, bytes] : need) devices.push_back(dev);
    return devices;
}

bool ProvingKeyStore::reserve_device_room(const DevicePlan& plan, Entry& entry) {
    // Room on the devices, reserved at the estimate until the copies say what they hold; without it (the keys that
    // jobs hold fill a device) the key proves on the CPU until it is idle and asked for again. A copy no device
    // could ever hold evicts nothing, and a device too small for it is not asked for room.
    if (!plan.too_small.empty()) return false;
    std::lock_guard<std::mutex> lk(mu_);
    if (!make_room(0, plan.need, &entry)) return false;
    reserve_devices(entry, plan.need);
    return true;
}

void ProvingKeyStore::attach_backends(ProvingKey& k, Entry& entry) {
    if (cfg_.make_device_copies) {
        const DevicePlan plan = plan_devices(k.shape);
        k.devices_too_small = plan.too_small;
        if (reserve_device_room(plan, entry)) {
            k.devices_left_out = plan.left_out;
            k.devices = cfg_.make_device_copies(*k.params, plan.only());
        } else {
            k.without_devices = true;
        }
    }
    // Every device holds the points and no backend reads the host's: a file's key lets them go (top of the header).
    bool release = !k.devices.empty() && !is_memory_key(k.path);
    for (const auto& d : k.devices) release = release && !d.backend->needs_host_points();
    if (k.devices.empty() || cfg_.cpu_fallback) {
        if (release)
            k.cpu = std::make_unique<RereadingCpuBackend>(k.path, k.shape, cfg_.check_subgroup, cfg_.device_checks);
        else
            k.cpu = std::make_unique<groth16::CpuBackend>(*k.params);
    }
    if (release) {
        k.params.reset();
        k.host_bytes = resident_bytes(groth16::KeyShape{k.shape.vk});  // the verifying key alone
    }
}

std::shared_ptr<const r1cs::PrecompiledR1cs> ProvingKeyStore::matrices(
    const ProvingKey& key, const std::string& name, const std::function<r1cs::PrecompiledR1cs()>& make) {
    std::shared_ptr<Entry> entry;
    {
        std::lock_guard<std::mutex> lk(mu_);
        auto it = entries_.find(key.path);
        if (it == entries_.end() || it->second->key.get() != &key)
            throw std::logic_error("key store: matrices of a key that is not loaded (" + key.path + ")");
        entry = it->second;
    }
    std::promise<std::shared_ptr<const r1cs::PrecompiledR1cs>> mine;
    std::shared_future<std::shared_ptr<const r1cs::PrecompiledR1cs>> f;
    {
        std::lock_guard<std::mutex> lk(entry->matrices_mu);
        auto it = entry->matrices.find(name);
        if (it != entry->matrices.end()) return it->second.get();  // made, or being made (its error rethrown)
        f = mine.get_future().share();
        entry->matrices[name] = f;
    }
    try {
        auto m = std::make_shared<const r1cs::PrecompiledR1cs>(make());
        const size_t bytes = matrices_bytes(*m);
        {
            std::lock_guard<std::mutex> lk(mu_);
            if (!make_room(bytes, {}, entry.get()))
                throw std::runtime_error("key store: the matrices " + name + " of " + key.path + " need " +
                                         bytes_text(bytes) + "; the budget is " + bytes_text(cfg_.budget_bytes) + " and " +
                                         bytes_text(bytes_) + " are held by keys in use");
            entry->bytes += bytes;
            bytes_ += bytes;
        }
        hold_on_devices(key, *m, *entry);  // before the future is ready: the entry cannot be idle meanwhile
        mine.set_value(m);
        return m;
    } catch (...) {
        {
            std::lock_guard<std::mutex> lk(entry->matrices_mu);
            entry->matrices.erase(name);
        }
        mine.set_exception(std::current_exception());
        throw;
    }
}

void ProvingKeyStore::hold_on_devices(const ProvingKey& key, const r1cs::PrecompiledR1cs& m, Entry& entry) {
    if (!cfg_.keep_device_products) return;
    for (const auto& d : key.devices) {
        const size_t bytes = d.backend->products_device_bytes(m);
        if (bytes == 0) continue;
        {
            std::lock_guard<std::mutex> lk(mu_);
            if (!make_room(0, {{d.device, bytes}}, &entry)) continue;  // jobs will hold them for themselves
            add_device_bytes(entry, d.device, (int64_t)bytes);           // reserved while the copy is made
        }
        auto hold = d.backend->hold_products(m);  // nullptr: no room on the device itself
        if (hold) {
            std::lock_guard<std::mutex> lk(entry.matrices_mu);
            entry.device_holds.push_back(std::move(hold));
        } else {
            std::lock_guard<std::mutex> lk(mu_);
            add_device_bytes(entry, d.device, -(int64_t)bytes);
        }
    }
}

bool ProvingKeyStore::evict(const std::filesystem::path& path) {
    std::lock_guard<std::mutex> lk(mu_);
    auto it = entries_.find(key_of(path));
    if (it == entries_.end() || !it->second->idle()) return false;
    drop(it->first);
    counters_.evictions++;
    return true;
}

ProvingKeyStore::Stats ProvingKeyStore::stats() const {
    std::lock_guard<std::mutex> lk(mu_);
    Stats s = counters_;
    s.entries = entries_.size();
    s.bytes = bytes_;
    s.budget = cfg_.budget_bytes;
    s.device_bytes = device_bytes_;
    return s;
}

std::vector<std::shared_ptr<const ProvingKey>> ProvingKeyStore::loaded() const {
    std::lock_guard<std::mutex> lk(mu_);
    std::vector<std::shared_ptr<const ProvingKey>> v;
    for (const auto& [k, e] : entries_)
        if (!e->loading) v.push_back(e->key);
    return v;
}

}  // namespace cuzk::engine
