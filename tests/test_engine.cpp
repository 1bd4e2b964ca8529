// The proving engine (engine/engine.hpp) on the CPU backend: proofs of a multi-partition job equal the prover
// seam's for the same r, s and verify; synthesis of the next partition overlaps proving; priorities, cancellation
// and failures; the background deallocator.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <map>
#include <mutex>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "cuzk/circuits/builtin.hpp"
#include "cuzk/ec/encoding.hpp"
#include "cuzk/util/deallocator.hpp"
#include "cuzk/engine/engine.hpp"
#include "cuzk/engine/key_store.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/groth16/prover.hpp"
#include "cuzk/groth16/setup.hpp"
#include "cuzk/groth16/verifier.hpp"
#include "cuzk/msm/batch_subgroup.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "cuzk/util/thread_pool.hpp"

using namespace cuzk;
using namespace cuzk::engine;

namespace {

constexpr unsigned kLog = 8;

const groth16::Parameters& params() {
    static const groth16::Parameters p = groth16::generate_parameters(
        circuits::MulChainCircuit(kLog, 2, std::nullopt), groth16::ToxicWaste::from_seed(31));
    return p;
}

r1cs::ProvingAssignment synth(uint64_t seed) {
    r1cs::ProvingAssignment asg;
    r1cs::synthesize_groth16(asg, circuits::MulChainCircuit(kLog, 2, seed));
    return asg;
}

JobSpec chain_job(CpuBackend& backend, size_t partitions, uint64_t seed_base, Priority prio = Priority::Normal) {
    JobSpec spec;
    spec.name = "mulchain";
    spec.priority = prio;
    spec.partitions = partitions;
    spec.backend = &backend;
    spec.synthesize = [seed_base](size_t i) { return synth(seed_base + i); };
    return spec;
}

const TimingSpan* find(const std::vector<TimingSpan>& spans, const std::string& name, int64_t item) {
    for (const auto& s : spans)
        if (s.layer == TimingLayer::Pipeline && s.name == name && s.item == item) return &s;
    return nullptr;
}

// A gate the test opens: synthesize functions wait on it to hold a job (and the scheduler) in place.
struct Gate {
    std::promise<void> p;
    std::shared_future<void> f{p.get_future().share()};
    void open() { p.set_value(); }
    void wait() const { f.wait(); }
};

}  // namespace

TEST(Engine, PartitionsProveInOrderLikeTheSeam) {
    CpuBackend backend(params());
    EngineConfig cfg;
    cfg.synthesis_workers = 2;
    cfg.lookahead = 2;
    Engine engine(cfg);
    JobSpec spec = chain_job(backend, 5, 100);
    spec.randomness_seed = 42;
    const JobResult res = engine.await(engine.submit(spec));
    ASSERT_EQ(res.state, JobState::Done) << res.error;
    ASSERT_EQ(res.proofs.size(), 5u);
    // The engine draws r_i, s_i from mt19937_64(seed) in partition order.
    std::mt19937_64 rng(42);
    std::vector<Fr> r, s;
    std::vector<r1cs::ProvingAssignment> asg;
    for (size_t i = 0; i < 5; i++) {
        r.push_back(Fr::random(rng));
        s.push_back(Fr::random(rng));
        asg.push_back(synth(100 + i));
    }
    const auto want = groth16::prove_from_assignments(params(), asg, r, s);
    const auto pvk = groth16::prepare_verifying_key(params().vk);
    for (size_t i = 0; i < 5; i++) {
        EXPECT_TRUE(res.proofs[i] == want[i]) << "partition " << i;
        EXPECT_TRUE(groth16::verify_proof(pvk, res.proofs[i], circuits::MulChainCircuit(kLog, 2, 100 + i).public_values()));
    }
    // Every partition left its pipeline spans, and the prover layer's spans landed in the same timeline.
    const auto spans = res.timeline->spans();
    for (int64_t i = 0; i < 5; i++) {
        EXPECT_NE(find(spans, "synthesis", i), nullptr) << i;
        EXPECT_NE(find(spans, "handover", i), nullptr) << i;
        EXPECT_NE(find(spans, "proving", i), nullptr) << i;
    }
    ASSERT_NE(find(spans, "queued", -1), nullptr);
    for (const auto& sp : spans) EXPECT_GE(sp.start_s, 0.0) << sp.name << " starts before the job's timeline";
    EXPECT_NE(find(spans, "job", -1), nullptr);
    EXPECT_GT(res.timeline->total(TimingLayer::Prover, "msm.a"), 0.0);
    // ... labelled with their partition, inside that partition's proving span.
    for (int64_t i = 0; i < 5; i++) {
        const TimingSpan* proving = find(spans, "proving", i);
        ASSERT_NE(proving, nullptr);
        size_t msm_a = 0;
        for (const auto& sp : spans) {
            if (sp.layer != TimingLayer::Prover || sp.name != "msm.a" || sp.item != i) continue;
            msm_a++;
            EXPECT_GE(sp.start_s, proving->start_s - 1e-6) << i;
            EXPECT_LE(sp.start_s + sp.duration_s, proving->start_s + proving->duration_s + 1e-6) << i;
        }
        EXPECT_EQ(msm_a, 1u) << "partition " << i << "'s msm.a";
    }
    EXPECT_GT(res.wall_seconds, 0.0);
}

// EngineConfig::synthesis_nice: the synthesis workers' nice value (Linux), seen by the synthesize function of a
// normal job; the calling thread keeps its own; a value outside [0, 19] is refused.
TEST(Engine, SynthesisWorkersRunAtTheirNiceValue) {
    EngineConfig bad;
    bad.synthesis_nice = 20;
    EXPECT_THROW(Engine{bad}, std::invalid_argument);
    bad.synthesis_nice = -1;
    EXPECT_THROW(Engine{bad}, std::invalid_argument);
#if defined(__linux__)
    const int base = thread_nice();
    if (base >= 17) GTEST_SKIP() << "this process already runs at nice " << base;
    CpuBackend backend(params());
    EngineConfig cfg;
    cfg.synthesis_nice = base + 2;
    Engine engine(cfg);
    JobSpec spec = chain_job(backend, 2, 90);
    std::atomic<int> seen{-100};
    spec.synthesize = [&](size_t i) {
        seen = thread_nice();
        return synth(90 + i);
    };
    const JobResult res = engine.await(engine.submit(spec));
    ASSERT_EQ(res.state, JobState::Done) << res.error;
    EXPECT_EQ(seen.load(), base + 2);
    EXPECT_EQ(thread_nice(), base) << "the caller's thread keeps its own";
#endif
}

// With one synthesis worker and a lookahead of one, partition 1 is synthesized while partition 0 is proven.
TEST(Engine, SynthesisOverlapsProving) {
    CpuBackend backend(params());
    Engine engine;  // 1 worker, lookahead 1
    const JobResult res = engine.await(engine.submit(chain_job(backend, 3, 7)));
    ASSERT_EQ(res.state, JobState::Done) << res.error;
    const auto spans = res.timeline->spans();
    const TimingSpan* syn1 = find(spans, "synthesis", 1);
    const TimingSpan* prove0 = find(spans, "proving", 0);
    ASSERT_TRUE(syn1 && prove0);
    EXPECT_LT(syn1->start_s, prove0->start_s + prove0->duration_s) << "no overlap of synthesis and proving";
}

// JobSpec::first_partition_alone: no other partition of the job starts synthesis before partition 0's ends, though
// three workers are free; without it they start at once (partition 0 holds until partition 1 has started).
TEST(Engine, AFirstPartitionAloneIsSynthesizedBeforeTheOthersStart) {
    for (bool alone : {true, false}) {
        CpuBackend backend(params());
        EngineConfig cfg;
        cfg.synthesis_workers = 3;
        cfg.lookahead = 2;
        Engine engine(cfg);
        JobSpec spec = chain_job(backend, 4, 70);
        spec.first_partition_alone = alone;
        std::atomic<bool> first_done{false};
        std::atomic<int> early{0};  // other partitions started before partition 0 ended
        Gate second_started;
        std::atomic<bool> opened{false};
        spec.synthesize = [&](size_t i) {
            if (i == 0) {
                // Without the rule partition 1 starts meanwhile; with it, give it time to (wrongly) start.
                if (!alone) second_started.f.wait_for(std::chrono::seconds(20));  // a failure, not a hang
                else std::this_thread::sleep_for(std::chrono::milliseconds(100));
                auto asg = synth(70);
                first_done = true;
                return asg;
            }
            if (!first_done) early++;
            if (!opened.exchange(true)) second_started.open();
            return synth(70 + i);
        };
        const JobResult res = engine.await(engine.submit(spec));
        ASSERT_EQ(res.state, JobState::Done) << res.error;
        ASSERT_EQ(res.proofs.size(), 4u);
        if (alone) EXPECT_EQ(early.load(), 0) << "a partition started before the first one was ready";
        else EXPECT_GT(early.load(), 0);
        const auto spans = res.timeline->spans();
        const TimingSpan* s0 = find(spans, "synthesis", 0);
        ASSERT_NE(s0, nullptr);
        for (int64_t i = 1; i < 4 && alone; i++) {
            const TimingSpan* si = find(spans, "synthesis", i);
            ASSERT_NE(si, nullptr);
            EXPECT_GE(si->start_s, s0->start_s + s0->duration_s - 1e-6) << "partition " << i;
        }
    }
}

