#include "cuzk/groth16/prover.hpp"

#include "cuzk/groth16/backend.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "cuzk/msm/msm.hpp"
#include "cuzk/poly/ntt.hpp"
#include "cuzk/r1cs/circuit.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "cuzk/util/random.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::groth16 {

namespace {

constexpr TimingLayer kLayer = TimingLayer::Prover;

// Frees a vector's block now (clear() alone keeps the capacity).
template <class T>
void release(std::vector<T>& v) {
    std::vector<T>().swap(v);
}

// r, s (or anything derived from them) wiped when the holder goes away, also on an exception.
struct SecretFrs {
    std::vector<Fr> v;
    ~SecretFrs() {
        if (!v.empty()) secure_wipe(v.data(), v.size() * sizeof(Fr));
    }
};

[[noreturn]] void mismatch(size_t circuit, const std::string& what) {
    throw std::invalid_argument("prove: circuit " + std::to_string(circuit) + ": " + what);
}

// The sizes check_assignment compares an assignment with, from a parameter set or a key shape.
struct Counts {
    const VerifyingKey* vk;
    size_t h, l, a, b_g1, b_g2;
    HConvention convention;
};

// Checks one assignment against the parameters (everything the proof computation indexes), so nothing below reads
// out of bounds; returns the evaluation domain of its constraints.
EvaluationDomain check_sizes(const Counts& p, const r1cs::ProvingAssignment& asg, size_t i) {
    const size_t ni = asg.inputs().size(), na = asg.aux().size();
    auto str = [](size_t x) { return std::to_string(x); };
    if (ni == 0) mismatch(i, "the assignment has no inputs (input 0 must be the constant one)");
    if (p.vk->ic.size() != ni)
        mismatch(i, str(ni) + " inputs (the constant one included) but the verifying key has " + str(p.vk->ic.size()) +
                        " IC points");
    if (p.l != na) mismatch(i, str(na) + " aux variables but the L query has " + str(p.l) + " points");
    if (asg.a_aux_density().size() != na)
        mismatch(i, "a_aux_density tracks " + str(asg.a_aux_density().size()) + " variables, the aux assignment has " +
                        str(na));
    if (asg.b_aux_density().size() != na)
        mismatch(i, "b_aux_density tracks " + str(asg.b_aux_density().size()) + " variables, the aux assignment has " +
                        str(na));
    if (asg.b_input_density().size() != ni)
        mismatch(i, "b_input_density tracks " + str(asg.b_input_density().size()) +
                        " variables, the input assignment has " + str(ni));
    const size_t a_aux = asg.a_aux_density().count();
    if (p.a != ni + a_aux)
        mismatch(i, "the A query has " + str(p.a) + " points but the assignment selects " + str(ni) +
                        " inputs + " + str(a_aux) + " aux (a_aux_density)");
    const size_t b_in = asg.b_input_density().count(), b_aux = asg.b_aux_density().count();
    if (p.b_g1 != b_in + b_aux)
        mismatch(i, "the B_G1 query has " + str(p.b_g1) + " points but the assignment selects " + str(b_in) +
                        " inputs (b_input_density) + " + str(b_aux) + " aux (b_aux_density)");
    if (p.b_g2 != b_in + b_aux)
        mismatch(i, "the B_G2 query has " + str(p.b_g2) + " points but the assignment selects " + str(b_in) +
                        " inputs (b_input_density) + " + str(b_aux) + " aux (b_aux_density)");
    // Deferred products (r1cs::ProvingAssignment::deferred): a, b, c come later, one per compiled row.
    const r1cs::PrecompiledR1cs* pce = asg.deferred_products();
    if (pce && (!asg.a().empty() || !asg.b().empty() || !asg.c().empty()))
        mismatch(i, "a, b, c are both deferred to compiled matrices and given");
    if (pce && (pce->num_inputs != ni || pce->num_aux != na))
        mismatch(i, str(ni) + " inputs and " + str(na) + " aux values, but the matrices its products are deferred to "
                        "have " + str(pce->num_inputs) + " and " + str(pce->num_aux));
    const size_t m = pce ? pce->num_constraints : asg.a().size();
    if (!pce && (asg.b().size() != m || asg.c().size() != m))
        mismatch(i, "a, b, c have " + str(m) + ", " + str(asg.b().size()) + ", " + str(asg.c().size()) +
                        " evaluations (one per constraint each)");
    // bellman's domain stops at 2^31 (EvaluationDomain::from_coeffs refuses exponent Fr::S = 32).
    if (m > (size_t{1} << (Fr::S - 1))) mismatch(i, str(m) + " constraints need an evaluation domain of 2^32 or more");
    EvaluationDomain domain = EvaluationDomain::for_size(m);
    if (p.convention == HConvention::Snarkjs) {
        // A zkey's domain may be larger than the constraints need; it is the H query's length.
        const size_t n = p.h;
        if (n == 0 || (n & (n - 1)) != 0 || n < m || n > (size_t{1} << (Fr::S - 1)))
            mismatch(i, "the H query has " + str(n) + " points, not a power of two >= the " + str(m) +
                            " constraints (snarkjs convention: one point per domain element)");
        domain = EvaluationDomain::for_size(n);
    } else if (p.h != domain.size() - 1)
        mismatch(i, "the H query has " + str(p.h) + " points but " + str(m) + " constraints give a domain of " +
                        str(domain.size()) + ", which needs " + str(domain.size() - 1));
    // bellman / bellperson refuse these (SynthesisError::UnexpectedIdentity): a delta at infinity is a subversion
    // of the parameters and would make every proof trivially forgeable.
    if (p.vk->delta_g1.is_identity() || p.vk->delta_g2.is_identity())
        throw std::invalid_argument("prove: the verifying key's delta is the point at infinity");
    return domain;
}

}  // namespace

