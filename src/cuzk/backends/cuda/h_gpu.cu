// Groth16's H on the GPU: see h_gpu.hpp. Composed of the device NTT (gpu/ntt.hpp, bit-identical to the CPU's) and
// element-wise kernels on one stream; every array stays on the device between the steps.
#include "cuzk/backends/cuda/h_gpu.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "cuzk/backends/cuda/witness_pack.hpp"
#include "cuzk/gpu/cuda_check.cuh"
#include "cuzk/gpu/kernel_timer.cuh"
#include "cuzk/gpu/pinned_upload.cuh"
#include "cuzk/gpu/dev_field.cuh"
#include "cuzk/gpu/mont32.cuh"
#include "cuzk/gpu/ntt.hpp"
#include "cuzk/groth16/prover.hpp"
#include "cuzk/poly/domain.hpp"
#include "cuzk/r1cs/constraint_system.hpp"

namespace cuzk::gpu {

namespace {


constexpr unsigned kThreads = 256;
unsigned blocks_for(size_t n) { return (unsigned)((n + kThreads - 1) / kThreads); }

// a[i] = a[i] b[i] - c[i] (snarkjs: H's values on the odd coset are the MSM's scalars).
__global__ void ab_minus_c(fr_dev* __restrict__ a, const fr_dev* __restrict__ b, const fr_dev* __restrict__ c,
                           size_t n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    a[i] = a[i] * b[i] - c[i];
}

// z[i] = 1 where bit i of `ones` is set, else 0 (a packed witness's zeros and ones, witness_pack.hpp).
__global__ void expand_ones(fr_dev* __restrict__ z, const uint64_t* __restrict__ ones, size_t n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    z[i] = (ones[i >> 6] >> (i & 63)) & 1 ? fr_dev::one() : fr_dev::zero();
}

// z[idx[t]] = val[t] (a packed witness's other values, after expand_ones).
__global__ void scatter_values(fr_dev* __restrict__ z, const uint32_t* __restrict__ idx,
                               const fr_dev* __restrict__ val, size_t k) {
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= k) return;
    z[idx[t]] = val[t];
}

// out[(e j) mod n] = in[j] (scatter) or out[j] = in[(e j) mod n] (gather); n a power of two, e odd.
__global__ void permute_by_exponent(const fr_dev* __restrict__ in, fr_dev* __restrict__ out, size_t n, uint64_t e,
                                    bool scatter) {
    const size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    const size_t k = (size_t)((e * (uint64_t)j) & (uint64_t)(n - 1));
    if (scatter) out[k] = in[j];
    else out[j] = in[k];
}

// x[k] *= s^k, s^k = lo[k mod 2^h] * hi[k >> h].
__global__ void scale_by_powers(fr_dev* __restrict__ x, size_t n, const fr_dev* __restrict__ lo,
                                const fr_dev* __restrict__ hi, unsigned h) {
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    x[k] = x[k] * (lo[k & ((size_t{1} << h) - 1)] * hi[k >> h]);
}

size_t powers_half(unsigned log_n) { return (log_n + 1) / 2; }

// 2^log_n, or std::invalid_argument beyond what the GPU NTT supports.
size_t domain_size(unsigned log_n) {
    if (log_n > NTT_MAX_LOG_SIZE)
        throw std::invalid_argument("gpu compute_h: 2^" + std::to_string(log_n) + " exceeds the GPU NTT's 2^" +
                                    std::to_string(NTT_MAX_LOG_SIZE));
    return size_t{1} << log_n;
}

}  // namespace

size_t h_gpu_device_bytes(unsigned log_n, groth16::HConvention convention, bool lean) {
    const size_t n = domain_size(log_n);
    size_t arrays = (lean ? 2 : 3) + (ntt_scratch_elements(log_n, lean) ? 1 : 0);
    size_t tables = 0;
    if (convention == groth16::HConvention::Snarkjs) {
        arrays += 1;  // the gather buffer
        tables = ((size_t{1} << powers_half(log_n)) + (size_t{1} << (log_n - powers_half(log_n)))) * sizeof(Fr);
    }
    return arrays * n * sizeof(Fr) + tables + ntt_twiddle_bytes();
}

