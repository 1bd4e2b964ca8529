// The pre-compiled constraint evaluator: compile once, then witness + sparse matrix-vector product must give
// exactly what full synthesis through ProvingAssignment gives (a, b, c, inputs, aux, densities), and the on-disk
// format must round-trip and reject damaged files with a message naming the damage.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cuzk/circuits/builtin.hpp"
#include "cuzk/groth16/prover.hpp"
#include "cuzk/groth16/setup.hpp"
#include "cuzk/groth16/verifier.hpp"
#include "cuzk/r1cs/pce.hpp"

using namespace cuzk;
using namespace cuzk::r1cs;
using cuzk::circuits::CubicCircuit;
using cuzk::circuits::MulChainCircuit;

namespace {

// Shapes the built-in circuits lack: a zero coefficient in A and B (must not mark density), an input used in B,
// an aux used only in C, the constant one in C, a general coefficient, and a combination longer than LC's inline
// capacity.
struct ShapesCircuit : CircuitImpl<ShapesCircuit> {
    template <class CS>
    void synthesize(CS& cs) const {
        auto x = cs.alloc("x", [] { return Fr::from_u64(3); });
        auto y = cs.alloc("y", [] { return Fr::from_u64(9); });
        auto only_c = cs.alloc("only_c", [] { return Fr::from_u64(7 * 3 * 27); });
        auto zero_coeff = cs.alloc("zero_coeff", [] { return Fr::from_u64(5); });
        auto in = cs.alloc_input("in", [] { return Fr::from_u64(27); });
        cs.enforce("x*x=y", LC(x).add(Fr::zero(), zero_coeff), LC(x).add(Fr::zero(), zero_coeff), LC(y));
        cs.enforce("7x * in = only_c", LC().add(Fr::from_u64(7), x), LC(in), LC(only_c));
        LC longer;
        for (int i = 0; i < 9; i++) longer.add(Fr::from_u64(i + 2), i % 2 ? x : y);
        // 30 y + 24 x = 342 = y - x + 336 (evaluate() refuses rows the witness does not satisfy).
        cs.enforce("long", longer, LC(Variable::one()), (LC(y) - x).add(Fr::from_u64(336), Variable::one()));
    }
};

// A constraint on an aux variable that was never allocated.
struct BadCircuit : CircuitImpl<BadCircuit> {
    template <class CS>
    void synthesize(CS& cs) const {
        auto x = cs.alloc("x", [] { return Fr::one(); });
        cs.enforce("uses aux 5", LC(x), LC(Variable::aux(5)), LC(x));
    }
};

void expect_same_as_full_synthesis(const Circuit& circuit, const PrecompiledR1cs& pce, const WitnessAssignment& w,
                                   ThreadPool& pool) {
    ProvingAssignment pa;
    synthesize_groth16(pa, circuit);
    std::vector<Fr> a, b, c;
    evaluate(pce, w.inputs(), w.aux(), a, b, c, pool);
    ASSERT_EQ(pce.num_constraints, pa.num_constraints());
    EXPECT_TRUE(w.inputs() == pa.inputs());
    EXPECT_TRUE(w.aux() == pa.aux());
    EXPECT_TRUE(a == pa.a());
    EXPECT_TRUE(b == pa.b());
    EXPECT_TRUE(c == pa.c());
    EXPECT_TRUE(pce.a_aux_density == pa.a_aux_density());
    EXPECT_TRUE(pce.b_input_density == pa.b_input_density());
    EXPECT_TRUE(pce.b_aux_density == pa.b_aux_density());
}

template <class C>
void check_circuit(const C& circuit, ThreadPool& pool) {
    PrecompiledR1cs pce = compile_r1cs(circuit);
    WitnessAssignment w;
    witness_groth16(w, circuit);
    ASSERT_EQ(w.inputs().size(), pce.num_inputs);
    ASSERT_EQ(w.aux().size(), pce.num_aux);
    expect_same_as_full_synthesis(circuit, pce, w, pool);
}

std::filesystem::path temp_file(const std::string& name) {
    return std::filesystem::temp_directory_path() /
           ("cuzk_pce_" + name + "_" + std::to_string(std::random_device{}()) + ".pce");
}

std::vector<char> slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void spill(const std::filesystem::path& p, const std::vector<char>& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), (std::streamsize)bytes.size());
}

