#include "cuzk/r1cs/circuit.hpp"

#include <atomic>
#include <cstdlib>
#include <thread>

namespace cuzk::r1cs {

namespace {
size_t default_threads() {
    if (const char* e = std::getenv("CUZK_SYNTHESIS_THREADS")) {
        const long v = std::strtol(e, nullptr, 10);
        if (v >= 1) return (size_t)v;
    }
    const unsigned h = std::thread::hardware_concurrency();
    return h ? h : 1;
}
std::atomic<size_t>& threads_setting() {
    static std::atomic<size_t> n{default_threads()};
    return n;
}
}  // namespace

size_t parallel_synthesis_threads() { return threads_setting().load(); }
void set_parallel_synthesis_threads(size_t n) { threads_setting() = n ? n : default_threads(); }

}  // namespace cuzk::r1cs
