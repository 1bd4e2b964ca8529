// Every CUDA runtime call goes through CUZK_CUDA_CHECK: a failure becomes a gpu::CudaError naming the call and
// where it was made, in every build type.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "cuzk/gpu/device.hpp"

#define CUZK_CUDA_CHECK(expr)                                                                                  \
    do {                                                                                                       \
        cudaError_t cuzk_err_ = (expr);                                                                        \
        if (cuzk_err_ != cudaSuccess)                                                                          \
            throw ::cuzk::gpu::CudaError(std::string(#expr) + " failed at " + __FILE__ + ":" +                \
                                         std::to_string(__LINE__) + ": " + cudaGetErrorString(cuzk_err_));    \
    } while (0)

namespace cuzk::gpu {

// Owners of device resources (sppark's gpu_t / dev_ptr_t are the model): each holds one buffer, stream or event,
// releases it in its destructor (which never throws: the error code is dropped there), and is movable, not
// copyable; a moved-from or default-constructed owner holds nothing. Move assignment releases what the target held,
// after the right side was made: `buf = DeviceBuffer<T>(n)` holds both allocations for a moment, so where the peak
// matters, reset() first. reset() releases now and returns the CUDA status, for callers that want the failure
// (CUZK_CUDA_CHECK(buf.reset())). No implicit conversions: get() hands out the raw handle.
//
// Order: a Stream synchronizes before it is destroyed, and an object that holds both declares its Streams after the
// buffers and events their work uses, so that the streams are drained and destroyed first. A function-local
// buffer that work on a longer-lived stream uses is synchronized explicitly on the normal path; on an exception
// path it relies on cudaFree waiting for the device's queued work (implicit synchronization).

// One handle owned: Release::free(h) gives it back (its CUDA status); H{} is "none".
template <class H, class Release>
class UniqueHandle {
public:
    UniqueHandle() noexcept = default;
    explicit UniqueHandle(H h) noexcept : h_(h) {}
    ~UniqueHandle() { (void)reset(); }
    UniqueHandle(UniqueHandle&& o) noexcept : h_(std::exchange(o.h_, H{})) {}
    UniqueHandle& operator=(UniqueHandle&& o) noexcept {
        if (this != &o) {
            (void)reset();
            h_ = std::exchange(o.h_, H{});
        }
        return *this;
    }
    UniqueHandle(const UniqueHandle&) = delete;
    UniqueHandle& operator=(const UniqueHandle&) = delete;

    // Releases the handle now (the owner is then empty); the release's status.
    cudaError_t reset() noexcept {
        if (h_ == H{}) return cudaSuccess;
        const cudaError_t e = Release::free(h_);
        h_ = H{};
        return e;
    }
    H get() const noexcept { return h_; }
    explicit operator bool() const noexcept { return h_ != H{}; }

private:
    H h_{};
};

struct DeviceFree {
    static cudaError_t free(void* p) noexcept { return cudaFree(p); }
};
struct PinnedFree {
    static cudaError_t free(void* p) noexcept { return cudaFreeHost(p); }
};
// A stream waits for its queued work before it is destroyed; the first failing status.
struct StreamRelease {
    static cudaError_t free(cudaStream_t s) noexcept {
        const cudaError_t sync = cudaStreamSynchronize(s);
        const cudaError_t destroy = cudaStreamDestroy(s);
        return sync != cudaSuccess ? sync : destroy;
    }
};
struct EventRelease {
    static cudaError_t free(cudaEvent_t e) noexcept { return cudaEventDestroy(e); }
};

// n elements of T from `alloc` (n == 0: nothing allocated, get() == nullptr), given back by Release.
template <class T, class Release>
class OwnedArray {
public:
    OwnedArray() noexcept = default;
    OwnedArray(OwnedArray&& o) noexcept : p_(std::move(o.p_)), n_(std::exchange(o.n_, 0)) {}
    OwnedArray& operator=(OwnedArray&& o) noexcept {
        if (this != &o) {
            p_ = std::move(o.p_);
            n_ = std::exchange(o.n_, 0);
        }
        return *this;
    }
    cudaError_t reset() noexcept {
        n_ = 0;
        return p_.reset();
    }
    T* get() const noexcept { return static_cast<T*>(p_.get()); }
    size_t size() const noexcept { return n_; }
    explicit operator bool() const noexcept { return bool(p_); }

protected:
    OwnedArray(void* p, size_t n) noexcept : p_(p), n_(n) {}

private:
    UniqueHandle<void*, Release> p_;
    size_t n_ = 0;
};

// Device memory for n elements of T (cudaMalloc).
template <class T>
class DeviceBuffer : public OwnedArray<T, DeviceFree> {
public:
    DeviceBuffer() noexcept = default;
    explicit DeviceBuffer(size_t n) : OwnedArray<T, DeviceFree>(alloc(n), n) {}

private:
    static void* alloc(size_t n) {
        void* p = nullptr;
        if (n) CUZK_CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
        return p;
    }
};

// Page-locked host memory for n elements of T (portable: pinned for every device): copies from it run at full PCIe
// speed and asynchronously.
template <class T>
class PinnedBuffer : public OwnedArray<T, PinnedFree> {
public:
    PinnedBuffer() noexcept = default;
    explicit PinnedBuffer(size_t n) : OwnedArray<T, PinnedFree>(alloc(n), n) {}

private:
    static void* alloc(size_t n) {
        void* p = nullptr;
        if (n) CUZK_CUDA_CHECK(cudaHostAlloc(&p, n * sizeof(T), cudaHostAllocPortable));
        return p;
    }
};

// A CUDA stream of the current device. Stream() holds none (get() == nullptr would be the legacy default stream:
// never launch on an empty owner); Stream::create() makes one, non-blocking by default (no implicit
// synchronization with the legacy default stream), at the default priority unless `priority` names another
// (CUDA's scale: lower numbers first; highest_stream_priority()). Destroying or resetting it waits for its queued
// work first.
class Stream : public UniqueHandle<cudaStream_t, StreamRelease> {
public:
    Stream() noexcept = default;
    static Stream create(unsigned flags = cudaStreamNonBlocking, int priority = 0) {
        cudaStream_t s = nullptr;
        CUZK_CUDA_CHECK(cudaStreamCreateWithPriority(&s, flags, priority));
        return Stream(s);
    }

private:
    explicit Stream(cudaStream_t s) noexcept : UniqueHandle(s) {}
};

// The current device's highest stream priority (CUDA's "greatest", a number at most 0): where several streams'
// kernels wait for SMs, the blocks of a stream of this priority are started before those of default streams.
inline int highest_stream_priority() {
    int least = 0, greatest = 0;
    CUZK_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    return greatest;
}

// A CUDA event of the current device. Event() holds none; Event::create(flags) makes one (cudaEventDefault: with
// timing; cudaEventDisableTiming for pure ordering).
class Event : public UniqueHandle<cudaEvent_t, EventRelease> {
public:
    Event() noexcept = default;
    static Event create(unsigned flags = cudaEventDefault) {
        cudaEvent_t e = nullptr;
        CUZK_CUDA_CHECK(cudaEventCreateWithFlags(&e, flags));
        return Event(e);
    }

private:
    explicit Event(cudaEvent_t e) noexcept : UniqueHandle(e) {}
};

// Whether p points into page-locked host memory (cudaMallocHost / cudaHostRegister).
inline bool is_pinned_host(const void* p) {
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        (void)cudaGetLastError();  // plain pageable memory can report an error on old drivers: clear it
        return false;
    }
    return attr.type == cudaMemoryTypeHost;
}

}  // namespace cuzk::gpu
