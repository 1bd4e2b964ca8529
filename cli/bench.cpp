// `cuzk bench`: the CPU benchmarks as one JSON object per line (name, size, threads, median and samples), so
// scripts can collect them. Google Benchmark programs in bench/ measure the same things with more statistics.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "commands.hpp"
#include "cuzk/circuits/porep.hpp"
#include "cuzk/ec/g1.hpp"
#include "cuzk/ec/g2.hpp"
#include "cuzk/ec/random_points.hpp"
#include "cuzk/ff/fq.hpp"
#include "cuzk/ff/fr.hpp"
#include "cuzk/groth16/prover.hpp"
#include "cuzk/groth16/setup.hpp"
#include "cuzk/groth16/verifier.hpp"
#include "cuzk/msm/msm.hpp"
#include "cuzk/pairing/pairing.hpp"
#include "cuzk/poly/domain.hpp"
#include "cuzk/poly/ntt.hpp"
#include "cuzk/util/thread_pool.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::cli {

namespace {

using clock_type = std::chrono::steady_clock;

std::string cpu_model() {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) {
            auto p = line.find(':');
            if (p != std::string::npos) return line.substr(p + 2);
        }
    return "unknown";
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Runs fn once untimed (warm-up: caches, twiddle tables, page faults), then `reps` timed runs; returns seconds.
std::vector<double> measure(int reps, const std::function<void()>& fn) {
    fn();
    std::vector<double> out;
    for (int i = 0; i < reps; i++) {
        auto t0 = clock_type::now();
        fn();
        out.push_back(std::chrono::duration<double>(clock_type::now() - t0).count());
    }
    return out;
}

void report(const std::string& name, int log_size, double unit_scale, const char* unit, size_t ops_per_run,
            const std::vector<double>& seconds) {
    nlohmann::json j;
    j["bench"] = name;
    if (log_size >= 0) j["log_size"] = log_size;
    j["threads"] = num_threads();
    std::vector<double> per_op;
    for (double s : seconds) per_op.push_back(s * unit_scale / (double)ops_per_run);
    j[std::string("median_") + unit] = median(per_op);
    j[std::string("samples_") + unit] = per_op;
    j["cpu"] = cpu_model();
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
}

template <class F>
void bench_field_mul(const std::string& name, int reps) {
    std::mt19937_64 rng(1);
    F a = F::random(rng), b = F::random(rng);
    constexpr size_t kOps = 1'000'000;
    auto s = measure(reps, [&] {
        for (size_t i = 0; i < kOps; i++) a = a * b;  // dependent chain: latency, as blst's anchor
    });
    if (a.is_zero()) std::printf("#\n");  // keeps the chain observable
    report(name, -1, 1e9, "ns", kOps, s);
}

void bench_g1_add(int reps) {
    std::mt19937_64 rng(2);
    auto g = G1Jacobian::generator();
    G1Affine q = g.mul(Fr::random(rng).to_canonical()).to_affine();
    G1XYZZ acc = G1XYZZ::from_affine(g.mul(Fr::random(rng).to_canonical()).to_affine());
    constexpr size_t kOps = 100'000;
    auto s = measure(reps, [&] {
        for (size_t i = 0; i < kOps; i++) acc = acc.add_mixed(q);
    });
    if (acc.is_identity()) std::printf("#\n");
    report("g1-mixed-add", -1, 1e9, "ns", kOps, s);
}

void bench_pairing(int reps) {
    std::mt19937_64 rng(3);
    G1Affine p = G1Jacobian::generator().mul(Fr::random(rng).to_canonical()).to_affine();
    G2Affine q = G2Jacobian::generator().mul(Fr::random(rng).to_canonical()).to_affine();
    constexpr size_t kOps = 50;
    Fq12 acc;
    auto s = measure(reps, [&] {
        for (size_t i = 0; i < kOps; i++) acc = pairing(p, q);
    });
    if (acc.is_one()) std::printf("#\n");
    report("pairing", -1, 1e3, "ms", kOps, s);
}

void bench_ntt(int log_size, int reps) {
    auto domain = EvaluationDomain::from_log_size((unsigned)log_size);
    auto v = random_scalars<Fr>(domain.size(), 4);
    auto s = measure(reps, [&] { ntt(domain, v); });
    report("ntt", log_size, 1e3, "ms", 1, s);
}

template <class Cfg>
void bench_msm(const std::string& name, int log_size, int reps) {
    size_t n = size_t{1} << log_size;
    auto bases = random_points<Cfg>(n, 5);
    auto scalars = random_scalars<Fr>(n, 6);
    Jacobian<Cfg> r;
    auto s = measure(reps, [&] { r = msm<Cfg>(bases, scalars); });
    if (r.is_identity()) std::printf("#\n");
    report(name, log_size, 1e3, "ms", 1, s);
}

// `bench groth16 --circuit PRESET`: setup once from the circuit without data (deterministic toxic waste), then `reps`
// proofs, proof r of partition r mod P of the replica with seed 1000 + r (so every rep proves new generator data,
// and a preset with several partitions has each proved in turn); each proof is verified. Reports the median proof
// time and the median of each prover stage, as the mulchain benchmark does (run_bench_groth16).
int bench_groth16_porep(const std::string& name, int reps) {
    const circuits::PorepParams params = circuits::porep_preset(name);
    const uint64_t constraints = circuits::porep_constraint_count(params).total();
    auto t0 = clock_type::now();
    TimingSink setup_sink;
    auto groth_params = groth16::generate_parameters(circuits::PorepCircuit(params), groth16::ToxicWaste::from_seed(1),
                                                     &setup_sink);
    const double setup_s = std::chrono::duration<double>(clock_type::now() - t0).count();
    auto pvk = groth16::prepare_verifying_key(groth_params.vk);
    std::map<std::string, std::vector<double>> stages;
    std::vector<double> prove_s, verify_s;
    for (int rep = 0; rep < reps; rep++) {
        circuits::PorepReplica replica(params, 1000 + (uint64_t)rep / params.partitions);
        circuits::PorepCircuit circuit = circuits::porep_partition_circuit(replica, (size_t)rep % params.partitions);
        std::vector<Fr> pub = circuit.public_inputs()->field_elements();
        const r1cs::Circuit* ptr = &circuit;
        TimingSink sink;
        auto p0 = clock_type::now();
        auto proofs = groth16::prove(groth_params, std::span<const r1cs::Circuit* const>(&ptr, 1), &sink);
        prove_s.push_back(std::chrono::duration<double>(clock_type::now() - p0).count());
        auto v0 = clock_type::now();
        bool ok = groth16::verify_proof(pvk, proofs[0], pub);
        verify_s.push_back(std::chrono::duration<double>(clock_type::now() - v0).count());
        if (!ok) throw std::runtime_error("bench groth16: a " + name + " proof did not verify");
        std::map<std::string, double> per_proof;  // a stage may run several times per proof (three intts)
        for (const auto& span : sink.spans()) per_proof[span.name] += span.duration_s;
        for (auto& [stage, t] : per_proof) stages[stage].push_back(t);
    }
    nlohmann::json j;
    j["bench"] = "groth16";
    j["circuit"] = name;
    j["constraints"] = constraints;
    j["threads"] = num_threads();
    j["setup_s"] = setup_s;
    j["median_prove_s"] = median(prove_s);
    j["median_verify_ms"] = median(verify_s) * 1e3;
    nlohmann::json st;
    for (auto& [stage, v] : stages) st[stage] = median(v);
    j["median_stage_s"] = st;
    j["samples_prove_s"] = prove_s;
    j["cpu"] = cpu_model();
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
    return 0;
}

}  // namespace

