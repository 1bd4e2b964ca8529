#include "cuzk/msm/batch_add_ifma.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <span>
#include <stdexcept>
#include <type_traits>

#include "cuzk/ff/batch_inverse.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// GCC 12's AVX-512 intrinsics start some results from _mm512_undefined_epi32(), which -Wmaybe-uninitialized
// reports at every inlined use (GCC bug 105593); the values are fully written.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "cuzk/ff/fq_ifma.hpp"
#define CUZK_IFMA_CODE 1
#else
#define CUZK_IFMA_CODE 0
#endif

namespace cuzk::msm_detail {

namespace {

std::atomic<int> g_enabled{-1};  // -1: not read from the environment yet

bool cpu_has_ifma() {
#if CUZK_IFMA_CODE
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
#else
    return false;
#endif
}

}  // namespace

bool ifma_supported() {
    static const bool s = cpu_has_ifma();
    return s;
}

bool ifma_enabled() {
    int e = g_enabled.load(std::memory_order_relaxed);
    if (e < 0) {
        const char* v = std::getenv("CUZK_CPU_IFMA");
        int want = (v && v[0] == '0' && v[1] == 0) ? 0 : 1;
        g_enabled.compare_exchange_strong(e, want);
        e = g_enabled.load(std::memory_order_relaxed);
    }
    return e == 1 && ifma_supported();
}

bool set_ifma_enabled(bool on) {
    bool prev = ifma_enabled();
    g_enabled.store(on ? 1 : 0, std::memory_order_relaxed);
    return prev;
}

#if !CUZK_IFMA_CODE

void g1_batch_add_ifma(const G1Affine*, const G1Affine*, G1Affine* const*, const uint32_t*, size_t, IfmaScratch&) {
    throw std::logic_error("g1_batch_add_ifma: not built for this architecture");
}
void g2_batch_add_ifma(const G2Affine*, const G2Affine*, G2Affine* const*, const uint32_t*, size_t, IfmaScratch&) {
    throw std::logic_error("g2_batch_add_ifma: not built for this architecture");
}

#else

using namespace cuzk::ifma;

// Lane inversion, in scalar code (no AVX-512 in these functions, so no header code is compiled for IFMA). A V8 in
// memory is limb-major: v[8k + l] = limb k of lane l.
Fq read_lane(const uint64_t* v, int l) {
    limbs48 x;
    for (int k = 0; k < 8; k++) x[k] = v[8 * k + l];
    limbs_t<6> w = from48(x);
    limbs_t<6> d{};
    if (!bigint::sub(d, w, FqConfig::MODULUS)) w = d;  // < 2p -> < p
    return Fq::from_mont_limbs(w);
}
void write_lane(uint64_t* v, int l, const Fq& f) {
    const limbs48 x = to48(f.mont_limbs());
    for (int k = 0; k < 8; k++) v[8 * k + l] = x[k];
}
// io holds D V8s (Fq, or Fq2 as c0 then c1) of nonzero values below 2p; they are replaced by their inverses (< p),
// all eight through one inversion.
template <int D>
void invert_lanes(uint64_t* io) {
    using F = std::conditional_t<D == 1, Fq, Fq2>;
    std::array<F, 8> v;
    for (int l = 0; l < 8; l++) {
        if constexpr (D == 1) v[l] = read_lane(io, l);
        else v[l] = Fq2{read_lane(io, l), read_lane(io + 64, l)};
    }
    batch_inverse_in_place<F, true>(std::span<F>(v));  // public values: variable time is fine
    for (int l = 0; l < 8; l++) {
        if constexpr (D == 1) {
            write_lane(io, l, v[l]);
        } else {
            write_lane(io, l, v[l].c0);
            write_lane(io + 64, l, v[l].c1);
        }
    }
}

// The pair that fills the unused lanes of the last group: G and 2G (distinct x, so the denominator is nonzero).
template <class Cfg>
struct DummyPair {
    Affine<Cfg> a, b;
};
template <class Cfg>
const DummyPair<Cfg>& dummy_pair() {
    static const DummyPair<Cfg> d = [] {
        Affine<Cfg> g = Affine<Cfg>::generator();
        return DummyPair<Cfg>{g, g.to_jacobian().dbl().to_affine()};
    }();
    return d;
}


template <class Cfg, int D>
__attribute__((target("avx512f,avx512ifma"))) void batch_add_kernel(const Affine<Cfg>* a, const Affine<Cfg>* b,
                                                                     Affine<Cfg>* const* out, const uint32_t* idx,
                                                                     size_t m, IfmaScratch& s) {
    using Aff = Affine<Cfg>;
    static_assert(sizeof(typename Cfg::F) == D * sizeof(Fq), "a coordinate is D consecutive Fq");
    const size_t groups = (m + 7) / 8;
    s.prefix.resize(groups * 64 * D);
    s.den.resize(groups * 64 * D);
    const DummyPair<Cfg>& dummy = dummy_pair<Cfg>();
    const V8 P = constant(kP), P2 = constant(k2P);
    auto pair_of = [&](size_t g, int l, const Aff*& pa, const Aff*& pb) {
        size_t k = g * 8 + (size_t)l;
        if (k < m) {
            pa = a + idx[k];
            pb = b + idx[k];
        } else {
            pa = &dummy.a;
            pb = &dummy.b;
        }
    };
    auto coord = [](const typename Cfg::F& f) { return reinterpret_cast<const Fq*>(&f); };
    // Forward: prefix_g = product of the denominators of groups < g, lane by lane.
    VE<D> acc;
    acc.c[0] = constant(kOne);
    for (int j = 1; j < D; j++) acc.c[j] = constant(limbs48{});
    for (size_t g = 0; g < groups; g++) {
        const Fq *fax[8], *fbx[8];
        for (int l = 0; l < 8; l++) {
            const Aff *pa, *pb;
            pair_of(g, l, pa, pb);
            fax[l] = coord(pa->x);
            fbx[l] = coord(pb->x);
        }
        VE<D> ax, bx;
        gather_ve(ax, fax);
        gather_ve(bx, fbx);
        VE<D> den = sub_k(bx, ax, P2);  // bx + 2p - ax in (p, 3p)
        store_ve(s.prefix.data() + 64 * D * g, acc);
        store_ve(s.den.data() + 64 * D * g, den);
        mul(acc, acc, den);
    }
    alignas(64) uint64_t lanes[64 * D];
    store_ve(lanes, acc);
    invert_lanes<D>(lanes);
    VE<D> inv;
    load_ve(inv, lanes);
    // Backward: inv = 1 / (product of the denominators of groups <= g).
    for (size_t g = groups; g-- > 0;) {
        VE<D> pre, den, ig;
        load_ve(pre, s.prefix.data() + 64 * D * g);
        load_ve(den, s.den.data() + 64 * D * g);
        mul(ig, inv, pre);  // 1 / den_g
        mul(inv, inv, den);
        const Fq *fax[8], *fay[8], *fbx[8], *fby[8];
        for (int l = 0; l < 8; l++) {
            const Aff *pa, *pb;
            pair_of(g, l, pa, pb);
            fax[l] = coord(pa->x), fay[l] = coord(pa->y), fbx[l] = coord(pb->x), fby[l] = coord(pb->y);
        }
        VE<D> ax, ay, bx, by;
        gather_ve(ax, fax);
        gather_ve(ay, fay);
        gather_ve(bx, fbx);
        gather_ve(by, fby);
        VE<D> num = sub_k(by, ay, P2);  // (p, 3p)
        VE<D> lam, l2;
        mul(lam, num, ig);                   // < 2p
        mul(l2, lam, lam);                   // < 2p
        VE<D> x3 = sub2_k(l2, ax, bx, P2);   // l2 + 2p - ax - bx in [0, 4p)
        x3 = cond_sub(cond_sub(x3, P2), P);  // < p
        VE<D> u = sub_k(ax, x3, P);          // (0, 2p)
        VE<D> y3;
        mul(y3, lam, u);                     // < 2p
        y3 = sub_k(y3, ay, P);               // (0, 3p)
        y3 = cond_sub(cond_sub(y3, P2), P);  // < p
        for (int j = 0; j < D; j++) {
            transpose(x3.c[j].l);
            transpose(y3.c[j].l);
        }
        const int valid = (int)std::min<size_t>(8, m - g * 8);
        for (int l = 0; l < valid; l++) {
            Aff* r = out[idx[g * 8 + (size_t)l]];
            Fq* rx = reinterpret_cast<Fq*>(&r->x);
            Fq* ry = reinterpret_cast<Fq*>(&r->y);
            for (int j = 0; j < D; j++) {
                store48(limbs_of(rx[j]), x3.c[j].l[l]);
                store48(limbs_of(ry[j]), y3.c[j].l[l]);
            }
            r->infinity = false;
        }
    }
}

void g1_batch_add_ifma(const G1Affine* a, const G1Affine* b, G1Affine* const* out, const uint32_t* idx, size_t m,
                       IfmaScratch& scratch) {
    if (!ifma_supported()) throw std::logic_error("g1_batch_add_ifma: this CPU has no AVX-512 IFMA");
    if (m == 0) return;
    batch_add_kernel<G1Config, 1>(a, b, out, idx, m, scratch);
}

void g2_batch_add_ifma(const G2Affine* a, const G2Affine* b, G2Affine* const* out, const uint32_t* idx, size_t m,
                       IfmaScratch& scratch) {
    if (!ifma_supported()) throw std::logic_error("g2_batch_add_ifma: this CPU has no AVX-512 IFMA");
    if (m == 0) return;
    batch_add_kernel<G2Config, 2>(a, b, out, idx, m, scratch);
}

#endif

}  // namespace cuzk::msm_detail
