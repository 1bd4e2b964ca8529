// bellpepper's Boolean / AllocatedBit / AllocatedNum gadgets, bellperson's multipack and rust-fil-proofs' UInt64
// (src/cuzk/gadgets/): values against native code, the rows' shapes where bellpepper's choice of formulation is
// what a Filecoin parameter file pins (which operand is doubled in xor, which of and / and_not / nor, A vs B), the
// counts of bellpepper's tests, and the same shape through the key generator, the prover and the witness system.
#include <gtest/gtest.h>

#include <random>

#include "r1cs_checks.hpp"
#include "seeded_rng.hpp"
#include "cuzk/gadgets/boolean.hpp"
#include "cuzk/gadgets/multipack.hpp"
#include "cuzk/gadgets/num.hpp"
#include "cuzk/gadgets/uint64.hpp"
#include "cuzk/r1cs/keygen_assembly.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/r1cs/test_cs.hpp"
#include "cuzk/r1cs/witness_assignment.hpp"

using namespace cuzk;
using namespace cuzk::gadgets;
using r1cs::KeygenAssembly;
using r1cs::ProvingAssignment;
using r1cs::TestConstraintSystem;
using r1cs::WitnessAssignment;

namespace {
using cuzk::testing::seeded_rng;
using cuzk::testing::test_seed;

size_t index_of(const TestConstraintSystem& cs, const std::string& name) {
    auto it = std::find(cs.aux_names().begin(), cs.aux_names().end(), name);
    if (it == cs.aux_names().end()) throw std::runtime_error("no variable " + name);
    return it - cs.aux_names().begin();
}
void set(TestConstraintSystem& cs, const std::string& name, const Fr& v) { cs.set_aux(index_of(cs, name), v); }
Fr get(const TestConstraintSystem& cs, const std::string& name) { return cs.aux()[index_of(cs, name)]; }
Fr fr_bit(bool b) { return b ? Fr::one() : Fr::zero(); }

// The combination as per-variable sums (a row counts by those, whatever the order or repetition of its terms).
std::map<uint32_t, Fr> sums(const LC& lc) {
    std::map<uint32_t, Fr> m;
    for (const auto& t : lc.terms()) m[t.var.raw()] += t.coeff;
    for (auto it = m.begin(); it != m.end();) it = it->second.is_zero() ? m.erase(it) : std::next(it);
    return m;
}
std::map<uint32_t, Fr> sums(std::initializer_list<std::pair<Variable, Fr>> terms) {
    LC lc;
    for (auto& [v, c] : terms) lc.add(c, v);
    return sums(lc);
}
const Fr kOne = Fr::one();
const Fr kMinusOne = -Fr::one();
const Fr kTwo = Fr::from_u64(2);
const Variable ONE = Variable::one();

// Operand kinds of bellpepper's boolean tests.
enum class Op { True, False, AllocTrue, AllocFalse, NegAllocTrue, NegAllocFalse };
constexpr Op kOps[] = {Op::True, Op::False, Op::AllocTrue, Op::AllocFalse, Op::NegAllocTrue, Op::NegAllocFalse};
bool op_value(Op o) { return o == Op::True || o == Op::AllocTrue || o == Op::NegAllocFalse; }
bool op_constant(Op o) { return o == Op::True || o == Op::False; }
Boolean make(TestConstraintSystem& cs, const char* name, Op o) {
    switch (o) {
        case Op::True: return Boolean::constant(true);
        case Op::False: return Boolean::constant(false);
        case Op::AllocTrue: return AllocatedBit::alloc(cs, name, true);
        case Op::AllocFalse: return AllocatedBit::alloc(cs, name, false);
        case Op::NegAllocTrue: return Boolean(AllocatedBit::alloc(cs, name, true)).not_();
        case Op::NegAllocFalse: return Boolean(AllocatedBit::alloc(cs, name, false)).not_();
    }
    return {};
}

// Keygen rows term for term equal to the test system's.
template <class F>
void expect_three_systems_agree(F&& circuit) {
    TestConstraintSystem tcs;
    circuit(tcs, true);
    ASSERT_TRUE(tcs.is_satisfied()) << *tcs.which_is_unsatisfied();

    KeygenAssembly kg;
    kg.alloc_input("one", [] { return Fr::one(); });
    circuit(kg, false);
    EXPECT_EQ(kg.num_constraints(), tcs.num_constraints());
    EXPECT_EQ(kg.num_aux(), tcs.num_aux());
    EXPECT_EQ(kg.num_inputs(), tcs.num_inputs());
    EXPECT_EQ(cuzk::testing::rows_differing(kg, tcs), 0u);

    ProvingAssignment pa;
    pa.alloc_input("one", [] { return Fr::one(); });
    circuit(pa, true);
    ASSERT_EQ(pa.num_constraints(), tcs.num_constraints());
    EXPECT_EQ(pa.aux(), tcs.aux());
    EXPECT_EQ(pa.inputs(), tcs.inputs());
    EXPECT_EQ(cuzk::testing::unsatisfied_rows(pa), 0u);

    WitnessAssignment wa;
    wa.alloc_input("one", [] { return Fr::one(); });
    circuit(wa, true);
    EXPECT_EQ(wa.aux(), tcs.aux());
    EXPECT_EQ(wa.inputs(), tcs.inputs());
}
}  // namespace

