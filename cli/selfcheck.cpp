// `cuzk selfcheck` and `cuzk info`: a quick end-to-end check of the arithmetic on fresh random inputs, the GPU
// against the CPU when a device is present, and a summary of the machine.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "cuzk/ec/encoding.hpp"
#include "cuzk/ec/g1.hpp"
#include "cuzk/ec/g2.hpp"
#include "cuzk/ec/random_points.hpp"
#include "cuzk/ec/subgroup.hpp"
#include "cuzk/ff/fq2.hpp"
#include "cuzk/msm/batch_add_ifma.hpp"
#include "cuzk/msm/msm.hpp"
#include "cuzk/pairing/pairing.hpp"
#include "cuzk/poly/domain.hpp"
#include "cuzk/poly/ntt.hpp"
#include "cuzk/util/thread_pool.hpp"
#ifdef CUZK_HAVE_CUDA
#include "cuzk/gpu/device.hpp"
#endif

namespace cuzk::cli {

namespace {

std::mt19937_64 fresh_rng() {
    std::random_device rd;
    return std::mt19937_64(((uint64_t)rd() << 32) ^ rd());
}

struct Checker {
    int failed = 0;
    void run(const char* name, const std::function<bool()>& fn) {
        auto t0 = std::chrono::steady_clock::now();
        bool ok = false;
        std::string err;
        try {
            ok = fn();
        } catch (const std::exception& e) {
            err = e.what();
        }
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%-48s %s  (%.1f ms)%s%s\n", name, ok ? "ok" : "FAILED", ms, err.empty() ? "" : "  ",
                    err.c_str());
        std::fflush(stdout);
        if (!ok) failed++;
    }
};

template <class F>
bool field_identities(std::mt19937_64& rng) {
    for (int i = 0; i < 100; i++) {
        F a = F::random(rng), b = F::random(rng), c = F::random(rng);
        if (a * (b + c) != a * b + a * c) return false;
        if (!a.is_zero() && !(a * a.inverse().value()).is_one()) return false;
        auto s = a.square().sqrt();
        if (!s || (*s != a && *s != -a)) return false;
    }
    return true;
}

}  // namespace

