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
    std::unique_ptr<HComputer> hc;  // device arrays for H, kept while the domain size stays the same

    Impl(const groth16::Parameters& params, const GpuProverConfig& c)
        : p(params),
          cfg(c),
          a(params.a, on(c.device)),
          b1(params.b_g1, on(c.device)),
          l(params.l, on(c.device)),
          h(params.h, on(c.device)),
          b2(params.b_g2, on(c.device)) {}

    // CPU and GPU work overlap: the 0/1 split of the A, B, L scalars (CPU) runs while H and its MSM run on the
    // GPU, and the B_G2 MSM (its own stream, from another host thread) runs beside the G1 MSMs.
    groth16::Proof prove_one(r1cs::ProvingAssignment& asg, const EvaluationDomain& domain, const Fr& r,
                             const Fr& s, TimingSink* timing, int64_t item) {
        auto split = std::async(std::launch::async, [&] {
            ScopedTiming t(timing, kLayer, "msm.split", item);
            return groth16::split_queries(asg, true);  // reads inputs, aux, densities only; the GPU converts
        });
        G1Jacobian h_sum;
        {
            ScopedTiming t(timing, kLayer, "h", item);
            use_device(cfg.device);
            if (!hc || hc->log_n() != domain.log_size() || hc->convention() != p.h_convention) {
                hc.reset();
                hc = std::make_unique<HComputer>(domain.log_size(), p.h_convention);
            }
            hc->run(asg.a(), asg.b(), asg.c(), {timing, "h", item});
            // Consumed as the CPU seam consumes them; freed off the hot path (GBs at Filecoin sizes).
            Deallocator::global().defer(asg.a());
            Deallocator::global().defer(asg.b());
            Deallocator::global().defer(asg.c());
        }
        {
            ScopedTiming t(timing, kLayer, "msm.h", item);
            h_sum = h.msm_device(hc->h_device(), p.h.size(), {timing, "msm.h", item});  // H stays on the device
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
        for (ScalarSplit* sp : {&q.a, &q.b, &q.l}) {
            Deallocator::global().defer(sp->one_indices);
            Deallocator::global().defer(sp->other_indices);
            Deallocator::global().defer(sp->other_scalars);
        }
        ScopedTiming t(timing, kLayer, "assembly", item);
        return groth16::assemble_proof(p.vk, a_sum, b1_sum, b2_sum, h_sum, l_sum, r, s);
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
    for (size_t i = 0; i < assignments.size(); i++)
        proofs.push_back(impl_->prove_one(assignments[i], domains[i], r[i], s[i], timing, (int64_t)i));
    return proofs;
}

size_t GpuProver::resident_bytes() const {
    return impl_->a.resident_bytes() + impl_->b1.resident_bytes() + impl_->l.resident_bytes() +
           impl_->h.resident_bytes() + impl_->b2.resident_bytes();
}

}  // namespace cuzk::gpu