// read_pce must throw std::runtime_error whose message contains `needle`.
void expect_rejected(const std::filesystem::path& p, const std::string& needle) {
    try {
        (void)read_pce(p);
        ADD_FAILURE() << "accepted a damaged file (expected: " << needle << ")";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

// Removes the file when the test ends, passing or not.
struct TempFile {
    std::filesystem::path path;
    explicit TempFile(const std::string& name) : path(temp_file(name)) {}
    ~TempFile() { std::filesystem::remove(path); }
};

}  // namespace

TEST(PceEquality, CubicMatchesFullSynthesis) {
    ThreadPool pool(2);
    check_circuit(CubicCircuit(Fr::from_u64(3)), pool);
    check_circuit(CubicCircuit(Fr::from_u64(0)), pool);  // zero witness values, density still from the matrices
}

TEST(PceEquality, ShapesMatchFullSynthesis) {
    ThreadPool pool(2);
    ShapesCircuit circuit;
    PrecompiledR1cs pce = compile_r1cs(circuit);
    // The zero-coefficient variable is in A and B but must not be marked; only_c is in C alone.
    EXPECT_FALSE(pce.a_aux_density.get(3));
    EXPECT_FALSE(pce.b_aux_density.get(3));
    EXPECT_FALSE(pce.a_aux_density.get(2));
    EXPECT_TRUE(pce.b_input_density.get(1));
    check_circuit(circuit, pool);
}

TEST(PceEquality, MulChainMatchesFullSynthesis) {
    ThreadPool pool(2);
    for (unsigned log : {4u, 10u, 16u})
        for (size_t publics : {size_t{1}, size_t{2}, size_t{5}}) {
            SCOPED_TRACE("log " + std::to_string(log) + ", publics " + std::to_string(publics));
            MulChainCircuit circuit(log, publics, 1000 + log * 10 + publics);
            check_circuit(circuit, pool);
        }
}

// assignment_from_pce packages witness + sparse product as the ProvingAssignment full synthesis builds, field by
// field; a circuit of another size is refused.
TEST(PceEquality, AssignmentFromPceEqualsSynthesizedAssignment) {
    ThreadPool pool(2);
    MulChainCircuit circuit(9, 3, 77);
    const PrecompiledR1cs pce = compile_r1cs(circuit);
    ProvingAssignment full;
    synthesize_groth16(full, circuit);
    ProvingAssignment fast = assignment_from_pce(pce, circuit, pool);
    EXPECT_TRUE(fast.inputs() == full.inputs());
    EXPECT_TRUE(fast.aux() == full.aux());
    EXPECT_TRUE(fast.a() == full.a());
    EXPECT_TRUE(fast.b() == full.b());
    EXPECT_TRUE(fast.c() == full.c());
    EXPECT_TRUE(fast.a_aux_density() == full.a_aux_density());
    EXPECT_TRUE(fast.b_input_density() == full.b_input_density());
    EXPECT_TRUE(fast.b_aux_density() == full.b_aux_density());
    MulChainCircuit bigger(10, 3, 77);
    EXPECT_THROW((void)assignment_from_pce(pce, bigger, pool), std::invalid_argument);
}

TEST(PceEquality, SameResultOnOneThreadAndManyChunks) {
    // The row split must not change the result: one thread versus a pool whose chunks cut rows unevenly.
    MulChainCircuit circuit(10, 3, 7);
    PrecompiledR1cs pce = compile_r1cs(circuit);
    WitnessAssignment w;
    witness_groth16(w, circuit);
    ThreadPool one(1), two(2);
    std::vector<Fr> a1, b1, c1, a2, b2, c2;
    evaluate(pce, w.inputs(), w.aux(), a1, b1, c1, one);
    evaluate(pce, w.inputs(), w.aux(), a2, b2, c2, two);
    EXPECT_TRUE(a1 == a2 && b1 == b2 && c1 == c2);
    // Every multiplication row satisfies a*b = c with this honest witness.
    for (size_t j = 0; j < pce.num_constraints; j++) EXPECT_EQ(a1[j] * b1[j], c1[j]) << "row " << j;
}

// Filecoin's PoRep partition (PCE == full synthesis on a real 2 KiB partition, at 1 and 4 threads) is checked in
// test_filecoin_porep_parallel.cpp.

TEST(PceEquality, WitnessForAnotherSeedDiffers) {
    // The compiled matrices carry no witness: evaluating a different witness gives different values.
    MulChainCircuit c1(4, 1, 1), c2(4, 1, 2);
    PrecompiledR1cs pce = compile_r1cs(MulChainCircuit(4, 1, std::nullopt));  // setup without a witness
    WitnessAssignment w1, w2;
    witness_groth16(w1, c1);
    witness_groth16(w2, c2);
    std::vector<Fr> a1, b1, cc1, a2, b2, cc2;
    evaluate(pce, w1.inputs(), w1.aux(), a1, b1, cc1);
    evaluate(pce, w2.inputs(), w2.aux(), a2, b2, cc2);
    EXPECT_FALSE(cc1 == cc2);
    ThreadPool pool(1);
    expect_same_as_full_synthesis(c2, pce, w2, pool);
}

TEST(PceEvaluate, SizeMismatchThrows) {
    MulChainCircuit circuit(4, 2, 3);
    PrecompiledR1cs pce = compile_r1cs(circuit);
    WitnessAssignment w;
    witness_groth16(w, circuit);
    std::vector<Fr> a, b, c;
    std::vector<Fr> inputs = w.inputs();
    AuxValues aux = w.aux();
    inputs.pop_back();
    EXPECT_THROW(evaluate(pce, inputs, w.aux(), a, b, c), std::invalid_argument);
    aux.push_back(Fr::one());
    EXPECT_THROW(evaluate(pce, w.inputs(), aux, a, b, c), std::invalid_argument);
    EXPECT_THROW(evaluate(pce, std::span<const Fr>{}, std::span<const Fr>{}, a, b, c), std::invalid_argument);
    EXPECT_NO_THROW(evaluate(pce, w.inputs(), w.aux(), a, b, c));
}

// A PCE whose rows were edited and whose checksum was recomputed passes read_pce (issue 20 item 7); evaluate()
// finds the first row the honest witness does not satisfy and refuses before any proving work. So does a
// witness that is not a solution of the (correct) rows.
TEST(PceEvaluate, RowsTheWitnessDoesNotSatisfyAreRefused) {
    const uint64_t seed = std::random_device{}();
    std::printf("seed %llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    MulChainCircuit circuit(8, 2, seed);
    PrecompiledR1cs pce = compile_r1cs(circuit);
    ThreadPool pool(2);
    EXPECT_NO_THROW((void)assignment_from_pce(pce, circuit, pool));

    // Point one C term of a row in the middle of the chain at another aux variable, as an edit would.
    const size_t row = pce.num_constraints / 4 + rng() % (pce.num_constraints / 2);
    ASSERT_LT(pce.c.row_start[row], pce.c.row_start[row + 1]);
    CompactTerm& t = pce.c.terms[pce.c.row_start[row]];
    ASSERT_FALSE(t.var.is_input());
    t.var = Variable::aux((t.var.index() + 1 + (uint32_t)(rng() % 7)) % (uint32_t)pce.num_aux);
    TempFile f("edited");
    write_pce(f.path, pce);  // the checksum is that of the edited rows
    const PrecompiledR1cs edited = read_pce(f.path);
    auto expect_refused_at = [&](auto&& run, size_t expected_row) {
        try {
            run();
            ADD_FAILURE() << "accepted, expected row " << expected_row << " to be refused";
        } catch (const SynthesisError& e) {
            EXPECT_EQ(e.kind(), SynthesisErrorKind::Unsatisfiable);
            EXPECT_NE(std::string(e.what()).find("constraint " + std::to_string(expected_row) + " of "),
                      std::string::npos)
                << e.what();
        }
    };
    expect_refused_at([&] { (void)assignment_from_pce(edited, circuit, pool); }, row);

    // The unedited rows with one aux value changed: the first row that uses it is refused.
    const PrecompiledR1cs honest = compile_r1cs(circuit);
    WitnessAssignment w;
    witness_groth16(w, circuit);
    AuxValues aux = w.aux();
    const uint32_t changed = (uint32_t)(rng() % aux.size());
    aux[changed] += Fr::one();
    size_t first_use = honest.num_constraints;
    for (const CompactMatrix* m : {&honest.a, &honest.b, &honest.c})
        for (size_t j = 0; j < honest.num_constraints && j < first_use; j++)
            for (uint64_t k = m->row_start[j]; k < m->row_start[j + 1]; k++)
                if (m->terms[k].var == Variable::aux(changed)) first_use = std::min(first_use, j);
    ASSERT_LT(first_use, honest.num_constraints);
    std::vector<Fr> a, b, c;
    expect_refused_at([&] { evaluate(honest, w.inputs(), aux, a, b, c, pool, true); }, first_use);
    EXPECT_NO_THROW(evaluate(honest, w.inputs(), aux, a, b, c, pool)) << "unchecked unless asked (a zkey's rows)";
}

TEST(PceCompile, UnallocatedVariableRejected) {
    EXPECT_THROW(compile_r1cs(BadCircuit{}), SynthesisError);
}

TEST(PceFormat, RoundTrip) {
    ThreadPool pool(2);
    ShapesCircuit shapes;
    MulChainCircuit chain(10, 5, 9);
    CubicCircuit cubic(Fr::from_u64(4));
    for (const Circuit* circuit : std::initializer_list<const Circuit*>{&shapes, &chain, &cubic}) {
        PrecompiledR1cs pce = compile_r1cs(*circuit);
        TempFile f("roundtrip");
        write_pce(f.path, pce);
        PrecompiledR1cs back = read_pce(f.path);
        EXPECT_TRUE(back == pce);
        EXPECT_EQ(back.num_constraints, pce.num_constraints);
        EXPECT_EQ(back.b_aux_density.count(), pce.b_aux_density.count());
    }
    // The read matrices evaluate like the compiled ones.
    PrecompiledR1cs pce = compile_r1cs(chain);
    TempFile f("roundtrip_eval");
    write_pce(f.path, pce);
    WitnessAssignment w;
    witness_groth16(w, chain);
    expect_same_as_full_synthesis(chain, read_pce(f.path), w, pool);
    // == itself must be able to fail: a changed coefficient makes the structures differ.
    PrecompiledR1cs other = pce;
    other.coeffs.push_back(Fr::from_u64(2));
    EXPECT_FALSE(other == pce) << "another table";
    other = pce;
    other.c.terms[3].var = Variable::aux(other.c.terms[3].var.index() ^ 1);
    EXPECT_FALSE(other == pce) << "another variable";
}

// The compact matrices hold exactly the terms setup's KeygenAssembly records: same variables, same coefficient
// values, the flagged ones at index 0; each distinct coefficient stored once.
TEST(PceCompile, CompactTermsAreKeygenTerms) {
    ShapesCircuit shapes;
    MulChainCircuit chain(8, 3, 2);
    for (const Circuit* circuit : std::initializer_list<const Circuit*>{&shapes, &chain}) {
        KeygenAssembly ka;
        synthesize_groth16(ka, *circuit);
        const PrecompiledR1cs pce = compile_r1cs(*circuit);
        ASSERT_FALSE(pce.coeffs.empty());
        EXPECT_TRUE(pce.coeffs[0].is_one());
        for (size_t i = 0; i < pce.coeffs.size(); i++)
            for (size_t j = i + 1; j < pce.coeffs.size(); j++) EXPECT_FALSE(pce.coeffs[i] == pce.coeffs[j]) << i << " " << j;
        const SparseMatrix* full[] = {&ka.a(), &ka.b(), &ka.c()};
        const CompactMatrix* compact[] = {&pce.a, &pce.b, &pce.c};
        for (int k = 0; k < 3; k++) {
            ASSERT_EQ(full[k]->row_start, compact[k]->row_start);
            ASSERT_EQ(full[k]->terms.size(), compact[k]->terms.size());
            for (size_t t = 0; t < full[k]->terms.size(); t++) {
                const Term& f = full[k]->terms[t];
                const CompactTerm& c = compact[k]->terms[t];
                EXPECT_TRUE(f.var == c.var);
                EXPECT_TRUE(pce.coeffs[c.coeff] == f.coeff);
                if (f.coeff_is_one) {
                    EXPECT_EQ(c.coeff, 0u);
                }
            }
        }
    }
}

// What write_pce refuses, and what read_pce refuses although the checksum is right (a faulty writer).
TEST(PceFormat, InconsistentTablesRefused) {
    PrecompiledR1cs pce = compile_r1cs(MulChainCircuit(6, 2, 1));
    TempFile f("tables");
    PrecompiledR1cs bad = pce;
    bad.coeffs[0] = Fr::from_u64(2);
    EXPECT_THROW(write_pce(f.path, bad), std::invalid_argument) << "the table must start with one";
    std::vector<Fr> a, b, c;
    EXPECT_THROW(evaluate(bad, std::vector<Fr>(pce.num_inputs), std::vector<Fr>(pce.num_aux), a, b, c),
                 std::invalid_argument);
    bad = pce;
    bad.b.terms[0].coeff = (uint32_t)bad.coeffs.size();
    write_pce(f.path, bad);
    expect_rejected(f.path, "coefficient index out of range");
    bad = pce;
    bad.coeffs.push_back(Fr::from_mont_limbs(Fr::P));
    write_pce(f.path, bad);
    expect_rejected(f.path, "coefficient not reduced");
}

// The circuit name travels with the file, and a reader that says which circuit it expects refuses another one
// (same sizes or not) with a message naming both.
TEST(PceFormat, CircuitNameRoundTripsAndForeignFilesAreRefused) {
    PrecompiledR1cs pce = compile_r1cs(MulChainCircuit(6, 2, 1));
    pce.circuit = "mulchain log_size=6 publics=2";
    TempFile f("named");
    write_pce(f.path, pce);
    PrecompiledR1cs back = read_pce(f.path, "mulchain log_size=6 publics=2");
    EXPECT_EQ(back.circuit, pce.circuit);
    EXPECT_TRUE(back == pce);
    EXPECT_EQ(read_pce(f.path).circuit, pce.circuit) << "no expectation: any name is accepted";
    try {
        (void)read_pce(f.path, "StackedDrg2KiBV1_1 partition");
        ADD_FAILURE() << "a file recorded for another circuit was accepted";
    } catch (const std::runtime_error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("mulchain log_size=6 publics=2"), std::string::npos) << msg;
        EXPECT_NE(msg.find("StackedDrg2KiBV1_1 partition"), std::string::npos) << msg;
    }
    PrecompiledR1cs renamed = pce;
    renamed.circuit = "cubic";
    EXPECT_FALSE(renamed == pce) << "the name is part of the structure's identity";
    renamed.circuit = std::string(kPceMaxCircuitName + 1, 'x');
    EXPECT_THROW(write_pce(f.path, renamed), std::invalid_argument);
}

class PceFormatDamage : public ::testing::Test {
protected:
    void SetUp() override {
        write_pce(file.path, compile_r1cs(MulChainCircuit(6, 2, 1)));
        good = slurp(file.path);
        ASSERT_GT(good.size(), 100u);
        ASSERT_NO_THROW((void)read_pce(file.path));
    }
    TempFile file{"damage"};
    std::vector<char> good;
};

TEST_F(PceFormatDamage, TruncatedRejected) {
    for (size_t keep : {good.size() - 1, good.size() / 2, size_t{40}, size_t{4}}) {
        spill(file.path, std::vector<char>(good.begin(), good.begin() + (std::ptrdiff_t)keep));
        expect_rejected(file.path, "truncated");
    }
    spill(file.path, {});
    expect_rejected(file.path, "truncated");
}

TEST_F(PceFormatDamage, TrailingBytesRejected) {
    std::vector<char> longer = good;
    longer.push_back(0);
    spill(file.path, longer);
    expect_rejected(file.path, "size mismatch");
}

TEST_F(PceFormatDamage, FlippedByteRejectedByChecksum) {
    // One byte in the term data, one in the density words, one in the stored digest itself.
    for (size_t pos : {good.size() / 2, good.size() - 40, good.size() - 1}) {
        std::vector<char> bad = good;
        bad[pos] ^= 0x10;
        spill(file.path, bad);
        expect_rejected(file.path, "checksum mismatch");
    }
}

TEST_F(PceFormatDamage, WrongMagicRejected) {
    std::vector<char> bad = good;
    bad[3] = 'X';
    spill(file.path, bad);
    expect_rejected(file.path, "wrong magic");
}

TEST_F(PceFormatDamage, WrongVersionRejected) {
    std::vector<char> bad = good;
    bad[8] = (char)(kPceVersion + 1);  // version u32 little-endian at offset 8
    spill(file.path, bad);
    expect_rejected(file.path, "unsupported version " + std::to_string(kPceVersion + 1));
    bad[8] = 1;  // a version-1 file (no circuit name) is refused by number too
    spill(file.path, bad);
    expect_rejected(file.path, "unsupported version 1");
}

TEST(PceFormat, MissingFileRejected) {
    EXPECT_ANY_THROW((void)read_pce(temp_file("does_not_exist")));
}

// The witness half alone (witness_assignment): a, b, c deferred to the matrices, then filled by complete_products
// exactly as assignment_from_pce fills them; the CPU prover takes a deferred assignment and makes the same proof as
// from the full one; and the prover's checks refuse a deferred assignment that does not fit its matrices.
TEST(PceDeferred, CompleteProductsGivesTheFullAssignmentAndTheSameProof) {
    ThreadPool pool(2);
    MulChainCircuit circuit(9, 3, 5);
    const PrecompiledR1cs pce = compile_r1cs(circuit);
    ProvingAssignment full = assignment_from_pce(pce, circuit, pool);
    ProvingAssignment w = witness_assignment(pce, circuit, pool);
    EXPECT_EQ(w.deferred_products(), &pce);
    EXPECT_TRUE(w.a().empty() && w.b().empty() && w.c().empty());
    EXPECT_TRUE(w.aux() == full.aux());
    EXPECT_TRUE(w.b_aux_density() == full.b_aux_density());
    ProvingAssignment done = witness_assignment(pce, circuit, pool);
    complete_products(done, pool);
    EXPECT_EQ(done.deferred_products(), nullptr);
    EXPECT_TRUE(done.a() == full.a() && done.b() == full.b() && done.c() == full.c());
    complete_products(done, pool);  // nothing deferred: unchanged
    EXPECT_TRUE(done.a() == full.a());

    const auto params = groth16::generate_parameters(MulChainCircuit(9, 3, std::nullopt),
                                                     groth16::ToxicWaste::from_seed(9));
    const std::vector<Fr> r{Fr::from_u64(11)}, s{Fr::from_u64(12)};
    std::vector<ProvingAssignment> a1, a2;
    a1.push_back(std::move(full));
    a2.push_back(std::move(w));
    const auto want = groth16::prove_from_assignments(params, a1, r, s);
    const auto got = groth16::prove_from_assignments(params, a2, r, s);
    EXPECT_TRUE(got == want) << "a deferred assignment proves differently";
    EXPECT_TRUE(groth16::verify_proof(groth16::prepare_verifying_key(params.vk), got[0], circuit.public_values()));

    // Deferred and given at once; deferred to matrices of another size; a witness that is not a solution.
    std::vector<ProvingAssignment> bad;
    bad.push_back(witness_assignment(pce, circuit, pool));
    bad[0].a().push_back(Fr::one());
    EXPECT_THROW((void)groth16::prove_from_assignments(params, bad, r, s), std::invalid_argument);
    const PrecompiledR1cs other = compile_r1cs(MulChainCircuit(8, 3, std::nullopt));
    bad[0] = witness_assignment(pce, circuit, pool);
    bad[0] = ProvingAssignment::deferred(bad[0].inputs(), bad[0].aux(), other, bad[0].a_aux_density(),
                                         bad[0].b_input_density(), bad[0].b_aux_density());
    EXPECT_THROW((void)groth16::prove_from_assignments(params, bad, r, s), std::invalid_argument);
    bad[0] = witness_assignment(pce, circuit, pool);
    AuxValues aux = bad[0].aux();
    aux.back() += Fr::one();
    bad[0] = ProvingAssignment::deferred(bad[0].inputs(), aux, pce, bad[0].a_aux_density(), bad[0].b_input_density(),
                                         bad[0].b_aux_density());
    EXPECT_THROW((void)groth16::prove_from_assignments(params, bad, r, s), SynthesisError);
}
