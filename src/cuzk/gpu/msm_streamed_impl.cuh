// StreamedMsm (msm_streamed.hpp): the bases in page-locked host memory, two MsmContext chunk buffers on the device.
// Included by msm.cu (G1) and msm_g2.cu (G2), after msm_impl.cuh.
#pragma once

#include <algorithm>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/gpu/msm_impl.cuh"
#include "cuzk/gpu/msm_streamed.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::gpu {

template <class Cfg>
struct HostBases<Cfg>::Impl {
    using F = typename DeviceFieldOf<typename Cfg::F>::type;
    using Base = BaseDev<F>;
    PinnedBuffer<Base> mem;
    size_t n = 0;
    // pack(mem) writes the n bases in the device layout.
    Impl(size_t count, const std::function<void(unsigned char*)>& pack) : n(count) {
        if (n >= (size_t(1) << 31)) throw std::invalid_argument("gpu streamed msm: at most 2^31 - 1 bases");
        mem = PinnedBuffer<Base>(n);
        if (n) pack(reinterpret_cast<unsigned char*>(mem.get()));
    }
};

template <class Cfg>
HostBases<Cfg>::HostBases(std::span<const Affine<Cfg>> bases)
    : impl_(std::make_unique<Impl>(bases.size(), [bases](unsigned char* to) {
          parallel_for(bases.size(), [&](size_t lo, size_t hi) {
              for (size_t i = lo; i < hi; i++)
                  pack_base<Cfg, typename Impl::F>(bases[i], to + i * sizeof(typename Impl::Base));
          });
      })) {}

template <class Cfg>
HostBases<Cfg>::HostBases(size_t n, const Fill& fill)
    : impl_(std::make_unique<Impl>(n, [&fill, n](unsigned char* to) {
          if (!fill) throw std::invalid_argument("gpu streamed msm: no fill for the bases");
          static constexpr size_t kBlock = 1024;
          parallel_for(n, [&](size_t lo, size_t hi) {
              std::vector<Affine<Cfg>> block(std::min(kBlock, hi - lo));
              for (size_t b = lo; b < hi; b += kBlock) {
                  const size_t e = std::min(hi, b + kBlock);
                  fill(b, e, block.data());
                  for (size_t i = b; i < e; i++)
                      pack_base<Cfg, typename Impl::F>(block[i - b], to + i * sizeof(typename Impl::Base));
              }
          });
      })) {}

template <class Cfg>
HostBases<Cfg>::~HostBases() = default;
template <class Cfg>
size_t HostBases<Cfg>::size() const {
    return impl_->n;
}
template <class Cfg>
size_t HostBases<Cfg>::bytes() const {
    return impl_->n * sizeof(typename Impl::Base);
}
template <class Cfg>
const void* HostBases<Cfg>::data() const {
    return impl_->mem.get();
}

template <class Cfg>
struct StreamedMsm<Cfg>::Impl {
    using Ctx = typename MsmContext<Cfg>::Impl;
    using F = typename Ctx::F;
    using Base = BaseDev<F>;

    int device = 0;
    size_t n = 0;
    size_t K = 0;  // bases per chunk, a multiple of 64
    std::shared_ptr<const HostBases<Cfg>> host_bases;
    const Base* host = nullptr;  // host_bases' entries
    std::unique_ptr<Ctx> buf[2];
    size_t holds[2] = {ChunkWalk::kNone, ChunkWalk::kNone};  // the chunk each buffer holds (or has queued)
    bool descending = false;           // the direction of the next call without a chunk to start from
    size_t loads = 0;

    // make() makes the host bases (after the checks, on the device).
    Impl(const std::function<std::shared_ptr<const HostBases<Cfg>>()>& make, const StreamedMsmConfig& c)
        : device(c.msm.device) {
        if (c.msm.precompute_windows)
            throw std::invalid_argument("gpu streamed msm: no precomputed table (its chunks change per call)");
        CUZK_CUDA_CHECK(cudaSetDevice(device));
        host_bases = make();
        if (!host_bases) throw std::invalid_argument("gpu streamed msm: no host bases");
        n = host_bases->size();
        host = static_cast<const Base*>(host_bases->data());
        K = chunk_size(c.chunk_points, n);
        GpuMsmConfig mc = c.msm;
        if (!mc.scratch) mc.scratch = std::make_shared<MsmScratch>(device);  // one scratch for both buffers
        for (auto& b : buf) b = std::make_unique<Ctx>(std::min(K, n), [](Base*, cudaStream_t) {}, mc);
    }

