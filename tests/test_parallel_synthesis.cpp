// Parallel synthesis of independent parts (r1cs::synthesize_parts, AssignmentFragment): the assignment is the same
// as sequential synthesis (values, a, b, c, every density) for a hand-made circuit of unequal parts; errors inside a
// part come out; misuse is refused. (Filecoin's PoRep partition, whose challenges synthesize in parallel, is checked
// the same way on a real 2 KiB partition in test_filecoin_porep_parallel.cpp.)
#include <gtest/gtest.h>

#include <stdexcept>

#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "r1cs_checks.hpp"

using namespace cuzk;
using namespace cuzk::r1cs;

namespace {

using cuzk::testing::expect_same_assignment;

// Inputs and a few parent aux values, then `parts` parts that each allocate a varying number of variables and use
// parent inputs and aux in A, B and C (so densities come from both sides of the fork), then a suffix.
class PartsCircuit : public CircuitImpl<PartsCircuit> {
public:
    explicit PartsCircuit(size_t parts) : parts_(parts) {}
    template <class CS>
    void synthesize(CS& cs) const {
        Variable in = cs.alloc_input("in", [] { return Fr::from_u64(3); });
        std::vector<Variable> base;
        for (uint64_t k = 0; k < 70; k++) base.push_back(cs.alloc("base", [k] { return Fr::from_u64(k + 2); }));
        synthesize_parts(cs, parts_, [&](auto& p, size_t i) {
            Fr v = Fr::from_u64(i + 5);
            Variable x = p.alloc("x", [&] { return v; });
            for (size_t k = 0; k < 3 + i % 4; k++) {  // unequal part sizes
                const Variable b = base[(i * 7 + k) % base.size()];
                const Fr bv = Fr::from_u64((i * 7 + k) % base.size() + 2);
                const Fr nv = v * bv;
                Variable y = p.alloc("y", [&] { return nv; });
                if (k % 2) p.enforce("x*b=y", LC(x), LC(b), LC(y));
                else p.enforce("b*x=y", LC(b), LC(x), LC(y));
                x = y;
                v = nv;
            }
            p.enforce("x*in", LC(x), LC(in) + LC(Variable::one()), LC().add(Fr::from_u64(4), x));
        });
        Variable z = cs.alloc("z", [] { return Fr::from_u64(9); });
        cs.enforce("in*in=z", LC(in), LC(in), LC(z));
    }

private:
    size_t parts_;
};

ProvingAssignment synth_with(const Circuit& c, size_t threads) {
    set_parallel_synthesis_threads(threads);
    ProvingAssignment asg;
    synthesize_groth16(asg, c);
    set_parallel_synthesis_threads(0);  // back to the default
    return asg;
}

}  // namespace

TEST(ParallelSynthesis, PartsGiveTheSequentialAssignment) {
    for (size_t parts : {1, 2, 5, 13}) {
        PartsCircuit c(parts);
        const ProvingAssignment seq = synth_with(c, 1);
        EXPECT_GT(seq.num_constraints(), parts);
        for (size_t threads : {2, 3, 8}) {
            SCOPED_TRACE("parts " + std::to_string(parts) + ", threads " + std::to_string(threads));
            expect_same_assignment(seq, synth_with(c, threads));
        }
    }
}

namespace {
WitnessAssignment witness_with(const Circuit& c, size_t threads) {
    set_parallel_synthesis_threads(threads);
    WitnessAssignment w;
    witness_groth16(w, c);
    set_parallel_synthesis_threads(0);
    return w;
}
PrecompiledR1cs compile_with(const Circuit& c, size_t threads) {
    set_parallel_synthesis_threads(threads);
    PrecompiledR1cs p = compile_r1cs(c);
    set_parallel_synthesis_threads(0);
    return p;
}
}  // namespace

// The PCE's two halves split the same way: the witness (WitnessFragment) and the compiled matrices (KeygenFragment:
// aux variables renumbered, coefficients interned again) equal the sequential ones, and together they still give
// the full synthesis's assignment.
TEST(ParallelSynthesis, WitnessAndCompiledMatricesInParallelAreTheSequentialOnes) {
    PartsCircuit parts(13), few(2);
    for (const Circuit* c : std::initializer_list<const Circuit*>{&parts, &few}) {
        const WitnessAssignment wseq = witness_with(*c, 1);
        const PrecompiledR1cs pseq = compile_with(*c, 1);
        for (size_t threads : {2, 3, 16}) {
            SCOPED_TRACE("threads " + std::to_string(threads));
            const WitnessAssignment w = witness_with(*c, threads);
            EXPECT_EQ(w.inputs(), wseq.inputs());
            EXPECT_EQ(w.aux(), wseq.aux());
            const PrecompiledR1cs pc = compile_with(*c, threads);
            EXPECT_TRUE(pc == pseq);
            EXPECT_EQ(pc.coeffs.size(), pseq.coeffs.size());
        }
        ThreadPool pool(2);
        set_parallel_synthesis_threads(3);
        expect_same_assignment(synth_with(*c, 1), assignment_from_pce(compile_r1cs(*c), *c, pool));
        set_parallel_synthesis_threads(0);
    }
}