size_t h_gpu_length(unsigned log_n, groth16::HConvention convention) {
    const size_t n = domain_size(log_n);
    return convention == groth16::HConvention::Bellman ? n - 1 : n;
}

std::vector<Fr> compute_h_gpu(unsigned log_n, std::span<const Fr> a, std::span<const Fr> b, std::span<const Fr> c,
                              groth16::HConvention convention) {
    std::vector<Fr> h(h_gpu_length(log_n, convention));
    compute_h_gpu(log_n, a, b, c, h, convention);
    return h;
}

struct HComputer::Impl {
    unsigned log_n;
    bool lean;  // C in B's array (h_gpu.hpp)
    size_t n;
    groth16::HConvention convention;
    EvaluationDomain domain;
    PinnedUploader uploader;  // its own staging: the MSMs' uploads use the shared one meanwhile
    std::unique_ptr<KernelTimer> prefetch_timer;
    bool prefetched = false;
    Event ready[3];
    Event b_read;  // lean: the coset product has read B's array, which C may then overwrite
    DeviceBuffer<Fr> d_a, d_b, d_c, d_scratch, d_t, d_lo, d_hi;
    // The witness form: z (in d_scratch when it fits there, else d_z) and the lowest unsatisfied row; after a
    // witness-form upload, finish() checks that word for `pending_rows` rows.
    DeviceBuffer<Fr> d_z;
    DeviceBuffer<unsigned long long> d_bad;
    // pack: z's aux values go up packed (witness_pack.hpp) into these, and are expanded on the device.
    bool pack = false;
    DeviceBuffer<uint64_t> d_pack_ones;
    DeviceBuffer<uint32_t> d_pack_idx;
    DeviceBuffer<Fr> d_pack_val;
    bool check_pending = false;
    size_t pending_rows = 0;
    // prefetch_witness's z and matrices, until prefetch_products makes a, b, c from them.
    const DeviceMatrices* witness_m = nullptr;
    const Fr* witness_z = nullptr;
    std::shared_ptr<const NttTables> tables;  // the current device's, held while this computer lives
    unsigned hb = 0;  // the power tables' split (snarkjs)
    uint64_t e = 0;   // snarkjs's root as a power of cuzk's
    Fr z_inv;         // 1 / Z on the coset (bellman)
    // Last: destroyed first, each after its queued work is done, so nothing above is freed under a running copy
    // or kernel.
    Stream stream = Stream::create(), upload_stream = Stream::create();

    static size_t checked(unsigned log_n, groth16::HConvention convention, bool lean) {
        if (lean && convention != groth16::HConvention::Bellman)
            throw std::invalid_argument("gpu compute_h: a lean H computer is bellman's only");
        size_t free_b = 0, total_b = 0;
        CUZK_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        const size_t need = h_gpu_device_bytes(log_n, convention, lean);  // throws for log_n too large
        if (need > free_b)
            throw CudaError("gpu compute_h: 2^" + std::to_string(log_n) + " needs " + std::to_string(need) +
                            " bytes of device memory, " + std::to_string(free_b) + " are free");
        return size_t{1} << log_n;
    }
    static size_t snarkjs_only(groth16::HConvention c, size_t x) { return c == groth16::HConvention::Snarkjs ? x : 0; }

