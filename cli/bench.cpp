// `cuzk bench`: the CPU benchmarks as one JSON object per line (name, size, threads, median and samples), so
// scripts can collect them. Google Benchmark programs in bench/ measure the same things with more statistics.
#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "cuzk/circuits/catalog.hpp"
#include "cuzk/ec/g1.hpp"
#include "cuzk/ec/g2.hpp"
#include "cuzk/ec/random_points.hpp"
#include "cuzk/ff/fq.hpp"
#include "cuzk/ff/fr.hpp"
#include "cuzk/groth16/prover.hpp"
#include "cuzk/groth16/setup.hpp"
#include "cuzk/groth16/verifier.hpp"
#include "cuzk/msm/msm.hpp"
#include "cuzk/pairing/pairing.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "cuzk/poly/domain.hpp"
#include "cuzk/poly/ntt.hpp"
#include "cuzk/util/thread_pool.hpp"
#include "cuzk/util/timing.hpp"
#ifdef CUZK_HAVE_CUDA
#include <cuda_runtime.h>

#include "cuzk/gpu/cuda_check.cuh"
#include "cuzk/gpu/device.hpp"
#include "cuzk/gpu/msm.hpp"
#include "cuzk/gpu/msm_streamed.hpp"
#include "cuzk/gpu/ntt.hpp"
#include "cuzk/gpu/pinned_upload.cuh"
#include "cuzk/backends/cuda/h_gpu.hpp"
#include "cuzk/backends/cuda/products_gpu.hpp"
#endif

