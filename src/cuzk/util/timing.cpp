#include "cuzk/util/timing.hpp"

#include <cstdio>

namespace cuzk {

const char* timing_layer_name(TimingLayer layer) {
    switch (layer) {
        case TimingLayer::Pipeline: return "pipeline";
        case TimingLayer::Prover: return "prover";
        case TimingLayer::Kernel: return "kernel";
    }
    return "unknown";
}

void TimingSink::record(TimingSpan span) {
    std::lock_guard<std::mutex> lk(mu_);
    spans_.push_back(std::move(span));
}

std::vector<TimingSpan> TimingSink::spans() const {
    std::lock_guard<std::mutex> lk(mu_);
    return spans_;
}

double TimingSink::total(TimingLayer layer, const std::string& name) const {
    std::lock_guard<std::mutex> lk(mu_);
    double t = 0;
    for (auto& s : spans_)
        if (s.layer == layer && s.name == name) t += s.duration_s;
    return t;
}

std::string TimingSink::to_json() const {
    auto all = spans();
    std::string out = "[";
    char buf[512];
    for (size_t i = 0; i < all.size(); i++) {
        const auto& s = all[i];
        // names are identifiers chosen by cuzk code (no quotes or control characters)
        std::snprintf(buf, sizeof buf, "%s{\"layer\":\"%s\",\"name\":\"%s\",\"item\":%lld,\"start_s\":%.6f,\"duration_s\":%.6f}",
                      i ? "," : "", timing_layer_name(s.layer), s.name.c_str(), (long long)s.item, s.start_s,
                      s.duration_s);
        out += buf;
    }
    return out + "]";
}

}  // namespace cuzk