TEST(Engine, HigherPriorityRunsFirst) {
    CpuBackend backend(params());
    Engine engine;
    Gate gate;
    std::mutex mu;
    std::vector<std::string> started;
    auto spec_named = [&](const std::string& name, Priority prio, bool hold) {
        JobSpec spec = chain_job(backend, 1, 5, prio);
        spec.name = name;
        spec.synthesize = [&, name, hold](size_t i) {
            {
                std::lock_guard<std::mutex> lk(mu);
                started.push_back(name);
            }
            if (hold) gate.wait();
            return synth(5 + i);
        };
        return spec;
    };
    const JobId first = engine.submit(spec_named("first", Priority::Low, true));
    // Held in its synthesis (Running alone is not enough: the urgent worker could start the critical job before
    // the first one's synthesis function is entered).
    auto first_started = [&] {
        std::lock_guard<std::mutex> lk(mu);
        return !started.empty();
    };
    while (!first_started()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(engine.state(first), JobState::Running);
    const JobId low = engine.submit(spec_named("low", Priority::Low, false));
    const JobId normal = engine.submit(spec_named("normal", Priority::Normal, false));
    const JobId critical = engine.submit(spec_named("critical", Priority::Critical, false));
    const JobId high = engine.submit(spec_named("high", Priority::High, false));
    // The critical job does not wait for the held synthesis: the urgent worker starts it.
    EXPECT_EQ(engine.await(critical).state, JobState::Done);
    gate.open();
    for (JobId id : {first, low, normal, critical, high}) EXPECT_EQ(engine.await(id).state, JobState::Done);
    EXPECT_EQ(started, (std::vector<std::string>{"first", "critical", "high", "normal", "low"}));
}

TEST(Engine, CancelQueuedAndRunningJobs) {
    CpuBackend backend(params());
    Engine engine;
    Gate gate;
    JobSpec held = chain_job(backend, 4, 9);
    held.synthesize = [&](size_t i) {
        gate.wait();
        return synth(9 + i);
    };
    const JobId running = engine.submit(held);
    const JobId queued = engine.submit(chain_job(backend, 1, 11));
    while (engine.state(running) != JobState::Running) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_TRUE(engine.cancel(queued));
    EXPECT_EQ(engine.state(queued), JobState::Cancelled);
    EXPECT_TRUE(engine.cancel(running));
    gate.open();
    const JobResult r = engine.await(running);
    EXPECT_EQ(r.state, JobState::Cancelled);
    EXPECT_TRUE(r.proofs.empty());
    EXPECT_FALSE(engine.cancel(running)) << "already ended";
    EXPECT_FALSE(engine.cancel(12345)) << "unknown";
    // The engine still works.
    EXPECT_EQ(engine.await(engine.submit(chain_job(backend, 1, 13))).state, JobState::Done);
}

// on_end reports every way a job ends (done, cancelled while queued or while running), exactly once each;
// proven() follows the partitions; forget() drops only ended jobs.
TEST(Engine, ReportsEndsAndProgressAndForgets) {
    CpuBackend backend(params());
    std::mutex mu;
    std::map<uint64_t, std::vector<JobState>> ends;
    auto record = [&](uint64_t id, const JobResult& r) {
        std::lock_guard<std::mutex> lk(mu);
        ends[id].push_back(r.state);
    };
    Engine engine;
    Gate gate, second;
    JobSpec held = chain_job(backend, 3, 21);
    held.on_end = record;
    held.synthesize = [&](size_t i) {
        if (i == 1) gate.wait();  // partition 0 proves, partition 1 waits
        if (i == 2) second.wait();
        return synth(21 + i);
    };
    const JobId running = engine.submit(held);
    JobSpec q = chain_job(backend, 1, 31);
    q.on_end = record;
    const JobId queued = engine.submit(q);
    for (int k = 0; k < 5000 && engine.proven(running) < 1; k++)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(engine.proven(running), 1u);
    EXPECT_FALSE(engine.forget(running)) << "still running";
    EXPECT_TRUE(engine.cancel(queued));
    gate.open();
    second.open();
    EXPECT_EQ(engine.await(running).state, JobState::Done);
    EXPECT_EQ(engine.proven(running), 3u);
    JobSpec c = chain_job(backend, 1, 41);
    c.on_end = record;
    const JobId third = engine.submit(c);
    EXPECT_EQ(engine.await(third).state, JobState::Done);
    {
        std::lock_guard<std::mutex> lk(mu);
        EXPECT_EQ(ends[running], std::vector<JobState>{JobState::Done});
        EXPECT_EQ(ends[queued], std::vector<JobState>{JobState::Cancelled});
        EXPECT_EQ(ends[third], std::vector<JobState>{JobState::Done});
    }
    EXPECT_TRUE(engine.forget(running));
    EXPECT_FALSE(engine.forget(running));
    EXPECT_THROW(engine.proven(running), std::out_of_range);
    EXPECT_THROW(engine.await(running), std::out_of_range);
}

TEST(Engine, AFailingJobDoesNotStopTheEngine) {
    CpuBackend backend(params());
    Engine engine;
    JobSpec bad = chain_job(backend, 3, 21);
    bad.synthesize = [](size_t i) -> r1cs::ProvingAssignment {
        if (i == 1) throw std::runtime_error("witness file is damaged");
        return synth(21 + i);
    };
    const JobResult r = engine.await(engine.submit(bad));
    EXPECT_EQ(r.state, JobState::Failed);
    EXPECT_NE(r.error.find("partition 1"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("witness file is damaged"), std::string::npos) << r.error;
    // A partition the parameters do not fit fails in proving, with the prover's message.
    JobSpec wrong = chain_job(backend, 1, 0);
    wrong.synthesize = [](size_t) {
        r1cs::ProvingAssignment asg;
        r1cs::synthesize_groth16(asg, circuits::MulChainCircuit(kLog + 1, 2, 3));
        return asg;
    };
    const JobResult w = engine.await(engine.submit(wrong));
    EXPECT_EQ(w.state, JobState::Failed);
    EXPECT_NE(w.error.find("proving (cpu backend)"), std::string::npos) << w.error;
    EXPECT_EQ(engine.await(engine.submit(chain_job(backend, 2, 23))).state, JobState::Done);
    const auto st = engine.stats();
    EXPECT_EQ(st.failed, 2u);
    EXPECT_EQ(st.done, 1u);
    EXPECT_THROW(engine.submit(JobSpec{}), std::invalid_argument);
    EXPECT_THROW(engine.await(999), std::out_of_range);
}

namespace {
// A backend that always fails, as a GPU with a fault or without memory would.
struct FaultyBackend : Backend {
    std::vector<groth16::Proof> prove(std::span<r1cs::ProvingAssignment>, std::span<const Fr>, std::span<const Fr>,
                                      TimingSink*) override {
        throw std::runtime_error("simulated device fault");
    }
    std::string name() const override { return "faulty"; }
};
}  // namespace

TEST(Engine, AFaultyBackendFallsBackAndReportsIt) {
    CpuBackend cpu(params());
    FaultyBackend faulty;
    Engine engine;
    JobSpec spec = chain_job(cpu, 2, 41);
    spec.backend = &faulty;
    spec.fallback = &cpu;
    spec.randomness_seed = 5;
    const JobResult res = engine.await(engine.submit(spec));
    ASSERT_EQ(res.state, JobState::Done) << res.error;
    ASSERT_EQ(res.fallbacks.size(), 2u);
    EXPECT_NE(res.fallbacks[0].find("simulated device fault"), std::string::npos) << res.fallbacks[0];
    EXPECT_NE(res.fallbacks[0].find("cpu backend"), std::string::npos) << res.fallbacks[0];
    // Same proofs as the CPU would have given directly.
    JobSpec direct = chain_job(cpu, 2, 41);
    direct.randomness_seed = 5;
    const JobResult want = engine.await(engine.submit(direct));
    EXPECT_TRUE(res.proofs == want.proofs);
    EXPECT_NE(res.timeline->spans().size(), 0u);
    // Without a fallback the job fails with the backend's message.
    JobSpec alone = chain_job(cpu, 1, 43);
    alone.backend = &faulty;
    const JobResult f = engine.await(engine.submit(alone));
    EXPECT_EQ(f.state, JobState::Failed);
    EXPECT_NE(f.error.find("simulated device fault"), std::string::npos) << f.error;
}

namespace {
// A CPU backend that says it needs more host memory than any budget (a CPU prover that reads a large key again).
struct OversizedFallback : CpuBackend {
    using CpuBackend::CpuBackend;
    std::atomic<int> calls{0};
    std::vector<groth16::Proof> prove(std::span<r1cs::ProvingAssignment> a, std::span<const Fr> r,
                                      std::span<const Fr> s, TimingSink* t) override {
        calls++;
        return CpuBackend::prove(a, r, s, t);
    }
    size_t working_bytes() const override { return size_t(1) << 50; }
};
}  // namespace

// A fallback whose working memory does not fit beside the resident set within the budget is not run: the job fails
// saying what the fallback needs (a process killed for memory loses every job); without a budget it runs.
TEST(Engine, AFallbackTooLargeForTheBudgetFailsTheJobInstead) {
    const auto& p = params();
    CpuBackend cpu(p);
    OversizedFallback hungry(p);
    FaultyBackend faulty;
    EngineConfig cfg;
    cfg.memory_budget_bytes = size_t(64) << 30;
    Engine engine(cfg);
    JobSpec spec = chain_job(cpu, 2, 45);
    spec.backend = &faulty;
    spec.fallback = &hungry;
    const JobResult res = engine.await(engine.submit(spec));
    EXPECT_EQ(res.state, JobState::Failed);
    EXPECT_NE(res.error.find("simulated device fault"), std::string::npos) << res.error;
    EXPECT_NE(res.error.find("not proven again on the cpu backend: it needs 1048576.0 GiB of host memory"),
              std::string::npos)
        << res.error;
    EXPECT_EQ(hungry.calls.load(), 0);
    Engine unbounded;
    const JobResult ok = unbounded.await(unbounded.submit(spec));
    ASSERT_EQ(ok.state, JobState::Done) << ok.error;
    EXPECT_EQ(hungry.calls.load(), 2);
}

namespace {
// A CPU backend that counts its proofs and takes a little longer (so that several proving workers overlap).
struct CountingBackend : Backend {
    CpuBackend cpu{params()};
    std::atomic<int> proofs{0};
    std::vector<groth16::Proof> prove(std::span<r1cs::ProvingAssignment> a, std::span<const Fr> r,
                                      std::span<const Fr> s, TimingSink* t) override {
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        proofs += (int)a.size();
        return cpu.prove(a, r, s, t);
    }
    std::string name() const override { return "counting"; }
};
}  // namespace

// Several backends (one per GPU): each has a proving worker taking partitions as they come; the proofs are those
// of one backend alone, in partition order; a faulty one among them falls back per partition.
TEST(Engine, ProvesOnSeveralBackends) {
    CountingBackend one, two;
    CpuBackend cpu(params());
    EngineConfig cfg;
    cfg.synthesis_workers = 3;
    cfg.lookahead = 3;
    Engine engine(cfg);
    JobSpec spec = chain_job(cpu, 8, 51);
    spec.backend = nullptr;
    spec.backends = {&one, &two};
    spec.randomness_seed = 9;
    spec.verify_key = &params().vk;
    const JobResult res = engine.await(engine.submit(spec));
    ASSERT_EQ(res.state, JobState::Done) << res.error;
    EXPECT_EQ(one.proofs + two.proofs, 8);
    EXPECT_GT(one.proofs.load(), 0) << "both workers prove";
    EXPECT_GT(two.proofs.load(), 0) << "both workers prove";
    JobSpec direct = chain_job(cpu, 8, 51);
    direct.randomness_seed = 9;
    const JobResult want = engine.await(engine.submit(direct));
    EXPECT_TRUE(res.proofs == want.proofs) << "same proofs, partition order";
    // One of them faulty: its partitions are proven again on the fallback.
    FaultyBackend faulty;
    JobSpec mixed = chain_job(cpu, 6, 51);
    mixed.backends = {&one, &faulty};
    mixed.fallback = &cpu;
    mixed.randomness_seed = 9;
    const JobResult m = engine.await(engine.submit(mixed));
    ASSERT_EQ(m.state, JobState::Done) << m.error;
    JobSpec direct6 = chain_job(cpu, 6, 51);
    direct6.randomness_seed = 9;
    EXPECT_TRUE(m.proofs == engine.await(engine.submit(direct6)).proofs);
    for (const auto& f : m.fallbacks) EXPECT_NE(f.find("simulated device fault"), std::string::npos) << f;
    JobSpec none = chain_job(cpu, 1, 1);
    none.backend = nullptr;
    EXPECT_THROW(engine.submit(none), std::invalid_argument);
    none.backends = {nullptr};
    EXPECT_THROW(engine.submit(none), std::invalid_argument);
}

namespace {
// A CPU backend standing in for a GPU that faults from its `ok`-th proof on (a lost device, a sticky CUDA error),
// with its own lane (as each GPU has), counting its calls.
// With `prepares`, it takes a, b, c away in prepare() as the GPU backend does (into the ticket), so a partition
// prepared for it cannot go to another backend as it is.
struct DyingBackend : Backend {
    DyingBackend(int ok, std::string lane_name, bool prepares = false)
        : ok(ok), lane_name(std::move(lane_name)), prepares(prepares) {}
    CpuBackend cpu{params()};
    const int ok;
    const std::string lane_name;
    const bool prepares;
    std::atomic<int> calls{0}, proofs{0}, prepared{0}, prepared_proves{0};
    struct Ticket : groth16::PreparedCircuit {
        std::vector<Fr> a, b, c;
    };
    std::vector<groth16::Proof> prove(std::span<r1cs::ProvingAssignment> a, std::span<const Fr> r,
                                      std::span<const Fr> s, TimingSink* t) override {
        if (calls++ >= ok) throw std::runtime_error("simulated device fault: device lost");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        auto out = cpu.prove(a, r, s, t);
        proofs += (int)a.size();
        return out;
    }
    std::unique_ptr<groth16::PreparedCircuit> prepare(r1cs::ProvingAssignment& asg, TimingSink*, int64_t) override {
        if (!prepares) return nullptr;
        prepared++;
        auto t = std::make_unique<Ticket>();
        t->a = std::move(asg.a()), t->b = std::move(asg.b()), t->c = std::move(asg.c());
        asg.a().clear(), asg.b().clear(), asg.c().clear();
        return t;
    }
    groth16::Proof prove_prepared(std::unique_ptr<groth16::PreparedCircuit> ticket, r1cs::ProvingAssignment& asg,
                                  const Fr& r, const Fr& s, TimingSink* timing, int64_t) override {
        prepared_proves++;
        auto* t = dynamic_cast<Ticket*>(ticket.get());
        asg.a() = std::move(t->a), asg.b() = std::move(t->b), asg.c() = std::move(t->c);
        return prove(std::span<r1cs::ProvingAssignment>(&asg, 1), std::span<const Fr>(&r, 1),
                     std::span<const Fr>(&s, 1), timing)
            .at(0);
    }
    std::string name() const override { return lane_name; }
    std::string lane() const override { return lane_name; }
};
}  // namespace

// A GPU that fails in the middle of a job loses no proof: it leaves the job, and its partition is synthesized again
// and proven on the job's other GPUs (not on the CPU fallback while another GPU is left); the proofs are those one
// backend alone gives, in partition order. CPU backends with their own lanes stand in for the GPUs.
TEST(Engine, AFailingBackendLeavesTheJobAndTheOthersProveItsPartition) {
    CpuBackend cpu(params());
    EngineConfig cfg;
    cfg.synthesis_workers = 3;
    cfg.lookahead = 3;
    Engine engine(cfg);
    JobSpec direct = chain_job(cpu, 8, 71);
    direct.randomness_seed = 13;
    const JobResult want = engine.await(engine.submit(direct));
    ASSERT_EQ(want.state, JobState::Done) << want.error;

    DyingBackend good(1000, "gpu0-standin"), dying(1, "gpu1-standin");  // dying: one proof, then faults
    CountingBackend fallback;
    std::atomic<int> synthesized{0};
    JobSpec spec = chain_job(cpu, 8, 71);
    spec.backend = nullptr;
    spec.backends = {&good, &dying};
    spec.fallback = &fallback;
    spec.verify_key = &params().vk;
    spec.randomness_seed = 13;
    spec.synthesize = [&synthesized](size_t i) {
        synthesized++;
        return synth(71 + i);
    };
    std::vector<std::string> reported;
    std::mutex reported_mu;
    spec.on_fallback = [&](const std::string& line) {
        std::lock_guard<std::mutex> lk(reported_mu);
        reported.push_back(line);
    };
    const JobResult res = engine.await(engine.submit(spec));
    ASSERT_EQ(res.state, JobState::Done) << res.error;
    EXPECT_TRUE(res.proofs == want.proofs) << "same proofs, partition order";
    ASSERT_GE(dying.calls.load(), 2) << "the dying backend took a partition after its first";
    // It failed once and left the job: nothing more was tried on it (a partition its lane had taken meanwhile went
    // back whole), and one partition was proven again, on the other backend.
    EXPECT_EQ(dying.calls.load(), 2);
    EXPECT_EQ(dying.proofs.load(), 1);
    EXPECT_EQ(good.proofs + dying.proofs, 8);
    EXPECT_EQ(fallback.proofs.load(), 0) << "another GPU was left: the CPU fallback is not used";
    EXPECT_EQ(synthesized.load(), 9) << "the failed partition is synthesized again, once";
    ASSERT_EQ(res.fallbacks.size(), 1u);
    EXPECT_NE(res.fallbacks[0].find("device lost"), std::string::npos) << res.fallbacks[0];
    EXPECT_NE(res.fallbacks[0].find("gpu1-standin backend left the job"), std::string::npos) << res.fallbacks[0];
    EXPECT_EQ(reported, res.fallbacks);

    // The same with a backend that prepares (takes a, b, c into its ticket, as the GPU's does): a partition its lane
    // had prepared when it failed is synthesized again too, never tried on it.
    DyingBackend good2(1000, "gpu0-standin"), dying2(1, "gpu1-standin", true);
    synthesized = 0;
    spec.backends = {&good2, &dying2};
    const JobResult res2 = engine.await(engine.submit(spec));
    ASSERT_EQ(res2.state, JobState::Done) << res2.error;
    EXPECT_TRUE(res2.proofs == want.proofs);
    ASSERT_GE(dying2.calls.load(), 2);
    EXPECT_EQ(dying2.calls.load(), 2);
    EXPECT_EQ(dying2.proofs.load(), 1);
    EXPECT_EQ(good2.proofs + dying2.proofs, 8);
    const int unused_tickets = dying2.prepared - dying2.prepared_proves;
    std::printf("the dying backend prepared %d partitions, %d of them never proven there\n", dying2.prepared.load(),
                unused_tickets);
    EXPECT_EQ(synthesized.load(), 9 + unused_tickets) << "prepared " << dying2.prepared.load();
    EXPECT_EQ(fallback.proofs.load(), 0);

    // Both fail: the last one left falls back to the CPU; without a fallback the job fails, saying why.
    DyingBackend dead0(0, "gpu0-standin"), dead1(0, "gpu1-standin");
    JobSpec both = chain_job(cpu, 4, 71);
    both.backend = nullptr;
    both.backends = {&dead0, &dead1};
    both.fallback = &fallback;
    both.randomness_seed = 13;
    const JobResult rescued = engine.await(engine.submit(both));
    ASSERT_EQ(rescued.state, JobState::Done) << rescued.error;
    for (size_t i = 0; i < 4; i++) EXPECT_TRUE(rescued.proofs[i] == want.proofs[i]) << i;
    EXPECT_EQ(fallback.proofs.load(), 4);
    // The first to fail left the job (one line), the last one's failures fell back (one line per partition).
    ASSERT_EQ(rescued.fallbacks.size(), 5u);
    EXPECT_EQ(std::count_if(rescued.fallbacks.begin(), rescued.fallbacks.end(),
                            [](const std::string& l) { return l.find("left the job") != std::string::npos; }),
              1);
    const auto on_cpu = [](const std::string& l) { return l.find("on the counting backend") != std::string::npos; };
    EXPECT_EQ(std::count_if(rescued.fallbacks.begin(), rescued.fallbacks.end(), on_cpu), 4);
    EXPECT_EQ(dead0.proofs + dead1.proofs, 0);
    both.fallback = nullptr;
    const JobResult failed = engine.await(engine.submit(both));
    EXPECT_EQ(failed.state, JobState::Failed);
    EXPECT_NE(failed.error.find("device lost"), std::string::npos) << failed.error;
}

namespace {
// A backend whose proofs are wrong (a silent device fault): the CPU's proof with A negated.
struct CorruptingBackend : Backend {
    CpuBackend cpu{params()};
    std::vector<groth16::Proof> prove(std::span<r1cs::ProvingAssignment> a, std::span<const Fr> r,
                                      std::span<const Fr> s, TimingSink* t) override {
        auto proofs = cpu.prove(a, r, s, t);
        for (auto& p : proofs) p.a = -p.a;
        return proofs;
    }
    std::string name() const override { return "corrupting"; }
};
}  // namespace

TEST(Engine, ProofsAreVerifiedBeforeTheyAreAccepted) {
    CpuBackend cpu(params());
    CorruptingBackend bad;
    Engine engine;
    JobSpec good = chain_job(cpu, 2, 61);
    good.verify_key = &params().vk;
    const JobResult g = engine.await(engine.submit(good));
    ASSERT_EQ(g.state, JobState::Done) << g.error;
    EXPECT_NE(find(g.timeline->spans(), "verify", 1), nullptr);
    JobSpec wrong = chain_job(cpu, 2, 63);
    wrong.backend = &bad;
    wrong.verify_key = &params().vk;
    const JobResult w = engine.await(engine.submit(wrong));
    EXPECT_EQ(w.state, JobState::Failed);
    EXPECT_NE(w.error.find("did not verify"), std::string::npos) << w.error;
    wrong.fallback = &cpu;
    const JobResult rescued = engine.await(engine.submit(wrong));
    ASSERT_EQ(rescued.state, JobState::Done) << rescued.error;
    EXPECT_EQ(rescued.fallbacks.size(), 2u);
    const auto pvk = groth16::prepare_verifying_key(params().vk);
    for (size_t i = 0; i < 2; i++)
        EXPECT_TRUE(groth16::verify_proof(pvk, rescued.proofs[i],
                                          circuits::MulChainCircuit(kLog, 2, 63 + i).public_values()));
    // Without verification the wrong proofs would have been accepted: the check is what catches them.
    wrong.verify_key = nullptr;
    wrong.fallback = nullptr;
    const JobResult unchecked = engine.await(engine.submit(wrong));
    ASSERT_EQ(unchecked.state, JobState::Done);
    EXPECT_FALSE(groth16::verify_proof(pvk, unchecked.proofs[0], circuits::MulChainCircuit(kLog, 2, 63).public_values()));
}

namespace {
// A backend with groups (ProverBackend::defer_group) over the CPU prover: a deferred circuit is proven at once and
// its proof held back until finish_group, which can fail, or return one member's proof wrong (A negated).
struct GroupingBackend : Backend {
    struct Held : groth16::DeferredGroup {
        std::vector<groth16::Proof> proofs;
        size_t size() const override { return proofs.size(); }
    };
    CpuBackend cpu{params()};
    bool fail_finish = false;
    std::optional<size_t> corrupt;  // the member whose proof comes back wrong
    std::mutex mu;
    std::vector<size_t> finished;  // the size of each group finished
    std::atomic<int> whole{0};     // circuits proven without a group
    std::atomic<int> deferred{0};  // circuits proven into a group
    std::atomic<int> lasts{0};     // of them, told they were the group's last
    std::vector<groth16::Proof> prove(std::span<r1cs::ProvingAssignment> a, std::span<const Fr> r,
                                      std::span<const Fr> s, TimingSink* t) override {
        whole += (int)a.size();
        return cpu.prove(a, r, s, t);
    }
    std::unique_ptr<groth16::DeferredGroup> defer_group() override { return std::make_unique<Held>(); }
    void prove_deferred(std::unique_ptr<groth16::PreparedCircuit> ticket, r1cs::ProvingAssignment& asg, const Fr& r,
                        const Fr& s, TimingSink* t, int64_t, groth16::DeferredGroup& group, bool last) override {
        EXPECT_EQ(ticket, nullptr) << "nothing was prepared";
        deferred++;
        lasts += last;
        auto p = cpu.prove(std::span<r1cs::ProvingAssignment>(&asg, 1), std::span<const Fr>(&r, 1),
                           std::span<const Fr>(&s, 1), t);
        dynamic_cast<Held&>(group).proofs.push_back(p.at(0));
    }
    std::vector<groth16::Proof> finish_group(groth16::DeferredGroup& group, TimingSink*) override {
        auto proofs = std::move(dynamic_cast<Held&>(group).proofs);
        dynamic_cast<Held&>(group).proofs.clear();
        {
            std::lock_guard<std::mutex> lk(mu);
            finished.push_back(proofs.size());
        }
        if (fail_finish) throw std::runtime_error("device lost while finishing");
        if (corrupt && *corrupt < proofs.size()) proofs[*corrupt].a = -proofs[*corrupt].a;
        return proofs;
    }
    std::string name() const override { return "grouping"; }
};

// A mulchain job of n partitions proven on `grouping` with its ones deferred to groups.
JobSpec grouped_job(GroupingBackend& grouping, CpuBackend& cpu, size_t n, uint64_t seed_base) {
    JobSpec spec = chain_job(cpu, n, seed_base);
    spec.backend = &grouping;
    spec.defer_ones = true;
    return spec;
}

// The seam's proofs of mulchain partitions seed_base + i for the engine's r, s (mt19937_64(seed) in order).
std::vector<groth16::Proof> seam_proofs(size_t n, uint64_t seed_base, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Fr> r, s;
    std::vector<r1cs::ProvingAssignment> asg;
    for (size_t i = 0; i < n; i++) {
        r.push_back(Fr::random(rng));
        s.push_back(Fr::random(rng));
        asg.push_back(synth(seed_base + i));
    }
    return groth16::prove_from_assignments(params(), asg, r, s);
}
}  // namespace

// JobSpec::defer_ones: a lane proves a job's partitions into one group and finishes them together once it has none
// left; the proofs are the seam's for the same r, s, verified, in order. A job without it, or a backend without
// groups, proves each partition whole.
TEST(Engine, GroupedPartitionsProveLikeTheSeam) {
    GroupingBackend grouping;
    CpuBackend cpu(params());
    Engine engine;
    JobSpec spec = grouped_job(grouping, cpu, 5, 700);
    spec.randomness_seed = 9;
    spec.verify_key = &params().vk;
    const JobResult res = engine.await(engine.submit(spec));
    ASSERT_EQ(res.state, JobState::Done) << res.error;
    const auto want = seam_proofs(5, 700, 9);
    ASSERT_EQ(res.proofs.size(), 5u);
    for (size_t i = 0; i < 5; i++) EXPECT_TRUE(res.proofs[i] == want[i]) << "partition " << i;
    EXPECT_EQ(grouping.finished, std::vector<size_t>{5}) << "one group of the job's five partitions";
    EXPECT_EQ(grouping.lasts, 1) << "the fifth partition was told it was the last";
    EXPECT_EQ(grouping.whole, 0);
    EXPECT_NE(find(res.timeline->spans(), "finish_group", -1), nullptr);
    EXPECT_NE(find(res.timeline->spans(), "verify", 4), nullptr);
    spec.defer_ones = false;
    const JobResult plain = engine.await(engine.submit(spec));
    ASSERT_EQ(plain.state, JobState::Done) << plain.error;
    for (size_t i = 0; i < 5; i++) EXPECT_TRUE(plain.proofs[i] == want[i]) << "partition " << i;
    EXPECT_EQ(grouping.whole, 5);
    EXPECT_EQ(grouping.finished.size(), 1u) << "no group without defer_ones";
    spec.backend = &cpu;  // no groups there
    spec.defer_ones = true;
    const JobResult on_cpu = engine.await(engine.submit(spec));
    ASSERT_EQ(on_cpu.state, JobState::Done) << on_cpu.error;
    for (size_t i = 0; i < 5; i++) EXPECT_TRUE(on_cpu.proofs[i] == want[i]) << "partition " << i;
}

// A group that fails to finish, or whose proof does not verify, is proven again as a failed partition is: on the
// fallback (each member synthesized again), else the job fails saying why.
TEST(Engine, AGroupThatFailsIsProvenAgain) {
    GroupingBackend grouping;
    CpuBackend cpu(params());
    Engine engine;
    JobSpec spec = grouped_job(grouping, cpu, 3, 720);
    spec.randomness_seed = 10;
    spec.verify_key = &params().vk;
    grouping.fail_finish = true;
    const JobResult failed = engine.await(engine.submit(spec));
    EXPECT_EQ(failed.state, JobState::Failed);
    EXPECT_NE(failed.error.find("finishing its group: device lost"), std::string::npos) << failed.error;
    spec.fallback = &cpu;
    const JobResult rescued = engine.await(engine.submit(spec));
    ASSERT_EQ(rescued.state, JobState::Done) << rescued.error;
    EXPECT_EQ(rescued.fallbacks.size(), 3u);
    const auto want = seam_proofs(3, 720, 10);
    for (size_t i = 0; i < 3; i++) EXPECT_TRUE(rescued.proofs[i] == want[i]) << "partition " << i;
    grouping.fail_finish = false;
    grouping.corrupt = 1;
    const JobResult one_bad = engine.await(engine.submit(spec));
    ASSERT_EQ(one_bad.state, JobState::Done) << one_bad.error;
    ASSERT_EQ(one_bad.fallbacks.size(), 1u);
    EXPECT_NE(one_bad.fallbacks[0].find("partition 1: proving (grouping backend): the proof did not verify"),
              std::string::npos)
        << one_bad.fallbacks[0];
    for (size_t i = 0; i < 3; i++) EXPECT_TRUE(one_bad.proofs[i] == want[i]) << "partition " << i;
}

// A job cancelled while its lane holds some of its partitions in an open group ends as cancelled (the group is
// dropped, nothing hangs), and the engine goes on with the next job.
TEST(Engine, CancellingAJobDropsItsOpenGroup) {
    GroupingBackend grouping;
    CpuBackend cpu(params());
    Engine engine;
    Gate gate;
    JobSpec spec = grouped_job(grouping, cpu, 4, 740);
    spec.synthesize = [&](size_t i) {
        if (i >= 2) gate.wait();
        return synth(740 + i);
    };
    const JobId id = engine.submit(spec);
    for (int k = 0; k < 500 && engine.state(id) != JobState::Running; k++)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // partitions 0 and 1 go into the group
    EXPECT_TRUE(engine.cancel(id));
    gate.open();
    const JobResult r = engine.await(id);
    EXPECT_EQ(r.state, JobState::Cancelled);
    EXPECT_GE(grouping.deferred, 1) << "the group held partitions when the job was cancelled";
    EXPECT_TRUE(grouping.finished.empty()) << "a cancelled job's group is not finished";
    EXPECT_EQ(engine.await(engine.submit(grouped_job(grouping, cpu, 2, 760))).state, JobState::Done);
}

TEST(Engine, DeadlineCancelsAJob) {
    CpuBackend backend(params());
    Engine engine;
    Gate gate;
    JobSpec spec = chain_job(backend, 3, 51);
    spec.deadline_seconds = 0.05;
    spec.synthesize = [&](size_t i) {
        gate.wait();
        return synth(51 + i);
    };
    const JobId id = engine.submit(spec);
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    gate.open();
    const JobResult r = engine.await(id);
    EXPECT_EQ(r.state, JobState::Cancelled);
    EXPECT_NE(r.error.find("deadline"), std::string::npos) << r.error;
    EXPECT_LT(r.proofs.size(), 3u);
}

// Issue 20 item 9: a deadline too far for the clock (1e10 s overflowed into the past) is no deadline: the job is
// proven; one that is not a finite number >= 0 is refused.
TEST(Engine, AFarDeadlineIsNoneAndABadOneIsRefused) {
    CpuBackend backend(params());
    Engine engine;
    JobSpec spec = chain_job(backend, 1, 52);
    spec.deadline_seconds = 1e10;
    EXPECT_EQ(engine.await(engine.submit(spec)).state, JobState::Done);
    for (double bad : {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(), -1.0}) {
        spec.deadline_seconds = bad;
        EXPECT_THROW(engine.submit(spec), std::invalid_argument) << bad;
    }
}

TEST(Engine, BuffersAreFreedInTheBackground) {
    CpuBackend backend(params());
    Engine engine;
    ASSERT_EQ(engine.await(engine.submit(chain_job(backend, 3, 31))).state, JobState::Done);
    // The deallocator runs asynchronously: wait a little for the last hand-over.
    for (int k = 0; k < 200 && engine.stats().freed_buffers < 3; k++)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const auto st = engine.stats();
    EXPECT_GE(st.freed_buffers, 3u);
    EXPECT_GT(st.freed_bytes, 0u);
}

TEST(Deallocator, FreesWhatItIsGiven) {
    Deallocator d;
    std::vector<Fr> v(1 << 16, Fr::one());
    std::vector<uint32_t> w(1000, 7);
    d.defer(v);
    d.defer(w);
    EXPECT_TRUE(v.empty() && v.capacity() == 0);
    EXPECT_TRUE(w.empty());
    d.defer_object(std::make_unique<std::vector<int>>(100, 1), 400);
    d.drain();
    const auto st = d.stats();
    EXPECT_EQ(st.buffers, 3u);
    EXPECT_EQ(st.bytes, (size_t(1) << 16) * sizeof(Fr) + 1000 * 4 + 400);
    EXPECT_GE(st.free_seconds, 0.0);
}

// release_pages zeroes (gives back) only the whole pages inside the range: the bytes before the first page
// boundary and after the last one, where an allocator keeps its headers, keep their values.
TEST(Deallocator, ReleasesOnlyWholePagesInside) {
    const size_t n = 3 * kReleaseSliceBytes + 12345;  // several slices and a partial one
    std::vector<uint8_t> v(n + 8192, 0xA5);
    uint8_t* p = v.data() + 100;  // not page-aligned
    release_pages(p, n);
#if defined(__linux__)
    const size_t page = 4096;  // the smallest page size; a larger one only widens the untouched edges
    const auto first = (size_t)(((uintptr_t)p + page - 1) / page * page - (uintptr_t)p);
    EXPECT_EQ(p[0], 0xA5);
    if (first > 0) {
        EXPECT_EQ(p[first - 1], 0xA5);
    }
    EXPECT_EQ(p[n - 1], 0xA5) << "the partial last page must stay";
    EXPECT_EQ(v[0], 0xA5);
    EXPECT_EQ(v[n + 100], 0xA5) << "beyond the range";
    size_t zeros = 0;
    for (size_t i = 0; i < n; i += 4096) zeros += p[i] == 0;
    EXPECT_GT(zeros, n / 4096 - 4) << "the pages inside read as zeros once given back";
#endif
    // Small ranges are left alone.
    std::vector<uint8_t> small(1 << 20, 0x5A);
    release_pages(small.data(), small.size());
    EXPECT_EQ(small[small.size() / 2], 0x5A);
}

// A block large enough to be given back in slices is still freed and accounted.
TEST(Deallocator, FreesALargeBlockInSlices) {
    Deallocator d;
    std::vector<Fr> big(5 * kReleaseSliceBytes / sizeof(Fr) + 3, Fr::one());
    const size_t bytes = big.capacity() * sizeof(Fr);
    d.defer(big);
    EXPECT_TRUE(big.empty());
    d.drain();
    EXPECT_EQ(d.stats().buffers, 1u);
    EXPECT_EQ(d.stats().bytes, bytes);
}

// The peak resident set follows a touched allocation, and the reset forgets a peak that is gone.
// Filecoin provers run for months (an sppark release once leaked GPU memory until C2 and WindowPoSt died,
// lotus#13634): 200 jobs through one engine, each forgotten once its result is read, leave no job record and no
// buffer waiting to be freed, and the process's resident set after job 200 is within 5 % of that after job 10 (a, b,
// c and the witness of one 2^8 partition are ~33 KB: leaking them alone would add ~6 MB to a resident set of ~20 MB).
TEST(Engine, TwoHundredJobsLeaveNothingBehind) {
    CpuBackend backend(params());
    Engine engine;
    auto settled = [&] {
        // Every buffer handed to the deallocator freed (the frees run off the hot path, so wait for them).
        for (int k = 0; k < 5000 && engine.stats().pending_frees != 0; k++)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return engine.stats();
    };
    size_t rss_at_10 = 0;
    for (uint64_t k = 1; k <= 200; k++) {
        JobSpec spec = chain_job(backend, 1, 1000 + k);
        const JobId id = engine.submit(std::move(spec));
        ASSERT_EQ(engine.await(id).state, JobState::Done) << "job " << k;
        ASSERT_TRUE(engine.forget(id));
        if (k == 10) {
            ASSERT_EQ(settled().pending_frees, 0u);
            rss_at_10 = current_rss_bytes();
        }
    }
    const Engine::Stats st = settled();
    EXPECT_EQ(st.queued + st.running + st.done + st.failed + st.cancelled, 0u) << "job records left";
    EXPECT_EQ(st.pending_frees, 0u) << "buffers never freed";
    EXPECT_GE(st.freed_buffers, 200u) << "every job's a, b, c go through the deallocator";
    const size_t rss_at_200 = current_rss_bytes();
    if (rss_at_10 == 0) GTEST_SKIP() << "no /proc/self/status here";
    std::printf("resident set after job 10: %zu bytes, after job 200: %zu bytes\n", rss_at_10, rss_at_200);
    EXPECT_LE((double)rss_at_200, 1.05 * (double)rss_at_10)
        << "resident set after job 10: " << rss_at_10 << " bytes, after job 200: " << rss_at_200;
}

TEST(Engine, PeakRss) {
    const size_t mb64 = size_t(64) << 20;
    {
        std::vector<uint8_t> big(mb64, 1);  // touched: resident
        EXPECT_GE(peak_rss_bytes(), mb64);
    }
    const size_t before = peak_rss_bytes();
    reset_peak_rss();
    const size_t after = peak_rss_bytes();
    if (after == before) GTEST_SKIP() << "this kernel does not reset VmHWM (clear_refs 5)";
    EXPECT_LT(after + mb64 / 2, before) << "the 64 MB peak should be forgotten";
    std::vector<uint8_t> again(mb64 / 2, 2);
    EXPECT_GE(peak_rss_bytes(), after + mb64 / 4);
}

namespace {

// Three parameter files of different sizes in a fresh directory.
struct ParamFiles {
    std::filesystem::path dir;
    std::vector<std::filesystem::path> files;
    std::vector<size_t> bytes;  // resident bytes of each
    ParamFiles() {
        dir = std::filesystem::temp_directory_path() / ("cuzk-param-cache-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        for (unsigned k : {5u, 6u, 7u}) {
            const auto p = groth16::generate_parameters(circuits::MulChainCircuit(k, 1, std::nullopt),
                                                        groth16::ToxicWaste::from_seed(k));
            files.push_back(dir / ("mulchain-" + std::to_string(k) + ".params"));
            formats::write_parameters(files.back(), p);
            bytes.push_back(ProvingKeyStore::resident_bytes(p));
        }
    }
    ~ParamFiles() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
};

}  // namespace

TEST(KeyStore, LoadsOnceAndSharesTheKey) {
    ParamFiles f;
    ProvingKeyStore store;  // auto budget: plenty
    EXPECT_GT(store.stats().budget, 0u);
    auto a = store.get(f.files[0]);
    auto b = store.get(f.dir / "." / f.files[0].filename());  // the same file by another spelling
    EXPECT_EQ(a.get(), b.get());
    EXPECT_EQ(a->params->h.size(), 31u) << "2^5 domain: n - 1 H points";
    EXPECT_EQ(a->backend(), a->cpu.get()) << "no device copies: the CPU proves";
    EXPECT_EQ(a->fallback(), nullptr);
    auto st = store.stats();
    EXPECT_EQ(st.misses, 1u);
    EXPECT_EQ(st.hits, 1u);
    EXPECT_EQ(st.entries, 1u);
    EXPECT_EQ(st.bytes, f.bytes[0]);
    // Concurrent gets of a new file load it once.
    std::vector<std::thread> threads;
    std::vector<std::shared_ptr<const ProvingKey>> got(4);
    for (int t = 0; t < 4; t++) threads.emplace_back([&, t] { got[t] = store.get(f.files[2]); });
    for (auto& t : threads) t.join();
    for (int t = 1; t < 4; t++) EXPECT_EQ(got[t].get(), got[0].get());
    EXPECT_EQ(store.stats().misses, 2u);
}

TEST(KeyStore, EvictsTheLeastRecentlyUsedKeyNoJobHolds) {
    ParamFiles f;
    KeyStoreConfig cfg;
    cfg.budget_bytes = f.bytes[1] + f.bytes[2] + f.bytes[2] / 4;  // two of the larger sets, not three
    ProvingKeyStore store(cfg);
    (void)store.get(f.files[0]);
    (void)store.get(f.files[1]);
    (void)store.get(f.files[2]);  // evicts files[0], the least recently used
    auto st = store.stats();
    EXPECT_EQ(st.entries, 2u);
    EXPECT_EQ(st.evictions, 1u);
    EXPECT_LE(st.bytes, cfg.budget_bytes);
    {
        auto held = store.get(f.files[1]);  // most recent now, and in use
        (void)store.get(f.files[0]);        // needs room: files[2] goes (files[1] is held)
        EXPECT_FALSE(store.evict(f.files[1])) << "in use";
        st = store.stats();
        EXPECT_EQ(st.evictions, 2u);
        EXPECT_LE(st.bytes, cfg.budget_bytes);
    }
    EXPECT_TRUE(store.evict(f.files[1])) << "released";
    EXPECT_FALSE(store.evict(f.files[1])) << "already gone";
}

TEST(KeyStore, RefusesWhatCannotFitAndDoesNotKeepFailures) {
    ParamFiles f;
    KeyStoreConfig cfg;
    cfg.budget_bytes = f.bytes[0] + f.bytes[0] / 4;
    ProvingKeyStore store(cfg);
    auto small = store.get(f.files[0]);
    try {
        store.get(f.files[2]);
        FAIL() << "a set larger than the budget was loaded";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("budget"), std::string::npos) << e.what();
    }
    EXPECT_EQ(store.get(f.files[0]).get(), small.get()) << "the store still serves";
    // A damaged file: the reader's error, nothing kept, the next get reads the file again.
    const auto bad = f.dir / "damaged.params";
    {
        std::ofstream out(bad, std::ios::binary);
        out << "not a parameter file";
    }
    ProvingKeyStore big;
    EXPECT_ANY_THROW(big.get(bad));
    EXPECT_EQ(big.stats().entries, 0u);
    EXPECT_ANY_THROW(big.get(bad));
    EXPECT_EQ(big.stats().misses, 2u);
}

namespace {
// Device copies on a pretend device "dev:0" whose backend is the CPU's (so the keys prove): each holds the set's
// host size there.
KeyStoreConfig with_pretend_device(size_t device_budget) {
    KeyStoreConfig cfg;
    cfg.device_budget_bytes["dev:0"] = device_budget;
    cfg.device_bytes = [](const groth16::KeyShape& k) {
        return std::map<std::string, size_t>{{"dev:0", ProvingKeyStore::resident_bytes(k)}};
    };
    cfg.make_device_copies = [](const groth16::Parameters& p, const std::vector<std::string>&) {
        std::vector<DeviceCopy> v;
        v.push_back({"dev:0", ProvingKeyStore::resident_bytes(p), std::make_unique<CpuBackend>(p)});
        return v;
    };
    return cfg;
}
}  // namespace

TEST(KeyStore, DeviceCopiesCountAgainstTheDeviceBudget) {
    ParamFiles f;
    // Host memory for all three; the device for the two larger sets, not three.
    ProvingKeyStore store(with_pretend_device(f.bytes[1] + f.bytes[2] + f.bytes[0] / 2));
    auto k0 = store.get(f.files[0]);
    ASSERT_EQ(k0->devices.size(), 1u);
    EXPECT_EQ(k0->backend(), k0->devices[0].backend.get());
    EXPECT_EQ(k0->fallback(), k0->cpu.get()) << "the CPU behind the device";
    EXPECT_EQ(k0->backends().size(), 1u);
    (void)store.get(f.files[1]);
    EXPECT_EQ(store.stats().device_bytes.at("dev:0"), f.bytes[0] + f.bytes[1]);
    // The third set fits in host memory but not on the device next to both: the least recently used idle key
    // (files[1]; files[0] is held) goes, device copy and all.
    auto k2 = store.get(f.files[2]);
    auto st = store.stats();
    EXPECT_EQ(st.evictions, 1u);
    EXPECT_EQ(st.entries, 2u);
    EXPECT_EQ(st.device_bytes.at("dev:0"), f.bytes[0] + f.bytes[2]);
    EXPECT_FALSE(store.evict(f.files[0])) << "held";
    EXPECT_FALSE(store.evict(f.files[1])) << "evicted already";
    // With both held, a set that needs device room is not put over the device budget: it proves on the CPU.
    auto k1 = store.get(f.files[1]);
    EXPECT_TRUE(k1->without_devices);
    EXPECT_TRUE(k1->devices.empty());
    EXPECT_EQ(k1->backend(), k1->cpu.get());
    EXPECT_EQ(k1->fallback(), nullptr);
    EXPECT_EQ(store.stats().device_bytes.at("dev:0"), f.bytes[0] + f.bytes[2]) << "nothing on the device for it";
    k0.reset();
    EXPECT_EQ(store.get(f.files[1]).get(), k1.get()) << "held: the same key";
    // Idle and asked for again, it is loaded with its device copy (files[0], idle now, makes room).
    k1.reset();
    auto again = store.get(f.files[1]);
    EXPECT_FALSE(again->without_devices);
    ASSERT_EQ(again->devices.size(), 1u);
    EXPECT_EQ(store.stats().device_bytes.at("dev:0"), f.bytes[1] + f.bytes[2]);
    EXPECT_LE(store.stats().device_bytes.at("dev:0"), f.bytes[1] + f.bytes[2] + f.bytes[0] / 2);
}

TEST(KeyStore, AKeyNoDeviceCanHoldProvesOnTheCpuWithoutEvictingOrRereading) {
    ParamFiles f;
    // The device's whole budget holds files[0] but not files[2] (a 32 GiB PoRep key on a 16 GB card).
    ASSERT_LT(f.bytes[0], f.bytes[2]);
    ProvingKeyStore store(with_pretend_device(f.bytes[0] + (f.bytes[2] - f.bytes[0]) / 2));
    auto k0 = store.get(f.files[0]);
    ASSERT_EQ(k0->devices.size(), 1u);
    k0.reset();  // idle: evicting it would make room, but not enough
    auto k2 = store.get(f.files[2]);
    EXPECT_TRUE(k2->without_devices);
    EXPECT_TRUE(k2->devices.empty());
    EXPECT_EQ(k2->backend(), k2->cpu.get());
    EXPECT_NE(k2->devices_too_small.find("dev:0"), std::string::npos) << k2->devices_too_small;
    EXPECT_NE(k2->devices_too_small.find("GB"), std::string::npos) << k2->devices_too_small;
    auto st = store.stats();
    EXPECT_EQ(st.evictions, 0u) << "nothing was evicted for a copy that cannot fit anyway";
    EXPECT_EQ(st.device_bytes.at("dev:0"), f.bytes[0]);
    // Idle and asked for again: the same key, not read again to try the device.
    const auto* first = k2.get();
    const auto misses = st.misses;
    k2.reset();
    auto again = store.get(f.files[2]);
    EXPECT_EQ(again.get(), first);
    EXPECT_EQ(store.stats().misses, misses);
    // The key that fits is still on the device.
    EXPECT_EQ(store.get(f.files[0])->devices.size(), 1u);
    EXPECT_EQ(store.stats().misses, misses) << "files[0] stayed loaded";
}

// A larger card beside a smaller one: a key the smaller one's whole budget cannot hold gets its copy on the larger
// alone (its jobs prove there), says why the other holds none, and asks that one for no room; a key both can hold
// goes on both.
TEST(KeyStore, AKeyTooLargeForOneOfTwoDevicesGoesOnTheOther) {
    ParamFiles f;
    ASSERT_LT(f.bytes[0], f.bytes[2]);
    KeyStoreConfig cfg;
    cfg.device_budget_bytes["dev:0"] = f.bytes[0] + f.bytes[2];
    cfg.device_budget_bytes["dev:1"] = f.bytes[0] + (f.bytes[2] - f.bytes[0]) / 2;  // files[0], not files[2]
    cfg.device_bytes = [](const groth16::KeyShape& k) {
        const size_t b = ProvingKeyStore::resident_bytes(k);
        return std::map<std::string, size_t>{{"dev:0", b}, {"dev:1", b}};
    };
    std::vector<std::vector<std::string>> asked;  // `only` of each make_device_copies call
    cfg.make_device_copies = [&asked](const groth16::Parameters& p, const std::vector<std::string>& only) {
        asked.push_back(only);
        std::vector<DeviceCopy> v;
        for (const char* dev : {"dev:0", "dev:1"})
            if (only.empty() || std::find(only.begin(), only.end(), dev) != only.end())
                v.push_back({dev, ProvingKeyStore::resident_bytes(p), std::make_unique<CpuBackend>(p)});
        return v;
    };
    ProvingKeyStore store(cfg);
    auto k2 = store.get(f.files[2]);
    EXPECT_FALSE(k2->without_devices);
    EXPECT_TRUE(k2->devices_too_small.empty()) << k2->devices_too_small;
    ASSERT_EQ(k2->devices.size(), 1u);
    EXPECT_EQ(k2->devices[0].device, "dev:0");
    EXPECT_EQ(k2->backends().size(), 1u) << "its jobs prove on the device that holds it";
    EXPECT_NE(k2->devices_left_out.find("dev:1"), std::string::npos) << k2->devices_left_out;
    EXPECT_EQ(k2->devices_left_out.find("dev:0"), std::string::npos) << k2->devices_left_out;
    ASSERT_EQ(asked.size(), 1u);
    EXPECT_EQ(asked[0], std::vector<std::string>{"dev:0"});
    auto st = store.stats();
    EXPECT_EQ(st.device_bytes.at("dev:0"), f.bytes[2]);
    EXPECT_EQ(st.device_bytes.count("dev:1") ? st.device_bytes.at("dev:1") : 0u, 0u) << "no room asked of dev:1";
    // A key both can hold goes on both.
    auto k0 = store.get(f.files[0]);
    EXPECT_EQ(k0->devices.size(), 2u);
    EXPECT_TRUE(k0->devices_left_out.empty()) << k0->devices_left_out;
    ASSERT_EQ(asked.size(), 2u);
    EXPECT_TRUE(asked[1].empty()) << "every device";
    st = store.stats();
    EXPECT_EQ(st.device_bytes.at("dev:0"), f.bytes[0] + f.bytes[2]);
    EXPECT_EQ(st.device_bytes.at("dev:1"), f.bytes[0]);
}

namespace {
// A pretend device's backend that keeps its own copy of the points, as a GPU's resident copy does, and so reads
// the key's host points no more once it is made.
class OwnCopyBackend : public groth16::ProverBackend {
public:
    explicit OwnCopyBackend(const groth16::Parameters& p) : copy_(p), cpu_(copy_) {}
    std::vector<groth16::Proof> prove(std::span<r1cs::ProvingAssignment> asg, std::span<const Fr> r,
                                      std::span<const Fr> s, TimingSink* timing) override {
        return cpu_.prove(asg, r, s, timing);
    }
    std::string name() const override { return "own-copy"; }
    std::string lane() const override { return "dev:0"; }
    bool needs_host_points() const override { return false; }

private:
    groth16::Parameters copy_;
    CpuBackend cpu_;
};

r1cs::ProvingAssignment assignment_of(const circuits::MulChainCircuit& circuit) {
    r1cs::ProvingAssignment asg;
    r1cs::synthesize_groth16(asg, circuit);
    return asg;
}

// The 2^6 mul chain `circuit` proven on the key's device backend and on its CPU fallback with the same r, s (from
// `seed`): the two proofs must be the same bytes and verify against the key. `what` names the check.
void expect_device_proof_equals_fallback(const ProvingKey& key, const circuits::MulChainCircuit& circuit,
                                         uint64_t seed, const char* what) {
    ASSERT_NE(key.fallback(), nullptr);
    const Fr r[1] = {Fr::from_u64(seed | 1)}, s[1] = {Fr::from_u64(seed ^ 0x5bd1e995)};
    r1cs::ProvingAssignment on_device = assignment_of(circuit), on_cpu = assignment_of(circuit);
    const auto p_dev = key.backend()->prove(std::span(&on_device, 1), r, s, nullptr);
    const auto p_cpu = key.fallback()->prove(std::span(&on_cpu, 1), r, s, nullptr);
    ASSERT_EQ(p_dev.size(), 1u);
    ASSERT_EQ(p_cpu, p_dev) << what;
    EXPECT_TRUE(groth16::verify_proof(groth16::prepare_verifying_key(key.shape.vk), p_dev[0], circuit.public_values()));
}
}  // namespace

// #19 item 6: a file's key whose every device holds the points keeps only its shape in host memory; its CPU
// fallback reads the file again (and refuses a file that changed meanwhile); adopted parameters are kept.
TEST(KeyStore, AFileKeyWhoseDevicesHoldThePointsLetsItsHostPointsGo) {
    ParamFiles f;
    KeyStoreConfig cfg;
    cfg.make_device_copies = [](const groth16::Parameters& p, const std::vector<std::string>&) {
        std::vector<DeviceCopy> v;
        v.push_back({"dev:0", ProvingKeyStore::resident_bytes(p), std::make_unique<OwnCopyBackend>(p)});
        return v;
    };
    ProvingKeyStore store(cfg);
    auto key = store.get(f.files[1]);
    EXPECT_EQ(key->params, nullptr) << "the host points were released";
    EXPECT_EQ(key->shape.h, 63u) << "2^6 domain";
    EXPECT_LT(store.stats().bytes, f.bytes[1] / 4) << "the budget counts what the key still holds";
    ASSERT_NE(key->fallback(), nullptr);
    EXPECT_GE(key->fallback()->working_bytes(), f.bytes[1]) << "a fallback proof reads the points again";

    const uint64_t seed = std::random_device{}();
    std::printf("seed %llu\n", (unsigned long long)seed);
    const circuits::MulChainCircuit circuit(6, 1, seed);
    expect_device_proof_equals_fallback(*key, circuit, seed, "the re-read points prove the same bytes");

    // Another set copied over the file: the fallback refuses rather than prove against other points.
    std::filesystem::copy_file(f.files[2], f.files[1], std::filesystem::copy_options::overwrite_existing);
    r1cs::ProvingAssignment again = assignment_of(circuit);
    const Fr r[1] = {Fr::from_u64(seed | 1)}, s[1] = {Fr::from_u64(seed ^ 0x5bd1e995)};
    try {
        (void)key->fallback()->prove(std::span(&again, 1), r, s, nullptr);
        ADD_FAILURE() << "proved against a file that changed";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("changed since it was loaded"), std::string::npos) << e.what();
    }
    // Adopted parameters have no file to read again: they stay.
    auto mem = store.adopt("kept", std::make_shared<const groth16::Parameters>(
                                       formats::read_parameters(f.files[0]).params));
    EXPECT_NE(mem->params, nullptr);
}