int run_selfcheck() {
    Checker c;
    auto rng = fresh_rng();
    c.run("Fq, Fr, Fq2: ring identities, inverse, sqrt", [&] {
        return field_identities<Fq>(rng) && field_identities<Fr>(rng) && field_identities<Fq2>(rng);
    });
    c.run("G1, G2: r*G = O, group law, subgroup checks", [&] {
        auto g1 = G1Jacobian::generator();
        auto g2 = G2Jacobian::generator();
        if (!g1.mul(Fr::P).is_identity() || !g2.mul(Fr::P).is_identity()) return false;
        Fr a = Fr::random(rng), b = Fr::random(rng);
        if (g1.mul(a.to_canonical()) + g1.mul(b.to_canonical()) != g1.mul((a + b).to_canonical())) return false;
        if (g2.mul(a.to_canonical()) + g2.mul(b.to_canonical()) != g2.mul((a + b).to_canonical())) return false;
        return g1_in_subgroup(g1.mul(a.to_canonical()).to_affine()) &&
               g2_in_subgroup(g2.mul(b.to_canonical()).to_affine());
    });
    c.run("zcash encodings round trip", [&] {
        auto p = G1Jacobian::generator().mul(Fr::random(rng).to_canonical()).to_affine();
        auto q = G2Jacobian::generator().mul(Fr::random(rng).to_canonical()).to_affine();
        return g1_from_compressed(g1_to_compressed(p)).value() == p &&
               g1_from_uncompressed(g1_to_uncompressed(p)).value() == p &&
               g2_from_compressed(g2_to_compressed(q)).value() == q &&
               g2_from_uncompressed(g2_to_uncompressed(q)).value() == q;
    });
    c.run("pairing: bilinearity e(aP, bQ) = e(P, Q)^(ab)", [&] {
        Fr a = Fr::random(rng), b = Fr::random(rng);
        auto p = G1Jacobian::generator().mul(Fr::random(rng).to_canonical());
        auto q = G2Jacobian::generator().mul(Fr::random(rng).to_canonical());
        Fq12 lhs = pairing(p.mul(a.to_canonical()).to_affine(), q.mul(b.to_canonical()).to_affine());
        Fq12 rhs = pairing(p.to_affine(), q.to_affine()).pow((a * b).to_canonical());
        return lhs == rhs && !lhs.is_one();
    });
    c.run("NTT 2^12: naive DFT at 2^6, intt(ntt(x)) = x", [&] {
        auto small = EvaluationDomain::from_log_size(6);
        auto x = random_scalars<Fr>(small.size(), rng());
        auto y = x;
        ntt(small, y);
        for (size_t k = 0; k < small.size(); k++) {
            Fr acc = Fr::zero(), wk = small.element(k), pw = Fr::one();
            for (size_t i = 0; i < small.size(); i++) acc += x[i] * pw, pw *= wk;
            if (acc != y[k]) return false;
        }
        auto d = EvaluationDomain::from_log_size(12);
        auto v = random_scalars<Fr>(d.size(), rng());
        auto w = v;
        coset_ntt(d, w);
        coset_intt(d, w);
        ntt(d, w);
        intt(d, w);
        return v == w;
    });
    c.run("MSM G1/G2 against the naive sum (0/1 heavy)", [&] {
        size_t n = 200;
        auto b1 = random_points<G1Config>(n, rng());
        auto b2 = random_points<G2Config>(n, rng());
        auto s = random_scalars<Fr>(n, rng());
        for (size_t i = 0; i < n; i += 3) s[i] = Fr::zero();
        for (size_t i = 1; i < n; i += 3) s[i] = Fr::one();
        G1Jacobian e1 = G1Jacobian::identity();
        G2Jacobian e2 = G2Jacobian::identity();
        for (size_t i = 0; i < n; i++) {
            e1 += b1[i].to_jacobian().mul(s[i].to_canonical());
            e2 += b2[i].to_jacobian().mul(s[i].to_canonical());
        }
        return msm_g1(b1, s) == e1 && msm_g2(b2, s) == e2;
    });
#ifdef CUZK_HAVE_CUDA
    auto devs = gpu::devices();
    for (const auto& u : gpu::unusable_devices())
        std::printf("note: CUDA device %d (%s) is left out: %s\n", u.info.id, u.info.name.c_str(), u.why.c_str());
    if (devs.empty()) {
        std::printf("%-48s skipped (no usable CUDA device)\n", "GPU field multiplication against the CPU");
    } else {
        c.run("GPU field multiplication against the CPU", [&] {
            size_t n = 1 << 18;
            auto a = random_scalars<Fq>(n, rng()), b = random_scalars<Fq>(n, rng());
            std::vector<Fq> out(n);
            gpu::fq_mul(a, b, out);
            for (size_t i = 0; i < n; i++)
                if (out[i] != a[i] * b[i]) return false;
            auto x = random_scalars<Fr>(n, rng()), y = random_scalars<Fr>(n, rng());
            std::vector<Fr> z(n);
            gpu::fr_mul(x, y, z);
            for (size_t i = 0; i < n; i++)
                if (z[i] != x[i] * y[i]) return false;
            return true;
        });
    }
#else
    std::printf("%-48s skipped (built without CUDA)\n", "GPU field multiplication against the CPU");
#endif
    std::printf("selfcheck: %s\n", c.failed ? "FAILED" : "all checks passed");
    return c.failed ? 1 : 0;
}

int run_info() {
    std::ifstream f("/proc/cpuinfo");
    std::string line, model = "unknown";
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) {
            model = line.substr(line.find(':') + 2);
            break;
        }
    std::printf("cuzk " CUZK_VERSION "\ncpu: %s, %u hardware threads, pool of %zu threads\n", model.c_str(),
                std::thread::hardware_concurrency(), num_threads());
#if CUZK_MONT_ASM
    std::printf("fq multiplication: x86-64 mulx/adcx/adox\n");
#else
    std::printf("fq multiplication: portable\n");
#endif
    // The MSMs' batched additions: eight at a time on AVX-512 IFMA where the CPU has it (CUZK_CPU_IFMA=0: off).
    std::printf("msm additions: %s\n", msm_detail::ifma_enabled()   ? "avx512-ifma, 8 lanes"
                                        : msm_detail::ifma_supported() ? "scalar (avx512-ifma turned off: CUZK_CPU_IFMA=0)"
                                                                       : "scalar (no avx512-ifma on this cpu)");
#ifdef CUZK_HAVE_CUDA
    auto devs = gpu::devices();
    std::printf("cuda code: %s\n", gpu::describe_cuda_archs(gpu::built_cuda_archs()).c_str());
    const auto unusable = gpu::unusable_devices();
    if (devs.empty() && unusable.empty()) std::printf("gpu: none found (CUDA build)\n");
    for (auto& d : devs)
        std::printf("gpu %d: %s, %.1f GiB, %d SMs, compute capability %d.%d\n", d.id, d.name.c_str(),
                    (double)d.total_memory / (1ull << 30), d.sm_count, d.cc_major, d.cc_minor);
    for (const auto& u : unusable)
        std::printf("gpu %d: %s, left out: %s\n", u.info.id, u.info.name.c_str(), u.why.c_str());
#else
    std::printf("gpu: not built (no nvcc at configure time)\n");
#endif
    return 0;
}

}  // namespace cuzk::cli
