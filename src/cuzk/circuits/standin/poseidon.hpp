// Poseidon over BLS12-381's Fr: the native permutation and hash, and the R1CS gadget that computes the same hash.
// Parameters and their provenance: poseidon_params.hpp.
//
// The hash of one full block (no sponge, no padding): for `arity` inputs x_1..x_arity,
//   state = [tag, x_1, ..., x_arity],  tag = 2^arity - 1,  permute,  output state[1].
// The capacity element (state[0]) carries neptune's (Filecoin's) Merkle-tree domain tag 2^arity - 1 and the
// output is element 1, as in neptune; the permutation's constants and MDS are the paper's (poseidon_params.hpp),
// not neptune's, so hashes are NOT equal to neptune's / Filecoin's.
//
// Gadget cost: each S-box x^5 is three constraints (x*x = x2, x2*x2 = x4, x4*x = x5); round constants and the MDS
// layer are folded into linear combinations at no cost; the output is bound to a fresh variable by one constraint.
//   constraints = 3 * (t * R_F + R_P) + 1:  arity 2 -> 244, arity 8 -> 388, arity 11 -> 460.
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/circuits/standin/poseidon_params.hpp"
#include "cuzk/r1cs/constraint_system.hpp"

namespace cuzk::standin {

using r1cs::LC;
using r1cs::Variable;

inline Fr poseidon_sbox(const Fr& x) {
    Fr x2 = x.square();
    return x2.square() * x;
}

inline Fr poseidon_domain_tag(size_t arity) { return Fr::from_u64((uint64_t{1} << arity) - 1); }

// The permutation, in place; state.size() must be params.t.
inline void poseidon_permute(const PoseidonParams& params, std::span<Fr> state) {
    const size_t t = params.t;
    if (state.size() != t) throw std::invalid_argument("poseidon_permute: state size != t");
    std::vector<Fr> next(t);
    for (size_t r = 0; r < params.rounds(); r++) {
        for (size_t i = 0; i < t; i++) state[i] += params.rc(r, i);
        if (params.is_full_round(r))
            for (size_t i = 0; i < t; i++) state[i] = poseidon_sbox(state[i]);
        else
            state[0] = poseidon_sbox(state[0]);
        for (size_t i = 0; i < t; i++) {
            Fr acc = Fr::zero();
            for (size_t j = 0; j < t; j++) acc += params.m(i, j) * state[j];
            next[i] = acc;
        }
        for (size_t i = 0; i < t; i++) state[i] = next[i];
    }
}

// The hash of exactly `arity` inputs (arity = inputs.size(), one of kPoseidonArities).
inline Fr poseidon_hash(std::span<const Fr> inputs) {
    const PoseidonParams& params = poseidon_params(inputs.size());
    std::vector<Fr> state(params.t);
    state[0] = poseidon_domain_tag(inputs.size());
    for (size_t i = 0; i < inputs.size(); i++) state[i + 1] = inputs[i];
    poseidon_permute(params, state);
    return state[1];
}

namespace detail {

// The gadget's state: every element is a linear combination over one shared basis of variables (basis[0] is the
// constant one), stored densely so the MDS layer merges terms instead of concatenating them (LC keeps duplicate
// terms, and t-fold concatenation per round would grow without bound). After a full round every element is a
// combination of that round's t S-box outputs only, so the basis restarts there; in a partial round it grows by the
// one new S-box output, so an element holds at most 1 + t + R_P terms.
struct PoseidonLcState {
    std::vector<Variable> basis;
    std::vector<std::vector<Fr>> coeffs;  // coeffs[i][k]: coefficient of basis[k] in element i