// ---- AllocatedBit ------------------------------------------------------------------------------------------------

TEST(GadgetsBoolean, AllocatedBitIsConstrained) {
    // bellpepper test_allocated_bit.
    TestConstraintSystem cs;
    AllocatedBit::alloc(cs, "b", true);
    EXPECT_EQ(get(cs, "b/boolean"), Fr::one());
    EXPECT_TRUE(cs.is_satisfied());
    set(cs, "b/boolean", Fr::zero());
    EXPECT_TRUE(cs.is_satisfied());
    set(cs, "b/boolean", Fr::from_u64(2));
    EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("b/boolean constraint"));
    // (1 - b) * b = 0
    const auto& row = cs.constraints().at(0);
    Variable b = Variable::aux(0);
    EXPECT_EQ(sums(row.a), sums({{ONE, kOne}, {b, kMinusOne}}));
    EXPECT_EQ(sums(row.b), sums({{b, kOne}}));
    EXPECT_TRUE(row.c.empty());
}

TEST(GadgetsBoolean, AllocatedBitOperatorsTruthTablesAndRows) {
    // bellpepper test_xor / test_and / test_and_not / test_nor: the value, the row, and a flipped result caught.
    for (int va = 0; va < 2; va++)
        for (int vb = 0; vb < 2; vb++)
            for (int op = 0; op < 4; op++) {
                TestConstraintSystem cs;
                AllocatedBit a = AllocatedBit::alloc(cs, "a", va), b = AllocatedBit::alloc(cs, "b", vb);
                AllocatedBit c;
                bool expect = false;
                std::string result, row_name;
                switch (op) {
                    case 0:
                        c = AllocatedBit::xor_(cs, "op", a, b), expect = va != vb, result = "xor result",
                        row_name = "xor constraint";
                        break;
                    case 1:
                        c = AllocatedBit::and_(cs, "op", a, b), expect = va && vb, result = "and result",
                        row_name = "and constraint";
                        break;
                    case 2:
                        c = AllocatedBit::and_not(cs, "op", a, b), expect = va && !vb, result = "and not result",
                        row_name = "and not constraint";
                        break;
                    case 3:
                        c = AllocatedBit::nor(cs, "op", a, b), expect = !va && !vb, result = "nor result",
                        row_name = "nor constraint";
                        break;
                }
                ASSERT_EQ(c.value(), std::optional<bool>(expect));
                EXPECT_TRUE(cs.is_satisfied());
                EXPECT_EQ(cs.num_constraints(), 3u);
                EXPECT_EQ(get(cs, "op/" + result), fr_bit(expect));
                const auto& row = cs.constraints().back();
                EXPECT_EQ(row.name, "op/" + row_name);
                Variable x = a.variable(), y = b.variable(), z = c.variable();
                switch (op) {
                    case 0:  // (a + a) * b = a + b - c
                        EXPECT_EQ(sums(row.a), sums({{x, kTwo}}));
                        EXPECT_EQ(sums(row.b), sums({{y, kOne}}));
                        EXPECT_EQ(sums(row.c), sums({{x, kOne}, {y, kOne}, {z, kMinusOne}}));
                        break;
                    case 1:
                        EXPECT_EQ(sums(row.a), sums({{x, kOne}}));
                        EXPECT_EQ(sums(row.b), sums({{y, kOne}}));
                        break;
                    case 2:
                        EXPECT_EQ(sums(row.a), sums({{x, kOne}}));
                        EXPECT_EQ(sums(row.b), sums({{ONE, kOne}, {y, kMinusOne}}));
                        break;
                    case 3:
                        EXPECT_EQ(sums(row.a), sums({{ONE, kOne}, {x, kMinusOne}}));
                        EXPECT_EQ(sums(row.b), sums({{ONE, kOne}, {y, kMinusOne}}));
                        break;
                }
                if (op) {
                    EXPECT_EQ(sums(row.c), sums({{z, kOne}}));
                }
                set(cs, "op/" + result, fr_bit(!expect));
                EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("op/" + row_name));
            }
}

