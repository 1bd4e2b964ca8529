// Curio's wire API (issue 21), spoken by the stub protoc generates from proto/cuzk.proto (not cuzk's own Client):
// every Filecoin proof kind at 2 KiB from its real inputs (a generated C1 in Curio's envelope, bincode vanilla
// proofs, raw commitments) with test parameters of the exact circuits under Filecoin's file names, each proof checked
// by cuzk's Filecoin verifiers; status, metrics and parameter sets as Curio reads them; request_id idempotency;
// cancel; a CRITICAL WinningPoSt overtaking a long NORMAL job; a restart with a Filecoin job in flight; and bad
// requests, each answered with the right gRPC status and a message naming the problem while the daemon keeps
// serving. CPU backend throughout.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cuzk.grpc.pb.h"
#include "cuzk/circuits/builtin.hpp"
#include "cuzk/daemon/config.hpp"
#include "cuzk/daemon/daemon.hpp"
#include "cuzk/filecoin/c1.hpp"
#include "cuzk/filecoin/c1_gen.hpp"
#include "cuzk/filecoin/params.hpp"
#include "cuzk/filecoin/porep.hpp"
#include "cuzk/filecoin/post_circuit.hpp"
#include "cuzk/filecoin/post_vanilla.hpp"
#include "cuzk/filecoin/snap_circuit.hpp"
#include "cuzk/filecoin/snap_gen.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/formats/proof_io.hpp"
#include "cuzk/groth16/setup.hpp"
#include "cuzk/groth16/verifier.hpp"

using namespace cuzk;
namespace fs = std::filesystem;
namespace fc = cuzk::filecoin;
using grpc::StatusCode;

