// The constraint-system interface every circuit is written against, served by three implementations (and the
// witness-only WitnessAssignment of the pre-compiled evaluator):
//   KeygenAssembly      records the constraints (setup; values are never asked for),
//   ProvingAssignment   evaluates a, b, c per constraint and keeps the assignment and density (the prover),
//   TestConstraintSystem keeps names and values, says which constraint fails, and hashes the circuit's shape.
// A circuit's synthesis is a template over the system (static dispatch: no virtual call per constraint), and
// `Circuit` erases the type once per circuit so a circuit can be passed around and synthesized by any of the three.
//
// Names are built only when a system asks for them: pass a string literal, or a callable returning a string
// (`[&] { return "bit " + std::to_string(i); }`), which the key generator and the prover never call.
// Values likewise: `alloc(name, [&] { return value; })`; the key generator never calls the value function, so
// circuits can be synthesized for setup without a witness. A value function that has no value throws
// SynthesisError(AssignmentMissing).
#pragma once

#include <stdexcept>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuzk/r1cs/linear_combination.hpp"
#include "cuzk/util/uninit_vector.hpp"

namespace cuzk::r1cs {

enum class SynthesisErrorKind { AssignmentMissing, DivisionByZero, Unsatisfiable, Polynomial, Other };
const char* synthesis_error_name(SynthesisErrorKind kind);

class SynthesisError : public std::runtime_error {
public:
    SynthesisError(SynthesisErrorKind kind, const std::string& what)
        : std::runtime_error(std::string(synthesis_error_name(kind)) + ": " + what), kind_(kind) {}
    SynthesisErrorKind kind() const { return kind_; }

private:
    SynthesisErrorKind kind_;
};

// Turns a name argument (string-like or a callable returning one) into a string.
template <class N>
std::string make_name(N&& name) {
    if constexpr (std::is_invocable_v<N>) return std::string(name());
    else return std::string(std::forward<N>(name));
}

// What a constraint system must offer (checked at compile time where circuits are instantiated).
template <class CS>
concept ConstraintSystem = requires(CS& cs, const LC& lc) {
    { cs.alloc("x", [] { return Fr::zero(); }) } -> std::same_as<Variable>;
    { cs.alloc_input("x", [] { return Fr::zero(); }) } -> std::same_as<Variable>;
    cs.enforce("c", lc, lc, lc);
    cs.push_namespace("ns");
    cs.pop_namespace();
};

// Whether a constraint system records constraints: false for the witness-only system (witness_assignment.hpp,
// `kRecordsConstraints = false`), whose enforce() ignores its arguments, so gadgets skip building the linear
// combinations they would pass to it. Systems that do not say record them.
template <class CS>
constexpr bool records_constraints() {
    if constexpr (requires { CS::kRecordsConstraints; }) return CS::kRecordsConstraints;
    else return true;
}

// RAII namespace scope: `Namespace ns(cs, "sha256");`
template <class CS>
class Namespace {
public:
    template <class N>
    Namespace(CS& cs, N&& name) : cs_(cs) {
        cs_.push_namespace(std::forward<N>(name));
    }
    ~Namespace() { cs_.pop_namespace(); }
    Namespace(const Namespace&) = delete;
    Namespace& operator=(const Namespace&) = delete;

private:
    CS& cs_;
};

// A witness's aux values (WitnessAssignment, ProvingAssignment): sizing it does not zero it (util/uninit_vector.hpp).
using AuxValues = nofill_vector<Fr>;

class KeygenAssembly;
class ProvingAssignment;
class TestConstraintSystem;
class WitnessAssignment;

// What a fragment of a parallel synthesis (AssignmentFragment, WitnessFragment; circuit.hpp synthesize_parts) reads:
// the parent's inputs and aux values as they were at the fork, then its own inputs and aux values, each numbered
// from kLocalBase (renumbered after the parent's, in fragment order, when the fragments are appended).
struct ForkedValues {
    static constexpr uint32_t kLocalBase = 0x40000000u;
    const Fr* inputs = nullptr;
    size_t n_inputs = 0;
    const Fr* parent_aux = nullptr;
    size_t n_parent_aux = 0;

    // SynthesisError for a variable it cannot see (allocated after the fork, or in another fragment).
    const Fr& value(Variable var, std::span<const Fr> local_aux, std::span<const Fr> local_inputs) const {
        const uint32_t i = var.index();
        if (i >= kLocalBase) {
            const std::span<const Fr> local = var.is_input() ? local_inputs : local_aux;
            if (i - kLocalBase < local.size()) return local[i - kLocalBase];
        } else if (var.is_input()) {
            if (i < n_inputs) return inputs[i];
        } else if (i < n_parent_aux) {
            return parent_aux[i];
        }
        unknown(var);
    }
    // The value of a combination (what gadgets compute natively with LC::evaluate(inputs, aux) elsewhere).
    Fr evaluate(const LC& lc, std::span<const Fr> local_aux, std::span<const Fr> local_inputs) const {
        Fr acc = Fr::zero();
        for (const Term& t : lc.terms()) {
            const Fr& v = value(t.var, local_aux, local_inputs);
            if (t.coeff_is_one) acc += v;
            else acc += t.coeff * v;
        }
        return acc;
    }
    [[noreturn]] static void unknown(Variable v) {
        throw SynthesisError(SynthesisErrorKind::Other,
                             std::string("fragment constraint uses unallocated ") + (v.is_input() ? "input " : "aux ") +
                                 std::to_string(v.index()) +
                                 " (a variable allocated after the fork, or in another fragment?)");
    }
};

// A circuit, type-erased over the three systems. Circuits derive from CircuitImpl<Derived> (circuit.hpp) and
// implement
//   template <class CS> void synthesize(CS& cs) const;
// allocating their public inputs with alloc_input (the constant one is already input 0) and everything else with
// alloc. The Groth16 driver (synthesize_groth16 in circuit.hpp) adds the constant one before and the input
// constraints after.
class Circuit {
public:
    virtual ~Circuit() = default;
    virtual void synthesize_into(KeygenAssembly& cs) const = 0;
    virtual void synthesize_into(ProvingAssignment& cs) const = 0;
    virtual void synthesize_into(TestConstraintSystem& cs) const = 0;
    virtual void synthesize_into(WitnessAssignment& cs) const = 0;
};

}  // namespace cuzk::r1cs