TEST(ParallelSynthesis, ErrorsAndMisuseAreReported) {
    ProvingAssignment cs;
    cs.alloc_input("one", [] { return Fr::one(); });
    Variable a = cs.alloc("a", [] { return Fr::from_u64(2); });
    set_parallel_synthesis_threads(4);
    // An exception in one part comes out of synthesize_parts.
    EXPECT_THROW(synthesize_parts(cs, 4,
                                  [&](auto& p, size_t i) {
                                      p.alloc("x", [&] { return Fr::one(); });
                                      if (i == 2) throw SynthesisError(SynthesisErrorKind::Unsatisfiable, "part 2");
                                  }),
                 SynthesisError);
    // A fragment's inputs are local until appended; it cannot use a variable the parent allocated after the fork.
    AssignmentFragment f(cs);
    EXPECT_EQ(f.alloc_input("i", [] { return Fr::one(); }).index(), ForkedValues::kLocalBase);
    Variable late = cs.alloc("late", [] { return Fr::one(); });
    EXPECT_THROW(f.enforce("late", LC(late), LC(a), LC()), SynthesisError);
    // Appending a fragment of another assignment is refused.
    ProvingAssignment other;
    AssignmentFragment g(other);
    EXPECT_THROW(cs.append(std::move(g)), SynthesisError);
    // The same rules for the witness and compact recording fragments.
    WitnessAssignment w;
    w.alloc_input("one", [] { return Fr::one(); });
    Variable wa = w.alloc("a", [] { return Fr::from_u64(2); });
    WitnessFragment wf(w);
    EXPECT_EQ(wf.alloc_input("i", [] { return Fr::one(); }).index(), ForkedValues::kLocalBase);
    EXPECT_EQ(wf.evaluate(LC(wa)), Fr::from_u64(2));
    Variable wlate = w.alloc("late", [] { return Fr::one(); });  // (the parent changed: only the check is valid)
    EXPECT_THROW((void)wf.evaluate(LC(wlate)), SynthesisError);
    KeygenAssembly ka(true);
    ka.alloc_input("one", [] { return Fr::one(); });
    Variable ka_a = ka.alloc("a", [] { return Fr::zero(); });
    KeygenFragment kf(ka);
    EXPECT_EQ(kf.alloc_input("i", [] { return Fr::one(); }).index(), ForkedValues::kLocalBase);
    Variable ka_late = ka.alloc("late", [] { return Fr::zero(); });
    EXPECT_THROW(kf.enforce("late", LC(ka_late), LC(ka_a), LC()), SynthesisError);
    std::vector<KeygenFragment> foreign;
    foreign.emplace_back(KeygenAssembly(true));
    EXPECT_THROW(ka.append_all(foreign), SynthesisError);
    KeygenAssembly full;  // setup's full recording does not fork
    EXPECT_FALSE(full.can_fork());
    set_parallel_synthesis_threads(0);
}

TEST(DensityTracker, AppendShiftsBits) {
    for (size_t first : {0u, 1u, 63u, 64u, 65u, 130u}) {
        for (size_t second : {0u, 1u, 64u, 100u}) {
            DensityTracker a, b, whole;
            for (size_t i = 0; i < first; i++) {
                a.add_element();
                whole.add_element();
                if (i % 3 == 0) a.mark(i), whole.mark(i);
            }
            for (size_t i = 0; i < second; i++) {
                b.add_element();
                whole.add_element();
                if (i % 5 == 1) b.mark(i), whole.mark(first + i);
            }
            a.append(b);
            EXPECT_TRUE(a == whole) << first << " + " << second;
            EXPECT_EQ(a.count(), whole.count());
        }
    }
}

namespace {
// `parts` parts of at least 2,000 aux values each (the size at which WitnessAssignment lends the parts slices of its
// reserved room), part i larger by (i % 3) * `extra`, each a chain of products of the parent's values.
class LargePartsCircuit : public CircuitImpl<LargePartsCircuit> {
public:
    LargePartsCircuit(size_t parts, size_t extra) : parts_(parts), extra_(extra) {}
    template <class CS>
    void synthesize(CS& cs) const {
        Variable in = cs.alloc_input("in", [] { return Fr::from_u64(3); });
        Variable base = cs.alloc("base", [] { return Fr::from_u64(5); });
        synthesize_parts(cs, parts_, [&](auto& p, size_t i) {
            Fr v = Fr::from_u64(i + 7);
            Variable x = p.alloc("x", [&] { return v; });
            for (size_t k = 0; k < 2000 + (i % 3) * extra_; k++) {
                const Fr nv = v * Fr::from_u64(5);
                Variable y = p.alloc("y", [&] { return nv; });
                p.enforce("x*base=y", LC(x), LC(base), LC(y));
                x = y;
                v = nv;
            }
            p.alloc_input("out", [&] { return v; });
        });
        Variable z = cs.alloc("z", [] { return Fr::from_u64(9); });
        cs.enforce("in*in=z", LC(in), LC(in), LC(z));
    }

private:
    size_t parts_, extra_;
};

WitnessAssignment witness_reserved(const Circuit& c, size_t threads, size_t aux_room) {
    set_parallel_synthesis_threads(threads);
    WitnessAssignment w;
    w.reserve(8, aux_room);
    // The room holds stale values, as reused memory would (lending it to the parts does not clear it): none may
    // survive into the witness.
    AuxValues& room = w.aux();
    room.resize(room.capacity(), Fr::from_u64(0xbad));
    room.clear();
    witness_groth16(w, c);
    set_parallel_synthesis_threads(0);
    return w;
}
}  // namespace

