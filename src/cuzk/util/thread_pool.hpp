// The one thread pool cuzk uses on the CPU. Its size is set once (`cuzk --threads`, or hardware concurrency by
// default); parallel_for splits a range into contiguous chunks and runs them on the pool plus the caller.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cuzk {

class ThreadPool {
public:
    explicit ThreadPool(size_t threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    // Total threads that work on a parallel_for (the workers plus the calling thread).
    size_t size() const { return workers_.size() + 1; }

    // Runs fn(chunk_begin, chunk_end) over [0, n) in at most `chunks` contiguous pieces (0: one per thread) and
    // returns when all are done. Exceptions thrown by fn are rethrown here (the first one).
    void parallel_for(size_t n, const std::function<void(size_t, size_t)>& fn, size_t chunks = 0);

    // Runs fn(i) for i in [0, tasks), each as its own task (for a few uneven tasks such as MSM windows).
    void run_tasks(size_t tasks, const std::function<void(size_t)>& fn);

    // While one lives on a thread, the parallel_for and run_tasks calls that thread makes are urgent: their
    // workers' turns go to the front of the queue, ahead of every queued call's (each worker still finishes the
    // task in hand first), and calls nested in their tasks are urgent too. For short work something waits for,
    // beside long work that fills the pool (the GPU prover's 0/1 split beside the next partitions' syntheses).
    class Urgent {
    public:
        Urgent();
        ~Urgent();
        Urgent(const Urgent&) = delete;
        Urgent& operator=(const Urgent&) = delete;
    };
    // Whether the calling thread is inside an Urgent scope.
    static bool urgent();

    // The process-wide pool. set_global_threads must be called before first use to take effect
    // (0 = std::thread::hardware_concurrency()).
    static ThreadPool& global();
    static void set_global_threads(size_t threads);

private:
    void worker_loop();
    std::vector<std::thread> workers_;
    std::deque<std::function<void()>> queue_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool stop_ = false;
};

// Gives the calling thread (and the threads it starts later) the nice value `nice` where that is above its own:
// a lower CPU priority, which an unprivileged process cannot take back. Linux only (there the nice value is per
// thread); elsewhere, and for nice <= 0, nothing. Returns whether it was set.
bool lower_thread_priority(int nice);
// The calling thread's nice value (Linux); 0 elsewhere.
int thread_nice();

// Shorthands on the global pool.
inline void parallel_for(size_t n, const std::function<void(size_t, size_t)>& fn, size_t chunks = 0) {
    ThreadPool::global().parallel_for(n, fn, chunks);
}
inline size_t num_threads() { return ThreadPool::global().size(); }

}  // namespace cuzk
