// Poseidon as neptune v11 computes it (Filecoin's tree, column and SnapDeals hashes): the native hash (single and
// batched on the thread pool) and the R1CS gadget that is neptune's circuit constraint for constraint.
// Constants and their derivation: poseidon_constants.hpp.
//
// The hash of `arity` inputs under a domain tag: state = [tag, x_1, ..., x_arity], permute, output state[1].
// The permutation: R_F/2 full rounds, R_P partial rounds (S-box on element 0 only), R_F/2 full rounds; each round adds
// its round keys, applies x^5 and mixes with the MDS matrix. The native hash runs neptune's optimised schedule
// (poseidon.rs `hash_optimized_static`: compressed keys added after the S-boxes, the sparse matrices in the partial
// rounds), which gives the same outputs as the plain schedule (poseidon_permute_correct, kept as the reference).
//
// The gadget is neptune's circuit.rs `poseidon_hash` (its "Legacy" circuit; storage-proofs uses it, not circuit2's
// `poseidon_hash_allocated`): the same aux variables in the same order, the same constraints in the same order with
// the same linear combinations (duplicate terms merged, as bellpepper's LinearCombination merges them), so it
// reproduces the rows of Filecoin's R1CS. Its cost for arity a, width t = a + 1:
//   3 * a                     first round: the inputs are already allocated (square_sum, square, mul_sum); the tag's
//                             S-box is a constant and costs nothing
//   4 * t * (R_F - 1)         the other full rounds: allocate the S-box input (its linear combination), square,
//                             square, multiply-and-add the next key
//   4 * R_P                   the partial rounds, element 0 only
//   1                         the output bound to a fresh variable
// = 311 (arity 2), 377 (4), 505 (8), 598 (11), 761 (16), 1009 (24), 1385 (36); one aux variable per constraint.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuzk/gadgets/num.hpp"
#include "cuzk/gadgets/poseidon_constants.hpp"
#include "cuzk/r1cs/constraint_system.hpp"

