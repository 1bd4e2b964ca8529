// Groth16 on the CPU: setup against the definition of its queries, prove -> verify for batches, rejection of
// tampered proofs, wrong inputs and foreign keys (single and batch), H against schoolbook polynomial division, a
// pinned known-answer proof, size checks at the seam, and the timing / progress reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/ec/encoding.hpp"
#include "cuzk/groth16/prover.hpp"
#include "cuzk/groth16/setup.hpp"
#include "cuzk/groth16/verifier.hpp"
#include "cuzk/poly/domain.hpp"
#include "cuzk/poly/ntt.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "seeded_rng.hpp"

using namespace cuzk;
using namespace cuzk::groth16;
using cuzk::r1cs::CircuitImpl;
using cuzk::r1cs::LC;
using cuzk::r1cs::ProvingAssignment;
using cuzk::r1cs::SynthesisError;
using cuzk::r1cs::Variable;

namespace {

Fr fr(uint64_t v) { return Fr::from_u64(v); }
Fr cubic_output(const Fr& x) { return x * x * x + x + fr(5); }

// x^3 + x + 5 = y with y the one public input. Variants change the shape only (for the mismatch tests):
//   swap_third: the last constraint as 1 * (x^3 + x + 5) = y, so x^3 leaves A (a different a_aux_density);
//   extra_constraints: that many copies of x * x = x^2 (a larger domain once past a power of two);
//   extra_aux: one more aux variable, constrained by x * x = extra.
struct Cubic : CircuitImpl<Cubic> {
    Fr x;
    bool swap_third = false;
    int extra_constraints = 0;
    bool extra_aux = false;
    explicit Cubic(Fr x_) : x(x_) {}

    template <class CS>
    void synthesize(CS& cs) const {
        Variable vx = cs.alloc("x", [&] { return x; });
        Variable x2 = cs.alloc("x2", [&] { return x * x; });
        Variable x3 = cs.alloc("x3", [&] { return x * x * x; });
        Variable y = cs.alloc_input("y", [&] { return cubic_output(x); });
        cs.enforce("x*x", LC(vx), LC(vx), LC(x2));
        cs.enforce("x2*x", LC(x2), LC(vx), LC(x3));
        LC sum = LC(x3).add(vx).add(fr(5), Variable::one());
        if (swap_third) cs.enforce("y", LC(Variable::one()), sum, LC(y));
        else cs.enforce("y", sum, LC(Variable::one()), LC(y));
        for (int i = 0; i < extra_constraints; i++) cs.enforce("dup", LC(vx), LC(vx), LC(x2));
        if (extra_aux) {
            Variable e = cs.alloc("extra", [&] { return x * x; });
            cs.enforce("extra", LC(vx), LC(vx), LC(e));
        }
    }
};

// x^2 = y: another circuit with one public input (for the foreign-key test).
struct Square : CircuitImpl<Square> {
    Fr x;
    explicit Square(Fr x_) : x(x_) {}
    template <class CS>
    void synthesize(CS& cs) const {
        Variable vx = cs.alloc("x", [&] { return x; });
        Variable y = cs.alloc_input("y", [&] { return x * x; });
        cs.enforce("x*x", LC(vx), LC(vx), LC(y));
    }
};

// x_0 = w, x_i = x_{i-1} * (x_{i-1} + i); every (k / outputs)-th x_i is exposed as a public input.
struct Chain : CircuitImpl<Chain> {
    Fr w;
    size_t k, outputs;
    Chain(Fr w_, size_t k_, size_t outputs_) : w(w_), k(k_), outputs(outputs_) {}

