#include "cuzk/backends/cuda/subgroup_checks.hpp"

#include <algorithm>
#include <cstdio>

#include "cuzk/gpu/device.hpp"
#include "cuzk/gpu/subgroup.hpp"
#include "cuzk/msm/batch_subgroup.hpp"

namespace cuzk::backends {

namespace {

// The device check in pieces: the whole span first, then halves while the device has no room for a piece (a card
// smaller than a 2^27-point query: 12 GiB of G1 bases plus sort space), each piece an independent batch with the
// same bound. Below kMinDevicePiece points, or for any other device failure, the rest goes to the CPU.
constexpr size_t kMinDevicePiece = size_t(1) << 20;

template <class A, class Device, class Cpu>
std::optional<size_t> on_device_or_cpu(std::span<const A> points, Device device, Cpu cpu, int ordinal) {
    size_t first = 0;
    size_t piece = std::max<size_t>(points.size(), 1);
    while (first < points.size()) {
        const size_t n = std::min(piece, points.size() - first);
        try {
            if (auto bad = device(points.subspan(first, n), BatchSubgroupOptions{}, ordinal)) return first + *bad;
            first += n;
        } catch (const gpu::CudaError& e) {
            if (n > kMinDevicePiece) {
                piece = n / 2;
                continue;
            }
            std::fprintf(stderr, "note: subgroup check of %zu points on the CPU (GPU %d: %s)\n", points.size() - first,
                         ordinal, e.what());
            auto bad = cpu(points.subspan(first), BatchSubgroupOptions{});
            return bad ? std::optional<size_t>(first + *bad) : std::nullopt;
        }
    }
    return std::nullopt;
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