namespace cuzk::gadgets {

// ---- native ---------------------------------------------------------------------------------------------------

// The hash of in.size() inputs (the arity, 1..36) under the MerkleTree tag 2^arity - 1: Filecoin's node hash.
Fr poseidon_hash(std::span<const Fr> in);
// The same under any domain tag (poseidon_tag::custom(1) for SnapDeals, poseidon_tag::constant_length(n), ...).
// The Standard constants of arity in.size() are used whatever the tag; a ConstantLength(n < arity) hash is the
// hash of the n values followed by arity - n zeros.
Fr poseidon_hash(std::span<const Fr> in, const Fr& domain_tag);

// n = out.size() hashes of `arity` inputs each: out[k] = poseidon_hash(in[k * arity .. (k + 1) * arity)), spread
// over cuzk's thread pool. in.size() must be n * arity.
void poseidon_hash_many(size_t arity, std::span<const Fr> in, std::span<Fr> out);
void poseidon_hash_many(size_t arity, std::span<const Fr> in, std::span<Fr> out, const Fr& domain_tag);

// The permutation of a full state (state.size() == c.width), in place, by the optimised schedule.
void poseidon_permute(const PoseidonConstants& c, std::span<Fr> state);
// The same by the plain schedule (poseidon_alt.rs `hash_correct`: uncompressed keys, M in every round). Slower;
// the reference the optimised forms are checked against.
void poseidon_permute_correct(const PoseidonConstants& c, std::span<Fr> state);

inline Fr poseidon_sbox(const Fr& x) { return x.square().square() * x; }

// Constraints (= aux variables) of poseidon_hash_gadget for `arity` (formula above).
size_t poseidon_gadget_constraints(size_t arity);

namespace poseidon_detail {

using r1cs::LC;
using r1cs::Namespace;
using r1cs::SynthesisError;
using r1cs::SynthesisErrorKind;
using r1cs::Variable;

inline constexpr size_t kMaxWidth = kPoseidonMaxArity + 1;

// The linear layer that follows round `round` (0-based) of the optimised schedule (poseidon.rs
// `round_product_mds`): the pre-sparse matrix after the last first-half full round, sparse matrix k after partial
// round k, M otherwise. kT = the width when known at compile time, 0 to read it from c.
template <size_t kT>
inline void mix(const PoseidonConstants& c, size_t round, Fr* s) {
    const size_t t = kT ? kT : c.width;
    const size_t half = c.half_full_rounds;
    if (round >= half && round < half + c.partial_rounds) {
        const PoseidonSparseMatrix& m = c.sparse_matrices[round - half];
        const Fr first = Fr::sum_of_products(m.w_hat.data(), s, t);
        for (size_t j = 1; j < t; j++) s[j] += m.v_rest[j - 1] * s[0];
        s[0] = first;
        return;
    }
    // Each output a dot product of the state with a column, reduced once (Fr::sum_of_products).
    const PoseidonMatrix& m = round + 1 == half ? c.pre_sparse_matrix : c.mds;
    std::array<Fr, kT ? kT : kMaxWidth> out;
    for (size_t j = 0; j < t; j++) out[j] = Fr::sum_of_products(s, m.e.data() + j, t, t);
    for (size_t j = 0; j < t; j++) s[j] = out[j];
}

// What the gadget needs beyond the constants: the linear combination of every S-box input it allocates. In neptune's
// circuit each state element between S-box layers is a `Num`, a linear combination of earlier S-box outputs, grown
// by the matrix products (and, in the partial rounds, carried over many rounds); the combination depends only on the
// constants, never on the inputs, so it is derived once per arity by running the circuit's linear algebra on
// symbols and replayed by every gadget call. Rows are the Num-to-variable allocations in synthesis order (every S-box
// input after the first round, then the output); a term's slot is 0 for the constant one (its coefficient still to
// be multiplied by the tag's first-round S-box output, the only constant a Num carries, so one shape serves every
// domain tag) or k >= 1 for the k-th S-box output (the mul_sum variable) of the gadget, in allocation order. Terms
// are merged per slot and sorted (the constant first), as bellpepper's LinearCombination iterates them.
struct CircuitShape {
    struct Term {
        uint32_t slot;
        Fr coeff;
    };
    std::vector<uint32_t> row_begin;  // rows + 1 offsets into terms
    std::vector<Term> terms;
    size_t rows() const { return row_begin.size() - 1; }
};
const CircuitShape& circuit_shape(size_t arity);  // built once per arity (thread-safe), Standard constants

// The gadget's synthesis: neptune's circuit.rs `PoseidonCircuit::hash` with its rounds, S-boxes and namespaces.
template <class CS>
class PoseidonGadget {
public:
    static constexpr bool kValues = CS::kNeedsValues;
    static constexpr bool kRecord = r1cs::records_constraints<CS>();

    PoseidonGadget(CS& cs, std::span<const AllocatedNum> preimage, const Fr& domain_tag)
        : cs_(cs),
          c_(poseidon_constants(preimage.size())),
          shape_(kRecord ? &circuit_shape(preimage.size()) : nullptr),
          t_(c_.width),
          preimage_(preimage) {
        const Fr* rk = c_.compressed_round_constants.data();
        // The tag's first-round S-box is computed natively (circuit.rs `constant_quintic_s_box_pre_add_tag`): a
        // constant that enters the next round's combinations as a multiple of the constant one.
        tag_sbox_ = poseidon_sbox(domain_tag + rk[0]) + rk[t_];
        if constexpr (kValues) {
            s_[0] = domain_tag;
            for (size_t i = 0; i < preimage.size(); i++) {
                if (!preimage[i].value())
                    throw SynthesisError(SynthesisErrorKind::AssignmentMissing, "poseidon_hash_gadget: preimage value");
                s_[i + 1] = *preimage[i].value();
            }
        }
        if constexpr (kRecord) sbox_out_.reserve(c_.full_rounds * t_ + c_.partial_rounds);
    }

