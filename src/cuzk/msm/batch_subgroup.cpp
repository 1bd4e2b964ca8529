// Batched subgroup membership: the design, its soundness argument and its cost are in batch_subgroup.hpp. This file:
//   1. ChaCha20 and the exact uniform labels (one per point and round),
//   2. batched affine additions (Montgomery's trick; the AVX-512 IFMA kernel of the MSM where the CPU has it),
//   3. one round: labels -> buckets (a two-level counting sort), bucket sums by pairwise trees, the fold to the
//      m combinations,
//   4. the planner, the checks (of spans and of resident sources), and the search for the first bad point.
#include "cuzk/msm/batch_subgroup.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cuzk/ec/subgroup.hpp"
#include "cuzk/msm/batch_affine.hpp"
#include "cuzk/util/random.hpp"
#include "cuzk/util/object_pool.hpp"
#include "cuzk/util/thread_pool.hpp"
#include "cuzk/util/uninit_vector.hpp"

namespace cuzk {

// ---- 1. ChaCha20 (RFC 8439, section 2.3) and labels ---------------------------------------------------------------

namespace {

constexpr uint32_t kSigma[4] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};  // "expand 32-byte k"

inline uint32_t rotl32(uint32_t v, int c) { return (v << c) | (v >> (32 - c)); }

// Sixteen blocks at once (counters counter0 .. counter0 + 15), lane-major so the compiler vectorises each step
// (one AVX-512 or two AVX2 registers per state word).
constexpr int kLanes = 16;
using Lanes = uint32_t[16][kLanes];

inline void quarter8(Lanes& x, int a, int b, int c, int d) {
    for (int l = 0; l < kLanes; l++) {
        x[a][l] += x[b][l];
        x[d][l] = rotl32(x[d][l] ^ x[a][l], 16);
        x[c][l] += x[d][l];
        x[b][l] = rotl32(x[b][l] ^ x[c][l], 12);
        x[a][l] += x[b][l];
        x[d][l] = rotl32(x[d][l] ^ x[a][l], 8);
        x[c][l] += x[d][l];
        x[b][l] = rotl32(x[b][l] ^ x[c][l], 7);
    }
}

// out[l][k]: word k of the block with counter counter0 + l.
void chacha20_blocks(const uint32_t key[8], uint32_t counter0, const uint32_t nonce[3], uint32_t out[kLanes][16]) {
    uint32_t init[16];
    for (int k = 0; k < 4; k++) init[k] = kSigma[k];
    for (int k = 0; k < 8; k++) init[4 + k] = key[k];
    init[12] = 0;
    for (int k = 0; k < 3; k++) init[13 + k] = nonce[k];
    alignas(64) Lanes x;
    for (int k = 0; k < 16; k++)
        for (int l = 0; l < kLanes; l++) x[k][l] = init[k];
    for (int l = 0; l < kLanes; l++) x[12][l] = counter0 + (uint32_t)l;
    for (int r = 0; r < 10; r++) {
        quarter8(x, 0, 4, 8, 12);
        quarter8(x, 1, 5, 9, 13);
        quarter8(x, 2, 6, 10, 14);
        quarter8(x, 3, 7, 11, 15);
        quarter8(x, 0, 5, 10, 15);
        quarter8(x, 1, 6, 11, 12);
        quarter8(x, 2, 7, 8, 13);
        quarter8(x, 3, 4, 9, 14);
    }
    for (int l = 0; l < kLanes; l++) {
        for (int k = 0; k < 16; k++) out[l][k] = x[k][l] + init[k];
        out[l][12] = x[12][l] + counter0 + (uint32_t)l;
    }
}

// The label stream of a round: word i of the ChaCha20 stream with nonce (round, attempt, tag) is the candidate for
// point i; a candidate Lemire's method rejects is replaced by word i of the stream of the next attempt. Every word
// is used for one point at most, so the labels are independent and (given ChaCha20) uniform in [0, 3^m).
constexpr uint32_t kNonceTag = 0x62737562;  // "bsub": these streams are used for nothing else

uint64_t pow3(unsigned m) {
    uint64_t v = 1;
    for (unsigned i = 0; i < m; i++) v *= 3;
    return v;
}

struct LabelGen {
    const uint32_t* key;
    uint32_t round;
    uint64_t range;   // 3^m
    uint32_t reject;  // 2^32 mod 3^m: a candidate w is rejected when (w * 3^m) mod 2^32 < reject

    LabelGen(const uint32_t* k, uint32_t r, unsigned m)
        : key(k), round(r), range(pow3(m)), reject((uint32_t)((uint64_t(1) << 32) % pow3(m))) {}

    // Lemire, "Fast random integer generation in an interval" (2019): floor(w * range / 2^32) is exactly uniform
    // on [0, range) over the w it accepts (each value has floor(2^32 / range) preimages).
    bool accept(uint32_t w, uint32_t& label) const {
        uint64_t prod = (uint64_t)w * range;
        label = (uint32_t)(prod >> 32);
        return (uint32_t)prod >= reject;
    }

    uint32_t retry(size_t i) const {
        for (uint32_t attempt = 1;; attempt++) {
            const uint32_t nonce[3] = {round, attempt, kNonceTag};
            uint32_t block[16];
            chacha20_block(key, (uint32_t)(i >> 4), nonce, block);
            uint32_t label;
            if (accept(block[i & 15], label)) return label;
        }
    }