namespace {
// A pretend device that reads its copy of the points from a query source, range by range as a GPU's upload does,
// and checks their subgroups on its copy when asked (on the CPU here), reporting a failure as the source does.
std::vector<DeviceCopy> streamed_pretend_copy(const formats::ParamsFileSource& src, bool check_subgroup,
                                              size_t* streams) {
    using Q = groth16::QuerySource::G1Query;
    const groth16::KeyShape& k = src.shape();
    groth16::Parameters p;
    p.vk = k.vk;
    auto read = [&](Q q, std::vector<G1Affine>& v, size_t n) {
        v.resize(n);
        for (size_t lo = 0; lo < n; lo += 17) src.read(q, lo, std::min(n, lo + 17), v.data() + lo);
    };
    read(Q::H, p.h, k.h);
    read(Q::L, p.l, k.l);
    read(Q::A, p.a, k.a);
    read(Q::BG1, p.b_g1, k.b_g1);
    p.b_g2.resize(k.b_g2);
    src.read_b_g2(0, k.b_g2, p.b_g2.data());
    if (check_subgroup) {
        const std::pair<const char*, const std::vector<G1Affine>*> g1[] = {
            {"h", &p.h}, {"l", &p.l}, {"a", &p.a}, {"b_g1", &p.b_g1}};
        for (const auto& [name, v] : g1)
            if (!g1_batch_in_subgroup(*v)) src.throw_not_in_subgroup(name);
        if (!g2_batch_in_subgroup(p.b_g2)) src.throw_not_in_subgroup("b_g2");
    }
    ++*streams;
    std::vector<DeviceCopy> v;
    v.push_back({"dev:0", ProvingKeyStore::resident_bytes(p), std::make_unique<OwnCopyBackend>(p)});
    return v;
}
}  // namespace