    Impl(unsigned k, groth16::HConvention conv, bool lean_arrays)
        : log_n(k),
          lean(lean_arrays),
          n(checked(k, conv, lean_arrays)),
          convention(conv),
          domain(EvaluationDomain::from_log_size(k)),
          d_a(n),
          d_b(n),
          d_c(lean_arrays ? 0 : n),
          d_scratch(ntt_scratch_elements(k, lean_arrays)),
          d_t(snarkjs_only(conv, n)),
          d_lo(snarkjs_only(conv, size_t{1} << powers_half(k))),
          d_hi(snarkjs_only(conv, size_t{1} << (k - powers_half(k)))),
          tables(ntt_tables()) {
        for (auto& ev : ready) ev = Event::create(cudaEventDisableTiming);
        b_read = Event::create(cudaEventDisableTiming);
        if (conv == groth16::HConvention::Bellman) {
            z_inv = domain.z_on_coset().inverse().value();  // g^n != 1: g = 7 generates Fr^*
            return;
        }
        e = groth16::snarkjs_root_exponent();
        const Fr shift = groth16::snarkjs_coset_shift(domain);
        hb = (unsigned)powers_half(k);
        std::vector<Fr> lo(size_t{1} << hb), hi(size_t{1} << (k - hb));
        lo[0] = Fr::one();
        for (size_t i = 1; i < lo.size(); i++) lo[i] = lo[i - 1] * shift;
        const Fr step = lo.back() * shift;  // s^(2^hb)
        hi[0] = Fr::one();
        for (size_t i = 1; i < hi.size(); i++) hi[i] = hi[i - 1] * step;
        CUZK_CUDA_CHECK(cudaMemcpy(d_lo.get(), lo.data(), lo.size() * sizeof(Fr), cudaMemcpyHostToDevice));
        CUZK_CUDA_CHECK(cudaMemcpy(d_hi.get(), hi.data(), hi.size() * sizeof(Fr), cudaMemcpyHostToDevice));
    }
    // The device array of a, b or c (k = 0, 1, 2); lean: c shares b's.
    Fr* array(int k) const {
        Fr* const arrays[3] = {d_a.get(), d_b.get(), lean ? d_b.get() : d_c.get()};
        return arrays[k];
    }
    void refuse_if_lean(const char* what) const {
        if (lean)
            throw std::logic_error(std::string("gpu compute_h: a lean H computer has no ") + what +
                                   " (host a, b, c through run() only)");
    }
    static void check_sizes(size_t n, std::span<const Fr> a, std::span<const Fr> b, std::span<const Fr> c) {
        if (a.size() != b.size() || a.size() != c.size() || a.size() > n)
            throw std::invalid_argument("gpu compute_h: a, b, c have " + std::to_string(a.size()) + ", " +
                                        std::to_string(b.size()) + ", " + std::to_string(c.size()) +
                                        " evaluations for a domain of " + std::to_string(n));
    }

    // Array k: host -> device on the upload stream (pageable arrays through this computer's own pinned staging,
    // so MSM uploads on other streams never queue behind it), zero padding, then ready[k].
    void upload_array(int k, std::span<const Fr> host, KernelTimer& kt) {
        Fr* const dst = array(k);
        const int up = kt.start("upload", upload_stream.get());
        uploader.upload(dst, host.data(), host.size() * sizeof(Fr), upload_stream.get());
        // Constraints beyond the last one are 0 * 0 = 0.
        const size_t m = host.size();
        if (m < n) CUZK_CUDA_CHECK(cudaMemsetAsync(dst + m, 0, (n - m) * sizeof(Fr), upload_stream.get()));
        kt.stop(up, upload_stream.get());
        CUZK_CUDA_CHECK(cudaEventRecord(ready[k].get(), upload_stream.get()));
    }