    // chunk_points rounded up to a multiple of 64, or the default (msm_streamed.hpp); never above n rounded up.
    static size_t chunk_size(size_t asked, size_t n) {
        size_t k = asked;
        if (!k) {
            size_t free_b = 0, total_b = 0;
            CUZK_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
            const size_t most = sizeof(F) > 48 ? size_t(1) << 23 : size_t(1) << 24;
            k = std::max<size_t>(size_t(1) << 16, std::min(most, pow2_floor_size(free_b / 8 / sizeof(Base))));
        }
        k = (k + 63) / 64 * 64;
        return std::max<size_t>(64, std::min(k, (n + 63) / 64 * 64));
    }
    static size_t pow2_floor_size(size_t x) { return x ? size_t(1) << (63 - __builtin_clzll(x)) : 0; }

    void load(unsigned into, size_t chunk) {
        const size_t lo = chunk * K;
        buf[into]->load_async(host + lo, std::min(K, n - lo));
        loads++;
    }

    // part(set, ctx, lo, hi): that set's sum over bases [lo, hi), run on ctx (which holds them). Walks the chunks
    // that `extent` bases cover (plan_chunk_walk), each once for every set, the next one's copy queued before this
    // one's MSMs.
    using Part = std::function<Jacobian<Cfg>(size_t set, Ctx& ctx, size_t lo, size_t hi)>;
    std::vector<Jacobian<Cfg>> walk(size_t sets, size_t extent, const Part& part) {
        std::vector<Jacobian<Cfg>> acc(sets, Jacobian<Cfg>::identity());
        const size_t chunks = (extent + K - 1) / K;
        if (!sets || !chunks) return acc;
        CUZK_CUDA_CHECK(cudaSetDevice(device));
        const ChunkWalk w = plan_chunk_walk(chunks, holds, descending);
        holds[0] = holds[1] = ChunkWalk::kNone;  // until the walk is done: a copy may fail to be queued
        try {
            if (w.first_load != ChunkWalk::kNone) load(w.first_buffer, w.first_load);
            for (const ChunkWalk::Step& st : w.steps) {
                if (st.prefetch != ChunkWalk::kNone) load(1 - st.buffer, st.prefetch);
                const size_t lo = st.chunk * K, hi = std::min(n, lo + K);
                for (size_t b = 0; b < sets; b++) acc[b] += part(b, *buf[st.buffer], lo, hi);
            }
        } catch (...) {
            descending = w.descending_next;
            throw;
        }
        holds[0] = w.holds_after[0], holds[1] = w.holds_after[1];
        descending = w.descending_next;
        return acc;
    }
};

template <class Cfg>
StreamedMsm<Cfg>::StreamedMsm(std::span<const Affine<Cfg>> bases, const StreamedMsmConfig& cfg)
    : impl_(std::make_unique<Impl>([bases] { return std::make_shared<const HostBases<Cfg>>(bases); }, cfg)) {}

template <class Cfg>
StreamedMsm<Cfg>::StreamedMsm(size_t n, const Fill& fill, const StreamedMsmConfig& cfg)
    : impl_(std::make_unique<Impl>([n, &fill] { return std::make_shared<const HostBases<Cfg>>(n, fill); }, cfg)) {}

template <class Cfg>
StreamedMsm<Cfg>::StreamedMsm(std::shared_ptr<const HostBases<Cfg>> host, const StreamedMsmConfig& cfg)
    : impl_(std::make_unique<Impl>([&host] { return host; }, cfg)) {}

template <class Cfg>
StreamedMsm<Cfg>::~StreamedMsm() = default;
template <class Cfg>
StreamedMsm<Cfg>::StreamedMsm(StreamedMsm&&) noexcept = default;
template <class Cfg>
StreamedMsm<Cfg>& StreamedMsm<Cfg>::operator=(StreamedMsm&&) noexcept = default;

template <class Cfg>
std::vector<Jacobian<Cfg>> StreamedMsm<Cfg>::msm(std::span<const std::span<const Fr>> sets,
                                                 const KernelSpans& spans) {
    size_t extent = 0;
    for (const auto& s : sets) extent = std::max(extent, s.size());
    if (extent > impl_->n)
        throw std::invalid_argument("gpu streamed msm: " + std::to_string(extent) + " scalars for " +
                                    std::to_string(impl_->n) + " bases");
    static_assert(sizeof(Fr) == sizeof(Limbs4), "Fr is its Montgomery limbs");
    return impl_->walk(sets.size(), extent, [&](size_t b, typename Impl::Ctx& ctx, size_t lo, size_t hi) {
        const std::span<const Fr> s = sets[b];
        if (lo >= s.size()) return Jacobian<Cfg>::identity();
        return ctx.run(std::min(hi, s.size()) - lo, reinterpret_cast<const Limbs4*>(s.data() + lo), true, nullptr, 0,
                       nullptr, spans);
    });
}

