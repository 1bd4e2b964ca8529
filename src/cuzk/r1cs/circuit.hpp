// Circuits and the Groth16 synthesis driver.
#pragma once

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

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

// Threads for synthesize_parts (default: the hardware threads; CUZK_SYNTHESIS_THREADS overrides; 1: sequential).
size_t parallel_synthesis_threads();
void set_parallel_synthesis_threads(size_t n);

// The fragment type a constraint system synthesizes parallel parts into (void: none, the parts run in order).
template <class CS>
struct FragmentOf {
    using type = void;
};
template <>
struct FragmentOf<ProvingAssignment> {
    using type = AssignmentFragment;
};
template <>
struct FragmentOf<WitnessAssignment> {
    using type = WitnessFragment;
};
template <>
struct FragmentOf<KeygenAssembly> {
    using type = KeygenFragment;  // compact recording only (can_fork)
};

// Synthesizes `count` parts that are independent given what cs holds now (part(cs, i) for i in [0, count), in
// that order): sequentially, or, into a ProvingAssignment, a WitnessAssignment or a compact KeygenAssembly, in groups
// of consecutive parts on their own threads (one per part up to twice parallel_synthesis_threads() parts, else that
// many groups; their fragments: AssignmentFragment, WitnessFragment, KeygenFragment), appended in order, so the
// result is the same.
// `part` is called with the fragment type too (a generic lambda); the first exception of any group is rethrown.
// per_part: about how many constraints (and as many variables) one part makes, when known (0: unknown); each
// fragment reserves room for its parts up front instead of growing (and copying) its vectors.
template <class CS, class F>
void synthesize_parts(CS& cs, size_t count, F&& part, size_t per_part = 0) {
    using Frag = typename FragmentOf<CS>::type;
    if constexpr (!std::is_void_v<Frag>) {
        // One group per part while there are at most twice as many parts as threads (parts of equal size, as
        // PoRep's challenges are, then finish together: 18 challenges in 16 groups would leave the last two groups
        // twice as long as the others), else one group per thread.
        const size_t nthreads = parallel_synthesis_threads();
        const size_t groups = nthreads <= 1 ? 1 : count <= 2 * nthreads ? count : nthreads;
        if (groups > 1 && cs.can_fork()) {
            std::vector<Frag> frags;
            frags.reserve(groups);
            for (size_t g = 0; g < groups; g++) frags.emplace_back(cs);
            // A system with reserved room lends each group its slice of it (WitnessAssignment::open_windows).
            if constexpr (requires { cs.open_windows(frags, std::span<const size_t>(), count); }) {
                std::vector<size_t> parts_of(groups);
                for (size_t g = 0; g < groups; g++) parts_of[g] = (g + 1) * count / groups - g * count / groups;
                cs.open_windows(frags, parts_of, count);
            }
            std::vector<std::exception_ptr> errors(groups);
            std::vector<std::thread> threads;
            threads.reserve(groups);
            for (size_t g = 0; g < groups; g++)
                threads.emplace_back([&, g] {
                    try {
                        const size_t lo = g * count / groups, hi = (g + 1) * count / groups;
                        if (per_part) frags[g].reserve(per_part * (hi - lo) + 64, per_part * (hi - lo) + 64);
                        for (size_t i = lo; i < hi; i++) part(frags[g], i);
                    } catch (...) {
                        errors[g] = std::current_exception();
                    }
                });
            for (auto& t : threads) t.join();
            for (auto& e : errors)
                if (e) std::rethrow_exception(e);
            cs.append_all(frags);
            return;
        }
    }
    for (size_t i = 0; i < count; i++) part(cs, i);
}

}  // namespace cuzk::r1cs
