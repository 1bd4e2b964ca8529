// NTT over Fr: scheme and the measurements behind it.
//
// Butterfly scheme. The forward core is the Cooley-Tukey butterfly (a, b) -> (a + t*b, a - t*b) applied with
// natural-order input and bit-reversed output, where the twiddle t is constant over a whole block: at stage s
// (2^s blocks of M = n / 2^s elements) block b reduces its polynomial modulo X^(M/2) - t and X^(M/2) + t with
//     t = W[b],   W[b] = w32^bitrev_31(b),   w32 = Fr::root_of_unity() (order 2^32).
// This is the CRT tree X^n - 1 = prod (X - w^j): leaf p ends up holding f(omega^bitrev_k(p)). Why this form:
//   * one twiddle per block instead of one per butterfly, so the inner loop is mul/add/sub with no twiddle
//     traffic at all in the large (out-of-cache) stages;
//   * W does not depend on n (the bitrev_31 of b < n/2 only spreads its bits over the top of 31), so a single
//     table serves every domain: its first n/2 entries are exactly the twiddles of the size-n transform.
// The bit-reversed output is then permuted to natural order by a cache-blocked bit reversal (below). The inverse
// transform reuses the same forward core: intt(y)[i] = (1/n) * ntt(y')[i] with y'[j] = y[-j mod n] (an index
// reversal that is fused with the 1/n scaling), so no second (inverse) twiddle table is needed.
//
// Cache behaviour. The stages whose blocks exceed 2^BLOCK_LOG elements stream through memory; they are done two
// at a time (radix-4: four elements loaded, two stages applied, four stored), halving those passes. From stage
// k - BLOCK_LOG on, every 2^BLOCK_LOG-element block is independent and is finished entirely in L2 (radix-4 pairs
// again). For n = 2^20 that is 3 streaming passes + 1 in-cache pass + 1 bit-reversal pass over the data, instead
// of 20 passes for a plain stage-by-stage loop.
//
// Twiddle table. W[0, 2^TWIDDLE_CAP_LOG) is built once (one multiplication per entry, W[2^j + i] = W[2^j] * W[i]
// because the bits of 2^j and i are disjoint) and cached process-wide, grown on demand; beyond the cap
// (n > 2^21) a block's twiddle is W[b mod 2^cap] * HI[b >> cap], one extra multiplication per *block*, which only
// the last few stages notice. The cap bounds the table at 32 MiB, against 4 GiB for a full table at 2^28.
// Building it per call would cost one multiplication per entry: 2^19 of them take ~20 ms against ~540 ms (CPU)
// for a 2^20 transform (bench_ntt, BM_twiddle_equivalent_cost vs BM_ntt/20/1), i.e. ~4%; cached, it is paid
// once per process and never again.
//
// Threading: the streaming passes split the butterflies of a pass into contiguous ranges; the in-cache phase
// splits the blocks. Below a measured size everything runs on the calling thread.
#include "cuzk/poly/ntt.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/util/thread_pool.hpp"