    // z = (inputs, aux) up and a, b, c from it by the device matrices, all on the upload stream, then ready[0..2].
    void upload_witness(const DeviceMatrices& m, std::span<const Fr> inputs, std::span<const Fr> aux, KernelTimer& kt) {
        make_products(m, upload_z(m, inputs, aux, kt), kt);
    }
    // z up on the upload stream, where the transforms' scratch is when it fits (unused until they run, after the
    // ready events; the proof before has finished its transforms when a shared slot takes the next witness), else
    // into d_z. Returns where it went.
    Fr* upload_z(const DeviceMatrices& m, std::span<const Fr> inputs, std::span<const Fr> aux, KernelTimer& kt,
                 const PackedWitness* packed = nullptr) {
        refuse_if_lean("the witness form");
        if (packed && packed->size != aux.size())
            throw std::invalid_argument("gpu compute_h: a packed witness of " + std::to_string(packed->size) +
                                        " values for " + std::to_string(aux.size()) + " aux values");
        const r1cs::PrecompiledR1cs& p = m.source();
        if (inputs.size() != p.num_inputs || aux.size() != p.num_aux || p.num_constraints > n)
            throw std::invalid_argument("gpu compute_h: a witness of " + std::to_string(inputs.size()) + " inputs and " +
                                        std::to_string(aux.size()) + " aux values for matrices of " +
                                        std::to_string(p.num_inputs) + ", " + std::to_string(p.num_aux) + " and " +
                                        std::to_string(p.num_constraints) + " rows, on a domain of " +
                                        std::to_string(n));
        const size_t nz = inputs.size() + aux.size();
        Fr* z = d_scratch.size() >= nz ? d_scratch.get() : nullptr;
        if (!z) {
            if (d_z.size() < nz) d_z = DeviceBuffer<Fr>(nz);
            z = d_z.get();
        }
        const cudaStream_t up = upload_stream.get();
        const int u = kt.start("upload", up);
        uploader.upload(z, inputs.data(), inputs.size() * sizeof(Fr), up);
        if (!(packed ? send_packed(z + inputs.size(), *packed, kt) : upload_packed(z + inputs.size(), aux, kt)))
            uploader.upload(z + inputs.size(), aux.data(), aux.size() * sizeof(Fr), up);
        kt.stop(u, up);
        return z;
    }
    // With `pack`: the aux values packed on the host (at most a quarter of them neither 0 nor 1) and expanded into
    // dst on the upload stream (kernel span "<name>.expand"). False, with nothing queued, where they do not pack or
    // the device has no room for the packed form (~1/30 of theirs): they then go up as they are.
    bool upload_packed(Fr* dst, std::span<const Fr> aux, KernelTimer& kt) {
        if (!pack || aux.empty()) return false;
        // Threads of its own, as many as the staged copy's (PinnedUploader::kCopyThreads): the global pool is busy
        // with the next partitions' syntheses while a witness goes up.
        static ThreadPool pack_threads(PinnedUploader::kCopyThreads - 1);
        const std::optional<PackedWitness> pw = ::cuzk::gpu::pack_witness(aux, aux.size() / 4, pack_threads);
        return pw && send_packed(dst, *pw, kt);
    }
    // A packed witness's values (pw.size of them) up and expanded into dst on the upload stream (kernel span
    // "<name>.expand"); false, with nothing queued, where the device has no room for the packed form.
    bool send_packed(Fr* dst, const PackedWitness& pw, KernelTimer& kt) {
        if (!pw.size) return false;
        const size_t k = pw.other_indices.size();
        try {
            if (d_pack_ones.size() < pw.ones.size()) d_pack_ones = DeviceBuffer<uint64_t>(pw.ones.size());
            if (d_pack_idx.size() < k) d_pack_idx = DeviceBuffer<uint32_t>(k);
            if (d_pack_val.size() < k) d_pack_val = DeviceBuffer<Fr>(k);
        } catch (const CudaError&) {
            (void)cudaGetLastError();
            return false;
        }
        const cudaStream_t up = upload_stream.get();
        // Stream order keeps the buffers' previous expansion ahead of these copies; the host arrays may go once
        // upload() returns (pageable: staged).
        uploader.upload(d_pack_ones.get(), pw.ones.data(), pw.ones.size() * sizeof(uint64_t), up);
        uploader.upload(d_pack_idx.get(), pw.other_indices.data(), k * sizeof(uint32_t), up);
        uploader.upload(d_pack_val.get(), pw.other_values.data(), k * sizeof(Fr), up);
        const int ex = kt.start("expand", up);
        expand_ones<<<blocks_for(pw.size), kThreads, 0, up>>>(reinterpret_cast<fr_dev*>(dst), d_pack_ones.get(),
                                                                pw.size);
        CUZK_CUDA_CHECK(cudaGetLastError());
        if (k) {
            scatter_values<<<blocks_for(k), kThreads, 0, up>>>(reinterpret_cast<fr_dev*>(dst), d_pack_idx.get(),
                                                               reinterpret_cast<const fr_dev*>(d_pack_val.get()), k);
            CUZK_CUDA_CHECK(cudaGetLastError());
        }
        kt.stop(ex, up);
        return true;
    }
    // a, b, c from z (upload_z's) into H's arrays on the upload stream, then ready[0..2]; finish() checks the rows.
    void make_products(const DeviceMatrices& m, const Fr* z, KernelTimer& kt) {
        if (!d_bad.size()) d_bad = DeviceBuffer<unsigned long long>(1);
        const cudaStream_t up = upload_stream.get();
        CUZK_CUDA_CHECK(cudaMemsetAsync(d_bad.get(), 0xff, sizeof(unsigned long long), up));
        m.wait_copied();  // the matrices' copy first: the "products" span is then the kernel's alone
        const int pr = kt.start("products", up);
        m.evaluate(z, d_a.get(), d_b.get(), d_c.get(), n, d_bad.get(), up);
        kt.stop(pr, up);
        for (auto& ev : ready) CUZK_CUDA_CHECK(cudaEventRecord(ev.get(), up));
        check_pending = true;
        pending_rows = m.source().num_constraints;
    }

