#include "cuzk/msm/msm.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "cuzk/msm/batch_add_ifma.hpp"
#include "cuzk/msm/batch_affine.hpp"
#include "cuzk/util/object_pool.hpp"

namespace cuzk {
namespace {

using msm_detail::BatchAdder;
using msm_detail::prefetch_point;

using ScalarLimbs = limbs_t<4>;

// Defaults that depend on the field of the curve (see MsmConfig). The break-even for a batch: one inversion by
// Fermat costs ~570 base multiplications; a batched affine addition costs ~6 multiplications of F against ~10 for
// an XYZZ mixed addition, so a batch must hold more than ~570 / 4 = 142 pairs in G1 to pay for its inversion. In G2
// an F multiplication is 3 base ones while the Fq2 inversion is one Fq inversion plus a few multiplications, so the
// break-even is ~570 / (4 * 3) = 48 pairs.
template <class Cfg>
struct MsmDefaults;
template <>
struct MsmDefaults<G1Config> {
    static constexpr size_t batch_size = 2048;
    static constexpr size_t min_batch_pairs = 128;
};
template <>
struct MsmDefaults<G2Config> {
    static constexpr size_t batch_size = 1024;
    static constexpr size_t min_batch_pairs = 48;
};

// G1 2^20 single-threaded CPU time with c = 16 and chunks of 2^16, 2^18, 2^20 points: 5.23, 5.07, 5.06 s (a
// chunk's tree does not fit the caches either way); 2^18 keeps a task's scratch near 16 MB.
constexpr size_t kDefaultChunkPoints = size_t(1) << 18;
constexpr unsigned kMaxWindowBits = 20;
// Indices and Pippenger's entries keep a sign bit beside a point index in 32 bits.
constexpr size_t kMaxPoints = size_t(1) << 31;

// ---- signed digits --------------------------------------------------------------------------------------------
// Window j of a scalar s covers bits [j c, (j + 1) c). With raw_j those bits and hi_j = [raw_j >= 2^(c-1)], the
// digit d_j = raw_j - 2^c hi_j + hi_{j-1} lies in [-2^(c-1), 2^(c-1)] and sum_j d_j 2^(j c) = s - hi_{W-1} 2^(W c).
// With W = ceil(256 / c) windows, W c >= 256 and s < r < 2^255 make the top raw value < 2^(255 - (W-1) c) <= 2^(c-1),
// so hi_{W-1} = 0 and the digits represent s exactly. Each digit needs only its own window and the one below, so a
// window task computes its digits without a pass over all windows.
unsigned num_windows(unsigned c) { return (256 + c - 1) / c; }

inline uint64_t window_raw(const ScalarLimbs& s, unsigned bit, unsigned c) {
    if (bit >= 256) return 0;
    unsigned w = bit / 64, sh = bit % 64;
    uint64_t v = s[w] >> sh;
    if (sh != 0 && w + 1 < 4) v |= s[w + 1] << (64 - sh);
    return v & ((uint64_t(1) << c) - 1);
}

inline int64_t signed_digit(const ScalarLimbs& s, unsigned window, unsigned c) {
    const uint64_t half = uint64_t(1) << (c - 1);
    uint64_t raw = window_raw(s, window * c, c);
    int64_t d = raw >= half ? (int64_t)raw - (int64_t)(uint64_t(1) << c) : (int64_t)raw;
    if (window > 0 && window_raw(s, (window - 1) * c, c) >= half) d += 1;
    return d;
}


// Scratch of one running task, reused by the next task through ScratchPool (first touch of ~60 MB per task would
// otherwise cost page faults in every window).
template <class Cfg>
struct Scratch {
    explicit Scratch(size_t batch) : adder(batch) {}
    BatchAdder<Cfg> adder;
    std::vector<uint32_t> codes;    // per chunk point: bucket << 1 | negate, or kNoBucket
    std::vector<uint32_t> ebeg;     // bucket b owns entries [ebeg[b], ebeg[b + 1])
    std::vector<uint32_t> pos;      // scatter cursors
    std::vector<uint32_t> entries;  // base index << 1 | negate, grouped by bucket
    std::vector<uint32_t> tstart, len, active;
    std::vector<Affine<Cfg>> tree;
    std::vector<Affine<Cfg>> carry;  // bucket sums carried between chunks (affine, infinity when empty)
    std::vector<XYZZ<Cfg>> buckets;  // bucket sums from rounds too small to batch
};
constexpr uint32_t kNoBucket = 0xffffffffu;

template <class Cfg>
using ScratchPool = ObjectPool<Scratch<Cfg>>;

template <class Cfg>
inline Affine<Cfg> load_point(const Affine<Cfg>* bases, uint32_t code) {
    const Affine<Cfg>& p = bases[code >> 1];
    return (code & 1) ? -p : p;
}


// running + q for a bucket q: a mixed addition when q came straight from an affine point (ZZ = ZZZ = 1).
template <class Cfg>
inline XYZZ<Cfg> add_bucket(const XYZZ<Cfg>& running, const XYZZ<Cfg>& q) {
    if (q.ZZ.is_one() && q.ZZZ.is_one()) return running.add_mixed(Affine<Cfg>::from_xy(q.X, q.Y));
    return running + q;
}

// Adds the points of every bucket b (bases[e >> 1], negated when e & 1, for the entries e in [ebeg[b], ebeg[b+1]))
// into the bucket's value carry[b] + buckets[b]. The affine carry[b] enters the bucket's list as one more point, so
// the buckets pass from one chunk to the next at no extra addition; buckets[b] (XYZZ) only receives the points of
// rounds too small to batch.
//
// A pairwise tree: each round adds disjoint pairs inside every bucket with batched affine additions and halves the
// lists, until each bucket holds one point, its new carry. Layout: bucket b's list lives in tree[tstart[b] ..];
// with o = len & 1, an odd list keeps its first point in place and pair i reads slots o + 2i, o + 2i + 1 and writes
// slot o + i. An output slot lies below the input slots of every later pair, which is what makes the in-place rounds
// safe (BatchAdder copies inputs when a pair is pushed, and batches are flushed in push order).
template <class Cfg>
void reduce_buckets(size_t nb, const Affine<Cfg>* bases, Scratch<Cfg>& s, size_t min_pairs) {
    using Aff = Affine<Cfg>;
    const uint32_t* ebeg = s.ebeg.data();
    const uint32_t* entries = s.entries.data();
    XYZZ<Cfg>* buckets = s.buckets.data();
    Aff* carry = s.carry.data();

    size_t pairs = 0, tsize = 0;
    for (size_t b = 0; b < nb; b++) {
        uint32_t len = ebeg[b + 1] - ebeg[b] + (carry[b].infinity ? 0 : 1);
        pairs += len / 2;
        tsize += (len + 1) / 2;
    }
    if (pairs < min_pairs) {  // too few to repay an inversion; the carries stay as they are
        for (size_t b = 0; b < nb; b++)
            for (uint32_t k = ebeg[b]; k < ebeg[b + 1]; k++)
                buckets[b] = buckets[b].add_mixed(load_point(bases, entries[k]));
        return;
    }

    if (s.tree.size() < tsize) s.tree.resize(tsize);
    s.tstart.resize(nb);
    s.len.resize(nb);
    s.active.clear();
    Aff* tree = s.tree.data();
    const size_t total = ebeg[nb];
    // Bases are read in bucket order, i.e. at random: prefetch a few pairs ahead (a batched addition is ~100 ns
    // of arithmetic, a miss to DRAM about the same).
    constexpr size_t kAhead = 16;
    size_t t = 0;
    for (size_t b = 0; b < nb; b++) {
        const uint32_t has_carry = carry[b].infinity ? 0 : 1;
        // List element j is the carry when j < has_carry, else entry ebeg[b] + j - has_carry.
        const uint32_t first = ebeg[b], len = ebeg[b + 1] - first + has_carry;
        auto element = [&](uint32_t j) {
            return j < has_carry ? carry[b] : load_point(bases, entries[first + j - has_carry]);
        };
        s.tstart[b] = (uint32_t)t;
        s.len[b] = (len + 1) / 2;
        if (len == 0) continue;
        Aff* dst = tree + t;
        const uint32_t o = len & 1;
        if (o) dst[0] = element(0);
        for (uint32_t i = 0; i < len / 2; i++) {
            uint32_t j = o + 2 * i;
            size_t k = (size_t)first + j - has_carry;  // entry index of element j (of j + 1: k + 1)
            if (k + kAhead + 1 < total) {
                prefetch_point(bases + (entries[k + kAhead] >> 1));
                prefetch_point(bases + (entries[k + kAhead + 1] >> 1));
            }
            s.adder.push(element(j), element(j + 1), dst + o + i);
        }
        t += (len + 1) / 2;
        if (s.len[b] >= 2) s.active.push_back((uint32_t)b);
    }
    s.adder.flush();
    for (size_t b = 0; b < nb; b++)
        if (s.len[b] == 1) carry[b] = tree[s.tstart[b]];

    while (!s.active.empty()) {
        pairs = 0;
        for (uint32_t b : s.active) pairs += s.len[b] / 2;
        if (pairs < min_pairs) {
            for (uint32_t b : s.active) {
                for (uint32_t k = 0; k < s.len[b]; k++) buckets[b] = buckets[b].add_mixed(tree[s.tstart[b] + k]);
                carry[b] = Aff::identity();  // it was in the list just summed
            }
            return;
        }
        for (uint32_t b : s.active) {
            Aff* list = tree + s.tstart[b];
            uint32_t len = s.len[b], o = len & 1;
            for (uint32_t i = 0; i < len / 2; i++) s.adder.push(list[o + 2 * i], list[o + 2 * i + 1], list + o + i);
            s.len[b] = (len + 1) / 2;
        }
        s.adder.flush();
        size_t kept = 0;
        for (uint32_t b : s.active) {
            if (s.len[b] >= 2) s.active[kept++] = b;
            else carry[b] = tree[s.tstart[b]];
        }
        s.active.resize(kept);
    }
}

// Starts nb empty buckets.
template <class Cfg>
void reset_buckets(Scratch<Cfg>& s, size_t nb) {
    s.buckets.assign(nb, XYZZ<Cfg>::identity());
    s.carry.assign(nb, Affine<Cfg>::identity());
    s.ebeg.resize(nb + 1);
}

// The value of bucket b: buckets[b] + carry[b] (usually just the carry, which makes it a free conversion).
template <class Cfg>
XYZZ<Cfg> bucket_value(const Scratch<Cfg>& s, size_t b) {
    return s.buckets[b].add_mixed(s.carry[b]);
}

// ---- planning -----------------------------------------------------------------------------------------------
struct Plan {
    unsigned c;      // window bits
    size_t parts;    // point ranges per window; tasks = windows * parts
};

// Wall-clock model in units of one batched affine addition (~0.29 us in G1 with the 29 ns Fq multiplication): a
// task over m points costs m additions plus `bucket_weight` units per bucket. The bucket's share: its running-sum
// step, one mixed and one full XYZZ addition (~0.83 us, ~2.9 units), less the one tree addition it saves (a bucket
// of k points needs k - 1 additions). Tasks run ceil(tasks / threads) deep. Measured single-threaded G1 CPU time on
// the Zen 4 (under load from other builds): 2^16 with c = 11, 12, 13: 461, 440, 422 ms; 2^20 with c = 15, 16, 17:
// 5.42, 5.14, 5.37 s; G2 2^16 with c = 11..14: 1.51, 1.43, 1.40, 1.52 s. The model picks c = 13 and c = 16, the
// measured best (a bucket weight of 4 picked c = 12 at 2^16, 4% slower). On 2 threads (bench BM_MsmG1Window, wall
// medians): 2^16 with c = 12, 13, 14: 220, 200, 212 ms; 2^20 with c = 15, 16, 17: 2.71, 2.58, 2.76 s.
// With the IFMA kernel (batch_add_ifma.hpp) a batched addition costs about a quarter as much while the bucket
// sums still run on scalar XYZZ arithmetic, so a bucket weighs more: on the Zen 5 development machine, 2 threads,
// 2^16 with c = 10..14: 118, 109, 108, 116, 139 ms; 2^20 with c = 13..17: 1.45, 1.45, 1.42, 1.45, 1.66 s. A weight
// of 5 picks c = 12 and c = 16.
constexpr double kBucketWeight = 2.0, kBucketWeightVector = 5.0;

Plan choose_plan(size_t n, size_t threads, unsigned fixed_c, double bucket_weight) {
    Plan best{fixed_c ? fixed_c : 1, 1};
    double best_cost = std::numeric_limits<double>::infinity();
    threads = std::max<size_t>(threads, 1);
    unsigned c_lo = fixed_c ? fixed_c : 1, c_hi = fixed_c ? fixed_c : kMaxWindowBits;
    for (unsigned c = c_lo; c <= c_hi; c++) {
        size_t w = num_windows(c);
        // More parts than needed to fill the threads twice only add running sums.
        size_t max_parts = std::max<size_t>(1, std::min<size_t>(n, (2 * threads + w - 1) / w));
        for (size_t p = 1; p <= max_parts; p++) {
            double depth = (double)((w * p + threads - 1) / threads);
            double cost =
                depth * ((double)((n + p - 1) / p) + bucket_weight * (double)(size_t(1) << (c - 1)));
            if (cost < best_cost) {
                best_cost = cost;
                best = {c, p};
            }
        }
    }
    return best;
}

template <class Cfg>
XYZZ<Cfg> running_sum(const Scratch<Cfg>& s, size_t nb) {
    // sum_b (b + 1) * bucket_b = sum over k of (sum of the buckets >= k).
    XYZZ<Cfg> running = XYZZ<Cfg>::identity(), total = XYZZ<Cfg>::identity();
    for (size_t b = nb; b-- > 0;) {
        XYZZ<Cfg> v = bucket_value(s, b);
        if (!v.is_identity()) running = add_bucket(running, v);
        total += running;
    }
    return total;
}

// One Pippenger task: the sum over points [lo, hi) of the others of digit_window * point.
template <class Cfg>
XYZZ<Cfg> window_part(std::span<const Affine<Cfg>> bases, const ScalarSplit& split, unsigned window, unsigned c,
                      size_t lo, size_t hi, size_t chunk, size_t min_pairs, Scratch<Cfg>& s) {
    const size_t nb = size_t(1) << (c - 1);
    reset_buckets(s, nb);
    s.pos.resize(nb);
    const ScalarLimbs* scalars = split.other_scalars.data();
    const uint32_t* index = split.other_indices.data();
    for (size_t cl = lo; cl < hi; cl += chunk) {
        size_t ch = std::min(hi, cl + chunk), m = ch - cl;
        if (s.codes.size() < m) s.codes.resize(m);
        std::fill(s.ebeg.begin(), s.ebeg.end(), 0u);
        size_t nonzero = 0;
        for (size_t i = 0; i < m; i++) {
            int64_t d = signed_digit(scalars[cl + i], window, c);
            if (d == 0) {
                s.codes[i] = kNoBucket;
                continue;
            }
            uint32_t neg = d < 0, bucket = (uint32_t)((neg ? -d : d) - 1);
            s.codes[i] = bucket << 1 | neg;
            s.ebeg[bucket + 1]++;
            nonzero++;
        }
        if (nonzero == 0) continue;
        for (size_t b = 0; b < nb; b++) s.ebeg[b + 1] += s.ebeg[b];
        std::copy(s.ebeg.begin(), s.ebeg.begin() + (ptrdiff_t)nb, s.pos.begin());
        if (s.entries.size() < nonzero) s.entries.resize(nonzero);
        for (size_t i = 0; i < m; i++) {
            uint32_t code = s.codes[i];
            if (code == kNoBucket) continue;
            s.entries[s.pos[code >> 1]++] = index[cl + i] << 1 | (code & 1);
        }
        reduce_buckets(nb, bases.data(), s, min_pairs);
    }
    return running_sum(s, nb);
}

template <class Cfg>
Jacobian<Cfg> pippenger(std::span<const Affine<Cfg>> bases, const ScalarSplit& split, const MsmConfig& cfg,
                        ThreadPool& pool, ScratchPool<Cfg>& scratch, size_t chunk, size_t min_pairs) {
    const size_t n = split.other_indices.size();
    Plan plan = choose_plan(n, pool.size(), cfg.window_bits,
                            msm_detail::ifma_enabled() ? kBucketWeightVector : kBucketWeight);
    const unsigned c = plan.c, w = num_windows(c);
    const size_t parts = plan.parts;
    std::vector<XYZZ<Cfg>> sums(w * parts);
    // Tasks are claimed in order, so the top window, the cheapest (its digits use few buckets), runs last and
    // fills the gaps of the others.
    pool.run_tasks(w * parts, [&](size_t t) {
        unsigned window = (unsigned)(t % w);
        size_t part = t / w;
        size_t lo = n * part / parts, hi = n * (part + 1) / parts;
        typename ScratchPool<Cfg>::Lease s(scratch);
        sums[t] = window_part<Cfg>(bases, split, window, c, lo, hi, chunk, min_pairs, *s);
    });
    // sum_j 2^(j c) W_j by Horner's rule from the top window.
    Jacobian<Cfg> acc = Jacobian<Cfg>::identity();
    for (size_t j = w; j-- > 0;) {
        for (unsigned k = 0; k < c; k++) acc = acc.dbl();
        XYZZ<Cfg> wj = XYZZ<Cfg>::identity();
        for (size_t p = 0; p < parts; p++) wj += sums[p * w + j];
        acc += wj.to_jacobian();
    }
    return acc;
}

// Sum of the bases whose scalar is 1: one bucket reduced by the same batched-affine tree, split over the threads.
template <class Cfg>
Jacobian<Cfg> sum_ones(std::span<const Affine<Cfg>> bases, std::span<const uint32_t> ones, ThreadPool& pool,
                       ScratchPool<Cfg>& scratch, size_t chunk, size_t min_pairs) {
    const size_t m = ones.size();
    // Each part pays ~log2(m / parts) inversions; below a few batches per thread one part is cheaper.
    size_t parts = std::max<size_t>(1, std::min(pool.size(), m / (8 * min_pairs)));
    std::vector<XYZZ<Cfg>> sums(parts);
    pool.run_tasks(parts, [&](size_t p) {
        typename ScratchPool<Cfg>::Lease s(scratch);
        reset_buckets(*s, 1);
        size_t lo = m * p / parts, hi = m * (p + 1) / parts;
        for (size_t cl = lo; cl < hi; cl += chunk) {
            size_t ch = std::min(hi, cl + chunk);
            if (s->entries.size() < ch - cl) s->entries.resize(ch - cl);
            for (size_t i = cl; i < ch; i++) s->entries[i - cl] = ones[i] << 1;
            s->ebeg[0] = 0;
            s->ebeg[1] = (uint32_t)(ch - cl);
            reduce_buckets(1, bases.data(), *s, min_pairs);
        }
        sums[p] = bucket_value(*s, 0);
    });
    XYZZ<Cfg> total = XYZZ<Cfg>::identity();
    for (auto& x : sums) total += x;
    return total.to_jacobian();
}

}  // namespace

ScalarSplit split_scalars(std::span<const Fr> scalars, ThreadPool* pool) {
    const ScalarSource all{scalars, nullptr};
    return split_scalars_gathered(std::span<const ScalarSource>(&all, 1), pool);
}

ScalarSplit split_scalars_gathered(std::span<const ScalarSource> sources, ThreadPool* pool, bool keep_montgomery) {
    std::vector<std::span<const Fr>> values;
    std::vector<const uint64_t*> selection;
    for (const auto& src : sources) {
        values.push_back(src.values);
        selection.push_back(src.density);
    }
    return std::move(split_scalars_multi(values, 1, selection, pool, keep_montgomery)[0]);
}

namespace {
const uint64_t kNoValuesTag = 0;
}  // namespace
const uint64_t* const kNoValues = &kNoValuesTag;

namespace {

// Values selected by `d` (kAllValues, kNoValues or a bitmap) among positions [lo, hi).
size_t selected_in(const uint64_t* d, size_t lo, size_t hi) {
    if (d == kAllValues) return hi - lo;
    if (d == kNoValues || lo >= hi) return 0;
    size_t count = 0;
    size_t i = lo;
    while (i < hi) {
        const size_t w = i / 64, b = i % 64;
        const size_t take = std::min<size_t>(64 - b, hi - i);
        uint64_t word = d[w] >> b;
        if (take < 64) word &= (uint64_t(1) << take) - 1;
        count += (size_t)__builtin_popcountll(word);
        i += take;
    }
    return count;
}

// Bit helpers for the word-at-a-time split (64 values a step).
inline unsigned popcount64(uint64_t x) { return (unsigned)__builtin_popcountll(x); }
// The set bits of sel below bit b.
inline unsigned rank_below(uint64_t sel, unsigned b) { return popcount64(sel & ((uint64_t(1) << b) - 1)); }
// The position of the j-th set bit of sel (j < popcount(sel)), by halving.
inline unsigned select_bit(uint64_t sel, unsigned j) {
    unsigned pos = 0;
    for (unsigned width = 32; width; width /= 2) {
        const unsigned c = popcount64((sel >> pos) & ((uint64_t(1) << width) - 1));
        if (j >= c) j -= c, pos += width;
    }
    return pos;
}
// The bits of x at the positions set in sel, packed towards bit 0 in order (x86's PEXT, written portably: PEXT is
// microcoded on AMD CPUs before Zen 3).
inline uint64_t gather_bits(uint64_t x, uint64_t sel) {
    if (sel == ~uint64_t(0)) return x;
    uint64_t out = 0;
    for (x &= sel; x; x &= x - 1) out |= uint64_t(1) << rank_below(sel, (unsigned)__builtin_ctzll(x));
    return out;
}
// The value bits (positions in sel) of list bits (ranks among sel's set bits): x86's PDEP, one step a set bit of
// list_bits (a tail's bits are sparse).
inline uint64_t in_value_space(uint64_t list_bits, uint64_t sel) {
    if (sel == ~uint64_t(0)) return list_bits;
    uint64_t out = 0;
    for (; list_bits; list_bits &= list_bits - 1)
        out |= uint64_t(1) << select_bit(sel, (unsigned)__builtin_ctzll(list_bits));
    return out;
}
// cnt (<= 64) bits of the bitmap `bits` from bit `at` on, towards bit 0.
inline uint64_t bits_at(const uint64_t* bits, size_t at, unsigned cnt) {
    if (!cnt) return 0;
    const size_t w = at / 64;
    const unsigned b = at % 64;
    uint64_t x = bits[w] >> b;
    if (b && b + cnt > 64) x |= bits[w + 1] << (64 - b);
    return cnt == 64 ? x : x & ((uint64_t(1) << cnt) - 1);
}

// The splitter behind split_scalars_multi. Pieces: ranges of one array each, whole 64-value words (the last one of
// an array may be short), about 4 per thread over all arrays. Three parallel passes: count each list's selected
// values per piece (popcounts of the densities), so every piece knows the list positions of its values; read each
// value once and keep which are ones and which are others as two bit masks per word, counting each list's ones and
// others (in all and outside its candidate tail) with popcounts; then, after the hook has chosen the layouts and
// prefix sums are taken, write each piece's entries straight into its own range of every output from the masks
// (only the others, and the values a tail or a dense list stores, are read again), so indices increase and nothing
// is copied twice. A list's positions are the ranks of its selected values: a word's selection `sel` maps value bit
// b to list position at + rank_below(sel, b).
class MultiSplitter {
public:
    MultiSplitter(std::span<const std::span<const Fr>> values, size_t lists, std::span<const uint64_t* const> selection,
                  ThreadPool& pool, bool keep_montgomery, const SplitHook& hook)
        : values_(values), lists_(lists), selection_(selection), pool_(pool), montgomery_(keep_montgomery),
          hook_(hook), out_(lists) {}

