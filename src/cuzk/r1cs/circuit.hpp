// Circuits and the Groth16 synthesis driver.
#pragma once

#include "cuzk/r1cs/constraint_system.hpp"
#include "cuzk/r1cs/keygen_assembly.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/r1cs/test_cs.hpp"
#include "cuzk/r1cs/witness_assignment.hpp"

namespace cuzk::r1cs {

// Implements the three type-erased entry points with the derived circuit's template `synthesize(CS&)`.
template <class Derived>
class CircuitImpl : public Circuit {
public:
    void synthesize_into(KeygenAssembly& cs) const override { self().synthesize(cs); }
    void synthesize_into(ProvingAssignment& cs) const override { self().synthesize(cs); }
    void synthesize_into(TestConstraintSystem& cs) const override { self().synthesize(cs); }
    void synthesize_into(WitnessAssignment& cs) const override { self().synthesize(cs); }

private:
    const Derived& self() const { return static_cast<const Derived&>(*this); }
};

// Synthesizes `circuit` as Groth16 needs it (bellman's order): the constant one as input 0, the circuit, then one
// constraint input_i * 0 = 0 per input (the constant one included) so that every input has a defined IC term even
// when the circuit itself never uses it in A.
template <class CS>
void synthesize_groth16(CS& cs, const Circuit& circuit) {
    if constexpr (!std::is_same_v<CS, TestConstraintSystem>) cs.alloc_input("one", [] { return Fr::one(); });
    circuit.synthesize_into(cs);
    size_t inputs;
    if constexpr (std::is_same_v<CS, KeygenAssembly>) inputs = cs.num_inputs();
    else inputs = cs.inputs().size();
    for (size_t i = 0; i < inputs; i++)
        cs.enforce([i] { return "input constraint " + std::to_string(i); }, LC(Variable::input((uint32_t)i)), LC(),
                   LC());
}

}  // namespace cuzk::r1cs