    // out[k] = label of point begin + k for k < end - begin.
    void fill(size_t begin, size_t end, uint32_t* out) const {
        const uint32_t nonce[3] = {round, 0, kNonceTag};
        alignas(64) uint32_t blocks[kLanes][16];
        size_t i = begin;
        while (i < end) {
            const size_t first_block = i >> 4;
            chacha20_blocks(key, (uint32_t)first_block, nonce, blocks);
            const size_t stop = std::min(end, (first_block + kLanes) * 16);
            for (; i < stop; i++) {
                const uint32_t w = blocks[(i >> 4) - first_block][i & 15];
                uint32_t label;
                if (!accept(w, label)) label = retry(i);
                out[i - begin] = label;
            }
        }
    }
};

constexpr uint32_t kSkip = 0xffffffffu;

// The bucket code of a label: the canonical vector of {u, -u} (highest nonzero trit -1, i.e. label < K) as the
// bucket, and whether the point enters negated. The zero vector (label K) and the point at infinity are skipped.
inline uint32_t bucket_code(uint32_t label, uint64_t range) {
    const uint32_t k = (uint32_t)((range - 1) / 2);
    if (label < k) return label << 1;
    if (label > k) return ((uint32_t)(range - 1 - label) << 1) | 1;
    return kSkip;
}

}  // namespace

void chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint32_t out[16]) {
    uint32_t init[16];
    for (int k = 0; k < 4; k++) init[k] = kSigma[k];
    for (int k = 0; k < 8; k++) init[4 + k] = key[k];
    init[12] = counter;
    for (int k = 0; k < 3; k++) init[13 + k] = nonce[k];
    uint32_t x[16];
    std::copy(init, init + 16, x);
    auto qr = [&](int a, int b, int c, int d) {
        x[a] += x[b];
        x[d] = rotl32(x[d] ^ x[a], 16);
        x[c] += x[d];
        x[b] = rotl32(x[b] ^ x[c], 12);
        x[a] += x[b];
        x[d] = rotl32(x[d] ^ x[a], 8);
        x[c] += x[d];
        x[b] = rotl32(x[b] ^ x[c], 7);
    };
    for (int r = 0; r < 10; r++) {
        qr(0, 4, 8, 12);
        qr(1, 5, 9, 13);
        qr(2, 6, 10, 14);
        qr(3, 7, 11, 15);
        qr(0, 5, 10, 15);
        qr(1, 6, 11, 12);
        qr(2, 7, 8, 13);
        qr(3, 4, 9, 14);
    }
    for (int k = 0; k < 16; k++) out[k] = x[k] + init[k];
}

uint32_t batch_subgroup_label(const uint32_t key[8], uint32_t round, unsigned m, size_t i) {
    LabelGen gen(key, round, m);
    uint32_t label;
    gen.fill(i, i + 1, &label);
    return label;
}

// ---- 2. batched affine additions ----------------------------------------------------------------------------------

namespace {

template <class Cfg>
struct GroupTraits;
template <>
struct GroupTraits<G1Config> {
    static constexpr size_t kBatch = 2048;   // pairs per shared inversion (as the MSM's BatchAdder)
    static constexpr bool kG2 = false;
    static bool in_subgroup(const G1Jacobian& p) { return g1_in_subgroup(p); }
    static bool in_subgroup(const G1Affine& p) { return g1_in_subgroup(p); }
};
template <>
struct GroupTraits<G2Config> {
    static constexpr size_t kBatch = 1024;
    static constexpr bool kG2 = true;
    static bool in_subgroup(const G2Jacobian& p) { return g2_in_subgroup(p); }
    static bool in_subgroup(const G2Affine& p) { return g2_in_subgroup(p); }
};

// The MSM's batched adder (msm/batch_affine.hpp): every case is handled there, identities, doublings (equal points,
// e.g. a parameter file with repeated points) and opposite points; E(Fq) and E'(Fq2) have odd order, so no point
// has y = 0.
template <class Cfg>
struct Adder : msm_detail::BatchAdder<Cfg> {
    Adder() : msm_detail::BatchAdder<Cfg>(GroupTraits<Cfg>::kBatch) {}
};

// Per-task scratch, reused across tasks and rounds of one call.
template <class Cfg>
struct Scratch {
    Adder<Cfg> adder;
    std::vector<uint32_t> count;      // per local bucket
    std::vector<uint32_t> sorted;     // point index << 1 | negate, by bucket
    std::vector<uint32_t> tstart, len, active;
    std::vector<Affine<Cfg>> tree;
};

template <class Cfg>
using ScratchPool = ObjectPool<Scratch<Cfg>>;
template <class Cfg>
using ScratchLease = typename ScratchPool<Cfg>::Lease;

using msm_detail::prefetch_point;

// Below this many pairs a pass of a tree finishes with projective additions instead (an inversion costs ~100
// batched additions).
constexpr size_t kMinBatchPairs = 48;

// The sum of src[0 .. n) (not modified) by a pairwise tree of batched additions in s.tree.
template <class Cfg>
Jacobian<Cfg> tree_sum(const Affine<Cfg>* src, size_t n, Scratch<Cfg>& s) {
    using Jac = Jacobian<Cfg>;
    if (n < 2 * kMinBatchPairs) {
        Jac acc = Jac::identity();
        for (size_t i = 0; i < n; i++) acc = acc.add_mixed(src[i]);
        return acc;
    }
    s.tree.resize((n + 1) / 2);
    Affine<Cfg>* t = s.tree.data();
    for (size_t i = 0; i + 1 < n; i += 2) s.adder.push(src[i], src[i + 1], t + i / 2);
    if (n & 1) t[n / 2] = src[n - 1];
    s.adder.flush();
    size_t len = (n + 1) / 2;
    while (len >= 2 * kMinBatchPairs) {
        // Pair i reads slots 2i, 2i + 1 and writes slot i: below every later pair's inputs.
        for (size_t i = 0; i + 1 < len; i += 2) s.adder.push(t[i], t[i + 1], t + i / 2);
        if (len & 1) t[len / 2] = t[len - 1];
        s.adder.flush();
        len = (len + 1) / 2;
    }
    Jac acc = Jac::identity();
    for (size_t i = 0; i < len; i++) acc = acc.add_mixed(t[i]);
    return acc;
}

// ---- 3. one round -------------------------------------------------------------------------------------------------

// Phase timings for profiling harnesses that #include this file with CUZK_BATCH_SUBGROUP_TIMING defined.
#ifdef CUZK_BATCH_SUBGROUP_TIMING
double g_phase_seconds[3];  // counting sort, bucket sums, fold
#define CUZK_PHASE(i, t0) g_phase_seconds[i] += std::chrono::duration<double>(std::chrono::steady_clock::now() - (t0)).count()
#define CUZK_NOW() std::chrono::steady_clock::now()
#else
#define CUZK_PHASE(i, t0) (void)0
#define CUZK_NOW() 0
#endif

// How the work of a round is cut: points go to parts (contiguous bucket ranges) by a two-level counting sort, each
// part is one task. A part of ~2^15 points keeps its tree in the L2/L3 caches and spreads its ~7 passes'
// inversions over enough additions.
constexpr size_t kPartPoints = size_t(1) << 15;
constexpr size_t kLabelBlock = 4096;  // points per chunk of the sort passes, at least

// Storage for elements written before they are read, without the zeroing of std::vector (a round's bucket sums are
// up to 250 MB); Affine is trivially copyable and destructible.
template <class T>
class RawArray {
public:
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
    void reserve(size_t n) {
        if (n > cap_) {
            mem_.reset(new std::byte[n * sizeof(T)]);
            cap_ = n;
        }
    }
    T* data() { return reinterpret_cast<T*>(mem_.get()); }

private:
    std::unique_ptr<std::byte[]> mem_;
    size_t cap_ = 0;
};

// The large arrays of a round, kept for the next round of the same call.
template <class Cfg>
struct Buffers {
    uninit_vector<uint32_t> codes;    // per point: bucket << 1 | negate, or kSkip
    uninit_vector<uint64_t> entries;  // local bucket << 32 | point index << 1 | negate, grouped by part
    RawArray<Affine<Cfg>> sums;       // the K bucket sums, then the fold's cube
    RawArray<Affine<Cfg>> diff;       // the fold's Z - X
};

template <class Cfg>
class Round {
public:
    using Aff = Affine<Cfg>;
    using Jac = Jacobian<Cfg>;

