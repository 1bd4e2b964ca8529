#include "cuzk/circuits/catalog.hpp"

#include <array>
#include <future>
#include <list>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "cuzk/circuits/builtin.hpp"
#include "cuzk/filecoin/c1.hpp"
#include "cuzk/filecoin/c1_gen.hpp"
#include "cuzk/filecoin/porep_circuit.hpp"
#include "cuzk/util/random.hpp"

namespace cuzk::circuits {

namespace {

using filecoin::RegisteredSealProof;

constexpr std::array<std::pair<const char*, RegisteredSealProof>, 5> kAliases = {{
    {"porep-2k", RegisteredSealProof::StackedDrg2KiBV1_1},
    {"porep-8m", RegisteredSealProof::StackedDrg8MiBV1_1},
    {"porep-512m", RegisteredSealProof::StackedDrg512MiBV1_1},
    {"porep-32g", RegisteredSealProof::StackedDrg32GiBV1_1},
    {"porep-64g", RegisteredSealProof::StackedDrg64GiBV1_1},
}};

const char* kUnknown = "cubic, mulchain, porep-2k, porep-8m, porep-512m, porep-32g, porep-64g or an interactive "
                       "registered seal proof such as StackedDrg32GiBV1_1";

RegisteredSealProof porep_proof_or_throw(const std::string& name) {
    if (auto p = porep_circuit_proof(name)) return *p;
    throw std::invalid_argument("unknown circuit '" + name + "' (" + kUnknown + ")");
}

// The C2 jobs (every partition's witness and the verifier's public inputs) of the last sectors generated, by
// (proof, seed): make_circuit is called once per partition, and a 32 GiB C1 takes ~2 s to generate and validate.
// At most kMaxJobs are kept, the least recently used dropped first; a job being generated is shared as a future,
// so concurrent callers (the engine's synthesis workers) wait for one generation instead of each making their own.
class PorepJobCache {
public:
    using JobPtr = std::shared_ptr<const filecoin::PorepC2Job>;

    JobPtr get(RegisteredSealProof proof, uint64_t seed) {
        const Key key{proof, seed};
        bool made_here = false;
        std::promise<JobPtr> promise;
        std::shared_future<JobPtr> future;
        {
            std::lock_guard<std::mutex> lk(mu_);
            for (auto it = entries_.begin(); it != entries_.end(); ++it)
                if (it->first == key) {
                    entries_.splice(entries_.begin(), entries_, it);  // most recently used first
                    future = it->second;
                    break;
                }
            if (!future.valid()) {
                future = promise.get_future().share();
                entries_.emplace_front(key, future);
                while (entries_.size() > kMaxJobs) entries_.pop_back();
                made_here = true;
            }
        }
        if (!made_here) return future.get();  // outside the lock: it may still be being generated
        try {
            const filecoin::GeneratedC1 g = filecoin::generate_c1_sector(proof, seed);
            promise.set_value(std::make_shared<const filecoin::PorepC2Job>(filecoin::porep_c2_job(g.c1)));
        } catch (...) {
            promise.set_exception(std::current_exception());
            std::lock_guard<std::mutex> lk(mu_);  // not kept: a later call tries again
            for (auto it = entries_.begin(); it != entries_.end(); ++it)
                if (it->first == key) {
                    entries_.erase(it);
                    break;
                }
        }
        return future.get();
    }

private:
    static constexpr size_t kMaxJobs = 2;
    using Key = std::pair<RegisteredSealProof, uint64_t>;
    std::mutex mu_;
    std::list<std::pair<Key, std::shared_future<JobPtr>>> entries_;
};

PorepJobCache& porep_jobs() {
    static PorepJobCache cache;
    return cache;
}

}  // namespace

std::optional<filecoin::RegisteredSealProof> porep_circuit_proof(const std::string& name) {
    for (const auto& [alias, proof] : kAliases)
        if (name == alias) return proof;
    if (name.rfind("StackedDrg", 0) != 0) return std::nullopt;
    try {
        const RegisteredSealProof p = filecoin::seal_proof_from_name(name);
        if (filecoin::api_feature(p)) return std::nullopt;  // synthetic and non-interactive: no generated C1
        return p;
    } catch (const filecoin::FilecoinError&) {
        return std::nullopt;
    }
}

bool is_porep_circuit(const std::string& name) { return porep_circuit_proof(name).has_value(); }

const std::vector<std::string>& porep_circuit_aliases() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (const auto& a : kAliases) v.push_back(a.first);
        return v;
    }();
    return names;
}