namespace {

constexpr uint64_t kMiner = 1000, kSector = 7;
constexpr uint64_t kSealProof = 5;      // StackedDrg2KiBV1_1
constexpr uint64_t kWinningProof = 0;   // StackedDrgWinning2KiBV1
constexpr uint64_t kWindowProof = 10;   // StackedDrgWindow2KiBV1_2
constexpr uint64_t kUpdateProof = 0;    // StackedDrg2KiBV1 (update)
constexpr uint64_t kSectorSize = 2048;

struct TempDir {
    fs::path path;
    TempDir() {
        std::random_device rd;
        path = fs::temp_directory_path() / ("cuzk-curio-test-" + std::to_string(rd()) + std::to_string(::getpid()));
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// Test parameters of the four 2 KiB circuits under Filecoin's names (fixed seeds 21..24, printed), plus mulchain
// 2^12 ("m12.params") for the long jobs that keep the engine busy. Under ctest the build's shared set
// (tests/filecoin_test_params.sh, CUZK_FILECOIN_TEST_PARAMS) is linked in; run alone, the program makes its own.
const fs::path& params_dir() {
    static TempDir dir;
    static const bool made = [] {
        const uint64_t seed = 21;
        const char* shared = std::getenv("CUZK_FILECOIN_TEST_PARAMS");
        if (shared && fs::exists(fs::path(shared) / "complete")) {
            std::printf("test parameters: %s (setup seeds %llu..%llu)\n", shared, (unsigned long long)seed,
                        (unsigned long long)seed + 3);
            for (const auto& e : fs::directory_iterator(shared))
                if (e.path().filename().string().rfind("v28-", 0) == 0)
                    fs::create_symlink(e.path(), dir.path / e.path().filename());
        } else {
            std::printf("test parameters: setup seeds %llu..%llu\n", (unsigned long long)seed,
                        (unsigned long long)seed + 3);
            fc::generate_porep_parameters(
                fc::PorepConfig::from_registered(fc::RegisteredSealProof::StackedDrg2KiBV1_1), dir.path, seed);
            fc::generate_post_parameters(fc::RegisteredPoStProof::StackedDrgWinning2KiBV1, dir.path, seed + 1);
            fc::generate_post_parameters(fc::RegisteredPoStProof::StackedDrgWindow2KiBV1_2, dir.path, seed + 2);
            fc::generate_snap_parameters(fc::RegisteredUpdateProof::StackedDrg2KiBV1, fc::UpdateCircuit::Sha256,
                                         dir.path, seed + 3);
        }
        const auto chain = groth16::generate_parameters(circuits::MulChainCircuit(12, 1, std::nullopt),
                                                        groth16::ToxicWaste::from_seed(seed + 4));
        const auto bytes = formats::parameters_to_bytes(chain);
        std::ofstream(dir.path / "m12.params", std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()), (std::streamsize)bytes.size());
        return true;
    }();
    (void)made;
    return dir.path;
}

groth16::VerifyingKey vk_of(const fc::ParameterFileNames& names) {
    return formats::read_verifying_key(params_dir() / names.vk).vk;
}

daemon::DaemonConfig config(const fs::path& state) {
    daemon::DaemonConfig c;
    c.params_dir = params_dir();
    c.circuits_dir = state / "circuits";
    c.state_dir = state / "state";
    c.backend = "cpu";
    c.synthesis_workers = 1;
    c.log = false;
    c.check_params = false;  // our own setup's points (the subgroup checks have their tests); saves a minute here
    c.pce = "off";           // one proof per circuit: full synthesis is quicker than compiling the circuit first
    return c;
}

// The generated client: what Curio's Go client is, in C++ (same .proto, same wire).
struct Wire {
    std::unique_ptr<v1::ProvingEngine::Stub> stub;
    explicit Wire(const std::string& socket) {
        grpc::ChannelArguments args;
        args.SetMaxReceiveMessageSize(256 << 20);
        args.SetMaxSendMessageSize(256 << 20);
        stub = v1::ProvingEngine::NewStub(
            grpc::CreateCustomChannel("unix://" + socket, grpc::InsecureChannelCredentials(), args));
    }
    static std::unique_ptr<grpc::ClientContext> ctx(int seconds = 300) {
        auto c = std::make_unique<grpc::ClientContext>();
        c->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(seconds));
        return c;
    }
    grpc::Status prove(const v1::SubmitProofRequest& q, v1::AwaitProofResponse* out) {
        v1::ProveRequest pq;
        *pq.mutable_submit() = q;
        v1::ProveResponse pr;
        const grpc::Status st = stub->Prove(ctx().get(), pq, &pr);
        *out = pr.result();
        return st;
    }
    v1::AwaitProofResponse prove_ok(const v1::SubmitProofRequest& q) {
        v1::AwaitProofResponse r;
        const grpc::Status st = prove(q, &r);
        EXPECT_TRUE(st.ok()) << st.error_message();
        EXPECT_EQ(r.status(), v1::AwaitProofResponse::COMPLETED) << r.error_message();
        return r;
    }
    std::string submit(const v1::SubmitProofRequest& q) {
        v1::SubmitProofResponse r;
        const grpc::Status st = stub->SubmitProof(ctx().get(), q, &r);
        EXPECT_TRUE(st.ok()) << st.error_message();
        return r.job_id();
    }
    v1::AwaitProofResponse await(const std::string& id, uint64_t timeout_ms = 0) {
        v1::AwaitProofRequest q;
        q.set_job_id(id);
        q.set_timeout_ms(timeout_ms);
        v1::AwaitProofResponse r;
        const grpc::Status st = stub->AwaitProof(ctx().get(), q, &r);
        EXPECT_TRUE(st.ok()) << st.error_message();
        return r;
    }
    v1::GetStatusResponse status() {
        v1::GetStatusResponse r;
        EXPECT_TRUE(stub->GetStatus(ctx().get(), v1::GetStatusRequest(), &r).ok());
        return r;
    }
};

std::string bytes_str(std::span<const uint8_t> b) { return std::string(b.begin(), b.end()); }
std::string bytes_str(const fc::Bytes32& b) { return std::string(b.begin(), b.end()); }

// ---- the four kinds' requests, as Curio builds them (lib/ffi/cuzk_funcs.go) ----

struct PorepCase {
    fc::GeneratedC1 sector;
    v1::SubmitProofRequest request;
};
PorepCase porep_request(uint64_t sector_number, uint64_t rng_seed) {
    PorepCase c;
    c.sector = fc::generate_c1_sector(fc::RegisteredSealProof::StackedDrg2KiBV1_1, rng_seed,
                                      fc::SectorIdentity{fc::prover_id_of_actor(kMiner), sector_number});
    v1::SubmitProofRequest& q = c.request;
    q.set_request_id("porep-" + std::to_string(kMiner) + "-" + std::to_string(sector_number));
    q.set_proof_kind(v1::POREP_SEAL_COMMIT);
    q.set_sector_size(kSectorSize);
    q.set_registered_proof(kSealProof);
    q.set_priority(v1::NORMAL);
    q.set_vanilla_proof(fc::write_curio_c1({sector_number, kSectorSize, c.sector.c1}));
    q.set_sector_number(sector_number);
    q.set_miner_id(kMiner);
    return c;
}

bool porep_valid(const PorepCase& c, const std::string& proof) {
    const auto cfg = fc::PorepConfig::from_registered(fc::RegisteredSealProof::StackedDrg2KiBV1_1);
    const fc::SealedSector s{fc::prover_id_of_actor(kMiner), c.sector.sector_id, c.sector.c1.ticket, c.sector.c1.seed,
                             c.sector.c1.comm_d, c.sector.c1.comm_r};
    return fc::verify_porep(vk_of(fc::parameter_files(fc::RegisteredSealProof::StackedDrg2KiBV1_1)), cfg, s,
                            std::span(reinterpret_cast<const uint8_t*>(proof.data()), proof.size()));
}

fc::Domain post_randomness(uint8_t fill) {
    fc::Domain r;
    r.fill(fill);
    r[31] &= 0x3f;  // canonical, as Curio's randomness is
    return r;
}

struct PostCase {
    fc::RegisteredPoStProof proof;
    fc::Domain randomness;
    std::vector<fc::PostPublicSector> sectors;
    v1::SubmitProofRequest request;
};
PostCase post_request(fc::RegisteredPoStProof proof, size_t sectors, uint64_t rng_seed) {
    PostCase c{proof, post_randomness(uint8_t(rng_seed)), {}, {}};
    v1::SubmitProofRequest& q = c.request;
    const bool winning = fc::post_type(proof) == fc::PoStType::Winning;
    q.set_proof_kind(winning ? v1::WINNING_POST : v1::WINDOW_POST_PARTITION);
    q.set_sector_size(kSectorSize);
    q.set_registered_proof(fc::proof_id(proof));
    q.set_priority(winning ? v1::CRITICAL : v1::HIGH);
    q.set_miner_id(kMiner);
    q.set_randomness(bytes_str(c.randomness));
    q.set_request_id((winning ? "winpost-" : "wdpost-") + std::to_string(kMiner) + "-" + std::to_string(rng_seed));
    for (size_t i = 0; i < sectors; i++) {
        const auto v = fc::generate_post_vanilla(proof, c.randomness, 20 + i, i, rng_seed + i);
        q.add_vanilla_proofs(bytes_str(fc::write_post_vanilla_proof(v)));
        c.sectors.push_back({v.sector_id, fc::fr_from_bytes32(v.comm_r)});
    }
    return c;
}

bool post_valid(const PostCase& c, const std::string& proof) {
    if (proof.size() != formats::PROOF_BYTES) return false;
    const auto pvk = groth16::prepare_verifying_key(vk_of(fc::parameter_files(c.proof)));
    const auto p = formats::decode_proof(std::span(reinterpret_cast<const uint8_t*>(proof.data()), proof.size()));
    const auto config = fc::PostCircuitConfig::from_registered(c.proof);
    std::vector<fc::PostPublicSector> sectors = c.sectors;
    if (fc::post_type(c.proof) == fc::PoStType::Winning)  // its one sector, listed sector_count times (upstream)
        sectors.assign(config.sector_count, c.sectors.at(0));
    return groth16::verify_proof(pvk, p, fc::post_public_inputs(config, c.randomness, sectors, 0));
}

struct SnapCase {
    fc::GeneratedSnap gen;
    v1::SubmitProofRequest request;
};
SnapCase snap_request(uint64_t rng_seed) {
    SnapCase c{fc::generate_snap_vanilla(fc::RegisteredUpdateProof::StackedDrg2KiBV1, fc::UpdateCircuit::Sha256, rng_seed),
               {}};
    v1::SubmitProofRequest& q = c.request;
    q.set_request_id("snap-" + std::to_string(kMiner) + "-" + std::to_string(rng_seed));
    q.set_proof_kind(v1::SNAP_DEALS_UPDATE);
    q.set_sector_size(kSectorSize);
    q.set_registered_proof(kUpdateProof);
    q.set_priority(v1::NORMAL);
    q.set_sector_number(kSector);
    q.set_miner_id(kMiner);
    for (const auto& p : c.gen.partitions) q.add_vanilla_proofs(bytes_str(fc::write_snap_vanilla_proof(p)));
    q.set_comm_r_old(bytes_str(fc::fr_to_bytes32(c.gen.comm_r_old)));
    q.set_comm_r_new(bytes_str(fc::fr_to_bytes32(c.gen.comm_r_new)));
    q.set_comm_d_new(bytes_str(fc::fr_to_bytes32(c.gen.comm_d_new)));
    return c;
}

bool snap_valid(const SnapCase& c, const std::string& proof) {
    const size_t n = c.gen.partitions.size();
    if (proof.size() != n * formats::PROOF_BYTES) return false;
    const auto pvk = groth16::prepare_verifying_key(
        vk_of(fc::parameter_files(fc::RegisteredUpdateProof::StackedDrg2KiBV1, fc::UpdateCircuit::Sha256)));
    for (size_t k = 0; k < n; k++) {
        const auto p = formats::decode_proof(
            std::span(reinterpret_cast<const uint8_t*>(proof.data()) + k * formats::PROOF_BYTES, formats::PROOF_BYTES));
        if (!groth16::verify_proof(pvk, p,
                                   fc::snap_public_inputs(c.gen.shape, (uint32_t)k, c.gen.h, c.gen.comm_r_old,
                                                          c.gen.comm_d_new, c.gen.comm_r_new)))
            return false;
    }
    return true;
}

// A long NORMAL job of cuzk's own (mulchain 2^12, 64 partitions) that keeps the engine busy.
v1::SubmitProofRequest long_job(uint64_t seed) {
    v1::SubmitProofRequest q;
    q.set_proof_kind(v1::CUZK_JOB);
    auto* j = q.mutable_job();
    j->set_circuit("mulchain");
    j->set_log_size(12);
    j->set_partitions(64);
    j->set_witness_seed(seed);
    j->set_params("m12.params");
    return q;
}

v1::JobStatus job_status(Wire& w, const std::string& id) {
    v1::GetStatusRequest q;
    q.set_job_id(id);
    v1::GetStatusResponse r;
    EXPECT_TRUE(w.stub->GetStatus(Wire::ctx().get(), q, &r).ok());
    return r.job();
}

void wait_until_running(Wire& w, const std::string& id) {
    for (int k = 0; k < 4000 && job_status(w, id).partitions_proven() < 1; k++)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

}  // namespace

TEST(CurioApi, ProvesEveryKindFromItsRealInputsAndReportsAsCurioReads) {
    TempDir state;
    daemon::DaemonConfig cfg = config(state.path);
    cfg.pce = "auto";  // as deployed: each circuit's rows compiled once, partitions by witness and sparse product
    daemon::Daemon d(cfg);
    Wire w(d.socket_path());

    const PorepCase porep = porep_request(kSector, 31);
    const auto rp = w.prove_ok(porep.request);
    EXPECT_EQ(rp.proof().size(), formats::PROOF_BYTES) << "2 KiB PoRep: one partition";
    EXPECT_TRUE(porep_valid(porep, rp.proof())) << "Filecoin's verify_seal accepts it";
    EXPECT_TRUE(rp.verified());
    EXPECT_GT(rp.total_ms(), 0u);
    EXPECT_GT(rp.gpu_compute_ms() + rp.synthesis_ms(), 0u);
    EXPECT_LE(rp.queue_wait_ms() + rp.srs_load_ms(), rp.total_ms() + 1);

    const PostCase winning = post_request(fc::RegisteredPoStProof::StackedDrgWinning2KiBV1, 1, 41);
    const auto rw = w.prove_ok(winning.request);
    EXPECT_TRUE(post_valid(winning, rw.proof()));

    const PostCase window = post_request(fc::RegisteredPoStProof::StackedDrgWindow2KiBV1_2, 2, 51);
    const auto rd = w.prove_ok(window.request);
    EXPECT_TRUE(post_valid(window, rd.proof()));
    // Another partition's inputs do not verify it (the sectors are the partition's own).
    PostCase shifted = window;
    shifted.sectors[0].id += 1;
    EXPECT_FALSE(post_valid(shifted, rd.proof()));

    const SnapCase snap = snap_request(61);
    const auto rs = w.prove_ok(snap.request);
    EXPECT_TRUE(snap_valid(snap, rs.proof()));
    EXPECT_EQ(rs.proofs_size(), (int)snap.gen.partitions.size());

    // Each circuit's rows were compiled once and kept for the next start.
    size_t kept = 0;
    for (const auto& e : fs::directory_iterator(cfg.circuits_dir))
        kept += e.path().filename().string().rfind("filecoin_", 0) == 0 && e.path().extension() == ".pce";
    EXPECT_EQ(kept, 4u);

    // Status as Curio reads it: totals, the four queues empty, the parameter sets with their tiers.
    const auto st = w.status();
    EXPECT_EQ(st.total_proofs_completed(), 4u);
    EXPECT_EQ(st.total_proofs_failed(), 0u);
    std::map<std::string, v1::QueueStatus> queues;
    for (const auto& q : st.queues()) queues[q.proof_kind()] = q;
    for (const char* k : {"porep-c2", "snap-update", "window-post", "winning-post"}) {
        ASSERT_TRUE(queues.count(k)) << k;
        EXPECT_EQ(queues[k].pending() + queues[k].in_progress(), 0u) << k;
    }
    std::map<std::string, v1::SRSStatus> srs;
    for (const auto& s : st.loaded_srs()) srs[s.circuit_id()] = s;
    for (const char* id : {"porep-2k", "winning-2k", "wpost-2k", "snap-2k"}) {
        ASSERT_TRUE(srs.count(id)) << id;
        EXPECT_EQ(srs[id].tier(), v1::SRSStatus::WARM) << id << ": in host memory on the CPU backend";
        EXPECT_GT(srs[id].size_bytes(), 0u) << id;
        EXPECT_EQ(srs[id].ref_count(), 0u) << id;
    }
    // Metrics under Curio's names.
    v1::GetMetricsResponse m;
    ASSERT_TRUE(w.stub->GetMetrics(Wire::ctx().get(), v1::GetMetricsRequest(), &m).ok());
    for (const char* line : {"cuzk_proofs_completed_total 4\n", "cuzk_proofs_failed_total 0\n",
                             "cuzk_proofs_completed{proof_kind=\"porep_c2\"} 1\n", "cuzk_running_jobs 0\n",
                             "cuzk_proof_duration_seconds_count{proof_kind=\"winning_post\"} 1\n"})
        EXPECT_NE(m.prometheus_text().find(line), std::string::npos) << line << m.prometheus_text();
    EXPECT_NE(m.prometheus_text().find("cuzk_uptime_seconds "), std::string::npos);

    // PreloadSRS / EvictSRS by circuit id: loaded stays loaded; evicted goes COLD (the file is still there).
    v1::PreloadSrsRequest pq;
    pq.set_circuit_id("wpost-2k");
    v1::PreloadSrsResponse pr;
    ASSERT_TRUE(w.stub->PreloadSRS(Wire::ctx().get(), pq, &pr).ok());
    EXPECT_TRUE(pr.already_loaded());
    v1::EvictSrsRequest eq;
    eq.set_circuit_id("snap-2k");
    v1::EvictSrsResponse er;
    // The engine lets go of an ended job's key when it forgets the job (within seconds).
    for (int k = 0; k < 200 && !er.was_loaded(); k++) {
        ASSERT_TRUE(w.stub->EvictSRS(Wire::ctx().get(), eq, &er).ok());
        if (!er.was_loaded()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(er.was_loaded());
    EXPECT_GT(er.freed_bytes(), 0u);
    const auto after = w.status();
    for (const auto& s : after.loaded_srs())
        if (s.circuit_id() == "snap-2k") {
            EXPECT_EQ(s.tier(), v1::SRSStatus::COLD);
        }
    ASSERT_TRUE(w.stub->PreloadSRS(Wire::ctx().get(), [] {
                            v1::PreloadSrsRequest q;
                            q.set_circuit_id("snap-2k");
                            return q;
                        }(), &pr).ok());
    EXPECT_FALSE(pr.already_loaded());
    pq.set_circuit_id("porep-4k");
    EXPECT_EQ(w.stub->PreloadSRS(Wire::ctx().get(), pq, &pr).error_code(), StatusCode::INVALID_ARGUMENT);
    pq.set_circuit_id("porep-32g");  // known, but its file is not in the directory
    const auto missing = w.stub->PreloadSRS(Wire::ctx().get(), pq, &pr);
    EXPECT_EQ(missing.error_code(), StatusCode::FAILED_PRECONDITION);
    EXPECT_NE(missing.error_message().find("v28-stacked-proof-of-replication"), std::string::npos)
        << missing.error_message();
}

// request_id: while its job is queued, running or done, the same id with the same inputs answers the same job (after
// completion its stored proof, across a restart too); after a cancel, or with other inputs, it makes a new job. A
// Filecoin job in flight at an interrupting shutdown is proven after the restart under its id. (Winning PoSts: the
// bookkeeping is the same for every kind, and they prove in a fraction of a second.)
TEST(CurioApi, ARequestIdAnswersItsJobAndARestartLosesNothing) {
    TempDir state;
    daemon::DaemonConfig cfg = config(state.path);
    cfg.shutdown = "interrupt";
    const auto winning = fc::RegisteredPoStProof::StackedDrgWinning2KiBV1;
    PostCase a = post_request(winning, 1, 71);
    PostCase b = post_request(winning, 1, 72);
    a.request.set_priority(v1::NORMAL);  // queued behind the long job like any NORMAL job
    b.request.set_priority(v1::NORMAL);
    std::string a_id, a_proof, b_id, blocker;
    {
        daemon::Daemon d(cfg);
        Wire w(d.socket_path());
        a_id = w.submit(a.request);
        EXPECT_EQ(w.submit(a.request), a_id) << "queued or running: the same job";
        const auto ra = w.await(a_id);
        ASSERT_EQ(ra.status(), v1::AwaitProofResponse::COMPLETED) << ra.error_message();
        a_proof = ra.proof();
        EXPECT_TRUE(post_valid(a, a_proof));
        v1::SubmitProofRequest urgent = a.request;
        urgent.set_priority(v1::CRITICAL);
        EXPECT_EQ(w.submit(urgent), a_id) << "done: the same job, not proven again (priority is not an input)";
        EXPECT_EQ(w.await(a_id).proof(), a_proof);

        // Cancelled while queued behind a long job: the same id then makes a new job.
        blocker = w.submit(long_job(1));
        wait_until_running(w, blocker);
        const std::string b1 = w.submit(b.request);
        v1::CancelProofRequest cq;
        cq.set_job_id(b1);
        v1::CancelProofResponse cr;
        ASSERT_TRUE(w.stub->CancelProof(Wire::ctx().get(), cq, &cr).ok());
        EXPECT_TRUE(cr.cancelled());
        EXPECT_EQ(w.await(b1).status(), v1::AwaitProofResponse::CANCELLED);
        b_id = w.submit(b.request);
        EXPECT_NE(b_id, b1) << "a cancelled job's id makes a new job";
        // An await with a timeout answers TIMEOUT while the job waits.
        EXPECT_EQ(w.await(b_id, 50).status(), v1::AwaitProofResponse::TIMEOUT);
    }  // interrupted: b waits behind the long job, both stay queued in the store
    daemon::Daemon d(cfg);
    Wire w(d.socket_path());
    v1::CancelProofRequest cq;
    cq.set_job_id(blocker);
    v1::CancelProofResponse cr;
    ASSERT_TRUE(w.stub->CancelProof(Wire::ctx().get(), cq, &cr).ok());
    const auto rb = w.await(b_id);
    ASSERT_EQ(rb.status(), v1::AwaitProofResponse::COMPLETED) << rb.error_message();
    EXPECT_TRUE(post_valid(b, rb.proof()));
    EXPECT_EQ(w.submit(b.request), b_id);
    EXPECT_EQ(w.submit(a.request), a_id) << "the done job's id survives the restart";
    EXPECT_EQ(w.await(a_id).proof(), a_proof);
    // The same id with other inputs (other vanilla proofs) is a new job, proven from them.
    PostCase again = post_request(winning, 1, 74);
    again.request.set_request_id(a.request.request_id());
    const std::string again_id = w.submit(again.request);
    EXPECT_NE(again_id, a_id);
    const auto rg = w.await(again_id);
    ASSERT_EQ(rg.status(), v1::AwaitProofResponse::COMPLETED) << rg.error_message();
    EXPECT_TRUE(post_valid(again, rg.proof()));
    EXPECT_FALSE(post_valid(a, rg.proof()));
}

TEST(CurioApi, ACriticalWinningPostOvertakesALongNormalJob) {
    TempDir state;
    daemon::Daemon d(config(state.path));
    Wire w(d.socket_path());
    const std::string blocker = w.submit(long_job(2));
    const std::string queued = w.submit(long_job(3));
    wait_until_running(w, blocker);
    PostCase winning = post_request(fc::RegisteredPoStProof::StackedDrgWinning2KiBV1, 1, 81);
    winning.request.set_priority(v1::PRIORITY_UNSPECIFIED);  // the kind's: CRITICAL
    const auto r = w.prove_ok(winning.request);
    EXPECT_TRUE(post_valid(winning, r.proof()));
    const auto bs = job_status(w, blocker);
    EXPECT_EQ(bs.state(), v1::RUNNING);
    EXPECT_LT(bs.partitions_proven(), 64u) << "the WinningPoSt did not wait for the long job";
    EXPECT_EQ(job_status(w, queued).partitions_proven(), 0u) << "nor for the queued one";
    const auto st = w.status();
    ASSERT_GT(st.queues_size(), 0);
    for (const std::string& id : {blocker, queued}) {
        v1::CancelProofRequest cq;
        cq.set_job_id(id);
        v1::CancelProofResponse cr;
        EXPECT_TRUE(w.stub->CancelProof(Wire::ctx().get(), cq, &cr).ok());
    }
}

TEST(CurioApi, BadRequestsGetTheRightStatusNamingTheProblem) {
    TempDir state;
    daemon::DaemonConfig cfg = config(state.path);
    cfg.max_request_bytes = 1 << 20;
    daemon::Daemon d(cfg);
    Wire w(d.socket_path());
    const PorepCase porep = porep_request(kSector, 91);
    const PostCase winning = post_request(fc::RegisteredPoStProof::StackedDrgWinning2KiBV1, 1, 92);
    const SnapCase snap = snap_request(93);
    auto edit = [](v1::SubmitProofRequest q, auto f) {
        f(q);
        return q;
    };
    struct Case {
        const char* what;
        v1::SubmitProofRequest q;
        StatusCode code;
        const char* names;  // the message names this
    };
    std::string envelope = fc::write_curio_c1({kSector, kSectorSize, porep.sector.c1});
    const std::string broken_base64 = [&] {
        std::string e = envelope;
        const size_t at = e.find("\"Phase1Out\":\"") + 13;
        e[at] = '@';
        return e;
    }();
    const std::vector<Case> cases = {
        {"unknown kind", edit(porep.request, [](auto& q) { q.set_proof_kind((v1::ProofKind)7); }),
         StatusCode::INVALID_ARGUMENT, "proof_kind"},
        {"unknown proof", edit(porep.request, [](auto& q) { q.set_registered_proof(99); }),
         StatusCode::INVALID_ARGUMENT, "registered_proof 99"},
        {"sector size", edit(porep.request, [](auto& q) { q.set_sector_size(uint64_t(32) << 30); }),
         StatusCode::INVALID_ARGUMENT, "sector_size"},
        {"C1 of another proof", edit(porep.request, [](auto& q) { q.set_registered_proof(0); }),
         StatusCode::INVALID_ARGUMENT, "StackedDrg2KiBV1_1"},
        {"C1 of another sector", edit(porep.request, [](auto& q) { q.set_sector_number(kSector + 1); }),
         StatusCode::INVALID_ARGUMENT, "sector"},
        {"C1 of another miner", edit(porep.request, [](auto& q) { q.set_miner_id(kMiner + 1); }),
         StatusCode::INVALID_ARGUMENT, "replica_id"},
        {"broken base64", edit(porep.request, [&](auto& q) { q.set_vanilla_proof(broken_base64); }),
         StatusCode::INVALID_ARGUMENT, "Phase1Out"},
        {"broken JSON", edit(porep.request, [](auto& q) { q.set_vanilla_proof("{\"registered_proof\": "); }),
         StatusCode::INVALID_ARGUMENT, "porep-c2"},
        {"no C1", edit(porep.request, [](auto& q) { q.clear_vanilla_proof(); }), StatusCode::INVALID_ARGUMENT,
         "vanilla_proof"},
        {"broken bincode", edit(winning.request, [](auto& q) { q.set_vanilla_proofs(0, "xyz"); }),
         StatusCode::INVALID_ARGUMENT, "vanilla_proofs[0]"},
        {"no vanilla proof", edit(winning.request, [](auto& q) { q.clear_vanilla_proofs(); }),
         StatusCode::INVALID_ARGUMENT, "vanilla_proofs"},
        {"short randomness", edit(winning.request, [](auto& q) { q.set_randomness(std::string(31, '\1')); }),
         StatusCode::INVALID_ARGUMENT, "randomness"},
        {"window proof for winning", edit(winning.request, [](auto& q) { q.set_registered_proof(kWindowProof); }),
         StatusCode::INVALID_ARGUMENT, "Window"},
        {"other randomness", edit(winning.request, [](auto& q) { q.set_randomness(bytes_str(post_randomness(5))); }),
         StatusCode::INVALID_ARGUMENT, "winning-post"},
        {"short commitment", edit(snap.request, [](auto& q) { q.set_comm_d_new("abc"); }),
         StatusCode::INVALID_ARGUMENT, "comm_d_new"},
        {"snap of another size", edit(snap.request, [](auto& q) { q.set_registered_proof(1); q.clear_sector_size(); }),
         StatusCode::INVALID_ARGUMENT, "snap-update"},
        {"priority", edit(snap.request, [](auto& q) { q.set_priority((v1::Priority)9); }),
         StatusCode::INVALID_ARGUMENT, "priority"},
        {"oversized", edit(porep.request, [](auto& q) { q.set_vanilla_proof(std::string(2 << 20, ' ')); }),
         StatusCode::RESOURCE_EXHAUSTED, ""},
    };
    for (const Case& c : cases) {
        v1::SubmitProofResponse r;
        const grpc::Status st = w.stub->SubmitProof(Wire::ctx().get(), c.q, &r);
        EXPECT_EQ(st.error_code(), c.code) << c.what << ": " << st.error_message();
        EXPECT_NE(st.error_message().find(c.names), std::string::npos) << c.what << ": " << st.error_message();
    }
    v1::ProveResponse pr;
    EXPECT_EQ(w.stub->Prove(Wire::ctx().get(), v1::ProveRequest(), &pr).error_code(), StatusCode::INVALID_ARGUMENT);
    v1::AwaitProofResponse ar;
    v1::AwaitProofRequest aq;
    aq.set_job_id("nope");
    EXPECT_EQ(w.stub->AwaitProof(Wire::ctx().get(), aq, &ar).error_code(), StatusCode::INVALID_ARGUMENT);
    aq.set_job_id("987654");
    EXPECT_EQ(w.stub->AwaitProof(Wire::ctx().get(), aq, &ar).error_code(), StatusCode::NOT_FOUND);

    // Missing parameter files: refused at submission, naming the file and the directory.
    {
        TempDir empty;
        daemon::DaemonConfig ec = config(empty.path);
        ec.params_dir = empty.path;
        daemon::Daemon e(ec);
        Wire we(e.socket_path());
        v1::SubmitProofResponse r;
        const grpc::Status st = we.stub->SubmitProof(Wire::ctx().get(), winning.request, &r);
        EXPECT_EQ(st.error_code(), StatusCode::FAILED_PRECONDITION) << st.error_message();
        EXPECT_NE(st.error_message().find("v28-proof-of-spacetime-fallback"), std::string::npos) << st.error_message();
        EXPECT_NE(st.error_message().find(empty.path.string()), std::string::npos) << st.error_message();
    }
    // And the daemon keeps serving: every kind still proves.
    EXPECT_TRUE(post_valid(winning, w.prove_ok(winning.request).proof()));
    EXPECT_TRUE(porep_valid(porep, w.prove_ok(porep.request).proof()));
    EXPECT_EQ(w.status().total_proofs_failed(), 0u);
}

// The wire contract, field by field (Curio's proving.proto at filecoin-project/curio e0294b0f, as
// ../shared/filecoin/curio.md summarizes it): a renumbered or retyped field would break Curio's client silently.
TEST(CurioProto, KeepsCuriosFieldNumbersAndTypes) {
    using google::protobuf::FieldDescriptor;
    struct F {
        const google::protobuf::Descriptor* msg;
        const char* name;
        int number;
        FieldDescriptor::Type type;
        bool repeated = false;
    };
    const auto S = FieldDescriptor::TYPE_STRING, B = FieldDescriptor::TYPE_BYTES, U64 = FieldDescriptor::TYPE_UINT64,
               U32 = FieldDescriptor::TYPE_UINT32, E = FieldDescriptor::TYPE_ENUM, M = FieldDescriptor::TYPE_MESSAGE,
               BOOL = FieldDescriptor::TYPE_BOOL;
    const std::vector<F> fields = {
        {v1::SubmitProofRequest::descriptor(), "request_id", 1, S},
        {v1::SubmitProofRequest::descriptor(), "proof_kind", 2, E},
        {v1::SubmitProofRequest::descriptor(), "sector_size", 3, U64},
        {v1::SubmitProofRequest::descriptor(), "registered_proof", 4, U64},
        {v1::SubmitProofRequest::descriptor(), "priority", 5, E},
        {v1::SubmitProofRequest::descriptor(), "vanilla_proof", 10, B},
        {v1::SubmitProofRequest::descriptor(), "vanilla_proofs", 11, B, true},
        {v1::SubmitProofRequest::descriptor(), "sector_number", 20, U64},
        {v1::SubmitProofRequest::descriptor(), "miner_id", 21, U64},
        {v1::SubmitProofRequest::descriptor(), "randomness", 22, B},
        {v1::SubmitProofRequest::descriptor(), "partition_index", 23, U32},
        {v1::SubmitProofRequest::descriptor(), "comm_r_old", 30, B},
        {v1::SubmitProofRequest::descriptor(), "comm_r_new", 31, B},
        {v1::SubmitProofRequest::descriptor(), "comm_d_new", 32, B},
        {v1::SubmitProofResponse::descriptor(), "job_id", 1, S},
        {v1::SubmitProofResponse::descriptor(), "queue_position", 2, U32},
        {v1::SubmitProofResponse::descriptor(), "assigned_gpu", 3, S},
        {v1::AwaitProofRequest::descriptor(), "job_id", 1, S},
        {v1::AwaitProofRequest::descriptor(), "timeout_ms", 2, U64},
        {v1::AwaitProofResponse::descriptor(), "job_id", 1, S},
        {v1::AwaitProofResponse::descriptor(), "status", 2, E},
        {v1::AwaitProofResponse::descriptor(), "proof", 3, B},
        {v1::AwaitProofResponse::descriptor(), "error_message", 4, S},
        {v1::AwaitProofResponse::descriptor(), "queue_wait_ms", 10, U64},
        {v1::AwaitProofResponse::descriptor(), "srs_load_ms", 11, U64},
        {v1::AwaitProofResponse::descriptor(), "synthesis_ms", 12, U64},
        {v1::AwaitProofResponse::descriptor(), "gpu_compute_ms", 13, U64},
        {v1::AwaitProofResponse::descriptor(), "total_ms", 14, U64},
        {v1::ProveRequest::descriptor(), "submit", 1, M},
        {v1::ProveResponse::descriptor(), "result", 1, M},
        {v1::CancelProofRequest::descriptor(), "job_id", 1, S},
        {v1::CancelProofResponse::descriptor(), "was_running", 1, BOOL},
        {v1::GetStatusResponse::descriptor(), "gpus", 1, M, true},
        {v1::GetStatusResponse::descriptor(), "loaded_srs", 2, M, true},
        {v1::GetStatusResponse::descriptor(), "queues", 3, M, true},
        {v1::GetStatusResponse::descriptor(), "total_proofs_completed", 4, U64},
        {v1::GetStatusResponse::descriptor(), "total_proofs_failed", 5, U64},
        {v1::GetStatusResponse::descriptor(), "uptime_seconds", 6, U64},
        {v1::GetStatusResponse::descriptor(), "pinned_memory_bytes", 7, U64},
        {v1::GetStatusResponse::descriptor(), "pinned_memory_limit_bytes", 8, U64},
        {v1::GPUStatus::descriptor(), "ordinal", 1, U32},
        {v1::GPUStatus::descriptor(), "name", 2, S},
        {v1::GPUStatus::descriptor(), "vram_total_bytes", 3, U64},
        {v1::GPUStatus::descriptor(), "vram_free_bytes", 4, U64},
        {v1::GPUStatus::descriptor(), "current_job_id", 5, S},
        {v1::GPUStatus::descriptor(), "current_proof_kind", 6, S},
        {v1::SRSStatus::descriptor(), "circuit_id", 1, S},
        {v1::SRSStatus::descriptor(), "tier", 2, E},
        {v1::SRSStatus::descriptor(), "size_bytes", 3, U64},
        {v1::SRSStatus::descriptor(), "ref_count", 4, U32},
        {v1::QueueStatus::descriptor(), "proof_kind", 1, S},
        {v1::QueueStatus::descriptor(), "pending", 2, U32},
        {v1::QueueStatus::descriptor(), "in_progress", 3, U32},
        {v1::PreloadSrsRequest::descriptor(), "circuit_id", 1, S},
        {v1::PreloadSrsResponse::descriptor(), "already_loaded", 1, BOOL},
        {v1::PreloadSrsResponse::descriptor(), "load_time_ms", 2, U64},
        {v1::EvictSrsRequest::descriptor(), "circuit_id", 1, S},
        {v1::EvictSrsResponse::descriptor(), "was_loaded", 1, BOOL},
        {v1::EvictSrsResponse::descriptor(), "freed_bytes", 2, U64},
        {v1::GetMetricsResponse::descriptor(), "prometheus_text", 1, S},
    };
    for (const F& f : fields) {
        const FieldDescriptor* d = f.msg->FindFieldByName(f.name);
        ASSERT_NE(d, nullptr) << f.msg->name() << "." << f.name;
        EXPECT_EQ(d->number(), f.number) << f.msg->name() << "." << f.name;
        EXPECT_EQ(d->type(), f.type) << f.msg->name() << "." << f.name;
        EXPECT_EQ(d->is_repeated(), f.repeated) << f.msg->name() << "." << f.name;
    }
    // cuzk's own fields stay out of Curio's range.
    for (const auto* msg : {v1::SubmitProofRequest::descriptor(), v1::AwaitProofResponse::descriptor(),
                            v1::GetStatusResponse::descriptor(), v1::GetStatusRequest::descriptor(),
                            v1::CancelProofResponse::descriptor(), v1::PreloadSrsRequest::descriptor(),
                            v1::PreloadSrsResponse::descriptor(), v1::EvictSrsRequest::descriptor()})
        for (int i = 0; i < msg->field_count(); i++) {
            const bool curios = std::any_of(fields.begin(), fields.end(), [&](const F& f) {
                return f.msg == msg && msg->field(i)->name() == f.name;
            });
            if (!curios) {
                EXPECT_GE(msg->field(i)->number(), 100) << msg->name() << "." << msg->field(i)->name();
            }
        }
    // Enums by number, and the service's methods by name.
    EXPECT_EQ(v1::POREP_SEAL_COMMIT, 1);
    EXPECT_EQ(v1::SNAP_DEALS_UPDATE, 2);
    EXPECT_EQ(v1::WINDOW_POST_PARTITION, 3);
    EXPECT_EQ(v1::WINNING_POST, 4);
    EXPECT_EQ(v1::LOW, 1);
    EXPECT_EQ(v1::NORMAL, 2);
    EXPECT_EQ(v1::HIGH, 3);
    EXPECT_EQ(v1::CRITICAL, 4);
    EXPECT_EQ(v1::AwaitProofResponse::COMPLETED, 1);
    EXPECT_EQ(v1::AwaitProofResponse::FAILED, 2);
    EXPECT_EQ(v1::AwaitProofResponse::CANCELLED, 3);
    EXPECT_EQ(v1::AwaitProofResponse::TIMEOUT, 4);
    EXPECT_EQ(v1::SRSStatus::HOT, 0);
    EXPECT_EQ(v1::SRSStatus::WARM, 1);
    EXPECT_EQ(v1::SRSStatus::COLD, 2);
    const auto* service = v1::SubmitProofRequest::descriptor()->file()->FindServiceByName("ProvingEngine");
    ASSERT_NE(service, nullptr);
    EXPECT_EQ(service->full_name(), "cuzk.v1.ProvingEngine");
    for (const char* m : {"SubmitProof", "AwaitProof", "Prove", "CancelProof", "GetStatus", "GetMetrics", "PreloadSRS",
                          "EvictSRS"})
        EXPECT_NE(service->FindMethodByName(m), nullptr) << m;
    EXPECT_EQ(service->method_count(), 8);
}
