// Fq and Fr against GMP: every constant re-derived, every operation compared on edge and random values.
#include <gmp.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuzk/ff/fq.hpp"
#include "cuzk/ff/fr.hpp"

using namespace cuzk;

namespace {

// A small RAII wrapper over mpz_t; enough for an oracle.
struct Z {
    mpz_t v;
    Z() { mpz_init(v); }
    explicit Z(const char* s, int base = 10) { mpz_init_set_str(v, s, base); }
    Z(const Z& o) { mpz_init_set(v, o.v); }
    Z& operator=(const Z& o) {
        mpz_set(v, o.v);
        return *this;
    }
    ~Z() { mpz_clear(v); }
    std::string str() const {
        char* s = mpz_get_str(nullptr, 10, v);
        std::string r(s);
        void (*freefn)(void*, size_t);
        mp_get_memory_functions(nullptr, nullptr, &freefn);
        freefn(s, std::strlen(s) + 1);
        return r;
    }
};

template <size_t N>
Z to_z(const limbs_t<N>& a) {
    Z z;
    mpz_import(z.v, N, -1, sizeof(uint64_t), 0, 0, a.data());
    return z;
}

template <size_t N>
limbs_t<N> from_z(const Z& z) {
    limbs_t<N> a{};
    size_t count = 0;
    EXPECT_LE(mpz_sizeinbase(z.v, 2), 64 * N);
    mpz_export(a.data(), &count, -1, sizeof(uint64_t), 0, 0, z.v);
    return a;
}

template <class F>
Z modulus() {
    return to_z<F::N>(F::P);
}

template <class F>
Z value(const F& x) {
    return to_z<F::N>(x.to_canonical());
}

template <class F>
F field(const Z& z) {
    return F::from_canonical(from_z<F::N>(z)).value();
}

// 0, 1, 2, p-1, p-2, (p-1)/2, (p+1)/2, R mod p, R^2 mod p, 2^64 - 1, and values with limbs at their maximum.
template <class F>
std::vector<Z> edge_values() {
    Z p = modulus<F>();
    std::vector<Z> out;
    auto add = [&](const Z& z) {
        Z r;
        mpz_mod(r.v, z.v, p.v);
        out.push_back(r);
    };
    Z t;
    for (long k : {0L, 1L, 2L}) {
        mpz_set_si(t.v, k);
        add(t);
    }
    mpz_sub_ui(t.v, p.v, 1);
    add(t);
    mpz_sub_ui(t.v, p.v, 2);
    add(t);
    mpz_sub_ui(t.v, p.v, 1);
    mpz_fdiv_q_2exp(t.v, t.v, 1);
    add(t);
    mpz_add_ui(t.v, p.v, 1);
    mpz_fdiv_q_2exp(t.v, t.v, 1);
    add(t);
    mpz_set_ui(t.v, 1);
    mpz_mul_2exp(t.v, t.v, 64 * F::N);
    add(t);  // R mod p
    mpz_set_ui(t.v, 1);
    mpz_mul_2exp(t.v, t.v, 128 * F::N);
    add(t);  // R^2 mod p
    for (size_t k = 1; k <= F::N; k++) {
        mpz_set_ui(t.v, 1);
        mpz_mul_2exp(t.v, t.v, 64 * k);
        mpz_sub_ui(t.v, t.v, 1);  // k limbs of all ones
        add(t);
    }
    return out;
}

template <class F>
void check_constants() {
    Z p = modulus<F>();
    Z r, r2, t;
    mpz_set_ui(r.v, 1);
    mpz_mul_2exp(r.v, r.v, 64 * F::N);
    Z R;
    mpz_mod(R.v, r.v, p.v);
    EXPECT_EQ(mpz_cmp(R.v, to_z<F::N>(F::R).v), 0) << "R";
    mpz_mul(r2.v, R.v, R.v);
    mpz_mod(r2.v, r2.v, p.v);
    EXPECT_EQ(mpz_cmp(r2.v, to_z<F::N>(F::R2).v), 0) << "R2";
    // INV * p[0] = -1 mod 2^64
    EXPECT_EQ((uint64_t)(F::INV * F::P[0]), ~0ULL) << "INV";
    EXPECT_TRUE(mpz_probab_prime_p(p.v, 30)) << "p prime";
    EXPECT_EQ(F::BITS, mpz_sizeinbase(p.v, 2));
    // p - 1 = 2^S * T, T odd
    Z pm1;
    mpz_sub_ui(pm1.v, p.v, 1);
    EXPECT_EQ(mpz_scan1(pm1.v, 0), F::S);
    mpz_fdiv_q_2exp(t.v, pm1.v, F::S);
    EXPECT_EQ(mpz_cmp(t.v, to_z<F::N>(F::T).v), 0) << "T";
    // The configured generator generates F^*: g^((p-1)/q) != 1 for each prime q | p-1 is too costly to factor
    // here, so check the property that matters to users: g is a non-residue (its Legendre symbol is -1), so
    // g^T has order exactly 2^S.
    Z g;
    mpz_set_ui(g.v, F::generator().to_canonical()[0]);
    EXPECT_EQ(mpz_legendre(g.v, p.v), -1) << "generator must be a quadratic non-residue";
    F w = F::root_of_unity();
    F x = w;
    for (size_t i = 0; i + 1 < F::S; i++) x = x.square();
    EXPECT_EQ(x, -F::one()) << "g^T has order 2^S";
}

template <class F>
void check_ops(uint64_t seed, int random_count) {
    Z p = modulus<F>();
    std::vector<Z> vals = edge_values<F>();
    std::mt19937_64 rng(seed);
    for (int i = 0; i < random_count; i++) vals.push_back(value(F::random(rng)));
    Z e;
    mpz_set_ui(e.v, 0);
    for (size_t i = 0; i < vals.size(); i++) {
        const Z& a = vals[i];
        F fa = field<F>(a);
        ASSERT_EQ(mpz_cmp(value(fa).v, a.v), 0) << "round trip";
        // unary ops
        Z t;
        mpz_neg(t.v, a.v);
        mpz_mod(t.v, t.v, p.v);
        EXPECT_EQ(mpz_cmp(value(-fa).v, t.v), 0) << "neg " << a.str();
        mpz_mul(t.v, a.v, a.v);
        mpz_mod(t.v, t.v, p.v);
        EXPECT_EQ(mpz_cmp(value(fa.square()).v, t.v), 0) << "square " << a.str();
        mpz_mul_2exp(t.v, a.v, 1);
        mpz_mod(t.v, t.v, p.v);
        EXPECT_EQ(mpz_cmp(value(fa.dbl()).v, t.v), 0) << "dbl " << a.str();
        if (mpz_sgn(a.v) != 0) {
            ASSERT_TRUE(mpz_invert(t.v, a.v, p.v));
            EXPECT_EQ(mpz_cmp(value(fa.inverse().value()).v, t.v), 0) << "inverse " << a.str();
        } else {
            EXPECT_FALSE(fa.inverse().has_value()) << "0 has no inverse";
        }
        int leg = mpz_legendre(a.v, p.v);
        EXPECT_EQ(fa.legendre(), leg) << "legendre " << a.str();
        auto s = fa.sqrt();
        EXPECT_EQ(s.has_value(), leg >= 0) << "sqrt existence " << a.str();
        if (s) {
            EXPECT_EQ(s->square(), fa) << "sqrt " << a.str();
        }
        EXPECT_EQ(fa.to_decimal(), a.str());
        EXPECT_EQ(F::from_decimal(a.str()).value(), fa);
        uint8_t be[F::BYTES], le[F::BYTES];
        fa.to_bytes_be(be);
        fa.to_bytes_le(le);
        for (size_t k = 0; k < F::BYTES; k++) EXPECT_EQ(be[k], le[F::BYTES - 1 - k]);
        EXPECT_EQ(F::from_bytes_be(be).value(), fa);
        EXPECT_EQ(F::from_bytes_le(le).value(), fa);
        // pow with a full-width exponent: a^(p-2) is the inverse (0 -> 0)
        mpz_sub_ui(t.v, p.v, 2);
        Z pw;
        mpz_powm(pw.v, a.v, t.v, p.v);
        EXPECT_EQ(mpz_cmp(value(fa.pow(F::P_MINUS_2)).v, pw.v), 0) << "pow " << a.str();
        // binary ops against every other value (edge values fully cross-checked, random ones pairwise)
        for (size_t j = 0; j < vals.size(); j++) {
            if (i >= 16 && j >= 16 && j != i + 1) continue;
            const Z& b = vals[j];
            F fb = field<F>(b);
            Z r;
            mpz_add(r.v, a.v, b.v);
            mpz_mod(r.v, r.v, p.v);
            EXPECT_EQ(mpz_cmp(value(fa + fb).v, r.v), 0) << "add " << a.str() << " " << b.str();
            mpz_sub(r.v, a.v, b.v);
            mpz_mod(r.v, r.v, p.v);
            EXPECT_EQ(mpz_cmp(value(fa - fb).v, r.v), 0) << "sub " << a.str() << " " << b.str();
            mpz_mul(r.v, a.v, b.v);
            mpz_mod(r.v, r.v, p.v);
            EXPECT_EQ(mpz_cmp(value(fa * fb).v, r.v), 0) << "mul " << a.str() << " " << b.str();
        }
    }
}

template <class F>
void check_rejections() {
    Z p = modulus<F>();
    // p itself and 2^(64N) - 1 are not canonical.
    EXPECT_FALSE(F::from_canonical(F::P).has_value());
    limbs_t<F::N> ones;
    ones.fill(~0ULL);
    EXPECT_FALSE(F::from_canonical(ones).has_value());
    uint8_t be[F::BYTES];
    for (auto& b : be) b = 0xff;
    EXPECT_FALSE(F::from_bytes_be(be).has_value());
    EXPECT_FALSE(F::from_decimal(p.str()).has_value());
    EXPECT_FALSE(F::from_decimal("").has_value());
    EXPECT_FALSE(F::from_decimal("12a").has_value());
    EXPECT_FALSE(F::from_decimal("-1").has_value());
    // from_limbs_reduce accepts anything and reduces it.
    Z t = to_z<F::N>(ones);
    mpz_mod(t.v, t.v, p.v);
    EXPECT_EQ(mpz_cmp(value(F::from_limbs_reduce(ones)).v, t.v), 0);
}

}  // namespace

TEST(FieldGmp, FqConstants) { check_constants<Fq>(); }
TEST(FieldGmp, FrConstants) { check_constants<Fr>(); }
TEST(FieldGmp, FqOps) { check_ops<Fq>(std::random_device{}(), 200); }
TEST(FieldGmp, FrOps) { check_ops<Fr>(std::random_device{}(), 200); }
TEST(FieldGmp, FqRejectsNonCanonical) { check_rejections<Fq>(); }
TEST(FieldGmp, FrRejectsNonCanonical) { check_rejections<Fr>(); }

TEST(FieldGmp, BatchInverseMatchesSingle) {
    std::mt19937_64 rng(std::random_device{}());
    std::vector<Fr> v(257);
    for (auto& x : v) x = Fr::random(rng);
    v[0] = Fr::zero();
    v[100] = Fr::zero();
    std::vector<Fr> w = v;
    Fr::batch_inverse(w);
    for (size_t i = 0; i < v.size(); i++) {
        if (v[i].is_zero()) EXPECT_TRUE(w[i].is_zero());
        else EXPECT_EQ(w[i], v[i].inverse().value());
    }
}
