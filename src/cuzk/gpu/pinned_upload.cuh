// Host -> device copies of pageable memory at near-PCIe speed. A copy from pageable memory goes through the
// driver's own small staging at a fraction of the link's speed (measured on the H200 host: ~6 GB/s for a 512 MB
// MSM scalar upload). Here two pinned buffers alternate: a few dedicated host threads fill one while the DMA engine
// empties the other. The threads are the uploader's own, not the global pool, which the prover's CPU work (the 0/1
// split) keeps busy at the same time.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

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
        std::lock_guard<std::mutex> lk(mu_);
        if (!pool_) {  // set last: a failed setup is redone whole by the next call
            for (int i = 0; i < 2; i++) {
                buf_[i] = PinnedBuffer<unsigned char>(kChunkBytes);
                staged_[i] = Event::create(cudaEventDisableTiming);
            }
            pool_ = std::make_unique<ThreadPool>(kCopyThreads - 1);  // plus the calling thread
        }
        auto* d = static_cast<unsigned char*>(dst);
        const auto* s = static_cast<const unsigned char*>(src);
        for (size_t off = 0; off < bytes; off += kChunkBytes) {
            const size_t len = std::min(kChunkBytes, bytes - off);
            // The copy that last read this buffer (on whatever stream) must be done before it is refilled; an event
            // never recorded counts as done.
            CUZK_CUDA_CHECK(cudaEventSynchronize(staged_[next_].get()));
            unsigned char* to = buf_[next_].get();
            pool_->parallel_for(len, [&](size_t lo, size_t hi) { std::memcpy(to + lo, s + off + lo, hi - lo); });
            CUZK_CUDA_CHECK(cudaMemcpyAsync(d + off, to, len, cudaMemcpyHostToDevice, stream));
            CUZK_CUDA_CHECK(cudaEventRecord(staged_[next_].get(), stream));
            next_ ^= 1;
        }
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
    std::mutex mu_;
    PinnedBuffer<unsigned char> buf_[2];
    Event staged_[2];  // the last copy out of buf_[i]
    int next_ = 0;
    std::unique_ptr<ThreadPool> pool_;
};

}  // namespace cuzk::gpu
