#include "cuzk/backends/cuda/prover_gpu.hpp"

#include <future>
#include <utility>

#include "cuzk/backends/cuda/h_gpu.hpp"
#include "cuzk/gpu/device.hpp"
#include "cuzk/gpu/msm.hpp"
#include "cuzk/groth16/prover.hpp"
#include "cuzk/util/deallocator.hpp"

namespace cuzk::gpu {

namespace {
constexpr TimingLayer kLayer = TimingLayer::Prover;

GpuMsmConfig on(int device) {
    GpuMsmConfig c;
    c.device = device;
    return c;
}
}  // namespace

struct GpuProver::Impl {
    const groth16::Parameters& p;
    GpuProverConfig cfg;
    G1MsmContext a, b1, l, h;
    G2MsmContext b2;
    // Device arrays for H, kept while the domain size stays the same. Two in a batch: while circuit i's MSMs run,
    // circuit i + 1's a, b, c are uploaded into the other (when the device has the memory for it).
    std::unique_ptr<HComputer> hc[2];
    bool prefetched[2] = {false, false};
    bool pipeline_ok = true;  // false once the second set of arrays did not fit

    Impl(const groth16::Parameters& params, const GpuProverConfig& c)
        : p(params),
          cfg(c),
          a(params.a, on(c.device)),
          b1(params.b_g1, on(c.device)),
          l(params.l, on(c.device)),
          h(params.h, on(c.device)),
          b2(params.b_g2, on(c.device)) {}

    // The H arrays of slot k for this domain (made or remade when the size or convention changed); nullptr when
    // they do not fit (slot 1 only: slot 0 lets the error through).
    HComputer* slot(int k, const EvaluationDomain& domain) {
        auto& c = hc[k];
        if (!c || c->log_n() != domain.log_size() || c->convention() != p.h_convention) {
            c.reset();
            prefetched[k] = false;
            if (k == 1) {
                // The second set only with room to spare (as much again), so the MSMs' scratch, which grows
                // with the largest call, keeps fitting; else prove without the overlap.
                const size_t need = h_gpu_device_bytes(domain.log_size(), p.h_convention);
                if (free_device_memory() < 2 * need) {
                    pipeline_ok = false;
                    return nullptr;
                }
                try {
                    c = std::make_unique<HComputer>(domain.log_size(), p.h_convention);
                } catch (const CudaError&) {
                    pipeline_ok = false;
                    return nullptr;
                }
            } else {
                c = std::make_unique<HComputer>(domain.log_size(), p.h_convention);
            }
        }
        return c.get();
    }

