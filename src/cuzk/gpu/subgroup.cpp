// The batched subgroup check with device rounds (gpu/subgroup.hpp): a BatchRoundSource (host points) or a
// ResidentRoundSource (points already on the device) whose bucket sums come from the device (subgroup_impl.cuh),
// made affine here for the CPU's fold (batch_subgroup.cpp).
#include "cuzk/gpu/subgroup.hpp"

#include <algorithm>
#include <stdexcept>

#include "cuzk/util/thread_pool.hpp"

namespace cuzk::gpu {

namespace {

// Below this many points the exact per-point test on the CPU (~100 us a point on 16 threads) beats the upload,
// the launches and the folds of four device rounds.
constexpr size_t kMinDevicePoints = 4096;

// The device's XYZZ bucket sums as affine points (Jacobian::batch_to_affine: one inversion per chunk).
template <class Cfg>
std::vector<Affine<Cfg>> to_affine(const std::vector<XYZZ<Cfg>>& in, ThreadPool& pool) {
    std::vector<Affine<Cfg>> out(in.size());
    pool.parallel_for(in.size(), [&](size_t lo, size_t hi) {
        std::vector<Jacobian<Cfg>> jac(hi - lo);
        for (size_t i = lo; i < hi; i++) jac[i - lo] = in[i].to_jacobian();
        const std::vector<Affine<Cfg>> aff = Jacobian<Cfg>::batch_to_affine(jac);
        std::copy(aff.begin(), aff.end(), out.begin() + (std::ptrdiff_t)lo);
    });
    return out;
}

template <class Cfg>
std::vector<std::vector<Affine<Cfg>>> to_affine(const std::vector<std::vector<XYZZ<Cfg>>>& rounds, ThreadPool& pool) {
    std::vector<std::vector<Affine<Cfg>>> out(rounds.size());
    for (size_t r = 0; r < rounds.size(); r++) out[r] = to_affine(rounds[r], pool);
    return out;
}

template <class Cfg>
using ResidentSums = std::vector<std::vector<XYZZ<Cfg>>> (*)(const subgroup_detail::ResidentBatch&,
                                                             std::span<const unsigned>, const uint32_t*, int);

template <class Cfg>
using RoundSums = std::vector<std::vector<XYZZ<Cfg>>> (*)(std::span<const Affine<Cfg>>, std::span<const unsigned>,
                                                          const uint32_t*, int);

template <class Cfg>
class DeviceRounds final : public BatchRoundSource<Cfg> {
public:
    DeviceRounds(RoundSums<Cfg> fn, int device, ThreadPool& pool) : fn_(fn), device_(device), pool_(pool) {}
    size_t max_points() const override { return kGpuSubgroupMaxBatch; }
    std::vector<unsigned> plan(size_t n, unsigned t) const override {
        return n < kMinDevicePoints ? std::vector<unsigned>{} : gpu_batch_subgroup_plan(t);
    }
    std::vector<std::vector<Affine<Cfg>>> sums(std::span<const Affine<Cfg>> points, std::span<const unsigned> trits,
                                               const uint32_t key[8]) override {
        return to_affine(fn_(points, trits, key, device_), pool_);
    }

private:
    RoundSums<Cfg> fn_;
    int device_;
    ThreadPool& pool_;
};

// The n bases at d_bases on `device`, batch by batch (batch_subgroup.cpp's resident check).
template <class Cfg>
class ResidentDeviceRounds final : public ResidentRoundSource<Cfg> {
public:
    ResidentDeviceRounds(ResidentSums<Cfg> fn, const void* d_bases, size_t n, int device, ThreadPool& pool)
        : fn_(fn), bases_(d_bases), n_(n), device_(device), pool_(pool) {}
    size_t size() const override { return n_; }
    size_t max_points() const override { return kGpuSubgroupMaxBatch; }
    // Device rounds for any n: the points are not on the host for the per-point test, and the bound holds for any n.
    std::vector<unsigned> plan(size_t, unsigned t) const override { return gpu_batch_subgroup_plan(t); }
    std::vector<std::vector<Affine<Cfg>>> sums(size_t first, size_t count, std::span<const unsigned> trits,
                                               const uint32_t key[8]) override {
        if (first > n_ || count > n_ - first) throw std::out_of_range("gpu subgroup check: a batch past the bases");
        return to_affine(fn_({bases_, first, count}, trits, key, device_), pool_);
    }

private:
    ResidentSums<Cfg> fn_;
    const void* bases_;
    size_t n_;
    int device_;
    ThreadPool& pool_;
};

ThreadPool& pool_of(const BatchSubgroupOptions& o) { return o.pool ? *o.pool : ThreadPool::global(); }

}  // namespace

std::vector<unsigned> gpu_batch_subgroup_plan(unsigned t) {
    if (t == 0) return {};
    const unsigned rounds = (t + kGpuSubgroupMaxTrits - 1) / kGpuSubgroupMaxTrits;
    std::vector<unsigned> trits(rounds, t / rounds);
    for (unsigned i = 0; i < t % rounds; i++) trits[i]++;
    return trits;
}

std::optional<size_t> g1_first_not_in_subgroup_gpu(std::span<const G1Affine> points,
                                                   const BatchSubgroupOptions& options, int device) {
    DeviceRounds<G1Config> src(subgroup_detail::g1_round_sums, device, pool_of(options));
    return g1_batch_first_not_in_subgroup(points, options, src);
}

std::optional<size_t> g2_first_not_in_subgroup_gpu(std::span<const G2Affine> points,
                                                   const BatchSubgroupOptions& options, int device) {
    DeviceRounds<G2Config> src(subgroup_detail::g2_round_sums, device, pool_of(options));
    return g2_batch_first_not_in_subgroup(points, options, src);
}

bool g1_resident_in_subgroup_gpu(const void* d_bases, size_t n, const BatchSubgroupOptions& options, int device) {
    ResidentDeviceRounds<G1Config> src(subgroup_detail::g1_resident_round_sums, d_bases, n, device, pool_of(options));
    return g1_batch_in_subgroup(src, options);
}

bool g2_resident_in_subgroup_gpu(const void* d_bases, size_t n, const BatchSubgroupOptions& options, int device) {
    ResidentDeviceRounds<G2Config> src(subgroup_detail::g2_resident_round_sums, d_bases, n, device, pool_of(options));
    return g2_batch_in_subgroup(src, options);
}

std::vector<std::vector<G1Affine>> g1_batch_round_sums_gpu(std::span<const G1Affine> points,
                                                           std::span<const unsigned> trits, const uint32_t key[8],
                                                           int device) {
    return DeviceRounds<G1Config>(subgroup_detail::g1_round_sums, device, ThreadPool::global())
        .sums(points, trits, key);
}

std::vector<std::vector<G2Affine>> g2_batch_round_sums_gpu(std::span<const G2Affine> points,
                                                           std::span<const unsigned> trits, const uint32_t key[8],
                                                           int device) {
    return DeviceRounds<G2Config>(subgroup_detail::g2_round_sums, device, ThreadPool::global())
        .sums(points, trits, key);
}

}  // namespace cuzk::gpu
