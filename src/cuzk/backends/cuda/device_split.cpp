#include "cuzk/backends/cuda/device_split.hpp"

#include <algorithm>
#include <atomic>

namespace cuzk::gpu {

namespace {

std::atomic<uint64_t> g_next_tail_id{1};

// A tail of the positions of s's others.
std::shared_ptr<const SplitTail> make_tail(const ScalarSplit& s) {
    return make_split_tail(s.size, s.other_indices, g_next_tail_id.fetch_add(1));
}

// An indexed split without a tail and with others on at most a quarter of its positions gets a tail of its own,
// for the next split of its shape to reuse.
void add_own_tail(ScalarSplit& s) {
    if (s.dense || s.tail || s.other_indices.empty() || s.other_indices.size() > s.size / 4) return;
    s.tail = make_tail(s);
    s.tail_size = s.other_indices.size();
}

// The candidate tail when it covers the list (at most max(1024, tail / 8) others outside it), and the layout the
// costs make cheaper for what is left; a list with a tail is never dense.
SplitChoice device_choice(const SplitCounts& c, const SplitCosts& costs) {
    SplitChoice ch;
    ch.use_tail = c.tail && c.others_outside_tail <= std::max<size_t>(1024, c.tail->indices.size() / 8);
    const SplitLayout lay = ch.use_tail ? choose_split_layout(c.size, c.ones_outside_tail,
                                                              c.tail->indices.size() + c.others_outside_tail, costs)
                                        : choose_split_layout(c.size, c.ones, c.others, costs);
    ch.dense = lay.dense && !ch.use_tail;
    ch.ones_bitmap = lay.ones_bitmap && !ch.dense;
    return ch;
}

SplitHook device_hook(const SplitOptions& options) {
    return {options.tails, [costs = options.costs](size_t, const SplitCounts& c) { return device_choice(c, costs); }};
}

}  // namespace

double split_layout_ns(size_t n, size_t ones, size_t others, const SplitLayout& lay, const SplitCosts& c) {
    if (lay.dense)
        return (double)n * 32 * c.upload_per_byte + (double)others * c.pippenger_per_scalar +
               (double)(n - std::min(n, others)) * c.trivial_per_scalar;
    const double pip = (double)others * (36 * c.upload_per_byte + c.pippenger_per_scalar);
    if (!ones) return pip;
    if (lay.ones_bitmap)
        return pip + (double)((n + 63) / 64) * 8 * c.upload_per_byte + (double)n * c.bitmap_per_position +
               (double)ones * c.one_per_scalar;
    return pip + (double)ones * (4 * c.upload_per_byte + c.one_per_scalar);
}

SplitLayout choose_split_layout(size_t n, size_t ones, size_t others, const SplitCosts& c) {
    SplitLayout best;  // indexed, listed ones
    double best_ns = split_layout_ns(n, ones, others, best, c);
    for (SplitLayout lay : {SplitLayout{false, true}, SplitLayout{true, false}}) {
        if (lay.ones_bitmap && !ones) continue;
        if (lay.dense && !n) continue;
        const double ns = split_layout_ns(n, ones, others, lay, c);
        if (ns < best_ns) best = lay, best_ns = ns;
    }
    return best;
}

std::vector<ScalarSplit> split_scalars_for_device(std::span<const std::span<const Fr>> values, size_t lists,
                                                  std::span<const uint64_t* const> selection,
                                                  const SplitOptions& options, ThreadPool* pool) {
    auto out = split_scalars_multi(values, lists, selection, pool, true, device_hook(options));
    for (auto& s : out) add_own_tail(s);
    return out;
}

groth16::QuerySplits split_queries_for_device(const groth16::SplitInputs& in, const SplitOptions& options) {
    groth16::QuerySplits q = groth16::split_queries(in, true, device_hook(options));
    for (ScalarSplit* s : {&q.a, &q.b, &q.l}) add_own_tail(*s);
    return q;
}

}  // namespace cuzk::gpu
