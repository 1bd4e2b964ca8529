#include "cuzk/daemon/event_log.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace cuzk::daemon {

void EventLog::operator()(const std::string& line) const {
    if (!enabled_) return;
    const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&t, &utc);  // the log is written from several threads: not std::gmtime's shared buffer
    char ts[sizeof "YYYY-MM-DDTHH:MM:SSZ"];  // ISO 8601 in UTC, and its terminating NUL
    std::strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &utc);
    std::fprintf(stderr, "%s cuzk daemon: %s\n", ts, line.c_str());
}

}  // namespace cuzk::daemon
