#include "circom_cmds.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "cuzk/engine/filecoin_job.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/formats/iden3.hpp"
#include "cuzk/formats/iden3_circom.hpp"
#include "cuzk/formats/iden3_zkey_writer.hpp"
#include "cuzk/formats/snarkjs_json.hpp"
#include "cuzk/groth16/verifier.hpp"
#include "cuzk/util/thread_pool.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::cli {

namespace {

using clock_type = std::chrono::steady_clock;
bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

struct CircomProveOptions {
    std::string zkey, wtns, proof, pub;
    bool unchecked = false;
    bool json = false;
    std::string backend = "auto";  // auto (the GPU prover when built and a GPU is present), cpu, gpu
};

int run_circom_prove(const CircomProveOptions& opt) {
    auto t0 = clock_type::now();
    formats::iden3::Zkey zkey = formats::iden3::read_zkey(opt.zkey, {.check_subgroup = !opt.unchecked});
    // The points move into the parameters; the zkey keeps its header and coefficients (what the assignment needs).
    const groth16::Parameters params = formats::iden3::zkey_to_parameters(std::move(zkey));
    const double read_zkey_s = seconds_since(t0);
    const auto w0 = clock_type::now();
    const formats::iden3::Witness witness = formats::iden3::read_wtns(opt.wtns);
    const double read_wtns_s = seconds_since(w0);
    // One engine job of one partition: r, s from the OS CSPRNG, the proof verified against the zkey's key.
    engine::JobSpec spec;
    spec.name = "circom";
    spec.synthesize = [&](size_t) { return formats::iden3::zkey_assignment(zkey, witness); };
    CliJob run = run_engine_job(std::move(spec), params, verified_job(opt.backend, params.vk));
    if (run.result.error.ends_with("the proof did not verify"))
        run.result.error += " (a witness of another circuit, or one that does not satisfy the constraints?)";
    engine::require_proofs("proving", run.result, 1);  // nothing written unless the proof is there
    const std::vector<Fr> pub = formats::iden3::public_signals(witness, zkey.n_public);
    formats::snarkjs::write_text_file(opt.proof, formats::snarkjs::proof_to_json(run.result.proofs[0]));
    formats::snarkjs::write_text_file(opt.pub, formats::snarkjs::public_signals_to_json(pub));
    const double total = seconds_since(t0);
    if (opt.json) {
        print_timing_json("prove", *run.result.timeline, total,
                          {{"format", "circom"}, {"constraints_domain", params.h.size()}, {"backend", run.backend},
                           {"read_zkey_s", read_zkey_s}, {"read_wtns_s", read_wtns_s},
                           {"glibc_tunables", std::getenv("GLIBC_TUNABLES") ? std::getenv("GLIBC_TUNABLES") : ""},
                           {"fallbacks", run.result.fallbacks}});
    } else {
        std::printf("proof written to %s, %zu public signals to %s (%.3f s)\n", opt.proof.c_str(), pub.size(),
                    opt.pub.c_str(), total);
    }
    return 0;
}

int run_circom_verify(const std::string& vk_path, const std::string& pub_path, const std::string& proof_path) {
    using namespace formats::snarkjs;
    groth16::VerifyingKey vk = parse_verification_key_json(read_text_file(vk_path), vk_path);
    std::vector<Fr> pub = parse_public_signals_json(read_text_file(pub_path), pub_path);
    groth16::Proof proof = parse_proof_json(read_text_file(proof_path), proof_path);
    if (pub.size() != vk.num_public_inputs())
        throw std::invalid_argument(pub_path + " has " + std::to_string(pub.size()) + " public signals, the key expects " +
                                    std::to_string(vk.num_public_inputs()));
    bool ok = groth16::verify_proof(groth16::prepare_verifying_key(vk), proof, pub);
    std::printf("%s\n", ok ? "valid: the proof verified" : "INVALID: the proof did not verify");
    return ok ? 0 : 1;
}

[[noreturn]] void fail_command(const char* what, const std::exception& e) {
    std::fprintf(stderr, "cuzk %s: error: %s\n", what, e.what());
    throw CLI::RuntimeError(2);
}

}  // namespace