    std::vector<Fr> values() const {
        std::vector<Fr> v{w};
        for (size_t i = 1; i <= k; i++) v.push_back(v[i - 1] * (v[i - 1] + fr(i)));
        return v;
    }
    size_t stride() const { return k / outputs; }
    std::vector<Fr> public_inputs() const {
        auto v = values();
        std::vector<Fr> out;
        for (size_t o = 1; o <= outputs; o++) out.push_back(v[o * stride()]);
        return out;
    }
    template <class CS>
    void synthesize(CS& cs) const {
        Fr cur = w;
        Variable prev = cs.alloc("x0", [&] { return cur; });
        for (size_t i = 1; i <= k; i++) {
            Fr next = cur * (cur + fr(i));
            Variable xi = cs.alloc("x", [&] { return next; });
            cs.enforce("step", LC(prev), LC(prev).add(fr(i), Variable::one()), LC(xi));
            if (i % stride() == 0 && i / stride() <= outputs) {
                Variable p = cs.alloc_input("out", [&] { return next; });
                cs.enforce("expose", LC(xi), LC(Variable::one()), LC(p));
            }
            prev = xi;
            cur = next;
        }
    }
};

// a * b = c and (a * 1) = e - c: c and e occur only in C, so setup drops their A and B points; a + b = out public.
struct COnly : CircuitImpl<COnly> {
    Fr a, b;
    COnly(Fr a_, Fr b_) : a(a_), b(b_) {}
    template <class CS>
    void synthesize(CS& cs) const {
        Variable va = cs.alloc("a", [&] { return a; });
        Variable vb = cs.alloc("b", [&] { return b; });
        Variable vc = cs.alloc("c", [&] { return a * b; });
        Variable ve = cs.alloc("e", [&] { return a * b + a; });
        Variable out = cs.alloc_input("out", [&] { return a + b; });
        cs.enforce("a*b=c", LC(va), LC(vb), LC(vc));
        cs.enforce("a*1=e-c", LC(va), LC(Variable::one()), LC(ve).sub(vc));
        cs.enforce("a+b=out", LC(va).add(vb), LC(Variable::one()), LC(out));
    }
};

// Bits (boolean constraints) packed 48 to a public input, and a run of zero-valued products: a witness almost
// entirely 0 and 1, the shape the MSM's 0/1 split is for.
struct Bits : CircuitImpl<Bits> {
    std::vector<uint64_t> words;  // 48 bits each
    explicit Bits(std::vector<uint64_t> w) : words(std::move(w)) {}
    std::vector<Fr> public_inputs() const {
        std::vector<Fr> out;
        for (uint64_t w : words) out.push_back(fr(w & ((uint64_t{1} << 48) - 1)));
        return out;
    }
    template <class CS>
    void synthesize(CS& cs) const {
        for (uint64_t w : words) {
            LC packed;
            Fr coeff = Fr::one();
            std::vector<Variable> bits;
            for (int i = 0; i < 48; i++) {
                uint64_t bit = (w >> i) & 1;
                Variable b = cs.alloc("bit", [&] { return fr(bit); });
                cs.enforce("boolean", LC(b), LC(Variable::one()).sub(b), LC());
                packed.add(coeff, b);
                coeff = coeff + coeff;
                bits.push_back(b);
            }
            Variable p = cs.alloc_input("packed", [&] { return fr(w & ((uint64_t{1} << 48) - 1)); });
            cs.enforce("pack", packed, LC(Variable::one()), LC(p));
            for (int i = 0; i + 1 < 48; i += 2) {  // products of bit pairs
                uint64_t v = ((w >> i) & 1) & ((w >> (i + 1)) & 1);
                Variable prod = cs.alloc("and", [&] { return fr(v); });
                cs.enforce("and", LC(bits[i]), LC(bits[i + 1]), LC(prod));
            }
        }
    }
};

std::vector<Proof> prove_seeded(const Parameters& params, const std::vector<const r1cs::Circuit*>& circuits,
                                uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Fr> r, s;
    for (size_t i = 0; i < circuits.size(); i++) {
        r.push_back(Fr::random(rng));
        s.push_back(Fr::random(rng));
    }
    return prove(params, circuits, r, s);
}

ProvingAssignment synthesize(const r1cs::Circuit& c) {
    ProvingAssignment asg;
    r1cs::synthesize_groth16(asg, c);
    return asg;
}

std::string hex(std::span<const uint8_t> bytes) {
    static const char* d = "0123456789abcdef";
    std::string s;
    for (uint8_t b : bytes) {
        s += d[b >> 4];
        s += d[b & 15];
    }
    return s;
}

// Proves each batch size 1..3 (distinct witnesses, the CSPRNG's r, s) and checks every proof singly and the batch.
template <class MakeCircuit, class Inputs>
void prove_verify_batches(const Parameters& params, MakeCircuit make, Inputs inputs_of) {
    auto pvk = prepare_verifying_key(params.vk);
    for (size_t batch = 1; batch <= 3; batch++) {
        std::vector<decltype(make(0))> circuits;
        std::vector<const r1cs::Circuit*> ptrs;
        std::vector<std::vector<Fr>> inputs;
        for (size_t i = 0; i < batch; i++) circuits.push_back(make(10 * batch + i));
        for (auto& c : circuits) {
            ptrs.push_back(&c);
            inputs.push_back(inputs_of(c));
        }
        auto proofs = prove(params, ptrs);
        ASSERT_EQ(proofs.size(), batch);
        for (size_t i = 0; i < batch; i++) EXPECT_TRUE(verify_proof(pvk, proofs[i], inputs[i])) << batch << " " << i;
        EXPECT_TRUE(verify_proofs_batch(pvk, proofs, inputs)) << batch;
    }
}

}  // namespace

// ---- setup ----------------------------------------------------------------------------------------------------

