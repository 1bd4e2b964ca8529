// GPU MSM over G2 (the template is in msm_impl.cuh; gpu::fq2_t coordinates).
#include "cuzk/gpu/msm_impl.cuh"
#include "cuzk/gpu/msm_streamed_impl.cuh"
#include "cuzk/gpu/subgroup_impl.cuh"

namespace cuzk::gpu {

template class MsmContext<G2Config>;
template class HostBases<G2Config>;
template class StreamedMsm<G2Config>;

G2Jacobian msm_g2_gpu(std::span<const G2Affine> bases, std::span<const Fr> scalars, const GpuMsmConfig& cfg) {
    if (bases.size() != scalars.size()) throw std::invalid_argument("gpu msm: bases and scalars differ in length");
    return G2MsmContext(bases, cfg).msm(scalars);
}
G2Jacobian msm_g2_split_gpu(std::span<const G2Affine> bases, const ScalarSplit& split, const GpuMsmConfig& cfg) {
    if (bases.size() != split.size) throw std::invalid_argument("gpu msm: bases and split differ in length");
    return G2MsmContext(bases, cfg).msm_split(split);
}


std::vector<std::vector<XYZZ<G2Config>>> subgroup_detail::g2_round_sums(std::span<const G2Affine> points,
                                                                          std::span<const unsigned> trits,
                                                                          const uint32_t key[8], int device) {
    return subgroup_round_sums<G2Config>(points, trits, key, device);
}

std::vector<std::vector<XYZZ<G2Config>>> subgroup_detail::g2_resident_round_sums(const ResidentBatch& batch,
                                                                                   std::span<const unsigned> trits,
                                                                                   const uint32_t key[8], int device) {
    return resident_round_sums<G2Config>(batch, trits, key, device);
}

}  // namespace cuzk::gpu
