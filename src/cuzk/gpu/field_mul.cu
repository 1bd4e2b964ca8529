// Field multiplication on the GPU with the CPU's MontField code (constexpr, compiled for the device with
// --expt-relaxed-constexpr), so the constants and the algorithm have one source of truth.
#include "cuzk/gpu/cuda_check.cuh"
#include "cuzk/gpu/device.hpp"
#include "cuzk/gpu/dev_field.cuh"
#include "cuzk/gpu/mont32.cuh"

namespace cuzk::gpu {

namespace {

// The first usable device (gpu::devices()): "device 0" of the helpers below.
void use_first_device() {
    const auto devs = devices();
    CUZK_CUDA_CHECK(cudaSetDevice(devs.empty() ? 0 : devs.front().id));
}

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
    use_first_device();
    DeviceBuffer<F> d_a(n), d_b(n), d_out(n);
    CUZK_CUDA_CHECK(cudaMemcpy(d_a.get(), a.data(), n * sizeof(F), cudaMemcpyHostToDevice));
    CUZK_CUDA_CHECK(cudaMemcpy(d_b.get(), b.data(), n * sizeof(F), cudaMemcpyHostToDevice));
    unsigned threads = 256;
    unsigned blocks = (unsigned)((n + threads - 1) / threads);
    mul_kernel<F><<<blocks, threads>>>(d_a.get(), d_b.get(), d_out.get(), n);
    CUZK_CUDA_CHECK(cudaGetLastError());
    CUZK_CUDA_CHECK(cudaMemcpy(out.data(), d_out.get(), n * sizeof(F), cudaMemcpyDeviceToHost));
}

// The same values viewed as mont32_t (identical layout), kOps32 results per input pair.
constexpr size_t kOps32 = 8;
template <class Cfg>
__global__ void ops32_kernel(const mont32_t<Cfg>* a, const mont32_t<Cfg>* b, mont32_t<Cfg>* out, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    using O = field_ool<mont32_t<Cfg>>;
    const O x{a[i]}, y{b[i]};
    out[kOps32 * i] = (x * y).v;
    out[kOps32 * i + 1] = (x + y).v;
    out[kOps32 * i + 2] = (x - y).v;
    out[kOps32 * i + 3] = x.v.square();
    const O s = O::add_lazy(x, y), t = O::add_lazy(y, y);  // < 2p where the field allows lazy sums
    out[kOps32 * i + 4] = (s * t).v;
    out[kOps32 * i + 5] = s.square().v;
    out[kOps32 * i + 6] = mont32_t<Cfg>::mul_sub(x.v, y.v, s.v, t.v);
    out[kOps32 * i + 7] = mont32_t<Cfg>::mul_sub(s.v, t.v, x.v, y.v);
}

constexpr size_t kOpsFq2 = 3;
__global__ void fq2_ops_kernel(const fq2_dev_t* a, const fq2_dev_t* b, fq2_dev_t* out, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const fq2_dev_t x = a[i], y = b[i];
    out[kOpsFq2 * i] = x * y;
    fq2_dev_t p0, p1;
    fq2_dev_t::mul2(p0, p1, x, y, x + y, y);  // the point formulas' pairs
    out[kOpsFq2 * i + 1] = p0 - p1;
    out[kOpsFq2 * i + 2] = x.square();
}

template <class Cfg>
void ops32_on_device(std::span<const MontField<Cfg>> a, std::span<const MontField<Cfg>> b,
                     std::span<MontField<Cfg>> out) {
    using D = mont32_t<Cfg>;
    static_assert(sizeof(D) == sizeof(MontField<Cfg>));
    if (a.size() != b.size() || out.size() != kOps32 * a.size())
        throw std::invalid_argument("gpu ops32: out must hold 8 results per input pair");
    size_t n = a.size();
    if (n == 0) return;
    use_first_device();
    DeviceBuffer<D> d_a(n), d_b(n), d_out(kOps32 * n);
    CUZK_CUDA_CHECK(cudaMemcpy(d_a.get(), a.data(), n * sizeof(D), cudaMemcpyHostToDevice));
    CUZK_CUDA_CHECK(cudaMemcpy(d_b.get(), b.data(), n * sizeof(D), cudaMemcpyHostToDevice));
    unsigned threads = 256;
    ops32_kernel<Cfg><<<(unsigned)((n + threads - 1) / threads), threads>>>(d_a.get(), d_b.get(), d_out.get(), n);
    CUZK_CUDA_CHECK(cudaGetLastError());
    CUZK_CUDA_CHECK(cudaMemcpy(out.data(), d_out.get(), kOps32 * n * sizeof(D), cudaMemcpyDeviceToHost));
}

// A dependent chain of products (kOp 0), dedicated squarings (1) or squarings through the product (2); two
// independent chains of out-of-line products, one call each (3) or one call for both (4, field_ool::mul2): the
// point kernels' situation.
template <class T, int kOp>
__global__ void mul_chain_kernel(T* v, size_t chain) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    T x = v[i], y = v[i] + v[i];
    if constexpr (kOp >= 3) {
        using O = field_ool<T>;
        O a{x}, b{y}, c{y + x}, d{x};
        for (size_t k = 0; k < chain; k += 2) {
            if constexpr (kOp == 3) {
                a = {mul_out_of_line<T>(a.v, b.v)};
                c = {mul_out_of_line<T>(c.v, d.v)};
            } else {
                O::mul2(a, c, a, b, c, d);
            }
        }
        x = a.v + c.v;
    } else {
        for (size_t k = 0; k < chain; k++) {
            if constexpr (kOp == 0) x = x * y;
            else if constexpr (kOp == 1) x = x.square();
            else x = x.square_by_mul();
        }
    }
    v[i] = x;  // keeps the chain observable
}

