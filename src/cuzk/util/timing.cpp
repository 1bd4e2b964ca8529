#include "cuzk/util/timing.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>

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

void TimingSink::absorb(const TimingSink& from, int64_t item) {
    const double shift = seconds_since_epoch(from.epoch_);
    auto spans = from.spans();
    std::lock_guard<std::mutex> lk(mu_);
    for (auto& s : spans) {
        s.start_s += shift;
        if (s.item >= 0) s.item = item;
        spans_.push_back(std::move(s));
    }
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

double busy_seconds(const std::vector<TimingSpan>& spans, const std::function<bool(const TimingSpan&)>& keep) {
    std::vector<std::pair<double, double>> iv;
    for (const auto& s : spans)
        if (!keep || keep(s)) iv.emplace_back(s.start_s, s.start_s + s.duration_s);
    std::sort(iv.begin(), iv.end());
    double total = 0, end = -1e300;
    for (const auto& [a, b] : iv) {
        if (a > end) {
            total += b - a;
            end = b;
        } else if (b > end) {
            total += b - end;
            end = b;
        }
    }
    return total;
}

bool is_kernel_compute(const TimingSpan& s) {
    static constexpr std::string_view kUpload = ".upload";
    return s.layer == TimingLayer::Kernel &&
           !(s.name.size() >= kUpload.size() && s.name.compare(s.name.size() - kUpload.size(), kUpload.size(), kUpload) == 0);
}

std::vector<TimingSpan> spans_from_json(const std::string& json) {
    std::vector<TimingSpan> out;
    try {
        for (const auto& j : nlohmann::json::parse(json)) {
            TimingSpan s;
            const std::string layer = j.at("layer").get<std::string>();
            if (layer == "pipeline") s.layer = TimingLayer::Pipeline;
            else if (layer == "prover") s.layer = TimingLayer::Prover;
            else if (layer == "kernel") s.layer = TimingLayer::Kernel;
            else throw std::invalid_argument("unknown layer '" + layer + "'");
            s.name = j.at("name").get<std::string>();
            s.item = j.at("item").get<int64_t>();
            s.start_s = j.at("start_s").get<double>();
            s.duration_s = j.at("duration_s").get<double>();
            out.push_back(std::move(s));
        }
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(std::string("timeline: ") + e.what());
    }
    return out;
}

std::string timeline_breakdown(const std::vector<TimingSpan>& spans) {
    std::map<std::pair<int, std::string>, std::pair<double, size_t>> totals;
    for (const auto& s : spans) {
        auto& t = totals[{(int)s.layer, s.name}];
        t.first += s.duration_s;
        t.second++;
    }
    std::string out;
    char line[256];
    std::snprintf(line, sizeof line, "%-9s %-28s %10s %6s\n", "layer", "stage", "total s", "count");
    out += line;
    for (const auto& [key, t] : totals) {
        std::snprintf(line, sizeof line, "%-9s %-28s %10.3f %6zu\n", timing_layer_name((TimingLayer)key.first),
                      key.second.c_str(), t.first, t.second);
        out += line;
    }
    auto is = [](TimingLayer l, const char* n) {
        return [l, n](const TimingSpan& s) { return s.layer == l && s.name == n; };
    };
    const double job = busy_seconds(spans, is(TimingLayer::Pipeline, "job"));
    const double proving = busy_seconds(spans, is(TimingLayer::Pipeline, "proving"));
    const double calls = busy_seconds(spans, is(TimingLayer::Prover, "prove"));
    const double kernels = busy_seconds(spans, is_kernel_compute);
    out += "gaps between the layers:\n";
    if (job > 0) {
        std::snprintf(line, sizeof line, "  job %.3f s, some partition being proven %.3f s: the prover waited %.3f s (%.0f%%)\n",
                      job, proving, job - proving, 100 * (job - proving) / job);
        out += line;
    }
    if (proving > 0 && calls > 0) {
        std::snprintf(line, sizeof line, "  proving %.3f s, inside prover calls %.3f s: %.3f s in the engine around the calls\n",
                      proving, calls, proving - calls);
        out += line;
    }
    if (calls > 0 && kernels > 0) {
        std::snprintf(line, sizeof line, "  prover calls %.3f s, some kernel running %.3f s: the GPU idled %.3f s (%.0f%%)\n",
                      calls, kernels, calls - kernels, 100 * (calls - kernels) / calls);
        out += line;
    }
    return out;
}

}  // namespace cuzk