// Every query point against its definition, with u, v, w evaluated at tau through the Lagrange basis written as a
// product (L_j(tau) = prod_{m != j} (tau - w^m) / (w^j - w^m)), not through the inverse NTT setup uses.
TEST(Groth16Setup, QueriesMatchTheirDefinition) {
    COnly circuit(fr(3), fr(4));
    ToxicWaste tw = ToxicWaste::from_seed(7);
    Parameters p = generate_parameters(circuit, tw);

    r1cs::KeygenAssembly ka;
    r1cs::synthesize_groth16(ka, circuit);
    const size_t ni = ka.num_inputs(), na = ka.num_aux(), m = ka.num_constraints();
    auto domain = EvaluationDomain::for_size(m);
    const size_t n = domain.size();
    std::vector<Fr> lag(n);
    for (size_t j = 0; j < n; j++) {
        Fr num = Fr::one(), den = Fr::one();
        for (size_t k = 0; k < n; k++) {
            if (k == j) continue;
            num *= tw.tau - domain.element(k);
            den *= domain.element(j) - domain.element(k);
        }
        lag[j] = num * den.inverse().value();
    }
    auto column = [&](const r1cs::SparseMatrix& mat) {
        std::vector<Fr> out(ni + na, Fr::zero());
        for (size_t j = 0; j < mat.rows(); j++)
            for (const auto& t : mat.row(j)) out[(t.var.is_input() ? 0 : ni) + t.var.index()] += t.coeff * lag[j];
        return out;
    };
    auto u = column(ka.a()), v = column(ka.b()), w = column(ka.c());
    auto g1 = [](const Fr& x) { return G1Jacobian::generator().mul(x.to_canonical()).to_affine(); };
    auto g2 = [](const Fr& x) { return G2Jacobian::generator().mul(x.to_canonical()).to_affine(); };

    ASSERT_EQ(p.h.size(), n - 1);
    Fr zt = tw.tau.pow(limbs_t<1>{n}) - Fr::one();
    Fr delta_inv = tw.delta.inverse().value(), gamma_inv = tw.gamma.inverse().value();
    for (size_t i = 0; i < n - 1; i++) EXPECT_EQ(p.h[i], g1(tw.tau.pow(limbs_t<1>{i}) * zt * delta_inv)) << i;

    std::vector<G1Affine> a, b1;
    std::vector<G2Affine> b2;
    for (size_t i = 0; i < ni + na; i++) {
        if (!u[i].is_zero()) a.push_back(g1(u[i]));
        if (!v[i].is_zero()) {
            b1.push_back(g1(v[i]));
            b2.push_back(g2(v[i]));
        }
    }
    // c and e occur only in C: their A and B points are at infinity and dropped.
    EXPECT_EQ(a.size(), ni + 2);
    EXPECT_EQ(b1.size(), 2u);  // the constant one and b
    EXPECT_EQ(p.a, a);
    EXPECT_EQ(p.b_g1, b1);
    EXPECT_EQ(p.b_g2, b2);
    ASSERT_EQ(p.vk.ic.size(), ni);
    ASSERT_EQ(p.l.size(), na);
    for (size_t i = 0; i < ni; i++)
        EXPECT_EQ(p.vk.ic[i], g1((tw.beta * u[i] + tw.alpha * v[i] + w[i]) * gamma_inv)) << i;
    for (size_t j = 0; j < na; j++)
        EXPECT_EQ(p.l[j], g1((tw.beta * u[ni + j] + tw.alpha * v[ni + j] + w[ni + j]) * delta_inv)) << j;
    EXPECT_EQ(p.vk.alpha_g1, g1(tw.alpha));
    EXPECT_EQ(p.vk.beta_g1, g1(tw.beta));
    EXPECT_EQ(p.vk.beta_g2, g2(tw.beta));
    EXPECT_EQ(p.vk.gamma_g2, g2(tw.gamma));
    EXPECT_EQ(p.vk.delta_g1, g1(tw.delta));
    EXPECT_EQ(p.vk.delta_g2, g2(tw.delta));

    // The prover's density agrees with what setup kept.
    auto asg = synthesize(circuit);
    EXPECT_EQ(p.a.size(), asg.inputs().size() + asg.a_aux_density().count());
    EXPECT_EQ(p.b_g1.size(), asg.b_input_density().count() + asg.b_aux_density().count());
}

TEST(Groth16Setup, DeterministicForASeed) {
    Cubic c(fr(3));
    EXPECT_EQ(generate_parameters(c, ToxicWaste::from_seed(5)), generate_parameters(c, ToxicWaste::from_seed(5)));
    EXPECT_NE(generate_parameters(c, ToxicWaste::from_seed(5)).vk, generate_parameters(c, ToxicWaste::from_seed(6)).vk);
    ToxicWaste a = ToxicWaste::random(), b = ToxicWaste::random();
    EXPECT_NE(a.tau, b.tau);
    EXPECT_FALSE(a.delta.is_zero());
}

