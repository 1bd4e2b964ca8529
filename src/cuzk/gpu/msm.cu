// GPU MSM over G1 (the template is in msm_impl.cuh) and the window-size cost model.
#include "cuzk/gpu/msm_impl.cuh"
#include "cuzk/gpu/msm_streamed_impl.cuh"
#include "cuzk/gpu/subgroup_impl.cuh"

namespace cuzk::gpu {

// Cost model, in mixed additions per resident thread (R = 384 accumulation threads per SM: 3 blocks of 128 at
// ~176 registers):
//   accumulation: m W additions over R threads, but at least one chunk (32 additions) per thread: a call too small
//   to fill the GPU takes one chunk's time whatever c is;
//   reduction: ~4 H additions per bucket set (two full additions per bucket, a full one ~1.4 mixed ones, plus the
//   segments' lo * running; the factor 4 is fitted), B = W sets (one with a precomputed table) over R threads, but
//   at least one segment's chain of 4 S additions (S = H / T buckets per segment, T = min(H, 2^16 / B)).
// When neither floor binds (large n) this is W (m + 4 H) / R, whose argmin does not depend on R; it was fitted to a
// window sweep on the H200 (2026-11-29, bench BM_GpuMsmG1Window): 2^20 -> c = 16, 2^22 -> 16, 2^24 -> 20,
// 2^26 -> 20 (c = 20 ran 912 ms at 2^26 against 968 ms for c = 22 and 1043 ms for c = 16). On small calls (or few
// SMs) the floors bind: an idle GPU gains nothing from fewer windows, and the total work W (m + 4 H) breaks the tie.
// With a table every window feeds one bucket set, so the top window's few digit values (a scalar's 255 bits leave
// it 255 - (W - 1) c of them, plus the carry) put a W-th of all entries into a few very long runs, which the walks
// and the tree join slowly: G2 2^20 with a table, H100, c = 17 / 18 / 19 / 21 (0 / 3 / 8 / 3 top bits) spent 7.0 /
// 4.6 / 1.6 / 4.6 ms joining runs against 0.4 ms at c = 20 (15 top bits), and c = 19 ran 24.2 ms against c = 20's
// 22.8 (docs/perf.md). The table's widths therefore leave their top window at least c / 2 bits.
static bool full_top_window(unsigned c) {
    const int top = 255 - (int)((num_windows(c) - 1) * c);
    return 2 * top >= (int)c;
}
unsigned gpu_msm_window_bits(size_t n, unsigned sm_count, bool precomputed) {
    const double R = 384.0 * (double)std::max(sm_count, 1u);
    unsigned best = kMinWindow;
    double best_cost = std::numeric_limits<double>::infinity();
    for (unsigned c = kMinWindow; c <= kMaxWindow; c++) {
        if (precomputed && !full_top_window(c)) continue;
        const double W = num_windows(c);
        const uint32_t H = 1u << (c - 1);
        const uint32_t B = precomputed ? 1 : (uint32_t)W;
        const uint32_t T = std::min<uint32_t>(H, pow2_floor(std::max<uint32_t>(1, kSegmentThreads / B)));
        const double S = (double)(H / T);
        const double accumulate = std::max((double)n * W / R, (double)kDefaultPiece);
        const double reduce = std::max(4.0 * B * (double)H / R, 4.0 * S);
        // total work as a tie-breaker where the floors make several c equal (tiny calls)
        const double cost = accumulate + reduce + 1e-3 * ((double)n * W + 4.0 * B * (double)H) / R;
        if (cost < best_cost) best_cost = cost, best = c;
    }
    return best;
}

// CUB's onesweep sort (sm_90 tuning) takes 8 key bits a pass, and a group of g windows sorts keys below g H + 1
// (the sentinel): 2^27 scalars at c = 22 in groups of 8 windows need 25 bits, 4 passes, where a group of at most 7
// needs 3. In units of one pass over one window's pairs (16 bytes a pair moved), a group costs its windows' passes,
// a quarter pass more for CUB's histogram, and 2 for the digits kernel reading the scalars (32 bytes each), plus
// ~50 us of launches (2^23 / n units at ~3 TB/s). The g <= most (the memory's bound) of least cost, the largest of
// equals.
unsigned gpu_msm_windows_per_group(unsigned windows, unsigned c, unsigned most, size_t n) {
    if (windows == 0 || c < kMinWindow || c > kMaxWindow) return 1;
    most = std::clamp(most, 1u, windows);
    const uint32_t H = 1u << (c - 1);
    const auto passes = [H](unsigned g) { return (unsigned)(32 - __builtin_clz(g * H) + 7) / 8; };
    const double per_group = 2.0 + (double)(size_t(1) << 23) / (double)std::max<size_t>(n, 1);
    unsigned best = most;
    double best_cost = std::numeric_limits<double>::infinity();
    for (unsigned g = most; g >= 1; g--) {
        double cost = 0;
        for (unsigned w = 0; w < windows; w += g) {
            const unsigned size = std::min(g, windows - w);
            cost += size * (passes(size) + 0.25) + per_group;
        }
        if (cost < best_cost) best_cost = cost, best = g;
    }
    return best;
}

unsigned gpu_msm_default_walk(size_t n, size_t max_pairs, unsigned sm_count) {
    using F = typename DeviceFieldOf<typename G1Config::F>::type;
    // make_plan's choices up to the chunk, without its scratch queries (no device needed)
    const unsigned c = gpu_msm_window_bits(n, sm_count);
    const unsigned wg = group_windows(n, c, max_pairs ? max_pairs : kMaxPairsPerGroup, false);
    return default_walk(n, c, num_windows(c), default_chunk<F>(n * wg, wg, 1u << (c - 1), sm_count), false);
}

template class MsmContext<G1Config>;
template class HostBases<G1Config>;
template class StreamedMsm<G1Config>;

MsmScratch::MsmScratch(int device) : impl_(std::make_unique<Impl>(device)) {}
MsmScratch::MsmScratch(int device, std::shared_ptr<MsmScratch> fallback, size_t limit)
    : impl_(std::make_unique<Impl>(device)) {
    if (fallback && fallback->device() != device)
        throw std::invalid_argument("gpu msm: a fallback scratch of device " + std::to_string(fallback->device()) +
                                    " for a scratch on device " + std::to_string(device));
    if (fallback && fallback->impl_->fallback)
        throw std::invalid_argument("gpu msm: a fallback scratch may not have a fallback of its own");
    impl_->fallback = std::move(fallback);
    impl_->limit = limit;
}
MsmScratch::~MsmScratch() = default;
int MsmScratch::device() const {
    return impl_->device;
}
size_t MsmScratch::bytes() const {
    std::lock_guard<std::mutex> lk(impl_->mu);
    return impl_->size();
}
uint64_t MsmScratch::fallbacks() const {
    return impl_->fallbacks.load();
}


G1Jacobian msm_g1_gpu(std::span<const G1Affine> bases, std::span<const Fr> scalars, const GpuMsmConfig& cfg) {
    if (bases.size() != scalars.size()) throw std::invalid_argument("gpu msm: bases and scalars differ in length");
    return G1MsmContext(bases, cfg).msm(scalars);
}
G1Jacobian msm_g1_split_gpu(std::span<const G1Affine> bases, const ScalarSplit& split, const GpuMsmConfig& cfg) {
    if (bases.size() != split.size) throw std::invalid_argument("gpu msm: bases and split differ in length");
    return G1MsmContext(bases, cfg).msm_split(split);
}

std::vector<std::vector<XYZZ<G1Config>>> subgroup_detail::g1_round_sums(std::span<const G1Affine> points,
                                                                          std::span<const unsigned> trits,
                                                                          const uint32_t key[8], int device) {
    return subgroup_round_sums<G1Config>(points, trits, key, device);
}

std::vector<std::vector<XYZZ<G1Config>>> subgroup_detail::g1_resident_round_sums(const ResidentBatch& batch,
                                                                                   std::span<const unsigned> trits,
                                                                                   const uint32_t key[8], int device) {
    return resident_round_sums<G1Config>(batch, trits, key, device);
}

}  // namespace cuzk::gpu