    AllocatedNum hash() {
        {
            Namespace ns(cs_, "first round");
            first_round();
        }
        for (size_t i = 1; i < c_.half_full_rounds; i++) {
            Namespace ns(cs_, [&] { return "initial full round " + std::to_string(i); });
            full_round(true);
        }
        for (size_t i = 0; i < c_.partial_rounds; i++) {
            Namespace ns(cs_, [&] { return "partial round " + std::to_string(i); });
            partial_round();
        }
        for (size_t i = 0; i + 1 < c_.half_full_rounds; i++) {
            Namespace ns(cs_, [&] { return "final full round " + std::to_string(i); });
            full_round(true);
        }
        {
            Namespace ns(cs_, "terminal full round");
            full_round(false);
        }
        Namespace ns(cs_, "hash result");
        const Variable out = allocate_num(1);
        if (kRecord && row_ != shape_->rows())
            throw std::logic_error("poseidon_hash_gadget: circuit shape and synthesis disagree");
        return AllocatedNum(out, kValues ? std::optional<Fr>(s_[1]) : std::nullopt);
    }

private:
    // Values are computed only where the system asks for them (the key generator never does).
    template <class F>
    Variable alloc(const char* name, F&& value) {
        if constexpr (kValues) return cs_.alloc(name, std::forward<F>(value));
        else
            return cs_.alloc(name, []() -> Fr {
                throw SynthesisError(SynthesisErrorKind::AssignmentMissing, "poseidon_hash_gadget: no values");
            });
    }

    // circuit.rs `Elt::ensure_allocated` of a Num (enforce = true): a fresh variable equal to element i's linear
    // combination, lc * 1 = v.
    Variable allocate_num(size_t i) {
        Variable v;
        {
            Namespace ns(cs_, "allocate for Elt::Num");
            v = alloc("num", [&] { return s_[i]; });
        }
        if constexpr (kRecord) {
            LC lc;
            for (uint32_t k = shape_->row_begin[row_]; k < shape_->row_begin[row_ + 1]; k++) {
                const CircuitShape::Term& term = shape_->terms[k];
                if (term.slot == 0) lc.add(term.coeff * tag_sbox_, Variable::one());
                else lc.add(term.coeff, sbox_out_[term.slot - 1]);
            }
            cs_.enforce("enforce num allocation preserves lc", lc, LC(Variable::one()), LC(v));
        }
        row_++;
        return v;
    }

    // bellpepper-core `AllocatedNum::square`: x * x = x^2.
    Variable square(Variable x, const Fr& value) {
        const Variable sq = alloc("squared num", [&] { return value; });
        if constexpr (kRecord) cs_.enforce("squaring constraint", LC(x), LC(x), LC(sq));
        return sq;
    }

    // circuit.rs `quintic_s_box` on element i (a Num): allocate it, square twice, then mul_sum l4 * l + post.
    void sbox_num(size_t i, const Fr* post) {
        Fr l2, l4, l5;
        if constexpr (kValues) {
            l2 = s_[i].square();
            l4 = l2.square();
            l5 = l4 * s_[i];
            if (post) l5 += *post;
        }
        Variable l;
        {
            Namespace ns(cs_, "S-box input");
            l = allocate_num(i);
        }
        Variable v2, v4, v5;
        {
            Namespace ns(cs_, "l^2");
            v2 = square(l, l2);
        }
        {
            Namespace ns(cs_, "l^4");
            v4 = square(v2, l4);
        }
        {
            Namespace ns(cs_, "(l4 * l) + rk)");
            {
                Namespace m(cs_, "mul_sum");
                v5 = alloc("num", [&] { return l5; });
            }
            // circuit.rs `mul_sum` without pre-add: l * l4 = l5 - post.
            if constexpr (kRecord) {
                LC out;
                if (post) out.add(-*post, Variable::one());
                out.add(v5);
                cs_.enforce(post ? "mul sum constraint post-add" : "mul sum constraint", LC(l), LC(v4), out);
            }
        }
        if constexpr (kRecord) sbox_out_.push_back(v5);
        if constexpr (kValues) s_[i] = l5;
    }