// A file's key no device's whole budget holds, with a maker of streamed copies (KeyStoreConfig::streamed_copies:
// the queries in host memory, sent to the device at every MSM): it gets streamed copies on every device whose budget
// holds their buffers, proves the same bytes as its fallback, counts their host bytes in the host budget and
// their buffers in the device's, and still says why no whole copy fits. Without the maker, or with no budget for
// the buffers, it proves on the CPU as before; a key that fits whole is not streamed.
TEST(KeyStore, AKeyNoDeviceHoldsWholeGetsStreamedCopiesWhereTheirBuffersFit) {
    ParamFiles f;
    ASSERT_LT(f.bytes[0], f.bytes[2]);
    const size_t buffers = f.bytes[0] / 8;
    size_t streams = 0, streamed = 0;
    std::vector<std::vector<std::string>> asked;
    KeyStoreConfig cfg;
    cfg.device_budget_bytes["dev:0"] = f.bytes[0] + (f.bytes[2] - f.bytes[0]) / 2;  // files[0] whole, not files[2]
    cfg.device_budget_bytes["dev:1"] = buffers / 2;                                   // not even the buffers
    cfg.device_bytes = [](const groth16::KeyShape& k) {
        const size_t b = ProvingKeyStore::resident_bytes(k);
        return std::map<std::string, size_t>{{"dev:0", b}, {"dev:1", b}};
    };
    cfg.streamed_device_bytes = [buffers](const groth16::KeyShape&) {
        return std::map<std::string, size_t>{{"dev:0", buffers}, {"dev:1", buffers}};
    };
    cfg.stream_device_copies = [&streams](const formats::ParamsFileSource& src, bool check,
                                          const std::vector<std::string>&) {
        return streamed_pretend_copy(src, check, &streams);
    };
    cfg.make_device_copies = [](const groth16::Parameters&, const std::vector<std::string>&) {
        ADD_FAILURE() << "a whole copy made from host memory";
        return std::vector<DeviceCopy>{};
    };
    auto streamed_maker = [&](const formats::ParamsFileSource& src, bool check, const std::vector<std::string>& d) {
        asked.push_back(d);
        ++streamed;
        size_t ignored = 0;
        auto v = streamed_pretend_copy(src, check, &ignored);
        v[0].host_bytes = v[0].bytes;  // the queries, page-locked on the host
        v[0].bytes = buffers;          // the chunk buffers on the device
        return v;
    };
    {
        ProvingKeyStore without(cfg);
        auto k2 = without.get(f.files[2]);
        EXPECT_TRUE(k2->without_devices) << "no streamed maker: the CPU";
        EXPECT_EQ(k2->backend(), k2->cpu.get());
        EXPECT_FALSE(k2->devices_too_small.empty());
        EXPECT_FALSE(k2->streamed);
        EXPECT_EQ(streams, 0u);
    }
    cfg.streamed_copies = streamed_maker;
    ProvingKeyStore store(cfg);
    auto k2 = store.get(f.files[2]);
    EXPECT_TRUE(k2->streamed);
    EXPECT_FALSE(k2->without_devices);
    ASSERT_EQ(k2->devices.size(), 1u);
    EXPECT_EQ(k2->backend(), k2->devices[0].backend.get());
    EXPECT_NE(k2->devices_too_small.find("dev:0"), std::string::npos) << "why no whole copy: " << k2->devices_too_small;
    EXPECT_NE(k2->devices_left_out.find("dev:1"), std::string::npos) << k2->devices_left_out;
    ASSERT_EQ(asked.size(), 1u);
    EXPECT_EQ(asked[0], std::vector<std::string>{"dev:0"}) << "the device whose budget holds the buffers";
    EXPECT_EQ(streams, 0u) << "no whole copy was made";
    auto st = store.stats();
    EXPECT_EQ(st.device_bytes.at("dev:0"), buffers);
    EXPECT_GE(st.bytes, f.bytes[2]) << "the streamed queries count in the host budget";
    const uint64_t seed = std::random_device{}();
    std::printf("seed %llu\n", (unsigned long long)seed);
    expect_device_proof_equals_fallback(*k2, circuits::MulChainCircuit(7, 1, seed), seed,
                                        "the streamed copy and the re-read file prove the same bytes");
    // A key that fits whole goes on the device whole, as before.
    auto k0 = store.get(f.files[0]);
    EXPECT_FALSE(k0->streamed);
    EXPECT_EQ(streams, 1u);
    EXPECT_EQ(streamed, 1u);
}