    Round(std::span<const Aff> pts, unsigned m, const uint32_t key[8], uint32_t round, ThreadPool& pool,
          ScratchPool<Cfg>& scratch, Buffers<Cfg>& buf)
        : pts_(pts), m_(m), gen_(key, round, m), pool_(pool), scratch_(scratch), buf_(buf) {
        range_ = pow3(m);
        k_ = (range_ - 1) / 2;
    }

    // The m combinations Q_j = sum_i trit_j(label_i) P_i.
    std::vector<Jac> run() {
        bucket_sums();
        [[maybe_unused]] auto t0 = CUZK_NOW();
        std::vector<Jac> q = fold();
        CUZK_PHASE(2, t0);
        return q;
    }

    // The fold alone, of K bucket sums formed elsewhere (overwritten).
    std::vector<Jac> fold_sums(Aff* sums) {
        sums_ = sums;
        return fold();
    }

private:
    // ---- labels -> parts -> buckets ----
    void bucket_sums() {
        [[maybe_unused]] auto t0 = CUZK_NOW();
        const size_t n = pts_.size();
        const size_t threads = pool_.size();
        // Parts: about n / 2^15, at least 4 per thread when there are enough points, never more than buckets.
        size_t parts = std::max<size_t>((n + kPartPoints - 1) / kPartPoints, std::min<size_t>(4 * threads, n / 2048));
        parts = std::clamp<size_t>(parts, 1, (size_t)k_);
        // part(b) = (b * mul) >> 32 is monotone with part(K - 1) < parts, so parts are contiguous bucket ranges; part p
        // starts at the least b with b * mul >= p * 2^32 (the last part can be empty when mul rounds down).
        mul_ = (uint64_t)(((unsigned __int128)parts << 32) / k_);
        part_start_.resize(parts + 1);
        for (size_t p = 0; p <= parts; p++)
            part_start_[p] = (uint32_t)std::min<uint64_t>(k_, (((uint64_t)p << 32) + mul_ - 1) / mul_);

        // Chunks of points for the two passes of the counting sort: labels and histograms, then the scatter.
        const size_t chunks = std::max<size_t>(1, std::min(threads, (n + kLabelBlock - 1) / kLabelBlock));
        std::vector<uint32_t> hist(chunks * parts, 0);
        auto chunk_range = [&](size_t c) {
            return std::pair<size_t, size_t>{n * c / chunks, n * (c + 1) / chunks};
        };
        buf_.codes.resize(n);
        uint32_t* codes = buf_.codes.data();
        pool_.run_tasks(chunks, [&](size_t c) {
            uint32_t* h = hist.data() + c * parts;
            auto [begin, end] = chunk_range(c);
            gen_.fill(begin, end, codes + begin);
            for (size_t i = begin; i < end; i++) {
                // (Points at infinity are added like any other: the adder copies the other operand.)
                const uint32_t code = bucket_code(codes[i], range_);
                codes[i] = code;
                if (code != kSkip) h[part_of(code >> 1)]++;
            }
        });
        // Offsets: part-major, chunk-minor, so each part's entries are contiguous.
        std::vector<uint64_t> off(chunks * parts);
        part_off_.assign(parts + 1, 0);
        uint64_t total = 0;
        for (size_t p = 0; p < parts; p++) {
            part_off_[p] = total;
            for (size_t c = 0; c < chunks; c++) {
                off[c * parts + p] = total;
                total += hist[c * parts + p];
            }
        }
        part_off_[parts] = total;
        buf_.entries.resize(total);
        uint64_t* entries = buf_.entries.data();
        pool_.run_tasks(chunks, [&](size_t c) {
            uint64_t* o = off.data() + c * parts;
            auto [begin, end] = chunk_range(c);
            for (size_t i = begin; i < end; i++) {
                const uint32_t code = codes[i];
                if (code == kSkip) continue;
                const uint32_t b = code >> 1;
                const size_t p = part_of(b);
                entries[o[p]++] = (uint64_t)(b - part_start_[p]) << 32 | (uint64_t)i << 1 | (code & 1);
            }
        });

        CUZK_PHASE(0, t0);
        [[maybe_unused]] auto t1 = CUZK_NOW();
        buf_.sums.reserve(k_);
        sums_ = buf_.sums.data();
        pool_.run_tasks(parts, [&](size_t p) {
            ScratchLease<Cfg> lease(scratch_);
            reduce_part(p, *lease);
        });
        CUZK_PHASE(1, t1);
    }