TEST(GadgetsBoolean, AllocConditionally) {
    // bellpepper test_alloc_conditionally.
    {
        TestConstraintSystem cs;
        AllocatedBit b = AllocatedBit::alloc(cs, "b", false);
        EXPECT_THROW(AllocatedBit::alloc_conditionally(cs, "c", std::nullopt, b), r1cs::SynthesisError);
    }
    for (int must_be_false = 0; must_be_false < 2; must_be_false++)
        for (int value = 0; value < 2; value++) {
            TestConstraintSystem cs;
            AllocatedBit b = AllocatedBit::alloc(cs, "b", must_be_false);
            AllocatedBit c = AllocatedBit::alloc_conditionally(cs, "c", value, b);
            EXPECT_EQ(c.value(), std::optional<bool>(value));
            EXPECT_EQ(cs.is_satisfied(), !(must_be_false && value)) << must_be_false << value;
            if (must_be_false && value) {
                EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("c/boolean constraint"));
            }
        }
}

// ---- Boolean -----------------------------------------------------------------------------------------------------

TEST(GadgetsBoolean, Negation) {
    TestConstraintSystem cs;
    Boolean b = AllocatedBit::alloc(cs, "b", true);
    EXPECT_EQ(b.kind(), Boolean::Kind::Is);
    EXPECT_EQ(b.not_().kind(), Boolean::Kind::Not);
    EXPECT_EQ(b.not_().not_().kind(), Boolean::Kind::Is);
    EXPECT_EQ(b.not_().value(), std::optional<bool>(false));
    EXPECT_TRUE(Boolean::constant(true).not_().is_constant(false));
    EXPECT_TRUE(Boolean::constant(true).not_().not_().is_constant(true));
    EXPECT_TRUE(Boolean().is_constant(false));
    // lc: Not is ONE - b; constants are a term on ONE or nothing.
    EXPECT_EQ(sums(b.not_().lc(Fr::from_u64(7))),
              sums({{ONE, Fr::from_u64(7)}, {b.bit().variable(), -Fr::from_u64(7)}}));
    EXPECT_EQ(sums(Boolean::constant(true).lc(Fr::from_u64(5))), sums({{ONE, Fr::from_u64(5)}}));
    EXPECT_TRUE(Boolean::constant(false).lc().empty());
}

TEST(GadgetsBoolean, XorAndOrFoldAndPickBellpeppersRows) {
    // bellpepper test_boolean_xor / _and / _or over all operand kinds: the value, satisfaction, and the row —
    // none when a constant decides, else exactly the AllocatedBit operation bellpepper picks, operands in its order.
    for (Op oa : kOps)
        for (Op ob : kOps)
            for (int op = 0; op < 3; op++) {
                TestConstraintSystem cs;
                Boolean a = make(cs, "a", oa), b = make(cs, "b", ob);
                const size_t before = cs.num_constraints();
                Boolean r = op == 0   ? Boolean::xor_(cs, "op", a, b)
                            : op == 1 ? Boolean::and_(cs, "op", a, b)
                                      : Boolean::or_(cs, "op", a, b);
                const bool va = op_value(oa), vb = op_value(ob);
                const bool expect = op == 0 ? va != vb : op == 1 ? va && vb : va || vb;
                ASSERT_EQ(r.value(), std::optional<bool>(expect)) << op << " " << (int)oa << " " << (int)ob;
                ASSERT_TRUE(cs.is_satisfied());
                const bool folds = op_constant(oa) || op_constant(ob);
                ASSERT_EQ(cs.num_constraints() - before, folds ? 0u : 1u);
                if (folds) continue;
                const auto& row = cs.constraints().back();
                const bool na = a.kind() == Boolean::Kind::Not, nb = b.kind() == Boolean::Kind::Not;
                Variable x = a.bit().variable(), y = b.bit().variable();
                if (op == 0) {
                    // xor: the Is operand is doubled when the kinds differ; otherwise the first.
                    Variable doubled = (na != nb && na) ? y : x;
                    EXPECT_EQ(row.name, "op/xor constraint");
                    EXPECT_EQ(sums(row.a), sums({{doubled, kTwo}}));
                    EXPECT_EQ(r.kind(), na != nb ? Boolean::Kind::Not : Boolean::Kind::Is);
                } else {
                    // and: (Is, Is) and, (Not, Not) nor, mixed and_not with the Is operand first. or = NOT(and of
                    // the negations), in "op/not and (not a) (not b)".
                    const bool n1 = op == 1 ? na : !na, n2 = op == 1 ? nb : !nb;
                    const std::string ns = op == 1 ? "op/" : "op/not and (not a) (not b)/";
                    if (!n1 && !n2) {
                        EXPECT_EQ(row.name, ns + "and constraint");
                    } else if (n1 && n2) {
                        EXPECT_EQ(row.name, ns + "nor constraint");
                    } else {
                        EXPECT_EQ(row.name, ns + "and not constraint");
                        EXPECT_EQ(sums(row.a), sums({{n1 ? y : x, kOne}}));
                    }
                    EXPECT_EQ(r.kind(), op == 1 ? Boolean::Kind::Is : Boolean::Kind::Not);
                }
            }
}