namespace cuzk::cli {

namespace {

using clock_type = std::chrono::steady_clock;

std::string cpu_model() {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) {
            auto p = line.find(':');
            if (p != std::string::npos) return line.substr(p + 2);
        }
    return "unknown";
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Runs fn once untimed (warm-up: caches, twiddle tables, page faults), then `reps` timed runs; returns seconds.
std::vector<double> measure(int reps, const std::function<void()>& fn) {
    fn();
    std::vector<double> out;
    for (int i = 0; i < reps; i++) {
        auto t0 = clock_type::now();
        fn();
        out.push_back(std::chrono::duration<double>(clock_type::now() - t0).count());
    }
    return out;
}

void report(const std::string& name, int log_size, double unit_scale, const char* unit, size_t ops_per_run,
            const std::vector<double>& seconds, const nlohmann::json& extra = nlohmann::json::object()) {
    nlohmann::json j = extra.is_object() ? extra : nlohmann::json::object();
    j["bench"] = name;
    if (log_size >= 0) j["log_size"] = log_size;
    j["threads"] = num_threads();
    std::vector<double> per_op;
    for (double s : seconds) per_op.push_back(s * unit_scale / (double)ops_per_run);
    j[std::string("median_") + unit] = median(per_op);
    j[std::string("samples_") + unit] = per_op;
    j["cpu"] = cpu_model();
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
}

template <class F>
void bench_field_mul(const std::string& name, int reps) {
    std::mt19937_64 rng(1);
    F a = F::random(rng), b = F::random(rng);
    constexpr size_t kOps = 1'000'000;
    auto s = measure(reps, [&] {
        for (size_t i = 0; i < kOps; i++) a = a * b;  // dependent chain: latency, as blst's anchor
    });
    if (a.is_zero()) std::printf("#\n");  // keeps the chain observable
    report(name, -1, 1e9, "ns", kOps, s);
}

void bench_g1_add(int reps) {
    std::mt19937_64 rng(2);
    auto g = G1Jacobian::generator();
    G1Affine q = g.mul(Fr::random(rng).to_canonical()).to_affine();
    G1XYZZ acc = G1XYZZ::from_affine(g.mul(Fr::random(rng).to_canonical()).to_affine());
    constexpr size_t kOps = 100'000;
    auto s = measure(reps, [&] {
        for (size_t i = 0; i < kOps; i++) acc = acc.add_mixed(q);
    });
    if (acc.is_identity()) std::printf("#\n");
    report("g1-mixed-add", -1, 1e9, "ns", kOps, s);
}

void bench_pairing(int reps) {
    std::mt19937_64 rng(3);
    G1Affine p = G1Jacobian::generator().mul(Fr::random(rng).to_canonical()).to_affine();
    G2Affine q = G2Jacobian::generator().mul(Fr::random(rng).to_canonical()).to_affine();
    constexpr size_t kOps = 50;
    Fq12 acc;
    auto s = measure(reps, [&] {
        for (size_t i = 0; i < kOps; i++) acc = pairing(p, q);
    });
    if (acc.is_one()) std::printf("#\n");
    report("pairing", -1, 1e3, "ms", kOps, s);
}

void bench_ntt(int log_size, int reps) {
    auto domain = EvaluationDomain::from_log_size((unsigned)log_size);
    auto v = random_scalars<Fr>(domain.size(), 4);
    auto s = measure(reps, [&] { ntt(domain, v); });
    report("ntt", log_size, 1e3, "ms", 1, s);
}

template <class Cfg>
void bench_msm(const std::string& name, int log_size, int reps) {
    size_t n = size_t{1} << log_size;
    auto bases = random_points<Cfg>(n, 5);
    auto scalars = random_scalars<Fr>(n, 6);
    Jacobian<Cfg> r;
    auto s = measure(reps, [&] { r = msm<Cfg>(bases, scalars); });
    if (r.is_identity()) std::printf("#\n");
    report(name, log_size, 1e3, "ms", 1, s);
}

#ifdef CUZK_HAVE_CUDA
// n elements of device memory holding the first n of `init` (none copied when init is empty).
gpu::DeviceBuffer<Fr> device_copy(size_t n, std::span<const Fr> init) {
    gpu::DeviceBuffer<Fr> d(n);
    if (!init.empty()) CUZK_CUDA_CHECK(cudaMemcpy(d.get(), init.data(), n * sizeof(Fr), cudaMemcpyHostToDevice));
    return d;
}
#endif

// The GPU MSM (gpu::MsmContext) over 2^log_size bases resident on the device (2^20 random points, repeated: a
// repeated base costs what a fresh one does under random scalars) with random scalars in pinned host memory, as the
// GPU prover keeps them; each run uploads the scalars (device_scalars: uploaded once before the runs and read in
// place, as sppark's anchors were measured) and returns the sum on the host. window_bits: as
// GpuMsmConfig's (0: its model). ones_share > 0: the scalars are 0 or 1 instead (that share ones, as a bitmap, or
// listed), each run summing the bases of the ones as the prover's 0/1 split does. streamed: the bases stay in
// page-locked host memory and go up chunk by chunk every run (gpu::StreamedMsm, chunk_points per chunk, 0: its
// default), each run one call over `sets` scalar sets (each chunk up once for all); resident, a run is `sets` calls.
struct GpuMsmBench {
    std::string name;
    int log_size = 20;
    int reps = 5;
    unsigned window_bits = 0;
    unsigned reduce_lanes = 0;
    unsigned piece_points = 0;
    unsigned walk_chunks = 0;
    unsigned reduce_levels = 0;
    double ones_share = 0;
    bool ones_listed = false;
    bool precompute_windows = false;
    bool device_scalars = false;
    bool streamed = false;
    size_t chunk_points = 0;
    size_t sets = 1;
};

#ifdef CUZK_HAVE_CUDA
template <class Cfg>
void bench_gpu_msm_streamed(const GpuMsmBench& b, std::vector<Affine<Cfg>> bases, std::span<const Fr> scalars) {
    gpu::StreamedMsmConfig cfg;
    cfg.msm.window_bits = b.window_bits;
    cfg.msm.reduce_lanes = b.reduce_lanes;
    cfg.msm.piece_points = b.piece_points;
    cfg.msm.walk_chunks = b.walk_chunks;
    cfg.msm.reduce_levels = b.reduce_levels;
    cfg.chunk_points = b.chunk_points;
    gpu::StreamedMsm<Cfg> sm(bases, cfg);
    bases = {};
    const size_t n = sm.num_bases();
    std::vector<std::span<const Fr>> sets;
    for (size_t k = 0; k < b.sets; k++) sets.push_back(scalars.subspan(k * n, n));
    std::vector<Jacobian<Cfg>> r;
    const size_t loads0 = sm.chunks_loaded();
    const auto s = measure(b.reps, [&] { r = sm.msm(sets); });
    if (r[0].is_identity()) std::printf("#\n");
    nlohmann::json extra;
    extra["chunk_points"] = sm.chunk_points();
    extra["sets"] = b.sets;
    extra["chunks_loaded_per_run"] = (double)(sm.chunks_loaded() - loads0) / (b.reps + 1);
    extra["device_bytes"] = sm.device_bytes();
    report(b.name + "-streamed", b.log_size, 1e3, "ms", 1, s, extra);
}
#endif

#ifdef CUZK_HAVE_CUDA
// extra["kernel_ms"]: the sink's kernel spans, their milliseconds summed by name.
void add_kernel_ms(nlohmann::json& extra, const TimingSink& sink) {
    for (const auto& sp : sink.spans()) {
        nlohmann::json& k = extra["kernel_ms"][sp.name];
        k = (k.is_number() ? k.get<double>() : 0.0) + sp.duration_s * 1e3;
    }
}

// A 0/1 split of n scalars whose ones (each with probability `share`) are a bitmap: the prover's layout for
// Filecoin's witnesses.
ScalarSplit random_ones_bitmap(size_t n, double share, std::mt19937_64& rng) {
    std::bernoulli_distribution one(share);
    ScalarSplit sp;
    sp.size = n;
    sp.one_bits.resize((n + 63) / 64);
    std::fill(sp.one_bits.begin(), sp.one_bits.end(), 0);
    for (size_t i = 0; i < n; i++)
        if (one(rng)) sp.one_bits[i / 64] |= uint64_t(1) << (i % 64), sp.one_bit_count++;
    return sp;
}

// `sets` bitmaps of ones_share ones over the context's bases: their ones' sums as `sets` calls of the 0/1 split
// (the prover's way, one partition at a time) against one MsmContext::sum_patterns call, in the same run; the
// two must agree.
template <class Cfg>
void bench_gpu_patterns(const GpuMsmBench& b, gpu::MsmContext<Cfg>& ctx, size_t sets, std::mt19937_64& rng) {
    const size_t n = ctx.num_bases();
    std::vector<ScalarSplit> splits;
    std::vector<std::span<const uint64_t>> bitmaps;
    for (size_t k = 0; k < sets; k++) splits.push_back(random_ones_bitmap(n, b.ones_share, rng));
    for (const ScalarSplit& sp : splits) bitmaps.emplace_back(sp.one_bits.data(), sp.one_bits.size());
    std::vector<Jacobian<Cfg>> each(sets), joint;
    const auto s_each = measure(b.reps, [&] {
        for (size_t k = 0; k < sets; k++) each[k] = ctx.msm_split(splits[k]);
    });
    const auto s_joint = measure(b.reps, [&] { joint = ctx.sum_patterns(bitmaps, n); });
    for (size_t k = 0; k < sets; k++)
        if (!(joint[k] == each[k])) throw std::runtime_error("bench " + b.name + ": sum_patterns differs, set " +
                                                            std::to_string(k));
    nlohmann::json extra;
    extra["sets"] = sets;
    report(b.name + "-ones-each", b.log_size, 1e3, "ms", 1, s_each, extra);
    TimingSink sink;
    (void)ctx.sum_patterns(bitmaps, n, {&sink, "patterns"});
    for (const auto& sp : sink.spans()) extra["kernel_ms"][sp.name] = sp.duration_s * 1e3;
    extra["scratch_bytes"] = ctx.pattern_call_bytes(sets, n);
    report(b.name + "-ones-patterns", b.log_size, 1e3, "ms", 1, s_joint, extra);
}
#endif

template <class Cfg>
void bench_gpu_msm(const GpuMsmBench& b) {
#ifdef CUZK_HAVE_CUDA
    const std::string& name = b.name;
    const int log_size = b.log_size, reps = b.reps;
    if ((b.precompute_windows || b.device_scalars) && (b.ones_share > 0 || b.streamed))
        throw std::invalid_argument("bench " + name +
                                    ": --precompute-windows and --device-scalars take random scalars, resident bases");
    if (gpu::devices().empty()) throw std::runtime_error("bench " + name + ": no CUDA device");
    const size_t n = size_t{1} << log_size;
    std::vector<Affine<Cfg>> bases(n);
    {
        const auto gen = random_points<Cfg>(std::min<size_t>(n, size_t{1} << 20), 5);
        for (size_t i = 0; i < n; i++) bases[i] = gen[i % gen.size()];
    }
    const size_t sets = std::max<size_t>(b.sets, 1);
    gpu::PinnedBuffer<Fr> h;
    if (b.ones_share <= 0) h = gpu::PinnedBuffer<Fr>(sets * n);
    if (h) {
        const auto scalars = random_scalars<Fr>(n, 6);
        for (size_t k = 0; k < sets; k++) std::copy(scalars.begin(), scalars.end(), h.get() + k * n);
    }
    if (b.streamed) {
        if (b.ones_share > 0) throw std::invalid_argument("bench " + name + ": --streamed takes random scalars");
        return bench_gpu_msm_streamed<Cfg>(b, std::move(bases), std::span<const Fr>(h.get(), sets * n));
    }
    gpu::GpuMsmConfig cfg;
    cfg.window_bits = b.window_bits;
    cfg.reduce_lanes = b.reduce_lanes;
    cfg.piece_points = b.piece_points;
    cfg.walk_chunks = b.walk_chunks;
    cfg.reduce_levels = b.reduce_levels;
    cfg.precompute_windows = b.precompute_windows;
    const auto t_table = std::chrono::steady_clock::now();
    gpu::MsmContext<Cfg> ctx(bases, cfg);
    const double context_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_table).count();
    bases = {};
    if (b.ones_share > 0) {
        ScalarSplit split;
        split.size = n;
        std::mt19937_64 rng(7);
        std::bernoulli_distribution one(b.ones_share);
        if (sets > 1) {
            if (b.ones_listed) throw std::invalid_argument("bench " + name + ": --sets with --ones-share takes bitmaps");
            return bench_gpu_patterns<Cfg>(b, ctx, sets, rng);
        }
        if (b.ones_listed) {
            std::vector<uint32_t> idx;
            for (size_t i = 0; i < n; i++)
                if (one(rng)) idx.push_back((uint32_t)i);
            split.one_indices.resize(idx.size());
            std::copy(idx.begin(), idx.end(), split.one_indices.begin());
        } else {
            split = random_ones_bitmap(n, b.ones_share, rng);
        }
        Jacobian<Cfg> r;
        const auto s = measure(reps, [&] { r = ctx.msm_split(split); });
        if (r.is_identity()) std::printf("#\n");
        report(name + "-ones" + (b.ones_listed ? "-listed" : ""), log_size, 1e3, "ms", 1, s);
        return;
    }
    const gpu::DeviceBuffer<Fr> d =
        b.device_scalars ? device_copy(sets * n, std::span<const Fr>(h.get(), sets * n)) : gpu::DeviceBuffer<Fr>();
    const auto one_call = [&](size_t k, const KernelSpans& spans = {}) {
        return d ? ctx.msm_device(d.get() + k * n, n, spans) : ctx.msm(std::span<const Fr>(h.get() + k * n, n), spans);
    };
    Jacobian<Cfg> r;
    const auto s = measure(reps, [&] {
        for (size_t k = 0; k < sets; k++) r = one_call(k);
    });
    if (r.is_identity()) std::printf("#\n");
    nlohmann::json extra;
    if (sets > 1) extra["sets"] = sets;
    // Where one call's time goes: its kernel spans (sort, accumulation, reduction, ...) from one more call.
    TimingSink sink;
    (void)one_call(0, {&sink, "msm"});
    add_kernel_ms(extra, sink);
    extra["reduce_lanes"] = b.reduce_lanes;
    extra["piece_points"] = b.piece_points;
    extra["walk_chunks"] = b.walk_chunks;
    extra["reduce_levels"] = b.reduce_levels;
    if (b.precompute_windows) {
        extra["table_window_bits"] = ctx.precomputed_window_bits();
        extra["table_device_bytes"] = ctx.resident_bytes();
        extra["table_build_s"] = context_s;
    }
    const std::string suffix = std::string(b.precompute_windows ? "-table" : "") +
                               (b.device_scalars ? "-device-scalars" : "") +
                               (b.window_bits ? "-c" + std::to_string(b.window_bits) : "");
    report(name + suffix, log_size, 1e3, "ms", 1, s, extra);
#else
    throw std::runtime_error("bench " + b.name + ": built without CUDA");
#endif
}

// The GPU NTT (gpu::ntt_device, natural order; kind: forward, inverse, coset or coset-inverse) of 2^log_size random
// values resident on the device, with caller-owned scratch (none in place) and the device's tables, synchronized:
// each run is the transform's kernels and launches. JSON name gpu-ntt[-kind][-in-place].
void bench_gpu_ntt(int log_size, int reps, const std::string& kind, bool in_place, bool steps) {
#ifdef CUZK_HAVE_CUDA
    const gpu::NttKind by_name[] = {gpu::NttKind::forward, gpu::NttKind::inverse, gpu::NttKind::coset_forward,
                                    gpu::NttKind::coset_inverse};  // kNttKinds' order
    const auto at = std::find(kNttKinds.begin(), kNttKinds.end(), kind);
    if (at == kNttKinds.end()) throw std::invalid_argument("bench gpu-ntt: unknown kind '" + kind + "'");
    const gpu::NttKind ntt_kind = by_name[at - kNttKinds.begin()];
    if (gpu::devices().empty()) throw std::runtime_error("bench gpu-ntt: no CUDA device");
    const size_t n = size_t{1} << log_size;
    const auto values = random_scalars<Fr>(n, 4);
    const size_t scratch_n = std::max<size_t>(gpu::ntt_scratch_elements((unsigned)log_size, in_place), 1);
    const auto d = device_copy(n, values);
    const auto scratch = device_copy(scratch_n, {});
    const auto tables = gpu::ntt_tables();
    gpu::NttConfig cfg;
    cfg.d_scratch = scratch.get();
    cfg.tables = tables.get();
    cfg.kind = ntt_kind;
    cfg.in_place = in_place;
    const std::string name =
        std::string(kind == "forward" ? "gpu-ntt" : "gpu-ntt-" + kind) + (in_place ? "-in-place" : "");
    const auto s = measure(reps, [&] { gpu::ntt_device(d.get(), (unsigned)log_size, cfg); });
    report(name, log_size, 1e3, "ms", 1, s);
    if (!steps) return;
    // The pointwise steps of bellman's H (x * m first, (y - c) * s last) on two more device arrays, fused into the
    // passes and as kernels of their own, alternating.
    const auto m = device_copy(n, values);
    const auto c = device_copy(n, values);
    cfg.pre_mul = m.get();
    cfg.post_sub = c.get();
    cfg.post_scale = values[1];
    std::vector<double> fused, apart;
    for (int i = 0; i < reps; i++)
        for (bool fuse : {true, false}) {
            cfg.fuse_steps = fuse;
            (fuse ? fused : apart).push_back(measure(1, [&] { gpu::ntt_device(d.get(), (unsigned)log_size, cfg); })[0]);
        }
    report(name + "-steps-fused", log_size, 1e3, "ms", 1, fused);
    report(name + "-steps-apart", log_size, 1e3, "ms", 1, apart);
#else
    (void)log_size, (void)reps, (void)kind, (void)in_place, (void)steps;
    throw std::runtime_error("bench gpu-ntt: built without CUDA");
#endif
}

// Groth16's H on the GPU (backends/cuda/h_gpu.hpp, bellman's form: issue 23's "H polynomial") over a 2^log_size
// domain. a, b, c are random (one vector for the three: the work does not depend on the values). Full form: each run
// is run_prefetched() after a prefetch() whose uploads have finished (cudaDeviceSynchronize), i.e. the five
// transforms and the final coset inverse with its pointwise steps, synchronized: JSON name gpu-h. Lean form
// (lean = true: two arrays, transforms in place; it offers only run() from the host): each run is run(), uploads
// included: gpu-h-lean. Extra kernel_ms: the kernel spans of one more run, summed by name.
void bench_gpu_h(int log_size, int reps, bool lean) {
#ifdef CUZK_HAVE_CUDA
    if (gpu::devices().empty()) throw std::runtime_error("bench gpu-h: no CUDA device");
    const size_t n = size_t{1} << log_size;
    const auto values = random_scalars<Fr>(n, 4);
    gpu::HComputer hc((unsigned)log_size, groth16::HConvention::Bellman, lean);
    const auto one_run = [&](const KernelSpans& spans) {
        if (lean) {
            const auto t0 = clock_type::now();
            hc.run(values, values, values, spans);
            return std::chrono::duration<double>(clock_type::now() - t0).count();
        }
        hc.prefetch(values, values, values, spans);
        CUZK_CUDA_CHECK(cudaDeviceSynchronize());
        const auto t0 = clock_type::now();
        hc.run_prefetched(spans);
        return std::chrono::duration<double>(clock_type::now() - t0).count();
    };
    (void)one_run({});  // warm-up: the NTT tables, the staging buffers
    std::vector<double> s;
    for (int i = 0; i < reps; i++) s.push_back(one_run({}));
    TimingSink sink;
    (void)one_run({&sink, "h"});
    nlohmann::json extra;
    add_kernel_ms(extra, sink);
    report(lean ? "gpu-h-lean" : "gpu-h", log_size, 1e3, "ms", 1, s, extra);
#else
    (void)log_size, (void)reps, (void)lean;
    throw std::runtime_error("bench gpu-h: built without CUDA");
#endif
}

// The sparse products on the GPU (backends/cuda/products_gpu.hpp) for one proof of `spec`'s circuit: its compiled
// matrices on the device, its witness uploaded once, then a, b, c and the row check per call (the prover's
// "h.products" span). The witness must satisfy every row (checked after the calls).
void bench_gpu_products(const CircuitOptions& spec, int reps) {
#ifdef CUZK_HAVE_CUDA
    if (gpu::devices().empty()) throw std::runtime_error("bench gpu-products: no CUDA device");
    const auto circuit = circuits::make_circuit(spec, true, 0, nullptr);
    const auto t0 = clock_type::now();
    const r1cs::PrecompiledR1cs pce = r1cs::compile_r1cs(*circuit);
    const double compile_s = std::chrono::duration<double>(clock_type::now() - t0).count();
    const r1cs::ProvingAssignment w = r1cs::witness_assignment(pce, *circuit, ThreadPool::global());
    const size_t n = std::bit_ceil(pce.num_constraints), z_len = pce.num_inputs + pce.num_aux;
    gpu::DeviceMatrices m(pce, 0);
    m.wait_copied();
    const gpu::DeviceBuffer<Fr> z(z_len), a(n), b(n), c(n);
    const gpu::DeviceBuffer<unsigned long long> bad(1);
    CUZK_CUDA_CHECK(cudaMemcpy(z.get(), w.inputs().data(), pce.num_inputs * sizeof(Fr), cudaMemcpyHostToDevice));
    CUZK_CUDA_CHECK(
        cudaMemcpy(z.get() + pce.num_inputs, w.aux().data(), pce.num_aux * sizeof(Fr), cudaMemcpyHostToDevice));
    CUZK_CUDA_CHECK(cudaMemset(bad.get(), 0xff, sizeof(unsigned long long)));
    const auto s = measure(reps, [&] {
        m.evaluate(z.get(), a.get(), b.get(), c.get(), n, bad.get(), nullptr);
        CUZK_CUDA_CHECK(cudaDeviceSynchronize());
    });
    unsigned long long first_bad = 0;
    CUZK_CUDA_CHECK(cudaMemcpy(&first_bad, bad.get(), sizeof first_bad, cudaMemcpyDeviceToHost));
    if (first_bad != ~0ull)
        throw std::runtime_error("bench gpu-products: row " + std::to_string(first_bad) + " is not satisfied");
    nlohmann::json extra = {{"circuit", spec.name},
                            {"rows", pce.num_constraints},
                            {"terms", pce.a.terms.size() + pce.b.terms.size() + pce.c.terms.size()},
                            {"pce_compile_s", compile_s}};
    report("gpu-products", (int)std::bit_width(n) - 1, 1e3, "ms", 1, s, extra);
#else
    (void)spec, (void)reps;
    throw std::runtime_error("bench gpu-products: built without CUDA");
#endif
}

// One thread per core writing a 64 MiB buffer of its own over and over until destroyed (the memory traffic of the
// syntheses that run while a partition's witness goes up).
struct MemoryLoad {
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    MemoryLoad() {
        for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); t++)
            threads.emplace_back([this] {
                std::vector<unsigned char> buf(size_t{64} << 20);
                for (unsigned char v = 0; !stop.load(std::memory_order_relaxed); v++)
                    std::memset(buf.data(), v, buf.size());
            });
    }
    ~MemoryLoad() {
        stop = true;
        for (auto& t : threads) t.join();
    }
};