    // After finish(): the row check of a witness-form upload.
    void check_rows() {
        if (!check_pending) return;
        check_pending = false;
        unsigned long long bad = 0;
        CUZK_CUDA_CHECK(cudaMemcpy(&bad, d_bad.get(), sizeof bad, cudaMemcpyDeviceToHost));
        if (bad != ~0ull)
            throw r1cs::SynthesisError(r1cs::SynthesisErrorKind::Unsatisfiable,
                                       "constraint " + std::to_string(bad) + " of " + std::to_string(pending_rows) +
                                           " is not satisfied by the witness (a * b != c, on the GPU): the "
                                           "precompiled constraints do not match this circuit or the witness is not "
                                           "a solution");
    }

    // Array k's transforms on the compute stream, after its upload.
    void transforms(int k, KernelTimer& kt) {
        const cudaStream_t st = stream.get();
        Fr* const x = array(k);
        CUZK_CUDA_CHECK(cudaStreamWaitEvent(st, ready[k].get(), 0));
        const int tr = kt.start("transforms", st);
        if (convention == groth16::HConvention::Bellman) {
            // C only to its coefficients: finish() subtracts them after the coset inverse (groth16::compute_h).
            transform(x, NttKind::inverse);
            if (k < 2) transform(x, NttKind::coset_forward);
        } else {
            auto* dx = reinterpret_cast<fr_dev*>(x);
            auto* dt = reinterpret_cast<fr_dev*>(d_t.get());
            // value j sits at snarkjs's w^j = omega^(e j): put it where cuzk's NTT expects omega^(e j)
            permute_by_exponent<<<blocks_for(n), kThreads, 0, st>>>(dx, dt, n, e, true);
            CUZK_CUDA_CHECK(cudaGetLastError());
            transform(d_t.get(), NttKind::inverse);
            scale_by_powers<<<blocks_for(n), kThreads, 0, st>>>(dt, n, reinterpret_cast<const fr_dev*>(d_lo.get()),
                                                               reinterpret_cast<const fr_dev*>(d_hi.get()), hb);
            CUZK_CUDA_CHECK(cudaGetLastError());
            transform(d_t.get(), NttKind::forward);  // P(s omega^m)
            permute_by_exponent<<<blocks_for(n), kThreads, 0, st>>>(dt, dx, n, e, false);
            CUZK_CUDA_CHECK(cudaGetLastError());
        }
        kt.stop(tr, st);
    }

    // x's transform of the given kind; bellman's final step passes B (a factor before), C's coefficients and 1 / Z
    // (subtracted and scaled after) for the NTT to fuse into its first and last passes (ntt.hpp, NttConfig).
    void transform(Fr* x, NttKind kind, const Fr* pre_mul = nullptr, const Fr* post_sub = nullptr,
                   const Fr& post_scale = Fr::one()) {
        NttConfig cfg;
        cfg.pre_mul = pre_mul;
        cfg.post_sub = post_sub;
        cfg.post_scale = post_scale;
        cfg.stream = stream.get();
        cfg.d_scratch = d_scratch.size() ? d_scratch.get() : nullptr;
        cfg.synchronize = false;
        cfg.kind = kind;
        cfg.tables = tables.get();
        cfg.in_place = lean;  // no scratch where the size has the in-place schedule
        ntt_device(x, log_n, cfg);
    }