// Benchmark parameters (random points of a circuit's shape): the query sizes follow the assignment's counts and
// densities, and the counts-only form gives the same points.
TEST(Groth16Setup, BenchmarkParametersHaveTheCircuitsShape) {
    Bits c({0x00ff00f0f0f0ull, 0x123456789abcull});
    ProvingAssignment asg;
    r1cs::synthesize_groth16(asg, c);
    const Parameters p = benchmark_parameters(asg, 3);
    const size_t ni = asg.inputs().size(), na = asg.aux().size();
    EXPECT_EQ(p.a.size(), ni + asg.a_aux_density().count());
    EXPECT_EQ(p.b_g1.size(), asg.b_input_density().count() + asg.b_aux_density().count());
    EXPECT_EQ(p.b_g2.size(), p.b_g1.size());
    EXPECT_EQ(p.l.size(), na);
    EXPECT_EQ(p.vk.ic.size(), ni);
    EXPECT_EQ(p.h.size(), EvaluationDomain::for_size(asg.a().size()).size() - 1);
    QueryShape q;
    q.inputs = ni;
    q.aux = na;
    q.constraints = asg.a().size();
    q.a_aux = asg.a_aux_density().count();
    q.b = p.b_g1.size();
    EXPECT_EQ(benchmark_parameters(q, 3), p);
    EXPECT_NE(benchmark_parameters(q, 4).vk, p.vk);
    q.a_aux = na + 1;
    EXPECT_THROW(benchmark_parameters(q, 3), std::invalid_argument);
    q.a_aux = 0;
    q.inputs = 0;
    EXPECT_THROW(benchmark_parameters(q, 3), std::invalid_argument);
}

TEST(Groth16Setup, RejectsDegenerateToxicWaste) {
    Cubic c(fr(3));
    for (int which = 0; which < 5; which++) {
        ToxicWaste tw = ToxicWaste::from_seed(1);
        Fr* f[] = {&tw.tau, &tw.alpha, &tw.beta, &tw.gamma, &tw.delta};
        *f[which] = Fr::zero();
        EXPECT_THROW(generate_parameters(c, tw), std::invalid_argument) << which;
    }
    // Cubic has 5 constraints (3 + 2 input constraints): domain 8. tau = w^3 or 1 makes Z(tau) = 0.
    auto domain = EvaluationDomain::for_size(5);
    for (Fr tau : {domain.element(3), Fr::one()}) {
        ToxicWaste tw = ToxicWaste::from_seed(1);
        tw.tau = tau;
        try {
            generate_parameters(c, tw);
            ADD_FAILURE() << "tau in the domain accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("Z(tau)"), std::string::npos) << e.what();
        }
    }
}

namespace {
// Aux 1 occurs in no constraint (bellman: UnconstrainedVariable).
struct Loose : CircuitImpl<Loose> {
    template <class CS>
    void synthesize(CS& cs) const {
        Variable x = cs.alloc("x", [] { return fr(2); });
        cs.alloc("never used", [] { return fr(1); });
        cs.enforce("x*x", LC(x), LC(x), LC(x));
    }
};
}  // namespace

TEST(Groth16Setup, RejectsUnconstrainedVariable) {
    try {
        generate_parameters(Loose{}, ToxicWaste::from_seed(1));
        ADD_FAILURE() << "unconstrained aux accepted";
    } catch (const SynthesisError& e) {
        EXPECT_NE(std::string(e.what()).find("aux 1"), std::string::npos) << e.what();
    }
}

TEST(Groth16Setup, ReportsProgressAndTiming) {
    Chain c(fr(2), 300, 3);
    std::map<std::string, std::vector<std::pair<size_t, size_t>>> calls;
    TimingSink sink;
    generate_parameters(c, ToxicWaste::from_seed(2), &sink,
                        [&](const char* stage, size_t done, size_t total) { calls[stage].push_back({done, total}); });
    for (const char* stage : {"powers_of_tau", "evaluate", "h", "a", "b_g1", "b_g2", "ic", "l", "vk"}) {
        auto it = calls.find(stage);
        ASSERT_NE(it, calls.end()) << stage;
        const auto& v = it->second;
        EXPECT_EQ(v.front().first, 0u) << stage;
        EXPECT_EQ(v.back().first, v.back().second) << stage;
        for (size_t i = 1; i < v.size(); i++) EXPECT_LE(v[i - 1].first, v[i].first) << stage;
    }
    EXPECT_EQ(calls["h"].back().second, 511u);  // 300 steps + 3 exposures + 4 input constraints -> domain 512
    for (const char* name : {"setup.synthesis", "setup.powers_of_tau", "setup.evaluate", "setup.tables", "setup.h",
                             "setup.a", "setup.b_g1", "setup.b_g2", "setup.ic", "setup.l", "setup.vk"})
        EXPECT_GT(sink.total(TimingLayer::Prover, name), 0.0) << name;
}

// ---- prove and verify -----------------------------------------------------------------------------------------

TEST(Groth16, CubicProvesAndVerifiesInBatches) {
    Parameters p = generate_parameters(Cubic(fr(0)), ToxicWaste::from_seed(11));
    prove_verify_batches(
        p, [](size_t i) { return Cubic(fr(i + 2)); },
        [](const Cubic& c) { return std::vector<Fr>{cubic_output(c.x)}; });
}

TEST(Groth16, ChainWithSeveralInputsProvesAndVerifiesInBatches) {
    Chain shape(fr(0), 1500, 5);
    Parameters p = generate_parameters(shape, ToxicWaste::from_seed(12));
    EXPECT_EQ(p.vk.ic.size(), 6u);
    EXPECT_EQ(p.h.size(), 2047u);  // 1500 + 5 + 6 constraints -> 2048
    prove_verify_batches(
        p, [](size_t i) { return Chain(fr(i + 3), 1500, 5); }, [](const Chain& c) { return c.public_inputs(); });
}

