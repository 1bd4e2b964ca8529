// Host -> device copies of pageable memory at near-PCIe speed. A copy from pageable memory goes through the
// driver's own small staging at a fraction of the link's speed (measured on the H200 host: ~6 GB/s for a 512 MB
// MSM scalar upload). Here two pinned buffers alternate: a few dedicated host threads fill one while the DMA engine
// empties the other. The threads are the uploader's own, not the global pool, which the prover's CPU work (the 0/1
// split) keeps busy at the same time. The threads may also convert while they copy (upload_items: the MSM bases go
// up in the device layout, with no packing on the device).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "cuzk/gpu/cuda_check.cuh"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::gpu {

class PinnedUploader {
public:
    static constexpr size_t kChunkBytes = size_t{64} << 20;
    // Copy threads: the device host (16-core Xeon) filled the buffers at ~11.5 GB/s with 4 (a, b, c of a 2^27
    // partition: 1.08 s), so 8.
    static constexpr size_t kCopyThreads = 8;

    // Queues dst (device) <- src (host) on `stream` and returns once every chunk has been handed to the DMA engine:
    // the source may then change; the copy completes in stream order. Pinned sources are copied directly. Callers
    // on several threads are served one at a time (they share the link anyway).
    void upload(void* dst, const void* src, size_t bytes, cudaStream_t stream) {
        if (bytes == 0) return;
        if (is_pinned_host(src)) {
            CUZK_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
            return;
        }
        const auto* s = static_cast<const unsigned char*>(src);
        staged(dst, bytes, 1, [s](size_t lo, size_t hi, unsigned char* to) { std::memcpy(to, s + lo, hi - lo); },
               stream);
    }

    // Queues `count` items of `item_bytes` each into dst (device), made by the copy threads straight into the pinned
    // buffers: fill(lo, hi, to) writes items [lo, hi) at `to` (a host pass that converts, then one DMA per chunk).
    // Returns as upload() does.
    template <class Fill>
    void upload_items(void* dst, size_t count, size_t item_bytes, Fill&& fill, cudaStream_t stream) {
        if (count == 0) return;
        if (item_bytes == 0 || item_bytes > kChunkBytes) throw std::invalid_argument("upload_items: bad item size");
        staged(dst, count, item_bytes, fill, stream);
    }
    // The current device's uploader (its events live on that device; 128 MiB of pinned memory once something
    // pageable is uploaded).
    static PinnedUploader& shared() {
        int dev = 0;
        CUZK_CUDA_CHECK(cudaGetDevice(&dev));
        static std::mutex mu;
        static std::map<int, std::unique_ptr<PinnedUploader>> per_device;
        std::lock_guard<std::mutex> lk(mu);
        auto& u = per_device[dev];
        if (!u) u = std::make_unique<PinnedUploader>();
        return *u;
    }

private:
    // Items [0, count) of `item_bytes` each through the two pinned buffers, a chunk of whole items at a time.
    template <class Fill>
    void staged(void* dst, size_t count, size_t item_bytes, Fill&& fill, cudaStream_t stream) {
        std::lock_guard<std::mutex> lk(mu_);
        if (!pool_) {  // set last: a failed setup is redone whole by the next call
            for (int i = 0; i < 2; i++) {
                buf_[i] = PinnedBuffer<unsigned char>(kChunkBytes);
                staged_[i] = Event::create(cudaEventDisableTiming);
            }
            pool_ = std::make_unique<ThreadPool>(kCopyThreads - 1);  // plus the calling thread
        }
        auto* d = static_cast<unsigned char*>(dst);
        const size_t per_chunk = kChunkBytes / item_bytes;
        for (size_t off = 0; off < count; off += per_chunk) {
            const size_t cnt = std::min(per_chunk, count - off);
            // The copy that last read this buffer (on whatever stream) must be done before it is refilled; an event
            // never recorded counts as done.
            CUZK_CUDA_CHECK(cudaEventSynchronize(staged_[next_].get()));
            unsigned char* to = buf_[next_].get();
            pool_->parallel_for(cnt, [&](size_t lo, size_t hi) { fill(off + lo, off + hi, to + lo * item_bytes); });
            CUZK_CUDA_CHECK(
                cudaMemcpyAsync(d + off * item_bytes, to, cnt * item_bytes, cudaMemcpyHostToDevice, stream));
            CUZK_CUDA_CHECK(cudaEventRecord(staged_[next_].get(), stream));
            next_ ^= 1;
        }
    }

    std::mutex mu_;
    PinnedBuffer<unsigned char> buf_[2];
    Event staged_[2];  // the last copy out of buf_[i]
    int next_ = 0;
    std::unique_ptr<ThreadPool> pool_;
};

}  // namespace cuzk::gpu