EvaluationDomain check_assignment(const Parameters& p, const r1cs::ProvingAssignment& asg, size_t i) {
    return check_sizes({&p.vk, p.h.size(), p.l.size(), p.a.size(), p.b_g1.size(), p.b_g2.size(), p.h_convention},
                       asg, i);
}

EvaluationDomain check_assignment(const KeyShape& k, const r1cs::ProvingAssignment& asg, size_t i) {
    return check_sizes({&k.vk, k.h, k.l, k.a, k.b_g1, k.b_g2, k.h_convention}, asg, i);
}

// A (all inputs, then aux in a_aux_density), B (inputs in b_input_density, then aux in b_aux_density; shared by
// B_G1 and B_G2), L (all aux). The gathered order is the order of the query points setup kept; the three lists
// are split in one pass over the values, read in place.
SplitInputs::SplitInputs(const r1cs::ProvingAssignment& asg)
    : inputs(asg.inputs()),
      aux(asg.aux()),
      a_aux_density(asg.a_aux_density().words()),
      b_input_density(asg.b_input_density().words()),
      b_aux_density(asg.b_aux_density().words()) {}

QuerySplits split_queries(const SplitInputs& in, bool montgomery, const SplitHook& hook) {
    const std::span<const Fr> values[] = {in.inputs, in.aux};
    const uint64_t* const selection[] = {
        kAllValues,           in.a_aux_density,  // A
        in.b_input_density,   in.b_aux_density,  // B
        kNoValues,            kAllValues,        // L
    };
    auto splits = split_scalars_multi(values, 3, selection, nullptr, montgomery, hook);
    QuerySplits q;
    q.a = std::move(splits[0]);
    q.b = std::move(splits[1]);
    q.l = std::move(splits[2]);
    return q;
}

Proof assemble_proof(const VerifyingKey& vk, const G1Jacobian& a_sum, const G1Jacobian& b1_sum,
                     const G2Jacobian& b2_sum, const G1Jacobian& h_sum, const G1Jacobian& l_sum, const Fr& r,
                     const Fr& s) {
    limbs_t<4> rc = r.to_canonical(), sc = s.to_canonical();
    Fr rs = r * s;
    limbs_t<4> rsc = rs.to_canonical();
    const G1Jacobian delta1 = G1Jacobian::from_affine(vk.delta_g1);
    const G2Jacobian delta2 = G2Jacobian::from_affine(vk.delta_g2);
    G1Jacobian A = G1Jacobian::from_affine(vk.alpha_g1) + a_sum + delta1.mul(rc);
    G2Jacobian B = G2Jacobian::from_affine(vk.beta_g2) + b2_sum + delta2.mul(sc);
    G1Jacobian B1 = G1Jacobian::from_affine(vk.beta_g1) + b1_sum + delta1.mul(sc);
    G1Jacobian C = h_sum + l_sum + A.mul(sc) + B1.mul(rc) - delta1.mul(rsc);
    secure_wipe_object(rc);
    secure_wipe_object(sc);
    secure_wipe_object(rs);
    secure_wipe_object(rsc);
    return Proof{A.to_affine(), B.to_affine(), C.to_affine()};
}

