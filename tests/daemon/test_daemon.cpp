// The daemon end to end over its unix socket (issue 8): concurrent clients, cancellation, priorities, bad requests
// answered with a clear gRPC status while the daemon keeps serving, admission by memory budget and queue size,
// restart with jobs in flight, the metrics endpoint; and its parts (config, job store). CPU backend throughout.
#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <limits>
#include <fstream>
#include <nlohmann/json.hpp>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <optional>
#include <thread>
#include <vector>

#include "cuzk/circuits/builtin.hpp"
#include "cuzk/daemon/client.hpp"
#include "cuzk/daemon/config.hpp"
#include "cuzk/daemon/daemon.hpp"
#ifdef CUZK_HAVE_CUDA
#include "cuzk/gpu/device.hpp"
#endif
#include "cuzk/daemon/job_store.hpp"
#include "cuzk/daemon/keys.hpp"
#include "cuzk/engine/key_store.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/formats/iden3.hpp"
#include "cuzk/formats/iden3_circom.hpp"
#include "cuzk/formats/iden3_zkey_writer.hpp"
#include "cuzk/formats/snarkjs_json.hpp"
#include "cuzk/formats/proof_io.hpp"
#include "cuzk/groth16/setup.hpp"
#include "cuzk/groth16/verifier.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "../iden3_bytes.hpp"

using namespace cuzk;
using namespace cuzk::daemon;
namespace fs = std::filesystem;

namespace {

struct TempDir {
    fs::path path;
    TempDir() {
        std::random_device rd;
        path = fs::temp_directory_path() / ("cuzk-daemon-test-" + std::to_string(rd()) + std::to_string(::getpid()));
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// Setup parameters of mulchain 2^k (one public value), cached per size.
const groth16::Parameters& chain_params(unsigned k) {
    static std::map<unsigned, groth16::Parameters> cache;
    static std::mutex mu;
    std::lock_guard<std::mutex> lk(mu);
    auto it = cache.find(k);
    if (it == cache.end())
        it = cache.emplace(k, groth16::generate_parameters(circuits::MulChainCircuit(k, 1, std::nullopt),
                                                           groth16::ToxicWaste::from_seed(40 + k)))
                 .first;
    return it->second;
}

void write_bytes(const fs::path& p, const std::vector<uint8_t>& b) {
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(b.data()), (std::streamsize)b.size());
}

// A daemon's directories: params/m6.params and params/m10.params, an empty circuits/, state/.
DaemonConfig make_config(const fs::path& dir) {
    fs::create_directories(dir / "params");
    fs::create_directories(dir / "circuits");
    for (unsigned k : {6u, 10u}) {
        const fs::path p = dir / "params" / ("m" + std::to_string(k) + ".params");
        if (!fs::exists(p)) write_bytes(p, formats::parameters_to_bytes(chain_params(k)));
    }
    DaemonConfig c;
    c.params_dir = dir / "params";
    c.circuits_dir = dir / "circuits";
    c.state_dir = dir / "state";
    c.backend = "cpu";
    c.synthesis_workers = 1;
    c.log = false;
    return c;
}

v1::SubmitProofRequest chain_request(unsigned k, unsigned partitions, uint64_t seed, v1::Priority prio = v1::NORMAL) {
    v1::SubmitProofRequest r;
    r.set_proof_kind(v1::CUZK_JOB);
    r.mutable_job()->set_circuit("mulchain");
    r.mutable_job()->set_log_size(k);
    r.mutable_job()->set_partitions(partitions);
    r.mutable_job()->set_witness_seed(seed);
    r.mutable_job()->set_params("m" + std::to_string(k) + ".params");
    r.set_priority(prio);
    return r;
}

// Every proof of a DONE result verifies against its public inputs.
void expect_verified(const v1::AwaitProofResponse& r, unsigned k, size_t partitions) {
    ASSERT_EQ(r.state(), v1::DONE) << r.error_message();
    ASSERT_EQ((size_t)r.proofs_size(), partitions);
    EXPECT_TRUE(r.verified());
    const auto pubs = nlohmann::json::parse(r.public_inputs_json());
    ASSERT_EQ(pubs.size(), partitions);
    const auto pvk = groth16::prepare_verifying_key(chain_params(k).vk);
    for (size_t i = 0; i < partitions; i++) {
        const auto& b = r.proofs((int)i);
        const auto proof =
            formats::decode_proof(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(b.data()), b.size()));
        const auto publics = formats::parse_public_inputs_json(pubs[i].dump());
        EXPECT_TRUE(groth16::verify_proof(pvk, proof, publics)) << "partition " << i;
    }
}

// Polls the job's status every 5 ms, up to `tries` times, until it has proven `n` partitions (or reached `state`);
// the caller asserts what it needs afterwards.
void wait_for_partitions(Client& cl, const std::string& job, unsigned n, int tries = 4000) {
    for (int k = 0; k < tries && cl.status(job).job().partitions_proven() < n; k++)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
}
void wait_for_state(Client& cl, const std::string& job, v1::JobState state, int tries = 2000) {
    for (int k = 0; k < tries && cl.status(job).job().state() != state; k++)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

int code_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const ClientError& e) {
        return e.code();
    }
    return 0;
}

double pipeline_span(const v1::AwaitProofResponse& r, const std::string& name) {
    double t = 0;
    for (const auto& s : nlohmann::json::parse(r.timeline_json()))
        if (s["layer"] == "pipeline" && s["name"] == name) t += s["duration_s"].get<double>();
    return t;
}

}  // namespace