template <class Cfg>
Jacobian<Cfg> StreamedMsm<Cfg>::msm(std::span<const Fr> scalars, const KernelSpans& spans) {
    const std::span<const Fr> one[] = {scalars};
    return msm(std::span<const std::span<const Fr>>(one), spans)[0];
}

template <class Cfg>
std::vector<Jacobian<Cfg>> StreamedMsm<Cfg>::msm_device(std::span<const Fr* const> d_sets, size_t m,
                                                        const KernelSpans& spans) {
    if (m > impl_->n)
        throw std::invalid_argument("gpu streamed msm: " + std::to_string(m) + " scalars for " +
                                    std::to_string(impl_->n) + " bases");
    for (const Fr* d : d_sets)
        if (m && !d) throw std::invalid_argument("gpu streamed msm: null device scalars");
    return impl_->walk(d_sets.size(), m, [&](size_t b, typename Impl::Ctx& ctx, size_t lo, size_t hi) {
        const size_t end = std::min(hi, m);  // the last chunk may hold bases past the m scalars
        if (lo >= end) return Jacobian<Cfg>::identity();
        return ctx.run(end - lo, reinterpret_cast<const Limbs4*>(d_sets[b] + lo), true, nullptr, 0, nullptr, spans,
                       true);
    });
}

template <class Cfg>
std::vector<Jacobian<Cfg>> StreamedMsm<Cfg>::msm_split(std::span<const ScalarSplit* const> splits,
                                                       const KernelSpans& spans) {
    size_t extent = 0;
    for (const ScalarSplit* s : splits) {
        if (!s) throw std::invalid_argument("gpu streamed msm: null split");
        if (s->size > impl_->n)
            throw std::invalid_argument("gpu streamed msm: a split of " + std::to_string(s->size) + " scalars for " +
                                        std::to_string(impl_->n) + " bases");
        check_split_indices(*s, "gpu streamed msm");
        extent = std::max(extent, s->size);
    }
    // Every chunk's part of every split, cut on the thread pool before the first chunk (the GPU would otherwise
    // wait for each cut).
    const size_t K = impl_->K, chunks = (extent + K - 1) / K;
    std::vector<ScalarSplit> parts(splits.size() * chunks);
    parallel_for(parts.size(), [&](size_t lo, size_t hi) {
        for (size_t p = lo; p < hi; p++) {
            const ScalarSplit& s = *splits[p / chunks];
            const size_t a = std::min(s.size, (p % chunks) * K), e = std::min(s.size, a + K);
            parts[p] = split_range(s, a, e);
        }
    });
    return impl_->walk(splits.size(), extent, [&](size_t b, typename Impl::Ctx& ctx, size_t lo, size_t) {
        const ScalarSplit& part = parts[b * chunks + lo / K];
        if (!part.size) return Jacobian<Cfg>::identity();
        return ctx.run_split(part, spans);
    });
}

template <class Cfg>
bool StreamedMsm<Cfg>::for_each_chunk(const std::function<bool(const void*, size_t, size_t)>& fn) {
    bool all = true;
    impl_->walk(1, impl_->n, [&](size_t, typename Impl::Ctx& ctx, size_t lo, size_t hi) {
        if (all) {
            CUZK_CUDA_CHECK(cudaStreamSynchronize(ctx.owned_stream.get()));
            all = fn(ctx.bases_mem.get(), lo, hi - lo);
        }
        return Jacobian<Cfg>::identity();
    });
    return all;
}

template <class Cfg>
size_t StreamedMsm<Cfg>::num_bases() const {
    return impl_->n;
}
template <class Cfg>
size_t StreamedMsm<Cfg>::chunk_points() const {
    return impl_->K;
}
template <class Cfg>
size_t StreamedMsm<Cfg>::host_bytes() const {
    return impl_->host_bases->bytes();
}
template <class Cfg>
size_t StreamedMsm<Cfg>::device_bytes() const {
    return 2 * std::min(impl_->K, impl_->n) * sizeof(typename Impl::Base);
}
template <class Cfg>
size_t StreamedMsm<Cfg>::device_bytes(size_t n, size_t chunk_points) {
    if (!chunk_points) throw std::invalid_argument("gpu streamed msm: device_bytes needs a chunk size");
    return 2 * std::min(Impl::chunk_size(chunk_points, n), n) * sizeof(typename Impl::Base);
}
template <class Cfg>
size_t StreamedMsm<Cfg>::chunks_loaded() const {
    return impl_->loads;
}

}  // namespace cuzk::gpu