    // a * b - c (bellman: a * b, the coset inverse, then C's coefficients off and 1 / Z, in one transform), then waits
    // for the compute stream.
    void finish(KernelTimer& kt) {
        const cudaStream_t st = stream.get();
        const int fin = kt.start("pointwise_final", st);
        if (convention == groth16::HConvention::Bellman) {
            // deg H <= n - 2; bellman drops the top coefficient
            transform(d_a.get(), NttKind::coset_inverse, d_b.get(), d_c.get(), z_inv);
        } else {
            ab_minus_c<<<blocks_for(n), kThreads, 0, st>>>(reinterpret_cast<fr_dev*>(d_a.get()),
                                                          reinterpret_cast<const fr_dev*>(d_b.get()),
                                                          reinterpret_cast<const fr_dev*>(d_c.get()), n);
            CUZK_CUDA_CHECK(cudaGetLastError());
        }
        kt.stop(fin, st);
        CUZK_CUDA_CHECK(cudaStreamSynchronize(st));
        check_rows();
    }

    void run(std::span<const Fr> a, std::span<const Fr> b, std::span<const Fr> c, const KernelSpans& spans) {
        check_sizes(n, a, b, c);
        prefetch_timer.reset();
        prefetched = false;
        witness_m = nullptr;
        check_pending = false;
        KernelTimer kt(spans);
        const std::span<const Fr> host[3] = {a, b, c};
        // Array k is uploaded, then its transforms are queued: the host stages b and c while the device transforms a.
        // Lean: C goes up in finish_lean, into B's array once the product has read it.
        for (int k = 0; k < (lean ? 2 : 3); k++) {
            upload_array(k, host[k], kt);
            transforms(k, kt);
        }
        if (lean) finish_lean(host[2], kt);
        else finish(kt);
        kt.report();
    }

    // Bellman's last steps with C in B's array: A*B on the coset, then C up into B's array (after the product has
    // read it) beside A*B's coset inverse, C's inverse NTT, C's coefficients off and 1 / Z.
    void finish_lean(std::span<const Fr> c, KernelTimer& kt) {
        const cudaStream_t st = stream.get();
        int fin = kt.start("pointwise_final", st);
        gpu::ntt_pointwise(d_a.get(), log_n, d_b.get(), nullptr, Fr::one(), st);
        CUZK_CUDA_CHECK(cudaEventRecord(b_read.get(), st));
        transform(d_a.get(), NttKind::coset_inverse);  // deg H <= n - 2; bellman drops the top coefficient
        kt.stop(fin, st);
        CUZK_CUDA_CHECK(cudaStreamWaitEvent(upload_stream.get(), b_read.get(), 0));
        upload_array(2, c, kt);
        transforms(2, kt);  // C's coefficients, in B's array
        fin = kt.start("pointwise_final", st);
        gpu::ntt_pointwise(d_a.get(), log_n, nullptr, d_b.get(), z_inv, st);
        kt.stop(fin, st);
        CUZK_CUDA_CHECK(cudaStreamSynchronize(st));
    }

    void prefetch(std::span<const Fr> a, std::span<const Fr> b, std::span<const Fr> c, const KernelSpans& spans) {
        refuse_if_lean("prefetch");
        check_sizes(n, a, b, c);
        check_pending = false;
        witness_m = nullptr;
        prefetch_timer = std::make_unique<KernelTimer>(spans);
        const std::span<const Fr> host[3] = {a, b, c};
        for (int k = 0; k < 3; k++) upload_array(k, host[k], *prefetch_timer);
        prefetched = true;
    }

    void run(const DeviceMatrices& m, std::span<const Fr> inputs, std::span<const Fr> aux, const KernelSpans& spans) {
        prefetch_timer.reset();
        prefetched = false;
        witness_m = nullptr;
        KernelTimer kt(spans);
        upload_witness(m, inputs, aux, kt);
        for (int k = 0; k < 3; k++) transforms(k, kt);
        finish(kt);
        kt.report();
    }