template <class Cpu, class Dev, int kOp = 0>
double throughput(size_t threads, size_t chain) {
    use_first_device();
    std::vector<Cpu> h(threads);
    uint64_t s = 0x9e3779b97f4a7c15ULL;
    auto rng = [&] { return s = s * 6364136223846793005ULL + 1442695040888963407ULL; };
    for (auto& x : h) x = Cpu::random(rng);
    DeviceBuffer<Dev> d(threads);
    CUZK_CUDA_CHECK(cudaMemcpy(d.get(), h.data(), threads * sizeof(Dev), cudaMemcpyHostToDevice));
    const Event e0 = Event::create(), e1 = Event::create();
    unsigned block = 256;
    unsigned grid = (unsigned)(threads / block);
    mul_chain_kernel<Dev, kOp><<<grid, block>>>(d.get(), 16);  // warm-up
    CUZK_CUDA_CHECK(cudaGetLastError());
    CUZK_CUDA_CHECK(cudaEventRecord(e0.get()));
    mul_chain_kernel<Dev, kOp><<<grid, block>>>(d.get(), chain);
    CUZK_CUDA_CHECK(cudaEventRecord(e1.get()));
    CUZK_CUDA_CHECK(cudaEventSynchronize(e1.get()));
    float ms = 0;
    CUZK_CUDA_CHECK(cudaEventElapsedTime(&ms, e0.get(), e1.get()));
    return (double)grid * block * chain / (ms * 1e-3) / 1e9;
}

}  // namespace

double field_mul_throughput(bool fq, unsigned impl, size_t threads, size_t chain) {
    threads = threads / 256 * 256;
    if (threads == 0) throw std::invalid_argument("field_mul_throughput: at least 256 threads");
    if (impl > 5) throw std::invalid_argument("field_mul_throughput: impl is 0..5");
    if (fq) {
        switch (impl) {
            case 0: return throughput<Fq, Fq>(threads, chain);
            case 1: return throughput<Fq, mont32_t<FqConfig>, 0>(threads, chain);
            case 2: return throughput<Fq, mont32_t<FqConfig>, 1>(threads, chain);
            case 3: return throughput<Fq, mont32_t<FqConfig>, 2>(threads, chain);
            case 4: return throughput<Fq, mont32_t<FqConfig>, 3>(threads, chain);
            default: return throughput<Fq, mont32_t<FqConfig>, 4>(threads, chain);
        }
    }
    switch (impl) {
        case 0: return throughput<Fr, Fr>(threads, chain);
        case 1: return throughput<Fr, mont32_t<FrConfig>, 0>(threads, chain);
        case 2: return throughput<Fr, mont32_t<FrConfig>, 1>(threads, chain);
        case 3: return throughput<Fr, mont32_t<FrConfig>, 2>(threads, chain);
        case 4: return throughput<Fr, mont32_t<FrConfig>, 3>(threads, chain);
        default: return throughput<Fr, mont32_t<FrConfig>, 4>(threads, chain);
    }
}

