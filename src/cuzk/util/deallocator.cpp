#include "cuzk/util/deallocator.hpp"

#include <chrono>

namespace cuzk {

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
    return stats_;
}

}  // namespace cuzk