    std::vector<ScalarSplit> run(size_t n_in) {
        for (auto& o : out_) o.montgomery = montgomery_;
        if (n_in == 0 || lists_ == 0) return std::move(out_);
        make_pieces(n_in);
        count_selected();
        pool_.run_tasks(np_, [this](size_t p) { classify_piece(p); });
        for (size_t q = 0; q < lists_; q++) lay_out(q, choose(q));
        pool_.run_tasks(np_, [this](size_t p) { write_piece(p); });
        return std::move(out_);
    }

private:
    struct Piece {
        size_t src, lo, hi;  // lo is a multiple of 64
    };
    // Per list and piece: selected values, ones, others, the same outside the candidate tail, and the ones and
    // others the chosen layout lists (both prefix sums).
    enum { kSel, kOnes, kOthers, kOnesOut, kOthersOut, kOnesUsed, kOthersUsed, K };
    // Per list, where a piece writes: list position, ones, others (after the tail), the tail's entry of the next
    // tail position.
    struct Cursor {
        size_t at, ones, others, tail;
    };
    // One word of 64 values of an array: which are ones, which are others.
    struct Masks {
        uint64_t ones, others;
    };

    // counts_[(q * (np + 1) + p + 1) * K + what]; the row p = 0 stays zero (prefix sums start there).
    size_t& count_at(size_t q, size_t p, int what) { return counts_[(q * (np_ + 1) + p) * K + what]; }
    const uint64_t* sel_of(size_t q, size_t k) const { return selection_[q * values_.size() + k]; }
    // List q's selection of word w of array k; `valid` masks the values the word has.
    uint64_t sel_word(size_t q, size_t k, size_t w, uint64_t valid) const {
        const uint64_t* d = sel_of(q, k);
        if (d == kAllValues) return valid;
        if (d == kNoValues) return 0;
        return d[w] & valid;
    }
    uint64_t valid_bits(size_t k, size_t w) const {
        const size_t left = values_[k].size() - w * 64;
        return left >= 64 ? ~uint64_t(0) : (uint64_t(1) << left) - 1;
    }
    limbs_t<4> stored(const Fr& x) const { return montgomery_ ? x.mont_limbs() : x.to_canonical(); }
    static constexpr limbs_t<4> kOne = Fr::one().mont_limbs();

