#include "cuzk/circuits/catalog.hpp"

#include <stdexcept>

#include "cuzk/circuits/builtin.hpp"
#include "cuzk/circuits/porep.hpp"
#include "cuzk/util/random.hpp"

namespace cuzk::circuits {

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
    if (is_porep_preset(c.name)) {
        PorepParams params = porep_preset(c.name);
        if (!witness) return std::make_unique<PorepCircuit>(params);
        static const uint64_t process_seed = OsRng()();  // one replica per P proofs of this process without a seed
        uint64_t seed = (c.witness_seed.has_value() ? *c.witness_seed : process_seed) + i / params.partitions;
        PorepReplica replica(params, seed);
        auto circuit = std::make_unique<PorepCircuit>(porep_partition_circuit(replica, i % params.partitions));
        if (publics) *publics = circuit->public_inputs()->field_elements();
        return circuit;
    }
    throw std::invalid_argument("unknown circuit '" + c.name + "' (cubic, mulchain, porep presets)");
}

std::vector<std::string> circuit_names() {
    std::vector<std::string> v = {"cubic", "mulchain"};
    for (const auto& p : porep_preset_names()) v.push_back(p);
    return v;
}

bool is_circuit_name(const std::string& name) { return name == "cubic" || name == "mulchain" || is_porep_preset(name); }

std::string circuit_shape_name(const CircuitSpec& c) {
    if (c.name == "mulchain")
        return "mulchain log_size=" + std::to_string(c.log_size) + " publics=" + std::to_string(c.publics);
    return c.name;
}

size_t circuit_constraints(const CircuitSpec& c) {
    if (c.name == "cubic") return 5;
    if (c.name == "mulchain") {
        if (c.log_size < 2 || c.log_size > 30) throw std::invalid_argument("mul chain: log_size must be in [2, 30]");
        return size_t{1} << c.log_size;
    }
    if (is_porep_preset(c.name)) return porep_constraint_count(porep_preset(c.name)).total();
    throw std::invalid_argument("unknown circuit '" + c.name + "' (cubic, mulchain, porep presets)");
}

const std::vector<JobKind>& job_kinds() {
    static const std::vector<JobKind> kinds = {
        {"porep-c2", "porep-128k", 0, 1, "PoRep C2: every partition of one replica"},
        {"window-post", "porep-128k", 1, 2, "WindowPoSt: one partition"},
        {"winning-post", "porep-128k", 1, 3, "WinningPoSt: one partition, CRITICAL"},
        {"snap-update", "porep-128k", 0, 1, "SnapDeals update: every partition of one replica"},
    };
    return kinds;
}

const JobKind* find_job_kind(const std::string& name) {
    for (const auto& k : job_kinds())
        if (name == k.name) return &k;
    return nullptr;
}

}  // namespace cuzk::circuits
