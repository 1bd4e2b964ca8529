// Parallel synthesis of circuits whose parts allocate public inputs (r1cs::synthesize_parts; a fragment's inputs
// are numbered kLocalBase + i inside it and after the parent's and the previous fragments' inputs on append):
// - a toy circuit whose parts interleave inputs and aux variables and use the parent's and their own: the prover's
//   assignment (values, a, b, c, the three densities), the witness and the compact recording (matrices,
//   coefficients, counts) equal to sequential synthesis, for one part per fragment and several;
// - Filecoin's PoRep partition (porep_circuit.hpp, its 18 challenges as parts) of a sealed 2 KiB sector: the same
//   equalities, the PCE's assignment equal to full synthesis, the test system satisfied with the same rows, inputs
//   and aux, and the compiled partition through write_pce / read_pce unchanged.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#include "seeded_rng.hpp"
#include "cuzk/filecoin/c1.hpp"
#include "cuzk/filecoin/porep_circuit.hpp"
#include "cuzk/filecoin/sealer.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "cuzk/r1cs/test_cs.hpp"
#include "cuzk/util/timing.hpp"
#include "r1cs_checks.hpp"

namespace cuzk::filecoin {
namespace {

using r1cs::CompactMatrix;
using r1cs::KeygenAssembly;
using r1cs::LC;
using r1cs::PrecompiledR1cs;
using r1cs::ProvingAssignment;
using r1cs::Variable;
using r1cs::WitnessAssignment;

// Sets the synthesis threads for a scope (0 after: the default).
struct SynthesisThreads {
    explicit SynthesisThreads(size_t n) { r1cs::set_parallel_synthesis_threads(n); }
    ~SynthesisThreads() { r1cs::set_parallel_synthesis_threads(0); }
};

using cuzk::testing::expect_same_assignment;

ProvingAssignment prove_with(const r1cs::Circuit& c, size_t threads) {
    SynthesisThreads t(threads);
    ProvingAssignment pa;
    r1cs::synthesize_groth16(pa, c);
    return pa;
}
WitnessAssignment witness_with(const r1cs::Circuit& c, size_t threads) {
    SynthesisThreads t(threads);
    WitnessAssignment w;
    r1cs::witness_groth16(w, c);
    return w;
}
PrecompiledR1cs compile_with(const r1cs::Circuit& c, size_t threads) {
    SynthesisThreads t(threads);
    return r1cs::compile_r1cs(c);
}

// ---- fragments --------------------------------------------------------------------------------------------------

// A value of a combination in any system that has values (a fragment's own evaluate, else the assignment's
// vectors); zero in one that has none (its value functions are never called).
template <class CS>
Fr value_of(const CS& cs, const LC& lc) {
    if constexpr (requires { cs.evaluate(lc); }) return cs.evaluate(lc);
    else if constexpr (requires { cs.aux(); }) return lc.evaluate(cs.inputs(), cs.aux());
    else return Fr::zero();
}

// A top level (inputs and aux), then parts that each allocate 1 to 4 inputs between aux variables and use the
// parent's inputs and aux and their own inputs and aux in A, B and C (local inputs in B: a fragment's input
// density), then a suffix over the top level.
class InputPartsCircuit : public r1cs::CircuitImpl<InputPartsCircuit> {
public:
    explicit InputPartsCircuit(size_t parts) : parts_(parts) {}
    template <class CS>
    void synthesize(CS& cs) const {
        const Variable in = cs.alloc_input("in", [] { return Fr::from_u64(3); });
        std::vector<Variable> base;
        for (uint64_t k = 0; k < 70; k++)
            base.push_back(cs.alloc([k] { return "base " + std::to_string(k); }, [k] { return Fr::from_u64(k + 2); }));
        const Variable in2 = cs.alloc_input("in2", [] { return Fr::from_u64(5); });
        r1cs::synthesize_parts(cs, parts_, [&](auto& p, size_t i) {
            using P = std::remove_reference_t<decltype(p)>;
            r1cs::Namespace<P> ns(p, [i] { return "part_" + std::to_string(i); });
            Variable x = p.alloc("x", [&] { return value_of(p, LC(base[i % base.size()])) + Fr::from_u64(i); });
            p.enforce("x = base + i", LC(base[i % base.size()]) + LC().add(Fr::from_u64(i), Variable::one()),
                      LC(Variable::one()), LC(x));
            for (size_t k = 0; k < i % 4; k++) {
                // A public input: in * (i + k + 1), then an aux variable over it, the parent's and the part's.
                r1cs::Namespace<P> kns(p, [k] { return "step_" + std::to_string(k); });
                const Fr m = Fr::from_u64(i + k + 1);
                const Variable pub = p.alloc_input("pub", [&] { return value_of(p, LC().add(m, in)); });
                p.enforce("in * (i + k + 1) = pub", LC(in), LC().add(m, Variable::one()), LC(pub));
                const Variable b = base[(i * 7 + k) % base.size()];
                const Variable y = p.alloc("y", [&] { return value_of(p, LC(x)) * value_of(p, LC(pub) + LC(b)); });
                p.enforce("x * (pub + b) = y", LC(x), LC(pub) + LC(b), LC(y));
                const Variable z = p.alloc("z", [&] { return value_of(p, LC(pub)) * value_of(p, LC(in2) + LC(y)); });
                if (k % 2) p.enforce("pub * (in2 + y) = z", LC(pub), LC(in2) + LC(y), LC(z));
                else p.enforce("(in2 + y) * pub = z", LC(in2) + LC(y), LC(pub), LC(z));
                x = z;
            }
            // A local input that occurs in no B row (its input density bit stays clear).
            const Variable quiet = p.alloc_input("quiet", [&] { return value_of(p, LC(x)); });
            p.enforce("quiet = x", LC(quiet), LC(Variable::one()), LC(x));
        });
        const Variable s = cs.alloc("s", [&] { return value_of(cs, LC(in) + LC(base[3])); });
        cs.enforce("(in + base) * one = s", LC(in) + LC(base[3]), LC(Variable::one()), LC(s));
    }

private:
    size_t parts_;
};

TEST(FilecoinPorepParallel, FragmentsAllocatingInputsGiveTheSequentialSystems) {
    for (size_t parts : {2, 5, 8, 13}) {  // with 4 threads: one part per fragment up to 8, then several
        SCOPED_TRACE("parts " + std::to_string(parts));
        const InputPartsCircuit c(parts);
        const ProvingAssignment seq = prove_with(c, 1);
        r1cs::TestConstraintSystem tcs;
        r1cs::synthesize_groth16(tcs, c);
        ASSERT_TRUE(tcs.is_satisfied()) << tcs.which_is_unsatisfied().value_or("");
        ASSERT_EQ(seq.inputs(), tcs.inputs());
        ASSERT_EQ(seq.aux(), tcs.aux());
        EXPECT_GE(seq.inputs().size(), 3 + parts);
        const ProvingAssignment par = prove_with(c, 4);
        expect_same_assignment(seq, par);
        // ONE and the parts' "pub" inputs in B; the last part's "quiet" input (the last input) in none.
        EXPECT_GT(par.b_input_density().count(), 1u);
        EXPECT_FALSE(par.b_input_density().get(par.inputs().size() - 1));

        const WitnessAssignment wseq = witness_with(c, 1), wpar = witness_with(c, 4);
        EXPECT_EQ(wpar.inputs(), wseq.inputs());
        EXPECT_EQ(wpar.aux(), wseq.aux());
        EXPECT_EQ(wpar.inputs(), seq.inputs());

        KeygenAssembly kseq(true), kpar(true);
        {
            SynthesisThreads t(1);
            r1cs::synthesize_groth16(kseq, c);
        }
        {
            SynthesisThreads t(4);
            r1cs::synthesize_groth16(kpar, c);
        }
        EXPECT_EQ(kpar.num_inputs(), kseq.num_inputs());
        EXPECT_EQ(kpar.num_inputs(), seq.inputs().size());
        EXPECT_EQ(kpar.num_aux(), kseq.num_aux());
        EXPECT_EQ(kpar.num_constraints(), kseq.num_constraints());
        for (int m = 0; m < 3; m++) EXPECT_TRUE(kpar.take_compact(m) == kseq.take_compact(m)) << m;
        EXPECT_EQ(kpar.take_coefficients(), kseq.take_coefficients());

        // The PCE assembled from the parallel halves is the full synthesis.
        ThreadPool pool(2);
        SynthesisThreads t(4);
        expect_same_assignment(seq, r1cs::assignment_from_pce(r1cs::compile_r1cs(c), c, pool));
    }
}

TEST(FilecoinPorepParallel, FragmentInputsAreLocalUntilAppended) {
    ProvingAssignment cs;
    cs.alloc_input("one", [] { return Fr::one(); });
    const Variable a = cs.alloc("a", [] { return Fr::from_u64(2); });
    r1cs::AssignmentFragment f(cs), g(cs);
    const Variable fi = f.alloc_input("i", [] { return Fr::from_u64(7); });
    EXPECT_TRUE(fi.is_input());
    EXPECT_EQ(fi.index(), r1cs::ForkedValues::kLocalBase);
    EXPECT_EQ(f.evaluate(LC(fi) + LC(a)), Fr::from_u64(9));
    EXPECT_THROW((void)g.evaluate(LC(fi)), r1cs::SynthesisError);  // another fragment's input
    g.alloc_input("j", [] { return Fr::from_u64(8); });
    f.enforce("i * i", LC(a), LC(fi), LC());
    std::vector<r1cs::AssignmentFragment> frags;
    frags.push_back(std::move(f));
    frags.push_back(std::move(g));
    cs.append_all(frags);
    EXPECT_EQ(cs.inputs(), (std::vector<Fr>{Fr::one(), Fr::from_u64(7), Fr::from_u64(8)}));
    ASSERT_EQ(cs.b_input_density().size(), 3u);
    EXPECT_FALSE(cs.b_input_density().get(0));
    EXPECT_TRUE(cs.b_input_density().get(1));
    EXPECT_FALSE(cs.b_input_density().get(2));

    WitnessAssignment w;
    w.alloc_input("one", [] { return Fr::one(); });
    r1cs::WitnessFragment wf(w);
    const Variable wi = wf.alloc_input("i", [] { return Fr::from_u64(4); });
    EXPECT_EQ(wf.evaluate(LC(wi) + LC(Variable::one())), Fr::from_u64(5));
    EXPECT_THROW((void)wf.evaluate(LC(Variable::input(r1cs::ForkedValues::kLocalBase + 1))), r1cs::SynthesisError);

    KeygenAssembly ka(true);
    ka.alloc_input("one", [] { return Fr::one(); });
    r1cs::KeygenFragment kf(ka);
    const Variable ki = kf.alloc_input("i", [] { return Fr::zero(); });
    EXPECT_THROW(kf.enforce("unknown", LC(Variable::input(ki.index() + 1)), LC(), LC()), r1cs::SynthesisError);
    kf.enforce("i", LC(ki), LC(ki), LC());
    std::vector<r1cs::KeygenFragment> kfrags;
    kfrags.push_back(std::move(kf));
    ka.append_all(kfrags);
    EXPECT_EQ(ka.num_inputs(), 2u);
    const CompactMatrix am = ka.take_compact(0);
    ASSERT_EQ(am.terms.size(), 1u);
    EXPECT_TRUE(am.terms[0].var == Variable::input(1));
}

// ---- the 2 KiB PoRep partition ----------------------------------------------------------------------------------

// Partition 0 of a 2 KiB V1_1 sector sealed with random data by the library's sealer, its witness from the C1
// (c1_to_partitions), and its sequential full synthesis; shared by the tests below.
class TwoKiBPartition : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        std::mt19937_64 rng = cuzk::testing::seeded_rng("FilecoinPorepParallel TwoKiBPartition");
        auto random_bytes = [&] {
            Bytes32 b;
            for (uint8_t& x : b) x = uint8_t(rng());
            return b;
        };
        const PorepConfig config = PorepConfig::from_registered(RegisteredSealProof::StackedDrg2KiBV1_1);
        const Bytes32 prover_id = random_bytes(), ticket = random_bytes(), seed = random_bytes();
        const uint64_t sector_id = rng();
        std::vector<uint8_t> data;
        for (uint64_t n = 0; n < config.nodes(); n++) {
            const Domain d = domain_from_fr(Fr::random(rng));
            data.insert(data.end(), d.begin(), d.end());
        }
        const auto t0 = std::chrono::steady_clock::now();
        circuit_ = new StackedPorepCircuit(
            c1_to_partitions(commit_phase1(seal_sector(config, data, prover_id, sector_id, ticket), seed)).at(0));
        shape_ = new StackedPorepShape(StackedPorepShape::of(config));
        const double seal_s = seconds_since(t0);
        const auto t1 = std::chrono::steady_clock::now();
        sequential_ = new ProvingAssignment(prove_with(*circuit_, 1));
        std::printf("[ info ] 2 KiB sector sealed with its C1 in %.1f s; partition 0 (%zu rows, %zu inputs) "
                    "synthesized on one thread in %.1f s\n",
                    seal_s, sequential_->num_constraints(), sequential_->inputs().size(), seconds_since(t1));
    }
    static void TearDownTestSuite() {
        delete sequential_;
        delete shape_;
        delete circuit_;
    }
    static StackedPorepShape* shape_;
    static StackedPorepCircuit* circuit_;
    static ProvingAssignment* sequential_;
};
StackedPorepShape* TwoKiBPartition::shape_ = nullptr;
StackedPorepCircuit* TwoKiBPartition::circuit_ = nullptr;
ProvingAssignment* TwoKiBPartition::sequential_ = nullptr;

