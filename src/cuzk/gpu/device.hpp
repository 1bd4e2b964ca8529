// Host-side view of the CUDA devices (no CUDA headers here, so CPU code can include it).
// Built into the cuzk_cuda library only when CUDA is enabled; code that uses it is guarded by CUZK_HAVE_CUDA.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/ff/fq.hpp"
#include "cuzk/ff/fr.hpp"

namespace cuzk::gpu {

// A failed CUDA call: the expression, file:line and the driver's message.
struct CudaError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct DeviceInfo {
    int id = 0;
    std::string name;
    size_t total_memory = 0;
    int sm_count = 0;
    int cc_major = 0, cc_minor = 0;
};

// The usable devices; empty when there is no GPU or no driver (never throws for that).
std::vector<DeviceInfo> devices();

// Element-wise products out[i] = a[i] * b[i] computed on device 0 by the same MontField code the CPU runs
// (compiled for the GPU); the first CUDA translation unit and the seed of the GPU-vs-CPU checks.
void fr_mul(std::span<const Fr> a, std::span<const Fr> b, std::span<Fr> out);
void fq_mul(std::span<const Fq> a, std::span<const Fq> b, std::span<Fq> out);

}  // namespace cuzk::gpu
