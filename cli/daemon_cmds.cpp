#include "daemon_cmds.hpp"

#include <atomic>
#include <csignal>
#include <fstream>
#include <sstream>
#include <vector>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include <unistd.h>

#ifdef CUZK_HAVE_DAEMON
#include <google/protobuf/util/json_util.h>
#include <nlohmann/json.hpp>

#include "cuzk/daemon/client.hpp"
#include "cuzk/daemon/daemon.hpp"
#include "cuzk/daemon/filecoin_jobs.hpp"
#include "cuzk/filecoin/proof_types.hpp"
#include "cuzk/formats/proof_io.hpp"
#include "cuzk/formats/snarkjs_json.hpp"
#include "cuzk/util/input_file.hpp"
#include "cuzk/util/timing.hpp"
#endif

namespace cuzk::cli {

#ifndef CUZK_HAVE_DAEMON

void add_daemon_commands(CLI::App& app, int& exit_code) {
    for (const char* name : {"daemon", "client"}) {
        auto* cmd = app.add_subcommand(name, std::string(name) + " (needs a build with gRPC, SQLite and toml++)");
        cmd->allow_extras();
        cmd->callback([&exit_code, name] {
            std::fprintf(stderr,
                         "cuzk %s: this cuzk was built without the daemon (gRPC, protobuf, SQLite or toml++ missing; "
                         "scripts/setup.sh installs them)\n",
                         name);
            exit_code = 2;
        });
    }
}

#else

namespace {

struct SubmitArgs {
    std::string circuit = "mulchain", preset, params, priority, x, pce, zkey;
    std::vector<std::string> wtns;
    unsigned log_size = 0;
    uint64_t witness_seed = 0;
    unsigned partitions = 0;
    double deadline = 0;
    // A Filecoin proof, as Curio sends it.
    std::string kind, request_id, c1, randomness, comm_r_old, comm_r_new, comm_d_new;
    std::vector<std::string> vanilla;
    uint64_t registered_proof = 0, miner_id = 0, sector_number = 0, sector_size = 0;
    uint32_t partition_index = 0;
};

struct AwaitArgs {
    std::string job, proof, pub, timeline, proof_json;
    double timeout = 0;
    bool json = false, quiet = false, breakdown = false;
};

void add_submit_options(CLI::App* cmd, SubmitArgs& a) {
    cmd->add_option("--circuit", a.circuit,
                    "cubic, mulchain, a PoRep circuit (porep-2k ... porep-64g, or a proof type such as "
                    "StackedDrg32GiBV1_1), or a job kind: porep-c2, window-post, winning-post, snap-update");
    cmd->add_option("--preset,--proof-type", a.preset,
                    "job kinds: the PoRep circuit they prove (default porep-2k; window-post, winning-post and "
                    "snap-update prove it too until their circuits are wired, issue 18)");
    cmd->add_option("--log-size", a.log_size, "mulchain: 2^k constraints");
    cmd->add_option("--witness-seed", a.witness_seed, "witness generator seed (default: random)");
    cmd->add_option("--partitions", a.partitions, "partitions (default: the kind's, else 1)");
    cmd->add_option("--params", a.params, "parameter file, relative to the daemon's parameter directory");
    cmd->add_option("--priority", a.priority, "low, normal, high, critical (default: the kind's, else normal)")
        ->check(CLI::IsMember({"low", "normal", "high", "critical"}));
    cmd->add_option("--deadline", a.deadline, "seconds; the job is cancelled when it has not ended by then");
    cmd->add_option("--x", a.x, "cubic: the private x (decimal)");
    cmd->add_option("--pce", a.pce, "a .pce file of the circuit, relative to the daemon's circuit directory");
    cmd->add_option("--zkey", a.zkey, "circom: the .zkey, relative to the daemon's parameter directory");
    cmd->add_option("--wtns", a.wtns, "circom: a local .wtns file per partition (sent with the request)")
        ->check(CLI::ExistingFile);
    // Filecoin's proofs, the request Curio sends (--kind instead of --circuit).
    cmd->add_option("--kind", a.kind, "a Filecoin proof: porep-c2, window-post, winning-post, snap-update")
        ->check(CLI::IsMember({"porep-c2", "window-post", "winning-post", "snap-update"}));
    cmd->add_option("--registered-proof", a.registered_proof, "Filecoin's numeric registered proof (e.g. 8: 32 GiB V1_1 seal)");
    cmd->add_option("--sector-size", a.sector_size, "bytes (checked against the registered proof)");
    cmd->add_option("--request-id", a.request_id, "idempotency key: the same id answers the same job");
    cmd->add_option("--c1", a.c1, "porep-c2: a local C1 output (or Curio's envelope of one)")->check(CLI::ExistingFile);
    cmd->add_option("--vanilla", a.vanilla, "PoSt: a local vanilla proof file per sector; snap: per partition")
        ->check(CLI::ExistingFile);
    cmd->add_option("--miner-id", a.miner_id, "the miner's actor id");
    cmd->add_option("--sector-number", a.sector_number, "porep-c2: the sector number");
    cmd->add_option("--randomness", a.randomness, "PoSt: the challenge randomness, 64 hex digits");
    cmd->add_option("--partition-index", a.partition_index, "window-post: the partition");
    cmd->add_option("--comm-r-old", a.comm_r_old, "snap-update: 64 hex digits");
    cmd->add_option("--comm-r-new", a.comm_r_new, "snap-update: 64 hex digits");
    cmd->add_option("--comm-d-new", a.comm_d_new, "snap-update: 64 hex digits");
}

// 32 raw bytes from 64 hex digits ("" stays empty).
std::string raw32(const std::string& hex, const char* what) {
    if (hex.empty()) return "";
    const auto b = filecoin::bytes32_from_hex(hex, what);
    return std::string(b.begin(), b.end());
}

// --kind's name back to the protocol's kind (the daemon's names for them); the option allows only these.
v1::ProofKind kind_of(const std::string& kind) {
    for (const auto k : {v1::POREP_SEAL_COMMIT, v1::WINDOW_POST_PARTITION, v1::WINNING_POST, v1::SNAP_DEALS_UPDATE})
        if (daemon::proof_kind_label(k) == kind) return k;
    throw std::invalid_argument("--kind " + kind);
}

v1::SubmitProofRequest request_of(const SubmitArgs& a) {
    v1::SubmitProofRequest q;
    q.set_request_id(a.request_id);
    if (a.priority == "low") q.set_priority(v1::LOW);
    if (a.priority == "normal") q.set_priority(v1::NORMAL);
    if (a.priority == "high") q.set_priority(v1::HIGH);
    if (a.priority == "critical") q.set_priority(v1::CRITICAL);
    q.set_deadline_seconds(a.deadline);
    if (!a.kind.empty()) {
        q.set_proof_kind(kind_of(a.kind));
        q.set_registered_proof(a.registered_proof);
        q.set_sector_size(a.sector_size);
        q.set_miner_id(a.miner_id);
        q.set_sector_number(a.sector_number);
        q.set_partition_index(a.partition_index);
        if (!a.c1.empty()) q.set_vanilla_proof(read_input_file(a.c1, size_t{256} << 20, "--c1"));
        for (const auto& path : a.vanilla) q.add_vanilla_proofs(read_input_file(path, size_t{256} << 20, "--vanilla"));
        q.set_randomness(raw32(a.randomness, "--randomness"));
        q.set_comm_r_old(raw32(a.comm_r_old, "--comm-r-old"));
        q.set_comm_r_new(raw32(a.comm_r_new, "--comm-r-new"));
        q.set_comm_d_new(raw32(a.comm_d_new, "--comm-d-new"));
        return q;
    }
    q.set_proof_kind(v1::CUZK_JOB);
    v1::CuzkJob& r = *q.mutable_job();
    r.set_circuit(a.circuit);
    r.set_preset(a.preset);
    r.set_log_size(a.log_size);
    r.set_witness_seed(a.witness_seed);
    r.set_partitions(a.partitions);
    r.set_params(a.params);
    r.set_x(a.x);
    r.set_pce(a.pce);
    if (!a.zkey.empty() || !a.wtns.empty()) {
        r.set_circuit("circom");
        r.set_zkey(a.zkey);
        for (const auto& path : a.wtns) {
            r.add_witnesses(read_input_file(path, kMaxJsonInputBytes, "--wtns"));  // the daemon's message limit
        }
    }
    return q;
}

void add_await_options(CLI::App* cmd, AwaitArgs& a) {
    cmd->add_option("--timeout", a.timeout, "seconds to wait (default: until the job ends)");
    cmd->add_option("--proof", a.proof, "write the proofs here (192 bytes each, as `cuzk prove` writes them)");
    cmd->add_option("--public", a.pub,
                    "write the public inputs here (JSON, one array per partition; one partition of a circom job: "
                    "snarkjs's public.json)");
    cmd->add_option("--proof-json", a.proof_json,
                    "circom jobs: write snarkjs's proof.json here (an array of them for several partitions)");
    cmd->add_option("--timeline", a.timeline, "write the job's timeline here (every span, all layers, JSON)");
    cmd->add_flag("--json", a.json, "print the result as JSON (state, error, timings) on stdout");
    cmd->add_flag("--quiet", a.quiet, "no progress display");
    cmd->add_flag("--breakdown", a.breakdown,
                  "print the job's timeline per layer and stage, with the gaps between the layers");
}

// Writes the result's files and prints it; the exit code of the result.
int report(const v1::AwaitProofResponse& r, const AwaitArgs& a) {
    if (r.state() == v1::DONE) {
        if (!a.proof.empty())  // 192 bytes per partition, as `cuzk prove` and Filecoin write them
            formats::detail::write_file_atomically(
                a.proof, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(r.proof().data()), r.proof().size()));
        const bool circom = r.proofs_json_size() > 0;
        if (!a.pub.empty()) {
            std::string text = r.public_inputs_json();
            if (circom && r.proofs_size() == 1) text = nlohmann::json::parse(text)[0].dump();  // snarkjs's layout
            formats::snarkjs::write_text_file(a.pub, text + "\n");
        }
        if (!a.proof_json.empty()) {
            if (!circom) throw std::runtime_error("--proof-json: not a circom job");
            std::string text;
            if (r.proofs_json_size() == 1) {
                text = r.proofs_json(0);
            } else {
                text = "[";
                for (int i = 0; i < r.proofs_json_size(); i++) text += (i ? "," : "") + r.proofs_json(i);
                text += "]";
            }
            formats::snarkjs::write_text_file(a.proof_json, text);
        }
    }
    if (!a.timeline.empty()) formats::snarkjs::write_text_file(a.timeline, r.timeline_json() + "\n");
    if (a.json) {
        nlohmann::json j;
        j["job_id"] = r.job_id();
        j["state"] = v1::JobState_Name(r.state());
        j["status"] = v1::AwaitProofResponse::Status_Name(r.status());
        j["error"] = r.error_message();
        j["proof_bytes"] = r.proof().size();
        j["queue_wait_ms"] = r.queue_wait_ms();
        j["srs_load_ms"] = r.srs_load_ms();
        j["synthesis_ms"] = r.synthesis_ms();
        j["gpu_compute_ms"] = r.gpu_compute_ms();
        j["total_ms"] = r.total_ms();
        j["proofs"] = r.proofs_size();
        j["verified"] = r.verified();
        j["wall_s"] = r.wall_seconds();
        j["peak_rss_bytes"] = r.peak_rss_bytes();
        j["fallbacks"] = std::vector<std::string>(r.fallbacks().begin(), r.fallbacks().end());
        if (!r.timeline_json().empty()) {
            double proving = 0, synthesis = 0;
            for (const auto& s : nlohmann::json::parse(r.timeline_json())) {
                if (s["layer"] != "pipeline") continue;
                if (s["name"] == "proving") proving += s["duration_s"].get<double>();
                if (s["name"] == "synthesis") synthesis += s["duration_s"].get<double>();
            }
            j["proving_s"] = proving;
            j["synthesis_s"] = synthesis;
        }
        std::printf("%s\n", j.dump().c_str());
    } else {
        std::printf("job %s %s", r.job_id().c_str(), v1::JobState_Name(r.state()).c_str());
        if (r.state() == v1::DONE)
            std::printf(": %d proof%s%s in %.2f s", r.proofs_size(), r.proofs_size() == 1 ? "" : "s",
                        r.verified() ? " (verified)" : "", r.wall_seconds());
        if (!r.error_message().empty()) std::printf(": %s", r.error_message().c_str());
        std::printf("\n");
        for (const auto& f : r.fallbacks()) std::printf("  fallback: %s\n", f.c_str());
    }
    if (a.breakdown && !r.timeline_json().empty())
        std::printf("%s", timeline_breakdown(spans_from_json(r.timeline_json())).c_str());
    return r.state() == v1::DONE ? 0 : 1;
}

// A one-line progress display on stderr (rewritten in place on a terminal).
std::function<void(const v1::JobStatus&)> progress_display(bool quiet) {
    if (quiet) return {};
    const bool tty = ::isatty(2);
    return [tty](const v1::JobStatus& s) {
        std::fprintf(stderr, "%sjob %s %s: %u/%u partitions proven%s", tty ? "\r" : "", s.job_id().c_str(),
                     v1::JobState_Name(s.state()).c_str(), s.partitions_proven(), s.partitions(), tty ? "   " : "\n");
        std::fflush(stderr);
    };
}

template <class F>
void run_client(int& exit_code, const char* what, F&& fn) {
    try {
        exit_code = fn();
    } catch (const daemon::ClientError& e) {
        std::fprintf(stderr, "cuzk client %s: %s (gRPC status %d)\n", what, e.what(), e.code());
        exit_code = 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cuzk client %s: error: %s\n", what, e.what());
        exit_code = 2;
    }
}

}  // namespace

