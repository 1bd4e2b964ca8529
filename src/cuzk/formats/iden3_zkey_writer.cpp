#include "cuzk/formats/iden3_zkey_writer.hpp"

#include <stdexcept>
#include <string>

#include "cuzk/ff/fq.hpp"
#include "cuzk/groth16/prover.hpp"
#include "cuzk/poly/domain.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::formats::iden3 {

namespace {

// [s]G by 8-bit windows: table[k][d - 1] = [d 2^(8k)] G, so a multiplication is 32 mixed additions.
template <class J>
class GeneratorTable {
  public:
    using A = typename J::AffineT;
    GeneratorTable() : table_(32 * 255) {
        J base = J::generator();
        for (size_t k = 0; k < 32; k++) {
            std::vector<J> run(255);
            run[0] = base;
            for (size_t d = 1; d < 255; d++) run[d] = run[d - 1] + base;
            auto aff = J::batch_to_affine(run);
            std::copy(aff.begin(), aff.end(), table_.begin() + (ptrdiff_t)(k * 255));
            base = run[254] + base;  // 256 * base
        }
    }
    // Affine results in blocks (one inversion per block).
    std::vector<A> mul_all(const std::vector<Fr>& scalars) const {
        std::vector<A> out(scalars.size());
        parallel_for(scalars.size(), [&](size_t begin, size_t end) {
            std::vector<J> tmp;
            tmp.reserve(end - begin);
            for (size_t i = begin; i < end; i++) {
                limbs_t<4> k = scalars[i].to_canonical();
                J acc = J::identity();
                for (size_t w = 0; w < 32; w++) {
                    unsigned d = (unsigned)(k[w / 8] >> (8 * (w % 8))) & 0xff;
                    if (d) acc = acc.add_mixed(table_[w * 255 + d - 1]);
                }
                tmp.push_back(acc);
            }
            auto aff = J::batch_to_affine(tmp);
            std::copy(aff.begin(), aff.end(), out.begin() + (ptrdiff_t)begin);
        });
        return out;
    }

  private:
    std::vector<A> table_;
};

struct Writer {
    std::vector<uint8_t> v;
    void u32(uint32_t x) {
        for (int i = 0; i < 4; i++) v.push_back((uint8_t)(x >> (8 * i)));
    }
    void u64(uint64_t x) {
        for (int i = 0; i < 8; i++) v.push_back((uint8_t)(x >> (8 * i)));
    }
    template <size_t N>
    void limbs(const limbs_t<N>& l) {
        for (size_t i = 0; i < N; i++) u64(l[i]);
    }
    void fq(const Fq& x) { limbs(x.mont_limbs()); }  // the file's Montgomery radix is cuzk's (2^384)
    void g1(const G1Affine& p) {
        if (p.is_identity()) return v.resize(v.size() + 96, 0);
        fq(p.x);
        fq(p.y);
    }
    void g2(const G2Affine& p) {
        if (p.is_identity()) return v.resize(v.size() + 192, 0);
        fq(p.x.c0);
        fq(p.x.c1);
        fq(p.y.c0);
        fq(p.y.c1);
    }
};

}  // namespace