std::vector<std::string> bench_names() {
    return {"all", "fq-mul", "fr-mul", "g1-add", "pairing", "ntt", "msm-g1", "msm-g2", "groth16"};
}

// `groth16_circuit`: mulchain (2^log_size constraints) or a PoRep-shaped preset. Declared in main.cpp, beside the
// option it serves (commands.hpp declares the one-argument form).
int run_bench(const BenchOptions& opt, const std::string& groth16_circuit) {
    if (groth16_circuit != "mulchain" && !circuits::is_porep_preset(groth16_circuit))
        throw std::invalid_argument("bench groth16: unknown circuit '" + groth16_circuit + "' (mulchain, porep presets)");
    int reps = opt.quick ? 3 : opt.repetitions;
    auto size_or = [&](int dflt, int quick) { return opt.log_size >= 0 ? opt.log_size : (opt.quick ? quick : dflt); };
    bool all = opt.what == "all";
    if (all || opt.what == "fq-mul") bench_field_mul<Fq>("fq-mul", reps);
    if (all || opt.what == "fr-mul") bench_field_mul<Fr>("fr-mul", reps);
    if (all || opt.what == "g1-add") bench_g1_add(reps);
    if (all || opt.what == "pairing") bench_pairing(reps);
    if (all || opt.what == "ntt") bench_ntt(size_or(20, 16), reps);
    if (all || opt.what == "msm-g1") bench_msm<G1Config>("msm-g1", size_or(16, 12), reps);
    if (all || opt.what == "msm-g2") bench_msm<G2Config>("msm-g2", size_or(16, 10), reps);
    if (all || opt.what == "groth16") {
        if (groth16_circuit == "mulchain") run_bench_groth16(size_or(16, 10), reps);
        else bench_groth16_porep(groth16_circuit, reps);
    }
    return 0;
}

int run_bench(const BenchOptions& opt) { return run_bench(opt, "mulchain"); }

}  // namespace cuzk::cli