// #19 item 6: with stream_device_copies a file's points go from the file to the device copies without a host copy
// of them all: the key never holds them, proves the same bytes on the device and on its re-reading fallback, and a
// bad file is refused with the reader's own report; a .zkey, or a key with no device room, is read as before.
TEST(KeyStore, AStreamedKeyGoesFromTheFileToItsDevicesAndReportsBadFilesAsTheReader) {
    ParamFiles f;
    size_t streams = 0, host_copies = 0;
    KeyStoreConfig cfg = with_pretend_device(f.bytes[1] + f.bytes[2]);
    cfg.make_device_copies = [&host_copies](const groth16::Parameters& p, const std::vector<std::string>&) {
        ++host_copies;
        std::vector<DeviceCopy> v;
        v.push_back({"dev:0", ProvingKeyStore::resident_bytes(p), std::make_unique<OwnCopyBackend>(p)});
        return v;
    };
    cfg.stream_device_copies = [&streams](const formats::ParamsFileSource& src, bool check,
                                          const std::vector<std::string>&) {
        return streamed_pretend_copy(src, check, &streams);
    };
    ProvingKeyStore store(cfg);
    auto key = store.get(f.files[1]);
    EXPECT_EQ(streams, 1u);
    EXPECT_EQ(host_copies, 0u) << "no host copy of the points was made";
    EXPECT_EQ(key->params, nullptr);
    EXPECT_EQ(key->shape, groth16::KeyShape::of(formats::read_parameters(f.files[1]).params));
    EXPECT_LT(store.stats().bytes, f.bytes[1] / 4) << "the budget counts what the key holds: its verifying key";
    EXPECT_EQ(store.stats().device_bytes.at("dev:0"), f.bytes[1]);

    const uint64_t seed = std::random_device{}();
    std::printf("seed %llu\n", (unsigned long long)seed);
    expect_device_proof_equals_fallback(*key, circuits::MulChainCircuit(6, 1, seed), seed,
                                        "the streamed copy and the re-read file prove the same bytes");

    // The device budget holds files[1] and files[2]: with both held files[0] does not fit, so it is read into host
    // memory for the CPU, not streamed.
    auto k2 = store.get(f.files[2]);
    EXPECT_EQ(streams, 2u);
    auto k0 = store.get(f.files[0]);
    EXPECT_TRUE(k0->without_devices);
    EXPECT_NE(k0->params, nullptr) << "proving on the CPU, it holds the points";
    EXPECT_EQ(streams, 2u);
    EXPECT_EQ(host_copies, 0u);

    // Bad files: a point off the curve, and one outside the subgroup, each reported as read_parameters reports it,
    // and nothing is kept on the device.
    key.reset();
    k2.reset();
    k0.reset();
    for (const auto& file : f.files) EXPECT_TRUE(store.evict(file));
    const auto good = formats::parameters_to_bytes(formats::read_parameters(f.files[0]).params);
    auto offset = [&](std::string_view section, size_t i) {
        const auto& sec = formats::parse_parameters_layout(good, "x").section(section);
        return sec.offset + i * sec.point_bytes();
    };
    const auto bad_file = f.dir / "bad.params";
    auto expect_reader_error = [&](std::vector<uint8_t> bytes, std::string_view section) {
        {
            std::ofstream out(bad_file, std::ios::binary | std::ios::trunc);
            out.write(reinterpret_cast<const char*>(bytes.data()), (std::streamsize)bytes.size());
        }
        std::string reader;
        try {
            (void)formats::read_parameters(bad_file);
        } catch (const formats::FormatError& e) {
            reader = e.what();
        }
        ASSERT_FALSE(reader.empty());
        try {
            (void)store.get(bad_file);
            ADD_FAILURE() << "a bad file was loaded";
        } catch (const formats::FormatError& e) {
            EXPECT_EQ(std::string(e.what()), reader);
            EXPECT_EQ(e.section(), section);
        }
        EXPECT_FALSE(store.evict(bad_file)) << "a failed load is not kept";
    };
    auto off_curve = good;
    off_curve[offset("a", 3) + 95] ^= 1;
    expect_reader_error(off_curve, "a");
    // The sum of a subgroup point and a point of order 3 of E(Fq): y^2 = x^3 + 4 has (0, 2), of order 3.
    auto outside = good;
    const auto l5 = formats::read_parameters(f.files[0]).params.l[5];
    const G1Affine order3 = G1Affine::from_xy(Fq::zero(), Fq::from_u64(2));
    const auto enc = g1_to_uncompressed((l5.to_jacobian() + order3.to_jacobian()).to_affine());
    std::copy(enc.begin(), enc.end(), outside.begin() + (std::ptrdiff_t)offset("l", 5));
    expect_reader_error(outside, "l");
    EXPECT_EQ(store.stats().device_bytes.at("dev:0"), 0u) << "failed loads release their device room";
}