TEST(Daemon, ProvesOverTheUnixSocketWithConcurrentClients) {
    TempDir dir;
    Daemon d(make_config(dir.path));
    struct stat st {};
    ASSERT_EQ(::stat(d.socket_path().c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0600u) << "the socket must be private to its owner";
    std::vector<std::thread> clients;
    std::vector<v1::AwaitProofResponse> results(4);
    for (int c = 0; c < 4; c++)
        clients.emplace_back([&, c] {
            Client cl(d.socket_path());
            results[c] = cl.await(cl.submit(chain_request(6, 2, 100 + 10 * c)), 120);
        });
    for (auto& t : clients) t.join();
    std::set<std::string> ids;
    for (const auto& r : results) {
        expect_verified(r, 6, 2);
        ids.insert(r.job_id());
        EXPECT_GT(pipeline_span(r, "proving"), 0.0) << "the timeline travels with the result";
        EXPECT_GT(r.peak_rss_bytes(), 1u << 20);
    }
    EXPECT_EQ(ids.size(), 4u);
    // The result stays fetchable (a second await) and the status knows the job.
    Client cl(d.socket_path());
    expect_verified(cl.await(results[0].job_id(), 10), 6, 2);
    const auto s = cl.status(results[0].job_id());
    EXPECT_EQ(s.job().state(), v1::DONE);
    EXPECT_EQ(s.job().partitions_proven(), 2u);
    EXPECT_EQ(s.backend(), "cpu");
}

TEST(Daemon, CancelsQueuedAndRunningJobs) {
    TempDir dir;
    Daemon d(make_config(dir.path));
    Client cl(d.socket_path());
    const std::string running = cl.submit(chain_request(10, 48, 1));
    const std::string queued = cl.submit(chain_request(10, 2, 2));
    wait_for_partitions(cl, running, 1, 2000);
    EXPECT_TRUE(cl.cancel(queued));
    EXPECT_TRUE(cl.cancel(running));
    const auto rq = cl.await(queued, 60);
    const auto rr = cl.await(running, 60);
    EXPECT_EQ(rq.state(), v1::CANCELLED);
    EXPECT_EQ(rr.state(), v1::CANCELLED);
    EXPECT_EQ(rr.proofs_size(), 0);
    EXPECT_FALSE(cl.cancel(running)) << "already ended";
    EXPECT_EQ(code_of([&] { cl.cancel("424242"); }), (int)grpc::StatusCode::NOT_FOUND);
    // Still serving.
    expect_verified(cl.await(cl.submit(chain_request(6, 1, 3)), 60), 6, 1);
}

// A cancel that reached the engine when an interrupting shutdown begins finishes before the engine is destroyed (it
// used to call into the destroyed engine: the shutdown did not wait for it).
TEST(Daemon, ACancelInTheEngineFinishesBeforeTheShutdownDestroysIt) {
    TempDir dir;
    DaemonConfig cfg = make_config(dir.path);
    cfg.shutdown = "interrupt";
    Daemon d(cfg);
    Client cl(d.socket_path());
    const std::string running = cl.submit(chain_request(10, 48, 1));
    wait_for_partitions(cl, running, 1, 2000);
    std::mutex mu;
    std::vector<std::string> events;
    auto note = [&](const char* e) {
        std::lock_guard<std::mutex> lk(mu);
        events.push_back(e);
    };
    std::thread stopper;
    d.before_engine_cancel_for_testing([&] {
        stopper = std::thread([&] {
            d.shutdown();
            note("stopped");
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the shutdown's chance to go first
        note("cancelling");
    });
    EXPECT_TRUE(d.cancel(std::stoull(running)));
    note("cancelled");
    stopper.join();
    EXPECT_EQ(events, (std::vector<std::string>{"cancelling", "cancelled", "stopped"}));
}

TEST(Daemon, HigherPriorityJobsRunFirst) {
    TempDir dir;
    Daemon d(make_config(dir.path));
    Client cl(d.socket_path());
    const std::string blocker = cl.submit(chain_request(10, 48, 1));
    for (int k = 0; k < 2000 && cl.status(blocker).job().state() != v1::RUNNING; k++)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const std::string low = cl.submit(chain_request(10, 2, 2, v1::LOW));
    const std::string critical = cl.submit(chain_request(10, 2, 3, v1::CRITICAL));
    ASSERT_LT(cl.status(blocker).job().partitions_proven(), 48u) << "the blocker must still be running";
    const auto rc = cl.await(critical, 120);
    const auto rl = cl.await(low, 120);
    expect_verified(rc, 10, 2);
    expect_verified(rl, 10, 2);
    // Submitted after the LOW job, the CRITICAL one waited less: it ran first once the blocker ended.
    EXPECT_LT(pipeline_span(rc, "queued") + pipeline_span(rc, "job") * 0.9, pipeline_span(rl, "queued"));
    EXPECT_EQ(cl.await(blocker, 120).state(), v1::DONE);
    // Job kinds bring their partition count and priority and prove the PoRep circuit (default porep-2k; the PoSt
    // and SnapDeals kinds too until issue 18): winning-post is one CRITICAL partition, window-post one HIGH, porep-c2
    // every partition of one sector (2 KiB: 1; tests/test_circuit_catalog.cpp checks 10 at 32 GiB, whose
    // partitions would not fit a small machine's memory budget). The jobs stay queued and are cancelled: nothing is proven.
    v1::SubmitProofRequest wp;
    wp.set_proof_kind(v1::CUZK_JOB);
    wp.mutable_job()->set_circuit("winning-post");
    wp.mutable_job()->set_params("m6.params");
    const std::string held = cl.submit(chain_request(10, 48, 9));  // keeps the kinds' jobs queued
    const std::string w = cl.submit(wp);
    wp.mutable_job()->set_circuit("window-post");
    wp.mutable_job()->set_preset("StackedDrg2KiBV1_1");
    const std::string wd = cl.submit(wp);
    wp.mutable_job()->set_circuit("porep-c2");
    wp.mutable_job()->clear_preset();
    const std::string c2 = cl.submit(wp);
    EXPECT_EQ(cl.status(w).job().priority(), v1::CRITICAL);
    EXPECT_EQ(cl.status(w).job().partitions(), 1u);
    EXPECT_EQ(cl.status(w).job().circuit(), "porep-2k");
    EXPECT_EQ(cl.status(wd).job().priority(), v1::HIGH);
    EXPECT_EQ(cl.status(wd).job().circuit(), "StackedDrg2KiBV1_1");
    EXPECT_EQ(cl.status(c2).job().priority(), v1::NORMAL);
    EXPECT_EQ(cl.status(c2).job().partitions(), 1u);
    EXPECT_EQ(cl.status(c2).job().circuit(), "porep-2k");
    // A preset that is not an interactive PoRep proof type is refused.
    for (const char* bad : {"porep-4k", "mulchain", "StackedDrg2KiBV1_1_Feat_SyntheticPoRep"}) {
        wp.mutable_job()->set_preset(bad);
        EXPECT_EQ(code_of([&] { cl.submit(wp); }), (int)grpc::StatusCode::INVALID_ARGUMENT) << bad;
    }
    for (const auto& id : {w, wd, c2, held}) cl.cancel(id);
}

TEST(Daemon, BadRequestsGetAClearStatusAndTheDaemonKeepsServing) {
    TempDir dir;
    DaemonConfig cfg = make_config(dir.path);
    cfg.max_partitions = 16;
    cfg.max_request_bytes = 1 << 20;  // 256 MiB by default (Curio's limit)
    fs::create_directories(dir.path / "outside");
    write_bytes(dir.path / "outside" / "secret.params", formats::parameters_to_bytes(chain_params(6)));
    fs::create_symlink(dir.path / "outside" / "secret.params", dir.path / "params" / "link.params");
    write_bytes(dir.path / "params" / "garbage.params", std::vector<uint8_t>(1000, 0x5a));
    Daemon d(cfg);
    Client cl(d.socket_path());
    auto req = [](auto edit) {
        v1::SubmitProofRequest r = chain_request(6, 1, 7);
        edit(r);
        return r;
    };
    using C = grpc::StatusCode;
    const std::vector<std::pair<v1::SubmitProofRequest, C>> cases = {
        {req([](auto& r) { r.mutable_job()->set_circuit("no-such-circuit"); }), C::INVALID_ARGUMENT},
        {req([](auto& r) { r.mutable_job()->set_circuit("cubic"); r.mutable_job()->clear_log_size(); r.mutable_job()->set_x("12abc"); }), C::INVALID_ARGUMENT},
        {req([](auto& r) { r.mutable_job()->set_log_size(40); }), C::INVALID_ARGUMENT},
        {req([](auto& r) { r.mutable_job()->set_partitions(17); }), C::INVALID_ARGUMENT},
        {req([](auto& r) { r.set_deadline_seconds(-1); }), C::INVALID_ARGUMENT},
        {req([](auto& r) { r.set_deadline_seconds(std::numeric_limits<double>::infinity()); }), C::INVALID_ARGUMENT},
        {req([](auto& r) { r.mutable_job()->set_params(""); }), C::INVALID_ARGUMENT},
        {req([&](auto& r) { r.mutable_job()->set_params((dir.path / "outside" / "secret.params").string()); }), C::PERMISSION_DENIED},
        {req([](auto& r) { r.mutable_job()->set_params("../outside/secret.params"); }), C::PERMISSION_DENIED},
        {req([](auto& r) { r.mutable_job()->set_params("link.params"); }), C::PERMISSION_DENIED},
        {req([](auto& r) { r.mutable_job()->set_params("missing.params"); }), C::NOT_FOUND},
        {req([](auto& r) { r.mutable_job()->set_pce("../m6.pce"); }), C::PERMISSION_DENIED},
        {req([](auto& r) { r.mutable_job()->set_x(std::string(2 << 20, '1')); }), C::RESOURCE_EXHAUSTED},  // over 1 MiB
    };
    for (size_t i = 0; i < cases.size(); i++) {
        int code = 0;
        std::string msg;
        try {
            cl.submit(cases[i].first);
        } catch (const ClientError& e) {
            code = e.code();
            msg = e.what();
        }
        EXPECT_EQ(code, (int)cases[i].second) << "case " << i << ": " << msg;
        EXPECT_FALSE(msg.empty()) << "case " << i;
    }
    EXPECT_EQ(code_of([&] { cl.await("abc"); }), (int)C::INVALID_ARGUMENT);
    EXPECT_EQ(code_of([&] { cl.await("999999"); }), (int)C::NOT_FOUND);
    EXPECT_EQ(code_of([&] { cl.status("999999"); }), (int)C::NOT_FOUND);
    // A malformed parameter file is accepted (it is a file in the directory) and the job fails, saying why.
    const auto bad = cl.await(cl.submit(req([](auto& r) { r.mutable_job()->set_params("garbage.params"); })), 60);
    EXPECT_EQ(bad.state(), v1::FAILED);
    EXPECT_NE(bad.error_message().find("garbage.params"), std::string::npos) << bad.error_message();
    // And the daemon keeps serving.
    expect_verified(cl.await(cl.submit(chain_request(6, 2, 8)), 60), 6, 2);
    const std::string m = cl.metrics();
    // Every case but the last, which gRPC refuses before the daemon sees it (over the message limit).
    EXPECT_NE(m.find("cuzk_jobs_rejected_total " + std::to_string(cases.size() - 1) + "\n"), std::string::npos) << m;
}

TEST(Daemon, AdmissionKeepsJobsInsideTheBudgetAndTheQueueBound) {
    TempDir dir;
    DaemonConfig cfg = make_config(dir.path);
    cfg.total_budget = 4 << 20;  // parameters of 2^10 (~0.4 MB) fit; a 2^16 job's assignments do not
    cfg.max_queued = 2;
    Daemon d(cfg);
    Client cl(d.socket_path());
    v1::SubmitProofRequest big = chain_request(10, 1, 1);
    big.mutable_job()->set_log_size(16);  // admission is decided before the parameters are read
    int code = 0;
    std::string msg;
    try {
        cl.submit(big);
    } catch (const ClientError& e) {
        code = e.code();
        msg = e.what();
    }
    EXPECT_EQ(code, (int)grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_NE(msg.find("budget"), std::string::npos) << msg;
    const std::string a = cl.submit(chain_request(10, 32, 1));
    const std::string b = cl.submit(chain_request(10, 1, 2));
    EXPECT_EQ(code_of([&] { cl.submit(chain_request(10, 1, 3)); }), (int)grpc::StatusCode::RESOURCE_EXHAUSTED)
        << "two jobs open, max_queued = 2";
    expect_verified(cl.await(a, 120), 10, 32);
    expect_verified(cl.await(b, 120), 10, 1);
    expect_verified(cl.await(cl.submit(chain_request(10, 1, 4)), 120), 10, 1);  // room again
}

// Admission asks for room for one partition (and the parameters the CPU backend reads into memory), not for every
// partition the engine could keep in flight: a three-partition job under a budget of about one and a half
// partitions is accepted and proven (the engine then starts a partition only while its resident set leaves room);
// under a budget short of one partition it is refused, saying what it needs at least.
TEST(Daemon, AdmissionNeedsRoomForOnePartition) {
    TempDir dir;
    DaemonConfig cfg = make_config(dir.path);
    cfg.lookahead = 1;  // three partitions in flight at most: one synthesized, one waiting, one proven
    const size_t params = fs::file_size(dir.path / "params" / "m10.params");
    cfg.total_budget = params + (size_t{1} << 10) * 200;  // one partition: <= 2^10 rows * (128 + matrices' ~72) B
    {
        Daemon d(cfg);
        Client cl(d.socket_path());
        expect_verified(cl.await(cl.submit(chain_request(10, 3, 7)), 120), 10, 3);
    }
    cfg.total_budget = params + (size_t{1} << 10) * 16;
    Daemon d(cfg);
    Client cl(d.socket_path());
    int code = 0;
    std::string msg;
    try {
        cl.submit(chain_request(10, 1, 8));
    } catch (const ClientError& e) {
        code = e.code();
        msg = e.what();
    }
    EXPECT_EQ(code, (int)grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_NE(msg.find("at least"), std::string::npos) << msg;
    EXPECT_NE(msg.find("one partition"), std::string::npos) << msg;
}

TEST(Daemon, ARestartLosesNoAcceptedJobAndNoResult) {
    TempDir dir;
    DaemonConfig cfg = make_config(dir.path);
    cfg.shutdown = "interrupt";
    std::string finished, running, waiting;
    {
        Daemon d(cfg);
        Client cl(d.socket_path());
        finished = cl.submit(chain_request(6, 2, 1));
        wait_for_state(cl, finished, v1::DONE);
        ASSERT_EQ(cl.status(finished).job().state(), v1::DONE);  // ended, never fetched
        running = cl.submit(chain_request(10, 40, 2));
        waiting = cl.submit(chain_request(6, 3, 3));
        wait_for_partitions(cl, running, 2, 2000);
        ASSERT_LT(cl.status(running).job().partitions_proven(), 40u);
    }  // interrupted: the running job stops at its next partition; nothing is marked ended
    Daemon d(cfg);
    Client cl(d.socket_path());
    expect_verified(cl.await(finished, 60), 6, 2);
    expect_verified(cl.await(running, 120), 10, 40);
    expect_verified(cl.await(waiting, 120), 6, 3);
}

// A job store that cannot write (a full disk; simulated): a result it refuses is still handed to its client, is
// retried, shows in status and the metrics, and no new job is accepted until the store has it; then a restart
// returns it without proving the job again (issue 20 item 8).
TEST(Daemon, AStoreThatCannotWriteLosesNoResultAndRefusesNewWork) {
    TempDir dir;
    DaemonConfig cfg = make_config(dir.path);
    std::string job;
    {
        Daemon d(cfg);
        Client cl(d.socket_path());
        d.fail_store_writes_for_testing("database or disk is full (simulated)");
        EXPECT_EQ(code_of([&] { cl.submit(chain_request(6, 1, 1)); }), (int)grpc::StatusCode::UNAVAILABLE);
        d.fail_store_writes_for_testing("");
        job = cl.submit(chain_request(10, 12, 2));  // long enough to fail the store while it runs
        wait_for_partitions(cl, job, 1);
        d.fail_store_writes_for_testing("database or disk is full (simulated)");
        expect_verified(cl.await(job, 120), 10, 12);  // from memory: the store did not take it
        const auto st = cl.status("");
        EXPECT_NE(st.store_error().find("disk is full"), std::string::npos) << st.store_error();
        EXPECT_EQ(st.unrecorded_results(), 1u);
        EXPECT_NE(d.metrics_text().find("cuzk_store_unrecorded_results 1"), std::string::npos);
        try {
            cl.submit(chain_request(6, 1, 3));
            ADD_FAILURE() << "a job was accepted while a result waits to be recorded";
        } catch (const ClientError& e) {
            EXPECT_EQ(e.code(), (int)grpc::StatusCode::UNAVAILABLE);
            EXPECT_NE(std::string(e.what()).find("wait to be recorded"), std::string::npos) << e.what();
        }
        d.fail_store_writes_for_testing("");
        const std::string next = cl.submit(chain_request(6, 1, 4));  // records the waiting result first
        EXPECT_EQ(cl.status("").store_error(), "");
        EXPECT_EQ(cl.status("").unrecorded_results(), 0u);
        expect_verified(cl.await(next, 60), 6, 1);
    }
    Daemon d(cfg);
    Client cl(d.socket_path());
    EXPECT_EQ(cl.status(job).job().state(), v1::DONE);  // recorded as ended: not queued, not proven again
    expect_verified(cl.await(job, 5), 10, 12);
}

// A stored result that cannot be read is reported as lost (DATA_LOSS), not as "has no result yet" forever.
TEST(Daemon, AnUnreadableStoredResultIsReportedAsLost) {
    TempDir dir;
    DaemonConfig cfg = make_config(dir.path);
    std::string job;
    {
        Daemon d(cfg);
        Client cl(d.socket_path());
        job = cl.submit(chain_request(6, 1, 1));
        wait_for_state(cl, job, v1::DONE);
        ASSERT_EQ(cl.status(job).job().state(), v1::DONE);  // ended, never fetched: only the store has it later
    }
    {
        JobStore store(cfg.database());
        store.finish(std::stoull(job), "done", std::string(12, '\xff'), 1.0);  // bytes no ProofResult parses from
    }
    Daemon d(cfg);
    Client cl(d.socket_path());
    try {
        cl.await(job, 5);
        ADD_FAILURE() << "an unreadable result was returned";
    } catch (const ClientError& e) {
        EXPECT_EQ(e.code(), (int)grpc::StatusCode::DATA_LOSS);
        EXPECT_NE(std::string(e.what()).find("cannot be read"), std::string::npos) << e.what();
    }
}

// A drain keeps serving (issue 20 item 12): the client awaiting a job the drain finishes gets its result, status
// answers meanwhile, a submit is refused; and interrupt_drain() (a second signal) ends a drain at once, the job
// staying queued for the next start.
TEST(Daemon, ADrainServesAwaitAndStatusAndASecondSignalInterrupts) {
    TempDir dir;
    DaemonConfig cfg = make_config(dir.path);
    cfg.shutdown = "drain";
    {
        Daemon d(cfg);
        Client cl(d.socket_path());
        const std::string job = cl.submit(chain_request(10, 30, 1));  // outlasts the old 2 s RPC grace
        wait_for_partitions(cl, job, 1);
        std::optional<v1::AwaitProofResponse> got;
        std::thread waiter([&] { got = Client(d.socket_path()).await(job, 120); });
        std::thread stopper([&] { d.shutdown(); });
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        EXPECT_EQ(code_of([&] { cl.submit(chain_request(6, 1, 2)); }), (int)grpc::StatusCode::UNAVAILABLE);
        EXPECT_NO_THROW(cl.status(job));  // reachable while draining
        stopper.join();
        waiter.join();
        ASSERT_TRUE(got.has_value());
        expect_verified(*got, 10, 30);
    }
    std::string job;
    {
        Daemon d(cfg);
        Client cl(d.socket_path());
        job = cl.submit(chain_request(10, 40, 3));
        wait_for_partitions(cl, job, 1);
        const auto t0 = std::chrono::steady_clock::now();
        std::thread stopper([&] { d.shutdown(); });
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        d.interrupt_drain();
        stopper.join();
        EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
    }
    Daemon d(cfg);  // the interrupted job resumes
    Client cl(d.socket_path());
    expect_verified(cl.await(job, 120), 10, 40);
}

namespace {
// The .pce files in a directory.
std::vector<fs::path> pce_files(const fs::path& dir) {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".pce") out.push_back(e.path());
    return out;
}
}  // namespace

// pce = "auto" (the default): a built-in circuit's partitions come from its pre-compiled evaluator, compiled on the
// first job and kept in the circuit directory; later jobs and later starts reuse it, a damaged file is compiled
// again, and pce = "off" writes nothing. Every proof verifies.
TEST(Daemon, CompilesKeepsAndReusesThePceOfABuiltInCircuit) {
    TempDir dir;
    DaemonConfig cfg = make_config(dir.path);
    fs::path file;
    fs::file_time_type written;
    {
        Daemon d(cfg);
        Client cl(d.socket_path());
        expect_verified(cl.await(cl.submit(chain_request(6, 2, 11)), 60), 6, 2);
        const auto files = pce_files(cfg.circuits_dir);
        ASSERT_EQ(files.size(), 1u);
        file = files[0];
        const auto pce = r1cs::read_pce(file);
        EXPECT_EQ(pce.circuit, "mulchain log_size=6 publics=1");
        written = fs::last_write_time(file);
        expect_verified(cl.await(cl.submit(chain_request(6, 3, 12)), 60), 6, 3);
        EXPECT_EQ(fs::last_write_time(file), written) << "the second job reused the compiled system";
        // Another shape gets its own file.
        expect_verified(cl.await(cl.submit(chain_request(10, 1, 13)), 60), 10, 1);
        EXPECT_EQ(pce_files(cfg.circuits_dir).size(), 2u);
    }
    {
        Daemon d(cfg);  // a new start reads the kept file
        Client cl(d.socket_path());
        expect_verified(cl.await(cl.submit(chain_request(6, 1, 14)), 60), 6, 1);
        EXPECT_EQ(fs::last_write_time(file), written);
    }
    {
        // A damaged file is not used: compiled again and replaced.
        std::vector<char> bytes;
        {
            std::ifstream in(file, std::ios::binary);
            bytes.assign(std::istreambuf_iterator<char>(in), {});
        }
        ASSERT_GT(bytes.size(), 200u);
        bytes[bytes.size() / 2] ^= 0x20;
        {
            std::ofstream out(file, std::ios::binary | std::ios::trunc);
            out.write(bytes.data(), (std::streamsize)bytes.size());
        }
        EXPECT_THROW((void)r1cs::read_pce(file), std::runtime_error);
        Daemon d(cfg);
        Client cl(d.socket_path());
        expect_verified(cl.await(cl.submit(chain_request(6, 2, 15)), 60), 6, 2);
        EXPECT_NO_THROW((void)r1cs::read_pce(file)) << "rewritten";
    }
    TempDir off_dir;
    DaemonConfig off = make_config(off_dir.path);
    off.pce = "off";
    Daemon d(off);
    Client cl(d.socket_path());
    expect_verified(cl.await(cl.submit(chain_request(6, 2, 16)), 60), 6, 2);
    EXPECT_TRUE(pce_files(off.circuits_dir).empty());
}

TEST(Daemon, ASecondDaemonOnTheSameSocketIsRefused) {
    TempDir dir;
    DaemonConfig cfg = make_config(dir.path);
    Daemon d(cfg);
    EXPECT_THROW({ Daemon second(cfg); }, std::runtime_error);
    Client cl(d.socket_path());
    expect_verified(cl.await(cl.submit(chain_request(6, 1, 1)), 60), 6, 1);  // the first one is untouched
}

namespace {
mode_t mode_of(const fs::path& p) {
    struct stat st{};
    EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
    return st.st_mode & 07777;
}
}  // namespace

// Issue 20 items 2 and 3: a state directory the daemon makes is 0700 and the job database 0600 (a circom job's
// witness is stored there), also where an older daemon left files readable in a directory that exists; a second
// daemon on the same state directory is refused (with another socket too) while the first keeps serving, and can
// start once the first is gone.
TEST(Daemon, TheStateDirectoryIsPrivateAndOneDaemonsAlone) {
    TempDir dir;
    DaemonConfig fresh = make_config(dir.path);
    fresh.state_dir = dir.path / "new" / "state";
    {
        Daemon d(fresh);
        EXPECT_EQ(mode_of(fresh.state_dir), 0700u);
        EXPECT_EQ(mode_of(fresh.database()), 0600u);
    }
    DaemonConfig cfg = make_config(dir.path);
    fs::create_directories(cfg.state_dir);
    ::chmod(cfg.state_dir.c_str(), 0755);
    write_bytes(cfg.database().string() + "-wal", {});  // an older daemon's leftover, world-readable
    ::chmod((cfg.database().string() + "-wal").c_str(), 0644);
    {
        Daemon d(cfg);
        EXPECT_EQ(mode_of(cfg.state_dir), 0755u) << "a directory that exists keeps its mode";
        EXPECT_EQ(mode_of(cfg.database()), 0600u);
        EXPECT_EQ(mode_of(cfg.database().string() + "-wal"), 0600u);
        DaemonConfig other = cfg;
        other.socket = dir.path / "other.sock";
        try {
            Daemon second(other);
            ADD_FAILURE() << "a second daemon started on the same state directory";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("another daemon is using it"), std::string::npos) << e.what();
        }
        EXPECT_FALSE(fs::exists(other.socket)) << "the refused daemon made no socket";
        Client cl(d.socket_path());
        expect_verified(cl.await(cl.submit(chain_request(6, 1, 1)), 60), 6, 1);
    }
    Daemon again(cfg);  // the lock went with the first daemon
    Client cl(again.socket_path());
    expect_verified(cl.await(cl.submit(chain_request(6, 1, 2)), 60), 6, 1);
}

// Issue 20 item 1: a socket path that names a file which is not a socket (the job database, by a config typo) is
// refused and the file kept; at shutdown a daemon removes only the socket it created, not what replaced it.
TEST(Daemon, NeverRemovesWhatIsNotItsOwnSocket) {
    TempDir dir;
    DaemonConfig cfg = make_config(dir.path);
    { Daemon d(cfg); }  // makes the job database
    ASSERT_TRUE(fs::exists(cfg.database()));
    const auto db_size = fs::file_size(cfg.database());
    DaemonConfig typo = cfg;
    typo.socket = cfg.database();
    EXPECT_THROW({ Daemon d(typo); }, std::runtime_error);
    ASSERT_TRUE(fs::exists(cfg.database())) << "the job database was removed";
    EXPECT_EQ(fs::file_size(cfg.database()), db_size);
    typo.socket = dir.path / "a-directory";
    fs::create_directories(typo.socket);
    EXPECT_THROW({ Daemon d(typo); }, std::runtime_error);
    EXPECT_TRUE(fs::is_directory(typo.socket));

    const fs::path sock = cfg.socket_path();
    {
        Daemon d(cfg);
        ASSERT_EQ(fs::status(sock).type(), fs::file_type::socket);
        fs::remove(sock);
        write_bytes(sock, {1, 2, 3});  // someone else's file there now
    }
    ASSERT_TRUE(fs::exists(sock)) << "the daemon removed a file it did not create";
    EXPECT_EQ(fs::file_size(sock), 3u);
}

// Issue 20 item 14: backend "gpu" on a host without a GPU refuses to start, saying why (it used to start and fail
// every job).
TEST(Daemon, BackendGpuWithoutAGpuRefusesToStart) {
#ifdef CUZK_HAVE_CUDA
    if (!gpu::devices().empty()) GTEST_SKIP() << "this host has a GPU";
#endif
    TempDir dir;
    DaemonConfig cfg = make_config(dir.path);
    cfg.backend = "gpu";
    try {
        Daemon d(cfg);
        ADD_FAILURE() << "a daemon with backend gpu started without a GPU";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("backend gpu"), std::string::npos) << e.what();
    }
}

TEST(Daemon, ListensOnLoopbackTcpAndServesMetricsOverHttp) {
    TempDir dir;
    DaemonConfig cfg = make_config(dir.path);
    cfg.tcp = "127.0.0.1:0";
    cfg.metrics = "127.0.0.1:0";
    Daemon d(cfg);
    ASSERT_GT(d.tcp_port(), 0);
    ASSERT_GT(d.metrics_port(), 0);
    Client tcp("127.0.0.1:" + std::to_string(d.tcp_port()));
    expect_verified(tcp.await(tcp.submit(chain_request(6, 1, 5)), 60), 6, 1);
    auto http_get = [&](const std::string& path) {
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons((uint16_t)d.metrics_port());
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
        const std::string req = "GET " + path + " HTTP/1.0\r\n\r\n";
        EXPECT_EQ(::send(fd, req.data(), req.size(), 0), (ssize_t)req.size());
        std::string out;
        char buf[4096];
        ssize_t n;
        while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) out.append(buf, (size_t)n);
        ::close(fd);
        return out;
    };
    const std::string ok = http_get("/metrics");
    EXPECT_EQ(ok.rfind("HTTP/1.0 200", 0), 0u) << ok.substr(0, 80);
    EXPECT_NE(ok.find("cuzk_jobs_submitted_total 1"), std::string::npos);
    EXPECT_NE(ok.find("cuzk_jobs_ended_total{state=\"done\"} 1"), std::string::npos);
    EXPECT_NE(ok.find("# TYPE cuzk_params_cached_bytes gauge"), std::string::npos);
    EXPECT_EQ(http_get("/other").rfind("HTTP/1.0 404", 0), 0u);
    // A client that sends a byte now and then (issue 20 item 13): the others are served meanwhile, and it is cut
    // off once its request's time is up (5 s in all), however it paces its bytes.
    const int slow = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)d.metrics_port());
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(slow, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(::send(slow, "G", 1, MSG_NOSIGNAL), 1);
    for (int i = 0; i < 3; i++) {
        const auto s0 = std::chrono::steady_clock::now();
        EXPECT_EQ(http_get("/metrics").rfind("HTTP/1.0 200", 0), 0u);
        EXPECT_LT(std::chrono::steady_clock::now() - s0, std::chrono::seconds(2)) << "a scrape waited for the slow client";
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        ::send(slow, "E", 1, MSG_NOSIGNAL);
    }
    timeval tv{15, 0};
    ::setsockopt(slow, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    char c;
    while (::send(slow, "T", 1, MSG_NOSIGNAL) == 1 && ::recv(slow, &c, 1, MSG_DONTWAIT) != 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const double held = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(held, 8.0) << "the slow client was held " << held << " s";
    ::close(slow);
}

TEST(Daemon, PreloadsAndEvictsParameterSets) {
    TempDir dir;
    Daemon d(make_config(dir.path));
    Client cl(d.socket_path());
    EXPECT_GT(cl.preload("m6.params"), 0u);
    EXPECT_EQ(cl.status().params_cached_sets(), 1u);
    EXPECT_TRUE(cl.evict("m6.params"));
    EXPECT_EQ(cl.status().params_cached_sets(), 0u);
    EXPECT_FALSE(cl.evict("m6.params")) << "no longer cached";
    EXPECT_EQ(code_of([&] { cl.preload("../x.params"); }), (int)grpc::StatusCode::PERMISSION_DENIED);
}

// Issue 19 item 2: a budget that fits two parameter sets; jobs on three sets. The third job is admitted by evicting
// the least recently used idle set; a set that a running job holds is never evicted (the daemon holds a job's key
// only while the job is queued or running).
TEST(Daemon, EvictsTheLeastRecentlyUsedIdleSetAndNeverOneAJobHolds) {
    TempDir dir;
    DaemonConfig cfg = make_config(dir.path);
    for (unsigned k : {8u, 9u})
        write_bytes(dir.path / "params" / ("m" + std::to_string(k) + ".params"),
                    formats::parameters_to_bytes(chain_params(k)));
    const auto bytes = [](unsigned k) { return engine::ProvingKeyStore::resident_bytes(chain_params(k)); };
    cfg.total_budget = bytes(10) + bytes(9) + bytes(8) / 2;  // m10 and m9 fit together; all three do not
    cfg.pce = "off";  // no matrices in the budget: parameters alone
    cfg.max_partitions = 1000;
    Daemon d(cfg);
    Client cl(d.socket_path());
    expect_verified(cl.await(cl.submit(chain_request(8, 1, 1)), 120), 8, 1);
    expect_verified(cl.await(cl.submit(chain_request(9, 1, 2)), 120), 9, 1);
    EXPECT_EQ(cl.status().params_cached_sets(), 2u);
    expect_verified(cl.await(cl.submit(chain_request(10, 1, 3)), 120), 10, 1);  // m8 goes
    EXPECT_EQ(cl.status().params_cached_sets(), 2u);
    EXPECT_LE(cl.status().params_cached_bytes(), cfg.total_budget);
    // m9 held by a running job: loading m8 again evicts m10, the idle one, though m9 was used before it.
    const std::string held = cl.submit(chain_request(9, 1000, 4));  // minutes: cancelled below
    for (int i = 0; i < 5000 && cl.status(held).job().state() != v1::RUNNING; i++)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    ASSERT_EQ(cl.status(held).job().state(), v1::RUNNING);
    EXPECT_FALSE(cl.evict("m9.params")) << "a running job holds it";
    EXPECT_GT(cl.preload("m8.params"), 0u);
    EXPECT_EQ(cl.status().params_cached_sets(), 2u);
    EXPECT_FALSE(cl.evict("m10.params")) << "evicted for m8";
    EXPECT_TRUE(cl.evict("m8.params"));
    EXPECT_EQ(cl.status(held).job().state(), v1::RUNNING) << "the holder was not disturbed";
    cl.cancel(held);
    EXPECT_EQ(cl.await(held, 120).state(), v1::CANCELLED);
    EXPECT_TRUE(cl.evict("m9.params")) << "released when its job ended";
    EXPECT_EQ(cl.status().params_cached_sets(), 0u);
}

// circom/snarkjs jobs: a .zkey in the parameter directory and one .wtns per partition; proofs come back in
// bellman's encoding and as snarkjs proof.json, and verify against the zkey's key. A malformed witness is refused
// at submission; a witness that does not satisfy the circuit fails the job (its proof does not verify).
TEST(Daemon, ProvesCircomJobsFromAZkeyAndWitnesses) {
    TempDir dir;
    DaemonConfig cfg = make_config(dir.path);
    const auto r1cs = formats::iden3::read_r1cs(test_iden3::square_r1cs(), "square.r1cs");
    write_bytes(dir.path / "params" / "square.zkey",
                formats::iden3::make_test_zkey(r1cs, groth16::ToxicWaste::from_seed(9)));
    Daemon d(cfg);
    Client cl(d.socket_path());
    auto witness = [](uint64_t x, uint64_t y) {
        const auto b = test_iden3::wtns({Fr::one(), Fr::from_u64(y), Fr::from_u64(x)});
        return std::string(b.begin(), b.end());
    };
    v1::SubmitProofRequest req;
    req.set_proof_kind(v1::CUZK_JOB);
    req.mutable_job()->set_circuit("circom");
    req.mutable_job()->set_zkey("square.zkey");
    *req.mutable_job()->add_witnesses() = witness(3, 9);
    *req.mutable_job()->add_witnesses() = witness(5, 25);
    const auto res = cl.await(cl.submit(req), 60);
    ASSERT_EQ(res.state(), v1::DONE) << res.error_message();
    ASSERT_EQ(res.proofs_size(), 2);
    ASSERT_EQ(res.proofs_json_size(), 2);
    EXPECT_TRUE(res.verified());
    const auto vk = formats::iden3::zkey_verifying_key(
        formats::iden3::read_zkey(dir.path / "params" / "square.zkey", {.verifying_key_only = true}));
    const auto pvk = groth16::prepare_verifying_key(vk);
    const auto pubs = nlohmann::json::parse(res.public_inputs_json());
    for (int i = 0; i < 2; i++) {
        const auto& b = res.proofs(i);
        const auto proof =
            formats::decode_proof(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(b.data()), b.size()));
        const auto publics = formats::parse_public_inputs_json(pubs[i].dump());
        ASSERT_EQ(publics.size(), 1u);
        EXPECT_EQ(publics[0], Fr::from_u64(i ? 25 : 9));
        EXPECT_TRUE(groth16::verify_proof(pvk, proof, publics)) << "partition " << i;
        EXPECT_EQ(formats::snarkjs::parse_proof_json(res.proofs_json(i)), proof);
    }
    // Refused at submission: a malformed witness (named), a circom job with bellman params.
    v1::SubmitProofRequest bad = req;
    *bad.mutable_job()->mutable_witnesses(1) = "not a wtns file";
    int code = 0;
    std::string msg;
    try {
        cl.submit(bad);
    } catch (const ClientError& e) {
        code = e.code();
        msg = e.what();
    }
    EXPECT_EQ(code, (int)grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(msg.find("witness 1"), std::string::npos) << msg;
    bad = req;
    bad.mutable_job()->set_params("m6.params");
    EXPECT_EQ(code_of([&] { cl.submit(bad); }), (int)grpc::StatusCode::INVALID_ARGUMENT);
    bad = req;
    bad.mutable_job()->clear_witnesses();
    EXPECT_EQ(code_of([&] { cl.submit(bad); }), (int)grpc::StatusCode::INVALID_ARGUMENT);
    // Accepted, then failed: a witness that does not satisfy x * x = y; a zkey named as a bellman parameter file.
    bad = req;
    *bad.mutable_job()->mutable_witnesses(0) = witness(3, 10);
    const auto unsat = cl.await(cl.submit(bad), 60);
    EXPECT_EQ(unsat.state(), v1::FAILED);
    EXPECT_NE(unsat.error_message().find("did not verify"), std::string::npos) << unsat.error_message();
    v1::SubmitProofRequest mixed = chain_request(6, 1, 1);
    mixed.mutable_job()->set_params("square.zkey");
    const auto mixed_res = cl.await(cl.submit(mixed), 60);
    EXPECT_EQ(mixed_res.state(), v1::FAILED);
    EXPECT_NE(mixed_res.error_message().find(".zkey"), std::string::npos) << mixed_res.error_message();
    // The daemon keeps serving circom jobs.
    EXPECT_EQ(cl.await(cl.submit(req), 60).state(), v1::DONE);
    EXPECT_TRUE(cl.evict("square.zkey"));
}

TEST(DaemonConfig, ParsesAndRefusesWhatItShould) {
    const fs::path base = "/srv/cuzk";
    const DaemonConfig c = parse_config(R"(
[server]
tcp = "127.0.0.1:9820"
metrics = "[::1]:9821"
[paths]
params = "p"
state = "/var/lib/cuzk"
[engine]
backend = "cpu"
synthesis_workers = 4
total_budget = "64GiB"
[jobs]
shutdown = "interrupt"
result_ttl_seconds = 3600
)",
                                        base);
    EXPECT_EQ(c.params_dir, base / "p");
    EXPECT_EQ(c.state_dir, fs::path("/var/lib/cuzk"));
    EXPECT_EQ(c.socket_path(), fs::path("/var/lib/cuzk/cuzk.sock"));
    EXPECT_EQ(c.synthesis_workers, 4u);
    EXPECT_EQ(c.total_budget, size_t{64} << 30);
    EXPECT_EQ(c.shutdown, "interrupt");
    EXPECT_EQ(c.result_ttl_seconds, 3600.0);
    EXPECT_EQ(parse_config("", base).total_budget, 0u) << "auto";
    EXPECT_EQ(parse_config("", base).synthesis_workers, 0u) << "auto by default";
    EXPECT_EQ(parse_config("[engine]\nsynthesis_workers = \"auto\"", base).synthesis_workers, 0u) << "auto";
    auto refused = [&](const std::string& text, const std::string& names) {
        try {
            parse_config(text, base);
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
            return;
        }
        ADD_FAILURE() << "accepted: " << text;
    };
    refused("[engine]\nbackend = \"tpu\"", "engine.backend");
    refused("[engine]\nsynthesis_wrokers = 2", "engine.synthesis_wrokers");
    refused("[sever]\n", "sever");
    refused("[server]\ntcp = \"0.0.0.0:9820\"", "allow_remote");
    refused("[server]\nmetrics = \"10.0.0.1:80\"", "allow_remote");
    refused("[engine]\ntotal_budget = \"12 parsecs\"", "engine.total_budget");
    // Out of range: the key is named (it was "stoul" / "stoull").
    refused("[server]\ntcp = \"127.0.0.1:99999999999999999999999\"", "server.tcp");
    refused("[server]\nmetrics = \"127.0.0.1:70000\"", "server.metrics");
    refused("[engine]\ntotal_budget = \"99999999999999999999999 GiB\"", "engine.total_budget");
    refused("[jobs]\nshutdown = \"now\"", "jobs.shutdown");
    refused("[engine]\nlookahead = 0", "engine.lookahead");
    refused("[engine]\nsynthesis_workers = \"many\"", "engine.synthesis_workers");
    refused("[engine]\nsynthesis_workers = 0", "engine.synthesis_workers");
    refused("[engine\n", "line");
    refused("[engine]\npce = \"maybe\"", "engine.pce");
    EXPECT_EQ(parse_config("", base).pce, "auto");
    EXPECT_EQ(parse_config("[engine]\npce = \"off\"", base).pce, "off");
    EXPECT_FALSE(parse_config("", base).pin_params);
    EXPECT_TRUE(parse_config("[engine]\npin_params = true", base).pin_params);
    refused("[engine]\npin_params = \"yes\"", "engine.pin_params");
    EXPECT_TRUE(parse_config("", base).stream_large_keys) << "on since measured on 16 and 12 GB cards";
    EXPECT_FALSE(parse_config("[engine]\nstream_large_keys = false", base).stream_large_keys);
    refused("[engine]\nstream_large_keys = 1", "engine.stream_large_keys");
    EXPECT_TRUE(parse_config("", base).overlap_msms) << "on since measured on an 80 GB card";
    EXPECT_FALSE(parse_config("[engine]\noverlap_msms = false", base).overlap_msms);
    refused("[engine]\noverlap_msms = \"on\"", "engine.overlap_msms");
    EXPECT_TRUE(parse_config("", base).share_slot) << "measured: 1.6 s off a 32 GiB C2 on an H100";
    EXPECT_FALSE(parse_config("[engine]\nshare_slot = false", base).share_slot);
    refused("[engine]\nshare_slot = 1", "engine.share_slot");
    EXPECT_TRUE(parse_config("", base).defer_ones) << "measured: ~0.8 s off a 32 GiB C2 on an H100";
    EXPECT_FALSE(parse_config("[engine]\ndefer_ones = false", base).defer_ones);
    refused("[engine]\ndefer_ones = \"yes\"", "engine.defer_ones");
    EXPECT_TRUE(parse_config("", base).upload_from_split) << "measured: ~0.15 s off a 32 GiB C2 on an H100";
    EXPECT_FALSE(parse_config("[engine]\nupload_from_split = false", base).upload_from_split);
    refused("[engine]\nupload_from_split = 0", "engine.upload_from_split");
    // The GPUs to prove on: visible ordinals, each once.
    EXPECT_TRUE(parse_config("", base).gpus.empty()) << "every visible GPU";
    EXPECT_EQ(parse_config("[engine]\ngpus = [2, 0]", base).gpus, (std::vector<size_t>{2, 0}));
    refused("[engine]\ngpus = [0, 0]", "engine.gpus");
    refused("[engine]\ngpus = [-1]", "engine.gpus");
    refused("[engine]\ngpus = 0", "engine.gpus");
    refused("[engine]\ngpus = [\"0\"]", "engine.gpus");
    refused("[engine]\ngpus = []", "engine.gpus");
    refused("[engine]\nbackend = \"cpu\"\ngpus = [0]", "engine.gpus");
    // A GPU named and not there is an error at start (this test names one no host has).
    DaemonConfig missing;
    missing.gpus = {200};
    try {
        (void)gpu_ordinals(missing);
        ADD_FAILURE() << "device 200 accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("engine.gpus"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(gpu_ordinals(parse_config("[engine]\nbackend = \"cpu\"", base)).empty());
    // Each GPU's budget for keys: its memory less one proof's workspace (max(16 GiB, 1/4)), at least half of it.
    constexpr size_t GiB = size_t{1} << 30;
    EXPECT_EQ(gpu_key_budget(140 * GiB), 105 * GiB) << "H200: a quarter for the workspace";
    EXPECT_EQ(gpu_key_budget(80 * GiB), 60 * GiB);
    EXPECT_EQ(gpu_key_budget(48 * GiB), 32 * GiB) << "16 GiB for the workspace";
    EXPECT_EQ(gpu_key_budget(24 * GiB), 12 * GiB) << "at least half the card for keys";
    EXPECT_EQ(gpu_key_budget(16 * GiB), 8 * GiB) << "a 16 GB card holds the small sets";
    EXPECT_EQ(gpu_key_budget(0), 0u);
    EXPECT_NO_THROW(parse_config("[server]\nallow_remote = true\ntcp = \"0.0.0.0:9820\"", base));
    EXPECT_TRUE(is_loopback_address("127.0.0.2:1"));
    EXPECT_TRUE(is_loopback_address("[::1]:1"));
    EXPECT_TRUE(is_loopback_address("localhost:1"));
    EXPECT_FALSE(is_loopback_address("192.168.1.1:1"));
    EXPECT_EQ(parse_bytes("512MiB"), size_t{512} << 20);
    EXPECT_EQ(parse_bytes("1000"), 1000u);
    EXPECT_THROW(parse_bytes("GiB"), std::invalid_argument);
}

