// `cuzk setup`, `cuzk prove`, `cuzk verify` and `cuzk bench groth16` on the built-in circuits.
//
// Exit codes: 0 success (for verify: every proof valid), 1 a proof did not verify, 2 bad input or an error.
// Public inputs file (--public): JSON, an array of decimal strings for one proof, or an array of such arrays for a
// batch (one per proof, in proof order); a file ending in .bin holds raw 32-byte little-endian values instead (one
// proof only). The constant one is not listed.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "cuzk/circuits/builtin.hpp"
#include "cuzk/circuits/catalog.hpp"
#include "cuzk/engine/engine.hpp"
#include "cuzk/engine/filecoin_job.hpp"
#include "cuzk/filecoin/porep_circuit.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/formats/json_depth.hpp"
#include "cuzk/formats/proof_io.hpp"
#include "cuzk/formats/snarkjs_json.hpp"
#include "cuzk/groth16/prover.hpp"
#include "cuzk/groth16/setup.hpp"
#include "cuzk/groth16/verifier.hpp"
#include "cuzk/poly/domain.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "cuzk/util/input_file.hpp"
#include "cuzk/util/output_file.hpp"
#include "cuzk/util/thread_pool.hpp"
#include "cuzk/util/timing.hpp"
#ifdef CUZK_HAVE_CUDA
#include "cuzk/backends/cuda/prover_gpu.hpp"
#include "cuzk/backends/cuda/subgroup_checks.hpp"
#include "cuzk/gpu/device.hpp"
#endif