    void make_pieces(size_t n_in) {
        const size_t target = std::max<size_t>(64, (n_in + 4 * pool_.size() - 1) / (4 * pool_.size()));
        masks_.resize(values_.size());
        for (size_t k = 0; k < values_.size(); k++) {
            const size_t n = values_[k].size(), words = (n + 63) / 64;
            masks_[k].resize(words);
            const size_t cnt = (n + target - 1) / target;
            for (size_t p = 0; p < cnt; p++) {
                const size_t lo = words * p / cnt * 64, hi = std::min(n, words * (p + 1) / cnt * 64);
                if (lo < hi) pieces_.push_back({k, lo, hi});
            }
        }
        np_ = pieces_.size();
        counts_.assign(lists_ * (np_ + 1) * K, 0);
    }

    // Pass 1: each list's selected values per piece, their prefix sums, the lists' sizes and candidate tails (a
    // tail applies only to a list of its size).
    void count_selected() {
        pool_.run_tasks(np_, [this](size_t p) {
            const Piece pc = pieces_[p];
            for (size_t q = 0; q < lists_; q++)
                count_at(q, p + 1, kSel) = selected_in(sel_of(q, pc.src), pc.lo, pc.hi);
        });
        tail_.assign(lists_, nullptr);
        bitmap_.assign(lists_, false);
        for (size_t q = 0; q < lists_; q++) {
            for (size_t p = 0; p < np_; p++) count_at(q, p + 1, kSel) += count_at(q, p, kSel);
            out_[q].size = count_at(q, np_, kSel);
            const SplitTail* t = hook_.tails.empty() ? nullptr : hook_.tails[q].get();
            if (t && t->size == out_[q].size) tail_[q] = t;
        }
    }