TEST(GadgetsBoolean, EnforceEqual) {
    // bellpepper test_enforce_equal: every mix of allocated, negated and constant operands.
    for (int av = 0; av < 2; av++)
        for (int bv = 0; bv < 2; bv++)
            for (int an = 0; an < 2; an++)
                for (int bn = 0; bn < 2; bn++)
                    for (int kinds = 0; kinds < 4; kinds++) {
                        TestConstraintSystem cs;
                        Boolean a = kinds & 1 ? Boolean::constant(av) : Boolean(AllocatedBit::alloc(cs, "a", av));
                        Boolean b = kinds & 2 ? Boolean::constant(bv) : Boolean(AllocatedBit::alloc(cs, "b", bv));
                        if (an) a = a.not_();
                        if (bn) b = b.not_();
                        const bool equal = (av ^ an) == (bv ^ bn);
                        if (kinds == 3) {
                            if (equal) {
                                EXPECT_NO_THROW(Boolean::enforce_equal(cs, "eq", a, b));
                                EXPECT_EQ(cs.num_constraints(), 0u);
                            } else {
                                EXPECT_THROW(Boolean::enforce_equal(cs, "eq", a, b), r1cs::SynthesisError);
                            }
                            continue;
                        }
                        Boolean::enforce_equal(cs, "eq", a, b);
                        EXPECT_EQ(cs.is_satisfied(), equal);
                        const auto& row = cs.constraints().back();
                        EXPECT_TRUE(row.a.empty() && row.b.empty());  // 0 * 0 = C
                        const char* expect_name = kinds == 0 ? "eq/enforce equal"
                                                  : ((kinds == 1 ? a : b).value() == std::optional<bool>(true))
                                                      ? "eq/enforce equal to one"
                                                      : "eq/enforce equal to zero";
                        EXPECT_EQ(row.name, expect_name);
                    }
}

TEST(GadgetsBoolean, Sha256ChAndMaj) {
    // bellpepper test_boolean_sha256_ch / _maj over all 216 operand kinds: value, satisfaction, no row for all
    // constants; for three allocated operands the fresh "ch" / "maj" (allocated before maj's "b and c"), whose flip
    // is caught by "ch computation" / "maj computation", and the rows' shape.
    for (Op oa : kOps)
        for (Op ob : kOps)
            for (Op oc : kOps)
                for (int which = 0; which < 2; which++) {
                    TestConstraintSystem cs;
                    Boolean a = make(cs, "a", oa), b = make(cs, "b", ob), c = make(cs, "c", oc);
                    const bool va = op_value(oa), vb = op_value(ob), vc = op_value(oc);
                    const bool expect =
                        which == 0 ? ((va && vb) != (!va && vc)) : ((va && vb) != (va && vc)) != (vb && vc);
                    const size_t before = cs.num_constraints(), aux_before = cs.num_aux();
                    Boolean r =
                        which == 0 ? Boolean::sha256_ch(cs, "f", a, b, c) : Boolean::sha256_maj(cs, "f", a, b, c);
                    ASSERT_EQ(r.value(), std::optional<bool>(expect));
                    ASSERT_TRUE(cs.is_satisfied());
                    const int constants = op_constant(oa) + op_constant(ob) + op_constant(oc);
                    const size_t rows = cs.num_constraints() - before;
                    if (constants == 3) {
                        EXPECT_EQ(rows, 0u);
                    }
                    if (constants == 0) {
                        EXPECT_EQ(rows, which == 0 ? 1u : 2u);
                        const std::string v = which == 0 ? "f/ch" : "f/maj";
                        EXPECT_EQ(cs.aux_names()[aux_before], v);  // the result comes first
                        EXPECT_EQ(get(cs, v), fr_bit(expect));
                        const auto& row = cs.constraints().back();
                        // ch: (b - c) * a = ch - c;  maj: (2bc - b - c) * a = bc - maj
                        EXPECT_EQ(sums(row.b), sums(a.lc()));
                        if (which == 0) {
                            LC bc = b.lc();
                            bc.sub(c.lc());
                            EXPECT_EQ(sums(row.a), sums(bc));
                        }
                        set(cs, v, fr_bit(!expect));
                        EXPECT_EQ(cs.which_is_unsatisfied(),
                                  std::optional<std::string>(which == 0 ? "f/ch computation" : "f/maj computation"));
                    }
                }
    // Folding cases bellpepper spells out: ch with a constant true runs the general row; maj with one constant
    // is one AND; ch with a constant false `a` is `c` itself.
    {
        TestConstraintSystem cs;
        Boolean b = AllocatedBit::alloc(cs, "b", true), c = AllocatedBit::alloc(cs, "c", false);
        Boolean r = Boolean::sha256_ch(cs, "f", Boolean::constant(true), b, c);
        EXPECT_EQ(cs.constraints().back().name, "f/ch computation");
        EXPECT_EQ(r.value(), std::optional<bool>(true));
        Boolean m = Boolean::sha256_maj(cs, "g", Boolean::constant(true), b, c);
        EXPECT_EQ(cs.constraints().back().name, "g/nor constraint");  // NOT(NOT b AND NOT c)
        EXPECT_EQ(m.kind(), Boolean::Kind::Not);
        Boolean k = Boolean::sha256_ch(cs, "h", Boolean::constant(false), b, c);
        EXPECT_EQ(k.bit().variable(), c.bit().variable());
        EXPECT_TRUE(cs.is_satisfied());
    }
}

