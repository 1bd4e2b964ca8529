// `cuzk filecoin c2` and `cuzk filecoin params gen|check`: Filecoin's PoRep C2 from a C1 output with Filecoin's
// parameter files, through the engine.
#include "filecoin_c2.hpp"

#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "commands.hpp"
#include "filecoin_cmds.hpp"
#include "cuzk/engine/engine.hpp"
#include "cuzk/engine/porep_c2.hpp"
#include "cuzk/filecoin/c1.hpp"
#include "cuzk/filecoin/params.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "cuzk/util/thread_pool.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::cli {

namespace {

namespace fs = std::filesystem;

struct C2Args {
    std::string c1, params_dir, proof, backend = "auto";
    bool unchecked_params = false, json = false;
    bool full_synthesis = false;  // each partition fully synthesized instead of witness + the compiled matrices
};

// C1 -> validated witnesses -> parameters (found by Filecoin's name, headers checked, points checked) -> one engine
// job over every partition -> each proof verified against Filecoin's public inputs -> the proof file, written
// atomically (nothing on any failure).
int run_c2(const C2Args& a) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto c1_bytes = read_file_bytes(a.c1, "--c1");
    const filecoin::C1Output c1 = filecoin::parse_c1_or_envelope(
        std::string_view(reinterpret_cast<const char*>(c1_bytes.data()), c1_bytes.size()));
    const engine::PorepC2Job job = engine::porep_c2_job(c1);
    const double c1_s = seconds_since(t0);
    const std::string proof_name(filecoin::proof_name(c1.registered_proof));
    if (!a.json)
        std::fprintf(stderr, "c2: %s, %zu partitions; loading parameters\n", proof_name.c_str(), job.partitions.size());

    const fs::path dir = filecoin::parameter_cache_dir(a.params_dir);
    const auto names = filecoin::parameter_files(job.config);
    const auto shape = filecoin::porep_parameter_shape(job.config);
    const fs::path params_file = filecoin::fit_parameter_file(dir, names, shape, proof_name);

    // The partition circuit's matrices, recorded once (seconds at 32 GiB): each partition then needs only its witness
    // and a sparse product, ~4x faster than full synthesis on the H200 host (docs/perf.md).
    std::optional<r1cs::PrecompiledR1cs> pce;
    double pce_s = 0;
    if (!a.full_synthesis) {
        const auto p0 = std::chrono::steady_clock::now();
        pce = r1cs::compile_r1cs(filecoin::StackedPorepCircuit(
            filecoin::blank_stacked_porep_partition(filecoin::StackedPorepShape::of(job.config))));
        pce_s = seconds_since(p0);
    }

    // The parameters as the engine's key, loaded as the daemon loads them (on a GPU host decoded straight onto the
    // GPUs and checked there, never all in host memory); every proof verified against the file's verifying key.
    CliJobOptions o;
    o.backend = a.backend;
    o.verify = true;
    const CliJob run =
        run_engine_job(engine::porep_c2_spec(job, pce ? &*pce : nullptr), params_file, !a.unchecked_params, o);
    if (!a.json) std::fprintf(stderr, "c2: %s loaded in %.2f s\n", params_file.c_str(), run.key_s);
    const engine::JobResult& result = run.result;
    const std::vector<uint8_t> bytes = engine::porep_c2_proof(job, result, run.vk);
    formats::detail::write_file_atomically(a.proof, bytes);

    nlohmann::json out;
    out["proof_type"] = proof_name;
    out["partitions"] = job.partitions.size();
    out["proof"] = a.proof;
    out["proof_bytes"] = bytes.size();
    out["backend"] = run.backend;
    out["params"] = params_file.string();
    out["params_checked"] = !a.unchecked_params;
    out["c1_s"] = c1_s;
    out["params_load_s"] = run.key_s;
    out["pce"] = !a.full_synthesis;
    if (pce) out["pce_compile_s"] = pce_s;
    out["prove_s"] = result.wall_seconds;
    out["total_s"] = seconds_since(t0);
    out["peak_rss_bytes"] = result.peak_rss_bytes;
    out["fallbacks"] = result.fallbacks;
    out["verified"] = true;
    std::printf("%s\n", a.json ? out.dump().c_str() : out.dump(2).c_str());
    return 0;
}

struct ParamsArgs {
    std::string proof_type, dir, manifest;
    std::optional<uint64_t> seed;
    bool unchecked = false, json = false;
    bool update = false, poseidon = false;  // a SnapDeals (update) proof type; its Poseidon variant
};

