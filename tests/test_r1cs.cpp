// The constraint-system layer: linear combinations, the three systems, the Groth16 synthesis driver, and the
// built-in circuits.
#include <gtest/gtest.h>

#include <random>

#include "cuzk/circuits/builtin.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "seeded_rng.hpp"

using namespace cuzk;
using namespace cuzk::r1cs;
using cuzk::circuits::CubicCircuit;
using cuzk::circuits::MulChainCircuit;

namespace {
// A circuit with an aux variable that occurs only in C (its A and B bases are dropped by setup) and one that
// occurs only in B.
struct DensityCircuit : CircuitImpl<DensityCircuit> {
    template <class CS>
    void synthesize(CS& cs) const {
        auto x = cs.alloc("x", [] { return Fr::from_u64(3); });
        auto y = cs.alloc("y", [] { return Fr::from_u64(9); });
        auto z = cs.alloc("z", [] { return Fr::from_u64(27); });
        auto in = cs.alloc_input("in", [] { return Fr::from_u64(27); });
        cs.enforce("x*x=y", LC(x), LC(x), LC(y));           // x in A and B, y in C
        cs.enforce("1*y... ", LC(Variable::one()), LC(y) + LC(), LC(y));  // y in B
        cs.enforce("x*y=z", LC(x), LC(y), LC(z));           // z only in C
        cs.enforce("z=in", LC(z), LC(Variable::one()), LC(in));  // z in A
    }
};
}  // namespace

TEST(R1cs, LinearCombinationSpillsAndCopies) {
    auto rng = cuzk::testing::seeded_rng("R1cs.LinearCombinationSpillsAndCopies");
    std::vector<Fr> inputs{Fr::one()}, aux;
    LC lc;
    Fr expect = Fr::zero();
    for (uint32_t i = 0; i < 40; i++) {  // far past the inline capacity
        aux.push_back(Fr::random(rng));
        Fr c = Fr::random(rng);
        if (i % 3 == 0) {
            lc.add(Variable::aux(i));
            expect += aux[i];
        } else if (i % 3 == 1) {
            lc.add(c, Variable::aux(i));
            expect += c * aux[i];
        } else {
            lc.sub(Variable::aux(i));
            expect -= aux[i];
        }
        ASSERT_EQ(lc.evaluate(inputs, aux), expect) << "after " << i + 1 << " terms";
    }
    LC copy = lc;
    LC moved = std::move(copy);
    EXPECT_EQ(moved.size(), 40u);
    EXPECT_EQ(moved.evaluate(inputs, aux), expect);
    LC small = LC(Variable::one()) + Variable::aux(0);
    LC assigned;
    assigned = lc;
    assigned = small;  // shrinking assignment keeps the right terms
    EXPECT_EQ(assigned.evaluate(inputs, aux), Fr::one() + aux[0]);
    EXPECT_EQ((lc - lc).evaluate(inputs, aux), Fr::zero());
    Fr k = Fr::random(rng);
    EXPECT_EQ(LC().add(k, lc).evaluate(inputs, aux), k * expect);
    // coefficient 1 is flagged so evaluation skips the multiplication; other coefficients are not
    EXPECT_EQ(LC(Variable::aux(1)).terms()[0].coeff_is_one, 1u);
    EXPECT_EQ(LC().add(Fr::from_u64(2), Variable::aux(1)).terms()[0].coeff_is_one, 0u);
    EXPECT_EQ(LC().add(Fr::one(), Variable::aux(1)).terms()[0].coeff_is_one, 1u);
}

TEST(R1cs, ThreeSystemsAgreeOnTheCubic) {
    Fr x = Fr::from_u64(3);
    CubicCircuit c(x);
    TestConstraintSystem t;
    synthesize_groth16(t, c);
    EXPECT_TRUE(t.is_satisfied());
    EXPECT_EQ(t.num_inputs(), 2u);
    EXPECT_EQ(t.num_aux(), 3u);
    EXPECT_EQ(t.num_constraints(), 5u);  // 3 + one input constraint per input
    EXPECT_EQ(t.get("y").value(), Fr::from_u64(35));
    EXPECT_EQ(t.get("x^3").value(), Fr::from_u64(27));

    KeygenAssembly k;
    synthesize_groth16(k, c);
    EXPECT_EQ(k.num_inputs(), 2u);
    EXPECT_EQ(k.num_aux(), 3u);
    EXPECT_EQ(k.num_constraints(), 5u);
    // the last constraints are input_i * 0 = 0
    EXPECT_EQ(k.a().row(4).size(), 1u);
    EXPECT_EQ(k.a().row(4)[0].var, Variable::input(1));
    EXPECT_TRUE(k.b().row(4).empty() && k.c().row(4).empty());

    ProvingAssignment p;
    synthesize_groth16(p, c);
    ASSERT_EQ(p.num_constraints(), 5u);
    EXPECT_EQ(p.inputs(), t.inputs());
    EXPECT_EQ(p.aux(), t.aux());
    for (size_t j = 0; j < 5; j++) EXPECT_EQ(p.a()[j] * p.b()[j], p.c()[j]) << "constraint " << j;
}

TEST(R1cs, UnsatisfiedConstraintIsNamed) {
    CubicCircuit c(Fr::from_u64(3));
    TestConstraintSystem t;
    synthesize_groth16(t, c);
    t.set_aux(1, Fr::from_u64(10));  // x^2 := 10
    EXPECT_FALSE(t.is_satisfied());
    EXPECT_EQ(t.which_is_unsatisfied().value(), "x * x = x^2");
}