namespace cuzk {
namespace {

// 2^14 Fr = 512 KiB: fits the 1 MiB per-core L2 of the development machine with room for the twiddles.
constexpr unsigned BLOCK_LOG = 14;
constexpr unsigned TWIDDLE_CAP_LOG = 20;
constexpr unsigned TILE_LOG = 4;  // bit-reversal tiles of 16 x 16 elements (8 KiB)

// Below this size a transform stays on the calling thread. bench_ntt's BM_ntt_threshold (serial vs parallel,
// 2 threads) shows the caller's own CPU time halving from 2^9 up (2^10: 253 us serial, 141 us parallel), while a
// transform makes ~5 parallel_for round trips of some 10 us each; 2^11 leaves margin for that. On the loaded
// shared 2-core machine the parallel wall time never won below 2^13 (the second core was busy elsewhere), so
// this is a conservative estimate, settable through ntt_detail::set_parallel_threshold.
std::atomic<size_t> g_parallel_threshold{size_t{1} << 11};

uint64_t bitrev(uint64_t v, unsigned bits) {
    if (bits == 0) return 0;
    v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
    v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
    v = ((v >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((v & 0x0f0f0f0f0f0f0f0fULL) << 4);
    v = __builtin_bswap64(v);
    return v >> (64 - bits);
}

// A primitive 2^j-th root of unity (j <= 32).
Fr root_of_order_pow2(unsigned j) {
    Fr w = Fr::root_of_unity();
    for (unsigned i = j; i < (unsigned)Fr::S; i++) w = w.square();
    return w;
}

// W[b] = w32^bitrev_31(b) for b < 2^lo_log; hi[h] = W[h << TWIDDLE_CAP_LOG] once lo is at the cap.
struct Twiddles {
    unsigned lo_log = 0;
    std::vector<Fr> lo;
    std::vector<Fr> hi;

    Fr at(uint64_t b) const {
        if (b < lo.size()) return lo[b];
        return lo[b & (lo.size() - 1)] * hi[b >> lo_log];
    }
};

// Fills t[1 .. 2^bits) from t[0] = 1 given t[2^j] = root(j): t[2^j + i] = t[2^j] * t[i] (disjoint bits, so the
// exponents add). Entries below 2^from are already present.
template <class RootFn>
void fill_multiplicative(std::vector<Fr>& t, unsigned from, unsigned bits, RootFn root) {
    t.resize(size_t{1} << bits);
    t[0] = Fr::one();
    for (unsigned j = from; j < bits; j++) {
        size_t base = size_t{1} << j;
        Fr r = root(j);
        t[base] = r;
        auto body = [&](size_t b, size_t e) {
            for (size_t i = std::max<size_t>(b, 1); i < e; i++) t[base + i] = r * t[i];
        };
        if (base >= (size_t{1} << 14)) parallel_for(base, body);
        else body(0, base);
    }
}

std::mutex g_tw_mu;
std::shared_ptr<const Twiddles> g_tw;

std::shared_ptr<const Twiddles> twiddles_for(unsigned k) {
    unsigned need = std::min(k == 0 ? 0u : k - 1, TWIDDLE_CAP_LOG);
    std::lock_guard<std::mutex> lk(g_tw_mu);
    if (g_tw && g_tw->lo_log >= need) return g_tw;
    auto t = std::make_shared<Twiddles>();
    unsigned from = 0;
    if (g_tw) {
        t->lo = g_tw->lo;  // the prefix is size-independent: keep it
        from = g_tw->lo_log;
    }
    t->lo_log = need;
    // W[2^j] = w32^bitrev_31(2^j) = w32^(2^(30-j)), a root of order 2^(j+2).
    fill_multiplicative(t->lo, from, need, [](unsigned j) { return root_of_order_pow2(j + 2); });
    if (need == TWIDDLE_CAP_LOG) {
        // hi[2^j] = W[2^(j+cap)], a root of order 2^(j+cap+2); indices b < 2^31 need j + cap <= 30.
        fill_multiplicative(t->hi, 0, 31 - TWIDDLE_CAP_LOG,
                            [](unsigned j) { return root_of_order_pow2(j + TWIDDLE_CAP_LOG + 2); });
    }
    g_tw = t;
    return t;
}

// ---- butterfly kernels ------------------------------------------------------------------------------------
// Both kernels take a range of butterfly groups so that one pass can be split across threads at any point;
// group g of stage s lies in block g / (groups per block), whose twiddle is loaded once per block visited.

// One stage s, groups are single butterflies: group g -> pair (p, p + M/2) in block b = g / (M/2).
void radix2_stage(Fr* x, unsigned k, unsigned s, uint64_t g0, uint64_t g1, const Twiddles& tw) {
    const unsigned hl = k - s - 1;  // log2(M/2)
    const uint64_t half = uint64_t{1} << hl;
    for (uint64_t g = g0; g < g1;) {
        const uint64_t b = g >> hl;
        const uint64_t j0 = g & (half - 1);
        const uint64_t j1 = std::min(half, j0 + (g1 - g));
        Fr* lo = x + (b << (hl + 1));
        Fr* hi = lo + half;
        if (b == 0) {  // W[0] = 1
            for (uint64_t j = j0; j < j1; j++) {
                Fr u = lo[j], v = hi[j];
                lo[j] = u + v;
                hi[j] = u - v;
            }
        } else {
            const Fr t = tw.at(b);
            for (uint64_t j = j0; j < j1; j++) {
                Fr u = lo[j], v = t * hi[j];
                lo[j] = u + v;
                hi[j] = u - v;
            }
        }
        g += j1 - j0;
    }
}

// Stages s and s + 1 together: group g -> the four elements p + j + {0, q, 2q, 3q} of block b (size M = 4q).
// Stage s pairs (0, 2q), (q, 3q) with W[b]; stage s + 1 pairs (0, q) with W[2b] and (2q, 3q) with W[2b + 1].
void radix4_stages(Fr* x, unsigned k, unsigned s, uint64_t g0, uint64_t g1, const Twiddles& tw) {
    const unsigned ql = k - s - 2;
    const uint64_t q = uint64_t{1} << ql;
    for (uint64_t g = g0; g < g1;) {
        const uint64_t b = g >> ql;
        const uint64_t j0 = g & (q - 1);
        const uint64_t j1 = std::min(q, j0 + (g1 - g));
        Fr* p0 = x + (b << (ql + 2));
        Fr* p1 = p0 + q;
        Fr* p2 = p1 + q;
        Fr* p3 = p2 + q;
        const Fr t3 = tw.at(2 * b + 1);
        if (b == 0) {  // W[0] = 1 for both the stage-s and the first stage-(s+1) butterfly
            for (uint64_t j = j0; j < j1; j++) {
                Fr x0 = p0[j], x1 = p1[j], x2 = p2[j], x3 = p3[j];
                Fr y0 = x0 + x2, y2 = x0 - x2, y1 = x1 + x3, y3 = x1 - x3;
                Fr w3 = t3 * y3;
                p0[j] = y0 + y1;
                p1[j] = y0 - y1;
                p2[j] = y2 + w3;
                p3[j] = y2 - w3;
            }
        } else {
            const Fr t1 = tw.at(b), t2 = tw.at(2 * b);
            for (uint64_t j = j0; j < j1; j++) {
                Fr x0 = p0[j], x1 = p1[j];
                Fr v2 = t1 * p2[j], v3 = t1 * p3[j];
                Fr y0 = x0 + v2, y2 = x0 - v2, y1 = x1 + v3, y3 = x1 - v3;
                Fr w1 = t2 * y1, w3 = t3 * y3;
                p0[j] = y0 + w1;
                p1[j] = y0 - w1;
                p2[j] = y2 + w3;
                p3[j] = y2 - w3;
            }
        }
        g += j1 - j0;
    }
}

// Runs fn(begin, end) over [0, count): on the pool when parallel, else on this thread in one call.
template <class Fn>
void run_range(bool parallel, uint64_t count, Fn&& fn, size_t chunks = 0) {
    if (parallel) parallel_for(count, fn, chunks);
    else fn(0, count);
}

// Natural-order coefficients -> evaluations in bit-reversed order (out[p] = f(omega^bitrev_k(p))).
void forward_bitrev_out(Fr* x, unsigned k, const Twiddles& tw, bool parallel) {
    if (k == 0) return;
    const uint64_t n = uint64_t{1} << k;
    unsigned kb = std::min(k, BLOCK_LOG);
    if (parallel) {
        // Keep at least 4 in-cache blocks per thread so that the block phase is balanced.
        unsigned want = 2;
        while ((size_t{1} << want) < 4 * num_threads()) want++;
        kb = std::min(kb, k > want ? k - want : 0u);
    }
    const unsigned top = k - kb;
    unsigned s = 0;
    if (top & 1) {
        run_range(parallel, n / 2, [&](size_t b, size_t e) { radix2_stage(x, k, s, b, e, tw); });
        s++;
    }
    for (; s < top; s += 2)
        run_range(parallel, n / 4, [&](size_t b, size_t e) { radix4_stages(x, k, s, b, e, tw); });
    // Each 2^kb block now goes through its remaining kb stages while it sits in cache.
    run_range(parallel, n >> kb, [&](size_t blk_b, size_t blk_e) {
        for (uint64_t blk = blk_b; blk < blk_e; blk++) {
            const uint64_t e0 = blk << kb, e1 = e0 + (uint64_t{1} << kb);
            unsigned t = top;
            if (kb & 1) {
                radix2_stage(x, k, t, e0 / 2, e1 / 2, tw);
                t++;
            }
            for (; t < k; t += 2) radix4_stages(x, k, t, e0 / 4, e1 / 4, tw);
        }
    });
}

// ---- bit reversal ------------------------------------------------------------------------------------------
// Index i = (a, m, c) with a, c of TILE_LOG bits and m the middle bits; bitrev(i) = (rev c, rev m, rev a). For
// a fixed m the 2^TILE_LOG x 2^TILE_LOG elements (a, m, *) form a tile of 16 rows of 16 contiguous elements,
// and it is exchanged, transposed and with rows/columns bit-reversed, with the tile of rev m. Every access
// touches whole 512-byte rows, where the textbook swap loop takes a cache miss per element for large n.
void bit_reverse_impl(Fr* x, unsigned k, bool parallel) {
    const uint64_t n = uint64_t{1} << k;
    if (k < 2 * TILE_LOG + 2) {
        for (uint64_t i = 0; i < n; i++) {
            uint64_t j = bitrev(i, k);
            if (i < j) std::swap(x[i], x[j]);
        }
        return;
    }
    constexpr uint64_t T = uint64_t{1} << TILE_LOG;
    const unsigned km = k - 2 * TILE_LOG;
    const unsigned row_shift = km + TILE_LOG;
    auto tiles = [&](size_t m0, size_t m1) {
        Fr A[T * T], B[T * T];
        uint64_t rv[T];
        for (uint64_t a = 0; a < T; a++) rv[a] = bitrev(a, TILE_LOG);
        auto load = [&](Fr* dst, uint64_t m) {
            for (uint64_t a = 0; a < T; a++) {
                const Fr* row = x + ((a << row_shift) | (m << TILE_LOG));
                std::copy(row, row + T, dst + a * T);
            }
        };
        auto store = [&](const Fr* src, uint64_t m) {
            for (uint64_t a = 0; a < T; a++) {
                Fr* row = x + ((a << row_shift) | (m << TILE_LOG));
                for (uint64_t c = 0; c < T; c++) row[c] = src[rv[c] * T + rv[a]];
            }
        };
        for (uint64_t m = m0; m < m1; m++) {
            const uint64_t mr = bitrev(m, km);
            if (mr < m) continue;  // handled together with mr
            load(A, m);
            if (mr == m) {
                store(A, m);
            } else {
                load(B, mr);
                store(B, m);
                store(A, mr);
            }
        }
    };
    // The pairs m < rev m cluster unevenly, so hand out more chunks than threads (run_tasks balances them).
    run_range(parallel, uint64_t{1} << km, tiles, 8 * num_threads());
}

// x[i] <- s * x[-i mod n]: the index reversal that turns the forward transform into the inverse one.
void reverse_and_scale(Fr* x, uint64_t n, const Fr& s, bool parallel) {
    const bool scale = !s.is_one();
    if (scale) x[0] *= s;
    // pairs (i, n - i) for 1 <= i <= n/2; i = n/2 pairs with itself
    run_range(parallel, n / 2, [&](size_t b, size_t e) {
        for (uint64_t i = b + 1; i < e + 1; i++) {
            const uint64_t j = n - i;
            if (scale) {
                Fr u = x[i] * s;
                x[i] = i == j ? u : x[j] * s;
                if (i != j) x[j] = u;
            } else if (i != j) {
                std::swap(x[i], x[j]);
            }
        }
    });
}

// x[i] <- c * r^i * x[i]. Each chunk starts from c * r^begin (one pow) and steps by one multiplication.
void scale_by_powers(Fr* x, uint64_t n, const Fr& c, const Fr& r, bool parallel) {
    run_range(parallel, n, [&](size_t b, size_t e) {
        Fr cur = c * r.pow(uint64_t{b});
        for (uint64_t i = b; i < e; i++) {
            x[i] *= cur;
            cur *= r;
        }
    });
}

void check_size(const EvaluationDomain& d, std::span<Fr> v, const char* what) {
    if (v.size() != d.size())
        throw std::invalid_argument(std::string(what) + ": " + std::to_string(v.size()) +
                                    " values for a domain of size " + std::to_string(d.size()));
}

bool use_parallel(uint64_t n) { return n >= g_parallel_threshold.load() && num_threads() > 1; }

// Natural-order coefficients -> natural-order evaluations at omega^i.
void forward_natural(Fr* x, unsigned k) {
    const bool par = use_parallel(uint64_t{1} << k);
    auto tw = twiddles_for(k);
    forward_bitrev_out(x, k, *tw, par);
    bit_reverse_impl(x, k, par);
}

}  // namespace

void ntt(const EvaluationDomain& domain, std::span<Fr> values) {
    check_size(domain, values, "ntt");
    forward_natural(values.data(), domain.log_size());
}

void intt(const EvaluationDomain& domain, std::span<Fr> values) {
    check_size(domain, values, "intt");
    reverse_and_scale(values.data(), values.size(), domain.size_inv(), use_parallel(values.size()));
    forward_natural(values.data(), domain.log_size());
}

void coset_ntt(const EvaluationDomain& domain, std::span<Fr> values) {
    check_size(domain, values, "coset_ntt");
    // f(g * omega^i) = sum_j (c_j g^j) omega^(ij): scale the coefficients, then a plain transform.
    scale_by_powers(values.data(), values.size(), Fr::one(), domain.coset_shift(), use_parallel(values.size()));
    forward_natural(values.data(), domain.log_size());
}

void coset_intt(const EvaluationDomain& domain, std::span<Fr> values) {
    check_size(domain, values, "coset_intt");
    const bool par = use_parallel(values.size());
    reverse_and_scale(values.data(), values.size(), Fr::one(), par);
    forward_natural(values.data(), domain.log_size());
    // undo the coset scaling and apply 1/n in the same pass: c_j = (1/n) g^-j * (plain intt)_j
    scale_by_powers(values.data(), values.size(), domain.size_inv(), domain.coset_shift_inv(), par);
}

void bit_reverse_permute(std::span<Fr> values) {
    const uint64_t n = values.size();
    if (n == 0 || (n & (n - 1)) != 0)
        throw std::invalid_argument("bit_reverse_permute: size " + std::to_string(n) + " is not a power of two");
    bit_reverse_impl(values.data(), (unsigned)__builtin_ctzll(n), use_parallel(n));
}

namespace ntt_detail {
size_t parallel_threshold() { return g_parallel_threshold.load(); }
void set_parallel_threshold(size_t n) { g_parallel_threshold.store(n); }
Fr twiddle(uint64_t b) {
    if (b >= (uint64_t{1} << 31)) throw std::invalid_argument("twiddle: index beyond 2^31");
    return twiddles_for(32)->at(b);
}
}  // namespace ntt_detail

}  // namespace cuzk
