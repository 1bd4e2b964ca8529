#include "cuzk/formats/iden3_circom.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cuzk/r1cs/keygen_assembly.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::formats::iden3 {

namespace {

// Which variables have a nonzero coefficient in A (per wire) and in B, exactly as ProvingAssignment's density
// trackers mark them when zkey_assignment enforces the same combinations.
struct WireDensity {
    std::vector<uint8_t> in_a, in_b;
};

WireDensity wire_density(const Zkey& z) {
    WireDensity d{std::vector<uint8_t>(z.n_vars, 0), std::vector<uint8_t>(z.n_vars, 0)};
    for (const auto& c : z.coefficients) {
        if (c.value.is_zero()) continue;
        (c.matrix == 0 ? d.in_a : d.in_b)[c.signal] = 1;
    }
    return d;
}

r1cs::Variable variable(uint32_t wire, uint32_t n_public) {
    return wire <= n_public ? r1cs::Variable::input(wire) : r1cs::Variable::aux(wire - n_public - 1);
}

}  // namespace

groth16::VerifyingKey zkey_verifying_key(const Zkey& z) {
    groth16::VerifyingKey vk;
    vk.alpha_g1 = z.alpha_1;
    vk.beta_g1 = z.beta_1;
    vk.beta_g2 = z.beta_2;
    vk.gamma_g2 = z.gamma_2;
    vk.delta_g1 = z.delta_1;
    vk.delta_g2 = z.delta_2;
    vk.ic = z.ic;
    return vk;
}

namespace {

// Keeps the points whose wire `keep` selects, in order, in place (no second array; the memory is given back when
// less than half is kept).
template <class P, class Keep>
void compact(std::vector<P>& v, Keep&& keep) {
    size_t out = 0;
    for (size_t w = 0; w < v.size(); w++)
        if (keep(w)) v[out++] = v[w];
    const bool shrink = 2 * out < v.size();
    v.resize(out);
    if (shrink) v.shrink_to_fit();
}

// The zkey's point sections, passed by value so that a zkey given up (the && overload) lends its arrays: A, B1
// and B2 are compacted in place to the wires in their density, H and C are taken as they are.
groth16::Parameters build_parameters(const Zkey& z, std::vector<G1Affine> a, std::vector<G1Affine> b1,
                                     std::vector<G2Affine> b2, std::vector<G1Affine> h, std::vector<G1Affine> c) {
    if (a.size() != z.n_vars || b1.size() != z.n_vars || b2.size() != z.n_vars || h.size() != z.domain_size ||
        c.size() + z.n_public + 1 != z.n_vars)
        throw std::invalid_argument("zkey_to_parameters: the zkey was read without its proving key");
    groth16::Parameters p;
    p.vk = zkey_verifying_key(z);
    p.h_convention = groth16::HConvention::Snarkjs;
    p.h = std::move(h);
    p.l = std::move(c);
    const WireDensity d = wire_density(z);
    const uint32_t n_in = z.n_public + 1;
    // A: every input (the seam does not track input density for A), then the aux in A's density.
    compact(a, [&](size_t w) { return w < n_in || d.in_a[w]; });
    compact(b1, [&](size_t w) { return d.in_b[w] != 0; });
    compact(b2, [&](size_t w) { return d.in_b[w] != 0; });
    p.a = std::move(a);
    p.b_g1 = std::move(b1);
    p.b_g2 = std::move(b2);
    return p;
}

}  // namespace

groth16::Parameters zkey_to_parameters(const Zkey& z) { return build_parameters(z, z.a, z.b1, z.b2, z.h, z.c); }

groth16::Parameters zkey_to_parameters(Zkey&& z) {
    groth16::Parameters p =
        build_parameters(z, std::move(z.a), std::move(z.b1), std::move(z.b2), std::move(z.h), std::move(z.c));
    z.a.clear(), z.b1.clear(), z.b2.clear(), z.h.clear(), z.c.clear();  // moved from: empty, said explicitly
    return p;
}

std::vector<Fr> public_signals(const Witness& w, uint32_t n_public) {
    if (w.values.size() < (size_t)n_public + 1)
        throw std::invalid_argument("public_signals: the witness has " + std::to_string(w.values.size()) +
                                    " values, fewer than " + std::to_string(n_public + 1));
    return std::vector<Fr>(w.values.begin() + 1, w.values.begin() + 1 + n_public);
}

namespace {

void check_witness(const Zkey& z, const Witness& w) {
    if (w.values.size() != z.n_vars)
        throw std::invalid_argument("the witness has " + std::to_string(w.values.size()) + " values but the zkey has " +
                                    std::to_string(z.n_vars) + " signals (a witness of another circuit?)");
    if (w.values.empty() || w.values[0] != Fr::one())
        throw std::invalid_argument("witness value 0 (the constant one) is not 1");
}

// The zkey's system into `cs`: wires 0..n_public as inputs, the rest as aux, and one constraint A_i * B_i = 0 per
// row (the zkey has no C: for a satisfied circuit c = a * b, set by the callers). `value(wire)` gives the values.
template <class CS, class Value>
void record_system(CS& cs, const Zkey& z, Value&& value) {
    for (uint32_t i = 0; i <= z.n_public; i++) cs.alloc_input("", [&, i] { return value(i); });
    for (uint32_t i = z.n_public + 1; i < z.n_vars; i++) cs.alloc("", [&, i] { return value(i); });

    // Coefficients bucketed by constraint (counting sort; the file's order is not relied on).
    uint32_t rows = 0;
    for (const auto& c : z.coefficients) rows = std::max(rows, c.constraint + 1);
    std::vector<uint32_t> start(rows + 1, 0);
    for (const auto& c : z.coefficients) start[c.constraint + 1]++;
    for (uint32_t i = 0; i < rows; i++) start[i + 1] += start[i];
    std::vector<uint32_t> order(z.coefficients.size()), fill(start.begin(), start.end() - 1);
    for (uint32_t k = 0; k < z.coefficients.size(); k++) order[fill[z.coefficients[k].constraint]++] = k;

    const r1cs::LC zero = r1cs::LC::zero();
    for (uint32_t row = 0; row < rows; row++) {
        r1cs::LC a, b;
        for (uint32_t k = start[row]; k < start[row + 1]; k++) {
            const ZkeyCoefficient& c = z.coefficients[order[k]];
            (c.matrix == 0 ? a : b).add(c.value, variable(c.signal, z.n_public));
        }
        cs.enforce("", a, b, zero);
    }
}

void set_c_to_a_times_b(r1cs::ProvingAssignment& asg) {
    auto& av = asg.a();
    auto& bv = asg.b();
    auto& cv = asg.c();
    parallel_for(cv.size(), [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; i++) cv[i] = av[i] * bv[i];
    });
}

}  // namespace