TEST(Groth16, VariablesOnlyInCProveAndVerify) {
    Parameters p = generate_parameters(COnly(fr(0), fr(0)), ToxicWaste::from_seed(13));
    prove_verify_batches(
        p, [](size_t i) { return COnly(fr(i + 1), fr(2 * i + 7)); },
        [](const COnly& c) { return std::vector<Fr>{c.a + c.b}; });
}

TEST(Groth16, ZeroAndOneHeavyWitnessProvesAndVerifies) {
    Parameters p = generate_parameters(Bits({0, 0, 0}), ToxicWaste::from_seed(14));
    prove_verify_batches(
        p,
        [](size_t i) {
            return Bits({0x123456789abcULL * (i + 1), 0, (uint64_t{1} << 48) - 1 - i});  // all-zero and all-one words
        },
        [](const Bits& c) { return c.public_inputs(); });
}

TEST(Groth16, ZeroRandomnessStillGivesAValidProof) {
    Parameters p = generate_parameters(Cubic(fr(0)), ToxicWaste::from_seed(15));
    auto pvk = prepare_verifying_key(p.vk);
    Cubic c(fr(9));
    const r1cs::Circuit* ptr = &c;
    std::vector<Fr> zero{Fr::zero()};
    auto proofs = prove(p, std::span(&ptr, 1), zero, zero);
    EXPECT_TRUE(verify_proof(pvk, proofs[0], std::vector<Fr>{cubic_output(c.x)}));
    // With r = s = 0 the proof is a function of the witness alone: the same twice, different from r = 1.
    EXPECT_EQ(proofs[0], prove(p, std::span(&ptr, 1), zero, zero)[0]);
    std::vector<Fr> one{Fr::one()};
    auto p1 = prove(p, std::span(&ptr, 1), one, zero)[0];
    EXPECT_NE(proofs[0].a, p1.a);
    EXPECT_TRUE(verify_proof(pvk, p1, std::vector<Fr>{cubic_output(c.x)}));
}

TEST(Groth16, SeamAndSynthesizingEntryAgree) {
    Parameters p = generate_parameters(Chain(fr(0), 200, 2), ToxicWaste::from_seed(16));
    Chain c1(fr(5), 200, 2), c2(fr(6), 200, 2);
    std::vector<const r1cs::Circuit*> ptrs{&c1, &c2};
    std::vector<Fr> r{fr(101), fr(102)}, s{fr(201), fr(202)};
    auto via_circuits = prove(p, ptrs, r, s);
    std::vector<ProvingAssignment> asg;
    asg.push_back(synthesize(c1));
    asg.push_back(synthesize(c2));
    auto via_seam = prove_from_assignments(p, asg, r, s);
    EXPECT_EQ(via_circuits, via_seam);
    // The seam consumed a, b, c (released as soon as H was computed) and left the assignment's values alone.
    EXPECT_TRUE(asg[0].a().empty() && asg[0].b().empty() && asg[0].c().empty());
    EXPECT_EQ(asg[1].inputs().size(), 3u);
}

// The proof for fixed toxic waste, witness and r, s is pinned: a refactor of setup, the NTTs, the MSMs or the
// assembly that changes the group elements fails here. Produced by the first run of this test (the code of commit
// 476c7b3): generate_parameters(Cubic(0), ToxicWaste::from_seed(42)), prove Cubic(x = 3) with r = 11, s = 13, and
// the zcash compressed encodings (cuzk/ec/encoding.hpp) of A (G1), B (G2), C (G1) in hex. The proof verifies. Not
// checked against bellman itself (no Rust crates reachable from the build machine); QueriesMatchTheirDefinition and
// the verifier tests are what tie the values to the Groth16 definitions.
TEST(Groth16, KnownAnswerProof) {
    Parameters p = generate_parameters(Cubic(fr(0)), ToxicWaste::from_seed(42));
    Cubic c(fr(3));
    const r1cs::Circuit* ptr = &c;
    std::vector<Fr> r{fr(11)}, s{fr(13)};
    Proof proof = prove(p, std::span(&ptr, 1), r, s)[0];
    EXPECT_EQ(proof, prove(p, std::span(&ptr, 1), r, s)[0]);  // deterministic
    EXPECT_TRUE(verify_proof(prepare_verifying_key(p.vk), proof, std::vector<Fr>{fr(35)}));
    EXPECT_EQ(hex(g1_to_compressed(proof.a)),
              "b92c4aa16a7c92cad99d5e1d6f7792e9e128340d64a1cbe2a92a0755393f5eeac3c770e3f3a09436399960f1ae3c724d");
    EXPECT_EQ(hex(g2_to_compressed(proof.b)),
              "817381f437e90c0102c774116e02071ce1386f6a25fe9624a97f97389efabb0cfac0234379a3df4255514525df2bed71"
              "167c23b358cf66ce36c029c6fc7e54d5bd7d6c1d352a3ffb66315fb6dc7025a8572c51c0880a564ca29dc6d0deef39af");
    EXPECT_EQ(hex(g1_to_compressed(proof.c)),
              "a81f27528575e12bded7e8556093757b350e8586380a6d08468cc45af535b589aa839d194dcbaf88fdc440a8445d11da");
}