TEST(GadgetsBoolean, FieldAndU64IntoBits) {
    // bellpepper test_field_into_allocated_bits_le and test_u64_into_boolean_vec_le.
    TestConstraintSystem cs;
    auto r = Fr::from_decimal("9147677615426976802526883532204139322118074541891858454835346926874644257775");
    ASSERT_TRUE(r);
    auto bits = field_into_allocated_bits_le(cs, "f", *r);
    ASSERT_EQ(bits.size(), 255u);
    EXPECT_TRUE(cs.is_satisfied());
    for (auto [i, v] :
         {std::pair{0, false}, {1, false}, {2, true}, {3, false}, {4, true}, {5, false}, {20, true}, {23, true}})
        EXPECT_EQ(bits[254 - i].value(), std::optional<bool>(v)) << i;
    auto u = u64_into_boolean_vec_le(cs, "u", 17234652694787248421ull);
    ASSERT_EQ(u.size(), 64u);
    for (auto [i, v] : {std::pair{0, true},
                        {1, true},
                        {2, true},
                        {3, false},
                        {4, true},
                        {5, true},
                        {20, true},
                        {21, false},
                        {22, false}})
        EXPECT_EQ(u[63 - i].value(), std::optional<bool>(v)) << i;
    EXPECT_EQ(cs.num_constraints(), 255u + 64u);
}

// ---- AllocatedNum ------------------------------------------------------------------------------------------------

TEST(GadgetsNum, ToBitsLeIs256RowsAndCaught) {
    // bellpepper test_into_bits: 255 bits + the unpacking row 0 * 0 = sum 2^i b_i - x; every flipped bit and a
    // changed x break it.
    auto rng = seeded_rng("GadgetsNum.ToBitsLeIs256RowsAndCaught");
    for (int t = 0; t < 20; t++) {
        Fr x = t == 0 ? -Fr::one() : t == 1 ? Fr::zero() : Fr::random(rng);
        TestConstraintSystem cs;
        AllocatedNum n = AllocatedNum::alloc(cs, "num", x);
        auto bits = n.to_bits_le(cs, "bits");
        ASSERT_EQ(bits.size(), 255u);
        EXPECT_EQ(cs.num_constraints(), 256u);
        EXPECT_EQ(cs.num_aux(), 256u);
        ASSERT_TRUE(cs.is_satisfied());
        auto canon = x.to_canonical();
        for (size_t i = 0; i < 255; i++) {
            ASSERT_EQ(bits[i].kind(), Boolean::Kind::Is);
            EXPECT_EQ(bits[i].value(), std::optional<bool>((canon[i / 64] >> (i % 64)) & 1));
        }
        const auto& row = cs.constraints().back();
        EXPECT_EQ(row.name, "bits/unpacking constraint");
        EXPECT_TRUE(row.a.empty() && row.b.empty());
        EXPECT_EQ(row.c.size(), 256u);
        set(cs, "num", Fr::random(rng));
        EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("bits/unpacking constraint"));
        set(cs, "num", x);
        for (size_t i = 0; i < 255; i += 17) {
            const std::string nm = "bits/bit " + std::to_string(i) + "/boolean";
            Fr cur = get(cs, nm);
            set(cs, nm, Fr::one() - cur);
            EXPECT_FALSE(cs.is_satisfied());
            set(cs, nm, cur);
        }
        EXPECT_TRUE(cs.is_satisfied());
    }
}

TEST(GadgetsNum, ToBitsLeStrict) {
    // bellpepper test_into_bits_strict and test_into_bits (strict half).
    auto rng = seeded_rng("GadgetsNum.ToBitsLeStrict");
    {
        TestConstraintSystem cs;
        AllocatedNum n = AllocatedNum::alloc(cs, "num", -Fr::one());
        n.to_bits_le_strict(cs, "s");
        ASSERT_TRUE(cs.is_satisfied());
        set(cs, "s/bit 254/boolean", Fr::one());  // the bits now spell r itself
        EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("s/bit 254/boolean constraint"));
    }
    for (int t = 0; t < 10; t++) {
        Fr x = Fr::random(rng);
        TestConstraintSystem cs;
        AllocatedNum n = AllocatedNum::alloc(cs, "num", x);
        auto bits = n.to_bits_le_strict(cs, "s");
        ASSERT_EQ(bits.size(), 255u);
        ASSERT_TRUE(cs.is_satisfied());
        auto canon = x.to_canonical();
        for (size_t i = 0; i < 255; i++)
            EXPECT_EQ(bits[i].value(), std::optional<bool>((canon[i / 64] >> (i % 64)) & 1));
        set(cs, "num", Fr::random(rng));
        EXPECT_FALSE(cs.is_satisfied());
    }
}