    // CPU and GPU work overlap: the 0/1 split of the A, B, L scalars (CPU) runs while H and its MSM run on the
    // GPU; the B_G2 MSM (its own stream, from another host thread) runs beside the G1 MSMs; and when `next` is
    // given, its a, b, c are uploaded (another host thread, the other H slot) while this circuit's MSMs run.
    groth16::Proof prove_one(r1cs::ProvingAssignment& asg, const EvaluationDomain& domain, const Fr& r,
                             const Fr& s, TimingSink* timing, int64_t item, int k, r1cs::ProvingAssignment* next,
                             const EvaluationDomain* next_domain) {
        auto split = std::async(std::launch::async, [&] {
            ScopedTiming t(timing, kLayer, "msm.split", item);
            return groth16::split_queries(asg, true);  // reads inputs, aux, densities only; the GPU converts
        });
        G1Jacobian h_sum;
        HComputer* hk = nullptr;
        {
            ScopedTiming t(timing, kLayer, "h", item);
            use_device(cfg.device);
            hk = slot(k, domain);
            if (prefetched[k]) {
                prefetched[k] = false;
                hk->run_prefetched({timing, "h", item});
            } else {
                hk->run(asg.a(), asg.b(), asg.c(), {timing, "h", item});
                release_abc(asg);
            }
        }
        {
            ScopedTiming t(timing, kLayer, "msm.h", item);
            h_sum = h.msm_device(hk->h_device(), p.h.size(), {timing, "msm.h", item});  // H stays on the device
        }
        // The next circuit's upload, now that this one's H is consumed (slot 1 - k is free).
        std::future<void> upload;
        if (next && pipeline_ok) {
            HComputer* hn = slot(1 - k, *next_domain);
            if (hn) {
                upload = std::async(std::launch::async, [&, hn, next, k] {
                    ScopedTiming t(timing, kLayer, "h.prefetch", item + 1);
                    use_device(cfg.device);
                    hn->prefetch(next->a(), next->b(), next->c(), {timing, "h", item + 1});
                    prefetched[1 - k] = true;
                    release_abc(*next);
                });
            }
        }
        groth16::QuerySplits q = split.get();
        auto b2_future = std::async(std::launch::async, [&] {
            ScopedTiming t(timing, kLayer, "msm.b_g2", item);
            return b2.msm_split(q.b, {timing, "msm.b_g2", item});
        });
        G1Jacobian a_sum, b1_sum, l_sum;
        {
            ScopedTiming t(timing, kLayer, "msm.a", item);
            a_sum = a.msm_split(q.a, {timing, "msm.a", item});
        }
        {
            ScopedTiming t(timing, kLayer, "msm.b_g1", item);
            b1_sum = b1.msm_split(q.b, {timing, "msm.b_g1", item});
        }
        {
            ScopedTiming t(timing, kLayer, "msm.l", item);
            l_sum = l.msm_split(q.l, {timing, "msm.l", item});
        }
        const G2Jacobian b2_sum = b2_future.get();
        if (upload.valid()) upload.get();  // rethrows an upload failure
        for (ScalarSplit* sp : {&q.a, &q.b, &q.l}) {
            Deallocator::global().defer(sp->one_indices);
            Deallocator::global().defer(sp->other_indices);
            Deallocator::global().defer(sp->other_scalars);
        }
        ScopedTiming t(timing, kLayer, "assembly", item);
        return groth16::assemble_proof(p.vk, a_sum, b1_sum, b2_sum, h_sum, l_sum, r, s);
    }

    // a, b, c are consumed as the CPU seam consumes them, and freed off the hot path (GBs at Filecoin sizes).
    static void release_abc(r1cs::ProvingAssignment& asg) {
        Deallocator::global().defer(asg.a());
        Deallocator::global().defer(asg.b());
        Deallocator::global().defer(asg.c());
    }
};

GpuProver::GpuProver(const groth16::Parameters& params, const GpuProverConfig& cfg)
    : impl_(std::make_unique<Impl>(params, cfg)) {}
GpuProver::~GpuProver() = default;

std::vector<groth16::Proof> GpuProver::prove_from_assignments(std::span<r1cs::ProvingAssignment> assignments,
                                                              std::span<const Fr> r, std::span<const Fr> s,
                                                              TimingSink* timing) {
    ScopedTiming total(timing, kLayer, "prove");
    groth16::check_randomness(assignments.size(), r, s);
    std::vector<EvaluationDomain> domains;
    domains.reserve(assignments.size());
    for (size_t i = 0; i < assignments.size(); i++)
        domains.push_back(groth16::check_assignment(impl_->p, assignments[i], i));
    std::vector<groth16::Proof> proofs;
    proofs.reserve(assignments.size());
    impl_->prefetched[0] = impl_->prefetched[1] = false;  // nothing carries over from an earlier (failed) call
    for (size_t i = 0; i < assignments.size(); i++) {
        const bool has_next = i + 1 < assignments.size();
        proofs.push_back(impl_->prove_one(assignments[i], domains[i], r[i], s[i], timing, (int64_t)i, (int)(i % 2),
                                          has_next ? &assignments[i + 1] : nullptr,
                                          has_next ? &domains[i + 1] : nullptr));
    }
    return proofs;
}

size_t GpuProver::resident_bytes() const {
    return impl_->a.resident_bytes() + impl_->b1.resident_bytes() + impl_->l.resident_bytes() +
           impl_->h.resident_bytes() + impl_->b2.resident_bytes();
}

}  // namespace cuzk::gpu