namespace {

Proof prove_one(const Parameters& p, r1cs::ProvingAssignment& asg, const EvaluationDomain& domain, const Fr& r,
                const Fr& s, TimingSink* timing, int64_t item) {
    if (asg.deferred_products()) {
        ScopedTiming t(timing, kLayer, "products", item);
        r1cs::complete_products(asg);
    }
    G1Jacobian h_sum;
    {
        std::vector<Fr> h =
            p.h_convention == HConvention::Snarkjs
                ? compute_h_odd_coset(domain, std::move(asg.a()), std::move(asg.b()), std::move(asg.c()), timing, item)
                : compute_h(domain, std::move(asg.a()), std::move(asg.b()), std::move(asg.c()), timing, item);
        release(asg.a());
        release(asg.b());
        release(asg.c());
        ScopedTiming t(timing, kLayer, "msm.h", item);
        h_sum = msm_g1(p.h, std::span<const Fr>(h.data(), p.h.size()));
    }

    ScalarSplit split_a, split_b, split_l;
    {
        ScopedTiming t(timing, kLayer, "msm.split", item);
        QuerySplits q = split_queries(asg);
        split_a = std::move(q.a);
        split_b = std::move(q.b);
        split_l = std::move(q.l);
    }
    G1Jacobian a_sum, b1_sum, l_sum;
    G2Jacobian b2_sum;
    {
        ScopedTiming t(timing, kLayer, "msm.a", item);
        a_sum = msm_g1_split(p.a, split_a);
        split_a = {};
    }
    {
        ScopedTiming t(timing, kLayer, "msm.b_g1", item);
        b1_sum = msm_g1_split(p.b_g1, split_b);
    }
    {
        ScopedTiming t(timing, kLayer, "msm.b_g2", item);
        b2_sum = msm_g2_split(p.b_g2, split_b);
        split_b = {};
    }
    {
        ScopedTiming t(timing, kLayer, "msm.l", item);
        l_sum = msm_g1_split(p.l, split_l);
        split_l = {};
    }

    ScopedTiming t(timing, kLayer, "assembly", item);
    return assemble_proof(p.vk, a_sum, b1_sum, b2_sum, h_sum, l_sum, r, s);
}

}  // namespace

void check_randomness(size_t n, std::span<const Fr> r, std::span<const Fr> s) {
    if (r.size() != n || s.size() != n)
        throw std::invalid_argument("prove: " + std::to_string(n) + " circuits but " + std::to_string(r.size()) +
                                    " values of r and " + std::to_string(s.size()) + " of s");
}