size_t porep_circuit_partitions(const std::string& name) {
    return filecoin::partitions(porep_proof_or_throw(name));
}

std::unique_ptr<r1cs::Circuit> make_circuit(const CircuitSpec& c, bool witness, size_t i, std::vector<Fr>* publics) {
    if (c.name == "cubic") {
        if (!witness) return std::make_unique<CubicCircuit>();
        Fr x;
        if (!c.x.empty()) {
            auto v = Fr::from_decimal(c.x);
            if (!v) throw std::invalid_argument("cubic: x must be a decimal number below r");
            x = *v + Fr::from_u64(i);
        } else {
            OsRng rng;
            x = Fr::random(rng);
        }
        if (publics) *publics = {CubicCircuit::output_for(x)};
        return std::make_unique<CubicCircuit>(x);
    }
    if (c.name == "mulchain") {
        if (!witness) return std::make_unique<MulChainCircuit>(c.log_size, c.publics, std::nullopt);
        uint64_t seed = c.witness_seed.has_value() ? *c.witness_seed + i : OsRng()();
        auto m = std::make_unique<MulChainCircuit>(c.log_size, c.publics, seed);
        if (publics) *publics = m->public_values();
        return m;
    }
    const RegisteredSealProof proof = porep_proof_or_throw(c.name);
    if (!witness)
        return std::make_unique<filecoin::StackedPorepCircuit>(filecoin::blank_stacked_porep_partition(
            filecoin::StackedPorepShape::of(filecoin::PorepConfig::from_registered(proof))));
    static const uint64_t process_seed = OsRng()();  // one sector per P proofs of this process without a seed
    const size_t partitions = filecoin::partitions(proof);
    const uint64_t seed = (c.witness_seed.has_value() ? *c.witness_seed : process_seed) + i / partitions;
    const auto job = porep_jobs().get(proof, seed);
    const size_t k = i % partitions;
    if (publics) *publics = job->public_inputs.at(k);
    return std::make_unique<filecoin::StackedPorepCircuit>(job->partitions.at(k));
}

std::vector<std::string> circuit_names() {
    std::vector<std::string> v = {"cubic", "mulchain"};
    for (const auto& a : kAliases) v.push_back(a.first);
    return v;
}

bool is_circuit_name(const std::string& name) { return name == "cubic" || name == "mulchain" || is_porep_circuit(name); }

std::string circuit_shape_name(const CircuitSpec& c) {
    if (c.name == "mulchain")
        return "mulchain log_size=" + std::to_string(c.log_size) + " publics=" + std::to_string(c.publics);
    if (auto p = porep_circuit_proof(c.name)) return std::string(filecoin::proof_name(*p)) + " partition";
    return c.name;
}

size_t circuit_constraints(const CircuitSpec& c) {
    if (c.name == "cubic") return 5;
    if (c.name == "mulchain") {
        if (c.log_size < 2 || c.log_size > 30) throw std::invalid_argument("mul chain: log_size must be in [2, 30]");
        return size_t{1} << c.log_size;
    }
    const RegisteredSealProof proof = porep_proof_or_throw(c.name);
    static std::mutex mu;
    static std::map<RegisteredSealProof, size_t> counted;
    {
        std::lock_guard<std::mutex> lk(mu);
        if (auto it = counted.find(proof); it != counted.end()) return it->second;
    }
    const auto info = filecoin::porep_circuit_info(filecoin::PorepConfig::from_registered(proof));
    const size_t rows = (size_t)(info.constraints + info.inputs);  // bellperson appends one row per input
    std::lock_guard<std::mutex> lk(mu);
    counted[proof] = rows;
    return rows;
}

const std::vector<JobKind>& job_kinds() {
    static const std::vector<JobKind> kinds = {
        {"porep-c2", "porep-2k", 0, 1,
         "PoRep C2: every partition of one sector (Filecoin's PoRep partition circuit on generated C1 data)"},
        {"window-post", "porep-2k", 1, 2,
         "WindowPoSt's priority (HIGH) and one partition; until issue 18 it proves the PoRep partition circuit"},
        {"winning-post", "porep-2k", 1, 3,
         "WinningPoSt's priority (CRITICAL) and one partition; until issue 18 it proves the PoRep partition circuit"},
        {"snap-update", "porep-2k", 0, 1,
         "SnapDeals update's priority (NORMAL), every partition; until issue 18 it proves the PoRep partition circuit"},
    };
    return kinds;
}

const JobKind* find_job_kind(const std::string& name) {
    for (const auto& k : job_kinds())
        if (name == k.name) return &k;
    return nullptr;
}

}  // namespace cuzk::circuits
