// GPU MSM over G1 (the template is in msm_impl.cuh) and the window-size cost model.
#include "cuzk/gpu/msm_impl.cuh"

namespace cuzk::gpu {

// Cost model: random scalars need about m mixed additions per window for the buckets and ~2 H full additions per
// window for the reduction (a full addition ~1.4 mixed ones, the suffix pass reading every bucket, the lo * running
// term): W (m + 4 H). The factor 4 was fitted to a window sweep on the H200 (2026-11-29, bench BM_GpuMsmG1Window):
// 2^20 -> c = 16, 2^22 -> 16, 2^24 -> 20, 2^26 -> 20 (c = 20 ran 912 ms at 2^26 against 968 ms for c = 22 and
// 1043 ms for c = 16). Ties go to the smaller c (less memory).
unsigned gpu_msm_window_bits(size_t n) {
    unsigned best = kMinWindow;
    double best_cost = std::numeric_limits<double>::infinity();
    for (unsigned c = kMinWindow; c <= kMaxWindow; c++) {
        double cost = (double)num_windows(c) * ((double)n + 4.0 * (double)(size_t(1) << (c - 1)));
        if (cost < best_cost) best_cost = cost, best = c;
    }
    return best;
}

template class MsmContext<G1Config>;


G1Jacobian msm_g1_gpu(std::span<const G1Affine> bases, std::span<const Fr> scalars, const GpuMsmConfig& cfg) {
    if (bases.size() != scalars.size()) throw std::invalid_argument("gpu msm: bases and scalars differ in length");
    return G1MsmContext(bases, cfg).msm(scalars);
}
G1Jacobian msm_g1_split_gpu(std::span<const G1Affine> bases, const ScalarSplit& split, const GpuMsmConfig& cfg) {
    if (bases.size() != split.size) throw std::invalid_argument("gpu msm: bases and split differ in length");
    return G1MsmContext(bases, cfg).msm_split(split);
}
}  // namespace cuzk::gpu
