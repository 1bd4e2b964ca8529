// Every CUDA runtime call goes through CUZK_CUDA_CHECK: a failure becomes a gpu::CudaError naming the call and
// where it was made, in every build type.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "cuzk/gpu/device.hpp"

#define CUZK_CUDA_CHECK(expr)                                                                                  \
    do {                                                                                                       \
        cudaError_t cuzk_err_ = (expr);                                                                        \
        if (cuzk_err_ != cudaSuccess)                                                                          \
            throw ::cuzk::gpu::CudaError(std::string(#expr) + " failed at " + __FILE__ + ":" +                \
                                         std::to_string(__LINE__) + ": " + cudaGetErrorString(cuzk_err_));    \
    } while (0)

namespace cuzk::gpu {

// Device memory owned by one object; freed when it goes out of scope.
template <class T>
class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t n) : n_(n) {
        if (n) CUZK_CUDA_CHECK(cudaMalloc(&p_, n * sizeof(T)));
    }
    ~DeviceBuffer() {
        if (p_) cudaFree(p_);
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    T* get() const { return p_; }
    size_t size() const { return n_; }

private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

// Page-locked host memory owned by one object (portable: pinned for every device): copies from it run at full
// PCIe speed and asynchronously.
template <class T>
class PinnedBuffer {
public:
    explicit PinnedBuffer(size_t n) : n_(n) {
        if (n) CUZK_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&p_), n * sizeof(T), cudaHostAllocPortable));
    }
    ~PinnedBuffer() {
        if (p_) cudaFreeHost(p_);
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    T* get() const { return p_; }
    size_t size() const { return n_; }

private:
    T* p_ = nullptr;
    size_t n_ = 0;
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