TEST(Engine, AJobProvesOnItsKeyAndHoldsItUntilItEnds) {
    // Parameters adopted by the engine's key store; a job that names the key (no backend of its own) proves on the
    // key's CPU backend, and the store cannot evict the key while the job is queued or running, only after.
    Engine eng;
    auto key = eng.keys().adopt("chain", std::make_shared<const groth16::Parameters>(params()));
    EXPECT_EQ(key->path, "memory:chain");
    EXPECT_EQ(eng.keys().adopt("chain", std::make_shared<const groth16::Parameters>(params())).get(), key.get())
        << "a second adopt of the name shares the key";
    Gate gate;
    JobSpec spec;
    spec.name = "keyed";
    spec.partitions = 2;
    spec.key = key;
    spec.verify_key = &params().vk;
    spec.synthesize = [&gate](size_t i) {
        gate.wait();
        return synth(700 + i);
    };
    const JobId id = eng.submit(std::move(spec));
    key.reset();  // only the job and the store hold it now
    EXPECT_FALSE(eng.keys().evict("memory:chain")) << "a running job holds its key";
    gate.open();
    const JobResult res = eng.await(id);
    ASSERT_EQ(res.state, JobState::Done) << res.error;
    ASSERT_EQ(res.proofs.size(), 2u);
    const auto pvk = groth16::prepare_verifying_key(params().vk);
    for (size_t i = 0; i < 2; i++)
        EXPECT_TRUE(groth16::verify_proof(pvk, res.proofs[i], circuits::MulChainCircuit(kLog, 2, 700 + i).public_values()));
    EXPECT_TRUE(eng.keys().evict("memory:chain")) << "the ended job let its key go";
    EXPECT_EQ(eng.keys().stats().entries, 0u);
    // A job with neither a key nor a backend is refused.
    JobSpec bare;
    bare.synthesize = [](size_t) { return synth(1); };
    EXPECT_THROW(eng.submit(std::move(bare)), std::invalid_argument);
}

TEST(KeyStore, MatricesAreMadeOnceCountedAndHeldWithTheirKey) {
    ParamFiles f;
    ProvingKeyStore store;
    auto key = store.get(f.files[0]);
    const size_t before = store.stats().bytes;
    std::atomic<int> made{0};
    auto make = [&] {
        made++;
        return r1cs::compile_r1cs(circuits::MulChainCircuit(5, 1, std::nullopt));
    };
    std::vector<std::thread> threads;
    std::vector<std::shared_ptr<const r1cs::PrecompiledR1cs>> got(3);
    for (int t = 0; t < 3; t++) threads.emplace_back([&, t] { got[t] = store.matrices(*key, "mulchain 5", make); });
    for (auto& t : threads) t.join();
    EXPECT_EQ(made.load(), 1);
    for (int t = 1; t < 3; t++) EXPECT_EQ(got[t].get(), got[0].get());
    EXPECT_EQ(store.stats().bytes, before + ProvingKeyStore::matrices_bytes(*got[0]));
    // A failure is not kept: the next call makes them again.
    EXPECT_ANY_THROW(store.matrices(*key, "broken", []() -> r1cs::PrecompiledR1cs { throw std::runtime_error("x"); }));
    EXPECT_EQ(store.matrices(*key, "broken", make)->num_constraints, got[0]->num_constraints);
    // Held matrices keep their key from eviction; released, it goes with them.
    key.reset();
    EXPECT_FALSE(store.evict(f.files[0])) << "a job holds its matrices";
    got.clear();
    EXPECT_TRUE(store.evict(f.files[0]));
    EXPECT_EQ(store.stats().bytes, 0u);
}

namespace {
// A backend that supports prepare(): it takes a, b, c away (as the GPU backend uploads and frees them) and keeps
// them in the ticket; prove_prepared puts them back and proves on the CPU. Records the order of the calls, and
// can fail one partition's prepare.
struct PreparingBackend : Backend {
    CpuBackend cpu{params()};
    std::mutex mu;
    std::vector<std::string> calls;
    int64_t fail_prepare_of = -1;
    struct Ticket : groth16::PreparedCircuit {
        std::vector<Fr> a, b, c;
    };
    std::vector<groth16::Proof> prove(std::span<r1cs::ProvingAssignment> asg, std::span<const Fr> r,
                                      std::span<const Fr> s, TimingSink* t) override {
        {
            std::lock_guard<std::mutex> lk(mu);
            calls.push_back("prove");
        }
        return cpu.prove(asg, r, s, t);
    }
    std::unique_ptr<groth16::PreparedCircuit> prepare(r1cs::ProvingAssignment& asg, TimingSink*,
                                                      int64_t item) override {
        {
            std::lock_guard<std::mutex> lk(mu);
            calls.push_back("prepare " + std::to_string(item));
        }
        auto t = std::make_unique<Ticket>();
        t->a = std::move(asg.a());
        t->b = std::move(asg.b());
        t->c = std::move(asg.c());
        asg.a().clear(), asg.b().clear(), asg.c().clear();
        if (item == fail_prepare_of) throw std::runtime_error("simulated upload fault");
        return t;
    }
    groth16::Proof prove_prepared(std::unique_ptr<groth16::PreparedCircuit> ticket, r1cs::ProvingAssignment& asg,
                                  const Fr& r, const Fr& s, TimingSink* timing, int64_t item) override {
        {
            std::lock_guard<std::mutex> lk(mu);
            calls.push_back("prove_prepared " + std::to_string(item));
        }
        auto* t = dynamic_cast<Ticket*>(ticket.get());
        asg.a() = std::move(t->a);
        asg.b() = std::move(t->b);
        asg.c() = std::move(t->c);
        return cpu.prove(std::span<r1cs::ProvingAssignment>(&asg, 1), std::span<const Fr>(&r, 1),
                         std::span<const Fr>(&s, 1), timing)
            .at(0);
    }
    std::string name() const override { return "preparing"; }
};
}  // namespace

TEST(Engine, PipelinesPartitionsThroughPrepare) {
    PreparingBackend backend;
    EngineConfig cfg;
    cfg.synthesis_workers = 2;
    cfg.lookahead = 1;
    Engine engine(cfg);
    JobSpec spec = chain_job(backend.cpu, 4, 300);
    spec.backend = &backend;
    spec.randomness_seed = 8;
    const JobResult res = engine.await(engine.submit(spec));
    ASSERT_EQ(res.state, JobState::Done) << res.error;
    // The first partition handed over (two workers: not necessarily partition 0) is proven as usual; every other
    // one is prepared (while the one before is proven, so a "prepare" may come before that "prove"), then finished.
    EXPECT_EQ(std::count(backend.calls.begin(), backend.calls.end(), "prove"), 1) << "only the first partition";
    EXPECT_EQ(backend.calls.size(), 7u);
    auto at = [&](const std::string& c) {
        return std::find(backend.calls.begin(), backend.calls.end(), c) - backend.calls.begin();
    };
    int plain_proofs = 0;
    for (int i = 0; i < 4; i++) {
        const auto prep = at("prepare " + std::to_string(i)), fin = at("prove_prepared " + std::to_string(i));
        const long end = (long)backend.calls.size();
        if (prep == end) {  // the one proven as usual
            EXPECT_EQ(fin, end) << i;
            plain_proofs++;
            continue;
        }
        ASSERT_LT(fin, end) << i;
        EXPECT_LT(prep, fin) << i;
    }
    EXPECT_EQ(plain_proofs, 1);
    // The same proofs as without the pipeline (the engine verified each one too).
    JobSpec plain = chain_job(backend.cpu, 4, 300);
    plain.randomness_seed = 8;
    const JobResult want = engine.await(engine.submit(plain));
    EXPECT_TRUE(res.proofs == want.proofs);
    // spec.pipeline = false: prepare is never called.
    backend.calls.clear();
    JobSpec off = chain_job(backend.cpu, 3, 300);
    off.backend = &backend;
    off.pipeline = false;
    off.randomness_seed = 8;
    ASSERT_EQ(engine.await(engine.submit(off)).state, JobState::Done);
    for (const auto& c : backend.calls) EXPECT_EQ(c, "prove");
}