    size_t part_of(uint32_t b) const { return (size_t)(((uint64_t)b * mul_) >> 32); }

    Aff load(uint32_t e) const {
        const Aff& p = pts_[e >> 1];
        return (e & 1) ? -p : p;
    }

    // The bucket sums of one part: its entries sorted by bucket, then a pairwise tree per bucket in which every
    // pass is one batch over all the part's buckets (the layout and the in-place argument are those of the MSM's
    // reduce_buckets: with o = len & 1, pair i of a list reads slots o + 2i, o + 2i + 1 and writes slot o + i).
    void reduce_part(size_t p, Scratch<Cfg>& s) {
        const uint32_t b0 = part_start_[p], nb = part_start_[p + 1] - b0;
        const uint64_t* e = buf_.entries.data() + part_off_[p];
        const size_t ne = part_off_[p + 1] - part_off_[p];
        for (uint32_t b = 0; b < nb; b++) sums_[b0 + b] = Aff::identity();  // empty buckets stay so
        if (ne == 0) return;
        s.count.assign(nb + 1, 0);
        for (size_t k = 0; k < ne; k++) s.count[(e[k] >> 32) + 1]++;
        for (uint32_t b = 0; b < nb; b++) s.count[b + 1] += s.count[b];
        // count[b] is now the start of bucket b; scatter with a moving cursor, then restore the starts.
        s.sorted.resize(ne);
        for (size_t k = 0; k < ne; k++) s.sorted[s.count[e[k] >> 32]++] = (uint32_t)e[k];
        for (uint32_t b = nb; b > 0; b--) s.count[b] = s.count[b - 1];
        s.count[0] = 0;
        const uint32_t* start = s.count.data();  // bucket b: sorted[start[b] .. start[b + 1])

        s.tstart.resize(nb);
        s.len.resize(nb);
        s.active.clear();
        size_t tsize = 0;
        for (uint32_t b = 0; b < nb; b++) tsize += (start[b + 1] - start[b] + 1) / 2;
        s.tree.resize(tsize);
        Aff* tree = s.tree.data();
        const uint32_t* sorted = s.sorted.data();
        constexpr size_t kAhead = 16;  // points are read in bucket order, i.e. at random: prefetch
        size_t t = 0;
        for (uint32_t b = 0; b < nb; b++) {
            const uint32_t first = start[b], len = start[b + 1] - first;
            s.tstart[b] = (uint32_t)t;
            s.len[b] = (len + 1) / 2;
            if (len == 0) continue;
            Aff* dst = tree + t;
            const uint32_t o = len & 1;
            if (o) dst[0] = load(sorted[first]);
            for (uint32_t i = 0; i < len / 2; i++) {
                const size_t k = (size_t)first + o + 2 * i;
                if (k + kAhead + 1 < ne) {
                    prefetch_point(pts_.data() + (sorted[k + kAhead] >> 1));
                    prefetch_point(pts_.data() + (sorted[k + kAhead + 1] >> 1));
                }
                s.adder.push(load(sorted[k]), load(sorted[k + 1]), dst + o + i);
            }
            t += (len + 1) / 2;
            if (s.len[b] >= 2) s.active.push_back(b);
        }
        s.adder.flush();
        for (uint32_t b = 0; b < nb; b++)
            if (s.len[b] == 1) sums_[b0 + b] = tree[s.tstart[b]];

        // Later passes: one batch (one inversion) per pass however few pairs are left; finishing a bucket
        // projectively would cost an inversion per bucket to get its affine sum back.
        while (!s.active.empty()) {
            for (uint32_t b : s.active) {
                Aff* list = tree + s.tstart[b];
                const uint32_t len = s.len[b], o = len & 1;
                for (uint32_t i = 0; i < len / 2; i++) s.adder.push(list[o + 2 * i], list[o + 2 * i + 1], list + o + i);
                s.len[b] = (len + 1) / 2;
            }
            s.adder.flush();
            size_t kept = 0;
            for (uint32_t b : s.active) {
                if (s.len[b] >= 2) s.active[kept++] = b;
                else sums_[b0 + b] = tree[s.tstart[b]];
            }
            s.active.resize(kept);
        }
    }