TEST(GadgetsNum, InputizeAddMulSquareNonzeroReverse) {
    auto rng = seeded_rng("GadgetsNum.InputizeAddMulSquareNonzeroReverse");
    Fr x = Fr::random(rng), y = Fr::random(rng);
    TestConstraintSystem cs;
    AllocatedNum a = AllocatedNum::alloc(cs, "a", x), b = AllocatedNum::alloc(cs, "b", y);

    AllocatedNum in = a.inputize(cs, "a_input");
    EXPECT_EQ(cs.num_inputs(), 2u);
    EXPECT_EQ(cs.inputs()[1], x);
    const auto& row = cs.constraints().back();  // input * ONE = x
    EXPECT_EQ(row.name, "a_input/enforce input is correct");
    EXPECT_EQ(sums(row.a), sums({{in.variable(), kOne}}));
    EXPECT_EQ(sums(row.b), sums({{ONE, kOne}}));
    EXPECT_EQ(sums(row.c), sums({{a.variable(), kOne}}));

    EXPECT_EQ(a.add(cs, "add", b).value(), std::optional<Fr>(x + y));
    EXPECT_EQ(a.mul(cs, "mul", b).value(), std::optional<Fr>(x * y));
    EXPECT_EQ(a.square(cs, "sq").value(), std::optional<Fr>(x.square()));
    a.assert_nonzero(cs, "nz");
    EXPECT_EQ(cs.num_constraints(), 5u);
    ASSERT_TRUE(cs.is_satisfied());
    set(cs, "nz/ephemeral inverse", Fr::from_u64(3));
    EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("nz/nonzero assertion constraint"));
    set(cs, "nz/ephemeral inverse", x.inverse_or_zero());
    set(cs, "mul/product num", x);
    EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("mul/multiplication constraint"));
    set(cs, "mul/product num", x * y);

    AllocatedNum zero = AllocatedNum::alloc(cs, "zero", Fr::zero());
    try {
        zero.assert_nonzero(cs, "nz0");
        ADD_FAILURE() << "assert_nonzero(0) must fail";
    } catch (const r1cs::SynthesisError& e) {
        EXPECT_EQ(e.kind(), r1cs::SynthesisErrorKind::DivisionByZero);
    }

    // bellpepper test_num_conditional_reversal, with constant and allocated conditions.
    for (int k = 0; k < 4; k++) {
        TestConstraintSystem c2;
        AllocatedNum p = AllocatedNum::alloc(c2, "p", x), q = AllocatedNum::alloc(c2, "q", y);
        Boolean cond = k < 2 ? Boolean::constant(k) : Boolean(AllocatedBit::alloc(c2, "cond", k == 3));
        auto [c, d] = AllocatedNum::conditionally_reverse(c2, "rev", p, q, cond);
        const bool swap = k == 1 || k == 3;
        EXPECT_EQ(c.value(), std::optional<Fr>(swap ? y : x));
        EXPECT_EQ(d.value(), std::optional<Fr>(swap ? x : y));
        EXPECT_EQ(c2.num_constraints(), (k < 2 ? 0u : 1u) + 2u);  // allocates even for a constant condition
        ASSERT_TRUE(c2.is_satisfied());
        set(c2, "rev/conditional reversal result 2/num", Fr::random(rng));
        EXPECT_EQ(c2.which_is_unsatisfied(), std::optional<std::string>("rev/second conditional reversal"));
    }
}

TEST(GadgetsNum, FilecoinConstraintHelpers) {
    // storage-proofs-core gadgets/constraint.rs add_constraint / sub_constraint, and encode / decode.
    auto rng = seeded_rng("GadgetsNum.FilecoinConstraintHelpers");
    for (int t = 0; t < 10; t++) {
        Fr x = Fr::random(rng), y = Fr::random(rng);
        TestConstraintSystem cs;
        AllocatedNum a = AllocatedNum::alloc(cs, "a", x), b = AllocatedNum::alloc(cs, "b", y);
        AllocatedNum s = constraint::add(cs, "a+b", a, b);
        AllocatedNum d = constraint::sub(cs, "a-b", a, b);
        EXPECT_EQ(s.value(), std::optional<Fr>(x + y));
        EXPECT_EQ(d.value(), std::optional<Fr>(x - y));
        AllocatedNum e = constraint::encode(cs, "encode_node", a, b);
        AllocatedNum back = constraint::decode(cs, "decode_node", a, e);
        EXPECT_EQ(back.value(), std::optional<Fr>(y));
        constraint::equal(cs, "back is b", back, b);
        EXPECT_EQ(cs.num_constraints(), 5u);
        ASSERT_TRUE(cs.is_satisfied());
        EXPECT_EQ(cs.aux_names()[2], "a+b/add_num/num");
        set(cs, "encode_node/encode_add/add_num/num", x);
        EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("encode_node/encode_add/sum constraint"));
    }
}

