#include "cuzk/gadgets/poseidon.hpp"

#include <map>
#include <memory>
#include <mutex>

#include "cuzk/util/thread_pool.hpp"

namespace cuzk::gadgets {

namespace {

using poseidon_detail::kMaxWidth;
using poseidon_detail::mix;

// poseidon.rs `hash_optimized_static`: the first round's keys before its S-boxes, then every S-box (but the last
// round's) followed by its compressed key, and the round's linear layer. kT = the width (0: read from c), so the
// common widths get loops the compiler unrolls.
template <size_t kT>
void permute_optimized(const PoseidonConstants& c, Fr* s) {
    const size_t t = kT ? kT : c.width;
    const size_t half = c.half_full_rounds;
    const Fr* rk = c.compressed_round_constants.data();
    size_t round = 0;
    for (size_t i = 0; i < t; i++) s[i] += rk[i];
    rk += t;
    auto full_round_keyed = [&] {
        for (size_t i = 0; i < t; i++) s[i] = poseidon_sbox(s[i]) + rk[i];
        rk += t;
        mix<kT>(c, round++, s);
    };
    for (size_t r = 0; r < half; r++) full_round_keyed();
    for (size_t r = 0; r < c.partial_rounds; r++) {
        s[0] = poseidon_sbox(s[0]) + *rk++;
        mix<kT>(c, round++, s);
    }
    for (size_t r = 1; r < half; r++) full_round_keyed();
    for (size_t i = 0; i < t; i++) s[i] = poseidon_sbox(s[i]);  // the last round's keys were all pushed back
    mix<kT>(c, round, s);
}

using PermuteFn = void (*)(const PoseidonConstants&, Fr*);

// The width-specialised kernel for Filecoin's arities, the generic one otherwise.
PermuteFn permute_for_width(size_t t) {
    switch (t) {
        case 3: return permute_optimized<3>;
        case 5: return permute_optimized<5>;
        case 9: return permute_optimized<9>;
        case 12: return permute_optimized<12>;
        case 17: return permute_optimized<17>;
        case 25: return permute_optimized<25>;
        case 37: return permute_optimized<37>;
        default: return permute_optimized<0>;
    }
}

Fr hash_with(const PoseidonConstants& c, PermuteFn permute, const Fr* in, const Fr& tag) {
    std::array<Fr, kMaxWidth> s;
    s[0] = tag;
    for (size_t i = 0; i < c.arity; i++) s[i + 1] = in[i];
    permute(c, s.data());
    return s[1];
}

// ---- the gadget's shape: neptune's circuit linear algebra run on symbols ----------------------------------------

// A `Num` of circuit.rs as slot -> coefficient (slots as in CircuitShape); std::map keeps the terms merged and
// ordered, as bellpepper's LinearCombination (an index-sorted map per variable kind) does.
using SymbolicNum = std::map<uint32_t, Fr>;

void add_scaled(SymbolicNum& acc, const SymbolicNum& a, const Fr& k) {
    for (const auto& [slot, coeff] : a) {
        auto [it, fresh] = acc.emplace(slot, coeff * k);
        if (!fresh) it->second += coeff * k;
    }
}

// circuit.rs `product_mds_with_matrix`: element j becomes scalar_product(elements, column j).
void mix_dense(std::vector<SymbolicNum>& el, const PoseidonMatrix& m) {
    const size_t t = el.size();
    std::vector<SymbolicNum> out(t);
    for (size_t j = 0; j < t; j++)
        for (size_t i = 0; i < t; i++) add_scaled(out[j], el[i], m.at(i, j));
    el = std::move(out);
}

// circuit.rs `product_mds_with_sparse_matrix`: element 0 becomes scalar_product(elements, w_hat), element j >= 1
// becomes element j + v_rest[j - 1] * element 0.
void mix_sparse(std::vector<SymbolicNum>& el, const PoseidonSparseMatrix& m) {
    const size_t t = el.size();
    SymbolicNum first;
    for (size_t i = 0; i < t; i++) add_scaled(first, el[i], m.w_hat[i]);
    for (size_t j = 1; j < t; j++) add_scaled(el[j], el[0], m.v_rest[j - 1]);
    el[0] = std::move(first);
}

poseidon_detail::CircuitShape build_circuit_shape(const PoseidonConstants& c) {
    const size_t t = c.width, half = c.half_full_rounds;
    poseidon_detail::CircuitShape shape;
    shape.row_begin.push_back(0);
    uint32_t next_slot = 1;
    std::vector<SymbolicNum> el(t);
    // An S-box input made a variable: record its combination as a row; the S-box output is the next slot.
    auto allocate_and_sbox = [&](size_t i) {
        for (const auto& [slot, coeff] : el[i]) shape.terms.push_back({slot, coeff});
        shape.row_begin.push_back((uint32_t)shape.terms.size());
        el[i] = SymbolicNum{{next_slot++, Fr::one()}};
    };
    size_t round = 0;
    auto end_round = [&] {
        if (round + 1 == half) mix_dense(el, c.pre_sparse_matrix);
        else if (round >= half && round < half + c.partial_rounds) mix_sparse(el, c.sparse_matrices[round - half]);
        else mix_dense(el, c.mds);
        round++;
    };

    // First round: the tag's S-box output is a constant (slot 0, coefficient 1 until the tag is known); the inputs
    // are variables already, so their S-boxes allocate no combination.
    el[0] = SymbolicNum{{0u, Fr::one()}};
    for (size_t i = 1; i < t; i++) el[i] = SymbolicNum{{next_slot++, Fr::one()}};
    end_round();
    for (size_t r = 1; r < half; r++) {
        for (size_t i = 0; i < t; i++) allocate_and_sbox(i);
        end_round();
    }
    for (size_t r = 0; r < c.partial_rounds; r++) {
        allocate_and_sbox(0);
        end_round();
    }
    for (size_t r = 0; r < half; r++) {
        for (size_t i = 0; i < t; i++) allocate_and_sbox(i);
        end_round();
    }
    // The hash result: element 1 made a variable.
    for (const auto& [slot, coeff] : el[1]) shape.terms.push_back({slot, coeff});
    shape.row_begin.push_back((uint32_t)shape.terms.size());
    return shape;
}

}  // namespace

// ---- native -----------------------------------------------------------------------------------------------------

void poseidon_permute(const PoseidonConstants& c, std::span<Fr> state) {
    if (state.size() != c.width) throw std::invalid_argument("poseidon_permute: state size != width");
    permute_for_width(c.width)(c, state.data());
}

void poseidon_permute_correct(const PoseidonConstants& c, std::span<Fr> state) {
    const size_t t = c.width;
    if (state.size() != t) throw std::invalid_argument("poseidon_permute_correct: state size != width");
    const size_t half = c.half_full_rounds;
    const Fr* rc = c.round_constants.data();
    for (size_t r = 0; r < c.full_rounds + c.partial_rounds; r++) {
        for (size_t i = 0; i < t; i++) state[i] += rc[r * t + i];
        const bool full = r < half || r >= half + c.partial_rounds;
        for (size_t i = 0; i < (full ? t : 1); i++) state[i] = poseidon_sbox(state[i]);
        std::vector<Fr> out(t, Fr::zero());
        for (size_t j = 0; j < t; j++)
            for (size_t i = 0; i < t; i++) out[j] += state[i] * c.mds.at(i, j);
        std::copy(out.begin(), out.end(), state.begin());
    }
}

Fr poseidon_hash(std::span<const Fr> in, const Fr& domain_tag) {
    const PoseidonConstants& c = poseidon_constants(in.size());
    return hash_with(c, permute_for_width(c.width), in.data(), domain_tag);
}

Fr poseidon_hash(std::span<const Fr> in) { return poseidon_hash(in, poseidon_tag::merkle_tree(in.size())); }

void poseidon_hash_many(size_t arity, std::span<const Fr> in, std::span<Fr> out, const Fr& domain_tag) {
    const PoseidonConstants& c = poseidon_constants(arity);
    if (in.size() != out.size() * arity)
        throw std::invalid_argument("poseidon_hash_many: in.size() must be out.size() * arity");
    const PermuteFn permute = permute_for_width(c.width);
    auto run = [&](size_t begin, size_t end) {
        for (size_t k = begin; k < end; k++) out[k] = hash_with(c, permute, in.data() + k * arity, domain_tag);
    };
    // One hash is ~10-40 us; below a few per thread the pool's hand-off costs more than it saves.
    if (out.size() < 4 * num_threads()) run(0, out.size());
    else parallel_for(out.size(), run);
}

void poseidon_hash_many(size_t arity, std::span<const Fr> in, std::span<Fr> out) {
    poseidon_hash_many(arity, in, out, poseidon_tag::merkle_tree(arity));
}

size_t poseidon_gadget_constraints(size_t arity) {
    const PoseidonRounds r = poseidon_round_numbers(arity);
    const size_t t = arity + 1;
    return 3 * arity + 4 * t * (r.full - 1) + 4 * r.partial + 1;
}

namespace poseidon_detail {

const CircuitShape& circuit_shape(size_t arity) {
    if (arity == 0 || arity > kPoseidonMaxArity)
        throw std::invalid_argument("poseidon gadget: arity must be in 1..=" + std::to_string(kPoseidonMaxArity));
    static std::array<std::once_flag, kPoseidonMaxArity + 1> once;
    static std::array<std::unique_ptr<const CircuitShape>, kPoseidonMaxArity + 1> table;
    std::call_once(once[arity], [&] {
        table[arity] = std::make_unique<const CircuitShape>(build_circuit_shape(poseidon_constants(arity)));
    });
    return *table[arity];
}

}  // namespace poseidon_detail

}  // namespace cuzk::gadgets