    // Pass 2 over piece p: each value read and classified once into its word's masks, then every list's counts
    // from the masks and its selection (and its candidate tail's bits over the list positions the word covers).
    void classify_piece(size_t p) {
        const Piece pc = pieces_[p];
        const Fr* v = values_[pc.src].data();
        std::vector<size_t> at(lists_);
        std::vector<size_t> c(lists_ * K, 0);
        for (size_t q = 0; q < lists_; q++) at[q] = count_at(q, p, kSel);
        for (size_t base = pc.lo; base < pc.hi; base += 64) {
            const size_t w = base / 64;
            const unsigned len = (unsigned)std::min<size_t>(64, pc.hi - base);
            // Without branches: a witness's zeros and ones alternate at random, which a branch mispredicts.
            Masks m{0, 0};
            for (unsigned b = 0; b < len; b++) {
                const auto& l = v[base + b].mont_limbs();
                const uint64_t nonzero = (l[0] | l[1] | l[2] | l[3]) != 0;
                const uint64_t one = ((l[0] ^ kOne[0]) | (l[1] ^ kOne[1]) | (l[2] ^ kOne[2]) | (l[3] ^ kOne[3])) == 0;
                m.ones |= one << b;
                m.others |= (nonzero & (one ^ 1)) << b;
            }
            masks_[pc.src][w] = m;
            const uint64_t valid = valid_bits(pc.src, w);
            for (size_t q = 0; q < lists_; q++) {
                const uint64_t sel = sel_word(q, pc.src, w, valid);
                if (!sel) continue;
                const unsigned cnt = popcount64(sel);
                const unsigned ones = popcount64(m.ones & sel), others = popcount64(m.others & sel);
                c[K * q + kOnes] += ones;
                c[K * q + kOthers] += others;
                if (const SplitTail* t = tail_[q]) {
                    const uint64_t tail_values = in_value_space(bits_at(t->member.data(), at[q], cnt), sel);
                    c[K * q + kOnesOut] += popcount64(m.ones & sel & ~tail_values);
                    c[K * q + kOthersOut] += popcount64(m.others & sel & ~tail_values);
                } else {
                    c[K * q + kOnesOut] += ones;
                    c[K * q + kOthersOut] += others;
                }
                at[q] += cnt;
            }
        }
        for (size_t q = 0; q < lists_; q++)
            for (int w : {kOnes, kOthers, kOnesOut, kOthersOut}) count_at(q, p + 1, w) = c[K * q + (size_t)w];
    }