// The update proof and its circuit when --update or --poseidon is given (update proof names are the seal proofs'
// "StackedDrg2KiBV1"..., so the flag says which is meant).
std::optional<std::pair<filecoin::RegisteredUpdateProof, filecoin::UpdateCircuit>> update_proof_named(const ParamsArgs& a) {
    if (!a.update && !a.poseidon) return std::nullopt;
    return std::pair{filecoin::update_proof_from_name(a.proof_type),
                     a.poseidon ? filecoin::UpdateCircuit::Poseidon : filecoin::UpdateCircuit::Sha256};
}

// A PoSt proof name, or nothing (then the name is a seal proof's, or an error).
std::optional<filecoin::RegisteredPoStProof> post_proof_named(const std::string& name) {
    try {
        return filecoin::post_proof_from_name(name);
    } catch (const filecoin::FilecoinError&) {
        return std::nullopt;
    }
}

int run_params_gen(const ParamsArgs& a) {
    const auto update = update_proof_named(a);
    const auto post = update ? std::nullopt : post_proof_named(a.proof_type);
    const fs::path dir = filecoin::parameter_cache_dir(a.dir);
    size_t last = 101;
    auto progress = [&](const char* stage, size_t done, size_t total) {
        if (a.json || total < 4096) return;
        const size_t pct = total ? done * 100 / total : 100;
        if (pct / 25 != last / 25 || done == total) std::fprintf(stderr, "params gen: %s %zu%%\n", stage, pct);
        last = pct;
    };
    const auto g = update ? filecoin::generate_snap_parameters(update->first, update->second, dir, a.seed, progress)
                   : post ? filecoin::generate_post_parameters(*post, dir, a.seed, progress)
                          : filecoin::generate_porep_parameters(
                                filecoin::PorepConfig::from_registered(filecoin::seal_proof_from_name(a.proof_type)),
                                dir, a.seed, progress);
    nlohmann::json out;
    out["proof_type"] = a.proof_type;
    out["params"] = g.params.string();
    out["vk"] = g.vk.string();
    out["meta"] = g.meta.string();
    out["sections"] = {{"ic", g.ic}, {"h", g.h}, {"l", g.l}, {"a", g.a}, {"b", g.b}};
    out["seconds"] = g.seconds;
    out["toxic_waste"] = a.seed ? "derived from --seed: TESTS ONLY, anyone can forge proofs" : "OS CSPRNG, wiped";
    std::printf("%s\n", a.json ? out.dump().c_str() : out.dump(2).c_str());
    return 0;
}

// Finds, header-checks and fully loads the parameter file (and optionally checks its digest): what c2 will do.
int run_params_check(const ParamsArgs& a) {
    const auto update = update_proof_named(a);
    const auto post = update ? std::nullopt : post_proof_named(a.proof_type);
    const fs::path dir = filecoin::parameter_cache_dir(a.dir);
    filecoin::ParameterFileNames names;
    filecoin::ParameterShape shape;
    if (update) {
        names = filecoin::parameter_files(update->first, update->second);
        shape = filecoin::snap_parameter_shape(update->first, update->second);
    } else if (post) {
        names = filecoin::parameter_files(*post);
        shape = filecoin::post_parameter_shape(*post);
    } else {
        const auto config = filecoin::PorepConfig::from_registered(filecoin::seal_proof_from_name(a.proof_type));
        names = filecoin::parameter_files(config);
        shape = filecoin::porep_parameter_shape(config);
    }
    nlohmann::json out;
    out["proof_type"] = a.proof_type;
    if (!a.manifest.empty()) {
        const auto t0 = std::chrono::steady_clock::now();
        filecoin::check_parameter_digest(filecoin::find_parameter_file(dir, names.params, a.proof_type), a.manifest);
        filecoin::check_parameter_digest(filecoin::find_parameter_file(dir, names.vk, a.proof_type), a.manifest);
        out["digest_s"] = seconds_since(t0);
    }
    const auto loaded = filecoin::load_parameters(dir, names, shape, a.proof_type, param_read_options(!a.unchecked));
    const auto vk = filecoin::load_verifying_key(dir, names, shape, a.proof_type);
    if (!(vk == loaded.params.vk))
        throw filecoin::FilecoinError(filecoin::FilecoinErrorKind::KeyMismatch,
                                      names.vk + " is not the verifying key of " + names.params);
    out["params"] = loaded.path.string();
    out["bytes"] = loaded.file_bytes;
    out["subgroup_checked"] = !a.unchecked;
    out["load_s"] = loaded.seconds;
    out["threads"] = num_threads();
    out["valid"] = true;
    std::printf("%s\n", a.json ? out.dump().c_str() : out.dump(2).c_str());
    return 0;
}

}  // namespace

