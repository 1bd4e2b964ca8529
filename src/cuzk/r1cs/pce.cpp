#include "cuzk/r1cs/pce.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <type_traits>

#include "cuzk/formats/bellman_params.hpp"

namespace cuzk::r1cs {

// The on-disk term is the in-memory Term on a little-endian host (u32 raw variable, u32 flag, four u64 limbs), so
// term arrays are written and read as one block.
static_assert(std::endian::native == std::endian::little, "the PCE format is little-endian");
static_assert(std::is_trivially_copyable_v<Term>);
static_assert(sizeof(Variable) == 4 && sizeof(Fr) == 32);
static_assert(sizeof(Term) == 40 && offsetof(Term, var) == 0 && offsetof(Term, coeff_is_one) == 4 &&
              offsetof(Term, coeff) == 8);

namespace {

// A nonzero coefficient is what marks density in ProvingAssignment::eval_tracking.
bool marks_density(const Term& t) { return t.coeff_is_one || !t.coeff.is_zero(); }

DensityTracker empty_tracker(size_t n) {
    DensityTracker d;
    for (size_t i = 0; i < n; i++) d.add_element();
    return d;
}

void check_variables(const SparseMatrix& m, char name, size_t num_inputs, size_t num_aux) {
    for (const Term& t : m.terms) {
        bool ok = t.var.is_input() ? t.var.index() < num_inputs : t.var.index() < num_aux;
        if (!ok)
            throw SynthesisError(SynthesisErrorKind::Other, std::string("constraint matrix ") + name +
                                                                " uses unallocated " +
                                                                (t.var.is_input() ? "input " : "aux ") +
                                                                std::to_string(t.var.index()));
    }
}

// One row: sum coeff * z[var], the multiplication skipped for coefficient one. Zero-coefficient terms need no
// special case: they add zero, and Fr arithmetic is canonical, so the sum is bit-identical to ProvingAssignment's.
inline Fr dot_row(const Term* t, const Term* end, const Fr* inputs, const Fr* aux) {
    Fr acc = Fr::zero();
    for (; t != end; ++t) {
        const Fr& v = t->var.is_input() ? inputs[t->var.index()] : aux[t->var.index()];
        if (t->coeff_is_one) acc += v;
        else acc += t->coeff * v;
    }
    return acc;
}

}  // namespace

void derive_densities(PrecompiledR1cs& pce) {
    pce.a_aux_density = empty_tracker(pce.num_aux);
    pce.b_input_density = empty_tracker(pce.num_inputs);
    pce.b_aux_density = empty_tracker(pce.num_aux);
    for (const Term& t : pce.a.terms)
        if (t.var.is_aux() && marks_density(t)) pce.a_aux_density.mark(t.var.index());
    for (const Term& t : pce.b.terms) {
        if (!marks_density(t)) continue;
        if (t.var.is_input()) pce.b_input_density.mark(t.var.index());
        else pce.b_aux_density.mark(t.var.index());
    }
}

PrecompiledR1cs compile_r1cs(const Circuit& circuit) {
    KeygenAssembly ka;
    synthesize_groth16(ka, circuit);
    PrecompiledR1cs pce;
    pce.num_inputs = ka.num_inputs();
    pce.num_aux = ka.num_aux();
    pce.num_constraints = ka.num_constraints();
    // KeygenAssembly hands out its matrices by const reference only; one copy per compile.
    pce.a = ka.a();
    pce.b = ka.b();
    pce.c = ka.c();
    check_variables(pce.a, 'A', pce.num_inputs, pce.num_aux);
    check_variables(pce.b, 'B', pce.num_inputs, pce.num_aux);
    check_variables(pce.c, 'C', pce.num_inputs, pce.num_aux);
    derive_densities(pce);
    return pce;
}

void evaluate(const PrecompiledR1cs& pce, std::span<const Fr> inputs, std::span<const Fr> aux, std::vector<Fr>& a,
              std::vector<Fr>& b, std::vector<Fr>& c, ThreadPool& pool) {
    if (inputs.size() != pce.num_inputs)
        throw std::invalid_argument("pce evaluate: " + std::to_string(inputs.size()) + " inputs given, circuit has " +
                                    std::to_string(pce.num_inputs));
    if (aux.size() != pce.num_aux)
        throw std::invalid_argument("pce evaluate: " + std::to_string(aux.size()) +
                                    " aux values given, circuit has " + std::to_string(pce.num_aux));
    // The matrices are checked against the counts when compiled or read; a hand-built one is checked here so that
    // the unchecked indexing below cannot read out of bounds.
    for (const SparseMatrix* m : {&pce.a, &pce.b, &pce.c})
        if (m->rows() != pce.num_constraints || m->row_start.back() != m->terms.size())
            throw std::invalid_argument("pce evaluate: matrix shape does not match num_constraints");
    const size_t n = pce.num_constraints;
    a.resize(n);
    b.resize(n);
    c.resize(n);
    const Fr* in = inputs.data();
    const Fr* ax = aux.data();
    // Rows vary in length (bit packings vs. single products), so a few chunks per thread even out the load.
    size_t chunks = pool.size() == 1 ? 1 : pool.size() * 4;
    pool.parallel_for(
        n,
        [&](size_t lo, size_t hi) {
            auto spmv = [&](const SparseMatrix& m, Fr* out) {
                const Term* terms = m.terms.data();
                const uint64_t* rs = m.row_start.data();
                for (size_t j = lo; j < hi; j++) out[j] = dot_row(terms + rs[j], terms + rs[j + 1], in, ax);
            };
            spmv(pce.a, a.data());
            spmv(pce.b, b.data());
            spmv(pce.c, c.data());
        },
        chunks);
}

void evaluate(const PrecompiledR1cs& pce, std::span<const Fr> inputs, std::span<const Fr> aux, std::vector<Fr>& a,
              std::vector<Fr>& b, std::vector<Fr>& c) {
    evaluate(pce, inputs, aux, a, b, c, ThreadPool::global());
}

bool operator==(const SparseMatrix& x, const SparseMatrix& y) {
    if (x.row_start != y.row_start || x.terms.size() != y.terms.size()) return false;
    for (size_t i = 0; i < x.terms.size(); i++) {
        const Term &s = x.terms[i], &t = y.terms[i];
        if (!(s.var == t.var) || s.coeff_is_one != t.coeff_is_one || !(s.coeff == t.coeff)) return false;
    }
    return true;
}

bool operator==(const PrecompiledR1cs& x, const PrecompiledR1cs& y) {
    return x.num_inputs == y.num_inputs && x.num_aux == y.num_aux && x.num_constraints == y.num_constraints &&
           x.a == y.a && x.b == y.b && x.c == y.c && x.a_aux_density == y.a_aux_density &&
           x.b_input_density == y.b_input_density && x.b_aux_density == y.b_aux_density;
}

}  // namespace cuzk::r1cs
