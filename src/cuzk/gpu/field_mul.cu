// Field multiplication on the GPU with the CPU's MontField code (constexpr, compiled for the device with
// --expt-relaxed-constexpr), so the constants and the algorithm have one source of truth.
#include "cuzk/gpu/cuda_check.cuh"
#include "cuzk/gpu/device.hpp"

namespace cuzk::gpu {

namespace {

template <class F>
__global__ void mul_kernel(const F* a, const F* b, F* out, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] * b[i];
}

template <class F>
void mul_on_device(std::span<const F> a, std::span<const F> b, std::span<F> out) {
    if (a.size() != b.size() || a.size() != out.size())
        throw std::invalid_argument("gpu mul: input and output sizes differ");
    size_t n = a.size();
    if (n == 0) return;
    CUZK_CUDA_CHECK(cudaSetDevice(0));
    DeviceBuffer<F> d_a(n), d_b(n), d_out(n);
    CUZK_CUDA_CHECK(cudaMemcpy(d_a.get(), a.data(), n * sizeof(F), cudaMemcpyHostToDevice));
    CUZK_CUDA_CHECK(cudaMemcpy(d_b.get(), b.data(), n * sizeof(F), cudaMemcpyHostToDevice));
    unsigned threads = 256;
    unsigned blocks = (unsigned)((n + threads - 1) / threads);
    mul_kernel<F><<<blocks, threads>>>(d_a.get(), d_b.get(), d_out.get(), n);
    CUZK_CUDA_CHECK(cudaGetLastError());
    CUZK_CUDA_CHECK(cudaMemcpy(out.data(), d_out.get(), n * sizeof(F), cudaMemcpyDeviceToHost));
}

}  // namespace

std::vector<DeviceInfo> devices() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();  // clear the sticky "no device / no driver" error
        return {};
    }
    std::vector<DeviceInfo> out;
    for (int i = 0; i < count; i++) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
        DeviceInfo d;
        d.id = i;
        d.name = prop.name;
        d.total_memory = prop.totalGlobalMem;
        d.sm_count = prop.multiProcessorCount;
        d.cc_major = prop.major;
        d.cc_minor = prop.minor;
        out.push_back(d);
    }
    return out;
}

void fr_mul(std::span<const Fr> a, std::span<const Fr> b, std::span<Fr> out) { mul_on_device(a, b, out); }
void fq_mul(std::span<const Fq> a, std::span<const Fq> b, std::span<Fq> out) { mul_on_device(a, b, out); }

}  // namespace cuzk::gpu
