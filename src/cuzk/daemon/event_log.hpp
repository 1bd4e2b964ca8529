// The daemon's event log ([server] log): one line per event (a request refused, a job accepted, started or ended, a
// key that proves on the CPU for want of GPU room, a PCE compiled) on stderr, with the UTC time.
#pragma once

#include <cstddef>
#include <string>

namespace cuzk::daemon {

class EventLog {
public:
    explicit EventLog(bool enabled) : enabled_(enabled) {}
    void operator()(const std::string& line) const;

private:
    bool enabled_;
};

// Whole MiB (2^20 bytes): how the log and the daemon's messages print sizes.
constexpr size_t mib(size_t bytes) { return bytes >> 20; }

}  // namespace cuzk::daemon