namespace cuzk::cli {

namespace {
using clock_type = std::chrono::steady_clock;
using circuits::make_circuit;
}  // namespace

void print_timing_json(const char* command, const TimingSink& sink, double total_s, nlohmann::json extra) {
    nlohmann::json j = std::move(extra);
    j["command"] = command;
    j["total_s"] = total_s;
    j["threads"] = num_threads();
    j["timings"] = nlohmann::json::parse(sink.to_json());
    std::printf("%s\n", j.dump().c_str());
}

namespace {

void write_publics(const std::string& path, const std::vector<std::vector<Fr>>& publics) {
    if (formats::public_inputs_format_for(path) == formats::PublicInputsFormat::RawLe) {
        if (publics.size() != 1) throw std::invalid_argument("raw .bin public inputs hold one proof; use JSON for a batch");
        formats::write_public_inputs(path, publics[0], formats::PublicInputsFormat::RawLe);
        return;
    }
    std::string text;
    if (publics.size() == 1) {
        text = formats::public_inputs_to_json(publics[0]);
    } else {
        text = "[";
        for (size_t i = 0; i < publics.size(); i++) {
            if (i) text += ',';  // (not `(i ? "," : "") + json`: GCC 12 reports a false -Wrestrict there)
            text += formats::public_inputs_to_json(publics[i]);
        }
        text += "]";
    }
    text += "\n";
    write_file_atomically(path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

std::vector<std::vector<Fr>> read_publics(const std::string& path, size_t proofs) {
    if (formats::public_inputs_format_for(path) == formats::PublicInputsFormat::RawLe)
        return {formats::read_public_inputs(path, formats::PublicInputsFormat::RawLe)};
    const std::string text = read_input_file(path, kMaxJsonInputBytes, "--public");
    nlohmann::json j;
    formats::check_json_depth(text, path);  // before anything walks the value (issue 20 item 6)
    try {
        j = nlohmann::json::parse(text);
    } catch (const std::exception& e) {
        throw std::invalid_argument(path + ": not JSON: " + e.what());
    }
    if (!j.is_array()) throw std::invalid_argument(path + ": expected a JSON array");
    bool nested = !j.empty() && j[0].is_array();
    if (!nested) return {formats::parse_public_inputs_json(text, path)};
    std::vector<std::vector<Fr>> out;
    for (size_t i = 0; i < j.size(); i++)
        out.push_back(formats::parse_public_inputs_json(j[i].dump(), path + " [proof " + std::to_string(i) + "]"));
    if (out.size() != proofs)
        throw std::invalid_argument(path + ": " + std::to_string(out.size()) + " input lists for " +
                                    std::to_string(proofs) + " proofs");
    return out;
}

}  // namespace

int run_setup(const SetupOptions& opt) {
    auto t0 = clock_type::now();
    TimingSink sink;
    auto circuit = make_circuit(opt.circuit, false, 0, nullptr);
    auto tw = opt.seed ? groth16::ToxicWaste::from_seed(*opt.seed) : groth16::ToxicWaste::random();
    size_t last_pct = 101;
    auto progress = [&](const char* stage, size_t done, size_t total) {
        if (opt.json || total < 4096) return;
        size_t pct = total ? done * 100 / total : 100;
        if (pct / 10 != last_pct / 10 || done == total) {
            std::fprintf(stderr, "setup: %s %zu%%\n", stage, pct);
            last_pct = pct;
        }
    };
    groth16::Parameters params = groth16::generate_parameters(*circuit, tw, &sink, progress);
    formats::write_parameters(opt.params_path, params);
    if (!opt.vk_path.empty()) formats::write_verifying_key(opt.vk_path, params.vk);
    double total = seconds_since(t0);
    if (opt.json) {
        print_timing_json("setup", sink, total,
                          {{"params", opt.params_path}, {"h", params.h.size()}, {"l", params.l.size()},
                           {"a", params.a.size()}, {"b_g1", params.b_g1.size()}, {"public_inputs", params.vk.num_public_inputs()}});
    } else {
        std::printf("wrote %s (%zu public inputs, %zu h, %zu l, %zu a, %zu b points) in %.2f s\n",
                    opt.params_path.c_str(), params.vk.num_public_inputs(), params.h.size(), params.l.size(),
                    params.a.size(), params.b_g1.size(), total);
        if (!opt.seed) std::printf("toxic waste drawn from the OS CSPRNG and wiped\n");
        else std::printf("WARNING: toxic waste derived from --seed %llu: for tests and benchmarks only\n",
                         (unsigned long long)*opt.seed);
    }
    return 0;
}


#ifdef CUZK_HAVE_CUDA
static gpu::GpuProverConfig gpu_config(const CliGpuOptions& o) {
    gpu::GpuProverConfig gc;
    gc.pin_host_params = o.pin_params;
    gc.msm_table_bytes = o.msm_table_bytes;
    gc.stream_queries = o.stream_queries;
    gc.overlap_query_msms = o.overlap_msms;
    gc.lean_h = o.lean_h;
    gc.share_slot = o.share_slot;
    gc.pack_witness = o.pack_witness;
    gc.query_msm_priority = o.query_priority;
    gc.own_split_first = o.own_split_first;
    gc.upload_from_split = o.upload_from_split;
    return gc;
}
#endif

#ifdef CUZK_HAVE_CUDA
static std::vector<engine::DeviceCopy> copies_of(std::vector<std::unique_ptr<gpu::GpuBackend>> backends) {
    std::vector<engine::DeviceCopy> v;
    std::set<const gpu::StreamedKey*> counted;  // streamed copies share one host copy of the queries
    for (auto& b : backends) {
        const bool first = counted.insert(b->streamed_key()).second;
        engine::DeviceCopy d{b->lane(), b->resident_bytes(), nullptr, first ? b->streamed_host_bytes() : 0};
        d.backend = std::move(b);
        v.push_back(std::move(d));
    }
    return v;
}
#endif

engine::KeyStoreConfig cli_key_store(const std::string& choice, const CliGpuOptions& gpu_opt, bool checked) {
    engine::KeyStoreConfig kc;
    kc.check_subgroup = checked;
#ifdef CUZK_HAVE_CUDA
    if (choice != "cpu" && !gpu::devices().empty()) {
        if (checked) kc.device_checks = backends::gpu_subgroup_checks();
        // One copy per GPU, each with its backend (one proving lane each); the CPU backend behind them. No device
        // budgets here, so the store never narrows the GPUs (`only` stays empty).
        const gpu::GpuProverConfig gc = gpu_config(gpu_opt);
        kc.make_device_copies = [gc](const groth16::Parameters& p, const std::vector<std::string>&) {
            return copies_of(gpu::gpu_backends(p, 0, gc));
        };
        // A file's points straight onto the GPUs, checked there (the first GPU's copy; the others hold the same
        // bytes of the file, which is verified unchanged afterwards); pinned parameters stay in host memory.
        if (!gpu_opt.pin_params)
            kc.stream_device_copies = [gc](const formats::ParamsFileSource& src, bool check,
                                           const std::vector<std::string>&) {
                auto backends = gpu::gpu_backends(src, 0, gc);
                if (check && !backends.empty())
                    if (auto q = backends.front()->query_outside_subgroup()) src.throw_not_in_subgroup(*q);
                return copies_of(std::move(backends));
            };
    }
#else
    (void)gpu_opt;
#endif
    if (choice == "gpu" && !kc.make_device_copies)
        throw std::runtime_error("--backend gpu: no CUDA device (or built without CUDA)");
    // The GPU only: a partition that fails there fails the job with the GPU's error instead of being proven again on
    // the CPU (minutes a 32 GiB partition, and a second host copy of a streamed set).
    kc.cpu_fallback = choice != "gpu";
    return kc;
}

std::shared_ptr<const engine::ProvingKey> cli_key(engine::Engine& eng, const std::string& name,
                                                  const groth16::Parameters& params) {
    // The caller's parameters, borrowed: they outlive the engine the CLI makes for its job (no 44 GiB copy).
    return eng.keys().adopt(name, std::shared_ptr<const groth16::Parameters>(std::shared_ptr<void>(), &params));
}

void note_fallbacks(engine::JobSpec& spec) {
    spec.on_fallback = [](const std::string& line) { std::fprintf(stderr, "note: %s\n", line.c_str()); };
}

namespace {
// The job on a fresh engine whose key `make_key` makes (timed, and inside the peak RSS window when asked).
CliJob run_keyed_job(engine::JobSpec spec, const CliJobOptions& opt, bool checked,
                     const std::function<std::shared_ptr<const engine::ProvingKey>(engine::Engine&)>& make_key) {
    engine::EngineConfig ec = opt.engine;
    if (!ec.memory_budget_bytes) ec.memory_budget_bytes = engine::auto_memory_budget();
    ec.keys = cli_key_store(opt.backend, cli_gpu_options(opt), checked);
    engine::Engine eng(ec);
    if (opt.job_peak_rss) engine::reset_peak_rss();
    CliJob job;
    const auto t0 = std::chrono::steady_clock::now();
    const auto key = make_key(eng);
    job.key_s = seconds_since(t0);
    job.vk = key->shape.vk;
    spec.key = key;
    std::vector<std::shared_ptr<const void>> holds;  // until the job is done
    if (opt.products_resident && spec.pce && ec.device_products) {
        const auto t1 = std::chrono::steady_clock::now();
        const auto backends = key->backends();
        holds = groth16::hold_products_on(backends, *spec.pce);
        if (!holds.empty())
            for (groth16::ProverBackend* b : backends) b->await_products(*spec.pce);  // the copies done
        job.products_s = seconds_since(t1);
        job.products_resident = !holds.empty();
    }
    note_fallbacks(spec);
    spec.verify_key = opt.verify_key ? opt.verify_key : opt.verify ? &job.vk : nullptr;
    const engine::JobId id = eng.submit(std::move(spec));
    std::thread beside;
    if (opt.beside) beside = std::thread([&] { opt.beside(eng, id); });
    job.result = eng.await(id);
    if (beside.joinable()) beside.join();
    if (opt.job_peak_rss) job.peak_rss_bytes = engine::peak_rss_bytes();
    job.backend = key->backend()->name();
    job.stats = eng.stats();
    return job;
}
}  // namespace

CliJob run_engine_job(engine::JobSpec spec, const groth16::Parameters& params, const CliJobOptions& opt) {
    const std::string name = spec.name;
    return run_keyed_job(std::move(spec), opt, true, [&](engine::Engine& eng) { return cli_key(eng, name, params); });
}

CliJob run_engine_job(engine::JobSpec spec, const std::filesystem::path& params_file, bool checked,
                      const CliJobOptions& opt) {
    return run_keyed_job(std::move(spec), opt, checked,
                         [&](engine::Engine& eng) { return eng.keys().get(params_file); });
}

formats::ParamsReadOptions param_read_options(bool checked, const std::string& backend) {
    formats::ParamsReadOptions read;
    read.check_subgroup = checked;
#ifdef CUZK_HAVE_CUDA
    if (checked && backend != "cpu") read.device_checks = backends::gpu_subgroup_checks();
#else
    (void)backend;
#endif
    return read;
}

namespace {

// Proof i's assignment for `cuzk prove`: circuit i built (its public inputs into publics[i], the only slot this call
// writes: partitions are synthesized concurrently), then synthesized or evaluated through the PCE, and checked
// against the parameters (a mismatch fails the job before any proving, with the fallback too).
r1cs::ProvingAssignment prove_assignment(const ProveOptions& opt, const groth16::Parameters& params,
                                         const r1cs::PrecompiledR1cs* pce, size_t i, std::vector<Fr>& publics_i) {
    const auto circuit = make_circuit(opt.circuit, true, i, &publics_i);
    r1cs::ProvingAssignment asg;
    try {
        asg = engine::partition_assignment(*circuit, pce);
    } catch (const std::invalid_argument& e) {
        if (!pce) throw;
        throw std::invalid_argument(opt.pce_path + " does not fit this circuit (" + e.what() + ")");
    }
    try {
        groth16::check_assignment(params, asg, i);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(opt.params_path + " was not made for this circuit (" + e.what() + ")");
    }
    return asg;
}

}  // namespace

int run_prove(const ProveOptions& opt) {
    auto t0 = clock_type::now();
    auto loaded = formats::read_parameters(opt.params_path, param_read_options(!opt.unchecked_params, opt.backend));
    if (loaded.trailing_bytes && !opt.json)
        std::fprintf(stderr, "note: %s has %zu bytes after the parameters (ignored)\n", opt.params_path.c_str(),
                     loaded.trailing_bytes);
    double load_s = seconds_since(t0);
    // The pre-compiled evaluator's file must have been recorded for this circuit (read_pce checks its name).
    std::optional<r1cs::PrecompiledR1cs> pce;
    if (!opt.pce_path.empty()) pce = r1cs::read_pce(opt.pce_path, circuits::circuit_shape_name(opt.circuit));
    // One engine job of `batch` partitions: r, s from the OS CSPRNG, every proof verified before it is accepted.
    std::vector<std::vector<Fr>> publics(opt.batch);
    engine::JobSpec spec;
    spec.name = "prove";
    spec.partitions = opt.batch;
    spec.synthesize = [&](size_t i) {
        return prove_assignment(opt, loaded.params, pce ? &*pce : nullptr, i, publics[i]);
    };
    const CliJob run = run_engine_job(std::move(spec), loaded.params, verified_job(opt.backend, loaded.params.vk));
    engine::require_proofs("proving", run.result, opt.batch);  // nothing written unless every proof is there
    const std::vector<groth16::Proof>& proofs = run.result.proofs;
    formats::write_proofs(opt.proof_path, proofs);
    write_publics(opt.public_path, publics);
    double total = seconds_since(t0);
    if (opt.json) {
        print_timing_json("prove", *run.result.timeline, total,
                          {{"proofs", proofs.size()}, {"load_params_s", load_s}, {"backend", run.backend},
                           {"fallbacks", run.result.fallbacks}});
    } else {
        std::printf("wrote %zu proof%s to %s and public inputs to %s in %.2f s (parameters loaded in %.2f s)\n",
                    proofs.size(), proofs.size() == 1 ? "" : "s", opt.proof_path.c_str(), opt.public_path.c_str(),
                    total, load_s);
    }
    return 0;
}

int run_verify(const VerifyOptions& opt) {
    auto t0 = clock_type::now();
    TimingSink sink;
    groth16::VerifyingKey vk;
    if (!opt.vk_path.empty()) vk = formats::read_verifying_key(opt.vk_path).vk;
    else vk = formats::read_parameters(opt.params_path).params.vk;
    auto proofs = formats::read_proofs(opt.proof_path);
    auto publics = read_publics(opt.public_path, proofs.size());
    if (publics.size() != proofs.size())
        throw std::invalid_argument(std::to_string(proofs.size()) + " proofs but public inputs for " +
                                    std::to_string(publics.size()));
    auto pvk = groth16::prepare_verifying_key(vk);
    bool ok;
    {
        ScopedTiming t(&sink, TimingLayer::Prover, "verify");
        ok = proofs.size() == 1 ? groth16::verify_proof(pvk, proofs[0], publics[0])
                                : groth16::verify_proofs_batch(pvk, proofs, publics);
    }
    double total = seconds_since(t0);
    if (opt.json) print_timing_json("verify", sink, total, {{"proofs", proofs.size()}, {"valid", ok}});
    else std::printf("%s: %zu proof%s %s\n", ok ? "valid" : "INVALID", proofs.size(), proofs.size() == 1 ? "" : "s",
                     ok ? "verified" : "did not verify");
    return ok ? 0 : 1;
}

// The circuit of a benchmark's JSON line: the PoRep circuit (its name, proof type and rows), or the mul chain's size.
static void describe_circuit(nlohmann::json& j, const CircuitOptions& c) {
    if (auto proof = circuits::porep_circuit_proof(c.name)) {
        j["circuit"] = c.name;
        j["proof_type"] = std::string(filecoin::proof_name(*proof));
        j["constraints"] = circuits::circuit_constraints(c);
    } else {
        j["log_constraints"] = c.log_size;
    }
}

int run_bench_groth16(const CircuitOptions& circuit, const BenchOptions& opt, int reps, const std::string& cpu) {
    // Setup once from the circuit without data (deterministic toxic waste), then `reps` proofs on the chosen backend,
    // each verified. Proof r is make_circuit's proof r with witness seed 1000: a fresh dense random witness for
    // mulchain; for a PoRep circuit, partition r mod P of the sector generated from seed 1000 + r / P (every P reps
    // prove a new sector). Synthesis is timed apart from the prover call. With --random-params the parameters are
    // benchmark_parameters of proof 0's assignment (sizes where a setup takes too long) and nothing is verified.
    if (opt.same_witness && !opt.random_params)
        throw std::invalid_argument("bench groth16: --same-witness needs --random-params (its proofs are not verified)");
    CircuitOptions c = circuit;
    c.witness_seed = 1000;
    auto synthesize = [&](int rep, std::vector<Fr>* pub) {
        auto circ = make_circuit(c, true, (size_t)rep, pub);
        r1cs::ProvingAssignment asg;
        r1cs::synthesize_groth16(asg, *circ);
        return asg;
    };
    auto t0 = clock_type::now();
    groth16::Parameters params;
    std::optional<r1cs::ProvingAssignment> first;  // proof 0's assignment, when it gave the parameters' shape
    std::vector<Fr> first_pub;
    double first_synthesis_s = 0;
    if (opt.random_params) {
        first = synthesize(0, &first_pub);
        first_synthesis_s = seconds_since(t0);
        params = groth16::benchmark_parameters(*first, 1);
    } else {
        params = groth16::generate_parameters(*make_circuit(c, false, 0, nullptr), groth16::ToxicWaste::from_seed(1));
    }
    const double setup_s = seconds_since(t0) - first_synthesis_s;
    // One engine for every rep: the parameters become its key (the GPU backend uploads the queries here).
    engine::EngineConfig ec;
    ec.synthesis_workers = 1;  // the batches are synthesized before they are submitted
    ec.lookahead = std::max<size_t>(1, opt.batch);
    ec.keys = cli_key_store(opt.backend, cli_gpu_options(opt, opt.msm_table_bytes));
    engine::Engine eng(ec);
    auto b0 = clock_type::now();
    const auto key = cli_key(eng, c.name, params);
    const double backend_s = seconds_since(b0);
    std::map<std::string, std::vector<double>> stages;
    std::vector<double> prove_s, verify_s, synthesis_s;
    const size_t batch = std::max<size_t>(1, opt.batch);
    std::optional<r1cs::ProvingAssignment> first_copy;  // --same-witness: proof 0's assignment, kept
    std::vector<Fr> first_copy_pub;
    std::string last_timeline;
    for (int rep = 0; rep < reps; rep++) {
        // A batch of circuits (proof numbers rep * batch + j), synthesized first, then one engine job of `batch`
        // partitions: the GPU backend uploads partition j + 1's a, b, c while partition j's MSMs run.
        std::vector<std::vector<Fr>> pub(batch);
        std::vector<r1cs::ProvingAssignment> asg;
        asg.reserve(batch);
        auto s0 = clock_type::now();
        double synth = 0;
        for (size_t j = 0; j < batch; j++) {
            if (first) {
                if (opt.same_witness) {
                    first_copy = *first;
                    first_copy_pub = first_pub;
                }
                asg.push_back(std::move(*first));
                pub[j] = std::move(first_pub);
                first.reset();
                synth += first_synthesis_s;
            } else if (opt.same_witness && opt.random_params) {
                asg.push_back(j ? asg[0] : *first_copy);  // a copy: the prover consumes a, b, c
                pub[j] = first_copy_pub;
            } else {
                asg.push_back(synthesize((int)(rep * batch + j), &pub[j]));
            }
        }
        synthesis_s.push_back(synth + seconds_since(s0));
        engine::JobSpec spec;
        spec.name = c.name;
        spec.partitions = batch;
        spec.key = key;
        spec.synthesize = [&asg](size_t i) { return std::move(asg[i]); };
        // Every proof verified by the engine against its circuit's public inputs (not with random parameters).
        spec.verify_key = opt.random_params ? nullptr : &params.vk;
        note_fallbacks(spec);
        const engine::JobResult res = eng.await(eng.submit(std::move(spec)));
        if (res.state != engine::JobState::Done)
            throw std::runtime_error("bench groth16: the " + c.name + " job ended " +
                                     engine::job_state_name(res.state) + (res.error.empty() ? "" : ": " + res.error));
        // Per circuit: a stage may run several times per proof (three intts); averaged over the batch. The job's
        // wall time less its verification is the prover's time for the batch.
        std::map<std::string, double> per_proof;
        double verify = 0;
        for (const auto& span : res.timeline->spans()) {
            if (span.layer == TimingLayer::Prover && span.item >= 0) per_proof[span.name] += span.duration_s / (double)batch;
            if (span.layer == TimingLayer::Pipeline && span.name == "verify") verify += span.duration_s;
        }
        prove_s.push_back(res.wall_seconds - verify);
        if (!opt.random_params) verify_s.push_back(verify / (double)batch);
        if (!opt.timeline_path.empty()) last_timeline = res.timeline->to_json();
        for (auto& [name, t] : per_proof) stages[name].push_back(t);
    }
    auto median = [](std::vector<double> v) {
        if (v.empty()) return 0.0;
        std::sort(v.begin(), v.end());
        return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    };
    nlohmann::json j;
    j["bench"] = "groth16";
    describe_circuit(j, c);
    j["backend"] = key->backend()->name();
    j["random_params"] = opt.random_params;
    j["threads"] = num_threads();
    j["setup_s"] = setup_s;
    j["backend_init_s"] = backend_s;
    j["msm_table_bytes"] = opt.msm_table_bytes;
    size_t device_bytes = 0;
    for (const auto& d : key->devices) device_bytes += d.bytes;
    j["device_resident_bytes"] = device_bytes;
    j["median_synthesis_s"] = median(synthesis_s);
    j["batch"] = batch;
    j["median_prove_s"] = median(prove_s);  // one prover call: the whole batch
    j["median_per_circuit_s"] = median(prove_s) / (double)batch;
    if (!opt.random_params) j["median_verify_ms"] = median(verify_s) * 1e3;
    nlohmann::json st;
    for (auto& [name, v] : stages) st[name] = median(v);
    j["median_stage_s"] = st;
    j["samples_prove_s"] = prove_s;
    if (opt.same_witness) j["same_witness"] = true;
    j["cpu"] = cpu;
    if (!opt.timeline_path.empty()) formats::snarkjs::write_text_file(opt.timeline_path, last_timeline);
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
    return 0;
}

// The engine job's figures into `j`: wall and per-partition time, each layer's spans summed (per stage, and proving
// and synthesis per partition), the gap between the pipeline's proving and the prover's stages, busy shares, peak RSS,
// fallbacks and the deallocator's work; the timeline's breakdown goes to stderr.
void add_job_report(nlohmann::json& j, const engine::JobResult& res, size_t partitions, const engine::Engine::Stats& st,
                    size_t peak_rss) {
    std::map<std::string, double> pipeline, prover, kernel;
    std::vector<double> proving_by_partition(partitions, 0.0), synthesis_by_partition(partitions, 0.0);
    for (const auto& sp : res.timeline->spans()) {
        if (sp.layer == TimingLayer::Pipeline && sp.item >= 0 && (size_t)sp.item < partitions) {
            if (sp.name == "proving") proving_by_partition[(size_t)sp.item] += sp.duration_s;
            if (sp.name == "synthesis") synthesis_by_partition[(size_t)sp.item] += sp.duration_s;
        }
        if (sp.layer == TimingLayer::Pipeline) pipeline[sp.name] += sp.duration_s;
        else if (sp.layer == TimingLayer::Prover && sp.item >= 0) prover[sp.name] += sp.duration_s;
        else if (sp.layer == TimingLayer::Kernel && sp.item >= 0 && sp.name.rfind("h.", 0) == 0)
            kernel[sp.name] += sp.duration_s;  // H's uploads, products and transforms (the MSMs' are in prover_s)
    }
    double prover_total = 0;
    for (auto& [name, t] : prover) prover_total += t;
    j["threads"] = num_threads();
    j["wall_s"] = res.wall_seconds;
    j["per_partition_s"] = res.wall_seconds / (double)std::max<size_t>(partitions, 1);
    j["pipeline_s"] = pipeline;
    j["proving_s_by_partition"] = proving_by_partition;
    j["synthesis_s_by_partition"] = synthesis_by_partition;
    j["prover_s"] = prover;
    j["h_kernel_s"] = kernel;
    // Proving time not covered by the prover's own stages (hand-off, the seam's checks, ...): made explicit.
    j["gap_proving_minus_prover_stages_s"] = pipeline["proving"] - prover_total;
    j["peak_rss_bytes"] = peak_rss;
    {
        // Shares of the job's wall time: some partition being proven; some kernel running (GPU, uploads aside).
        const auto spans = res.timeline->spans();
        const double wall = res.wall_seconds > 0 ? res.wall_seconds : 1;
        j["proving_busy_share"] = busy_seconds(spans, [](const TimingSpan& s) {
                                      return s.layer == TimingLayer::Pipeline && s.name == "proving";
                                  }) / wall;
        const double kernels = busy_seconds(spans, is_kernel_compute);
        if (kernels > 0) j["gpu_busy_share"] = kernels / wall;
        std::fprintf(stderr, "%s", timeline_breakdown(spans).c_str());  // the JSON line goes to stdout
    }
    j["fallbacks"] = res.fallbacks;
    j["freed_buffers"] = st.freed_buffers;
    j["freed_bytes"] = st.freed_bytes;
    j["free_seconds_off_hot_path"] = st.free_seconds;
}

int run_bench_pipeline(const CircuitOptions& circuit, const BenchOptions& opt, const std::string& cpu) {
    // Setup from the circuit without data (deterministic toxic waste); then one job of P partitions: partition i is
    // make_circuit's proof i with witness seed 2000 (for a PoRep circuit, partition i mod P' of the sector generated
    // from seed 2000 + i / P').
    // With --random-params: benchmark_parameters of partition 0's shape, and nothing is verified.
    CircuitOptions c = circuit;
    c.witness_seed = 2000;
    // --pce: the R1CS recorded once, then per partition the witness and a sparse product (r1cs/pce.hpp).
    std::optional<r1cs::PrecompiledR1cs> pce;
    double pce_compile_s = 0;
    if (opt.pce) {
        auto p0 = clock_type::now();
        pce = r1cs::compile_r1cs(*make_circuit(c, false, 0, nullptr));
        pce_compile_s = seconds_since(p0);
    }
    auto t0 = clock_type::now();
    groth16::Parameters params;
    if (opt.random_params && pce) {
        // The shape from the compiled system: no witness needed.
        params = groth16::benchmark_parameters(groth16::query_shape(*pce), 1);
    } else if (opt.random_params) {
        // Partition 0 synthesized once for its shape and again inside the job, so that the job's synthesis spans,
        // wall time and peak RSS stay those of a real job (the extra synthesis is setup time, not measured).
        auto circ = make_circuit(c, true, 0, nullptr);
        r1cs::ProvingAssignment shape;
        r1cs::synthesize_groth16(shape, *circ);
        params = groth16::benchmark_parameters(shape, 1);
    } else {
        params = groth16::generate_parameters(*make_circuit(c, false, 0, nullptr), groth16::ToxicWaste::from_seed(1));
    }
    const double setup_s = seconds_since(t0);
    // The parameters as the engine's key: one copy per GPU (each GPU proves partitions), the CPU behind them as the
    // fallback for a partition whose GPU faults; every proof is verified inside the engine.
    std::vector<std::vector<Fr>> publics(opt.partitions);
    engine::EngineConfig ecfg;
    ecfg.synthesis_workers = opt.workers;
    ecfg.memory_budget_bytes = opt.memory_budget ? opt.memory_budget : engine::auto_memory_budget();
    ecfg.lookahead = opt.lookahead;
    ecfg.keys = cli_key_store(opt.backend, cli_gpu_options(opt, opt.msm_table_bytes));
    engine::Engine eng(ecfg);
    const auto key = cli_key(eng, c.name, params);
    engine::JobSpec spec;
    spec.name = c.name;
    spec.partitions = opt.partitions;
    spec.key = key;
    note_fallbacks(spec);
    spec.verify_key = opt.random_params ? nullptr : &params.vk;
    spec.synthesize = [&](size_t i) {
        auto circ = make_circuit(c, true, i, &publics[i]);
        if (pce) return r1cs::assignment_from_pce(*pce, *circ, ThreadPool::global());
        r1cs::ProvingAssignment asg;
        r1cs::synthesize_groth16(asg, *circ);
        return asg;
    };
    engine::reset_peak_rss();
    const engine::JobResult res = eng.await(eng.submit(spec));
    const size_t peak = engine::peak_rss_bytes();
    if (res.state != engine::JobState::Done)
        throw std::runtime_error(std::string("bench pipeline: the job ended ") + engine::job_state_name(res.state) +
                                 (res.error.empty() ? "" : ": " + res.error));
    if (!opt.random_params) {
        auto pvk = groth16::prepare_verifying_key(params.vk);
        for (size_t i = 0; i < res.proofs.size(); i++)
            if (!groth16::verify_proof(pvk, res.proofs[i], publics[i]))
                throw std::runtime_error("bench pipeline: partition " + std::to_string(i) + "'s proof did not verify");
    }
    nlohmann::json j;
    j["bench"] = "pipeline";
    describe_circuit(j, c);
    j["partitions"] = opt.partitions;
    j["workers"] = opt.workers ? opt.workers : engine::auto_synthesis_workers();
    j["lookahead"] = opt.lookahead;
    j["memory_budget_bytes"] = ecfg.memory_budget_bytes;
    j["backend"] = key->backend()->name();
    j["proving_workers"] = key->backends().size();
    j["random_params"] = opt.random_params;
    j["pce"] = opt.pce;
    if (opt.pce) j["pce_compile_s"] = pce_compile_s;
    j["setup_s"] = setup_s;
    if (!opt.timeline_path.empty()) formats::snarkjs::write_text_file(opt.timeline_path, res.timeline->to_json());
    add_job_report(j, res, opt.partitions, eng.stats(), peak);
    j["cpu"] = cpu;
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
    return 0;
}

}  // namespace cuzk::cli

namespace cuzk::cli {

int run_circuit_info(const CircuitOptions& c, bool json) {
    // One witness (seeded) through the proving assignment: the shape, and how much of the witness the 0/1 fast paths
    // of the MSMs will skip.
    CircuitOptions seeded = c;
    if (!seeded.witness_seed) seeded.witness_seed = 1;
    if (seeded.x.empty()) seeded.x = "3";
    nlohmann::json porep;
    if (auto proof = circuits::porep_circuit_proof(c.name)) {
        // The shape and its counts (a synthesis into a counting system: no witness, nothing stored), printed before
        // the synthesis of a witness, which a partition too big for this machine's memory skips.
        const auto config = filecoin::PorepConfig::from_registered(*proof);
        const auto info = filecoin::porep_circuit_info(config);
        const std::string proof_type(filecoin::proof_name(*proof));
        porep = {{"proof_type", proof_type},
                 {"sector_size", config.sector_size},
                 {"partitions", config.partitions},
                 {"challenges_per_partition", config.challenges_per_partition()},
                 {"layers", config.layers()},
                 {"constraints", info.constraints},  // the circuit's own rows, as filecoin circuit-info counts them
                 {"inputs", info.inputs},            // with the constant one: bellperson appends a row for each
                 {"aux", info.aux},
                 {"rows", info.constraints + info.inputs}};
        if (!json)
            std::printf("%s: Filecoin's PoRep partition circuit of %s (%s sectors, %u partition%s, %u challenges per "
                        "partition, %u layers): %llu constraints + %llu input rows, %llu aux variables\n",
                        c.name.c_str(), proof_type.c_str(), filecoin::sector_size_name(config.sector_size).c_str(),
                        config.partitions, config.partitions == 1 ? "" : "s", config.challenges_per_partition(),
                        config.layers(),
                        (unsigned long long)info.constraints, (unsigned long long)info.inputs,
                        (unsigned long long)info.aux);
        // a, b, c and about as many aux values per row, 32 bytes each
        const uint64_t rows = info.constraints + info.inputs;
        const uint64_t bytes = rows * 4 * sizeof(Fr);
        if (bytes > uint64_t{8} << 30) {
            porep["synthesized"] = false;
            if (json) std::printf("%s\n", nlohmann::json{{"circuit", c.name}, {"constraints", rows}, {"porep", porep}}.dump().c_str());
            else std::printf("not synthesized here: about %.0f GiB for one partition's assignment\n", (double)bytes / (1 << 30));
            return 0;
        }
    }
    auto circuit = make_circuit(seeded, true, 0, nullptr);
    auto t0 = clock_type::now();
    r1cs::ProvingAssignment pa;
    r1cs::synthesize_groth16(pa, *circuit);
    double synth_s = seconds_since(t0);
    size_t zeros = 0, ones = 0;
    for (const Fr& v : pa.aux()) {
        if (v.is_zero()) zeros++;
        else if (v.is_one()) ones++;
    }
    const size_t n = pa.num_constraints(), na = pa.aux().size(), ni = pa.inputs().size();
    auto share = [](size_t part, size_t whole) { return whole ? (double)part / (double)whole : 0.0; };
    nlohmann::json j;
    j["circuit"] = c.name;
    j["constraints"] = n;
    j["domain"] = EvaluationDomain::for_size(n).size();
    j["public_inputs"] = ni - 1;
    j["aux_variables"] = na;
    j["witness_zero_share"] = share(zeros, na);
    j["witness_one_share"] = share(ones, na);
    j["a_aux_density"] = share(pa.a_aux_density().count(), na);
    j["b_aux_density"] = share(pa.b_aux_density().count(), na);
    j["b_input_density"] = share(pa.b_input_density().count(), ni);
    j["synthesis_s"] = synth_s;
    j["bytes_per_constraint"] = n ? (double)(3 * n + na + ni) * sizeof(Fr) / (double)n : 0.0;
    if (!porep.is_null()) j["porep"] = porep;
    if (json) {
        std::printf("%s\n", j.dump().c_str());
        return 0;
    }
    std::printf("circuit %s: %zu constraints (domain 2^%u), %zu public inputs, %zu private variables\n",
                c.name.c_str(), n, EvaluationDomain::for_size(n).log_size(), ni - 1, na);
    std::printf("witness: %.1f%% zeros, %.1f%% ones (skipped / summed without Pippenger)\n", 100 * share(zeros, na),
                100 * share(ones, na));
    std::printf("density: A aux %.1f%%, B aux %.1f%%, B inputs %.1f%%\n", 100 * share(pa.a_aux_density().count(), na),
                100 * share(pa.b_aux_density().count(), na), 100 * share(pa.b_input_density().count(), ni));
    std::printf("synthesis %.3f s, %.0f bytes per constraint (a, b, c and the assignment)\n", synth_s,
                j["bytes_per_constraint"].get<double>());
    return 0;
}

}  // namespace cuzk::cli

namespace cuzk::cli {

namespace {
void print_pce_summary(const r1cs::PrecompiledR1cs& p, const std::string& path, bool json) {
    auto share = [](size_t part, size_t whole) { return whole ? (double)part / (double)whole : 0.0; };
    size_t terms = p.a.terms.size() + p.b.terms.size() + p.c.terms.size();
    nlohmann::json j;
    j["file"] = path;
    j["circuit"] = p.circuit;
    j["constraints"] = p.num_constraints;
    j["public_inputs"] = p.num_inputs - 1;
    j["aux_variables"] = p.num_aux;
    j["terms"] = {{"a", p.a.terms.size()}, {"b", p.b.terms.size()}, {"c", p.c.terms.size()}};
    j["a_aux_density"] = share(p.a_aux_density.count(), p.num_aux);
    j["b_aux_density"] = share(p.b_aux_density.count(), p.num_aux);
    j["b_input_density"] = share(p.b_input_density.count(), p.num_inputs);
    if (json) {
        std::printf("%s\n", j.dump().c_str());
        return;
    }
    std::printf("%s: circuit '%s', %zu constraints, %zu public inputs, %zu private variables, %zu terms (A %zu, B %zu, "
                "C %zu)\n",
                path.c_str(), p.circuit.c_str(), p.num_constraints, p.num_inputs - 1, p.num_aux, terms, p.a.terms.size(),
                p.b.terms.size(), p.c.terms.size());
    std::printf("density: A aux %.1f%%, B aux %.1f%%, B inputs %.1f%%\n", 100 * share(p.a_aux_density.count(), p.num_aux),
                100 * share(p.b_aux_density.count(), p.num_aux), 100 * share(p.b_input_density.count(), p.num_inputs));
}
}  // namespace

// The name a PCE file records for the circuit shape `c` selects (the witness seed and x do not change the shape).

int run_pce_build(const CircuitOptions& c, const std::string& out, bool json) {
    auto circuit = make_circuit(c, false, 0, nullptr);
    auto pce = r1cs::compile_r1cs(*circuit);
    pce.circuit = circuits::circuit_shape_name(c);
    r1cs::write_pce(out, pce);
    print_pce_summary(pce, out, json);
    return 0;
}

int run_pce_info(const std::string& path, bool json) {
    auto pce = r1cs::read_pce(path);  // checks magic, version, size, checksum and structure
    print_pce_summary(pce, path, json);
    return 0;
}

}  // namespace cuzk::cli