    // List q's layout: the hook's choice from the list's totals (without a hook: indexed, listed ones, no tail).
    SplitChoice choose(size_t q) {
        SplitCounts counts;
        counts.size = out_[q].size;
        counts.tail = tail_[q];
        for (size_t p = 1; p <= np_; p++) {
            counts.ones += count_at(q, p, kOnes);
            counts.others += count_at(q, p, kOthers);
            counts.ones_outside_tail += count_at(q, p, kOnesOut);
            counts.others_outside_tail += count_at(q, p, kOthersOut);
        }
        const SplitChoice ch = hook_.choose ? hook_.choose(q, counts) : SplitChoice{};
        auto refuse = [q](const char* why) {
            throw std::invalid_argument("split_scalars_multi: list " + std::to_string(q) + ": " + why);
        };
        if (ch.dense && (ch.ones_bitmap || ch.use_tail)) refuse("a dense layout has no ones bitmap and no tail");
        if (ch.use_tail && !counts.tail) refuse("no candidate tail to use");
        return ch;
    }

    // List q laid out as chosen: the prefix sums of what each piece writes, the outputs sized, the tail's part of
    // other_indices written (its scalars start zeroed: a 0 in the tail is not written again).
    void lay_out(size_t q, const SplitChoice& ch) {
        ScalarSplit& o = out_[q];
        if (!ch.use_tail) tail_[q] = nullptr;
        const int ones = ch.use_tail ? kOnesOut : kOnes, others = ch.use_tail ? kOthersOut : kOthers;
        for (size_t p = 1; p <= np_; p++) {
            count_at(q, p, kOnesUsed) = count_at(q, p - 1, kOnesUsed) + count_at(q, p, ones);
            count_at(q, p, kOthersUsed) = count_at(q, p - 1, kOthersUsed) + count_at(q, p, others);
        }
        o.dense = ch.dense;
        bitmap_[q] = ch.ones_bitmap;
        if (o.dense) {
            o.other_scalars.resize(o.size);
            return;
        }
        const size_t n_ones = count_at(q, np_, kOnesUsed), n_others = count_at(q, np_, kOthersUsed);
        if (ch.ones_bitmap) {
            o.one_bits.resize((o.size + 63) / 64);
            uint64_t* w = o.one_bits.data();
            pool_.parallel_for(o.one_bits.size(), [w](size_t lo, size_t hi) { std::fill(w + lo, w + hi, 0); });
            o.one_bit_count = n_ones;
        } else {
            o.one_indices.resize(n_ones);
        }
        if (ch.use_tail) {
            o.tail = hook_.tails[q];
            o.tail_size = tail_[q]->indices.size();
        }
        o.other_indices.resize(o.tail_size + n_others);
        o.other_scalars.resize(o.tail_size + n_others);
        if (ch.use_tail) {
            std::copy(tail_[q]->indices.begin(), tail_[q]->indices.end(), o.other_indices.begin());
            std::fill(o.other_scalars.begin(), o.other_scalars.begin() + (ptrdiff_t)o.tail_size, limbs_t<4>{});
        }
    }

