// Host-side view of the CUDA devices (no CUDA headers here, so CPU code can include it).
// Built into the cuzk_cuda library only when CUDA is enabled; code that uses it is guarded by CUZK_HAVE_CUDA.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/ff/fq.hpp"
#include "cuzk/ff/fq2.hpp"
#include "cuzk/ff/fr.hpp"
#include "cuzk/gpu/arch.hpp"

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

// The usable devices: those this build has code for (built_cuda_archs()); empty when there is none, no GPU or no
// driver (never throws for that). Indices into this list are the GPU ordinals of the engine and the daemon.
std::vector<DeviceInfo> devices();
// The devices the driver lists that this build cannot run (compute capability not covered), each with why.
struct UnusableDevice {
    DeviceInfo info;
    std::string why;
};
std::vector<UnusableDevice> unusable_devices();
// The architectures the CUDA code was built for (CMake's CUDA_ARCHITECTURES, set by CUZK_CUDA_ARCHS).
const CudaArchs& built_cuda_archs();

// Makes `id` the calling thread's current CUDA device (cudaSetDevice); gpu::CudaError if it fails.
void use_device(int id);
// How a host thread waits for every usable device (the process's setting, cudaSetDeviceFlags): on, it sleeps until
// the device's work is done (cudaDeviceScheduleBlockingSync); off, the driver's default (with fewer contexts than
// cores: it spins, a core each waiting thread, which the prover's syntheses and splits then share). No-op without a
// device. blocking_waits(): the current device's setting.
void set_blocking_waits(bool on);
bool blocking_waits();
// Free memory of the calling thread's current device in bytes (cudaMemGetInfo).
size_t free_device_memory();

// Element-wise products out[i] = a[i] * b[i] computed on the first usable device by the same MontField code the CPU
// runs (compiled for the GPU); the first CUDA translation unit and the seed of the GPU-vs-CPU checks.
void fr_mul(std::span<const Fr> a, std::span<const Fr> b, std::span<Fr> out);
void fq_mul(std::span<const Fq> a, std::span<const Fq> b, std::span<Fq> out);

// The 32-bit-limb PTX arithmetic (mont32.cuh, through dev_field.cuh's wrapper) on the first usable device: for
// each i, out[8i..8i+7] = a*b, a+b, a-b, a^2 (the dedicated squaring), (a+b)(2b), (a+b)^2, a*b - (a+b)(2b) and
// (a+b)(2b) - a*b (the last two by mul_sub, one reduction) with the sums a+b and 2b left unreduced (< 2p) where the
// field allows lazy sums (Fq). Used by the tests to check it against the CPU.
void fr_ops32(std::span<const Fr> a, std::span<const Fr> b, std::span<Fr> out);
void fq_ops32(std::span<const Fq> a, std::span<const Fq> b, std::span<Fq> out);
// Fq2 as the G2 MSM computes it (dev_field.cuh's fq2_dev over the PTX field): out[3i..3i+2] = a*b (the lazy
// product: two reductions), a*b - (a+b)*b (the products paired as in the point formulas) and a^2.
void fq2_ops(std::span<const Fq2> a, std::span<const Fq2> b, std::span<Fq2> out);

// Multiplication throughput on the first usable device (giga-operations per second): every thread runs a dependent
// chain of `chain` operations on its own random element. impl: 0 = products by the CPU MontField code compiled for the
// device, 1 = products by the PTX arithmetic (mont32.cuh), 2 = its dedicated squarings, 3 = its squarings through
// the product, 4 = two independent chains of its products each through an out-of-line call, 5 = the same two
// chains through one out-of-line call for both (field_ool::mul2). For choosing the field implementation; timed
// with CUDA events.
double field_mul_throughput(bool fq, unsigned impl, size_t threads, size_t chain);

}  // namespace cuzk::gpu
