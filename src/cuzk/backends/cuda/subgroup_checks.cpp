#include "cuzk/backends/cuda/subgroup_checks.hpp"

#include <cstdio>

#include "cuzk/gpu/device.hpp"
#include "cuzk/gpu/subgroup.hpp"
#include "cuzk/msm/batch_subgroup.hpp"

namespace cuzk::backends {

namespace {

template <class A, class Device, class Cpu>
std::optional<size_t> on_device_or_cpu(std::span<const A> points, Device device, Cpu cpu, int ordinal) {
    try {
        return device(points, BatchSubgroupOptions{}, ordinal);
    } catch (const gpu::CudaError& e) {
        std::fprintf(stderr, "note: subgroup check of %zu points on the CPU (GPU %d: %s)\n", points.size(), ordinal,
                     e.what());
        return cpu(points, BatchSubgroupOptions{});
    }
}

}  // namespace

formats::SubgroupChecks gpu_subgroup_checks(size_t ordinal) {
    formats::SubgroupChecks checks;
    const auto devs = gpu::devices();
    if (ordinal >= devs.size()) return checks;
    const int device = devs[ordinal].id;
    checks.g1 = [device](std::span<const G1Affine> p) {
        return on_device_or_cpu(
            p, gpu::g1_first_not_in_subgroup_gpu,
            [](std::span<const G1Affine> q, const BatchSubgroupOptions& o) { return g1_batch_first_not_in_subgroup(q, o); },
            device);
    };
    checks.g2 = [device](std::span<const G2Affine> p) {
        return on_device_or_cpu(
            p, gpu::g2_first_not_in_subgroup_gpu,
            [](std::span<const G2Affine> q, const BatchSubgroupOptions& o) { return g2_batch_first_not_in_subgroup(q, o); },
            device);
    };
    return checks;
}

}  // namespace cuzk::backends