    void prefetch(const DeviceMatrices& m, std::span<const Fr> inputs, std::span<const Fr> aux,
                  const KernelSpans& spans, const PackedWitness* packed = nullptr) {
        prefetch_witness(m, inputs, aux, spans, packed);
        prefetch_products();
    }
    void prefetch_witness(const DeviceMatrices& m, std::span<const Fr> inputs, std::span<const Fr> aux,
                          const KernelSpans& spans, const PackedWitness* packed = nullptr) {
        prefetched = false;
        witness_m = nullptr;
        prefetch_timer = std::make_unique<KernelTimer>(spans);
        witness_z = upload_z(m, inputs, aux, *prefetch_timer, packed);
        witness_m = &m;
    }
    void prefetch_products() {
        if (!witness_m) throw std::logic_error("gpu compute_h: prefetch_products without prefetch_witness");
        make_products(*witness_m, witness_z, *prefetch_timer);
        witness_m = nullptr;
        prefetched = true;
    }

    void run_prefetched(const KernelSpans& spans) {
        if (!prefetched) throw std::logic_error("gpu compute_h: run_prefetched without a prefetch");
        prefetched = false;
        KernelTimer kt(spans);
        for (int k = 0; k < 3; k++) transforms(k, kt);
        finish(kt);
        kt.report();
        // The uploads finished before the transforms that waited for them.
        if (prefetch_timer) prefetch_timer->report();
        prefetch_timer.reset();
    }
};

HComputer::HComputer(unsigned log_n, groth16::HConvention convention, bool lean)
    : impl_(std::make_unique<Impl>(log_n, convention, lean)) {}
HComputer::~HComputer() = default;
unsigned HComputer::log_n() const { return impl_->log_n; }
groth16::HConvention HComputer::convention() const { return impl_->convention; }
bool HComputer::lean() const { return impl_->lean; }
void HComputer::pack_witness(bool on) { impl_->pack = on; }
void HComputer::run(std::span<const Fr> a, std::span<const Fr> b, std::span<const Fr> c, const KernelSpans& spans) {
    impl_->run(a, b, c, spans);
}
void HComputer::prefetch(std::span<const Fr> a, std::span<const Fr> b, std::span<const Fr> c,
                         const KernelSpans& spans) {
    impl_->prefetch(a, b, c, spans);
}
void HComputer::run_prefetched(const KernelSpans& spans) { impl_->run_prefetched(spans); }
void HComputer::run(const DeviceMatrices& m, std::span<const Fr> inputs, std::span<const Fr> aux,
                    const KernelSpans& spans) {
    impl_->run(m, inputs, aux, spans);
}
void HComputer::prefetch(const DeviceMatrices& m, std::span<const Fr> inputs, std::span<const Fr> aux,
                         const KernelSpans& spans, const PackedWitness* packed) {
    impl_->prefetch(m, inputs, aux, spans, packed);
}
void HComputer::prefetch_witness(const DeviceMatrices& m, std::span<const Fr> inputs, std::span<const Fr> aux,
                                 const KernelSpans& spans) {
    impl_->prefetch_witness(m, inputs, aux, spans);
}
void HComputer::prefetch_products() { impl_->prefetch_products(); }
const Fr* HComputer::h_device() const { return impl_->d_a.get(); }
void HComputer::copy_h_to_host(std::span<Fr> h) const {
    const size_t len = h_gpu_length(impl_->log_n, impl_->convention);
    if (h.size() != len)
        throw std::invalid_argument("gpu compute_h: the result needs " + std::to_string(len) + " elements, got " +
                                    std::to_string(h.size()));
    if (len)
        CUZK_CUDA_CHECK(cudaMemcpyAsync(h.data(), impl_->d_a.get(), len * sizeof(Fr), cudaMemcpyDeviceToHost,
                                        impl_->stream.get()));
    CUZK_CUDA_CHECK(cudaStreamSynchronize(impl_->stream.get()));
}

void compute_h_gpu(unsigned log_n, std::span<const Fr> a, std::span<const Fr> b, std::span<const Fr> c,
                   std::span<Fr> h, groth16::HConvention convention) {
    if (h.size() != h_gpu_length(log_n, convention))  // also refuses log_n > NTT_MAX_LOG_SIZE
        throw std::invalid_argument("gpu compute_h: the result needs " +
                                    std::to_string(h_gpu_length(log_n, convention)) + " elements, got " +
                                    std::to_string(h.size()));
    HComputer hc(log_n, convention);
    hc.run(a, b, c);  // checks the sizes of a, b, c
    hc.copy_h_to_host(h);
}

}  // namespace cuzk::gpu
