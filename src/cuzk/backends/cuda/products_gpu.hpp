// The sparse products of the pre-compiled evaluator (r1cs/pce.hpp) on the GPU: the compiled matrices A, B, C live
// on the device, and per proof only the witness z = (inputs, aux) goes up (4 GB for a 32 GiB PoRep partition)
// instead of a, b, c (12.9 GB), which are computed where H needs them (HComputer's witness form, h_gpu.hpp).
//
// Row j of a is sum coeff * z[var] over A's row j, with the CPU's evaluate() rules (a coefficient of one adds the
// value, a value of 0 adds nothing and of 1 adds the coefficient), so a, b, c are bit-identical to the CPU's; the
// kernel also checks a_j * b_j == c_j on every row, as the CPU's check_rows does.
//
// No CUDA headers here. Errors: gpu::CudaError when the matrices do not fit (checked before anything is
// allocated: device_bytes) or the device fails; std::invalid_argument for matrices that are not well formed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "cuzk/ff/fr.hpp"
#include "cuzk/r1cs/pce.hpp"

struct CUstream_st;

namespace cuzk::gpu {

class DeviceMatrices {
public:
    // Device bytes the matrices of `pce` take there (coefficients, row starts, terms).
    static size_t device_bytes(const r1cs::PrecompiledR1cs& pce);

    // Allocates room for the matrices of `pce` on `device` and copies them there on a thread of its own (the
    // constructor returns once the room is allocated; evaluate() waits for the copy). `pce` must outlive this.
    DeviceMatrices(const r1cs::PrecompiledR1cs& pce, int device);
    ~DeviceMatrices();
    DeviceMatrices(const DeviceMatrices&) = delete;
    DeviceMatrices& operator=(const DeviceMatrices&) = delete;

    const r1cs::PrecompiledR1cs& source() const;
    // Returns once the copy to the device is done; rethrows its error.
    void wait_copied() const;
    int device() const;
    size_t bytes() const;

    // Queues on `stream` (after the matrices' copy, whose error it rethrows): d_a, d_b, d_c (n elements each: the
    // rows, then zeros) from d_z (num_inputs + num_aux elements, inputs first), and into *d_first_bad the lowest
    // row with a_j * b_j != c_j, if below its value (the caller sets it to UINT64_MAX first). n >= the rows
    // (std::invalid_argument otherwise). Device pointers of the current device, which must be this one's.
    void evaluate(const Fr* d_z, Fr* d_a, Fr* d_b, Fr* d_c, size_t n, unsigned long long* d_first_bad,
                  CUstream_st* stream) const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace cuzk::gpu