    // circuit.rs `full_round` with first_round = true: element 0 (the tag) is done natively; each input x_i, already
    // a variable, goes through `quintic_s_box_pre_add`: square_sum (x + pre)^2, square, mul_sum l4 * (x + pre) + post.
    void first_round() {
        const Fr* pre = c_.compressed_round_constants.data();
        const Fr* post = pre + t_;
        if constexpr (kValues) s_[0] = tag_sbox_;
        for (size_t i = 1; i < t_; i++) {
            Namespace sbox(cs_, [&] { return "quintic s-box " + std::to_string(i); });
            const Variable x = preimage_[i - 1].variable();
            Fr l2, l4, l5;
            if constexpr (kValues) {
                const Fr y = s_[i] + pre[i];
                l2 = y.square();
                l4 = l2.square();
                l5 = l4 * y + post[i];
            }
            auto x_plus_pre = [&] {
                LC lc;
                lc.add(pre[i], Variable::one());
                lc.add(x);
                return lc;
            };
            Variable v2, v4, v5;
            {
                Namespace ns(cs_, "(l+rk)^2");
                {
                    Namespace m(cs_, "squared sum");
                    v2 = alloc("num", [&] { return l2; });
                }
                if constexpr (kRecord) cs_.enforce("squared sum constraint", x_plus_pre(), x_plus_pre(), LC(v2));
            }
            {
                Namespace ns(cs_, "l^4");
                v4 = square(v2, l4);
            }
            {
                Namespace ns(cs_, "l4 * (l + rk)");
                {
                    Namespace m(cs_, "mul_sum");
                    v5 = alloc("num", [&] { return l5; });
                }
                if constexpr (kRecord) {
                    LC out;
                    out.add(-post[i], Variable::one());
                    out.add(v5);
                    cs_.enforce("mul sum constraint pre-post-add", x_plus_pre(), LC(v4), out);
                }
            }
            if constexpr (kRecord) sbox_out_.push_back(v5);
            if constexpr (kValues) s_[i] = l5;
        }
        key_ = 2 * t_;
        end_round();
    }

    // circuit.rs `full_round` after the first: every element through `quintic_s_box`, with the next t post-keys
    // unless this is the terminal round.
    void full_round(bool with_keys) {
        const Fr* post = with_keys ? c_.compressed_round_constants.data() + key_ : nullptr;
        for (size_t i = 0; i < t_; i++) {
            Namespace sbox(cs_, [&] { return "quintic s-box " + std::to_string(i); });
            sbox_num(i, post ? post + i : nullptr);
        }
        if (with_keys) key_ += t_;
        end_round();
    }

    // circuit.rs `partial_round`: element 0 only, with its single post-key.
    void partial_round() {
        {
            Namespace ns(cs_, "solitary quintic s-box");
            sbox_num(0, &c_.compressed_round_constants[key_]);
        }
        key_++;
        end_round();
    }

    // The round's linear layer: free in the circuit (the combinations were precomputed in the shape), so only
    // the values move.
    void end_round() {
        if constexpr (kValues) mix<0>(c_, round_, s_.data());
        round_++;
    }

    CS& cs_;
    const PoseidonConstants& c_;
    const CircuitShape* shape_;
    const size_t t_;
    std::span<const AllocatedNum> preimage_;
    Fr tag_sbox_;
    std::array<Fr, kMaxWidth> s_{};  // the state's values (kValues only)
    std::vector<Variable> sbox_out_;  // the S-box output variables so far (kRecord only)
    size_t row_ = 0;                  // next row of the shape
    size_t key_ = 0;                  // next compressed round constant
    size_t round_ = 0;                // rounds done (selects the linear layer)
};

}  // namespace poseidon_detail

// ---- gadget -------------------------------------------------------------------------------------------------------

// neptune circuit.rs `poseidon_hash(cs, preimage, &PoseidonConstants::<Fr, A>::new())` with A = preimage.size():
// the hash of the preimage under the MerkleTree tag, as a fresh variable. Call it inside a namespace of its own (its
// variable and constraint names are neptune's, relative to the caller's namespace: "first round/quintic s-box 1/...").
template <class CS>
AllocatedNum poseidon_hash_gadget(CS& cs, std::span<const AllocatedNum> preimage, const Fr& domain_tag) {
    return poseidon_detail::PoseidonGadget<CS>(cs, preimage, domain_tag).hash();
}
template <class CS>
AllocatedNum poseidon_hash_gadget(CS& cs, std::span<const AllocatedNum> preimage) {
    return poseidon_hash_gadget(cs, preimage, poseidon_tag::merkle_tree(preimage.size()));
}

}  // namespace cuzk::gadgets
