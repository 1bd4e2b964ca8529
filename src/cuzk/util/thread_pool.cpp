#include "cuzk/util/thread_pool.hpp"

#include <atomic>
#include <cerrno>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace cuzk {

#if defined(__linux__)
namespace {
id_t this_thread_id() { return (id_t)::syscall(SYS_gettid); }
}  // namespace

int thread_nice() {
    errno = 0;
    const int now = ::getpriority(PRIO_PROCESS, this_thread_id());
    return errno == 0 ? now : 0;
}

bool lower_thread_priority(int nice) {
    if (nice <= 0 || thread_nice() >= nice) return false;
    return ::setpriority(PRIO_PROCESS, this_thread_id(), nice) == 0;
}
#else
int thread_nice() { return 0; }
bool lower_thread_priority(int nice) {
    (void)nice;
    return false;
}
#endif

namespace {
// Stops the workers of a pool and joins them (its destructor, and its constructor when a thread fails).
void stop_and_join(std::mutex& mu, bool& stop, std::condition_variable& cv, std::vector<std::thread>& workers) {
    {
        std::lock_guard<std::mutex> lk(mu);
        stop = true;
    }
    cv.notify_all();
    for (auto& t : workers) t.join();
    workers.clear();
}
thread_local unsigned t_urgent = 0;  // Urgent scopes open on this thread
}  // namespace

ThreadPool::Urgent::Urgent() { t_urgent++; }
ThreadPool::Urgent::~Urgent() { t_urgent--; }
bool ThreadPool::urgent() { return t_urgent > 0; }

// Throws std::system_error when a thread cannot be created, after stopping and joining the ones started: no
// destructor runs for a constructor that throws, and joinable threads left in workers_ would end the process.
ThreadPool::ThreadPool(size_t threads) {
    if (threads == 0) threads = 1;
    try {
        for (size_t i = 0; i + 1 < threads; i++) workers_.emplace_back([this] { worker_loop(); });
    } catch (...) {
        stop_and_join(mu_, stop_, cv_, workers_);
        throw;
    }
}

ThreadPool::~ThreadPool() { stop_and_join(mu_, stop_, cv_, workers_); }

void ThreadPool::worker_loop() {
    for (;;) {
        std::function<void()> job;
        {
            std::unique_lock<std::mutex> lk(mu_);
            cv_.wait(lk, [this] { return stop_ || !queue_.empty(); });
            if (stop_ && queue_.empty()) return;
            job = std::move(queue_.front());
            queue_.pop_front();
        }
        job();
    }
}

void ThreadPool::run_tasks(size_t tasks, const std::function<void(size_t)>& fn) {
    if (tasks == 0) return;
    if (tasks == 1 || workers_.empty()) {
        for (size_t i = 0; i < tasks; i++) fn(i);
        return;
    }
    // Tasks are claimed from a shared counter by the workers and by the caller, so a caller that is itself a
    // pool worker (nested parallelism) still makes progress.
    struct State {
        std::atomic<size_t> next{0};
        std::atomic<size_t> done{0};
        std::mutex mu;
        std::condition_variable cv;
        std::exception_ptr error;
    };
    auto st = std::make_shared<State>();
    const bool is_urgent = urgent();
    auto drain = [st, tasks, &fn, is_urgent] {
        std::optional<Urgent> scope;  // a worker running an urgent call's tasks makes their nested calls urgent
        if (is_urgent && !urgent()) scope.emplace();
        for (;;) {
            size_t i = st->next.fetch_add(1);
            if (i >= tasks) return;
            try {
                fn(i);
            } catch (...) {
                std::lock_guard<std::mutex> lk(st->mu);
                if (!st->error) st->error = std::current_exception();
            }
            if (st->done.fetch_add(1) + 1 == tasks) {
                std::lock_guard<std::mutex> lk(st->mu);
                st->cv.notify_all();
            }
        }
    };
    size_t helpers = std::min(workers_.size(), tasks - 1);
    {
        std::lock_guard<std::mutex> lk(mu_);
        for (size_t i = 0; i < helpers; i++) {
            if (is_urgent) queue_.emplace_front(drain);
            else queue_.emplace_back(drain);
        }
    }
    cv_.notify_all();
    drain();
    std::unique_lock<std::mutex> lk(st->mu);
    st->cv.wait(lk, [&] { return st->done.load() == tasks; });
    if (st->error) std::rethrow_exception(st->error);
}

void ThreadPool::parallel_for(size_t n, const std::function<void(size_t, size_t)>& fn, size_t chunks) {
    if (n == 0) return;
    if (chunks == 0) chunks = size();
    if (chunks > n) chunks = n;
    size_t per = n / chunks, extra = n % chunks;
    run_tasks(chunks, [&](size_t c) {
        size_t begin = c * per + std::min(c, extra);
        size_t end = begin + per + (c < extra ? 1 : 0);
        fn(begin, end);
    });
}

namespace {
std::mutex g_pool_mu;
size_t g_requested_threads = 0;
std::unique_ptr<ThreadPool> g_pool;
}  // namespace

ThreadPool& ThreadPool::global() {
    std::lock_guard<std::mutex> lk(g_pool_mu);
    if (!g_pool) {
        size_t t = g_requested_threads ? g_requested_threads : std::thread::hardware_concurrency();
        g_pool = std::make_unique<ThreadPool>(t ? t : 1);
    }
    return *g_pool;
}

void ThreadPool::set_global_threads(size_t threads) {
    // Far more than any host has (--threads 100000 tried to create them all; issue 20 item 11).
    constexpr size_t kMaxThreads = 4096;
    if (threads > kMaxThreads)
        throw std::invalid_argument("--threads " + std::to_string(threads) + ": at most " +
                                    std::to_string(kMaxThreads) + " (0: every hardware thread)");
    std::lock_guard<std::mutex> lk(g_pool_mu);
    g_requested_threads = threads;
    g_pool.reset();  // the next global() builds a pool of the new size
}

}  // namespace cuzk
