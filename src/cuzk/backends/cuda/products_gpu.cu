// The sparse products on the GPU: see products_gpu.hpp.
#include "cuzk/backends/cuda/products_gpu.hpp"

#include <future>
#include <stdexcept>
#include <string>

#include "cuzk/gpu/cuda_check.cuh"
#include "cuzk/gpu/dev_field.cuh"
#include "cuzk/gpu/device.hpp"
#include "cuzk/gpu/mont32.cuh"
#include "cuzk/gpu/msm_point.cuh"
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

// Rows of at most this many terms are summed by their own thread; longer ones by the whole warp. A PoRep
// partition's rows are mostly 1-3 terms a matrix, but its packing rows (sums of a value's bits, Poseidon's rounds)
// run to 233-1281 terms: one such row among a warp's 32 held the other 31 lanes for its whole length (2 KiB PoRep:
// the warps' longest rows summed to 8x the terms).
constexpr uint64_t kShortRow = 8;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr unsigned kThreads = 256;

// coeff * z[var] for one term, with the CPU's dot_row rules (r1cs/pce.cpp): a coefficient of one adds the value, a
// value of 0 adds nothing and of 1 adds the coefficient, so the sums are bit-identical.
__device__ __forceinline__ void add_term(fr_dev& acc, uint2 term, const fr_dev* __restrict__ coeffs,
                                         const fr_dev* __restrict__ z, size_t num_inputs) {
    const size_t at = (term.x & 0x80000000u) ? num_inputs + (term.x & 0x7fffffffu) : term.x;
    const fr_dev v = z[at];
    if (term.y == 0) acc = acc + v;
    else if (v.is_zero()) return;
    else if (v.is_one()) acc = acc + coeffs[term.y];
    else acc = acc + coeffs[term.y] * v;
}

// Row j's sum in lane j's acc: short rows by their lane, then each long row of the warp by all 32 lanes (terms
// strided over the lanes, the partial sums added by a butterfly; the field sum does not depend on the order). Every
// lane of the warp calls it (lanes past the rows with start = end).
__device__ __forceinline__ fr_dev warp_dot_rows(const uint2* __restrict__ terms, uint64_t start, uint64_t end,
                                                const fr_dev* __restrict__ coeffs, const fr_dev* __restrict__ z,
                                                size_t num_inputs) {
    const unsigned lane = threadIdx.x % 32;
    const bool is_long = end - start > kShortRow;
    fr_dev acc = fr_dev::zero();
    if (!is_long)
        for (uint64_t t = start; t < end; t++) add_term(acc, terms[t], coeffs, z, num_inputs);
    for (unsigned longs = __ballot_sync(kFullMask, is_long); longs; longs &= longs - 1) {
        const unsigned owner = __ffs(longs) - 1;
        const uint64_t s = __shfl_sync(kFullMask, start, owner), e = __shfl_sync(kFullMask, end, owner);
        fr_dev part = fr_dev::zero();
        for (uint64_t t = s + lane; t < e; t += 32) add_term(part, terms[t], coeffs, z, num_inputs);
#pragma unroll
        for (unsigned m = 16; m; m >>= 1) {
            const auto lane_xor_m = [m](uint32_t x) { return __shfl_xor_sync(kFullMask, x, m); };
            part = part + msm_detail::shuffle_words(part, lane_xor_m);
        }
        if (lane == owner) acc = part;
    }
    return acc;
}

// One thread per domain element j: a, b, c of row j (zero beyond the rows), and the row check. No lane leaves
// before the warp's long rows are summed. Three blocks per SM (80 registers, no spills; 86 and two blocks without
// the bound). A 32 GiB PoRep partition on an H100 (`cuzk bench gpu-products --circuit porep-32g`): 53.3 ms with a
// thread per row whatever its length, 22.9 ms with the warps' long rows, 20.0 ms with the bound (docs/perf.md).
__global__ void __launch_bounds__(kThreads, 3)
    sparse_products(DevMatrix ma, DevMatrix mb, DevMatrix mc, const fr_dev* __restrict__ coeffs,
                    const fr_dev* __restrict__ z, size_t num_inputs, size_t rows, size_t n, fr_dev* __restrict__ a,
                    fr_dev* __restrict__ b, fr_dev* __restrict__ c, unsigned long long* first_bad) {
    const size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const bool row = j < rows;
    fr_dev v[3];
    const DevMatrix ms[3] = {ma, mb, mc};
#pragma unroll
    for (int k = 0; k < 3; k++) {
        const uint64_t start = row ? ms[k].row_start[j] : 0, end = row ? ms[k].row_start[j + 1] : 0;
        v[k] = warp_dot_rows(ms[k].terms, start, end, coeffs, z, num_inputs);
    }
    if (j >= n) return;
    a[j] = v[0];
    b[j] = v[1];
    c[j] = v[2];
    if (row && v[0] * v[1] != v[2]) atomicMin(first_bad, (unsigned long long)j);
}

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