    // ---- the fold ----
    // With bucket b's trits t_j(b) = digit_j(b) - 1 (b < K = (3^m - 1) / 2: highest nonzero trit -1):
    //   Q_(m-1) = sum_b t_(m-1)(b) S_b = -sum_(b < 3^(m-1)) S_b (the buckets [3^(m-1), K) have t_(m-1) = 0);
    //   for j < m - 1, Q_j = sum_(w < 3^(m-1)) t_j(w) G_w with G_w = S_w + S_(3^(m-1) + w) for w < (3^(m-1) - 1) / 2
    //   (those buckets' lower m - 1 digits are again the canonical half) and G_w = S_w otherwise.
    // Then a full cube of n digits folds one digit at a time: with s = 3^(n-1) and the slices X, Y, Z = G[0, s),
    // G[s, 2s), G[2s, 3s) (top trit -1, 0, 1), L_(n-1) = sum (Z - X), and the lower digits' forms are those of
    // X + Y + Z. About 3.5 * 3^(m-1) additions, all batched. Signs of the Q_j do not matter to the test.
    std::vector<Jac> fold() {
        std::vector<Jac> q(m_);
        Aff* g = sums_;
        size_t s = (size_t)pow3(m_ - 1);
        q[m_ - 1] = sum(g, s);
        elementwise(g, g, g + s, (s - 1) / 2, false);
        for (unsigned n = m_ - 1; n > 0; n--) {
            s /= 3;  // slice size 3^(n-1)
            Aff* x = g;
            const Aff* y = x + s;
            const Aff* z = x + 2 * s;
            if (s < kMinBatchPairs) {  // small cube: finish projectively
                fold_small(n, q);
                break;
            }
            buf_.diff.reserve(s);
            Aff* diff = buf_.diff.data();
            elementwise(diff, z, x, s, true);
            q[n - 1] = sum(diff, s);
            elementwise(x, x, y, s, false);
            elementwise(x, x, z, s, false);
        }
        return q;
    }

    // The fold of the cube g[0, 3^n) into q[0 .. n) with projective arithmetic.
    void fold_small(unsigned n, std::vector<Jac>& q) {
        size_t s3 = (size_t)pow3(n);
        std::vector<Jac> g(s3);
        for (size_t i = 0; i < s3; i++) g[i] = sums_[i].to_jacobian();
        for (; n > 0; n--) {
            size_t s = s3 / 3;
            Jac zx = Jac::identity();
            for (size_t i = 0; i < s; i++) {
                zx += g[2 * s + i] - g[i];
                g[i] = g[i] + g[s + i] + g[2 * s + i];
            }
            q[n - 1] = zx;
            s3 = s;
        }
    }

    // out[i] = a[i] + b[i] (or a[i] - b[i]) for i < n, in parallel; out may be a (slot i is read by pair i only).
    void elementwise(Aff* out, const Aff* a, const Aff* b, size_t n, bool subtract) {
        if (n == 0) return;
        // Chunks of at least 256 pairs (an inversion is ~100 additions): the small levels of the fold are cut
        // finely too, or their serial time would cap the speed-up on many threads.
        const size_t chunks = std::clamp<size_t>(n / 256, 1, pool_.size());
        pool_.run_tasks(chunks, [&](size_t c) {
            ScratchLease<Cfg> lease(scratch_);
            Scratch<Cfg>& s = *lease;
            const size_t begin = n * c / chunks, end = n * (c + 1) / chunks;
            for (size_t i = begin; i < end; i++) s.adder.push(a[i], subtract ? -b[i] : b[i], out + i);
            s.adder.flush();
        });
    }

    // sum of src[0 .. n), in parallel.
    Jac sum(const Aff* src, size_t n) {
        const size_t chunks = std::clamp<size_t>(n / 1024, 1, pool_.size());
        std::vector<Jac> part(chunks);
        pool_.run_tasks(chunks, [&](size_t c) {
            ScratchLease<Cfg> lease(scratch_);
            const size_t begin = n * c / chunks, end = n * (c + 1) / chunks;
            part[c] = tree_sum(src + begin, end - begin, *lease);
        });
        Jac acc = Jac::identity();
        for (const Jac& p : part) acc += p;
        return acc;
    }