std::vector<uint8_t> make_test_zkey(const R1cs& r1cs, const groth16::ToxicWaste& tw) {
    const uint32_t n_public = r1cs.n_public(), n_vars = r1cs.n_wires, nc = r1cs.n_constraints;
    const uint64_t m = (uint64_t)nc + n_public + 1;
    if (m > (uint64_t{1} << 28)) throw std::invalid_argument("make_test_zkey: more than 2^28 constraints");
    const EvaluationDomain d = EvaluationDomain::for_size((size_t)m);
    const size_t n = d.size();
    if (tw.alpha.is_zero() || tw.beta.is_zero() || tw.gamma.is_zero() || tw.delta.is_zero())
        throw std::invalid_argument("make_test_zkey: a zero secret");
    const Fr w = groth16::snarkjs_root_of_unity(d), s = groth16::snarkjs_coset_shift(d);
    // tau^(2n) != 1 keeps tau off the 2n domain (and so off the n domain): every tau - x below is invertible.
    const Fr tau = tw.tau, tau_n = tau.pow((uint64_t)n), tau_2n = tau_n * tau_n;
    if (tau_2n == Fr::one()) throw std::invalid_argument("make_test_zkey: tau lies on the 2n domain");

    // L_j(tau) = (tau^n - 1) / n * w^j / (tau - w^j) on the n domain; L2_k likewise on the 2n domain (odd k).
    std::vector<Fr> lag(n), lag2(n);
    {
        const Fr zn = (tau_n - Fr::one()) * Fr::from_u64(n).inverse().value();
        const Fr z2n = (tau_2n - Fr::one()) * Fr::from_u64(2 * n).inverse().value();
        parallel_for(n, [&](size_t begin, size_t end) {
            Fr wj = w.pow((uint64_t)begin);
            for (size_t j = begin; j < end; j++) {
                const Fr odd = s * wj;  // w_2n^(2j + 1)
                lag[j] = zn * wj * (tau - wj).inverse().value();
                lag2[j] = z2n * odd * (tau - odd).inverse().value();
                wj *= w;
            }
        });
    }
    std::vector<Fr> u(n_vars, Fr::zero()), v(n_vars, Fr::zero()), c(n_vars, Fr::zero());
    const SparseRows* mat[3] = {&r1cs.a, &r1cs.b, &r1cs.c};
    std::vector<Fr>* col[3] = {&u, &v, &c};
    for (int k = 0; k < 3; k++)
        for (size_t j = 0; j < nc; j++)
            for (size_t t = mat[k]->row_start[j]; t < mat[k]->row_start[j + 1]; t++)
                (*col[k])[mat[k]->wire[t]] += mat[k]->coeff[t] * lag[j];
    for (uint32_t i = 0; i <= n_public; i++) u[i] += lag[nc + i];

    const Fr gamma_inv = tw.gamma.inverse().value(), delta_inv = tw.delta.inverse().value();
    std::vector<Fr> ic(n_public + 1), cq(n_vars - n_public - 1), hq(n);
    for (uint32_t i = 0; i < n_vars; i++) {
        Fr x = tw.beta * u[i] + tw.alpha * v[i] + c[i];
        if (i <= n_public) ic[i] = x * gamma_inv;
        else cq[i - n_public - 1] = x * delta_inv;
    }
    for (size_t j = 0; j < n; j++) hq[j] = lag2[j] * delta_inv;

    const GeneratorTable<G1Jacobian> g1;
    const GeneratorTable<G2Jacobian> g2;
    auto one = [&](auto& table, const Fr& x) { return table.mul_all(std::vector<Fr>{x})[0]; };

    // Section bodies.
    std::vector<std::pair<uint32_t, std::vector<uint8_t>>> sections;
    {
        Writer b;
        b.u32(1);  // Groth16
        sections.push_back({1, b.v});
    }
    {
        Writer b;
        b.u32(48);
        b.limbs(Fq::P);
        b.u32(32);
        b.limbs(Fr::P);
        b.u32(n_vars);
        b.u32(n_public);
        b.u32((uint32_t)n);
        b.g1(one(g1, tw.alpha));
        b.g1(one(g1, tw.beta));
        b.g2(one(g2, tw.beta));
        b.g2(one(g2, tw.gamma));
        b.g1(one(g1, tw.delta));
        b.g2(one(g2, tw.delta));
        sections.push_back({2, b.v});
    }
    {
        Writer b;
        for (const auto& p : g1.mul_all(ic)) b.g1(p);
        sections.push_back({3, b.v});
    }
    {
        // value * R^2 with R = 2^256 mod r (Fr::R is that residue, canonical).
        const Fr r_mod = Fr::from_canonical_unchecked(Fr::R), r2 = r_mod * r_mod;
        Writer b;
        uint32_t count = 0;
        b.u32(0);
        auto put = [&](uint32_t matrix, uint32_t row, uint32_t wire, const Fr& value) {
            b.u32(matrix);
            b.u32(row);
            b.u32(wire);
            b.limbs((value * r2).to_canonical());
            count++;
        };
        for (uint32_t j = 0; j < nc; j++) {
            for (size_t t = r1cs.a.row_start[j]; t < r1cs.a.row_start[j + 1]; t++) put(0, j, r1cs.a.wire[t], r1cs.a.coeff[t]);
            for (size_t t = r1cs.b.row_start[j]; t < r1cs.b.row_start[j + 1]; t++) put(1, j, r1cs.b.wire[t], r1cs.b.coeff[t]);
        }
        for (uint32_t i = 0; i <= n_public; i++) put(0, nc + i, i, Fr::one());
        for (int k = 0; k < 4; k++) b.v[k] = (uint8_t)(count >> (8 * k));
        sections.push_back({4, b.v});
    }
    auto g1_section = [&](uint32_t type, const std::vector<Fr>& scalars) {
        Writer b;
        for (const auto& p : g1.mul_all(scalars)) b.g1(p);
        sections.push_back({type, std::move(b.v)});
    };
    g1_section(5, u);
    g1_section(6, v);
    {
        Writer b;
        for (const auto& p : g2.mul_all(v)) b.g2(p);
        sections.push_back({7, std::move(b.v)});
    }
    g1_section(8, cq);
    g1_section(9, hq);

    Writer f;
    for (char ch : std::string_view("zkey")) f.v.push_back((uint8_t)ch);
    f.u32(1);
    f.u32((uint32_t)sections.size());
    for (auto& [type, body] : sections) {
        f.u32(type);
        f.u64(body.size());
        f.v.insert(f.v.end(), body.begin(), body.end());
    }
    return f.v;
}

}  // namespace cuzk::formats::iden3
