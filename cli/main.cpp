// The `cuzk` command-line program.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "circom_cmds.hpp"
#include "daemon_cmds.hpp"
#include "filecoin_cmds.hpp"
#include "commands.hpp"
#include "cuzk/circuits/catalog.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/util/thread_pool.hpp"

int main(int argc, char** argv) {
    // `prove x.zkey w.wtns ...` and `verify vk.json public.json proof.json` (circom/snarkjs files) share their names
    // with the bellman-format commands and are told apart by their positional files.
    if (int code = 0; cuzk::cli::dispatch_circom(argc, argv, code)) return code;
    CLI::App app{"cuzk: Groth16 proving for BLS12-381 on CPUs and CUDA GPUs"};
    size_t threads = 0;
    app.add_option("--threads", threads, "CPU threads (0 = all hardware threads)")->check(CLI::Range(0, 4096));
    app.require_subcommand(1);

    auto* version = app.add_subcommand("version", "print the version");
    auto* info = app.add_subcommand("info", "print the machine, thread and GPU summary");
    auto* selfcheck = app.add_subcommand("selfcheck", "check the arithmetic (and GPU against CPU when present)");

    // Built-in circuits and Filecoin's PoRep partition circuit, by alias (porep-2k ... porep-64g) or proof type.
    const CLI::Validator circuit_name(
        [](std::string& name) {
            return cuzk::circuits::is_circuit_name(name)
                       ? std::string()
                       : "unknown circuit '" + name + "' (cubic, mulchain, porep-2k, porep-8m, porep-512m, porep-32g, "
                                                      "porep-64g or a proof type such as StackedDrg32GiBV1_1)";
        },
        "CIRCUIT");
    auto add_circuit = [&circuit_name](CLI::App* cmd, cuzk::cli::CircuitOptions& c) {
        cmd->add_option("--circuit,--preset,--proof-type", c.name,
                        "built-in circuit: cubic (x^3 + x + 5 = y), mulchain, or Filecoin's PoRep partition circuit "
                        "of a proof type: porep-2k, porep-8m, porep-512m, porep-32g, porep-64g or its name "
                        "(StackedDrg32GiBV1_1, ...); proof i of a batch is partition i mod P of sector i / P, "
                        "from generated C1 data")
            ->check(circuit_name);
        cmd->add_option("--log-size", c.log_size, "mulchain: 2^k constraints")->check(CLI::Range(2, 27));
        cmd->add_option("--publics", c.publics, "mulchain: number of public values")->check(CLI::Range(1, 1 << 20));
        cmd->add_option("--witness-seed", c.witness_seed,
                        "mulchain: witness seed (proof i uses seed + i); porep: the generated sectors' seed "
                        "(sector j uses seed + j)");
        cmd->add_option("--x", c.x, "cubic: the private x (decimal; proof i uses x + i)");
    };

    cuzk::cli::SetupOptions setup_opt;
    auto* setup = app.add_subcommand("setup", "generate Groth16 parameters for a built-in circuit (bellman format)");
    add_circuit(setup, setup_opt.circuit);
    setup->add_option("--params", setup_opt.params_path, "output parameter file")->required();
    setup->add_option("--vk", setup_opt.vk_path, "also write the verifying key alone");
    setup->add_option("--seed", setup_opt.seed, "derive the toxic waste from this seed (tests only!)");
    setup->add_flag("--json", setup_opt.json, "machine-readable output with timings");

    cuzk::cli::ProveOptions prove_opt;
    auto* prove = app.add_subcommand("prove", "prove a batch of built-in circuits");
    add_circuit(prove, prove_opt.circuit);
    prove->add_option("--params", prove_opt.params_path, "parameter file")->required()->check(CLI::ExistingFile);
    prove->add_option("--proof", prove_opt.proof_path, "output: proofs, 192 bytes each")->required();
    prove->add_option("--public", prove_opt.public_path, "output: public inputs (.json, or .bin raw)")->required();
    prove->add_option("--batch", prove_opt.batch, "proofs in the batch")->check(CLI::Range(1, 1024));
    prove->add_flag("--unchecked-params", prove_opt.unchecked_params,
                    "skip subgroup checks of the proving key's queries (only for files you trust; faster load)");
    prove->add_option("--pce", prove_opt.pce_path,
                      "a .pce file of this circuit (cuzk pce build): per proof only the witness and a sparse product "
                      "instead of full synthesis")
        ->check(CLI::ExistingFile);
    prove->add_option("--backend", prove_opt.backend,
                      "auto (the GPU prover when a GPU is present), cpu, gpu (the GPU only: no CPU fallback)")
        ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
    prove->add_flag("--json", prove_opt.json, "machine-readable output with timings");

    cuzk::cli::VerifyOptions verify_opt;
    auto* verify = app.add_subcommand("verify", "verify proofs (exit 0 valid, 1 invalid, 2 error)");
    auto* vk_opt = verify->add_option("--vk", verify_opt.vk_path, "verifying key file")->check(CLI::ExistingFile);
    auto* params_opt =
        verify->add_option("--params", verify_opt.params_path, "or: parameter file")->check(CLI::ExistingFile);
    vk_opt->excludes(params_opt);
    verify->add_option("--proof", verify_opt.proof_path, "proofs file")->required()->check(CLI::ExistingFile);
    verify->add_option("--public", verify_opt.public_path, "public inputs file")->required()->check(CLI::ExistingFile);
    verify->add_flag("--json", verify_opt.json, "machine-readable output with timings");

    cuzk::cli::CircuitOptions info_circuit;
    bool info_json = false;
    auto* circuit_cmd = app.add_subcommand("circuit", "inspect built-in circuits");
    auto* circuit_info = circuit_cmd->add_subcommand("info", "constraints, variables, 0/1 witness share, densities");
    circuit_cmd->require_subcommand(1);
    add_circuit(circuit_info, info_circuit);
    circuit_info->add_flag("--json", info_json, "machine-readable output");

    cuzk::cli::CircuitOptions pce_circuit;
    std::string pce_path;
    bool pce_json = false;
    auto* pce_cmd = app.add_subcommand("pce", "pre-compiled constraint evaluator files");
    pce_cmd->require_subcommand(1);
    auto* pce_build = pce_cmd->add_subcommand("build", "record a built-in circuit's R1CS into a .pce file");
    add_circuit(pce_build, pce_circuit);
    pce_build->add_option("--out", pce_path, "output file")->required();
    pce_build->add_flag("--json", pce_json, "machine-readable output");
    auto* pce_info = pce_cmd->add_subcommand("info", "check a .pce file (version, checksum, structure) and summarize it");
    pce_info->add_option("file", pce_path, "the .pce file")->required()->check(CLI::ExistingFile);
    pce_info->add_flag("--json", pce_json, "machine-readable output");

    cuzk::cli::BenchOptions bench_opt;
    auto* bench = app.add_subcommand("bench", "run benchmarks, one JSON object per line on stdout");
    bench->add_option("what", bench_opt.what, "benchmark to run")
        ->check(CLI::IsMember(cuzk::cli::bench_names()));
    bench->add_option("--log-size,--log-constraints", bench_opt.log_size, "problem size 2^k for ntt, msm, groth16")
        ->check(CLI::Range(0, 27));
    bench->add_option("--reps", bench_opt.repetitions, "timed repetitions (median reported)")
        ->check(CLI::Range(1, 1000));
    bench->add_flag("--quick", bench_opt.quick, "small sizes and 3 repetitions");
    bench->add_option("--window-bits", bench_opt.window_bits, "gpu-msm-g1, gpu-msm-g2: Pippenger window width (0: the model)")
        ->check(CLI::Range(0, 24));
    bench->add_option("--piece-points", bench_opt.piece_points,
                      "gpu-msm-g1, gpu-msm-g2: sorted entries per accumulation thread (0: the default, 64 or more)")
        ->check(CLI::Range(0, 1 << 20));
    bench->add_option("--walk-chunks", bench_opt.walk_chunks,
                      "gpu-msm-g1, gpu-msm-g2: chunks a cut run may span for one thread to join it (0: the default)")
        ->check(CLI::Range(0, 1 << 20));
    bench->add_option("--reduce-levels", bench_opt.reduce_levels,
                      "gpu-msm-g1, gpu-msm-g2: bucket reduction levels where segments are short, 1 or 2 (0: the "
                      "default)")
        ->check(CLI::Range(0, 2));
    bench->add_option("--reduce-lanes", bench_opt.reduce_lanes,
                      "gpu-msm-g1, gpu-msm-g2: threads per point in the bucket reduction's segment walks, 1 or 2 (0: "
                      "the default for the curve and size)")
        ->check(CLI::Range(0, 2));
    bench->add_option("--ones-share", bench_opt.ones_share,
                      "gpu-msm-g1, gpu-msm-g2: scalars 0 or 1 with this share of ones, summed by the ones' kernels "
                      "(a Groth16 witness's bits; 0: random scalars through Pippenger)")
        ->check(CLI::Range(0.0, 1.0));
    bench->add_flag("--ones-listed", bench_opt.ones_listed,
                    "gpu-msm-g1, gpu-msm-g2 with --ones-share: the ones as an index list instead of a bitmap");
    bench->add_flag("--precompute-windows", bench_opt.precompute_windows,
                    "gpu-msm-g1, gpu-msm-g2: a table of window multiples on the device, built before the runs (every "
                    "window into one bucket set; --window-bits sets its width, else the model's)");
    bench->add_flag("--device-scalars", bench_opt.device_scalars,
                    "gpu-msm-g1, gpu-msm-g2: the scalars in device memory before the runs, read in place (as sppark's "
                    "anchors were measured); default: each run uploads them from page-locked host memory");
    bench->add_flag("--streamed", bench_opt.streamed,
                    "gpu-msm-g1, gpu-msm-g2: the bases stay in page-locked host memory and go up chunk by chunk every "
                    "run (a GPU smaller than its parameters)");
    bench->add_option("--chunk-points", bench_opt.chunk_points,
                      "gpu-msm-g1, gpu-msm-g2 with --streamed: bases per chunk (0: the default)");
    bench->add_option("--sets", bench_opt.sets,
                      "gpu-msm-g1, gpu-msm-g2: scalar sets per run (streamed: one call, each chunk up once for all; "
                      "with --ones-share: that many bitmaps, summed one call each and by one sum_patterns call)")
        ->check(CLI::Range(1, 64));
    bench->add_option("--ntt-kind", bench_opt.ntt_kind, "gpu-ntt: forward, inverse, coset or coset-inverse")
        ->check(CLI::IsMember(cuzk::cli::kNttKinds));
    bench->add_flag("--ntt-in-place", bench_opt.ntt_in_place,
                    "gpu-ntt: the in-place schedule (no scratch; one more pass: the lean H form's transforms)");
    bench->add_flag("--ntt-steps", bench_opt.ntt_steps,
                    "gpu-ntt: then with the pointwise steps of bellman's H (x * m before, (y - c) * s after), fused "
                    "into the passes and as kernels of their own, alternating");
    bench->add_option("--alternate", bench_opt.alternate,
                      "porep-c2, post, snap with --runs 2 or more: every second run with this setting flipped "
                      "(pack-witness, overlap-msms, share-slot, host-products, first-upload-alone, query-priority, "
                      "own-split-first, defer-ones, upload-from-split; "
                      "synthesis-nice: the given value, or 10, against 0): two settings on the same inputs")
        ->check(CLI::IsMember(cuzk::cli::kAlternates));
    bench->add_option("--runs", bench_opt.runs,
                      "porep-c2, post, snap: run the job this many times, each on a fresh engine (one JSON line each; "
                      "inputs and parameters made once; with --random-params, which cannot verify, every run draws "
                      "the same r, s and must give the first run's proofs, else the bench fails)")
        ->check(CLI::Range(1, 100));
    bench->add_option("--partitions", bench_opt.partitions, "pipeline: partitions of the job")->check(CLI::Range(1, 1000));
    bench->add_option("--memory-budget", bench_opt.memory_budget,
                      "pipeline, porep-c2, post, snap: host bytes the engine keeps the process within when it starts a "
                      "partition (default: physical memory less max(4 GiB, 1/8))");
    bench->add_flag("--host-products", bench_opt.host_products,
                    "porep-c2, post, snap: the sparse products a = A z, b = B z, c = C z on the CPU (default: on the GPU "
                    "when it has room for the compiled matrices)");
    bench->add_flag("--matrices-per-job", bench_opt.matrices_per_job,
                    "porep-c2, post, snap: the job copies the compiled matrices to the GPU itself, inside its wall time "
                    "(default: copied before the job, as the daemon keeps them on the GPU with the key after its first "
                    "job)");
    bench->add_flag("--first-with-others", bench_opt.first_with_others,
                    "porep-c2: every synthesis worker starts at once (default: the first partition is synthesized "
                    "alone, with every core, while the prover waits for it)");
    bench->add_option("--lookahead", bench_opt.lookahead, "pipeline: synthesized partitions that may wait for the prover")
        ->check(CLI::Range(1, 64));
    bench->add_option("--workers", bench_opt.workers,
                      "pipeline, porep-c2, post, snap: synthesis workers (default: one per 8 hardware threads, 1 to 8)")
        ->check(CLI::Range(1, 256));
    bench->add_option("--backend", bench_opt.backend,
                      "pipeline, groth16, Filecoin benches: auto (GPU when built and present), cpu, gpu (the GPU only: "
                      "no CPU fallback)")
        ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
    bench->add_flag("--random-params", bench_opt.random_params,
                    "groth16, pipeline: random parameters of the circuit's shape instead of a setup (large sizes; proofs not verified)");
    bench->add_flag("--pin-params", bench_opt.pin_params,
                    "groth16, pipeline: page-lock the parameters in host memory before the GPU upload");
    bench->add_flag("--stream-queries", bench_opt.stream_queries,
                    "groth16, pipeline, porep-c2, post, snap: keep the queries in host memory and stream them to the GPU "
                    "at every MSM (what a GPU smaller than the parameters does)");
    bench->add_flag("--overlap-msms,!--no-overlap-msms", bench_opt.overlap_msms,
                    "groth16, pipeline, porep-c2, post, snap: the GPU prover runs the A, B, L MSMs beside the H "
                    "query's, on a second MSM scratch (resident queries); on by default, --no-overlap-msms: after it");
    bench->add_flag("--share-slot,!--no-share-slot", bench_opt.share_slot,
                    "groth16, pipeline, porep-c2, post, snap: on a GPU with room for one H slot, the next partition's "
                    "witness goes into it once the proof before has computed H (beside that proof's MSMs); on by "
                    "default, --no-share-slot: after that proof");
    bench->add_flag("--pack-witness", bench_opt.pack_witness,
                    "groth16, pipeline, porep-c2, post, snap: the GPU prover sends witnesses of mostly 0 and 1 "
                    "packed (the ones' bitmap and the other values), expanded on the device; off by default");
    bench->add_flag("--upload-from-split,!--no-upload-from-split", bench_opt.upload_from_split,
                    "groth16, pipeline, porep-c2, post, snap: a proof that was not prepared (a job's first partition) "
                    "splits its scalars first and sends L's split as its packed witness; on by default");
    bench->add_flag("--query-priority,!--no-query-priority", bench_opt.query_priority,
                    "groth16, pipeline, porep-c2, post, snap: the GPU prover's A, B, L and B_G2 MSMs on streams of the "
                    "device's highest priority, so their short kernels beside the H query's MSM start first");
    bench->add_flag("--own-split-first,!--no-own-split-first", bench_opt.own_split_first,
                    "groth16, pipeline, porep-c2, post, snap: a prepared circuit's 0/1 split starts once the running "
                    "proofs' own splits have ended (a job's first partition waits for its own after its H query's "
                    "MSM) instead of sharing the cores with them; off by default");
    bench->add_option("--synthesis-nice", bench_opt.synthesis_nice,
                      "porep-c2, post, snap: the synthesis workers' nice value (Linux; default 0): above 0 the GPU "
                      "prover's CPU work (0/1 splits, witness uploads) gets the cores first")
        ->check(CLI::Range(0, 19));
    bench->add_flag("--first-upload-alone,!--no-first-upload-alone", bench_opt.first_upload_alone,
                    "porep-c2: the job's other syntheses wait while its first partition's witness goes to the GPU "
                    "(products on the device), not only while it is synthesized; on by default, "
                    "--no-first-upload-alone: only while it is synthesized");
    bench->add_flag("--defer-ones,!--no-defer-ones", bench_opt.defer_ones,
                    "porep-c2: the partitions' ones summed together at the end of the job (JobSpec::defer_ones, the "
                    "job's default), --no-defer-ones: each partition's with its proof");
    bench->add_flag("--blocking-waits", bench_opt.blocking_waits,
                    "host threads sleep while they wait for the GPU (cudaDeviceScheduleBlockingSync) instead of the "
                    "driver's default, a spinning core each; the process's setting, for every bench");
    bench->add_flag("--lean-h", bench_opt.lean_h,
                    "groth16, pipeline, porep-c2, post, snap, gpu-h: the GPU prover's H arrays in their lean form (two "
                    "domains' worth instead of three; a, b, c made on the CPU)");
    bench->add_flag("--pce", bench_opt.pce,
                    "pipeline: partitions by the pre-compiled constraint evaluator (witness + sparse product)");
    bench->add_option("--msm-table-bytes", bench_opt.msm_table_bytes,
                      "groth16, pipeline: device bytes for precomputed G1 MSM window tables (H, L, A, B_G1 in order; default 0: none)");
    bench->add_option("--batch", bench_opt.batch, "groth16: circuits per engine job (median per job and per circuit)")
        ->check(CLI::Range(1, 64));
    bench->add_flag("--same-witness", bench_opt.same_witness,
                    "groth16 with --random-params: every circuit proves a copy of the first one's assignment (no synthesis per circuit)");
    bench->add_option("--timeline", bench_opt.timeline_path,
                      "groth16, pipeline: write the last call's timing spans (all layers) to this JSON file; "
                      "porep-c2, post, snap: the last run's (earlier runs' to FILE.runK)");
    bench->add_option("--proof-type", bench_opt.proof_type,
                      "porep-c2: registered seal proof of the generated C1 (default StackedDrg32GiBV1_1); post: a "
                      "Winning or Window PoSt proof; snap: an update proof (StackedDrg32GiBV1...); groth16, pipeline: the PoRep "
                      "circuit of this proof type (as --circuit)");
    bench->add_option("--c1", bench_opt.c1_path, "porep-c2: prove this C1 instead of a generated one")
        ->check(CLI::ExistingFile);
    bench->add_option("--c1-seed", bench_opt.c1_seed, "porep-c2, post, snap: the generated C1's (vanilla proofs') seed (default 1)");
    bench->add_flag("--poseidon", bench_opt.poseidon, "snap: the EmptySectorUpdate-Poseidon circuit (one partition)");
    bench->add_option("--queued", bench_opt.queued,
                      "porep-c2: submit this many C2 jobs of the C1 at once to one engine and report when each ends "
                      "(steady-state throughput)")
        ->check(CLI::Range(1, 64));
    bench->add_option("--critical-after", bench_opt.critical_after,
                      "porep-c2: once this many partitions are proven, submit a CRITICAL Winning PoSt of the same "
                      "sector size and report its latency beside the same job alone");
    bench->add_flag("--full-synthesis", bench_opt.full_synthesis,
                    "porep-c2, post, snap: synthesize every partition in full instead of witness + the matrices compiled once");
    bench->add_flag("--key-file", bench_opt.key_file,
                    "porep-c2: load the parameters as a file's key, as filecoin c2 and the daemon do (straight onto the "
                    "GPUs, checked there); with --random-params a missing file in --params-dir is written first");
    bench->add_option("--params-dir", bench_opt.params_dir,
                      "porep-c2, post, snap: Filecoin's parameter files (default: $FIL_PROOFS_PARAMETER_CACHE, else "
                      "/var/tmp/filecoin-proof-parameters); or --random-params");
    std::string bench_circuit = "mulchain";
    auto* bench_circuit_opt =
        bench->add_option("--circuit,--preset", bench_circuit,
                          "groth16, pipeline: mulchain (2^k constraints, --log-constraints k) or Filecoin's PoRep "
                          "partition circuit (porep-2k ... porep-64g, or a proof type; proof r proves partition "
                          "r mod P of generated sector r / P); gpu-products: the PoRep circuit (default porep-2k)")
            ->check(circuit_name);

    cuzk::cli::add_circom_commands(app);
    int filecoin_exit = -1;  // set by the filecoin commands, which run inside parse (after --threads is read)
    cuzk::cli::add_filecoin_commands(app, filecoin_exit, threads);
    int daemon_exit = -1;  // set by the daemon / client commands, which run inside parse
    cuzk::cli::add_daemon_commands(app, daemon_exit);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help prints and exits 0; every usage error is exit code 2, as documented.
        return app.exit(e) == 0 ? 0 : 2;
    }
    if (daemon_exit >= 0) return daemon_exit;
    if (filecoin_exit >= 0) return filecoin_exit;
    if (*verify && verify_opt.vk_path.empty() && verify_opt.params_path.empty()) {
        std::fprintf(stderr, "cuzk verify: give --vk or --params\n");
        return 2;
    }
    cuzk::ThreadPool::set_global_threads(threads);
    if (threads > 0) cuzk::r1cs::set_parallel_synthesis_threads(threads);  // --threads bounds synthesis too
    try {
        if (*version) {
            std::printf("cuzk " CUZK_VERSION "\n");
            return 0;
        }
        if (*info) return cuzk::cli::run_info();
        if (*selfcheck) return cuzk::cli::run_selfcheck();
        if (*bench) {
            if ((bench_opt.what == "groth16" || bench_opt.what == "pipeline") && bench->count("--proof-type")) {
                // --proof-type names the PoRep circuit, as --circuit does.
                if (bench_circuit_opt->count() && bench_circuit != bench_opt.proof_type) {
                    std::fprintf(stderr, "cuzk bench: --circuit %s and --proof-type %s disagree\n", bench_circuit.c_str(),
                                 bench_opt.proof_type.c_str());
                    return 2;
                }
                if (!cuzk::circuits::is_porep_circuit(bench_opt.proof_type)) {
                    std::fprintf(stderr, "cuzk bench: --proof-type %s is not an interactive PoRep proof type\n",
                                 bench_opt.proof_type.c_str());
                    return 2;
                }
                bench_circuit = bench_opt.proof_type;
            }
            if (bench_circuit == "cubic" && (bench_opt.what == "groth16" || bench_opt.what == "pipeline")) {
                std::fprintf(stderr, "cuzk bench: groth16 and pipeline prove mulchain or a PoRep circuit\n");
                return 2;
            }
            if (bench_circuit != "mulchain" && bench_opt.log_size >= 0 &&
                (bench_opt.what == "groth16" || bench_opt.what == "pipeline")) {
                std::fprintf(stderr, "cuzk bench: --log-constraints sizes mulchain only, not %s\n", bench_circuit.c_str());
                return 2;
            }
            return cuzk::cli::run_bench(bench_opt, bench_circuit);
        }
        if (*setup) return cuzk::cli::run_setup(setup_opt);
        if (*circuit_info) return cuzk::cli::run_circuit_info(info_circuit, info_json);
        if (*pce_build) return cuzk::cli::run_pce_build(pce_circuit, pce_path, pce_json);
        if (*pce_info) return cuzk::cli::run_pce_info(pce_path, pce_json);
        if (*prove) return cuzk::cli::run_prove(prove_opt);
        if (*verify) return cuzk::cli::run_verify(verify_opt);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cuzk: error: %s\n", e.what());
        return 2;
    }
    return 0;
}