// Host -> device copies of a witness-sized buffer (2^log_size field elements, pageable): the pinned uploader's
// staged copy (the prover's path), the same beside a load of one thread per core writing memory (as the next
// partitions' syntheses do while partition 0's witness goes up), and a registered buffer: cudaHostRegister of fresh
// (untouched) pages and of touched ones, one DMA from it, cudaHostUnregister. JSON names gpu-upload-*.
void bench_gpu_upload(int log_size, int reps) {
#ifdef CUZK_HAVE_CUDA
    if (gpu::devices().empty()) throw std::runtime_error("bench gpu-upload: no CUDA device");
    const size_t n = size_t{1} << log_size, bytes = n * sizeof(Fr);
    const auto d = device_copy(n, {});
    std::vector<Fr> host(n, Fr::one());
    const gpu::Stream stream = gpu::Stream::create();
    const cudaStream_t st = stream.get();
    auto& up = gpu::PinnedUploader::shared();
    auto staged = [&] {
        up.upload(d.get(), host.data(), bytes, st);
        CUZK_CUDA_CHECK(cudaStreamSynchronize(st));
    };
    const nlohmann::json extra = {{"bytes", bytes}};
    report("gpu-upload-staged", log_size, 1e3, "ms", 1, measure(reps, staged), extra);
    {
        const MemoryLoad load;
        const auto s = measure(reps, staged);
        nlohmann::json e = extra;
        e["load_threads"] = load.threads.size();
        report("gpu-upload-staged-beside-load", log_size, 1e3, "ms", 1, s, e);
    }
    std::vector<double> reg_fresh, reg_touched, dma, unreg;
    auto seconds = [](auto t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); };
    for (int i = 0; i <= reps; i++) {  // the first round is a warm-up
        const std::unique_ptr<void, decltype(&std::free)> fresh(std::malloc(bytes), std::free);
        if (!fresh) throw std::runtime_error("bench gpu-upload: out of host memory");
        auto t0 = clock_type::now();
        CUZK_CUDA_CHECK(cudaHostRegister(fresh.get(), bytes, cudaHostRegisterDefault));
        const double r = seconds(t0);
        t0 = clock_type::now();
        CUZK_CUDA_CHECK(cudaMemcpyAsync(d.get(), fresh.get(), bytes, cudaMemcpyHostToDevice, st));
        CUZK_CUDA_CHECK(cudaStreamSynchronize(st));
        const double m = seconds(t0);
        t0 = clock_type::now();
        CUZK_CUDA_CHECK(cudaHostUnregister(fresh.get()));
        const double u = seconds(t0);
        t0 = clock_type::now();
        CUZK_CUDA_CHECK(cudaHostRegister(host.data(), bytes, cudaHostRegisterDefault));
        const double rt = seconds(t0);
        CUZK_CUDA_CHECK(cudaHostUnregister(host.data()));
        if (i == 0) continue;
        reg_fresh.push_back(r), dma.push_back(m), unreg.push_back(u), reg_touched.push_back(rt);
    }
    report("gpu-upload-register-fresh", log_size, 1e3, "ms", 1, reg_fresh, extra);
    report("gpu-upload-register-touched", log_size, 1e3, "ms", 1, reg_touched, extra);
    report("gpu-upload-registered-dma", log_size, 1e3, "ms", 1, dma, extra);
    report("gpu-upload-unregister", log_size, 1e3, "ms", 1, unreg, extra);