// ---- rejection --------------------------------------------------------------------------------------------------

TEST(Groth16, RejectsTamperedProofsWrongInputsAndForeignKeys) {
    Parameters p = generate_parameters(Cubic(fr(0)), ToxicWaste::from_seed(17));
    auto pvk = prepare_verifying_key(p.vk);
    Cubic c0(fr(3)), c1(fr(4)), c2(fr(5));
    std::vector<const r1cs::Circuit*> ptrs{&c0, &c1, &c2};
    auto proofs = prove_seeded(p, ptrs, 99);
    std::vector<std::vector<Fr>> inputs{{cubic_output(c0.x)}, {cubic_output(c1.x)}, {cubic_output(c2.x)}};
    ASSERT_TRUE(verify_proofs_batch(pvk, proofs, inputs));

    auto rejected = [&](const Proof& bad, const std::vector<Fr>& in, const PreparedVerifyingKey& key) {
        bool single = verify_proof(key, bad, in);
        // The bad proof in the middle of a batch of otherwise valid proofs.
        std::vector<Proof> batch{proofs[0], bad, proofs[2]};
        std::vector<std::vector<Fr>> batch_in{inputs[0], in, inputs[2]};
        bool batched = verify_proofs_batch(key, batch, batch_in);
        return !single && !batched;
    };
    const G1Affine g1 = G1Affine::generator();
    const G2Affine g2 = G2Affine::generator();
    Proof t = proofs[1];
    t.a = proofs[0].a;
    EXPECT_TRUE(rejected(t, inputs[1], pvk)) << "A from another proof";
    t = proofs[1];
    t.a = g1;
    EXPECT_TRUE(rejected(t, inputs[1], pvk)) << "A = generator";
    t = proofs[1];
    t.b = proofs[0].b;
    EXPECT_TRUE(rejected(t, inputs[1], pvk)) << "B from another proof";
    t = proofs[1];
    t.b = g2;
    EXPECT_TRUE(rejected(t, inputs[1], pvk)) << "B = generator";
    t = proofs[1];
    t.c = proofs[0].c;
    EXPECT_TRUE(rejected(t, inputs[1], pvk)) << "C from another proof";
    t = proofs[1];
    t.c = (G1Jacobian::from_affine(t.c) + G1Jacobian::generator()).to_affine();
    EXPECT_TRUE(rejected(t, inputs[1], pvk)) << "C + G";
    // Points off the curve make the proof invalid, not the verifier throw.
    t = proofs[1];
    t.a.y += Fq::one();
    EXPECT_TRUE(rejected(t, inputs[1], pvk)) << "A off the curve";

    EXPECT_TRUE(rejected(proofs[1], {inputs[1][0] + Fr::one()}, pvk)) << "wrong public input";
    EXPECT_TRUE(rejected(proofs[1], inputs[0], pvk)) << "another proof's public input";

    // The same circuit under other toxic waste, and another circuit with one public input.
    auto other_setup = prepare_verifying_key(generate_parameters(Cubic(fr(0)), ToxicWaste::from_seed(18)).vk);
    auto other_circuit = prepare_verifying_key(generate_parameters(Square(fr(0)), ToxicWaste::from_seed(17)).vk);
    for (const auto* key : {&other_setup, &other_circuit}) {
        EXPECT_FALSE(verify_proof(*key, proofs[1], inputs[1]));
        EXPECT_FALSE(verify_proofs_batch(*key, proofs, inputs));
    }
}

TEST(Groth16, RejectsProofPointOutsideTheSubgroup) {
    Parameters p = generate_parameters(Cubic(fr(0)), ToxicWaste::from_seed(19));
    auto pvk = prepare_verifying_key(p.vk);
    Cubic c(fr(3));
    const r1cs::Circuit* ptr = &c;
    Proof proof = prove_seeded(p, {ptr}, 1)[0];
    // A point of E(Fq) with a small x: on the curve, outside the order-r subgroup (cofactor ~2^126).
    G1Affine q;
    for (uint64_t x = 1;; x++) {
        Fq fx = Fq::from_u64(x);
        if (auto y = (fx.square() * fx + Fq::from_u64(4)).sqrt()) {
            q = G1Affine::from_xy(fx, *y);
            break;
        }
    }
    ASSERT_TRUE(q.is_on_curve());
    proof.c = q;
    EXPECT_FALSE(verify_proof(pvk, proof, std::vector<Fr>{fr(35)}));
}

// ---- H ----------------------------------------------------------------------------------------------------------