// ---- multipack, bit order, UInt64 --------------------------------------------------------------------------------

TEST(GadgetsMultipack, PackIntoInputsMatchesComputeMultipacking) {
    // bellperson test_multipacking, on a sample of its sizes (0..1500 bits) around the 254-bit chunk boundaries.
    auto rng = seeded_rng("GadgetsMultipack.PackIntoInputsMatchesComputeMultipacking");
    for (size_t n : {0u, 1u, 7u, 253u, 254u, 255u, 508u, 509u, 1000u, 1499u}) {
        TestConstraintSystem cs;
        std::vector<bool> bits(n);
        std::vector<Boolean> circuit_bits;
        for (size_t i = 0; i < n; i++) {
            bits[i] = rng() & 1;
            // Mix in constants and negations: they fold into the packing rows.
            if (i % 5 == 3)
                circuit_bits.push_back(Boolean::constant(bits[i]));
            else if (i % 5 == 4)
                circuit_bits.push_back(Boolean(AllocatedBit::alloc(
                                                   cs, [i] { return "bit " + std::to_string(i); }, !bits[i]))
                                           .not_());
            else
                circuit_bits.push_back(AllocatedBit::alloc(
                    cs, [i] { return "bit " + std::to_string(i); }, bits[i]));
        }
        const size_t rows_before = cs.num_constraints();
        auto inputs = pack_into_inputs(cs, "pack", circuit_bits);
        ASSERT_TRUE(cs.is_satisfied());
        auto expected = compute_multipacking(bits);
        EXPECT_EQ(inputs.size(), (n + 253) / 254);
        EXPECT_EQ(cs.num_constraints() - rows_before, expected.size());
        ASSERT_EQ(cs.num_inputs(), 1 + expected.size());
        for (size_t i = 0; i < expected.size(); i++) EXPECT_EQ(cs.inputs()[1 + i], expected[i]) << n << " " << i;
        if (!expected.empty()) {
            cs.set_aux(0, Fr::one() - cs.aux()[0]);
            EXPECT_FALSE(cs.is_satisfied());
        }
    }
}

TEST(GadgetsMultipack, PackBitsIsOneRowOneAux) {
    auto rng = seeded_rng("GadgetsMultipack.PackBitsIsOneRowOneAux");
    for (size_t n : {0u, 1u, 100u, 254u, 256u}) {
        TestConstraintSystem cs;
        std::vector<Boolean> bits;
        Fr expect = Fr::zero();
        for (size_t i = 0; i < n; i++) {
            bool v = rng() & 1;
            bits.push_back(AllocatedBit::alloc(
                cs, [i] { return "b " + std::to_string(i); }, v));
            if (v && i < 254) expect += pow2_table()[i];  // bits past Fr::CAPACITY are ignored
        }
        const size_t rows = cs.num_constraints(), aux = cs.num_aux();
        AllocatedNum packed = pack_bits(cs, "result_num", bits);
        EXPECT_EQ(cs.num_constraints() - rows, 1u);
        EXPECT_EQ(cs.num_aux() - aux, 1u);
        EXPECT_EQ(packed.value(), std::optional<Fr>(expect));
        EXPECT_EQ(cs.aux_names().back(), "result_num/input/num");
        ASSERT_TRUE(cs.is_satisfied());
        set(cs, "result_num/input/num", expect + Fr::one());
        EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("result_num/packing constraint"));
    }
}