TEST(JobStore, KeepsJobsAcrossReopeningAndPurges) {
    TempDir dir;
    const fs::path db = dir.path / "jobs.db";
    uint64_t a, b, c;
    {
        JobStore s(db);
        a = s.insert("request-a", 2, 100.0);
        b = s.insert(std::string("b\0b", 3), 4, 101.0);  // bytes, not text
        c = s.insert("request-c", 1, 102.0);
        EXPECT_LT(a, b);
        s.set_state(b, "running");
        s.finish(c, "done", "result-c", 110.0);
    }
    JobStore s(db);
    const auto un = s.unfinished();
    ASSERT_EQ(un.size(), 2u);
    EXPECT_EQ(un[0].id, a);
    EXPECT_EQ(un[1].id, b);
    EXPECT_EQ(un[1].request, std::string("b\0b", 3));
    EXPECT_EQ(un[1].state, "running");
    EXPECT_EQ(un[1].priority, 4);
    const auto jc = s.get(c);
    ASSERT_TRUE(jc.has_value());
    EXPECT_EQ(jc->result, "result-c");
    EXPECT_EQ(jc->finished_at, 110.0);
    EXPECT_FALSE(s.get(9999).has_value());
    // Purge: fetched long enough ago, or expired; unfinished jobs never.
    EXPECT_EQ(s.purge(0, 105.0), 0u) << "c ended at 110, not yet expired, not fetched";
    s.mark_fetched(c, 120.0);
    EXPECT_EQ(s.purge(119.0, 0), 0u) << "fetched at 120, after the cut";
    EXPECT_EQ(s.purge(121.0, 0), 1u);
    EXPECT_EQ(s.count(), 2u);
    EXPECT_EQ(s.purge(1e12, 1e12), 0u) << "unfinished jobs stay";
    EXPECT_THROW(JobStore(dir.path / "no" / "such" / "dir" / "x.db"), StoreError);
}