TEST_F(TwoKiBPartition, ParallelProvingAndWitnessSystemsEqualSequential) {
    const ProvingAssignment& seq = *sequential_;
    ASSERT_EQ(seq.inputs().size(), 40u);  // ONE, 3, 18 per challenge (their values: the test system's, below)
    auto t0 = std::chrono::steady_clock::now();
    const ProvingAssignment par = prove_with(*circuit_, 4);
    std::printf("[ info ] full synthesis with 4 threads: %.1f s\n", seconds_since(t0));
    expect_same_assignment(seq, par);
    t0 = std::chrono::steady_clock::now();
    const WitnessAssignment wseq = witness_with(*circuit_, 1);
    const WitnessAssignment wpar = witness_with(*circuit_, 4);
    std::printf("[ info ] witness with 1 and 4 threads: %.1f s\n", seconds_since(t0));
    EXPECT_EQ(wseq.inputs(), seq.inputs());
    EXPECT_EQ(wseq.aux(), seq.aux());
    EXPECT_EQ(wpar.inputs(), seq.inputs());
    EXPECT_EQ(wpar.aux(), seq.aux());
}

TEST_F(TwoKiBPartition, ParallelCompiledMatricesEqualSequentialAndThePceIsFullSynthesis) {
    auto t0 = std::chrono::steady_clock::now();
    const PrecompiledR1cs seq = compile_with(*circuit_, 1);
    const PrecompiledR1cs par = compile_with(*circuit_, 4);
    std::printf("[ info ] compiled with 1 and 4 threads: %.1f s\n", seconds_since(t0));
    EXPECT_TRUE(par == seq);
    EXPECT_EQ(par.coeffs, seq.coeffs);
    EXPECT_EQ(par.num_inputs, sequential_->inputs().size());
    EXPECT_EQ(par.num_aux, sequential_->aux().size());
    EXPECT_EQ(par.num_constraints, sequential_->num_constraints());
    // Key generation needs no values: the blank partition of the same shape compiles to the same matrices.
    EXPECT_TRUE(compile_with(StackedPorepCircuit(blank_stacked_porep_partition(*shape_)), 4) == par);
    t0 = std::chrono::steady_clock::now();
    ThreadPool pool(2);
    SynthesisThreads t(4);
    const ProvingAssignment from_pce = r1cs::assignment_from_pce(par, *circuit_, pool);
    std::printf("[ info ] assignment from the PCE with 4 threads: %.1f s\n", seconds_since(t0));
    expect_same_assignment(*sequential_, from_pce);
}

TEST_F(TwoKiBPartition, CompiledPartitionSurvivesAPceFile) {
    PrecompiledR1cs pce = compile_with(*circuit_, 4);
    pce.circuit = "porep-2KiB-partition";
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("cuzk_porep_parallel_" + std::to_string(getpid()) + ".pce");
    const auto t0 = std::chrono::steady_clock::now();
    r1cs::write_pce(path, pce);
    const PrecompiledR1cs back = r1cs::read_pce(path, "porep-2KiB-partition");
    std::printf("[ info ] PCE of %ju bytes written and read in %.1f s\n", (uintmax_t)std::filesystem::file_size(path),
                seconds_since(t0));
    std::filesystem::remove(path);
    EXPECT_TRUE(back == pce);
    EXPECT_EQ(back.circuit, pce.circuit);
    EXPECT_EQ(back.coeffs, pce.coeffs);
    EXPECT_TRUE(back.b_input_density == pce.b_input_density);
    ThreadPool pool(2);
    SynthesisThreads t(4);
    expect_same_assignment(*sequential_, r1cs::assignment_from_pce(back, *circuit_, pool));
}

}  // namespace
}  // namespace cuzk::filecoin