namespace {
using Poly = std::vector<Fr>;
Poly poly_mul(const Poly& a, const Poly& b) {
    Poly r(a.size() + b.size() - 1, Fr::zero());
    for (size_t i = 0; i < a.size(); i++)
        for (size_t j = 0; j < b.size(); j++) r[i + j] += a[i] * b[j];
    return r;
}
// The polynomial of degree < n through (w^j, values[j]) by Lagrange's formula with explicit products.
Poly interpolate(const EvaluationDomain& d, const std::vector<Fr>& values) {
    const size_t n = d.size();
    Poly out(n, Fr::zero());
    for (size_t j = 0; j < n; j++) {
        Poly basis{Fr::one()};
        Fr den = Fr::one();
        for (size_t k = 0; k < n; k++) {
            if (k == j) continue;
            basis = poly_mul(basis, {-d.element(k), Fr::one()});
            den *= d.element(j) - d.element(k);
        }
        Fr scale = values[j] * den.inverse().value();
        for (size_t i = 0; i < n; i++) out[i] += basis[i] * scale;
    }
    return out;
}
// (A B - C) / (X^n - 1) by long division: returns the quotient, and the remainder through `rem`.
Poly divide_by_vanishing(Poly p, size_t n, Poly& rem) {
    Poly q(p.size() > n ? p.size() - n : 0, Fr::zero());
    for (size_t k = p.size(); k-- > n;) {  // x^k = x^(k-n) (x^n - 1) + x^(k-n)
        q[k - n] += p[k];
        p[k - n] += p[k];
        p[k] = Fr::zero();
    }
    rem.assign(p.begin(), p.begin() + (ptrdiff_t)n);
    return q;
}
}  // namespace

// compute_h leaves C off the coset (H = (coset_intt(A*B on the coset) - C) / Z(g)); bellman's order of steps, all
// seven transforms, must give the same field elements for any a, b, c, satisfied or not, and for short inputs.
TEST(Groth16, HEqualsBellmansSevenTransforms) {
    auto rng = cuzk::testing::seeded_rng("Groth16.HEqualsBellmansSevenTransforms");
    for (unsigned log_n : {1u, 2u, 5u, 10u}) {
        const auto d = EvaluationDomain::from_log_size(log_n);
        const size_t n = d.size();
        for (size_t m : {n, n / 2 + 1}) {
            std::vector<Fr> a(m), b(m), c(m);
            for (size_t i = 0; i < m; i++) a[i] = Fr::random(rng), b[i] = Fr::random(rng), c[i] = Fr::random(rng);
            const std::vector<Fr> h = compute_h(d, a, b, c);
            a.resize(n), b.resize(n), c.resize(n);
            for (auto* v : {&a, &b, &c}) {
                intt(d, *v);
                coset_ntt(d, *v);
            }
            const Fr z_inv = d.z_on_coset().inverse().value();
            for (size_t i = 0; i < n; i++) a[i] = (a[i] * b[i] - c[i]) * z_inv;
            coset_intt(d, a);
            a.resize(n - 1);
            EXPECT_EQ(h, a) << "2^" << log_n << ", " << m << " rows";
        }
    }
}

TEST(Groth16, HMatchesSchoolbookDivision) {
    for (bool satisfied : {true, false}) {
        auto asg = synthesize(Cubic(fr(6)));
        auto d = EvaluationDomain::for_size(asg.num_constraints());
        const size_t n = d.size();
        ASSERT_EQ(n, 8u);
        std::vector<Fr> a = asg.a(), b = asg.b(), c = asg.c();
        if (!satisfied) c[1] += Fr::one();
        auto h = compute_h(d, a, b, c);
        a.resize(n);
        b.resize(n);
        c.resize(n);
        Poly ab = poly_mul(interpolate(d, a), interpolate(d, b));
        Poly cp = interpolate(d, c);
        for (size_t i = 0; i < n; i++) ab[i] -= cp[i];
        Poly rem;
        Poly q = divide_by_vanishing(ab, n, rem);
        ASSERT_EQ(q.size(), n - 1);
        bool rem_zero = std::all_of(rem.begin(), rem.end(), [](const Fr& x) { return x.is_zero(); });
        EXPECT_EQ(rem_zero, satisfied);
        if (satisfied) EXPECT_EQ(h, q);
        else EXPECT_NE(h, q);  // the coset division does not see the remainder; the proof would not verify
    }
    EXPECT_THROW(compute_h(EvaluationDomain::for_size(4), std::vector<Fr>(5), std::vector<Fr>(5), std::vector<Fr>(5)),
                 std::invalid_argument);
    EXPECT_THROW(compute_h(EvaluationDomain::for_size(4), std::vector<Fr>(3), std::vector<Fr>(2), std::vector<Fr>(3)),
                 std::invalid_argument);
}

// ---- sizes ------------------------------------------------------------------------------------------------------