void add_filecoin_c2_commands(CLI::App* fc, int& exit_code) {
    {
        auto a = std::make_shared<C2Args>();
        auto* cmd = fc->add_subcommand("c2", "PoRep C2: prove a C1 output with Filecoin's parameters (every partition "
                                             "verified before the proof is written)");
        cmd->add_option("--c1", a->c1, "the C1 JSON (filecoin-proofs' or Curio's envelope)")
            ->required()
            ->check(CLI::ExistingFile);
        cmd->add_option("--params-dir", a->params_dir,
                        "parameter directory (default: $FIL_PROOFS_PARAMETER_CACHE, else "
                        "/var/tmp/filecoin-proof-parameters)");
        cmd->add_option("--proof", a->proof, "output: the proof (192 bytes per partition, partition order)")->required();
        cmd->add_option("--backend", a->backend, "auto (GPU when present), cpu or gpu (the GPU only: no CPU fallback)")
            ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
        cmd->add_flag("--unchecked-params", a->unchecked_params,
                      "skip the subgroup checks of the proving key's points (on-curve checks stay)");
        cmd->add_flag("--full-synthesis", a->full_synthesis,
                      "synthesize every partition in full instead of its witness and the matrices recorded once");
        cmd->add_flag("--json", a->json, "one-line JSON output");
        cmd->callback([a, &exit_code] { run_filecoin_command("c2", exit_code, [&] { return run_c2(*a); }); });
    }
    auto* params = fc->add_subcommand("params", "Filecoin's parameter files");
    params->require_subcommand(1);
    {
        auto a = std::make_shared<ParamsArgs>();
        auto* cmd = params->add_subcommand("gen", "TESTS: random parameters of a PoRep, PoSt or SnapDeals circuit (PoRep, "
                                                  "Window PoSt and SnapDeals up to 512 MiB sectors), under Filecoin's "
                                                  "file names");
        cmd->add_option("--proof-type", a->proof_type,
                        "registered seal, PoSt or (with --update) update proof, e.g. StackedDrg2KiBV1_1, "
                        "StackedDrgWindow2KiBV1_2")
            ->required();
        cmd->add_flag("--update", a->update, "the proof type is a SnapDeals update proof (e.g. StackedDrg2KiBV1)");
        cmd->add_flag("--poseidon", a->poseidon, "the update proof's EmptySectorUpdate-Poseidon circuit (implies --update)");
        cmd->add_option("--out", a->dir, "directory (default: $FIL_PROOFS_PARAMETER_CACHE, else "
                                         "/var/tmp/filecoin-proof-parameters)");
        cmd->add_option("--seed", a->seed, "derive the toxic waste from this seed (tests only: proofs become forgeable)");
        cmd->add_flag("--json", a->json, "one-line JSON output");
        cmd->callback([a, &exit_code] { run_filecoin_command("params gen", exit_code, [&] { return run_params_gen(*a); }); });
    }
    {
        auto a = std::make_shared<ParamsArgs>();
        auto* cmd = params->add_subcommand("check", "find and fully load a PoRep, PoSt or SnapDeals parameter file and its "
                                                    "verifying key");
        cmd->add_option("--proof-type", a->proof_type, "registered seal, PoSt or (with --update) update proof, e.g. "
                                                       "StackedDrg32GiBV1_1")
            ->required();
        cmd->add_flag("--update", a->update, "the proof type is a SnapDeals update proof");
        cmd->add_flag("--poseidon", a->poseidon, "the update proof's EmptySectorUpdate-Poseidon circuit (implies --update)");
        cmd->add_option("--params-dir", a->dir, "directory (default: $FIL_PROOFS_PARAMETER_CACHE, else "
                                                "/var/tmp/filecoin-proof-parameters)");
        cmd->add_option("--manifest", a->manifest, "also check both files' digests against this parameters.json")
            ->check(CLI::ExistingFile);
        cmd->add_flag("--unchecked", a->unchecked, "skip the subgroup checks (on-curve checks stay)");
        cmd->add_flag("--json", a->json, "one-line JSON output");
        cmd->callback([a, &exit_code] { run_filecoin_command("params check", exit_code, [&] { return run_params_check(*a); }); });
    }
}

}  // namespace cuzk::cli