std::vector<Fr> compute_h(const EvaluationDomain& domain, std::vector<Fr> a, std::vector<Fr> b, std::vector<Fr> c,
                          TimingSink* timing, int64_t item) {
    const size_t n = domain.size();
    if (a.size() != b.size() || a.size() != c.size() || a.size() > n)
        throw std::invalid_argument("compute_h: a, b, c have " + std::to_string(a.size()) + ", " +
                                    std::to_string(b.size()) + ", " + std::to_string(c.size()) +
                                    " evaluations for a domain of " + std::to_string(n));
    // Constraints beyond the last one are 0 * 0 = 0: zero padding keeps A*B - C zero on the whole domain.
    a.resize(n);
    b.resize(n);
    c.resize(n);
    {
        ScopedTiming t(timing, kLayer, "ntt.intt", item);
        intt(domain, a);
        intt(domain, b);
        intt(domain, c);
    }
    {
        // A*B has degree up to 2n - 2, so it cannot be taken on the domain itself (where Z vanishes); on the coset
        // g<omega> Z(x) = g^n - 1 is a nonzero constant and the division is pointwise. C needs no coset values:
        // H = coset_intt((A*B - C)(g omega^i)) / Z(g) and coset_intt of C's coset values is C's coefficients, so
        // H = (coset_intt((A*B)(g omega^i)) - C) / Z(g), the same field elements with one transform fewer.
        ScopedTiming t(timing, kLayer, "ntt.coset", item);
        coset_ntt(domain, a);
        coset_ntt(domain, b);
    }
    {
        ScopedTiming t(timing, kLayer, "ntt.h", item);
        parallel_for(n, [&](size_t begin, size_t end) {
            for (size_t i = begin; i < end; i++) a[i] *= b[i];
        });
        release(b);
        coset_intt(domain, a);
        const Fr z_inv = domain.z_on_coset().inverse().value();  // g^n != 1 since g = 7 generates Fr^*
        parallel_for(n, [&](size_t begin, size_t end) {
            for (size_t i = begin; i < end; i++) a[i] = (a[i] - c[i]) * z_inv;
        });
        release(c);
        // deg H <= n - 2, so the top coefficient is zero for a satisfied assignment; bellman drops it either way.
        a.resize(n - 1);
    }
    return a;
}

namespace {

// 5^T: ffjavascript takes the smallest quadratic non-residue of Fr (5) to the odd part T of r - 1.
Fr snarkjs_root_32() {
    static const Fr w = Fr::from_u64(5).pow(Fr::T);
    return w;
}

// Evaluations at w^j (snarkjs order) -> the same polynomial's evaluations at s w^j, in place.
void to_odd_coset(const EvaluationDomain& domain, std::vector<Fr>& v, std::vector<Fr>& tmp, uint64_t e,
                  const Fr& shift) {
    const size_t n = domain.size(), mask = n - 1;
    // w^j = omega^(e j): put value j where cuzk's NTT expects the point omega^(e j).
    parallel_for(n, [&](size_t begin, size_t end) {
        for (size_t j = begin; j < end; j++) tmp[(e * j) & mask] = v[j];
    });
    intt(domain, tmp);
    parallel_for(n, [&](size_t begin, size_t end) {
        Fr sk = shift.pow((uint64_t)begin);
        for (size_t k = begin; k < end; k++) {
            tmp[k] *= sk;
            sk *= shift;
        }
    });
    ntt(domain, tmp);  // tmp[m] = P(s omega^m)
    parallel_for(n, [&](size_t begin, size_t end) {
        for (size_t j = begin; j < end; j++) v[j] = tmp[(e * j) & mask];
    });
}

}  // namespace

uint64_t snarkjs_root_exponent() {
    // Pohlig-Hellman in the cyclic group of order 2^32: fix e bit by bit so that (w / omega^e)^(2^(31 - k)) == 1.
    static const uint64_t e = [] {
        const Fr omega = Fr::root_of_unity(), w = snarkjs_root_32();
        uint64_t x = 0;
        for (unsigned k = 0; k < 32; k++) {
            Fr t = w * omega.pow(x).inverse().value();
            for (unsigned i = 0; i < 31 - k; i++) t = t.square();
            if (t != Fr::one()) x |= uint64_t{1} << k;
        }
        if (omega.pow(x) != w) throw std::logic_error("snarkjs_root_exponent: no discrete log (wrong constants)");
        return x;
    }();
    return e;
}

Fr snarkjs_root_of_unity(const EvaluationDomain& domain) {
    Fr w = snarkjs_root_32();
    for (unsigned i = domain.log_size(); i < 32; i++) w = w.square();
    return w;
}

Fr snarkjs_coset_shift(const EvaluationDomain& domain) {
    if (domain.log_size() >= 32) throw std::invalid_argument("snarkjs_coset_shift: the 2^32 domain has no 2n-th root");
    Fr w = snarkjs_root_32();
    for (unsigned i = domain.log_size() + 1; i < 32; i++) w = w.square();
    return w;
}

