// Frees big buffers off the hot path (ARCHITECTURE.md: "the caller never waits on a free"). A prover hands over
// an assignment's vectors (hundreds of MB to GB each at Filecoin sizes: freeing returns pages to the kernel, which
// the seed pipeline measured at ~10 s per batch); one background thread destroys them and accounts the time.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace cuzk {

// Hands the whole pages inside [p, p + bytes) back to the kernel (Linux: madvise MADV_DONTNEED), a slice of
// kReleaseSliceBytes at a time; they read as zeros afterwards. For memory about to be freed: unmapping a block of
// GBs in one munmap holds the process's address-space lock for its whole duration (measured on the dev machine:
// 6 GB, 447 ms), and every mmap meanwhile waits, on any thread, including the CUDA driver's calls on the GPU
// prover's launch threads (the H200 timelines showed the GPU idle for 160-900 ms behind such frees). Slices let
// those calls in between (worst wait measured: 37 ms with 64 MiB slices). Bytes outside whole pages (where an
// allocator keeps its headers) are never touched; errors (pinned or locked memory) are ignored. Elsewhere: nothing.
inline constexpr size_t kReleaseSliceBytes = size_t{16} << 20;
void release_pages(void* p, size_t bytes);

class Deallocator {
public:
    Deallocator();
    // Frees everything still queued, then joins.
    ~Deallocator();
    Deallocator(const Deallocator&) = delete;
    Deallocator& operator=(const Deallocator&) = delete;

    // The process's deallocator, for code without one of its own (the provers' big temporaries).
    static Deallocator& global();

    // Takes ownership of v's block (v is left empty) and frees it on the background thread. A block of plain
    // values gives its pages back in slices first (release_pages), so that the final free has nothing left to unmap.
    template <class T, class A>
    void defer(std::vector<T, A>& v) {
        const size_t bytes = v.capacity() * sizeof(T);
        if (bytes == 0) return;
        auto holder = std::make_shared<std::vector<T, A>>(std::move(v));
        v = std::vector<T, A>();
        push(bytes, [holder, bytes]() mutable {
            if constexpr (std::is_trivially_destructible_v<T>) release_pages(holder->data(), bytes);
            std::vector<T, A>().swap(*holder);
        });
    }
    // Any other object: destroyed on the background thread.
    template <class T>
    void defer_object(std::unique_ptr<T> p, size_t bytes) {
        if (!p) return;
        std::shared_ptr<T> holder(std::move(p));
        push(bytes, [holder]() mutable { holder.reset(); });
    }

    // Blocks until everything handed over so far has been freed.
    void drain();

    struct Stats {
        size_t buffers = 0;      // handed over and freed
        size_t bytes = 0;        // their capacity in bytes
        double free_seconds = 0; // time the background thread spent freeing: what the hot path saved
        size_t pending = 0;      // handed over and not yet freed
    };
    Stats stats() const;

private:
    void push(size_t bytes, std::function<void()> fn);
    void loop();

    mutable std::mutex mu_;
    std::condition_variable cv_, idle_cv_;
    std::deque<std::pair<size_t, std::function<void()>>> queue_;
    bool stop_ = false;
    size_t busy_ = 0;
    Stats stats_;
    std::thread thread_;
};

}  // namespace cuzk