void add_circom_commands(CLI::App& app) {
    auto* zkey = app.add_subcommand("zkey", "snarkjs .zkey files (Groth16, BLS12-381)");
    zkey->require_subcommand(1);

    struct Paths {
        std::string in, out;
    };
    auto add = [&](const char* name, const char* help, const char* out_help) {
        auto paths = std::make_shared<Paths>();
        auto* cmd = zkey->add_subcommand(name, help);
        cmd->add_option("zkey", paths->in, "the .zkey file")->required()->check(CLI::ExistingFile);
        cmd->add_option("out", paths->out, out_help)->required();
        return std::make_pair(cmd, paths);
    };

    auto [vkjson, vkjson_paths] =
        add("export-verificationkey", "write snarkjs's verification_key.json", "output verification_key.json");
    vkjson->callback([p = vkjson_paths] {
        try {
            auto z = formats::iden3::read_zkey(p->in, {.verifying_key_only = true});
            formats::snarkjs::write_text_file(
                p->out, formats::snarkjs::verification_key_to_json(formats::iden3::zkey_verifying_key(z)));
        } catch (const std::exception& e) {
            fail_command("zkey export-verificationkey", e);
        }
    });

    auto [vk, vk_paths] = add("export-vk", "write the verifying key as a bellman verifying-key file", "output file");
    vk->callback([p = vk_paths] {
        try {
            // Verification does not depend on the QAP's domain, so the key is valid in bellman's format too.
            auto z = formats::iden3::read_zkey(p->in, {.verifying_key_only = true});
            formats::write_verifying_key(p->out, formats::iden3::zkey_verifying_key(z));
        } catch (const std::exception& e) {
            fail_command("zkey export-vk", e);
        }
    });

    {
        struct NewArgs {
            std::string r1cs, out;
            uint64_t seed = 0;
        };
        auto a = std::make_shared<NewArgs>();
        auto* cmd = zkey->add_subcommand(
            "new", "TESTS/BENCHMARKS ONLY: a zkey from an r1cs with toxic waste derived from --seed (anyone who knows "
                   "the seed can forge proofs; real keys come from a ceremony)");
        cmd->add_option("r1cs", a->r1cs, "circuit.r1cs (BLS12-381)")->required()->check(CLI::ExistingFile);
        cmd->add_option("out", a->out, "output .zkey")->required();
        cmd->add_option("--seed", a->seed, "seed of the toxic waste")->required();
        cmd->callback([a] {
            try {
                auto r1cs = formats::iden3::read_r1cs(a->r1cs);
                auto tw = groth16::ToxicWaste::from_seed(a->seed);
                auto bytes = formats::iden3::make_test_zkey(r1cs, tw);
                formats::detail::write_file_atomically(a->out, bytes);
            } catch (const std::exception& e) {
                fail_command("zkey new", e);
            }
        });
    }

    auto [params, params_paths] =
        add("export-params", "a bellperson parameter file from a zkey (not possible; explains why)", "output file");
    params->callback([] {
        std::fprintf(stderr,
                     "cuzk zkey export-params: a snarkjs zkey cannot be turned into a bellperson parameter file.\n"
                     "  The A, B and C points of a zkey are [u_i(tau)] for polynomials that interpolate the constraints "
                     "over snarkjs's evaluation domain, whose root of unity is 5^T (ffjavascript's choice);\n"
                     "  bellperson interpolates over the domain of 7^T and places constraint j at omega^j, so the same "
                     "points would encode different polynomials, and re-basing them needs tau (the toxic waste).\n"
                     "  The H points differ as well (snarkjs: Lagrange basis of the odd coset of the 2n domain; "
                     "bellman: tau^i Z(tau) / delta).\n"
                     "  What does carry over: the verifying key (`cuzk zkey export-vk`), and `cuzk prove` proves "
                     "directly from the zkey.\n");
        throw CLI::RuntimeError(2);
    });
}

namespace {
// glibc's allocator for a one-shot prove: blocks up to 32 MiB (the largest mmap threshold glibc accepts) from its
// heap, which is kept rather than trimmed, on transparent huge pages, and one heap for every thread (the engine's
// worker threads otherwise get heaps of their own that are neither on huge pages nor warm: at 2^16 on the 2-vCPU
// VM that was 9 k of the 11 k page faults and ~10 % of the wall time).
constexpr const char* kProveTunables =
    "glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824:"
    "glibc.malloc.arena_max=1";

// A one-shot circom prove allocates, touches and frees ~100 MB in bursts (the zkey's points, the transforms' and
// the MSMs' scratch); on the 2-vCPU VM its page faults cost ~15-20 % of the wall time at 2^16 (docs/perf.md,
// circom/snarkjs). glibc reads its allocator settings from the environment at start only, so the process starts
// itself once more with kProveTunables, unless GLIBC_TUNABLES is set already (the user's, or this restart's) or
// CUZK_NO_MALLOC_TUNING is. A failed exec changes nothing.
void restart_with_prove_tunables(char** argv) {
    if (std::getenv("GLIBC_TUNABLES") || std::getenv("CUZK_NO_MALLOC_TUNING")) return;
    if (::setenv("GLIBC_TUNABLES", kProveTunables, 0) != 0) return;
    ::execv("/proc/self/exe", argv);
    ::unsetenv("GLIBC_TUNABLES");
}
}  // namespace

