// The daemon's configuration (`cuzk daemon --config cuzk.toml`), read with toml++. Relative paths are resolved
// against the directory of the configuration file. Every key is optional; docs/daemon.md lists them with their
// defaults (the fields below carry the same defaults).
//
//   [server]  socket, tcp, allow_remote, metrics, max_request_bytes, log
//   [paths]   params, circuits, state
//   [engine]  backend, synthesis_workers, lookahead, total_budget, check_params, verify_proofs, cpu_fallback
//   [jobs]    max_partitions, max_queued, result_ttl_seconds, shutdown
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace cuzk::daemon {

// Filecoin's parameter directory: FIL_PROOFS_PARAMETER_CACHE when set, else /var/tmp/filecoin-proof-parameters.
std::filesystem::path default_params_dir();

struct DaemonConfig {
    // [server]
    std::filesystem::path socket = "cuzk.sock";  // unix socket (mode 0600); relative to [paths] state
    std::string tcp;                  // "host:port" to also listen on TCP; empty: none
    bool allow_remote = false;        // tcp and metrics must be loopback addresses unless this is set
    std::string metrics;              // "host:port" for HTTP GET /metrics (Prometheus); empty: none
    size_t max_request_bytes = size_t{256} << 20;  // 256 MiB, as Curio's client sends (a 64 GiB C1 is ~100 MB)
    // [paths]
    // Parameter files: Filecoin's jobs find theirs by Filecoin's name in it, cuzk jobs name files inside it.
    std::filesystem::path params_dir = default_params_dir();
    std::filesystem::path circuits_dir = "circuits";  // circuit files (R1CS, PCE); requests name files inside it
    std::filesystem::path state_dir = ".";            // the job database (cuzk.db) and the default socket
    // [engine]
    std::string backend = "auto";     // auto (GPU when built and present), cpu, gpu
    // The GPUs to prove on, by ordinal among the visible CUDA devices (CUDA_VISIBLE_DEVICES applies first), as
    // `cuzk daemon` lists them at start; empty (the default): every visible one. A missing ordinal is an error at
    // start, not a silent CPU fallback.
    std::vector<size_t> gpus;
    size_t synthesis_workers = 0;     // 0 ("auto", the default): engine::auto_synthesis_workers(), resolved by
                                      // the daemon
    size_t lookahead = 1;
    size_t total_budget = 0;          // bytes for parameters and jobs; 0: "auto" (physical memory minus a margin)
    bool check_params = true;         // subgroup checks of every point when a parameter file is loaded
    bool verify_proofs = true;        // every proof is verified before it is returned
    bool cpu_fallback = true;         // a partition that fails on the last GPU left is proven again on the CPU
    // auto: a built-in circuit's partitions are made by its pre-compiled constraint evaluator (witness + sparse
    // product, ~3.6x faster than full synthesis at Filecoin sizes), compiled on first use and kept in
    // [paths] circuits as <shape>.pce for the next start; off: full synthesis unless a request names a .pce file.
    std::string pce = "auto";
    // Page-lock each loaded parameter set in host memory while it is cached (GPU backend only): it can then never
    // be paged out. The upload to the device is as fast without (docs/perf.md), so off by default.
    bool pin_params = false;
    // A parameter set no GPU's key budget holds whole (a 32 GiB PoRep set on a 12-24 GB card) is kept in host
    // memory, page-locked (~44 GB, shared by the GPUs), and its points go to the GPU at every MSM instead of the
    // set proving on the CPU: a 32 GiB C2 in 37 s on an emulated 16 GB card, 41-54 s on a 12 GB one (perf.md).
    bool stream_large_keys = true;
    // The GPU prover runs a partition's A, B, L MSMs beside its H query's MSM, on a second MSM scratch (a call it
    // has no room for waits for the first instead): 1.3-1.5 % less GPU time per 32 GiB PoRep partition on an H100
    // 80 GB beside the resident key and on an H200 (docs/perf.md). Not for a key streamed to a small card.
    bool overlap_msms = true;
    // On a GPU with room for one set of H's arrays beside its key (an 80 GB card holding a 32 GiB PoRep key), the
    // next partition's witness goes into that set once the proof before has computed H, beside its MSMs
    // (GpuProverConfig::share_slot): a 32 GiB C2 on an H100 15.2 -> 13.6 s, 12.7 s now (docs/perf.md).
    bool share_slot = true;
    // A PoRep C2's partitions on a GPU are proven into one group whose ones (~half of each witness) are summed
    // together at its end (engine::JobSpec::defer_ones): a 32 GiB C2 on an H100 12.5-12.7 -> 11.6-11.9 s
    // (docs/perf.md). Its partitions then count as proven all at once, at the end.
    bool defer_ones = true;
    // A job's first partition on a GPU splits its scalars first and sends L's split as its packed witness (~0.1 GB
    // of a 32 GiB partition's 4.2 GB) instead of its whole witness (GpuProverConfig::upload_from_split): a 32 GiB
    // C2 on an H100 12.13-12.18 -> 12.00 s (docs/perf.md). Off: the witness first, the split beside H (a host with
    // few cores, whose split would take longer than that upload).
    bool upload_from_split = true;
    // [jobs]
    size_t max_partitions = 64;
    size_t max_queued = 1000;         // jobs waiting or running; more are refused (RESOURCE_EXHAUSTED)
    double result_ttl_seconds = 24 * 3600;  // a day: finished results are kept this long unless fetched earlier
    std::string shutdown = "drain";   // drain: finish every accepted job first; interrupt: stop at the next
                                      // partition, keep the jobs for the next start
    // [server] log: one line per job event on stderr
    bool log = true;

    std::filesystem::path database() const { return state_dir / "cuzk.db"; }
    std::filesystem::path socket_path() const { return socket.is_absolute() ? socket : state_dir / socket; }
};

// Parses TOML text; relative paths are resolved against base_dir. std::invalid_argument naming the key for a bad
// value, an unknown key or a TOML syntax error (with its line).
DaemonConfig parse_config(const std::string& toml_text, const std::filesystem::path& base_dir);
// Reads and parses a file (std::runtime_error when it cannot be read).
DaemonConfig load_config(const std::filesystem::path& path);

// "64GiB", "512MiB", "1000000" (bytes), "auto" (0) -> bytes; std::invalid_argument otherwise.
size_t parse_bytes(const std::string& text);

// Whether "host:port" names a loopback address (127.0.0.0/8, ::1, localhost).
bool is_loopback_address(const std::string& host_port);

}  // namespace cuzk::daemon