TEST(Engine, AFailedPrepareFallsBack) {
    PreparingBackend backend;
    backend.fail_prepare_of = 2;
    CpuBackend cpu(params());
    Engine engine;
    JobSpec spec = chain_job(cpu, 3, 320);
    spec.backend = &backend;
    spec.fallback = &cpu;
    spec.randomness_seed = 9;
    const JobResult res = engine.await(engine.submit(spec));
    ASSERT_EQ(res.state, JobState::Done) << res.error;
    ASSERT_EQ(res.fallbacks.size(), 1u);
    EXPECT_NE(res.fallbacks[0].find("simulated upload fault"), std::string::npos) << res.fallbacks[0];
    JobSpec plain = chain_job(cpu, 3, 320);
    plain.randomness_seed = 9;
    EXPECT_TRUE(res.proofs == engine.await(engine.submit(plain)).proofs);
}

// ---- several jobs in flight -----------------------------------------------------------------------------------
namespace {
// An ordered log of events from synthesize functions, backends and the test itself.
struct EventLog {
    std::mutex mu;
    std::vector<std::string> events;
    void add(const std::string& e) {
        std::lock_guard<std::mutex> lk(mu);
        events.push_back(e);
    }
    std::vector<std::string> snapshot() {
        std::lock_guard<std::mutex> lk(mu);
        return events;
    }
    // Position of the first event equal to e (events.size() when absent).
    size_t at(const std::string& e) {
        auto ev = snapshot();
        return (size_t)(std::find(ev.begin(), ev.end(), e) - ev.begin());
    }
};

// A CPU backend that logs each proof as "prove <seed>" (the seed found from the circuit's public output), can hold
// its first proof on a gate, and counts how many of its proofs (and those of backends sharing `inside`) overlap.
struct LoggingBackend : Backend {
    CpuBackend cpu{params()};
    EventLog* log = nullptr;
    std::string lane_name;  // empty: a lane of its own
    std::atomic<int> own_inside{0}, own_most{0};
    std::atomic<int>* inside = &own_inside;  // proofs in progress (shared by backends that point to one counter)
    std::atomic<int>* most_inside = &own_most;
    Gate* hold = nullptr;  // when set, the first proof waits on it
    std::atomic<bool> held{false};
    std::vector<groth16::Proof> prove(std::span<r1cs::ProvingAssignment> a, std::span<const Fr> r,
                                      std::span<const Fr> s, TimingSink* t) override {
        const int now = ++*inside;
        int m = most_inside->load();
        while (now > m && !most_inside->compare_exchange_weak(m, now)) {
        }
        // The public input of the mul-chain circuit tells which job and partition this is (see tagged_job).
        log->add("prove " + std::to_string(a[0].inputs().size() > 1 ? tag_of(a[0]) : 0));
        if (hold && !held.exchange(true)) hold->wait();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        auto p = cpu.prove(a, r, s, t);
        --*inside;
        return p;
    }
    std::string name() const override { return "logging"; }
    std::string lane() const override { return lane_name; }
    static uint64_t tag_of(const r1cs::ProvingAssignment& asg);
};

// Partition i of a job tagged `tag` is the mul-chain circuit of seed tag * 100 + i; its synthesis logs
// "synth <tag*100+i>" and, for partitions listed in `gates`, waits on that gate after logging.
JobSpec tagged_job(Backend& backend, EventLog& log, uint64_t tag, size_t partitions, Priority prio,
                   std::map<size_t, Gate*> gates = {}) {
    JobSpec spec;
    spec.name = "job " + std::to_string(tag);
    spec.priority = prio;
    spec.partitions = partitions;
    spec.backend = &backend;
    spec.randomness_seed = tag;
    spec.synthesize = [&log, tag, gates](size_t i) {
        const uint64_t seed = tag * 100 + i;
        log.add("synth " + std::to_string(seed));
        if (auto g = gates.find(i); g != gates.end()) g->second->wait();
        return synth(seed);
    };
    return spec;
}

// The seed of a synthesized mul-chain assignment: its public output is the chain's value, which depends on the
// seed; the test keeps a table of seed -> output.
std::map<std::string, uint64_t>& output_to_seed() {
    static std::map<std::string, uint64_t> m;
    return m;
}
std::mutex output_mu;
std::string key_of(const Fr& x) {
    const auto c = x.to_canonical();
    std::string k;
    for (auto limb : c) k += std::to_string(limb) + ",";
    return k;
}
void remember_seed(uint64_t seed) {
    const auto asg = synth(seed);
    std::lock_guard<std::mutex> lk(output_mu);
    output_to_seed()[key_of(asg.inputs().at(1))] = seed;
}
uint64_t LoggingBackend::tag_of(const r1cs::ProvingAssignment& asg) {
    std::lock_guard<std::mutex> lk(output_mu);
    auto it = output_to_seed().find(key_of(asg.inputs().at(1)));
    return it == output_to_seed().end() ? 0 : it->second;
}

void wait_for(EventLog& log, const std::string& e) {
    for (int k = 0; k < 20000 && log.at(e) == log.snapshot().size(); k++)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_LT(log.at(e), log.snapshot().size()) << "never happened: " << e;
}
}  // namespace

// Jobs interleave at partition boundaries: while a Low job's partition 1 is being synthesized, a Normal and a
// Critical job come; the Critical job's partition starts at once (the urgent worker) and is proven before anything
// that had not started, then the Normal job's partitions go, then the rest of the Low job. Every proof is the one
// the job would have got alone (its own r, s from its seed).
TEST(Engine, JobsInterleaveByPriorityAtPartitionBoundaries) {
    EventLog log;
    LoggingBackend backend;
    backend.log = &log;
    for (uint64_t seed : {100, 101, 102, 103, 200, 300, 301}) remember_seed(seed);
    Engine engine;  // one synthesis worker, lookahead 1, one lane
    Gate gate;
    const JobId low = engine.submit(tagged_job(backend, log, 1, 4, Priority::Low, {{1, &gate}}));
    wait_for(log, "synth 101");
    log.add("submitted");
    const JobId normal = engine.submit(tagged_job(backend, log, 3, 2, Priority::Normal));
    const JobId critical = engine.submit(tagged_job(backend, log, 2, 1, Priority::Critical));
    // The one worker is held in partition 1 of the Low job; the urgent worker starts the Critical job anyway.
    wait_for(log, "synth 200");
    EXPECT_EQ(engine.state(normal), JobState::Queued);
    gate.open();
    const JobResult rc = engine.await(critical), rn = engine.await(normal), rl = engine.await(low);
    ASSERT_EQ(rc.state, JobState::Done) << rc.error;
    ASSERT_EQ(rn.state, JobState::Done) << rn.error;
    ASSERT_EQ(rl.state, JobState::Done) << rl.error;
    const auto ev = log.snapshot();
    std::string all;
    for (const auto& e : ev) all += e + "; ";
    SCOPED_TRACE(all);
    // Synthesis: the one worker takes the best job at each boundary.
    std::vector<std::string> synths;
    for (const auto& e : ev)
        if (e.rfind("synth ", 0) == 0) synths.push_back(e);
    EXPECT_EQ(synths, (std::vector<std::string>{"synth 100", "synth 101", "synth 200", "synth 300", "synth 301",
                                                "synth 102", "synth 103"}));
    // Proving: the Critical partition before any partition that had not started when it came.
    const size_t crit = log.at("prove 200");
    for (const char* later : {"prove 300", "prove 301", "prove 102", "prove 103"}) EXPECT_LT(crit, log.at(later)) << later;
    EXPECT_LT(log.at("prove 301"), log.at("prove 102"));
    // The same proofs as each job alone.
    Engine alone;
    for (auto [tag, parts, got] : {std::tuple{1, 4, &rl}, std::tuple{2, 1, &rc}, std::tuple{3, 2, &rn}}) {
        CpuBackend cpu(params());
        JobSpec spec = chain_job(cpu, parts, (uint64_t)tag * 100);
        spec.randomness_seed = (uint64_t)tag;
        EXPECT_TRUE(alone.await(alone.submit(spec)).proofs == got->proofs) << "job " << tag;
    }
}

// Jobs on different lanes prove at the same time: while a Low job's proof is held inside its backend, a High job on
// another lane is synthesized, proven and done. Backends that name the same lane never prove at the same time.
TEST(Engine, LanesProveSideBySideAndALaneOneAtATime) {
    EventLog log;
    for (uint64_t seed : {100, 101, 200, 201, 300, 301, 302, 400, 401, 402}) remember_seed(seed);
    Gate hold;
    LoggingBackend slow, fast;
    slow.log = fast.log = &log;
    slow.hold = &hold;
    EngineConfig cfg;
    cfg.synthesis_workers = 2;
    cfg.lookahead = 2;
    Engine engine(cfg);
    const JobId low = engine.submit(tagged_job(slow, log, 1, 2, Priority::Low));
    // Its first proof (partition 0 or 1: two workers synthesize them side by side) is held inside the backend.
    for (int k = 0; k < 60000 && !slow.held.load(); k++) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_TRUE(slow.held.load()) << "no proof of the Low job began";  // (not ASSERT: the gate must open below)
    const JobResult high = engine.await(engine.submit(tagged_job(fast, log, 2, 2, Priority::High)));
    ASSERT_EQ(high.state, JobState::Done) << high.error;
    EXPECT_EQ(engine.state(low), JobState::Running) << "its first proof is still held";
    hold.open();
    ASSERT_EQ(engine.await(low).state, JobState::Done);
    // Two backends of one lane, two jobs: one proof at a time.
    LoggingBackend one, two;
    one.log = two.log = &log;
    one.lane_name = two.lane_name = "shared";
    std::atomic<int> inside{0}, most{0};
    one.inside = two.inside = &inside;
    one.most_inside = two.most_inside = &most;
    const JobId a = engine.submit(tagged_job(one, log, 3, 3, Priority::Normal));
    const JobId b = engine.submit(tagged_job(two, log, 4, 3, Priority::Normal));
    EXPECT_EQ(engine.await(a).state, JobState::Done);
    EXPECT_EQ(engine.await(b).state, JobState::Done);
    EXPECT_EQ(most.load(), 1) << "two backends of one lane proved at the same time";
    const size_t n = log.snapshot().size();
    EXPECT_LT(log.at("prove 302"), n);
    EXPECT_LT(log.at("prove 402"), n);
}

namespace {
// Proves nothing: an empty proof per assignment, after a short wait (partitions pile up behind it).
struct NullBackend : Backend {
    std::vector<groth16::Proof> prove(std::span<r1cs::ProvingAssignment> a, std::span<const Fr>, std::span<const Fr>,
                                      TimingSink*) override {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return std::vector<groth16::Proof>(a.size());
    }
    std::string name() const override { return "null"; }
};
}  // namespace

// Under a memory budget a partition starts only when the resident set, the partitions being synthesized and one
// more fit: the job's peak RSS stays within the budget. Without it the same job holds up to workers + lookahead
// partitions at once and goes over (so the check is what holds it).
TEST(Engine, MemoryBudgetBoundsThePeakRss) {
    NullBackend null;
    const size_t pb = size_t(48) << 20;
    auto job = [&] {
        JobSpec s;
        s.name = "budget";
        s.partitions = 10;
        s.backend = &null;
        s.partition_bytes = pb;
        s.synthesize = [pb](size_t) {
            r1cs::ProvingAssignment asg;
            asg.a().assign(pb / sizeof(Fr), Fr::one());  // touched: resident
            return asg;
        };
        return s;
    };
    EngineConfig cfg;
    cfg.synthesis_workers = 4;
    cfg.lookahead = 4;
    {
        Engine warm(cfg);  // threads and allocator arenas made once before the baseline
        ASSERT_EQ(warm.await(warm.submit(job())).state, JobState::Done);
    }
    const size_t base = current_rss_bytes();
    if (base == 0) GTEST_SKIP() << "no /proc here";
    const size_t budget = base + 3 * pb;
    cfg.memory_budget_bytes = budget;
    size_t within = 0, over = 0;
    {
        Engine engine(cfg);
        const JobResult r = engine.await(engine.submit(job()));
        ASSERT_EQ(r.state, JobState::Done) << r.error;
        within = r.peak_rss_bytes;
    }
    cfg.memory_budget_bytes = 0;
    {
        Engine engine(cfg);
        const JobResult r = engine.await(engine.submit(job()));
        ASSERT_EQ(r.state, JobState::Done) << r.error;
        over = r.peak_rss_bytes;
    }
    std::printf("budget %zu MB: peak %zu MB within it, %zu MB without it\n", budget >> 20, within >> 20, over >> 20);
    EXPECT_LE(within, budget + (size_t(8) << 20));
    EXPECT_GT(over, budget);
}

namespace {
// Takes `working` bytes of its own (touched) while it proves, as the GPU backend's 0/1 splits do, and says so in
// working_bytes() when `says` is set.
struct HungryBackend : Backend {
    size_t working = 0;
    bool says = true;
    std::vector<groth16::Proof> prove(std::span<r1cs::ProvingAssignment> a, std::span<const Fr>, std::span<const Fr>,
                                      TimingSink*) override {
        std::vector<uint8_t> scratch(working, 1);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        EXPECT_EQ(scratch[working / 2], 1);
        return std::vector<groth16::Proof>(a.size());
    }
    size_t working_bytes() const override { return says ? working : 0; }
    std::string name() const override { return "hungry"; }
};
}  // namespace

// The budget reserves a backend's working memory for every partition no lane has taken yet: with it, partitions
// whose proving takes twice their assignment again run one at a time within the budget. A backend that does not
// say what it takes gets partitions admitted beside the one it proves, and the peak goes over the same budget.
TEST(Engine, MemoryBudgetCountsTheBackendsWorkingMemory) {
    const size_t pb = size_t(32) << 20;
    HungryBackend hungry;
    hungry.working = 2 * pb;
    auto job = [&] {
        JobSpec s;
        s.name = "working";
        s.partitions = 8;
        s.backend = &hungry;
        s.partition_bytes = pb;
        s.synthesize = [pb](size_t) {
            r1cs::ProvingAssignment asg;
            asg.a().assign(pb / sizeof(Fr), Fr::one());
            return asg;
        };
        return s;
    };
    EngineConfig cfg;
    cfg.synthesis_workers = 4;
    cfg.lookahead = 4;
    {
        Engine warm(cfg);
        ASSERT_EQ(warm.await(warm.submit(job())).state, JobState::Done);
    }
    const size_t base = current_rss_bytes();
    if (base == 0) GTEST_SKIP() << "no /proc here";
    cfg.memory_budget_bytes = base + 4 * pb;
    auto peak = [&](bool says) {
        hungry.says = says;
        Engine engine(cfg);
        const JobResult r = engine.await(engine.submit(job()));
        EXPECT_EQ(r.state, JobState::Done) << r.error;
        return r.peak_rss_bytes;
    };
    const size_t counted = peak(true), uncounted = peak(false);
    std::printf("budget %zu MB: peak %zu MB with the working memory counted, %zu MB without\n",
                cfg.memory_budget_bytes >> 20, counted >> 20, uncounted >> 20);
    EXPECT_LE(counted, cfg.memory_budget_bytes + (size_t(8) << 20));
    EXPECT_GT(uncounted, cfg.memory_budget_bytes);
}