TEST(GadgetsMultipack, BitOrders) {
    const uint8_t bytes[] = {0x01, 0x80, 0xA5};
    std::vector<bool> be = bytes_to_bits(bytes), le = bytes_to_bits_le(bytes);
    EXPECT_EQ(be, (std::vector<bool>{0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 1}));
    EXPECT_EQ(le, (std::vector<bool>{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1}));

    // to_bits_le of a number then reverse_bit_numbering = the SHA-256 bit order of its 32 little-endian bytes
    // (the last, padded bit is a constant false), as the PoRep circuit feeds parents and replica_id to SHA-256.
    auto rng = seeded_rng("GadgetsMultipack.BitOrders");
    Fr x = Fr::random(rng);
    TestConstraintSystem cs;
    AllocatedNum n = AllocatedNum::alloc(cs, "x", x);
    std::vector<Boolean> bits = reverse_bit_numbering(n.to_bits_le(cs, "bits"));
    ASSERT_EQ(bits.size(), 256u);
    uint8_t le_bytes[32];
    x.to_bytes_le(le_bytes);
    std::vector<bool> sha_order = bytes_to_bits(le_bytes);
    for (size_t i = 0; i < 256; i++) EXPECT_EQ(bits[i].value(), std::optional<bool>(sha_order[i])) << i;
    EXPECT_TRUE(bits[248].is_constant(false));  // bit 255 of the number: the top bit of byte 31

    // Allocating bytes as bits, both orders.
    TestConstraintSystem c2;
    auto b_be = bytes_into_boolean_vec_be(c2, "be", std::span<const uint8_t>(bytes), 0);
    auto b_le = bytes_into_boolean_vec(c2, "le", std::span<const uint8_t>(bytes), 0);
    ASSERT_EQ(b_be.size(), 24u);
    for (size_t i = 0; i < 24; i++) {
        EXPECT_EQ(b_be[i].value(), std::optional<bool>(be[i]));
        EXPECT_EQ(b_le[i].value(), std::optional<bool>(le[i]));
    }
    EXPECT_EQ(c2.num_constraints(), 48u);
    EXPECT_EQ(c2.aux_names()[0], "be/bit 0/boolean");
}

TEST(GadgetsUInt64, AllocPackAndBitOrders) {
    auto rng = seeded_rng("GadgetsUInt64.AllocPackAndBitOrders");
    for (int t = 0; t < 20; t++) {
        uint64_t v = rng();
        TestConstraintSystem cs;
        UInt64 u = UInt64::alloc(cs, "challenge", v);
        EXPECT_EQ(cs.num_constraints(), 64u);
        AllocatedNum in = u.pack_into_input(cs, "challenge input");
        EXPECT_EQ(cs.num_constraints(), 65u);
        EXPECT_EQ(cs.num_inputs(), 2u);
        EXPECT_EQ(cs.inputs()[1], Fr::from_u64(v));
        EXPECT_EQ(in.value(), std::optional<Fr>(Fr::from_u64(v)));
        EXPECT_EQ(cs.input_names()[1], "challenge input/input 0");
        ASSERT_TRUE(cs.is_satisfied());
        set(cs, "challenge/allocated bit 5/boolean", Fr::one() - get(cs, "challenge/allocated bit 5/boolean"));
        EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("challenge input/packing constraint 0"));

        auto be = u.to_bits_be();
        EXPECT_EQ(be[0].value(), std::optional<bool>(v >> 63));
        EXPECT_EQ(UInt64::from_bits_be(be).value(), std::optional<uint64_t>(v));
        EXPECT_EQ(UInt64::from_bits(u.to_bits_le()).value(), std::optional<uint64_t>(v));
        UInt64 c = UInt64::constant(v);
        for (int i = 0; i < 64; i++) EXPECT_TRUE(c.bits_le()[i].is_constant((v >> i) & 1));
    }
}

// ---- The three systems agree -------------------------------------------------------------------------------------

TEST(GadgetsNum, ThreeSystemsAgree) {
    auto rng = seeded_rng("GadgetsNum.ThreeSystemsAgree");
    const Fr x = Fr::random(rng), y = Fr::random(rng);
    const uint64_t ch = rng();
    const bool cond = rng() & 1;
    expect_three_systems_agree([&]<class CS>(CS& cs, bool with_values) {
        auto val = [&](const Fr& v) { return with_values ? std::optional<Fr>(v) : std::nullopt; };
        AllocatedNum a = AllocatedNum::alloc(cs, "a", val(x));
        a.inputize(cs, "a_input");
        AllocatedNum b = AllocatedNum::alloc(cs, "b", val(y));
        auto bits = reverse_bit_numbering(a.to_bits_le(cs, "a_bits"));
        pack_bits(cs, "packed", std::span<const Boolean>(bits).first(254));
        UInt64 c = UInt64::alloc(cs, "challenge", with_values ? std::optional<uint64_t>(ch) : std::nullopt);
        c.pack_into_input(cs, "challenge input");
        Boolean k = AllocatedBit::alloc(cs, "cond", with_values ? std::optional<bool>(cond) : std::nullopt);
        AllocatedNum::conditionally_reverse(cs, "rev", a, b, k);
        Boolean::sha256_maj(cs, "maj", bits[0], bits[1].not_(), k);
        Boolean::sha256_ch(cs, "ch", bits[2].not_(), bits[3], Boolean::constant(true));
        a.mul(cs, "mul", b).square(cs, "sq");
        constraint::encode(cs, "enc", a, b);
        b.to_bits_le_strict(cs, "strict");
    });
}
