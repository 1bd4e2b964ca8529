#include "cuzk/util/deallocator.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace cuzk {

void release_pages(void* p, size_t bytes) {
#if defined(__linux__)
    if (!p || bytes < 2 * kReleaseSliceBytes) return;  // small blocks: one munmap is short, or they are heap chunks
    const auto page = (uintptr_t)sysconf(_SC_PAGESIZE);
    const uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1);
    const uintptr_t hi = ((uintptr_t)p + bytes) & ~(page - 1);
    for (uintptr_t at = lo; at < hi; at += kReleaseSliceBytes) {
        const size_t len = (size_t)std::min<uintptr_t>(kReleaseSliceBytes, hi - at);
        (void)madvise((void*)at, len, MADV_DONTNEED);
    }
#else
    (void)p;
    (void)bytes;
#endif
}

Deallocator::Deallocator() : thread_([this] { loop(); }) {}

Deallocator& Deallocator::global() {
    static Deallocator d;
    return d;
}

Deallocator::~Deallocator() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

void Deallocator::push(size_t bytes, std::function<void()> fn) {
    {
        std::lock_guard<std::mutex> lk(mu_);
        queue_.emplace_back(bytes, std::move(fn));
    }
    cv_.notify_one();
}

void Deallocator::loop() {
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
        cv_.wait(lk, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stop_ with nothing left
        auto [bytes, fn] = std::move(queue_.front());
        queue_.pop_front();
        busy_++;
        lk.unlock();
        const auto t0 = std::chrono::steady_clock::now();
        fn();  // destroys the holder's contents
        fn = nullptr;
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        lk.lock();
        busy_--;
        stats_.buffers++;
        stats_.bytes += bytes;
        stats_.free_seconds += s;
        if (queue_.empty() && busy_ == 0) idle_cv_.notify_all();
    }
}

void Deallocator::drain() {
    std::unique_lock<std::mutex> lk(mu_);
    idle_cv_.wait(lk, [&] { return queue_.empty() && busy_ == 0; });
}

Deallocator::Stats Deallocator::stats() const {
    std::lock_guard<std::mutex> lk(mu_);
    Stats s = stats_;
    s.pending = queue_.size() + busy_;
    return s;
}

}  // namespace cuzk