// The assignment straight from the coefficients, as ProvingAssignment would record record_system's rows (same a,
// b, c and densities; tests compare it with the compiled route): the coefficients are bucketed by row once, then
// the rows are summed in parallel (a row's sum does not depend on the order of its terms).
r1cs::ProvingAssignment zkey_assignment(const Zkey& z, const Witness& w) {
    check_witness(z, w);
    const auto& coef = z.coefficients;
    uint32_t rows = 0;
    for (const auto& c : coef) rows = std::max(rows, c.constraint + 1);
    std::vector<uint32_t> start(rows + 1, 0);
    for (const auto& c : coef) start[c.constraint + 1]++;
    for (uint32_t i = 0; i < rows; i++) start[i + 1] += start[i];
    std::vector<uint32_t> order(coef.size()), fill(start.begin(), start.end() - 1);
    for (uint32_t k = 0; k < coef.size(); k++) order[fill[coef[k].constraint]++] = k;

    const uint32_t n_in = z.n_public + 1;
    std::vector<Fr> a(rows), b(rows), c(rows);
    parallel_for(rows, [&](size_t begin, size_t end) {
        for (size_t row = begin; row < end; row++) {
            Fr sa = Fr::zero(), sb = Fr::zero();
            for (uint32_t k = start[row]; k < start[row + 1]; k++) {
                const ZkeyCoefficient& e = coef[order[k]];
                (e.matrix == 0 ? sa : sb) += e.value * w.values[e.signal];
            }
            a[row] = sa, b[row] = sb, c[row] = sa * sb;
        }
    });
    // Densities as ProvingAssignment marks them: a variable with a nonzero coefficient in some A (aux only) or B row.
    const WireDensity d = wire_density(z);
    r1cs::DensityTracker a_aux, b_in, b_aux;
    for (uint32_t i = 0; i < z.n_vars; i++) {
        if (i < n_in) {
            b_in.add_element();
            if (d.in_b[i]) b_in.mark(i);
        } else {
            a_aux.add_element(), b_aux.add_element();
            if (d.in_a[i]) a_aux.mark(i - n_in);
            if (d.in_b[i]) b_aux.mark(i - n_in);
        }
    }
    std::vector<Fr> inputs(w.values.begin(), w.values.begin() + n_in);
    r1cs::AuxValues aux(w.values.begin() + n_in, w.values.end());
    return r1cs::ProvingAssignment::from_parts(std::move(inputs), std::move(aux), std::move(a), std::move(b),
                                               std::move(c), std::move(a_aux), std::move(b_in), std::move(b_aux));
}

r1cs::PrecompiledR1cs zkey_matrices(const Zkey& z) {
    r1cs::KeygenAssembly ka(true);  // compact recording
    record_system(ka, z, [](uint32_t) { return Fr::zero(); });
    return r1cs::compile_recorded(ka);
}

r1cs::ProvingAssignment zkey_assignment(const r1cs::PrecompiledR1cs& rows, const Zkey& z, const Witness& w) {
    check_witness(z, w);
    std::vector<Fr> inputs(w.values.begin(), w.values.begin() + z.n_public + 1);
    r1cs::AuxValues aux(w.values.begin() + z.n_public + 1, w.values.end());
    std::vector<Fr> a, b, c;
    r1cs::evaluate(rows, inputs, aux, a, b, c, ThreadPool::global());  // checks the sizes against the compiled ones
    auto asg = r1cs::ProvingAssignment::from_parts(std::move(inputs), std::move(aux), std::move(a), std::move(b),
                                                   std::move(c), rows.a_aux_density, rows.b_input_density,
                                                   rows.b_aux_density);
    set_c_to_a_times_b(asg);
    return asg;
}

ConstraintEvaluations evaluate_r1cs(const R1cs& r, const Witness& w) {
    if (w.values.size() != r.n_wires)
        throw std::invalid_argument("the witness has " + std::to_string(w.values.size()) + " values but the r1cs has " +
                                    std::to_string(r.n_wires) + " wires");
    ConstraintEvaluations e;
    const SparseRows* m[3] = {&r.a, &r.b, &r.c};
    std::vector<Fr>* out[3] = {&e.a, &e.b, &e.c};
    for (int k = 0; k < 3; k++) {
        out[k]->assign(r.n_constraints, Fr::zero());
        const SparseRows& s = *m[k];
        for (size_t i = 0; i < r.n_constraints; i++) {
            Fr acc = Fr::zero();
            for (size_t t = s.row_start[i]; t < s.row_start[i + 1]; t++) acc += s.coeff[t] * w.values[s.wire[t]];
            (*out[k])[i] = acc;
        }
    }
    return e;
}

}  // namespace cuzk::formats::iden3