    std::span<const Aff> pts_;
    unsigned m_;
    LabelGen gen_;
    ThreadPool& pool_;
    ScratchPool<Cfg>& scratch_;
    uint64_t range_ = 0, k_ = 0, mul_ = 0;
    Buffers<Cfg>& buf_;
    std::vector<uint32_t> part_start_;
    std::vector<uint64_t> part_off_;
    Aff* sums_ = nullptr;  // the K bucket sums, then the fold's cube (in buf_.sums)
};

// ---- 4. planning, checking, searching -----------------------------------------------------------------------------

// The cost model of the planner, in batched affine additions of the group: a point costs ~1.15 per round (the
// addition plus labels, sorting and the random read), the fold ~3.5 * 3^(m-1), a round ~40 inversions of fixed
// overhead, and an exact test (two multiplications by |x| in G1, ~130 doublings; one in G2 over Fq2) as many
// additions as measured: on a Zen 3 without AVX-512, G1 68 us
// against 0.40 us per addition, G2 81 us against 1.43 us; on a Xeon with IFMA, where the additions run eight at a
// time and the test does not, G1 91 us against 0.24 us, G2 125 us against 0.74 us. The plan only affects speed.
constexpr double kPerPoint = 1.15;
constexpr double kFoldPerCube = 3.5 / 3.0;
constexpr double kRoundFixed = 4000;
constexpr unsigned kMaxTrits = 14;  // 3^14 / 2 = 2.4 M buckets per round; labels need 3^m < 2^32

double check_cost(bool g2) {
    if (msm_detail::ifma_enabled()) return g2 ? 170.0 : 370.0;
    return g2 ? 57.0 : 170.0;
}

// Points per independent batch: indices keep a sign bit beside them in 32 bits.
constexpr size_t kMaxBatch = size_t(1) << 30;

template <class Cfg>
std::vector<Jacobian<Cfg>> run_round(std::span<const Affine<Cfg>> pts, unsigned m, const uint32_t key[8],
                                     uint32_t round, ThreadPool& pool, ScratchPool<Cfg>& scratch,
                                     Buffers<Cfg>& buf) {
    if (m == 0 || m > 20) throw std::invalid_argument("batch subgroup round: m must be 1..20");
    if (pts.size() > kMaxBatch) throw std::invalid_argument("batch subgroup round: more than 2^30 points");
    Round<Cfg> r(pts, m, key, round, pool, scratch, buf);
    return r.run();
}

template <class Cfg>
bool per_point_all(std::span<const Affine<Cfg>> pts, ThreadPool& pool) {
    std::atomic<bool> ok{true};
    const size_t chunks = std::max<size_t>(1, std::min(pool.size(), pts.size() / 8));
    pool.run_tasks(chunks, [&](size_t c) {
        const size_t begin = pts.size() * c / chunks, end = pts.size() * (c + 1) / chunks;
        for (size_t i = begin; i < end && ok.load(std::memory_order_relaxed); i++)
            if (!GroupTraits<Cfg>::in_subgroup(pts[i])) ok = false;
    });
    return ok.load();
}

void make_key(const BatchSubgroupOptions& opt, uint32_t key[8]) {
    if (opt.insecure_seed) {
        // Tests only: a fixed expansion of the seed (splitmix64).
        uint64_t z = *opt.insecure_seed;
        for (int i = 0; i < 4; i++) {
            z += 0x9e3779b97f4a7c15ULL;
            uint64_t v = z;
            v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ULL;
            v = (v ^ (v >> 27)) * 0x94d049bb133111ebULL;
            v ^= v >> 31;
            key[2 * i] = (uint32_t)v;
            key[2 * i + 1] = (uint32_t)(v >> 32);
        }
    } else {
        OsRng::fill(key, 8 * sizeof(uint32_t));
    }
}

template <class Cfg>
std::vector<Jacobian<Cfg>> fold_round(std::span<Affine<Cfg>> sums, unsigned m, ThreadPool& pool) {
    if (m == 0 || m > 20) throw std::invalid_argument("batch subgroup fold: m must be 1..20");
    if (sums.size() != (pow3(m) - 1) / 2)
        throw std::invalid_argument("batch subgroup fold: " + std::to_string(sums.size()) + " sums for " +
                                    std::to_string(m) + " trits");
    const uint32_t no_key[8] = {};
    ScratchPool<Cfg> scratch;
    Buffers<Cfg> buf;
    Round<Cfg> r({}, m, no_key, 0, pool, scratch, buf);
    return r.fold_sums(sums.data());
}

// True when every combination is in the subgroup (tested in parallel).
template <class Cfg>
bool all_in_subgroup(const std::vector<Jacobian<Cfg>>& q, ThreadPool& pool) {
    std::atomic<bool> ok{true};
    pool.run_tasks(q.size(), [&](size_t j) {
        if (ok.load(std::memory_order_relaxed) && !GroupTraits<Cfg>::in_subgroup(q[j])) ok = false;
    });
    return ok.load();
}

// The combinations of every round from bucket sums formed elsewhere (a BatchRoundSource or ResidentRoundSource).
template <class Cfg>
std::vector<Jacobian<Cfg>> fold_rounds(std::vector<std::vector<Affine<Cfg>>> sums, std::span<const unsigned> trits,
                                       ThreadPool& pool) {
    if (sums.size() != trits.size()) throw std::logic_error("batch subgroup check: the device skipped a round");
    std::vector<Jacobian<Cfg>> q;
    for (size_t r = 0; r < trits.size(); r++) {
        auto qr = fold_round<Cfg>(sums[r], trits[r], pool);
        q.insert(q.end(), qr.begin(), qr.end());
    }
    return q;
}

// One batch planned as `trits`: a fresh key, combinations(key) -> every round's combinations Q_j (the key is
// wiped as soon as they are formed), and the exact test of each. Every way of forming the rounds ends here.
template <class Cfg, class Combinations>
bool batch_one(std::span<const unsigned> trits, const BatchSubgroupOptions& opt, ThreadPool& pool,
               Combinations&& combinations) {
    unsigned total = 0;
    for (unsigned m : trits) total += m;
    if (total < batch_subgroup_trits(opt.security_bits))
        throw std::logic_error("batch subgroup check: a plan of too few trits");
    uint32_t key[8];
    make_key(opt, key);
    std::vector<Jacobian<Cfg>> q;
    try {
        q = combinations(static_cast<const uint32_t*>(key));
    } catch (...) {
        secure_wipe(key, sizeof key);
        throw;
    }
    secure_wipe(key, sizeof key);
    return all_in_subgroup(q, pool);
}

// One batch of a span: its rounds' combinations from the CPU rounds, or from the device's bucket sums folded here,
// or the per-point test where the plan has no rounds.
template <class Cfg>
bool batch_one(std::span<const Affine<Cfg>> chunk, const BatchSubgroupOptions& opt, ThreadPool& pool,
               BatchRoundSource<Cfg>* source) {
    const unsigned t = batch_subgroup_trits(opt.security_bits);
    std::vector<unsigned> trits = source ? source->plan(chunk.size(), t)
                                         : batch_subgroup_plan(chunk.size(), GroupTraits<Cfg>::kG2, opt.security_bits).trits;
    if (trits.empty()) return per_point_all(chunk, pool);
    return batch_one<Cfg>(trits, opt, pool, [&](const uint32_t* key) {
        if (source) return fold_rounds<Cfg>(source->sums(chunk, trits, key), trits, pool);
        ScratchPool<Cfg> scratch;
        Buffers<Cfg> buf;
        std::vector<Jacobian<Cfg>> q;
        for (size_t r = 0; r < trits.size(); r++) {
            auto qr = run_round(chunk, trits[r], key, (uint32_t)r, pool, scratch, buf);
            q.insert(q.end(), qr.begin(), qr.end());
        }
        return q;
    });
}

void check_security_bits(const BatchSubgroupOptions& opt) {
    if (opt.security_bits == 0 || opt.security_bits > 256)
        throw std::invalid_argument("batch subgroup check: security_bits must be 1..256");
}

// The points of a ResidentRoundSource, batch by batch as batch_all does a span's.
template <class Cfg>
bool resident_all(ResidentRoundSource<Cfg>& source, const BatchSubgroupOptions& opt) {
    check_security_bits(opt);
    ThreadPool& pool = opt.pool ? *opt.pool : ThreadPool::global();
    const size_t n = source.size();
    const size_t max_batch = std::min(kMaxBatch, std::max<size_t>(1, source.max_points()));
    const unsigned t = batch_subgroup_trits(opt.security_bits);
    for (size_t start = 0; start < n; start += max_batch) {
        const size_t count = std::min(max_batch, n - start);
        const std::vector<unsigned> trits = source.plan(count, t);
        if (trits.empty()) throw std::logic_error("batch subgroup check: a resident source must plan rounds");
        auto combinations = [&](const uint32_t* key) {
            return fold_rounds<Cfg>(source.sums(start, count, trits, key), trits, pool);
        };
        if (!batch_one<Cfg>(trits, opt, pool, combinations)) return false;
    }
    return true;
}

template <class Cfg>
bool batch_all(std::span<const Affine<Cfg>> pts, const BatchSubgroupOptions& opt, BatchRoundSource<Cfg>* source) {
    check_security_bits(opt);
    ThreadPool& pool = opt.pool ? *opt.pool : ThreadPool::global();
    const size_t max_batch = source ? std::min(kMaxBatch, source->max_points()) : kMaxBatch;
    for (size_t start = 0; start < pts.size(); start += max_batch) {
        auto chunk = pts.subspan(start, std::min(max_batch, pts.size() - start));
        if (!batch_one(chunk, opt, pool, source)) return false;
    }
    return true;
}

// Below this many points the search for the first bad point tests every point.
constexpr size_t kScanPoints = 2048;

template <class Cfg>
std::optional<size_t> first_bad_scan(std::span<const Affine<Cfg>> pts, size_t offset, ThreadPool& pool) {
    constexpr size_t NONE = std::numeric_limits<size_t>::max();
    std::atomic<size_t> first{NONE};
    const size_t chunks = std::max<size_t>(1, std::min(pool.size(), pts.size() / 8));
    pool.run_tasks(chunks, [&](size_t c) {
        const size_t begin = pts.size() * c / chunks, end = pts.size() * (c + 1) / chunks;
        for (size_t i = begin; i < end; i++) {
            if (i > first.load(std::memory_order_relaxed)) return;
            if (!GroupTraits<Cfg>::in_subgroup(pts[i])) {
                size_t cur = first.load(std::memory_order_relaxed);
                while (i < cur && !first.compare_exchange_weak(cur, i, std::memory_order_relaxed)) {
                }
                return;
            }
        }
    });
    size_t f = first.load();
    if (f == NONE) return std::nullopt;
    return offset + f;
}

template <class Cfg>
std::optional<size_t> batch_first_bad(std::span<const Affine<Cfg>> pts, const BatchSubgroupOptions& opt,
                                      BatchRoundSource<Cfg>* source = nullptr) {
    ThreadPool& pool = opt.pool ? *opt.pool : ThreadPool::global();
    if (batch_all(pts, opt, source)) return std::nullopt;
    if (pts.size() <= kScanPoints) return first_bad_scan(pts, 0, pool);
    // [lo, hi) holds a bad point (its check failed, or, after a passing left half, with probability >= 1 - 2^-k).
    size_t lo = 0, hi = pts.size();
    while (hi - lo > kScanPoints) {
        const size_t mid = lo + (hi - lo) / 2;
        if (!batch_all(pts.subspan(lo, mid - lo), opt, source)) hi = mid;
        else lo = mid;
    }
    if (auto f = first_bad_scan(pts.subspan(lo, hi - lo), lo, pool)) return f;
    // Only when a passing half held a bad point after all (probability <= 2^-security_bits per check): the slow way.
    return first_bad_scan(pts, 0, pool);
}

// The points that are not the identity, copied together with their positions, when enough of the span is the
// identity to pay for the copy (the identity is in every subgroup, yet costs a round's addition like any point, and
// a span of mostly identities still pays every round's fold: a circom zkey's B1 and B2 are almost all identities).
// A copy costs well under one round's addition per point; one point in eight is where it starts to pay.
template <class Cfg>
struct WithoutIdentities {
    std::vector<Affine<Cfg>> points;
    std::vector<size_t> position;  // position[k]: the index of points[k] in the original span
};

template <class Cfg>
std::optional<WithoutIdentities<Cfg>> without_identities(std::span<const Affine<Cfg>> pts, ThreadPool& pool) {
    const size_t n = pts.size();
    if (n == 0) return std::nullopt;
    const size_t chunks = std::max<size_t>(1, std::min(4 * pool.size(), n / 4096));
    std::vector<size_t> kept(chunks + 1, 0);
    auto range = [&](size_t c) { return std::pair<size_t, size_t>{n * c / chunks, n * (c + 1) / chunks}; };
    pool.run_tasks(chunks, [&](size_t c) {
        auto [begin, end] = range(c);
        size_t k = 0;
        for (size_t i = begin; i < end; i++) k += !pts[i].is_identity();
        kept[c + 1] = k;
    });
    for (size_t c = 0; c < chunks; c++) kept[c + 1] += kept[c];
    if ((n - kept[chunks]) * 8 < n) return std::nullopt;
    WithoutIdentities<Cfg> out;
    out.points.resize(kept[chunks]);
    out.position.resize(kept[chunks]);
    pool.run_tasks(chunks, [&](size_t c) {
        auto [begin, end] = range(c);
        size_t k = kept[c];
        for (size_t i = begin; i < end; i++)
            if (!pts[i].is_identity()) out.points[k] = pts[i], out.position[k++] = i;
    });
    return out;
}

template <class Cfg>
bool check_all(std::span<const Affine<Cfg>> pts, const BatchSubgroupOptions& opt, BatchRoundSource<Cfg>* source) {
    if (auto w = without_identities(pts, opt.pool ? *opt.pool : ThreadPool::global()))
        return batch_all<Cfg>(w->points, opt, source);
    return batch_all<Cfg>(pts, opt, source);
}

template <class Cfg>
std::optional<size_t> check_first_bad(std::span<const Affine<Cfg>> pts, const BatchSubgroupOptions& opt,
                                      BatchRoundSource<Cfg>* source) {
    if (auto w = without_identities(pts, opt.pool ? *opt.pool : ThreadPool::global())) {
        auto bad = batch_first_bad<Cfg>(w->points, opt, source);
        if (bad) return w->position[*bad];
        return std::nullopt;
    }
    return batch_first_bad<Cfg>(pts, opt, source);
}

}  // namespace