TEST(R1cs, NamespacesAndDuplicateNames) {
    TestConstraintSystem t;
    {
        Namespace ns(t, "outer");
        Namespace inner(t, [] { return std::string("inner"); });
        t.alloc("v", [] { return Fr::from_u64(7); });
    }
    EXPECT_EQ(t.get("outer/inner/v").value(), Fr::from_u64(7));
    EXPECT_FALSE(t.get("v").has_value());
    t.alloc("v", [] { return Fr::one(); });  // same leaf name outside the namespace: fine
    EXPECT_THROW(t.alloc("v", [] { return Fr::one(); }), SynthesisError);
    EXPECT_THROW(t.push_namespace("a/b"), SynthesisError);
    EXPECT_THROW(t.pop_namespace(), SynthesisError);
}

TEST(R1cs, MissingAssignmentIsTypedAndKeygenNeedsNoWitness) {
    CubicCircuit no_witness;
    KeygenAssembly k;
    EXPECT_NO_THROW(synthesize_groth16(k, no_witness));
    EXPECT_EQ(k.num_constraints(), 5u);
    ProvingAssignment p;
    try {
        synthesize_groth16(p, no_witness);
        FAIL() << "expected SynthesisError";
    } catch (const SynthesisError& e) {
        EXPECT_EQ(e.kind(), SynthesisErrorKind::AssignmentMissing);
        EXPECT_NE(std::string(e.what()).find("assignment missing"), std::string::npos);
    }
}

TEST(R1cs, UnallocatedVariableIsAnErrorNotARead) {
    ProvingAssignment p;
    p.alloc_input("one", [] { return Fr::one(); });
    EXPECT_THROW(p.enforce("bad", LC(Variable::aux(5)), LC(), LC()), SynthesisError);
    TestConstraintSystem t;
    EXPECT_THROW(t.enforce("bad", LC(), LC(Variable::input(9)), LC()), SynthesisError);
}

TEST(R1cs, DensityMatchesBellperson) {
    DensityCircuit c;
    ProvingAssignment p;
    synthesize_groth16(p, c);
    // aux: x=0, y=1, z=2. A: x (c0), one, x (c2), z (c3) -> x, z; B: x, y, y, one -> x, y.
    EXPECT_TRUE(p.a_aux_density().get(0));
    EXPECT_FALSE(p.a_aux_density().get(1));
    EXPECT_TRUE(p.a_aux_density().get(2));
    EXPECT_TRUE(p.b_aux_density().get(0));
    EXPECT_TRUE(p.b_aux_density().get(1));
    EXPECT_FALSE(p.b_aux_density().get(2));
    EXPECT_EQ(p.a_aux_density().count(), 2u);
    // B inputs: only the constant one occurs (in c1 and c3); `in` occurs only in C and its input constraint's A.
    EXPECT_TRUE(p.b_input_density().get(0));
    EXPECT_FALSE(p.b_input_density().get(1));
    EXPECT_EQ(p.b_input_density().size(), 2u);
}

TEST(R1cs, ZeroCoefficientsDoNotMarkDensity) {
    ProvingAssignment p;
    p.alloc_input("one", [] { return Fr::one(); });
    auto x = p.alloc("x", [] { return Fr::from_u64(2); });
    auto y = p.alloc("y", [] { return Fr::from_u64(3); });
    p.enforce("c", LC().add(Fr::zero(), x).add(y), LC().add(Fr::zero(), y), LC());
    EXPECT_FALSE(p.a_aux_density().get(0));
    EXPECT_TRUE(p.a_aux_density().get(1));
    EXPECT_FALSE(p.b_aux_density().get(1));
    EXPECT_EQ(p.a()[0], Fr::from_u64(3));
    EXPECT_EQ(p.b()[0], Fr::zero());
}

TEST(R1cs, ShapeHashPinsTheCircuit) {
    // Pinned value: computed by this implementation when the cubic circuit was written (2026-11-29). It changes
    // only if the cubic circuit's constraints, their order or the input-constraint convention change.
    CubicCircuit c(Fr::from_u64(3));
    TestConstraintSystem t;
    synthesize_groth16(t, c);
    EXPECT_EQ(t.shape_hash_hex(), "d8e89f9d2ecc9e7e17c4ad85bdeb2f7dcbab2a28f51c182fc20c87dda81c2605");
    // The shape does not depend on the witness ...
    CubicCircuit c2(Fr::from_u64(11));
    TestConstraintSystem t2;
    synthesize_groth16(t2, c2);
    EXPECT_EQ(t2.shape_hash(), t.shape_hash());
    // ... but does on the structure.
    MulChainCircuit m(4, 1, 1);
    TestConstraintSystem t3;
    synthesize_groth16(t3, m);
    EXPECT_NE(t3.shape_hash(), t.shape_hash());
}

TEST(R1cs, MulChainFillsItsDomain) {
    for (unsigned log : {2u, 5u, 10u}) {
        for (size_t pubs : {1u, 3u}) {
            if (log == 2 && pubs == 3) continue;
            MulChainCircuit m(log, pubs, 42 + log);
            TestConstraintSystem t;
            synthesize_groth16(t, m);
            EXPECT_TRUE(t.is_satisfied());
            EXPECT_EQ(t.num_constraints(), size_t{1} << log) << log;
            EXPECT_EQ(t.num_inputs(), pubs + 1);
            auto pub = m.public_values();
            ASSERT_EQ(pub.size(), pubs);
            for (size_t i = 0; i < pubs; i++) EXPECT_EQ(t.inputs()[i + 1], pub[i]);
            KeygenAssembly k;
            synthesize_groth16(k, MulChainCircuit(log, pubs, std::nullopt));
            EXPECT_EQ(k.num_constraints(), t.num_constraints());
        }
    }
    EXPECT_THROW(MulChainCircuit(1, 1, 1), std::invalid_argument);
    EXPECT_THROW(MulChainCircuit(2, 2, 1), std::invalid_argument);
}