std::vector<Fr> compute_h_odd_coset(const EvaluationDomain& domain, std::vector<Fr> a, std::vector<Fr> b,
                                    std::vector<Fr> c, TimingSink* timing, int64_t item) {
    const size_t n = domain.size();
    if (a.size() != b.size() || a.size() != c.size() || a.size() > n || domain.log_size() >= 32)
        throw std::invalid_argument("compute_h_odd_coset: a, b, c have " + std::to_string(a.size()) + ", " +
                                    std::to_string(b.size()) + ", " + std::to_string(c.size()) +
                                    " evaluations for a domain of " + std::to_string(n));
    a.resize(n);
    b.resize(n);
    c.resize(n);
    const uint64_t e = snarkjs_root_exponent();
    const Fr shift = snarkjs_coset_shift(domain);
    std::vector<Fr> tmp(n);
    {
        // The spans keep compute_h's names: "ntt.coset" covers the three interpolate-and-shift transforms.
        ScopedTiming t(timing, kLayer, "ntt.coset", item);
        to_odd_coset(domain, a, tmp, e, shift);
        to_odd_coset(domain, b, tmp, e, shift);
        to_odd_coset(domain, c, tmp, e, shift);
    }
    release(tmp);
    {
        ScopedTiming t(timing, kLayer, "ntt.h", item);
        parallel_for(n, [&](size_t begin, size_t end) {
            for (size_t i = begin; i < end; i++) a[i] = a[i] * b[i] - c[i];
        });
    }
    return a;
}

std::vector<Proof> prove_from_assignments(const Parameters& params, std::span<r1cs::ProvingAssignment> assignments,
                                          std::span<const Fr> r, std::span<const Fr> s, TimingSink* timing) {
    ScopedTiming total(timing, kLayer, "prove");
    check_randomness(assignments.size(), r, s);
    std::vector<EvaluationDomain> domains;
    domains.reserve(assignments.size());
    for (size_t i = 0; i < assignments.size(); i++) domains.push_back(check_assignment(params, assignments[i], i));
    std::vector<Proof> proofs;
    proofs.reserve(assignments.size());
    for (size_t i = 0; i < assignments.size(); i++)
        proofs.push_back(prove_one(params, assignments[i], domains[i], r[i], s[i], timing, (int64_t)i));
    return proofs;
}

std::vector<Proof> prove(const Parameters& params, std::span<const r1cs::Circuit* const> circuits,
                         std::span<const Fr> r, std::span<const Fr> s, TimingSink* timing) {
    ScopedTiming total(timing, kLayer, "prove");
    check_randomness(circuits.size(), r, s);
    for (size_t i = 0; i < circuits.size(); i++)
        if (!circuits[i]) throw std::invalid_argument("prove: circuit " + std::to_string(i) + " is null");
    std::vector<Proof> proofs;
    proofs.reserve(circuits.size());
    for (size_t i = 0; i < circuits.size(); i++) {
        r1cs::ProvingAssignment asg;
        {
            ScopedTiming t(timing, kLayer, "synthesis", (int64_t)i);
            r1cs::synthesize_groth16(asg, *circuits[i]);
        }
        EvaluationDomain domain = check_assignment(params, asg, i);
        proofs.push_back(prove_one(params, asg, domain, r[i], s[i], timing, (int64_t)i));
    }
    return proofs;
}

std::vector<Proof> prove(const Parameters& params, std::span<const r1cs::Circuit* const> circuits,
                         TimingSink* timing) {
    SecretFrs r, s;
    r.v.reserve(circuits.size());
    s.v.reserve(circuits.size());
    OsRng rng;
    for (size_t i = 0; i < circuits.size(); i++) {
        r.v.push_back(Fr::random(rng));
        s.v.push_back(Fr::random(rng));
    }
    return prove(params, circuits, r.v, s.v, timing);
}

std::vector<Proof> CpuBackend::prove(std::span<r1cs::ProvingAssignment> assignments, std::span<const Fr> r,
                                     std::span<const Fr> s, TimingSink* timing) {
    return prove_from_assignments(params_, assignments, r, s, timing);
}

size_t CpuBackend::working_bytes() const { return (params_.h.size() + 1) * sizeof(Fr); }

}  // namespace cuzk::groth16
