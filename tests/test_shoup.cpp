// Shoup's product by a precomputed constant (cuzk/gpu/shoup.cuh, the GPU NTT's products by table twiddles), run
// here on the host with its carry flag emulated: the same steps as on the device, checked against the CPU field.
#include <gtest/gtest.h>

#include <cstring>

#include "cuzk/ff/fr.hpp"
#include "cuzk/gpu/shoup.cuh"
#include "seeded_rng.hpp"

namespace {

using cuzk::Fr;
namespace shoup = cuzk::gpu::shoup;
constexpr size_t N = 8;

void words(const cuzk::limbs_t<4>& l, uint32_t (&w)[N]) { std::memcpy(w, l.data(), 32); }

void p_words(uint32_t (&p)[N]) { words(cuzk::MontField<cuzk::FrConfig>::P, p); }

// a + p as words (a lazy input in [p, 2p)).
void add_p(uint32_t (&a)[N], const uint32_t (&p)[N]) {
    uint64_t c = 0;
    for (size_t k = 0; k < N; k++) {
        c += (uint64_t)a[k] + p[k];
        a[k] = (uint32_t)c;
        c >>= 32;
    }
}

// Shoup's a * w for a's Montgomery words and Fr w, as an Fr (its Montgomery words).
Fr shoup_times(const uint32_t (&a)[N], const Fr& w) {
    uint32_t p[N], wc[N], wp[N], r[N];
    p_words(p);
    words(w.to_canonical(), wc);
    shoup::quotient<N>(wc, p, wp);
    shoup::mul_shoup<N>(a, wc, wp, p, r);
    Fr out;
    std::memcpy(out.l.data(), r, 32);
    return out;
}

TEST(Shoup, QuotientBracketsTheTwiddleOverP) {
    // w' = floor(w 2^256 / p): w' p <= w 2^256 < (w' + 1) p, checked with 64-bit words of the 512-bit products.
    auto rng = cuzk::testing::seeded_rng("Shoup.QuotientBracketsTheTwiddleOverP");
    uint32_t p[N];
    p_words(p);
    for (int t = 0; t < 2000; t++) {
        const Fr w = t == 0 ? Fr::zero() : t == 1 ? -Fr::one() : Fr::random(rng);
        uint32_t wc[N], wp[N];
        words(w.to_canonical(), wc);
        shoup::quotient<N>(wc, p, wp);
        // lhs = w' p and its excess over w 2^256 via 2N-word schoolbook products
        auto mul = [](const uint32_t* x, const uint32_t* y, uint64_t (&out)[2 * N + 1]) {
            for (auto& v : out) v = 0;
            for (size_t i = 0; i < N; i++) {
                uint64_t c = 0;
                for (size_t j = 0; j < N; j++) {
                    const unsigned __int128 v = (unsigned __int128)x[i] * y[j] + out[i + j] + c;
                    out[i + j] = (uint64_t)v & 0xffffffffULL;
                    c = (uint64_t)(v >> 32);
                }
                out[i + N] += c;
            }
        };
        uint64_t lo[2 * N + 1], hi[2 * N + 1];
        mul(wp, p, lo);  // w' p
        uint32_t wp1[N];
        std::memcpy(wp1, wp, sizeof wp1);
        for (size_t k = 0; k < N && ++wp1[k] == 0; k++) {
        }
        mul(wp1, p, hi);  // (w' + 1) p
        auto cmp_w = [&](const uint64_t (&v)[2 * N + 1]) {  // compares v with w 2^256
            for (size_t k = 2 * N; k-- > 0;) {
                const uint64_t want = k >= N ? wc[k - N] : 0;
                if (v[k] != want) return v[k] < want ? -1 : 1;
            }
            return 0;
        };
        ASSERT_LE(cmp_w(lo), 0) << t;
        ASSERT_GT(cmp_w(hi), 0) << t;
    }
}

TEST(Shoup, EqualsTheMontgomeryProductByTheTwiddle) {
    auto rng = cuzk::testing::seeded_rng("Shoup.EqualsTheMontgomeryProductByTheTwiddle");
    uint32_t p[N];
    p_words(p);
    const Fr edges[] = {Fr::zero(), Fr::one(), -Fr::one(), Fr::from_u64(2)};
    for (int t = 0; t < 20000; t++) {
        const Fr a = t < 4 ? edges[t] : Fr::random(rng);
        const Fr w = t % 7 < 4 ? edges[t % 7] : Fr::random(rng);
        uint32_t aw[N];
        words(a.l, aw);
        const Fr want = a * w;
        ASSERT_EQ(shoup_times(aw, w), want) << "a < p, product " << t;
        add_p(aw, p);  // the same value as a lazy input below 2p
        ASSERT_EQ(shoup_times(aw, w), want) << "a + p, product " << t;
    }
}

TEST(Shoup, TheLargestLazyInputStaysExact) {
    // a = 2p - 1 maximises a w' / 2^256's shortfall from a w / p, where the truncated quotient may be one low.
    auto rng = cuzk::testing::seeded_rng("Shoup.TheLargestLazyInputStaysExact");
    uint32_t p[N];
    p_words(p);
    cuzk::limbs_t<4> pm1 = cuzk::MontField<cuzk::FrConfig>::P;
    pm1[0] -= 1;  // p - 1 (p is odd)
    const Fr a = Fr::from_mont_limbs(pm1);
    for (int t = 0; t < 5000; t++) {
        const Fr w = Fr::random(rng);
        uint32_t aw[N];
        words(pm1, aw);
        add_p(aw, p);
        ASSERT_EQ(shoup_times(aw, w), a * w) << t;
    }
}

}  // namespace

namespace {

TEST(Shoup, QuotientFromTheMontgomeryFormEqualsTheDivision) {
    // The tables' w' from w's Montgomery form by one product equals the bit-by-bit division.
    auto rng = cuzk::testing::seeded_rng("Shoup.QuotientFromTheMontgomeryFormEqualsTheDivision");
    uint32_t p[N], neg_pinv[N];
    p_words(p);
    shoup::neg_inverse<N>(p, neg_pinv);
    for (int t = 0; t < 3000; t++) {
        const Fr w = t == 0 ? Fr::zero() : t == 1 ? Fr::one() : t == 2 ? -Fr::one() : Fr::random(rng);
        uint32_t wc[N], m[N], q1[N], q2[N];
        words(w.to_canonical(), wc);
        words(w.l, m);
        shoup::quotient<N>(wc, p, q1);
        shoup::quotient_from_montgomery<N>(m, neg_pinv, q2);
        ASSERT_EQ(0, std::memcmp(q1, q2, sizeof q1)) << t;
    }
}

}  // namespace