unsigned batch_subgroup_trits(unsigned security_bits) {
    // The least t with 3^t >= 2^bits, i.e. t log2(3) >= bits. For t <= 162 (bits <= 256) t log2(3) stays at least
    // 0.003 away from every integer (closest: 53 log2 3 = 84.0030), far above double rounding.
    constexpr double kLog2Of3 = 1.5849625007211562;
    unsigned t = 0;
    while (t * kLog2Of3 < (double)security_bits) t++;
    return t;
}

BatchSubgroupPlan batch_subgroup_plan(size_t n, bool g2, unsigned security_bits) {
    const unsigned t = batch_subgroup_trits(security_bits);
    const double check = check_cost(g2);
    double best = (double)n * check;  // per point
    BatchSubgroupPlan plan;
    for (unsigned r = (t + kMaxTrits - 1) / kMaxTrits; r <= t; r++) {
        std::vector<unsigned> trits(r, t / r);
        for (unsigned i = 0; i < t % r; i++) trits[i]++;
        double cost = t * check;
        for (unsigned m : trits) cost += kPerPoint * (double)n + kFoldPerCube * (double)pow3(m) + kRoundFixed;
        // A round needs at least a few buckets' worth of points to be a round at all.
        if (cost < best) {
            best = cost;
            plan.trits = std::move(trits);
        }
    }
    return plan;
}