void fr_ops32(std::span<const Fr> a, std::span<const Fr> b, std::span<Fr> out) {
    ops32_on_device<FrConfig>(a, b, out);
}
void fq_ops32(std::span<const Fq> a, std::span<const Fq> b, std::span<Fq> out) {
    ops32_on_device<FqConfig>(a, b, out);
}

void fq2_ops(std::span<const Fq2> a, std::span<const Fq2> b, std::span<Fq2> out) {
    static_assert(sizeof(fq2_dev_t) == sizeof(Fq2));
    if (a.size() != b.size() || out.size() != kOpsFq2 * a.size())
        throw std::invalid_argument("gpu fq2 ops: out must hold 3 results per input pair");
    const size_t n = a.size();
    if (n == 0) return;
    use_first_device();
    DeviceBuffer<fq2_dev_t> d_a(n), d_b(n), d_out(kOpsFq2 * n);
    CUZK_CUDA_CHECK(cudaMemcpy(d_a.get(), a.data(), n * sizeof(Fq2), cudaMemcpyHostToDevice));
    CUZK_CUDA_CHECK(cudaMemcpy(d_b.get(), b.data(), n * sizeof(Fq2), cudaMemcpyHostToDevice));
    const unsigned threads = 256;
    fq2_ops_kernel<<<(unsigned)((n + threads - 1) / threads), threads>>>(d_a.get(), d_b.get(), d_out.get(), n);
    CUZK_CUDA_CHECK(cudaGetLastError());
    CUZK_CUDA_CHECK(cudaMemcpy(out.data(), d_out.get(), kOpsFq2 * n * sizeof(Fq2), cudaMemcpyDeviceToHost));
}

void use_device(int id) { CUZK_CUDA_CHECK(cudaSetDevice(id)); }

void set_blocking_waits(bool on) {
    const auto list = devices();
    if (list.empty()) return;
    int current = 0;
    CUZK_CUDA_CHECK(cudaGetDevice(&current));
    for (const DeviceInfo& d : list) {
        CUZK_CUDA_CHECK(cudaSetDevice(d.id));
        CUZK_CUDA_CHECK(cudaSetDeviceFlags(on ? cudaDeviceScheduleBlockingSync : cudaDeviceScheduleAuto));
    }
    CUZK_CUDA_CHECK(cudaSetDevice(current));
}

bool blocking_waits() {
    if (devices().empty()) return false;
    unsigned flags = 0;
    CUZK_CUDA_CHECK(cudaGetDeviceFlags(&flags));
    return (flags & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync;
}

size_t free_device_memory() {
    size_t free_b = 0, total_b = 0;
    CUZK_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    return free_b;
}

#ifndef CUZK_CUDA_ARCHITECTURES  // set by CMakeLists.txt for the library; the PTX check's compile has no list
#define CUZK_CUDA_ARCHITECTURES ""  // not understood: covers every device (tests: CudaArchs.DevicesAre...)
#endif
const CudaArchs& built_cuda_archs() {
    static const CudaArchs archs = parse_cuda_archs(CUZK_CUDA_ARCHITECTURES);
    return archs;
}

namespace {
// Every device the driver lists (cudaGetDeviceProperties creates no context).
std::vector<DeviceInfo> listed_devices() {
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

bool runnable(const DeviceInfo& d) { return cuda_archs_cover(built_cuda_archs(), d.cc_major, d.cc_minor); }
}  // namespace

std::vector<DeviceInfo> devices() {
    std::vector<DeviceInfo> out;
    for (auto& d : listed_devices())
        if (runnable(d)) out.push_back(std::move(d));
    return out;
}

std::vector<UnusableDevice> unusable_devices() {
    std::vector<UnusableDevice> out;
    for (auto& d : listed_devices()) {
        if (runnable(d)) continue;
        const std::string cc = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
        const std::string sm = std::to_string(d.cc_major) + std::to_string(d.cc_minor);
        std::string why = "compute capability " + cc + ", and this build has code for " +
                          describe_cuda_archs(built_cuda_archs()) +
                          " only: build with -DCUZK_CUDA_ARCHS=portable (or " + sm + ")";
        out.push_back({std::move(d), std::move(why)});
    }
    return out;
}

void fr_mul(std::span<const Fr> a, std::span<const Fr> b, std::span<Fr> out) { mul_on_device(a, b, out); }
void fq_mul(std::span<const Fq> a, std::span<const Fq> b, std::span<Fq> out) { mul_on_device(a, b, out); }

}  // namespace cuzk::gpu
