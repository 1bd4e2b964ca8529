// Host check of bench/experiments/fr_shoup.cuh's arithmetic (the carry flag emulated): Shoup's product by a
// precomputed constant == the CPU field's Montgomery product a * (w R), for random and edge a < 2p and w < p.
//   g++ -std=c++20 -O2 -I src -I bench/experiments -o fr_shoup_host bench/experiments/fr_shoup_host.cpp && ./fr_shoup_host
#include <cstdio>
#include <cstring>
#include "cuzk/ff/fr.hpp"
#include "cuzk/gpu/shoup.cuh"
namespace shoup = cuzk::gpu::shoup;

// a += p (a lazy input below 2p)
void add_p(uint32_t* a, const uint32_t* p) {
    uint64_t c = 0;
    for (int k = 0; k < 8; k++) {
        c += (uint64_t)a[k] + p[k];
        a[k] = (uint32_t)c;
        c >>= 32;
    }
}

int main() {
    using cuzk::Fr;
    constexpr size_t N = 8;
    uint32_t p[N];
    std::memcpy(p, cuzk::MontField<cuzk::FrConfig>::P.data(), sizeof p);
    uint64_t s = 0x9e3779b97f4a7c15ULL;
    std::printf("seed 0x9e3779b97f4a7c15\n");
    auto rng = [&] { return s = s * 6364136223846793005ULL + 1442695040888963407ULL; };
    int bad = 0;
    const int n = 200000;
    for (int t = 0; t < n; t++) {
        Fr A = Fr::random(rng), Wc = Fr::random(rng);
        if (t % 97 == 0) A = Fr::zero();
        if (t % 89 == 0) A = -Fr::one();
        if (t % 83 == 0) Wc = Fr::one();
        if (t % 79 == 0) Wc = -Fr::one();
        if (t % 73 == 0) Wc = Fr::zero();
        // a: A's Montgomery limbs, plus p every third time (a lazy input below 2p); w: Wc's canonical value.
        uint32_t a[N], w[N], wp[N], r[N];
        std::memcpy(a, &A.l, 32);
        if (t % 3 == 1) add_p(a, p);
        const auto wl = Wc.to_canonical();
        std::memcpy(w, &wl, 32);
        shoup::quotient<N>(w, p, wp);
        shoup::mul_shoup<N>(a, w, wp, p, r);
        const Fr want = A * Fr::from_canonical_unchecked(wl);  // a w R R^-1 = a w
        if (std::memcmp(r, &want.l, 32)) {
            if (bad < 5) std::printf("product %d differs\n", t);
            bad++;
        }
    }
    // The worst input for the quotient: a = 2p - 1 against every w of a sweep.
    for (int t = 0; t < 20000; t++) {
        uint32_t a[N], w[N], wp[N], r[N];
        std::memcpy(a, p, 32);
        add_p(a, p);
        a[0] -= 1;  // 2p - 1 (p is odd: no borrow)
        const Fr Wc = Fr::random(rng);
        const auto wl = Wc.to_canonical();
        std::memcpy(w, &wl, 32);
        shoup::quotient<N>(w, p, wp);
        shoup::mul_shoup<N>(a, w, wp, p, r);
        // a = 2p - 1 = p - 1 (mod p): the Montgomery limbs of -R^-1... compare as integers mod p instead
        const Fr Am = Fr::from_mont_limbs([&] { cuzk::limbs_t<4> l; std::memcpy(&l, p, 32); l[0] -= 1; return l; }());
        const Fr want = Am * Fr::from_canonical_unchecked(wl);
        if (std::memcmp(r, &want.l, 32)) {
            if (bad < 5) std::printf("2p - 1 product %d differs\n", t);
            bad++;
        }
    }
    std::printf("shoup (host emulation) vs the CPU field on %d products: %s (%d differ)\n", n + 20000,
                bad ? "DIFFER" : "EQUAL", bad);
    return bad != 0;
}