    // Pass 3 over piece p, word by word from the masks: into every list that selects some of the word's values,
    // its tail's values, its ones and its others (a dense list: every selected value).
    void write_piece(size_t p) {
        const Piece pc = pieces_[p];
        std::vector<Cursor> cur(lists_);
        for (size_t q = 0; q < lists_; q++) {
            const size_t at = count_at(q, p, kSel);
            size_t tail = 0;
            if (const SplitTail* t = tail_[q])
                tail = (size_t)(std::lower_bound(t->indices.begin(), t->indices.end(), (uint32_t)at) - t->indices.begin());
            cur[q] = {at, count_at(q, p, kOnesUsed), out_[q].tail_size + count_at(q, p, kOthersUsed), tail};
        }
        const Fr* v = values_[pc.src].data();
        for (size_t base = pc.lo; base < pc.hi; base += 64) {
            const size_t w = base / 64;
            const Masks m = masks_[pc.src][w];
            const uint64_t valid = valid_bits(pc.src, w);
            for (size_t q = 0; q < lists_; q++) {
                const uint64_t sel = sel_word(q, pc.src, w, valid);
                if (sel) write_word(q, cur[q], sel, m, v + base);
            }
        }
    }

    // The word's values selected by sel (v its first value) into list q from cursor c.
    void write_word(size_t q, Cursor& c, uint64_t sel, Masks m, const Fr* v) {
        ScalarSplit& o = out_[q];
        const unsigned cnt = popcount64(sel);
        if (o.dense) {
            for (uint64_t s = sel; s; s &= s - 1) o.other_scalars[c.at++] = stored(v[__builtin_ctzll(s)]);
            return;
        }
        m.ones &= sel;
        m.others &= sel;
        if (const SplitTail* t = tail_[q]) {
            // Every tail position in these cnt gets the next tail entry (in order); a 0 there stays (zeroed), a 1 or
            // an other is written, and neither is a one or an other of the list's own.
            const uint64_t tail_values = in_value_space(bits_at(t->member.data(), c.at, cnt), sel);
            for (uint64_t s = tail_values; s; s &= s - 1, c.tail++) {
                const unsigned b = (unsigned)__builtin_ctzll(s);
                if (((m.ones | m.others) >> b) & 1) o.other_scalars[c.tail] = stored(v[b]);
            }
            m.ones &= ~tail_values;
            m.others &= ~tail_values;
        }
        if (bitmap_[q]) {
            or_bits(o.one_bits.data(), c.at, gather_bits(m.ones, sel));
        } else {
            for (uint64_t s = m.ones; s; s &= s - 1)
                o.one_indices[c.ones++] = (uint32_t)(c.at + rank_below(sel, (unsigned)__builtin_ctzll(s)));
        }
        for (uint64_t s = m.others; s; s &= s - 1) {
            const unsigned b = (unsigned)__builtin_ctzll(s);
            o.other_indices[c.others] = (uint32_t)(c.at + rank_below(sel, b));
            o.other_scalars[c.others++] = stored(v[b]);
        }
        c.at += cnt;
    }