std::vector<G1Jacobian> g1_batch_round(std::span<const G1Affine> points, unsigned m, const uint32_t key[8],
                                       uint32_t round, ThreadPool* pool) {
    ScratchPool<G1Config> scratch;
    Buffers<G1Config> buf;
    return run_round<G1Config>(points, m, key, round, pool ? *pool : ThreadPool::global(), scratch, buf);
}

std::vector<G2Jacobian> g2_batch_round(std::span<const G2Affine> points, unsigned m, const uint32_t key[8],
                                       uint32_t round, ThreadPool* pool) {
    ScratchPool<G2Config> scratch;
    Buffers<G2Config> buf;
    return run_round<G2Config>(points, m, key, round, pool ? *pool : ThreadPool::global(), scratch, buf);
}

bool g1_batch_in_subgroup(std::span<const G1Affine> points, const BatchSubgroupOptions& options) {
    return check_all<G1Config>(points, options, nullptr);
}
bool g2_batch_in_subgroup(std::span<const G2Affine> points, const BatchSubgroupOptions& options) {
    return check_all<G2Config>(points, options, nullptr);
}
bool g1_batch_in_subgroup(std::span<const G1Affine> points, const BatchSubgroupOptions& options,
                          BatchRoundSource<G1Config>& source) {
    return check_all<G1Config>(points, options, &source);
}
bool g2_batch_in_subgroup(std::span<const G2Affine> points, const BatchSubgroupOptions& options,
                          BatchRoundSource<G2Config>& source) {
    return check_all<G2Config>(points, options, &source);
}
std::optional<size_t> g1_batch_first_not_in_subgroup(std::span<const G1Affine> points,
                                                     const BatchSubgroupOptions& options,
                                                     BatchRoundSource<G1Config>& source) {
    return check_first_bad<G1Config>(points, options, &source);
}
std::optional<size_t> g2_batch_first_not_in_subgroup(std::span<const G2Affine> points,
                                                     const BatchSubgroupOptions& options,
                                                     BatchRoundSource<G2Config>& source) {
    return check_first_bad<G2Config>(points, options, &source);
}
bool g1_batch_in_subgroup(ResidentRoundSource<G1Config>& source, const BatchSubgroupOptions& options) {
    return resident_all<G1Config>(source, options);
}
bool g2_batch_in_subgroup(ResidentRoundSource<G2Config>& source, const BatchSubgroupOptions& options) {
    return resident_all<G2Config>(source, options);
}
std::vector<G1Jacobian> g1_batch_fold(std::span<G1Affine> sums, unsigned m, ThreadPool* pool) {
    return fold_round<G1Config>(sums, m, pool ? *pool : ThreadPool::global());
}
std::vector<G2Jacobian> g2_batch_fold(std::span<G2Affine> sums, unsigned m, ThreadPool* pool) {
    return fold_round<G2Config>(sums, m, pool ? *pool : ThreadPool::global());
}
std::optional<size_t> g1_batch_first_not_in_subgroup(std::span<const G1Affine> points,
                                                     const BatchSubgroupOptions& options) {
    return check_first_bad<G1Config>(points, options, nullptr);
}
std::optional<size_t> g2_batch_first_not_in_subgroup(std::span<const G2Affine> points,
                                                     const BatchSubgroupOptions& options) {
    return check_first_bad<G2Config>(points, options, nullptr);
}

}  // namespace cuzk
