// One timing sink for every layer. A span names its layer — pipeline (engine), prover (the seam call and its
// stages), kernel (device work) — so the gap between a layer and the sum of the layer below can be printed.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace cuzk {

// Wall seconds from t0 to now (steady clock): the figures commands, benchmarks and tests print.
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

enum class TimingLayer : uint8_t { Pipeline, Prover, Kernel };
const char* timing_layer_name(TimingLayer layer);

struct TimingSpan {
    TimingLayer layer = TimingLayer::Prover;
    std::string name;     // e.g. "msm.a", "ntt.coset", "synthesis"
    int64_t item = -1;    // circuit / partition index within a batch, -1 when the span covers the whole call
    double start_s = 0;   // seconds since the sink's epoch
    double duration_s = 0;
};

// Thread-safe recorder of spans.
class TimingSink {
public:
    TimingSink() : epoch_(std::chrono::steady_clock::now()) {}
    void record(TimingSpan span);
    // Every span of `from` (a call's own sink), its start moved onto this sink's epoch and, when it has an item,
    // labelled `item` instead (a one-circuit prover call numbers its circuit 0; the engine's partition is `item`).
    void absorb(const TimingSink& from, int64_t item);
    std::vector<TimingSpan> spans() const;
    double seconds_since_epoch(std::chrono::steady_clock::time_point t) const {
        return std::chrono::duration<double>(t - epoch_).count();
    }
    // Sum of the durations of the spans with this layer and name (any item).
    double total(TimingLayer layer, const std::string& name) const;
    // JSON array of {layer, name, item, start_s, duration_s}.
    std::string to_json() const;

private:
    std::chrono::steady_clock::time_point epoch_;
    mutable std::mutex mu_;
    std::vector<TimingSpan> spans_;
};

// The time covered by at least one of the kept spans (the union of their intervals): e.g. how long the GPU had
// some kernel running, however many streams overlapped.
double busy_seconds(const std::vector<TimingSpan>& spans, const std::function<bool(const TimingSpan&)>& keep);

// A kernel-layer span of device compute: not an upload (those run on copy engines, on their own streams).
bool is_kernel_compute(const TimingSpan& s);

// Spans from TimingSink::to_json's text; std::invalid_argument for anything else.
std::vector<TimingSpan> spans_from_json(const std::string& json);

// A human-readable breakdown of a job's or a call's timeline: per layer, each stage's total; then the gaps between
// the layers made explicit: the job's wall time against the time some partition was being proven (the prover
// waiting for synthesis), the engine's proving spans against the prover calls inside them, and the prover calls
// against the time a kernel ran (GPU idle inside the calls; uploads, on their own streams, are not kernels).
std::string timeline_breakdown(const std::vector<TimingSpan>& spans);

// Where a device-side operation reports its kernel-layer spans: spans named `name` + "." + stage, for `item`. A
// null sink: nothing is recorded (and no events are created).
struct KernelSpans {
    TimingSink* sink = nullptr;
    std::string name;
    int64_t item = -1;
};

// Records [construction, destruction) into the sink; a null sink records nothing.
class ScopedTiming {
public:
    ScopedTiming(TimingSink* sink, TimingLayer layer, std::string name, int64_t item = -1)
        : sink_(sink), layer_(layer), name_(std::move(name)), item_(item), t0_(std::chrono::steady_clock::now()) {}
    ~ScopedTiming() {
        if (!sink_) return;
        auto t1 = std::chrono::steady_clock::now();
        sink_->record({layer_, std::move(name_), item_, sink_->seconds_since_epoch(t0_),
                       std::chrono::duration<double>(t1 - t0_).count()});
    }
    ScopedTiming(const ScopedTiming&) = delete;
    ScopedTiming& operator=(const ScopedTiming&) = delete;

private:
    TimingSink* sink_;
    TimingLayer layer_;
    std::string name_;
    int64_t item_;
    std::chrono::steady_clock::time_point t0_;
};

}  // namespace cuzk
