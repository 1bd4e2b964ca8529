// Groth16 keys and proofs over BLS12-381, laid out as bellman/bellperson lay them out (formats/ reads and writes
// their files). Points are affine; the queries hold exactly the points the files hold.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuzk/ec/g1.hpp"
#include "cuzk/ec/g2.hpp"

namespace cuzk::groth16 {

struct VerifyingKey {
    G1Affine alpha_g1;
    G1Affine beta_g1;
    G2Affine beta_g2;
    G2Affine gamma_g2;
    G1Affine delta_g1;
    G2Affine delta_g2;
    // [(beta*u_i(tau) + alpha*v_i(tau) + w_i(tau)) / gamma]_1 for every public input i, ic[0] for the constant one.
    std::vector<G1Affine> ic;

    size_t num_public_inputs() const { return ic.empty() ? 0 : ic.size() - 1; }  // not counting the constant one
    friend bool operator==(const VerifyingKey&, const VerifyingKey&) = default;
};

// Which QAP domain and H basis a parameter set was made for (the prover seam serves both):
//   Bellman  constraint j at omega^j, omega = 7^T squared down to the domain (bellman, bellperson, cuzk's setup);
//            h = [tau^i Z(tau) / delta]_1 for i < n - 1, and the prover divides A*B - C by Z on the coset 7<omega>.
//   Snarkjs  constraint j at w^j, w = 5^T squared down (ffjavascript's roots, 5 being the smallest non-residue);
//            h = n points, the Lagrange basis of the 2n domain at its odd indices over delta (snarkjs .zkey), and the
//            prover evaluates A*B - C on the odd coset w_2n<w> with no division (Z = -2 there, folded into h).
enum class HConvention : uint8_t { Bellman, Snarkjs };

struct Parameters {
    VerifyingKey vk;
    // Bellman: [tau^i * Z(tau) / delta]_1 for i in [0, n - 1), n the evaluation domain size. Snarkjs: see above.
    std::vector<G1Affine> h;
    // [(beta*u_j(tau) + alpha*v_j(tau) + w_j(tau)) / delta]_1 for every auxiliary (private) variable j.
    std::vector<G1Affine> l;
    // [u_i(tau)]_1 for the inputs, then the aux variables, skipping those whose u_i is zero (bellman drops the points
    // at infinity; the prover's density tracker says which variables have a point).
    std::vector<G1Affine> a;
    // [v_i(tau)]_1 and [v_i(tau)]_2, inputs then aux, likewise without points at infinity.
    std::vector<G1Affine> b_g1;
    std::vector<G2Affine> b_g2;
    HConvention h_convention = HConvention::Bellman;

    friend bool operator==(const Parameters&, const Parameters&) = default;
};

// What proving needs of a parameter set besides its query points: the verifying key, the number of points of each
// query, and the H convention. A prover whose points live elsewhere (a GPU's resident copy) keeps only this.
struct KeyShape {
    VerifyingKey vk;
    size_t h = 0, l = 0, a = 0, b_g1 = 0, b_g2 = 0;
    HConvention h_convention = HConvention::Bellman;

    static KeyShape of(const Parameters& p) {
        return {p.vk, p.h.size(), p.l.size(), p.a.size(), p.b_g1.size(), p.b_g2.size(), p.h_convention};
    }
    friend bool operator==(const KeyShape&, const KeyShape&) = default;
};

// A parameter set's query points, read a range at a time from wherever they are: Parameters in memory
// (ParametersSource), or a file decoded as it is read (formats::ParamsFileSource), so a prover that uploads them
// (a GPU's resident copy) needs no host copy of them all. Ranges may be read from several threads at once.
class QuerySource {
public:
    enum class G1Query : uint8_t { H, L, A, BG1 };
    virtual ~QuerySource() = default;
    virtual const KeyShape& shape() const = 0;
    // Points [lo, hi) of the query to out[0, hi - lo); throws when one of them cannot be read (a file's bad point:
    // formats::FormatError naming the section and the index).
    virtual void read(G1Query query, size_t lo, size_t hi, G1Affine* out) const = 0;
    virtual void read_b_g2(size_t lo, size_t hi, G2Affine* out) const = 0;
    // The query's name as the files and messages spell it ("h", "l", "a", "b_g1").
    static const char* name(G1Query query) {
        static const char* const kNames[] = {"h", "l", "a", "b_g1"};
        return kNames[(size_t)query];
    }
};

// The points of Parameters in memory (which must outlive it).
class ParametersSource final : public QuerySource {
public:
    explicit ParametersSource(const Parameters& p) : p_(p), shape_(KeyShape::of(p)) {}
    const KeyShape& shape() const override { return shape_; }
    const std::vector<G1Affine>& points(G1Query query) const {
        switch (query) {
            case G1Query::H: return p_.h;
            case G1Query::L: return p_.l;
            case G1Query::A: return p_.a;
            case G1Query::BG1: break;
        }
        return p_.b_g1;
    }
    void read(G1Query query, size_t lo, size_t hi, G1Affine* out) const override {
        const auto& v = points(query);
        std::copy(v.begin() + (std::ptrdiff_t)lo, v.begin() + (std::ptrdiff_t)hi, out);
    }
    void read_b_g2(size_t lo, size_t hi, G2Affine* out) const override {
        std::copy(p_.b_g2.begin() + (std::ptrdiff_t)lo, p_.b_g2.begin() + (std::ptrdiff_t)hi, out);
    }
    const std::vector<G2Affine>& points_b_g2() const { return p_.b_g2; }

private:
    const Parameters& p_;
    KeyShape shape_;
};

struct Proof {
    G1Affine a;
    G2Affine b;
    G1Affine c;

    friend bool operator==(const Proof&, const Proof&) = default;
};

}  // namespace cuzk::groth16
