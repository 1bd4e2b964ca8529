// The subcommands of the `cuzk` program.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuzk/circuits/catalog.hpp"
#include "cuzk/engine/engine.hpp"
#include "cuzk/engine/post.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/groth16/backend.hpp"
#include "cuzk/r1cs/pce.hpp"

namespace cuzk::cli {

// The transforms `bench gpu-ntt --ntt-kind` names, in the order the help lists them.
inline const std::vector<std::string> kNttKinds = {"forward", "inverse", "coset", "coset-inverse"};
// bench --alternate: the settings a Filecoin bench can flip every second run (BenchOptions::alternate).
inline const std::vector<std::string> kAlternates = {"pack-witness", "overlap-msms", "share-slot", "host-products",
                                                     "first-upload-alone", "query-priority", "synthesis-nice",
                                                     "own-split-first", "defer-ones", "upload-from-split"};

struct BenchOptions {
    std::string what = "all";  // fq-mul, fr-mul, g1-add, pairing, ntt, msm-g1, msm-g2, groth16, all
    int log_size = -1;         // problem size 2^log_size for ntt/msm (-1: the default of each benchmark)
    int repetitions = 5;       // timed runs; the median is reported
    unsigned window_bits = 0;  // gpu-msm-g1, gpu-msm-g2: GpuMsmConfig::window_bits (0: its model)
    unsigned reduce_lanes = 0;  // gpu-msm-g1, gpu-msm-g2: GpuMsmConfig::reduce_lanes (0: its default)
    unsigned piece_points = 0;  // gpu-msm-g1, gpu-msm-g2: GpuMsmConfig::piece_points (0: its default)
    unsigned walk_chunks = 0;   // gpu-msm-g1, gpu-msm-g2: GpuMsmConfig::walk_chunks (0: its default)
    unsigned reduce_levels = 0;  // gpu-msm-g1, gpu-msm-g2: GpuMsmConfig::reduce_levels (0: its default)
    double ones_share = 0;     // gpu-msm-g1, gpu-msm-g2: > 0: scalars 0 or 1, this share ones (the ones' sum path)
    bool ones_listed = false;  // with ones_share: the ones as an index list instead of a bitmap
    // gpu-msm-g1, gpu-msm-g2: GpuMsmConfig::precompute_windows (a table of window multiples built once, resident)
    bool precompute_windows = false;
    // gpu-msm-g1, gpu-msm-g2: the scalars uploaded once before the runs and read in place (MsmContext::msm_device),
    // as sppark's anchors were measured; otherwise each run uploads them from page-locked host memory
    bool device_scalars = false;
    // gpu-msm-g1, gpu-msm-g2: the bases in host memory, streamed up chunk_points at a time (0: the default) every
    // run (gpu::StreamedMsm), each run one call over `sets` scalar sets; resident, `sets` calls a run
    bool streamed = false;
    size_t chunk_points = 0;
    size_t sets = 1;
    std::string ntt_kind = "forward";  // gpu-ntt: one of kNttKinds
    bool ntt_in_place = false;         // gpu-ntt: gpu::NttConfig::in_place (no scratch)
    bool ntt_steps = false;            // gpu-ntt: also with NttConfig's pointwise steps, fused and apart
    bool quick = false;        // smaller sizes and 3 repetitions (the demo)
    // pipeline: partitions of one job through the engine
    size_t partitions = 4;
    size_t lookahead = 1;
    size_t workers = 0;  // 0: engine::auto_synthesis_workers()
    size_t memory_budget = 0;  // pipeline, porep-c2, post, snap: EngineConfig::memory_budget_bytes (0: auto)
    // porep-c2, post, snap: the sparse products on the CPU even where a GPU could hold the matrices
    // (EngineConfig::device_products off), to compare the two
    bool host_products = false;
    // porep-c2, post, snap: the job holds the compiled matrices on the GPU itself, so their copy is in its wall time
    // (default: they are held and copied before the job, as the daemon keeps them with the key)
    bool matrices_per_job = false;
    bool first_with_others = false;  // porep-c2: JobSpec::first_partition_alone off
    std::string backend = "auto";  // pipeline, groth16: auto (GPU when built and present), cpu, gpu
    // groth16: pseudo-random parameters of the circuit's shape (groth16::benchmark_parameters) instead of a setup,
    // for sizes where a setup takes too long; the proofs are not verified
    bool random_params = false;
    // pipeline: partitions through the pre-compiled constraint evaluator (witness + sparse product) instead of
    // full synthesis
    bool pce = false;
    bool pin_params = false;  // groth16, pipeline: page-lock the parameters in host memory (GpuProverConfig)
    // groth16, pipeline, porep-c2, post, snap: the queries in host memory, streamed to the GPU at every MSM
    // (GpuProverConfig::stream_queries: what a GPU smaller than the key does)
    bool stream_queries = false;
    // groth16, pipeline, porep-c2, post, snap: the A, B, L MSMs beside the H query's (GpuProverConfig::overlap_query_msms)
    bool overlap_msms = true;
    // porep-c2, post, snap, pipeline, groth16: a proof's H arrays in their lean form (GpuProverConfig::lean_h)
    bool lean_h = false;
    // porep-c2, post, snap, pipeline, groth16: the next partition's witness into the one H slot beside the proof
    // before (GpuProverConfig::share_slot)
    bool share_slot = true;
    // porep-c2, post, snap, pipeline, groth16: witnesses of mostly 0 and 1 sent packed (GpuProverConfig::pack_witness)
    bool pack_witness = false;
    // porep-c2, post, snap, pipeline, groth16: a proof that was not prepared sends L's split packed as its witness
    // (GpuProverConfig::upload_from_split)
    bool upload_from_split = true;
    // porep-c2, post, snap, pipeline, groth16: the A, B, L and B_G2 MSMs' streams first
    // (GpuProverConfig::query_msm_priority)
    bool query_priority = false;
    // porep-c2, post, snap, pipeline, groth16: a prepared circuit's 0/1 split after the running proofs' own
    // (GpuProverConfig::own_split_first)
    bool own_split_first = false;
    // porep-c2, post, snap: the synthesis workers' nice value (EngineConfig::synthesis_nice)
    int synthesis_nice = 0;
    // every bench: host threads sleep while they wait for the GPU instead of spinning (gpu::set_blocking_waits)
    bool blocking_waits = false;
    // porep-c2: the other syntheses also wait for the first partition's witness upload (JobSpec::first_upload_alone,
    // on in porep_c2_spec; false turns it off)
    bool first_upload_alone = true;
    bool defer_ones = true;  // porep-c2: JobSpec::defer_ones (the job's own choice), --no-defer-ones: off
    // groth16, pipeline: device bytes for precomputed MSM window tables (GpuProverConfig::msm_table_bytes; 0: none)
    size_t msm_table_bytes = 0;
    // groth16: circuits per engine job (the GPU backend uploads one circuit's a, b, c during the previous one's MSMs)
    size_t batch = 1;
    // groth16 with --random-params: every circuit proves a copy of proof 0's assignment (no synthesis per circuit;
    // for prover measurements at sizes where synthesis takes a minute a circuit)
    bool same_witness = false;
    // groth16, pipeline: write the last call's timing spans (every layer, start and duration) to this JSON file
    std::string timeline_path;
    // porep-c2: Filecoin's PoRep C2 of the C1 in c1_path, or of a generated C1 (filecoin c1-gen) of proof_type with
    // c1_seed; parameters from params_dir (Filecoin's file names), or random ones of the circuit's shape.
    // post: one partition of the PoSt proof_type (a Winning or Window name) from vanilla proofs generated with c1_seed;
    // snap: every partition of an update of proof_type (the SHA-256 variant, or the Poseidon one with poseidon)
    std::string proof_type = "StackedDrg32GiBV1_1";
    std::string c1_path;
    uint64_t c1_seed = 1;
    std::string params_dir;
    // porep-c2: every partition fully synthesized instead of its witness and the matrices compiled once (the PCE,
    // the default: ~4x faster per 32 GiB partition on the H200 host)
    bool full_synthesis = false;
    bool poseidon = false;  // snap: the EmptySectorUpdate-Poseidon circuit
    // porep-c2, post, snap: the job this many times, each on a fresh engine and backend (parameters uploaded
    // again), one JSON line each; the inputs, the compiled matrices and the parameters are made once
    size_t runs = 1;
    // porep-c2, post, snap with runs > 1: every second run with this setting flipped (pack-witness, overlap-msms,
    // share-slot or host-products; empty: none), so one invocation compares two settings on the same inputs
    std::string alternate;
    // porep-c2: once this many partitions are proven, a CRITICAL Winning PoSt of the same sector size (generated
    // vanilla proof, random or Filecoin's parameters as for the C2) is submitted to the same engine; its latency
    // from submission to proof is reported beside the same job alone (issue 19: priorities that preempt).
    std::optional<size_t> critical_after;
    // porep-c2: this many C2 jobs of the same C1 submitted to one engine at once (the first is the reported job): the
    // times at which each ends, for throughput in steady state (issue 22: several C1s queued)
    size_t queued = 1;
    // porep-c2: the parameters as a file's key, loaded by the engine's key store as `filecoin c2` and the daemon load
    // them (on a GPU host straight onto the GPUs, checked there; no host copy): the file in params_dir, written first
    // with random points of the circuit's shape when it is missing and random_params is set (~2 min at 32 GiB).
    bool key_file = false;
};

// A built-in circuit and how to build its witness (circuits/catalog.hpp).
using CircuitOptions = circuits::CircuitSpec;

struct SetupOptions {
    CircuitOptions circuit;
    std::string params_path, vk_path;
    std::optional<uint64_t> seed;  // deterministic toxic waste (tests, benchmarks); default: OS CSPRNG
    bool json = false;
};

struct ProveOptions {
    CircuitOptions circuit;
    std::string params_path, proof_path, public_path;
    size_t batch = 1;
    bool unchecked_params = false;  // skip the subgroup checks of the queries (on-curve is still checked)
    std::string pce_path;           // a .pce of this circuit: witness + sparse product instead of full synthesis
    std::string backend = "auto";   // auto (the GPU prover when built and a GPU is present), cpu, gpu
    bool json = false;
};

struct VerifyOptions {
    std::string vk_path, params_path, proof_path, public_path;
    bool json = false;
};

int run_setup(const SetupOptions& opt);
int run_prove(const ProveOptions& opt);
int run_verify(const VerifyOptions& opt);
int run_bench_groth16(const CircuitOptions& circuit, const BenchOptions& opt, int reps, const std::string& cpu);
// One job of opt.partitions partitions of `circuit` through the engine (engine/engine.hpp): wall time, the
// per-stage timeline summary at the pipeline and prover layers, the gap between them, peak RSS, freed buffers.
int run_bench_pipeline(const CircuitOptions& circuit, const BenchOptions& opt, const std::string& cpu);
// Shape of a built-in circuit: constraints, variables, witness 0/1 share, query densities, synthesis time.
int run_circuit_info(const CircuitOptions& c, bool json);
// The pre-compiled constraint evaluator's file: build it for a built-in circuit, or check and summarize one.
int run_pce_build(const CircuitOptions& c, const std::string& out, bool json);
int run_pce_info(const std::string& path, bool json);

// Prints one JSON object per benchmark on stdout; returns the process exit code. `bench groth16` and `bench pipeline`
// prove the mulchain circuit, or `groth16_circuit` when it names a PoRep circuit (porep-2k ... porep-64g or a proof
// type: Filecoin's partition circuit on generated C1 data).
int run_bench(const BenchOptions& opt);
int run_bench(const BenchOptions& opt, const std::string& groth16_circuit);

// Runs the correctness self-check (CPU, and GPU against CPU when a device is present); prints one line per check,
// returns 0 when every check passed.
int run_selfcheck();

// Machine, thread and GPU summary.
int run_info();

// The key store of the CLI's engines for `choice` (auto, cpu, gpu): one copy of a key's parameters per GPU when the
// build has CUDA and a device is present (not for cpu), the CPU backend behind them or alone; gpu without a device
// is an error.
// `gpu`: the GPU prover's settings of every GPU copy. `checked`: a file's points are checked for their subgroups as
// they load (on the GPU where there is one).
struct CliGpuOptions {
    bool pin_params = false;       // GpuProverConfig::pin_host_params
    size_t msm_table_bytes = 0;    // GpuProverConfig::msm_table_bytes
    bool stream_queries = false;   // GpuProverConfig::stream_queries
    bool overlap_msms = true;      // GpuProverConfig::overlap_query_msms
    bool lean_h = false;           // GpuProverConfig::lean_h
    bool share_slot = true;        // GpuProverConfig::share_slot
    bool pack_witness = false;     // GpuProverConfig::pack_witness
    bool query_priority = false;   // GpuProverConfig::query_msm_priority
    bool own_split_first = false;  // GpuProverConfig::own_split_first
    bool upload_from_split = true;  // GpuProverConfig::upload_from_split
};
// The GPU settings of a bench's or a job's options (BenchOptions, CliJobOptions: the fields of the same names).
template <class Options>
CliGpuOptions cli_gpu_options(const Options& o, size_t msm_table_bytes = 0) {
    return {o.pin_params, msm_table_bytes, o.stream_queries, o.overlap_msms, o.lean_h,
            o.share_slot, o.pack_witness, o.query_priority, o.own_split_first, o.upload_from_split};
}
engine::KeyStoreConfig cli_key_store(const std::string& choice, const CliGpuOptions& gpu = {}, bool checked = true);
// Parameters the caller keeps alive longer than `eng` as one of its keys (borrowed, not copied).
std::shared_ptr<const engine::ProvingKey> cli_key(engine::Engine& eng, const std::string& name,
                                                  const groth16::Parameters& params);

// A partition proven again on the fallback backend is said on stderr as it happens ("note: ...").
void note_fallbacks(engine::JobSpec& spec);

// One engine job as the CLI runs it: the parameters as the engine's key for `backend` (cli_key_store: a copy per
// GPU, the CPU behind them as fallback, its retries said on stderr), every proof verified against verify_key when
// one is given.
struct CliJobOptions {
    std::string backend = "auto";
    bool pin_params = false;
    bool stream_queries = false;  // GpuProverConfig::stream_queries
    bool overlap_msms = true;     // GpuProverConfig::overlap_query_msms
    bool lean_h = false;          // GpuProverConfig::lean_h
    bool share_slot = true;       // GpuProverConfig::share_slot
    bool pack_witness = false;    // GpuProverConfig::pack_witness
    bool query_priority = false;  // GpuProverConfig::query_msm_priority
    bool own_split_first = false;  // GpuProverConfig::own_split_first
    bool upload_from_split = true;  // GpuProverConfig::upload_from_split
    // Synthesis workers for the host (auto) and a memory budget of engine::auto_memory_budget() unless set.
    engine::EngineConfig engine = [] {
        engine::EngineConfig c;
        c.synthesis_workers = 0;
        return c;
    }();
    const groth16::VerifyingKey* verify_key = nullptr;
    bool verify = false;        // a file's key: verify against its verifying key
    bool job_peak_rss = false;  // reset the process's peak RSS before the key is made (CliJob::peak_rss_bytes)
    // Optional: run on its own thread beside the job, with the engine and the job's id (e.g. to submit another
    // job meanwhile); joined before run_engine_job returns.
    std::function<void(engine::Engine&, engine::JobId)> beside;
    // The job's compiled matrices (JobSpec::pce) held on the key's devices and copied there before the job is
    // submitted, as the daemon's key store keeps them with a key after its first job (KeyStoreConfig::
    // keep_device_products); otherwise the job holds them itself and its first partition waits for the copy.
    bool products_resident = false;
};
struct CliJob {
    engine::JobResult result;
    std::string backend;          // the prover's name
    engine::Engine::Stats stats;  // the engine's, after the job
    size_t peak_rss_bytes = 0;    // with job_peak_rss: the peak from the key's making to the end
    double key_s = 0;             // making the key: reading the parameters (a file's) and uploading them
    bool products_resident = false;  // with products_resident: every device of the key holds the matrices
    double products_s = 0;           // holding them and copying them to the devices
    groth16::VerifyingKey vk;     // the key's
};
CliJob run_engine_job(engine::JobSpec spec, const groth16::Parameters& params, const CliJobOptions& opt);
// The same with a parameter file as the key, loaded by the engine's key store as the daemon loads it (on a GPU host
// straight onto the GPUs, its points checked there unless `checked` is false). The job is verified against the
// file's verifying key when opt.verify_key is null and opt.verify is set.
CliJob run_engine_job(engine::JobSpec spec, const std::filesystem::path& params_file, bool checked,
                      const CliJobOptions& opt);
// The proving commands' options: `backend`, every proof verified against vk.
inline CliJobOptions verified_job(const std::string& backend, const groth16::VerifyingKey& vk) {
    CliJobOptions o;
    o.backend = backend;
    o.verify_key = &vk;
    return o;
}

// A command's JSON line on stdout: `extra`, "command", "total_s", "threads" and the sink's spans as "timings".
void print_timing_json(const char* command, const TimingSink& sink, double total_s, nlohmann::json extra);

// How the CLI reads a parameter file: subgroup checks unless `checked` is false, on the GPU when the build has one,
// a device is present and `backend` is not "cpu" (backends/cuda/subgroup_checks.hpp), else on the CPU.
formats::ParamsReadOptions param_read_options(bool checked, const std::string& backend = "auto");

// Filecoin's PoRep C2 through the engine (bench porep-c2): one JSON line with the job's figures.
int run_bench_porep_c2(const BenchOptions& opt, const std::string& cpu);
// Loading a PoRep parameter file with and without the subgroup checks (bench params-load).
int run_bench_params_load(const BenchOptions& opt, const std::string& cpu);
// One Filecoin PoSt partition of generated vanilla proofs through the engine (bench post --proof-type NAME).
int run_bench_post(const BenchOptions& opt, const std::string& cpu);
// A SnapDeals update of generated vanilla proofs through the engine (bench snap --proof-type NAME [--poseidon]).
int run_bench_snap(const BenchOptions& opt, const std::string& cpu);
// The rest of a Filecoin bench once its parameters are ready: `spec` on opt's backend (the CPU as fallback, said on
// stderr), proofs verified by the engine and then by check_proof (Filecoin's inputs) unless the parameters are
// random; throws unless the job is Done; the job's report added to j, which is printed as one line.
// `beside` (optional): CliJobOptions::beside. `key_file` (optional): the job's key is this parameter file, loaded by
// the engine's key store as the daemon loads it (params then needs only its verifying key), each run again.
int run_filecoin_bench_job(nlohmann::json& j, const BenchOptions& opt, const std::string& cpu,
                           const groth16::Parameters& params, engine::JobSpec spec, size_t partitions,
                           const std::function<void(const engine::JobResult&)>& check_proof,
                           std::function<void(engine::Engine&, engine::JobId)> beside = {},
                           const std::filesystem::path& key_file = {});
// A Winning PoSt ready to submit beside another job (bench porep-c2 --critical-after): the vanilla proof of one
// generated sector, the job, its compiled matrices, and parameters (random ones with opt.random_params).
struct WinningProbe {
    engine::PostJob job;
    r1cs::PrecompiledR1cs pce;
    groth16::Parameters params;
};
std::unique_ptr<WinningProbe> winning_probe(const BenchOptions& opt, filecoin::RegisteredPoStProof proof);
// Random points of a partition circuit's shape (the proofs are then not verified): the query sizes from its compiled
// matrices when given, else from the partition synthesized once (outside the measured job).
groth16::Parameters bench_random_parameters(const r1cs::Circuit& partition, const r1cs::PrecompiledR1cs* pce);
// A Filecoin bench's progress line on stderr ("bench NAME: ...").
template <class... A>
void bench_progress(const char* bench, const char* fmt, A... a) {
    std::fprintf(stderr, "bench %s: ", bench);
    std::fprintf(stderr, fmt, a...);
    std::fprintf(stderr, "\n");
}

// An engine job's figures (wall, per-partition synthesis and proving, layer sums, busy shares, peak RSS, ...) added
// to a benchmark's JSON object; the timeline's breakdown is printed on stderr.
void add_job_report(nlohmann::json& j, const engine::JobResult& res, size_t partitions, const engine::Engine::Stats& st,
                    size_t peak_rss);

// Names accepted by run_bench.
std::vector<std::string> bench_names();

}  // namespace cuzk::cli