void add_daemon_commands(CLI::App& app, int& exit_code) {
    // ---- daemon ----
    auto config = std::make_shared<std::string>();
    auto* d = app.add_subcommand("daemon", "serve the gRPC proving API (until SIGINT or SIGTERM)");
    d->add_option("--config", *config, "TOML configuration (docs/daemon.md); default: every key's default")
        ->check(CLI::ExistingFile);
    d->callback([&exit_code, config] {
        try {
            const daemon::DaemonConfig cfg =
                config->empty() ? daemon::DaemonConfig{} : daemon::load_config(*config);
            // Signals go to one thread that asks for the shutdown (blocked here, before any thread starts).
            sigset_t set;
            sigemptyset(&set);
            sigaddset(&set, SIGINT);
            sigaddset(&set, SIGTERM);
            pthread_sigmask(SIG_BLOCK, &set, nullptr);
            daemon::Daemon dm(cfg);
            std::fprintf(stderr, "cuzk daemon: listening on %s%s%s\n", dm.socket_path().c_str(),
                         dm.tcp_port() ? (" and TCP port " + std::to_string(dm.tcp_port())).c_str() : "",
                         dm.metrics_port() ? (", metrics on port " + std::to_string(dm.metrics_port())).c_str() : "");
            // The first signal asks for the shutdown (a drain by default); a second one while it drains interrupts.
            std::atomic<bool> stopped{false};
            std::thread sig([&] {
                int signo = 0;
                sigwait(&set, &signo);
                if (stopped) return;
                dm.request_shutdown();
                sigwait(&set, &signo);
                if (!stopped) dm.interrupt_drain();
            });
            dm.wait_for_shutdown_request();
            dm.shutdown();
            stopped = true;
            pthread_kill(sig.native_handle(), SIGTERM);  // ends its wait for a second signal (blocked: not fatal)
            sig.join();
            exit_code = 0;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "cuzk daemon: error: %s\n", e.what());
            exit_code = 2;
        }
    });

    // ---- client ----
    auto target = std::make_shared<std::string>("cuzk.sock");
    auto* c = app.add_subcommand("client", "talk to a running daemon");
    c->add_option("--socket,--address", *target, "the daemon's unix socket path or host:port (default ./cuzk.sock)");
    c->require_subcommand(1);

    auto sub = std::make_shared<SubmitArgs>();
    auto json_submit = std::make_shared<bool>(false);
    auto* submit = c->add_subcommand("submit", "submit a proof job; prints its id");
    add_submit_options(submit, *sub);
    submit->add_flag("--json", *json_submit, "print {\"job_id\": ...}");
    submit->callback([&exit_code, target, sub, json_submit] {
        run_client(exit_code, "submit", [&] {
            daemon::Client cl(*target);
            const std::string id = cl.submit(request_of(*sub));
            if (*json_submit) std::printf("{\"job_id\":\"%s\"}\n", id.c_str());
            else std::printf("%s\n", id.c_str());
            return 0;
        });
    });

    auto aw = std::make_shared<AwaitArgs>();
    auto* await = c->add_subcommand("await", "wait for a job and fetch its result");
    await->add_option("job", aw->job, "job id")->required();
    add_await_options(await, *aw);
    await->callback([&exit_code, target, aw] {
        run_client(exit_code, "await", [&] {
            daemon::Client cl(*target);
            auto r = cl.await(aw->job, aw->timeout, progress_display(aw->quiet || aw->json));
            if (!aw->quiet && !aw->json && ::isatty(2)) std::fprintf(stderr, "\n");
            return report(r, *aw);
        });
    });

    auto psub = std::make_shared<SubmitArgs>();
    auto paw = std::make_shared<AwaitArgs>();
    auto* prove = c->add_subcommand("prove", "submit a proof job and wait for it, with progress");
    add_submit_options(prove, *psub);
    add_await_options(prove, *paw);
    prove->callback([&exit_code, target, psub, paw] {
        run_client(exit_code, "prove", [&] {
            daemon::Client cl(*target);
            const std::string id = cl.submit(request_of(*psub));
            if (!paw->quiet && !paw->json) std::fprintf(stderr, "job %s submitted\n", id.c_str());
            auto r = cl.await(id, paw->timeout, progress_display(paw->quiet || paw->json));
            if (!paw->quiet && !paw->json && ::isatty(2)) std::fprintf(stderr, "\n");
            return report(r, *paw);
        });
    });

    auto cancel_id = std::make_shared<std::string>();
    auto* cancel = c->add_subcommand("cancel", "cancel a job (queued: at once; running: before its next partition)");
    cancel->add_option("job", *cancel_id, "job id")->required();
    cancel->callback([&exit_code, target, cancel_id] {
        run_client(exit_code, "cancel", [&] {
            daemon::Client cl(*target);
            const bool ok = cl.cancel(*cancel_id);
            std::printf("%s\n", ok ? "cancelled" : "not cancelled (the job had already ended)");
            return ok ? 0 : 1;
        });
    });

    auto status_id = std::make_shared<std::string>();
    auto status_json = std::make_shared<bool>(false);
    auto* status = c->add_subcommand("status", "the daemon's queue, workers, GPUs and memory (and a job's progress)");
    status->add_option("job", *status_id, "job id (optional)");
    status->add_flag("--json", *status_json, "machine-readable output");
    status->callback([&exit_code, target, status_id, status_json] {
        run_client(exit_code, "status", [&] {
            daemon::Client cl(*target);
            const auto s = cl.status(*status_id);
            if (*status_json) {
                std::string out;
                google::protobuf::util::JsonPrintOptions o;
                o.always_print_primitive_fields = true;
                (void)google::protobuf::util::MessageToJsonString(s, &out, o);
                std::printf("%s\n", out.c_str());
                return 0;
            }
            std::printf("cuzk %s, %s backend, %u synthesis workers\n", s.version().c_str(), s.backend().c_str(),
                        s.synthesis_workers());
            for (const auto& g : s.gpus())
                std::printf("  GPU %u %s, %.1f GiB (%.1f free)%s%s\n", g.ordinal(), g.name().c_str(),
                            (double)g.vram_total_bytes() / (1 << 30), (double)g.vram_free_bytes() / (1 << 30),
                            g.current_job_id().empty() ? "" : ", job ", g.current_job_id().c_str());
            std::printf("jobs: %u queued, %u running; %llu completed, %llu failed; up %llu s\n", s.queued(), s.running(),
                        (unsigned long long)s.total_proofs_completed(), (unsigned long long)s.total_proofs_failed(),
                        (unsigned long long)s.uptime_seconds());
            for (const auto& q : s.queues())
                if (q.pending() || q.in_progress())
                    std::printf("  %s: %u pending, %u in progress\n", q.proof_kind().c_str(), q.pending(), q.in_progress());
            for (const auto& p : s.loaded_srs())
                std::printf("  parameters %s: %s, %.2f GiB, %u job(s)\n", p.circuit_id().c_str(),
                            v1::SRSStatus::Tier_Name(p.tier()).c_str(), (double)p.size_bytes() / (1 << 30), p.ref_count());
            std::printf("memory: %.2f GiB resident, budget %.2f GiB, parameters %.2f GiB in %u set(s)\n",
                        (double)s.rss_bytes() / (1 << 30), (double)s.memory_budget_bytes() / (1 << 30),
                        (double)s.params_cached_bytes() / (1 << 30), s.params_cached_sets());
            for (const auto& j : s.jobs())
                std::printf("  job %s %s %s %u/%u %s\n", j.job_id().c_str(), j.circuit().c_str(),
                            v1::JobState_Name(j.state()).c_str(), j.partitions_proven(), j.partitions(),
                            v1::Priority_Name(j.priority()).c_str());
            if (s.has_job())
                std::printf("job %s: %s, %u/%u partitions proven\n", s.job().job_id().c_str(),
                            v1::JobState_Name(s.job().state()).c_str(), s.job().partitions_proven(),
                            s.job().partitions());
            return 0;
        });
    });

    auto* metrics = c->add_subcommand("metrics", "the daemon's metrics (Prometheus text format)");
    metrics->callback([&exit_code, target] {
        run_client(exit_code, "metrics", [&] {
            daemon::Client cl(*target);
            std::fputs(cl.metrics().c_str(), stdout);
            return 0;
        });
    });

    auto pname = std::make_shared<std::string>();
    auto* preload = c->add_subcommand("preload", "load a parameter set now (a circuit id such as porep-32g, or a file "
                                                 "relative to the parameter directory)");
    preload->add_option("params", *pname, "circuit id or parameter file")->required();
    preload->callback([&exit_code, target, pname] {
        run_client(exit_code, "preload", [&] {
            daemon::Client cl(*target);
            std::printf("%llu bytes resident\n", (unsigned long long)cl.preload(*pname));
            return 0;
        });
    });
    auto ename = std::make_shared<std::string>();
    auto* evict = c->add_subcommand("evict", "drop a cached parameter set (unless a job uses it)");
    evict->add_option("params", *ename, "circuit id or parameter file")->required();
    evict->callback([&exit_code, target, ename] {
        run_client(exit_code, "evict", [&] {
            daemon::Client cl(*target);
            const bool ok = cl.evict(*ename);
            std::printf("%s\n", ok ? "evicted" : "not evicted (not cached, or in use)");
            return ok ? 0 : 1;
        });
    });
}

#endif

}  // namespace cuzk::cli