bool dispatch_circom(int argc, char** argv, int& exit_code) {
    // Global options before the command: --threads N / --threads=N.
    int i = 1;
    size_t threads = 0;
    bool has_threads = false;
    while (i < argc && std::string_view(argv[i]).starts_with("--threads")) {
        std::string_view a(argv[i]);
        std::string v;
        if (a == "--threads" && i + 1 < argc) {
            v = argv[i + 1];
            i += 2;
        } else if (a.starts_with("--threads=")) {
            v = std::string(a.substr(10));
            i += 1;
        } else {
            return false;
        }
        try {
            threads = std::stoul(v);
            has_threads = true;
        } catch (...) {
            return false;
        }
    }
    if (i >= argc) return false;
    const std::string_view cmd(argv[i]);
    std::vector<std::string> positional, flags;
    for (int k = i + 1; k < argc; k++) {
        const bool flag = std::string_view(argv[k]).starts_with("--");
        (flag ? flags : positional).push_back(argv[k]);
        if (flag && std::string_view(argv[k]) == "--backend" && k + 1 < argc) k++;  // its value is not a file
    }

    // rapidsnark's order puts the zkey first; a bellman `prove --params x.zkey` stays with the bellman command.
    const bool bellman_style = std::any_of(flags.begin(), flags.end(), [](const std::string& f) {
        return f == "--params" || f.starts_with("--params=") || f == "--proof" || f == "--public";
    });
    bool is_prove = cmd == "prove" && !bellman_style && !positional.empty() && ends_with(positional[0], ".zkey");
    // The circom form with its files in another order (recognised by their extensions): say what the order is,
    // rather than the bellman form's "--params is required".
    if (cmd == "prove" && !bellman_style && !is_prove &&
        std::any_of(positional.begin(), positional.end(), [](const std::string& p) { return ends_with(p, ".zkey"); })) {
        std::fprintf(stderr,
                     "cuzk prove: error: the zkey comes first: cuzk prove circuit.zkey witness.wtns proof.json "
                     "public.json (got %s first)\n",
                     positional[0].c_str());
        exit_code = 2;
        return true;
    }
    bool is_verify = cmd == "verify" && positional.size() == 3 && flags.empty() &&
                     std::all_of(positional.begin(), positional.end(),
                                 [](const std::string& s) { return ends_with(s, ".json"); });
    if (!is_prove && !is_verify) return false;
    if (is_prove) restart_with_prove_tunables(argv);

    if (has_threads) {
        try {
            ThreadPool::set_global_threads(threads);
        } catch (const std::invalid_argument& e) {
            std::fprintf(stderr, "cuzk: error: %s\n", e.what());
            exit_code = 2;
            return true;
        }
    }
    CLI::App app{is_prove ? "cuzk prove: a Groth16 proof from a snarkjs zkey and a circom witness"
                          : "cuzk verify: check a snarkjs proof.json against verification_key.json and public.json"};
    CircomProveOptions po;
    std::string vk, pub, proof;
    if (is_prove) {
        app.add_option("zkey", po.zkey, "circuit.zkey (Groth16, BLS12-381)")->required()->check(CLI::ExistingFile);
        app.add_option("witness", po.wtns, "witness.wtns")->required()->check(CLI::ExistingFile);
        app.add_option("proof", po.proof, "output proof.json")->required();
        app.add_option("public", po.pub, "output public.json")->required();
        app.add_flag("--unchecked-zkey", po.unchecked,
                     "skip subgroup checks of the zkey's proving-key points (files you trust; faster load)");
        app.add_option("--backend", po.backend,
                       "auto (the GPU prover when a GPU is present), cpu, gpu (the GPU only: no CPU fallback)")
            ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
        app.add_flag("--json", po.json, "machine-readable output with timings");
    } else {
        app.add_option("verification_key", vk, "verification_key.json")->required()->check(CLI::ExistingFile);
        app.add_option("public", pub, "public.json")->required()->check(CLI::ExistingFile);
        app.add_option("proof", proof, "proof.json")->required()->check(CLI::ExistingFile);
    }
    try {
        app.parse(argc - i, argv + i);
    } catch (const CLI::ParseError& e) {
        exit_code = app.exit(e) == 0 ? 0 : 2;
        return true;
    }
    try {
        exit_code = is_prove ? run_circom_prove(po) : run_circom_verify(vk, pub, proof);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cuzk %s: error: %s\n", is_prove ? "prove" : "verify", e.what());
        exit_code = 2;
    }
    return true;
}

}  // namespace cuzk::cli