// AuxValues: growing within the capacity leaves what the memory holds (the reserved witness is not zeroed on one
// thread before its parts write it); equality with a std::vector of field elements either way round.
TEST(AuxValues, GrowingDoesNotClearAndComparesWithVectors) {
    AuxValues v;
    v.reserve(1000);
    v.resize(1000, Fr::from_u64(77));
    v.clear();
    v.resize(1000);
    size_t kept = 0;
    for (const Fr& x : v) kept += x == Fr::from_u64(77);
    EXPECT_EQ(kept, 1000u);
    const std::vector<Fr> same(1000, Fr::from_u64(77));
    std::vector<Fr> other = same;
    other[999] = Fr::zero();
    EXPECT_TRUE(v == same);
    EXPECT_TRUE(same == v);
    EXPECT_FALSE(v == other);
    EXPECT_FALSE(other == v);
    EXPECT_FALSE(v == std::vector<Fr>(999, Fr::from_u64(77)));
}

// With room reserved (as the engine reserves a compiled circuit's witness), the parts write into slices of the
// parent's room: parts as large as their share (nothing moves), a room larger than needed (slices closed up), and
// unequal parts whose larger ones outgrow their slices (gathered) all give the sequential witness; so does a room
// too small to lend.
TEST(ParallelSynthesis, WitnessPartsWriteIntoTheReservedRoom) {
    for (size_t extra : {size_t{0}, size_t{700}}) {
        const LargePartsCircuit c(7, extra);
        const WitnessAssignment seq = witness_with(c, 1);
        const size_t n = seq.aux().size();
        for (size_t room : {n, 2 * n, n / 3}) {
            for (size_t threads : {2, 3, 16}) {
                SCOPED_TRACE(::testing::Message() << "extra " << extra << ", room " << room << ", threads " << threads);
                const WitnessAssignment w = witness_reserved(c, threads, room);
                EXPECT_EQ(w.inputs(), seq.inputs());
                EXPECT_EQ(w.aux(), seq.aux());
            }
        }
    }
}

namespace {
// Parts that allocate bits in runs of 1..64 (WitnessAssignment / WitnessFragment::alloc_bits where the system has
// it, one alloc per bit elsewhere), part i larger by (i % 3) * `extra` runs: the runs cross the ends of the slices
// a reserved room lends, so both the streaming path and its fallback run.
class BitRunsCircuit : public CircuitImpl<BitRunsCircuit> {
public:
    BitRunsCircuit(size_t parts, size_t extra) : parts_(parts), extra_(extra) {}
    template <class CS>
    void synthesize(CS& cs) const {
        cs.alloc_input("in", [] { return Fr::from_u64(3); });
        cs.alloc("base", [] { return Fr::from_u64(5); });
        synthesize_parts(cs, parts_, [&](auto& p, size_t i) {
            uint64_t x = 0x9e3779b97f4a7c15ull * (i + 1);
            for (size_t k = 0; k < 70 + (i % 3) * extra_; k++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                const int count = 1 + (int)(k % 64);
                if constexpr (requires { p.alloc_bits(x, count); }) {
                    const Variable first = p.alloc_bits(x, count);
                    const Variable expect = p.alloc("probe", [] { return Fr::from_u64(2); });
                    if (expect.index() != first.index() + (uint32_t)count)
                        throw std::logic_error("alloc_bits: the variables are not consecutive");
                } else {
                    for (int j = 0; j < count; j++) p.alloc("bit", [&] { return Fr::from_u64((x >> j) & 1); });
                    p.alloc("probe", [] { return Fr::from_u64(2); });
                }
            }
        });
        cs.alloc("z", [] { return Fr::from_u64(9); });
    }

private:
    size_t parts_, extra_;
};
}  // namespace

TEST(ParallelSynthesis, BitRunsGiveTheSequentialWitness) {
    for (size_t extra : {size_t{0}, size_t{40}}) {
        const BitRunsCircuit c(5, extra);
        const ProvingAssignment per_bit = synth_with(c, 1);
        const WitnessAssignment seq = witness_with(c, 1);
        ASSERT_EQ(seq.aux(), per_bit.aux());
        const size_t n = seq.aux().size();
        for (size_t room : {n, 2 * n, n / 2}) {
            for (size_t threads : {2, 5}) {
                SCOPED_TRACE(::testing::Message() << "extra " << extra << ", room " << room << ", threads " << threads);
                const WitnessAssignment w = witness_reserved(c, threads, room);
                EXPECT_EQ(w.aux(), seq.aux());
            }
        }
    }
}