#else
    (void)log_size, (void)reps;
    throw std::runtime_error("bench gpu-upload: built without CUDA");
#endif
}

}  // namespace

std::vector<std::string> bench_names() {
    return {"all",        "fq-mul",     "fr-mul",  "g1-add",       "pairing", "ntt",      "msm-g1",
            "msm-g2",     "gpu-msm-g1", "gpu-msm-g2", "gpu-ntt", "gpu-h", "gpu-products", "gpu-upload", "groth16",
            "pipeline",   "porep-c2",   "params-load", "post",  "snap"};
}

// `groth16_circuit`: mulchain (2^log_size constraints) or a PoRep circuit (circuits/catalog.hpp).
int run_bench(const BenchOptions& opt, const std::string& groth16_circuit) {
    if (groth16_circuit != "mulchain" && !circuits::is_porep_circuit(groth16_circuit))
        throw std::invalid_argument("bench groth16: unknown circuit '" + groth16_circuit +
                                    "' (mulchain, porep-2k ... porep-64g or a PoRep proof type)");
#ifdef CUZK_HAVE_CUDA
    if (opt.blocking_waits) gpu::set_blocking_waits(true);
#endif
    int reps = opt.quick ? 3 : opt.repetitions;
    auto size_or = [&](int dflt, int quick) { return opt.log_size >= 0 ? opt.log_size : (opt.quick ? quick : dflt); };
    bool all = opt.what == "all";
    if (all || opt.what == "fq-mul") bench_field_mul<Fq>("fq-mul", reps);
    if (all || opt.what == "fr-mul") bench_field_mul<Fr>("fr-mul", reps);
    if (all || opt.what == "g1-add") bench_g1_add(reps);
    if (all || opt.what == "pairing") bench_pairing(reps);
    if (all || opt.what == "ntt") bench_ntt(size_or(20, 16), reps);
    if (all || opt.what == "msm-g1") bench_msm<G1Config>("msm-g1", size_or(16, 12), reps);
    if (all || opt.what == "msm-g2") bench_msm<G2Config>("msm-g2", size_or(16, 10), reps);
    // GPU benchmarks: not part of "all" (CPU only)
    auto gpu_msm_bench = [&](const char* name, int log_size) {
        GpuMsmBench b;
        b.name = name;
        b.log_size = log_size;
        b.reps = reps;
        b.window_bits = opt.window_bits;
        b.reduce_lanes = opt.reduce_lanes;
        b.piece_points = opt.piece_points;
        b.walk_chunks = opt.walk_chunks;
        b.reduce_levels = opt.reduce_levels;
        b.ones_share = opt.ones_share;
        b.ones_listed = opt.ones_listed;
        b.precompute_windows = opt.precompute_windows;
        b.device_scalars = opt.device_scalars;
        b.streamed = opt.streamed;
        b.chunk_points = opt.chunk_points;
        b.sets = opt.sets;
        return b;
    };
    if (opt.what == "gpu-msm-g1") bench_gpu_msm<G1Config>(gpu_msm_bench("gpu-msm-g1", size_or(24, 20)));
    if (opt.what == "gpu-ntt") bench_gpu_ntt(size_or(24, 20), reps, opt.ntt_kind, opt.ntt_in_place, opt.ntt_steps);
    if (opt.what == "gpu-msm-g2") bench_gpu_msm<G2Config>(gpu_msm_bench("gpu-msm-g2", size_or(20, 16)));
    if (opt.what == "gpu-upload") bench_gpu_upload(size_or(27, 20), reps);
    if (opt.what == "gpu-h") bench_gpu_h(size_or(27, 20), reps, opt.lean_h);
    if (opt.what == "gpu-products") {
        CircuitOptions c;
        c.name = groth16_circuit == "mulchain" ? "porep-2k" : groth16_circuit;
        bench_gpu_products(c, reps);
    }
    if (all || opt.what == "groth16") {
        CircuitOptions c;
        c.name = groth16_circuit;
        c.log_size = (unsigned)size_or(16, 10);  // mulchain only
        c.publics = 1;
        run_bench_groth16(c, opt, reps, cpu_model());
    }
    if (opt.what == "pipeline") {  // not part of "all": it is a system benchmark
        CircuitOptions c;
        c.name = groth16_circuit;
        c.log_size = (unsigned)size_or(16, 10);  // mulchain only
        c.publics = 1;
        run_bench_pipeline(c, opt, cpu_model());
    }
    // System benchmarks too (not part of "all").
    if (opt.what == "porep-c2") run_bench_porep_c2(opt, cpu_model());
    if (opt.what == "params-load") run_bench_params_load(opt, cpu_model());
    if (opt.what == "post") run_bench_post(opt, cpu_model());
    if (opt.what == "snap") run_bench_snap(opt, cpu_model());
    return 0;
}

int run_bench(const BenchOptions& opt) { return run_bench(opt, "mulchain"); }

}  // namespace cuzk::cli