namespace {
// Runs the seam on one assignment and returns the invalid_argument message ("" when it did not throw).
std::string seam_error(const Parameters& p, ProvingAssignment asg) {
    std::vector<ProvingAssignment> v;
    v.push_back(std::move(asg));
    std::vector<Fr> r{Fr::one()}, s{Fr::one()};
    try {
        prove_from_assignments(p, v, r, s);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}
bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST(Groth16, SizeMismatchesThrowWithAMessage) {
    Parameters p = generate_parameters(Cubic(fr(0)), ToxicWaste::from_seed(20));
    Cubic ok(fr(3));
    EXPECT_EQ(seam_error(p, synthesize(ok)), "");

    EXPECT_TRUE(contains(seam_error(p, synthesize(Chain(fr(1), 20, 2))), "IC points"));
    Cubic more_aux(fr(3));
    more_aux.extra_aux = true;
    EXPECT_TRUE(contains(seam_error(p, synthesize(more_aux)), "L query"));
    Cubic swapped(fr(3));
    swapped.swap_third = true;
    EXPECT_TRUE(contains(seam_error(p, synthesize(swapped)), "a_aux_density"));
    Cubic bigger(fr(3));
    bigger.extra_constraints = 4;  // 9 constraints: domain 16
    EXPECT_TRUE(contains(seam_error(p, synthesize(bigger)), "H query"));
    auto uneven = synthesize(ok);
    uneven.c().push_back(Fr::zero());
    EXPECT_TRUE(contains(seam_error(p, std::move(uneven)), "a, b, c"));

    // B query lengths (a key whose B_G2 lost a point).
    Parameters short_b = p;
    short_b.b_g2.pop_back();
    EXPECT_TRUE(contains(seam_error(short_b, synthesize(ok)), "B_G2"));
    // delta at infinity (a subverted key).
    Parameters bad_delta = p;
    bad_delta.vk.delta_g1 = G1Affine::identity();
    EXPECT_TRUE(contains(seam_error(bad_delta, synthesize(ok)), "delta"));

    // r / s counts, null circuits; a bad assignment anywhere in a batch stops the batch before any work.
    const r1cs::Circuit* ptr = &ok;
    std::vector<Fr> two{Fr::one(), Fr::one()}, one{Fr::one()};
    EXPECT_THROW(prove(p, std::span(&ptr, 1), two, one), std::invalid_argument);
    const r1cs::Circuit* null = nullptr;
    EXPECT_THROW(prove(p, std::span(&null, 1)), std::invalid_argument);
    std::vector<ProvingAssignment> batch;
    batch.push_back(synthesize(ok));
    batch.push_back(synthesize(swapped));
    EXPECT_THROW(prove_from_assignments(p, batch, two, two), std::invalid_argument);
    EXPECT_EQ(batch[0].a().size(), 5u);  // not consumed

    // The verifier: input counts.
    auto pvk = prepare_verifying_key(p.vk);
    Proof proof = prove_seeded(p, {ptr}, 3)[0];
    EXPECT_THROW(verify_proof(pvk, proof, std::vector<Fr>{}), std::invalid_argument);
    EXPECT_THROW(verify_proof(pvk, proof, std::vector<Fr>{fr(35), fr(1)}), std::invalid_argument);
    std::vector<Proof> proofs{proof, proof};
    std::vector<std::vector<Fr>> one_vec{{fr(35)}};
    EXPECT_THROW(verify_proofs_batch(pvk, proofs, one_vec), std::invalid_argument);
    std::vector<std::vector<Fr>> bad_len{{fr(35)}, {}};
    EXPECT_THROW(verify_proofs_batch(pvk, proofs, bad_len), std::invalid_argument);
    EXPECT_TRUE(verify_proofs_batch(pvk, std::span<const Proof>(), std::span<const std::vector<Fr>>()));
    VerifyingKey no_ic = p.vk;
    no_ic.ic.clear();
    EXPECT_THROW(prepare_verifying_key(no_ic), std::invalid_argument);
}

// ---- timing -----------------------------------------------------------------------------------------------------

TEST(Groth16, TimingSinkReceivesEveryStage) {
    Parameters p = generate_parameters(Chain(fr(0), 100, 2), ToxicWaste::from_seed(21));
    Chain c1(fr(1), 100, 2), c2(fr(2), 100, 2);
    std::vector<const r1cs::Circuit*> ptrs{&c1, &c2};
    TimingSink sink;
    auto proofs = prove(p, ptrs, &sink);
    auto pvk = prepare_verifying_key(p.vk);
    EXPECT_TRUE(verify_proof(pvk, proofs[0], c1.public_inputs(), &sink));

    std::set<std::pair<std::string, int64_t>> seen;
    for (const auto& span : sink.spans()) {
        if (span.layer == TimingLayer::Prover) seen.insert({span.name, span.item});
        EXPECT_GE(span.duration_s, 0.0);
    }
    for (const char* name : {"synthesis", "ntt.intt", "ntt.coset", "ntt.h", "msm.h", "msm.split", "msm.a", "msm.b_g1",
                             "msm.b_g2", "msm.l", "assembly"})
        for (int64_t item : {0, 1}) EXPECT_TRUE(seen.count({name, item})) << name << " " << item;
    EXPECT_TRUE(seen.count({"prove", -1}));
    EXPECT_GT(sink.total(TimingLayer::Pipeline, "verify"), 0.0);
}