    size_t index_of(Variable v) {
        for (size_t k = 0; k < basis.size(); k++)
            if (basis[k] == v) return k;
        basis.push_back(v);
        for (auto& c : coeffs) c.push_back(Fr::zero());
        return basis.size() - 1;
    }
    LC to_lc(size_t i) const {
        LC lc;
        for (size_t k = 0; k < basis.size(); k++)
            if (!coeffs[i][k].is_zero()) lc.add(coeffs[i][k], basis[k]);
        return lc;
    }
};

}  // namespace detail

// Constrains and returns a variable equal to poseidon_hash of the values of `inputs` (inputs.size() is the arity,
// one of kPoseidonArities). With a system that needs values, the inputs are evaluated against its assignment
// (`cs.inputs()`, `cs.aux()`, input 0 being the constant one; a parallel-synthesis fragment's `cs.evaluate`).
template <class CS>
Variable poseidon_hash_gadget(CS& cs, std::span<const LC> inputs) {
    const size_t arity = inputs.size();
    const PoseidonParams& params = poseidon_params(arity);
    const size_t t = params.t;
    r1cs::Namespace<CS> ns(cs, [&] { return "poseidon" + std::to_string(arity); });
    // The symbolic state (linear combinations over the S-box outputs) only feeds enforce(): a witness-only system
    // skips it and tracks values alone.
    constexpr bool kRecord = r1cs::records_constraints<CS>();

    detail::PoseidonLcState st;
    if constexpr (kRecord) {
        st.basis.push_back(Variable::one());
        st.coeffs.assign(t, std::vector<Fr>(1, Fr::zero()));
        st.coeffs[0][0] = poseidon_domain_tag(arity);
        for (size_t i = 0; i < arity; i++)
            for (const r1cs::Term& term : inputs[i].terms()) {
                size_t k = st.index_of(term.var);
                st.coeffs[i + 1][k] += term.coeff;  // coeff is exact even when coeff_is_one is set
            }
    }

    // Native values of the state, tracked only where the system asks for values.
    std::vector<Fr> val(t);
    if constexpr (CS::kNeedsValues) {
        val[0] = poseidon_domain_tag(arity);
        for (size_t i = 0; i < arity; i++) {
            if constexpr (requires { cs.evaluate(inputs[i]); }) val[i + 1] = cs.evaluate(inputs[i]);  // a fragment
            else val[i + 1] = inputs[i].evaluate(cs.inputs(), cs.aux());
        }
    }

    // x^5 of state element i by three constraints; returns the variable holding it.
    auto sbox = [&](size_t r, size_t i) {
        Fr v = val[i], v2, v4, v5;
        if constexpr (CS::kNeedsValues) {
            v2 = v.square();
            v4 = v2.square();
            v5 = v4 * v;
        }
        auto name = [r, i](const char* what) {
            return [r, i, what] { return "round " + std::to_string(r) + "/elt " + std::to_string(i) + "/" + what; };
        };
        LC x;
        if constexpr (kRecord) x = st.to_lc(i);
        Variable x2 = cs.alloc(name("x^2"), [&] { return v2; });
        if constexpr (kRecord) cs.enforce(name("x*x=x^2"), x, x, LC(x2));
        Variable x4 = cs.alloc(name("x^4"), [&] { return v4; });
        if constexpr (kRecord) cs.enforce(name("x^2*x^2=x^4"), LC(x2), LC(x2), LC(x4));
        Variable x5 = cs.alloc(name("x^5"), [&] { return v5; });
        if constexpr (kRecord) cs.enforce(name("x^4*x=x^5"), LC(x4), x, LC(x5));
        if constexpr (CS::kNeedsValues) val[i] = v5;
        return x5;
    };

    for (size_t r = 0; r < params.rounds(); r++) {
        if constexpr (kRecord)
            for (size_t i = 0; i < t; i++) st.coeffs[i][0] += params.rc(r, i);  // basis[0] is the constant one
        if constexpr (CS::kNeedsValues)
            for (size_t i = 0; i < t; i++) val[i] += params.rc(r, i);
        if (params.is_full_round(r)) {
            std::vector<Variable> outs(t);
            for (size_t i = 0; i < t; i++) outs[i] = sbox(r, i);
            if constexpr (kRecord) {
                // Restart the basis: one, then the t S-box outputs; element i is exactly outs[i].
                st.basis.assign(1, Variable::one());
                st.basis.insert(st.basis.end(), outs.begin(), outs.end());
                for (size_t i = 0; i < t; i++) {
                    st.coeffs[i].assign(t + 1, Fr::zero());
                    st.coeffs[i][i + 1] = Fr::one();
                }
            }
        } else {
            Variable out = sbox(r, 0);
            if constexpr (kRecord) {
                st.basis.push_back(out);
                for (auto& c : st.coeffs) c.push_back(Fr::zero());
                std::fill(st.coeffs[0].begin(), st.coeffs[0].end(), Fr::zero());
                st.coeffs[0].back() = Fr::one();
            }
        }
        // MDS: new[i] = sum_j M[i][j] * old[j], coefficient by coefficient (and value by value).
        if constexpr (kRecord) {
            const size_t width = st.basis.size();
            std::vector<std::vector<Fr>> next(t, std::vector<Fr>(width, Fr::zero()));
            for (size_t i = 0; i < t; i++)
                for (size_t j = 0; j < t; j++) {
                    const Fr& m = params.m(i, j);
                    for (size_t k = 0; k < width; k++)
                        if (!st.coeffs[j][k].is_zero()) next[i][k] += m * st.coeffs[j][k];
                }
            st.coeffs = std::move(next);
        }
        if constexpr (CS::kNeedsValues) {
            std::vector<Fr> nv(t, Fr::zero());
            for (size_t i = 0; i < t; i++)
                for (size_t j = 0; j < t; j++) nv[i] += params.m(i, j) * val[j];
            val = std::move(nv);
        }
    }

    Fr out_value = val[1];
    Variable out = cs.alloc("hash", [&] { return out_value; });
    if constexpr (kRecord) cs.enforce("hash = state[1]", st.to_lc(1), LC(Variable::one()), LC(out));
    return out;
}

}  // namespace cuzk::standin
