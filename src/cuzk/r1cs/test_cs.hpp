// The test side of the constraint system: keeps every constraint with its full name path and the assignment,
// reports whether it is satisfied and which constraint is not, and pins a circuit's shape by a hash over its
// structure (variable counts and every term of every constraint, not the names or values), so a refactor that
// changes a gadget's constraints is caught by a test that pins the hash and the counts.
//
// As bellman's test system: variables, constraints and namespaces share one set of names (a gadget cannot call a
// variable and a constraint both "xor" in the same namespace), and input 0 (the constant one, named "ONE") exists
// from the start, whereas the key generator and the prover get it from synthesize_groth16.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cuzk/r1cs/constraint_system.hpp"

namespace cuzk::r1cs {

class TestConstraintSystem {
public:
    static constexpr bool kNeedsValues = true;

    TestConstraintSystem();

    template <class N, class V>
    Variable alloc(N&& name, V&& value) {
        std::string path = full_path(make_name(std::forward<N>(name)));
        Fr v = value();
        claim(path);
        aux_.push_back(v);
        aux_names_.push_back(std::move(path));
        return Variable::aux((uint32_t)(aux_.size() - 1));
    }
    template <class N, class V>
    Variable alloc_input(N&& name, V&& value) {
        std::string path = full_path(make_name(std::forward<N>(name)));
        Fr v = value();
        claim(path);
        inputs_.push_back(v);
        input_names_.push_back(std::move(path));
        return Variable::input((uint32_t)(inputs_.size() - 1));
    }
    template <class N>
    void enforce(N&& name, const LC& a, const LC& b, const LC& c) {
        std::string path = full_path(make_name(std::forward<N>(name)));
        claim(path);
        check_vars(a, path);
        check_vars(b, path);
        check_vars(c, path);
        constraints_.push_back({a, b, c, std::move(path)});
    }
    template <class N>
    void push_namespace(N&& name) {
        std::string n = make_name(std::forward<N>(name));
        if (n.find('/') != std::string::npos) throw SynthesisError(SynthesisErrorKind::Other, "namespace name with '/': " + n);
        namespaces_.push_back(std::move(n));
    }
    void pop_namespace();

    // Every constraint holds for the current assignment.
    bool is_satisfied() const { return !which_is_unsatisfied().has_value(); }
    // The full name of the first constraint that does not hold.
    std::optional<std::string> which_is_unsatisfied() const;

    size_t num_inputs() const { return inputs_.size(); }
    size_t num_aux() const { return aux_.size(); }
    size_t num_constraints() const { return constraints_.size(); }
    const std::vector<Fr>& inputs() const { return inputs_; }
    const std::vector<Fr>& aux() const { return aux_; }
    // Value of a variable by its full name path ("a/b/c"); nullopt when no variable has that name.
    std::optional<Fr> get(const std::string& path) const;
    // Overwrites an aux value (to show a test that a wrong witness is caught).
    void set_aux(size_t index, const Fr& value) { aux_.at(index) = value; }

    struct Constraint {
        LC a, b, c;
        std::string name;
    };
    // Every constraint in synthesis order, with its full name path.
    const std::vector<Constraint>& constraints() const { return constraints_; }
    const std::vector<std::string>& aux_names() const { return aux_names_; }
    const std::vector<std::string>& input_names() const { return input_names_; }

    // SHA-256 over the shape: counts, then for each constraint the (variable, coefficient) terms of a, b and c.
    std::array<uint8_t, 32> shape_hash() const;
    std::string shape_hash_hex() const;

private:
    std::string full_path(const std::string& name) const;
    void claim(const std::string& path);
    void check_vars(const LC& lc, const std::string& path) const;

    std::vector<std::string> namespaces_;
    std::map<std::string, int> names_;
    std::vector<Fr> inputs_, aux_;
    std::vector<std::string> input_names_, aux_names_;
    std::vector<Constraint> constraints_;
};

}  // namespace cuzk::r1cs
