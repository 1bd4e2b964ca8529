// The sparse products on the GPU: see products_gpu.hpp.
#include "cuzk/backends/cuda/products_gpu.hpp"

#include <future>
#include <stdexcept>
#include <string>

#include "cuzk/gpu/cuda_check.cuh"
#include "cuzk/gpu/dev_field.cuh"
#include "cuzk/gpu/device.hpp"
#include "cuzk/gpu/mont32.cuh"
#include "cuzk/gpu/pinned_upload.cuh"

namespace cuzk::gpu {

namespace {

static_assert(sizeof(r1cs::CompactTerm) == sizeof(uint2), "a term is (u32 variable, u32 coefficient index)");
static_assert(r1cs::Variable::kAuxBit == 0x80000000u);

// One matrix on the device: row j is terms[row_start[j], row_start[j + 1]).
struct DevMatrix {
    const uint64_t* row_start;
    const uint2* terms;
};

// sum coeff * z[var] over one row, with the CPU's dot_row rules (r1cs/pce.cpp): bit-identical sums.
__device__ __forceinline__ fr_dev dot_row(DevMatrix m, size_t j, const fr_dev* __restrict__ coeffs,
                                          const fr_dev* __restrict__ z, size_t num_inputs) {
    fr_dev acc = fr_dev::zero();
    const uint64_t end = m.row_start[j + 1];
    for (uint64_t t = m.row_start[j]; t < end; t++) {
        const uint2 term = m.terms[t];
        const size_t at = (term.x & 0x80000000u) ? num_inputs + (term.x & 0x7fffffffu) : term.x;
        const fr_dev v = z[at];
        if (term.y == 0) acc = acc + v;
        else if (v.is_zero()) continue;
        else if (v.is_one()) acc = acc + coeffs[term.y];
        else acc = acc + coeffs[term.y] * v;
    }
    return acc;
}

// One thread per domain element j: a, b, c of row j (zero beyond the rows), and the row check.
__global__ void sparse_products(DevMatrix ma, DevMatrix mb, DevMatrix mc, const fr_dev* __restrict__ coeffs,
                                const fr_dev* __restrict__ z, size_t num_inputs, size_t rows, size_t n,
                                fr_dev* __restrict__ a, fr_dev* __restrict__ b, fr_dev* __restrict__ c,
                                unsigned long long* first_bad) {
    const size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    if (j >= rows) {
        a[j] = b[j] = c[j] = fr_dev::zero();
        return;
    }
    const fr_dev va = dot_row(ma, j, coeffs, z, num_inputs);
    const fr_dev vb = dot_row(mb, j, coeffs, z, num_inputs);
    const fr_dev vc = dot_row(mc, j, coeffs, z, num_inputs);
    a[j] = va;
    b[j] = vb;
    c[j] = vc;
    if (va * vb != vc) atomicMin(first_bad, (unsigned long long)j);
}

constexpr unsigned kThreads = 256;

size_t matrix_bytes(const r1cs::CompactMatrix& m) {
    return m.row_start.size() * sizeof(uint64_t) + m.terms.size() * sizeof(r1cs::CompactTerm);
}

}  // namespace

struct DeviceMatrices::Impl {
    const r1cs::PrecompiledR1cs& pce;
    int device;
    size_t bytes;
    DeviceBuffer<Fr> coeffs;
    DeviceBuffer<uint64_t> row_start[3];
    DeviceBuffer<r1cs::CompactTerm> terms[3];
    std::shared_future<void> copied;  // the copy thread's end (its error)

    Impl(const r1cs::PrecompiledR1cs& p, int dev) : pce(p), device(dev), bytes(device_bytes(p)) {
        const r1cs::CompactMatrix* ms[3] = {&p.a, &p.b, &p.c};
        r1cs::check_matrix_shapes(p, "gpu products");
        use_device(dev);
        if (bytes > free_device_memory())
            throw CudaError("gpu products: the compiled matrices need " + std::to_string(bytes) +
                            " bytes of device memory, " + std::to_string(free_device_memory()) + " are free");
        coeffs = DeviceBuffer<Fr>(p.coeffs.size());
        for (int k = 0; k < 3; k++) {
            row_start[k] = DeviceBuffer<uint64_t>(ms[k]->row_start.size());
            terms[k] = DeviceBuffer<r1cs::CompactTerm>(ms[k]->terms.size());
        }
        copied = std::async(std::launch::async, [this, ms] {
                     use_device(device);
                     // An uploader of its own: the copy must not hold up the MSMs' uploads (the shared one serves
                     // one caller at a time).
                     PinnedUploader up;
                     Stream st = Stream::create();
                     up.upload(coeffs.get(), pce.coeffs.data(), pce.coeffs.size() * sizeof(Fr), st.get());
                     for (int k = 0; k < 3; k++) {
                         up.upload(row_start[k].get(), ms[k]->row_start.data(),
                                   ms[k]->row_start.size() * sizeof(uint64_t), st.get());
                         up.upload(terms[k].get(), ms[k]->terms.data(),
                                   ms[k]->terms.size() * sizeof(r1cs::CompactTerm), st.get());
                     }
                     CUZK_CUDA_CHECK(cudaStreamSynchronize(st.get()));
                 }).share();
    }
    ~Impl() {
        if (copied.valid()) copied.wait();  // the copy reads pce and writes the buffers
    }
};

size_t DeviceMatrices::device_bytes(const r1cs::PrecompiledR1cs& pce) {
    return pce.coeffs.size() * sizeof(Fr) + matrix_bytes(pce.a) + matrix_bytes(pce.b) + matrix_bytes(pce.c);
}

DeviceMatrices::DeviceMatrices(const r1cs::PrecompiledR1cs& pce, int device)
    : impl_(std::make_unique<Impl>(pce, device)) {}
DeviceMatrices::~DeviceMatrices() = default;
const r1cs::PrecompiledR1cs& DeviceMatrices::source() const { return impl_->pce; }
void DeviceMatrices::wait_copied() const { impl_->copied.get(); }
int DeviceMatrices::device() const { return impl_->device; }
size_t DeviceMatrices::bytes() const { return impl_->bytes; }

void DeviceMatrices::evaluate(const Fr* d_z, Fr* d_a, Fr* d_b, Fr* d_c, size_t n, unsigned long long* d_first_bad,
                              CUstream_st* stream) const {
    const r1cs::PrecompiledR1cs& p = impl_->pce;
    if (n < p.num_constraints)
        throw std::invalid_argument("gpu products: " + std::to_string(p.num_constraints) + " rows for a domain of " +
                                    std::to_string(n));
    impl_->copied.get();  // waits for the copy; rethrows its error
    if (n == 0) return;
    auto dm = [&](int k) {
        return DevMatrix{impl_->row_start[k].get(), reinterpret_cast<const uint2*>(impl_->terms[k].get())};
    };
    const unsigned blocks = (unsigned)((n + kThreads - 1) / kThreads);
    sparse_products<<<blocks, kThreads, 0, stream>>>(
        dm(0), dm(1), dm(2), reinterpret_cast<const fr_dev*>(impl_->coeffs.get()),
        reinterpret_cast<const fr_dev*>(d_z), p.num_inputs, p.num_constraints, n, reinterpret_cast<fr_dev*>(d_a),
        reinterpret_cast<fr_dev*>(d_b), reinterpret_cast<fr_dev*>(d_c), d_first_bad);
    CUZK_CUDA_CHECK(cudaGetLastError());
}

}  // namespace cuzk::gpu