// The CPU backend's working memory is one vector over the evaluation domain.
TEST(Engine, CpuBackendWorkingMemoryIsOneDomainVector) {
    groth16::Parameters p;
    p.h.resize(1023);
    CpuBackend cpu(p);
    EXPECT_EQ(cpu.working_bytes(), 1024 * sizeof(Fr));
}

// The union of span intervals, the JSON round trip, and the breakdown's gaps between layers.
TEST(Timing, BusyTimeJsonAndBreakdown) {
    TimingSink sink;
    sink.record({TimingLayer::Pipeline, "job", -1, 0.0, 10.0});
    sink.record({TimingLayer::Pipeline, "proving", 0, 1.0, 3.0});   // 1..4
    sink.record({TimingLayer::Pipeline, "proving", 1, 3.0, 3.0});   // 3..6, overlaps
    sink.record({TimingLayer::Prover, "prove", 0, 1.5, 2.0});       // 1.5..3.5
    sink.record({TimingLayer::Prover, "prove", 1, 4.0, 1.5});       // 4..5.5
    sink.record({TimingLayer::Kernel, "msm.h.accumulate", 0, 2.0, 1.0});
    sink.record({TimingLayer::Kernel, "h.upload", 1, 0.0, 9.0});    // an upload: not a kernel
    const auto spans = spans_from_json(sink.to_json());
    ASSERT_EQ(spans.size(), 7u);
    EXPECT_EQ(spans[2].item, 1);
    EXPECT_DOUBLE_EQ(spans[2].start_s, 3.0);
    EXPECT_NEAR(busy_seconds(spans, [](const TimingSpan& s) { return s.name == "proving"; }), 5.0, 1e-9);
    EXPECT_NEAR(busy_seconds(spans, {}), 10.0, 1e-9);
    const std::string b = timeline_breakdown(spans);
    EXPECT_NE(b.find("the prover waited 5.000 s"), std::string::npos) << b;
    EXPECT_NE(b.find("inside prover calls 3.500 s: 1.500 s in the engine"), std::string::npos) << b;
    EXPECT_NE(b.find("some kernel running 1.000 s: the GPU idled 2.500 s"), std::string::npos) << b;
    EXPECT_THROW(spans_from_json("[{\"layer\":\"x\"}]"), std::invalid_argument);
    EXPECT_THROW(spans_from_json("not json"), std::invalid_argument);
}

namespace {
// A pretend device's backend that holds compiled matrices as a GPU's does (products_device_bytes each); its holds
// are recorded so a test can see when they end.
struct MatricesOnDevice : CpuBackend {
    MatricesOnDevice(const groth16::Parameters& p, size_t bytes, std::shared_ptr<std::vector<std::weak_ptr<int>>> holds)
        : CpuBackend(p), bytes(bytes), holds(std::move(holds)) {}
    size_t products_device_bytes(const r1cs::PrecompiledR1cs&) const override { return bytes; }
    std::shared_ptr<const void> hold_products(const r1cs::PrecompiledR1cs&) override {
        auto h = std::make_shared<int>(0);
        holds->push_back(h);
        return h;
    }
    size_t bytes;
    std::shared_ptr<std::vector<std::weak_ptr<int>>> holds;
};
}  // namespace

// #22: the matrices a key's jobs are compiled against stay on its devices while the key is loaded, counted in the
// device budget, so a daemon's jobs do not copy them again each; without room in the budget (or with the option
// off) the store holds none and the jobs hold them for themselves.
TEST(KeyStore, MatricesStayOnTheKeysDevicesWithTheKey) {
    ParamFiles f;
    const size_t on_device = 4096;
    auto holds = std::make_shared<std::vector<std::weak_ptr<int>>>();
    auto with = [&](bool keep) {
        KeyStoreConfig cfg = with_pretend_device(f.bytes[0] + on_device);  // the key's copy and one set of matrices
        cfg.make_device_copies = [holds, on_device](const groth16::Parameters& p, const std::vector<std::string>&) {
            std::vector<DeviceCopy> v;
            v.push_back({"dev:0", ProvingKeyStore::resident_bytes(p),
                         std::make_unique<MatricesOnDevice>(p, on_device, holds)});
            return v;
        };
        cfg.keep_device_products = keep;
        return cfg;
    };
    auto chain = [](unsigned log) { return [log] { return r1cs::compile_r1cs(circuits::MulChainCircuit(log, 1, std::nullopt)); }; };
    ProvingKeyStore store(with(true));
    auto key = store.get(f.files[0]);
    ASSERT_EQ(key->devices.size(), 1u);
    auto m5 = store.matrices(*key, "mulchain 5", chain(5));
    ASSERT_EQ(holds->size(), 1u);
    EXPECT_FALSE(holds->front().expired()) << "held by the store";
    EXPECT_EQ(store.stats().device_bytes.at("dev:0"), f.bytes[0] + on_device);
    EXPECT_EQ(store.matrices(*key, "mulchain 5", chain(5)).get(), m5.get());
    EXPECT_EQ(holds->size(), 1u) << "one copy for every job";
    // Matrices that do not fit in the device budget beside them: made and served, but not held nor counted there.
    auto m6 = store.matrices(*key, "mulchain 6", chain(6));
    EXPECT_GT(m6->num_constraints, m5->num_constraints);
    EXPECT_EQ(holds->size(), 1u);
    EXPECT_EQ(store.stats().device_bytes.at("dev:0"), f.bytes[0] + on_device);
    // Evicted with the key, the hold ends and the device bytes go back.
    key.reset();
    m5.reset();
    m6.reset();
    EXPECT_TRUE(store.evict(f.files[0]));
    EXPECT_TRUE(holds->front().expired());
    EXPECT_EQ(store.stats().device_bytes.at("dev:0"), 0u);
    // The option off: the store holds nothing on the device.
    holds->clear();
    ProvingKeyStore off(with(false));
    auto k = off.get(f.files[0]);
    (void)off.matrices(*k, "mulchain 5", chain(5));
    EXPECT_TRUE(holds->empty());
    EXPECT_EQ(off.stats().device_bytes.at("dev:0"), f.bytes[0]);
}

namespace {
// A CPU backend that says it makes the sparse products itself (as a GPU holding the matrices does): it records the
// assignments it is given and completes the deferred ones with the CPU prover.
struct HoldingBackend : CpuBackend {
    explicit HoldingBackend(bool holds) : CpuBackend(params()), holds(holds) {}
    std::shared_ptr<const void> hold_products(const r1cs::PrecompiledR1cs& pce) override {
        asked = &pce;
        if (!holds) return nullptr;
        auto h = std::make_shared<int>(0);
        held = h;
        return h;
    }
    std::vector<groth16::Proof> prove(std::span<r1cs::ProvingAssignment> assignments, std::span<const Fr> r,
                                      std::span<const Fr> s, TimingSink* timing) override {
        for (const auto& a : assignments) {
            std::lock_guard<std::mutex> lk(mu);
            (a.deferred_products() ? deferred : complete)++;
            witness_bytes = (a.inputs().size() + a.aux().size()) * sizeof(Fr);
        }
        return CpuBackend::prove(assignments, r, s, timing);
    }
    bool holds;
    const r1cs::PrecompiledR1cs* asked = nullptr;
    std::weak_ptr<int> held;
    std::mutex mu;
    size_t deferred = 0, complete = 0, witness_bytes = 0;
};

JobSpec pce_chain_job(groth16::ProverBackend& backend, const r1cs::PrecompiledR1cs& pce, size_t partitions) {
    JobSpec spec;
    spec.name = "mulchain";
    spec.partitions = partitions;
    spec.backend = &backend;
    spec.pce = &pce;
    spec.randomness_seed = 42;
    spec.synthesize = [&pce](size_t i) {
        return r1cs::witness_assignment(pce, circuits::MulChainCircuit(kLog, 2, 300 + i), ThreadPool::global());
    };
    return spec;
}
}  // namespace

// JobSpec::first_upload_alone: with the products on the backend, the other syntheses wait until the first
// partition's backend says its witness is sent (ProvingAssignment::on_sent), and start while that proof still
// runs; a backend that never says so holds them up only until its proof ends. The proofs are unchanged.
TEST(Engine, FirstUploadAloneWaitsForTheWitnessToBeSent) {
    using Clock = std::chrono::steady_clock;
    const r1cs::PrecompiledR1cs pce = r1cs::compile_r1cs(circuits::MulChainCircuit(kLog, 2, std::nullopt));
    struct SendingBackend : HoldingBackend {
        explicit SendingBackend(bool says) : HoldingBackend(true), says(says) {}
        std::vector<groth16::Proof> prove(std::span<r1cs::ProvingAssignment> assignments, std::span<const Fr> r,
                                          std::span<const Fr> s, TimingSink* timing) override {
            if (!first_start) first_start = Clock::now();
            std::this_thread::sleep_for(std::chrono::milliseconds(150));  // the "upload"
            for (auto& a : assignments) {
                const bool hooked = (bool)a.on_sent;
                if (hooked) hooks++;
                if (says && hooked) {
                    sent_at = Clock::now();
                    a.notify_sent();
                    EXPECT_FALSE(a.on_sent) << "notify_sent clears the hook";
                }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(150));  // the rest of the proof
            auto proofs = HoldingBackend::prove(assignments, r, s, timing);
            if (!first_end) first_end = Clock::now();
            return proofs;
        }
        bool says;
        std::atomic<int> hooks{0};
        std::optional<Clock::time_point> first_start, sent_at, first_end;
    };
    for (const bool says : {true, false}) {
        SCOPED_TRACE(::testing::Message() << "the backend says it sent: " << says);
        SendingBackend backend(says);
        EngineConfig cfg;
        cfg.device_products = true;
        cfg.synthesis_workers = 3;
        cfg.lookahead = 2;
        Engine engine(cfg);
        JobSpec spec = pce_chain_job(backend, pce, 4);
        spec.first_partition_alone = true;
        spec.first_upload_alone = true;
        std::mutex mu;
        std::optional<Clock::time_point> first_other;  // the first synthesis of a partition other than 0
        auto inner = spec.synthesize;
        spec.synthesize = [&](size_t i) {
            if (i != 0) {
                std::lock_guard<std::mutex> lk(mu);
                if (!first_other) first_other = Clock::now();
            }
            return inner(i);
        };
        const JobResult res = engine.await(engine.submit(spec));
        ASSERT_EQ(res.state, JobState::Done) << res.error;
        EXPECT_EQ(res.proofs.size(), 4u);
        EXPECT_EQ(backend.hooks.load(), 1) << "only the first partition carries the hook";
        ASSERT_TRUE(first_other && backend.first_end);
        if (says) {
            ASSERT_TRUE(backend.sent_at);
            EXPECT_GE(*first_other, *backend.sent_at) << "a synthesis started before the witness was sent";
            EXPECT_LT(*first_other, *backend.first_end) << "the syntheses waited for the whole proof";
        } else {
            // Until the first proof has ended, or 2 s after partition 0 was ready (a slow machine's case; the
            // bound allows 1 s between ready and the proof's start).
            const auto bound = std::min(*backend.first_end, *backend.first_start + std::chrono::seconds(1));
            EXPECT_GE(*first_other + std::chrono::milliseconds(1), bound)
                << "without the backend's word they wait for the first proof (2 s at most)";
        }
    }
}

// A job with compiled matrices (JobSpec::pce): when its backend holds them (ProverBackend::hold_products), the
// partitions reach it with their products deferred and only the witness is counted per partition; when it cannot,
// or EngineConfig::device_products is off, the synthesis worker completes them. The proofs are the same either way,
// equal to full synthesis's, and the hold ends with the job.
TEST(Engine, DefersSparseProductsToABackendThatHoldsTheMatrices) {
    const r1cs::PrecompiledR1cs pce = r1cs::compile_r1cs(circuits::MulChainCircuit(kLog, 2, std::nullopt));
    CpuBackend plain(params());
    std::vector<groth16::Proof> want;
    {
        Engine engine;
        JobSpec spec = chain_job(plain, 3, 300);
        spec.randomness_seed = 42;
        const JobResult res = engine.await(engine.submit(spec));
        ASSERT_EQ(res.state, JobState::Done) << res.error;
        want = res.proofs;
    }
    for (const bool holds : {true, false}) {
        for (const bool device_products : {true, false}) {
            SCOPED_TRACE(::testing::Message() << "holds " << holds << ", device_products " << device_products);
            HoldingBackend backend(holds);
            EngineConfig cfg;
            cfg.device_products = device_products;
            Engine engine(cfg);
            const JobResult res = engine.await(engine.submit(pce_chain_job(backend, pce, 3)));
            ASSERT_EQ(res.state, JobState::Done) << res.error;
            EXPECT_TRUE(res.proofs == want) << "the proofs differ from full synthesis's";
            const bool on_backend = holds && device_products;
            EXPECT_EQ(backend.asked, device_products ? &pce : nullptr);
            EXPECT_EQ(backend.deferred, on_backend ? 3u : 0u);
            EXPECT_EQ(backend.complete, on_backend ? 0u : 3u);
            EXPECT_EQ(backend.witness_bytes, (pce.num_inputs + pce.num_aux) * sizeof(Fr));
            // The hold ends with the job, before await returns.
            EXPECT_TRUE(backend.held.expired()) << "the matrices are still held after the job";
        }
    }
}
