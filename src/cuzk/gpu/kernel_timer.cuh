// Kernel-layer timing: spans measured with CUDA events on the device's own clock, reported to a TimingSink
// (layer Kernel) beside the host-measured prover and pipeline layers, so the gaps between layers are visible.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cuzk/gpu/cuda_check.cuh"
#include "cuzk/util/timing.hpp"

namespace cuzk::gpu {

// A stream of the current device that never gets work: an event recorded on it is timestamped as soon as the device
// sees it, whatever the other streams have queued. One per device, made on first use, never destroyed (as the NTT
// tables' registry: freeing at exit races the runtime's teardown).
inline cudaStream_t clock_stream() {
    static std::mutex mu;
    static auto* streams = new std::map<int, cudaStream_t>;
    int dev = 0;
    CUZK_CUDA_CHECK(cudaGetDevice(&dev));
    std::lock_guard<std::mutex> lk(mu);
    const auto it = streams->find(dev);
    if (it != streams->end()) return it->second;
    cudaStream_t s = nullptr;
    CUZK_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    streams->emplace(dev, s);
    return s;
}

// start(stage, stream) / stop(id, stream) record an event pair on a stream; report() -- after every stream used is
// synchronized -- turns each pair into a span named spans.name + "." + stage. Spans are placed on the sink's clock
// through a reference event recorded at construction on the current device's clock_stream(), whose host time is
// taken then. (A reference recorded on a work stream would be timestamped only once the work queued there before it
// had run, and every span would be placed that much too early: a 32 GiB C2's first H transforms by ~0.13 s.)
// With a null sink every call is a no-op.
class KernelTimer {
public:
    explicit KernelTimer(const KernelSpans& spans) : spans_(spans) {
        if (!spans_.sink) return;
        origin_ = Event::create();
        host0_ = spans_.sink->seconds_since_epoch(std::chrono::steady_clock::now());
        CUZK_CUDA_CHECK(cudaEventRecord(origin_.get(), clock_stream()));
    }
    KernelTimer(const KernelTimer&) = delete;
    KernelTimer& operator=(const KernelTimer&) = delete;

    bool enabled() const { return spans_.sink != nullptr; }

    int start(const char* stage, cudaStream_t stream) {
        if (!spans_.sink) return -1;
        Mark m{stage, Event::create(), Event()};
        CUZK_CUDA_CHECK(cudaEventRecord(m.start.get(), stream));
        marks_.push_back(std::move(m));
        return (int)marks_.size() - 1;
    }
    void stop(int id, cudaStream_t stream) {
        if (!spans_.sink || id < 0) return;
        Mark& m = marks_[(size_t)id];
        m.stop = Event::create();
        CUZK_CUDA_CHECK(cudaEventRecord(m.stop.get(), stream));
    }
    void report() {
        if (!spans_.sink) return;
        for (const auto& m : marks_) {
            if (!m.stop) continue;
            float from_origin = 0, length = 0;
            CUZK_CUDA_CHECK(cudaEventElapsedTime(&from_origin, origin_.get(), m.start.get()));
            CUZK_CUDA_CHECK(cudaEventElapsedTime(&length, m.start.get(), m.stop.get()));
            spans_.sink->record({TimingLayer::Kernel, spans_.name + "." + m.stage, spans_.item,
                                 host0_ + from_origin * 1e-3, length * 1e-3});
        }
    }

private:
    struct Mark {
        const char* stage;
        Event start, stop;  // stop: empty until stop()
    };
    KernelSpans spans_;
    Event origin_;
    double host0_ = 0;
    std::vector<Mark> marks_;
};

}  // namespace cuzk::gpu