    // bits (list positions at, at + 1, ...) into the bitmap; the pieces on either side may share its words.
    static void or_bits(uint64_t* words, size_t at, uint64_t bits) {
        if (!bits) return;
        const size_t w = at / 64;
        const unsigned b = at % 64;
        std::atomic_ref<uint64_t>(words[w]).fetch_or(bits << b, std::memory_order_relaxed);
        if (b && (bits >> (64 - b)))
            std::atomic_ref<uint64_t>(words[w + 1]).fetch_or(bits >> (64 - b), std::memory_order_relaxed);
    }

    std::span<const std::span<const Fr>> values_;
    size_t lists_;
    std::span<const uint64_t* const> selection_;
    ThreadPool& pool_;
    bool montgomery_;
    const SplitHook& hook_;
    std::vector<ScalarSplit> out_;
    std::vector<Piece> pieces_;
    size_t np_ = 0;
    std::vector<size_t> counts_;
    std::vector<uninit_vector<Masks>> masks_;  // per array, per word (pass 2 writes, pass 3 reads)
    std::vector<const SplitTail*> tail_;       // per list: the candidate tail, then the tail used (nullptr: none)
    std::vector<bool> bitmap_;                 // per list: ones as one_bits
};

}  // namespace

std::shared_ptr<const SplitTail> make_split_tail(size_t size, std::span<const uint32_t> indices, uint64_t id) {
    auto t = std::make_shared<SplitTail>();
    t->id = id;
    t->size = size;
    t->indices.assign(indices.begin(), indices.end());
    t->member.assign((size + 63) / 64, 0);
    for (uint32_t i : t->indices) t->member[i / 64] |= uint64_t(1) << (i % 64);
    return t;
}

std::vector<ScalarSplit> split_scalars_multi(std::span<const std::span<const Fr>> values, size_t lists,
                                             std::span<const uint64_t* const> selection, ThreadPool* pool,
                                             bool keep_montgomery, const SplitHook& hook) {
    const size_t ns = values.size();
    if (selection.size() != lists * ns)
        throw std::invalid_argument("split_scalars_multi: " + std::to_string(selection.size()) + " selections for " +
                                    std::to_string(lists) + " lists of " + std::to_string(ns) + " arrays");
    if (!hook.tails.empty() && hook.tails.size() != lists)
        throw std::invalid_argument("split_scalars_multi: " + std::to_string(hook.tails.size()) + " tails for " +
                                    std::to_string(lists) + " lists");
    size_t n_in = 0;
    for (const auto& v : values) n_in += v.size();
    if (n_in >= kMaxPoints) throw std::invalid_argument("split_scalars: at most 2^31 - 1 scalars");
    return MultiSplitter(values, lists, selection, pool ? *pool : ThreadPool::global(), keep_montgomery, hook)
        .run(n_in);
}

void check_split_indices(const ScalarSplit& split, const char* who, ThreadPool* pool_arg) {
    ThreadPool& pool = pool_arg ? *pool_arg : ThreadPool::global();
    auto fail = [who](const std::string& what) { throw std::invalid_argument(std::string(who) + ": " + what); };
    if (split.other_indices.size() != (split.dense ? 0 : split.other_scalars.size()))
        fail("split has mismatched other_indices / other_scalars");
    if (split.dense) {
        if (split.other_scalars.size() != split.size || !split.one_indices.empty() || !split.one_bits.empty() ||
            split.tail)
            fail("a dense split holds exactly one scalar per position and nothing else");
        return;
    }
    if (!split.one_bits.empty()) {
        if (!split.one_indices.empty() || split.one_bits.size() != (split.size + 63) / 64)
            fail("split's ones bitmap does not match its size");
        if (split.size % 64 && (split.one_bits.back() >> (split.size % 64)))
            fail("split's ones bitmap has bits past its size");
        std::atomic<size_t> bits{0};
        const uint64_t* w = split.one_bits.data();
        pool.parallel_for(split.one_bits.size(), [&](size_t lo, size_t hi) {
            size_t c = 0;
            for (size_t k = lo; k < hi; k++) c += (size_t)__builtin_popcountll(w[k]);
            bits += c;
        });
        if (bits != split.one_bit_count) fail("split's one_bit_count does not match its bitmap");
    }
    if (split.tail) {
        const auto& t = *split.tail;
        if (t.size != split.size || split.tail_size != t.indices.size() ||
            split.other_indices.size() < split.tail_size ||
            !std::equal(t.indices.begin(), t.indices.end(), split.other_indices.begin()))
            fail("split's other indices do not start with its tail");
    } else if (split.tail_size) {
        fail("split has a tail size without a tail");
    }
    for (const auto* list : {&split.one_indices, &split.other_indices}) {
        std::atomic<uint32_t> bad{0};
        std::atomic<bool> found{false};
        const uint32_t* idx = list->data();
        pool.parallel_for(list->size(), [&](size_t lo, size_t hi) {
            for (size_t k = lo; k < hi; k++)
                if (idx[k] >= split.size) {
                    bad = idx[k];
                    found = true;
                    return;
                }
        });
        if (found) fail("split index " + std::to_string(bad.load()) + " out of range");
    }
}

namespace {

// [first, last) of the increasing run idx[0 .. count) that falls in [lo, hi).
std::pair<size_t, size_t> index_range(const uint32_t* idx, size_t count, size_t lo, size_t hi) {
    const uint32_t* a = std::lower_bound(idx, idx + count, lo, [](uint32_t v, size_t x) { return v < x; });
    const uint32_t* b = std::lower_bound(a, idx + count, hi, [](uint32_t v, size_t x) { return v < x; });
    return {size_t(a - idx), size_t(b - idx)};
}

}  // namespace

ScalarSplit split_range(const ScalarSplit& split, size_t lo, size_t hi) {
    if (lo > hi || hi > split.size)
        throw std::invalid_argument("split_range: [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                    ") is not inside a split of " + std::to_string(split.size));
    ScalarSplit out;
    out.size = hi - lo;
    out.montgomery = split.montgomery;
    out.dense = split.dense;
    if (split.dense) {
        out.other_scalars.assign(split.other_scalars.begin() + lo, split.other_scalars.begin() + hi);
        return out;
    }
    if (!split.one_bits.empty()) {
        if (lo < hi && (lo % 64 || (hi % 64 && hi != split.size)))
            throw std::invalid_argument("split_range: a bitmap split is cut on whole words, not at [" +
                                        std::to_string(lo) + ", " + std::to_string(hi) + ")");
        if (lo < hi) out.one_bits.assign(split.one_bits.begin() + lo / 64, split.one_bits.begin() + (hi + 63) / 64);
        for (uint64_t w : out.one_bits) out.one_bit_count += (size_t)__builtin_popcountll(w);
    } else {
        const auto [a, b] = index_range(split.one_indices.data(), split.one_indices.size(), lo, hi);
        out.one_indices.resize(b - a);
        for (size_t k = a; k < b; k++) out.one_indices[k - a] = split.one_indices[k] - (uint32_t)lo;
    }
    // other_indices: the tail's run, then the extras' run, each increasing; merged into one increasing list.
    const uint32_t* idx = split.other_indices.data();
    const size_t t = split.tail_size;
    const auto [ta, tb] = index_range(idx, t, lo, hi);
    const auto [xa0, xb0] = index_range(idx + t, split.other_indices.size() - t, lo, hi);
    const size_t xa = xa0 + t, xb = xb0 + t;
    out.other_indices.resize((tb - ta) + (xb - xa));
    out.other_scalars.resize(out.other_indices.size());
    size_t i = ta, j = xa, o = 0;
    while (i < tb || j < xb) {
        const size_t k = (j >= xb || (i < tb && idx[i] < idx[j])) ? i++ : j++;
        out.other_indices[o] = idx[k] - (uint32_t)lo;
        out.other_scalars[o++] = split.other_scalars[k];
    }
    return out;
}

unsigned msm_window_bits(size_t n, size_t threads, bool vector_additions) {
    return choose_plan(n, threads, 0, vector_additions ? kBucketWeightVector : kBucketWeight).c;
}

template <class Cfg>
Jacobian<Cfg> msm_split(std::span<const Affine<Cfg>> bases, const ScalarSplit& split, const MsmConfig& cfg) {
    if (split.size != bases.size())
        throw std::invalid_argument("msm: " + std::to_string(bases.size()) + " bases for a split of " +
                                    std::to_string(split.size) + " scalars");
    if (split.montgomery) throw std::invalid_argument("msm: the CPU MSM needs a split with canonical scalars");
    if (split.dense || !split.one_bits.empty())
        throw std::invalid_argument("msm: the CPU MSM needs the indexed layout with listed ones");
    if (cfg.window_bits > kMaxWindowBits)
        throw std::invalid_argument("msm: window_bits must be at most " + std::to_string(kMaxWindowBits));
    if (bases.size() >= kMaxPoints) throw std::invalid_argument("msm: at most 2^31 - 1 points");
    check_split_indices(split, "msm", cfg.pool);
    ThreadPool& pool = cfg.pool ? *cfg.pool : ThreadPool::global();
    // A batch never holds more pairs than there are points: small MSMs do not allocate full-size batches.
    const size_t batch = std::min(cfg.batch_size ? cfg.batch_size : MsmDefaults<Cfg>::batch_size,
                                  std::max<size_t>(1, bases.size()));
    const size_t min_pairs = cfg.min_batch_pairs ? cfg.min_batch_pairs : MsmDefaults<Cfg>::min_batch_pairs;
    const size_t chunk = cfg.chunk_points ? cfg.chunk_points : kDefaultChunkPoints;
    ScratchPool<Cfg> scratch([batch] { return std::make_unique<Scratch<Cfg>>(batch); });

    Jacobian<Cfg> result = Jacobian<Cfg>::identity();
    if (!split.one_indices.empty()) result += sum_ones<Cfg>(bases, split.one_indices, pool, scratch, chunk, min_pairs);
    if (!split.other_indices.empty()) result += pippenger<Cfg>(bases, split, cfg, pool, scratch, chunk, min_pairs);
    return result;
}

template <class Cfg>
Jacobian<Cfg> msm(std::span<const Affine<Cfg>> bases, std::span<const Fr> scalars, const MsmConfig& cfg) {
    if (bases.size() != scalars.size())
        throw std::invalid_argument("msm: " + std::to_string(bases.size()) + " bases but " +
                                    std::to_string(scalars.size()) + " scalars");
    if (cfg.split_zero_one) return msm_split<Cfg>(bases, split_scalars(scalars, cfg.pool), cfg);
    if (scalars.size() >= kMaxPoints) throw std::invalid_argument("msm: at most 2^31 - 1 points");
    ScalarSplit all;
    all.size = scalars.size();
    all.other_indices.resize(scalars.size());
    all.other_scalars.resize(scalars.size());
    ThreadPool& pool = cfg.pool ? *cfg.pool : ThreadPool::global();
    pool.parallel_for(scalars.size(), [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; i++) {
            all.other_indices[i] = (uint32_t)i;
            all.other_scalars[i] = scalars[i].to_canonical();
        }
    });
    return msm_split<Cfg>(bases, all, cfg);
}

template Jacobian<G1Config> msm<G1Config>(std::span<const G1Affine>, std::span<const Fr>, const MsmConfig&);
template Jacobian<G2Config> msm<G2Config>(std::span<const G2Affine>, std::span<const Fr>, const MsmConfig&);
template Jacobian<G1Config> msm_split<G1Config>(std::span<const G1Affine>, const ScalarSplit&, const MsmConfig&);
template Jacobian<G2Config> msm_split<G2Config>(std::span<const G2Affine>, const ScalarSplit&, const MsmConfig&);

}  // namespace cuzk
