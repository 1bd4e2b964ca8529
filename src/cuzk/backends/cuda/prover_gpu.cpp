#include "cuzk/backends/cuda/prover_gpu.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuzk/backends/cuda/device_split.hpp"
#include "cuzk/backends/cuda/h_gpu.hpp"
#include "cuzk/backends/cuda/h_slots.hpp"
#include "cuzk/backends/cuda/products_gpu.hpp"
#include "cuzk/gpu/cuda_check.cuh"
#include "cuzk/gpu/device.hpp"
#include "cuzk/gpu/msm.hpp"
#include "cuzk/gpu/msm_streamed.hpp"
#include "cuzk/gpu/pinned_upload.cuh"
#include "cuzk/gpu/subgroup.hpp"
#include "cuzk/gpu/ntt.hpp"
#include "cuzk/groth16/prover.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "cuzk/util/deallocator.hpp"
#include "cuzk/util/random.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk::gpu {

namespace {
constexpr TimingLayer kLayer = TimingLayer::Prover;

GpuMsmConfig on(int device, std::shared_ptr<MsmScratch> scratch = nullptr, bool table = false,
               bool high_priority = false) {
    GpuMsmConfig c;
    c.device = device;
    c.scratch = std::move(scratch);
    c.precompute_windows = table;
    c.high_priority = high_priority;
    return c;
}

// Which G1 queries get a precomputed window table under GpuProverConfig::msm_table_bytes: H, L, A, B_G1 in that
// order (the largest dense MSMs first), each while its table's extra bytes fit in what is left.
struct TablePlan {
    bool h = false, l = false, a = false, b1 = false;
};
TablePlan table_plan(const groth16::KeyShape& p, const GpuProverConfig& c) {
    TablePlan plan;
    if (c.msm_table_bytes == 0) return plan;
    const unsigned sms = (unsigned)std::max(1, devices().at((size_t)c.device).sm_count);
    size_t left = c.msm_table_bytes;
    auto take = [&](size_t n) {
        if (n == 0) return false;
        const unsigned w = gpu_msm_window_bits(n, sms, true);
        const size_t windows = (256 + w - 1) / w;
        if ((uint64_t)n * windows >= (uint64_t(1) << 31)) return false;  // the table's index limit
        const size_t extra = G1MsmContext::precomputed_table_bytes(n, w) / windows * (windows - 1);
        if (extra > left) return false;
        left -= extra;
        return true;
    };
    plan.h = take(p.h);
    plan.l = take(p.l);
    plan.a = take(p.a);
    plan.b1 = take(p.b_g1);
    return plan;
}

using G1Query = groth16::QuerySource::G1Query;

// A query's resident bases: straight from the vector of Parameters in memory, else made by the source as they go up
// (a file decoded into the pinned staging buffers).
G1MsmContext g1_context(const groth16::QuerySource& src, G1Query q, size_t n, const GpuMsmConfig& c) {
    if (auto* p = dynamic_cast<const groth16::ParametersSource*>(&src)) return G1MsmContext(p->points(q), c);
    return G1MsmContext(n, [&src, q](size_t lo, size_t hi, G1Affine* out) { src.read(q, lo, hi, out); }, c);
}
G2MsmContext g2_context(const groth16::QuerySource& src, size_t n, const GpuMsmConfig& c) {
    if (auto* p = dynamic_cast<const groth16::ParametersSource*>(&src))
        return G2MsmContext(p->points_b_g2(), c);
    return G2MsmContext(n, [&src](size_t lo, size_t hi, G2Affine* out) { src.read_b_g2(lo, hi, out); }, c);
}

// One query's MSMs: its bases resident on the device, or in page-locked host memory and streamed up at every call
// (GpuProverConfig::stream_queries).
template <class Cfg>
class QueryMsm {
public:
    explicit QueryMsm(MsmContext<Cfg> c) : resident_(std::move(c)) {}
    explicit QueryMsm(StreamedMsm<Cfg> s) : streamed_(std::move(s)) {}

    Jacobian<Cfg> msm_device(const Fr* d_scalars, size_t m, const KernelSpans& spans) {
        if (resident_) return resident_->msm_device(d_scalars, m, spans);
        const Fr* const one[] = {d_scalars};
        return streamed_->msm_device(one, m, spans)[0];
    }
    Jacobian<Cfg> msm_split(const ScalarSplit& split, const KernelSpans& spans) {
        if (resident_) return resident_->msm_split(split, spans);
        const ScalarSplit* const one[] = {&split};
        return streamed_->msm_split(one, spans)[0];
    }
    // The ones of several bitmaps at once (MsmContext::sum_patterns; resident bases only: groups are not made
    // for a streamed key).
    std::vector<Jacobian<Cfg>> sum_patterns(std::span<const std::span<const uint64_t>> bitmaps, size_t count,
                                            const KernelSpans& spans) {
        if (!resident_) throw std::logic_error("gpu prover: deferred ones need resident bases");
        return resident_->sum_patterns(bitmaps, count, spans);
    }
    size_t device_bytes() const { return resident_ ? resident_->resident_bytes() : streamed_->device_bytes(); }
    // The scratch of an msm_device call of m scalars, made now where it fits (resident bases; a streamed query's
    // calls size their own).
    void reserve_device_call(size_t m) {
        if (resident_) resident_->reserve_device_call(m);
    }
    // The batched subgroup check over the points on the device (gpu/subgroup.hpp), chunk by chunk when streamed.
    bool in_subgroup(const BatchSubgroupOptions& o, int device) {
        const auto check = [&](const void* d, size_t n) {
            if constexpr (std::is_same_v<Cfg, G1Config>) return g1_resident_in_subgroup_gpu(d, n, o, device);
            else return g2_resident_in_subgroup_gpu(d, n, o, device);
        };
        if (resident_) return check(resident_->device_bases(), resident_->num_bases());
        return streamed_->for_each_chunk([&](const void* d, size_t, size_t n) { return check(d, n); });
    }

private:
    std::optional<MsmContext<Cfg>> resident_;
    std::optional<StreamedMsm<Cfg>> streamed_;
};

// Bases per chunk of a streamed G1 query (GpuProverConfig::stream_chunk_points, else a 48th of the device's memory
// per buffer, 2^16 .. 2^24; its free memory when that is less than its size: other processes on the card, or a
// ballast standing in for a smaller card, scripts/gpu-filecoin.sh c2-small); B_G2 takes half as many (its points
// are twice as large).
size_t stream_chunk(const GpuProverConfig& c) {
    if (c.stream_chunk_points) return c.stream_chunk_points;
    int current = 0;
    CUZK_CUDA_CHECK(cudaGetDevice(&current));
    use_device(c.device);
    const size_t free_b = free_device_memory();
    use_device(current);
    const size_t per_buffer = std::min(devices().at((size_t)c.device).total_memory, free_b) / 48 / 96;
    size_t k = size_t{1} << 16;
    while (k < (size_t{1} << 24) && 2 * k <= per_buffer) k *= 2;
    return k;
}

// B_G2's: half as many (its points are twice as large).
size_t g2_stream_chunk(const GpuProverConfig& c) { return std::max<size_t>(stream_chunk(c) / 2, 64); }

StreamedMsmConfig streamed_config(const GpuMsmConfig& c, size_t chunk) {
    StreamedMsmConfig sc;
    sc.msm = c;
    sc.chunk_points = chunk;
    return sc;
}
}  // namespace

struct StreamedKey::Impl {
    groth16::KeyShape shape;
    std::shared_ptr<const HostBases<G1Config>> h, l, a, b1;
    std::shared_ptr<const HostBases<G2Config>> b2;

    explicit Impl(const groth16::QuerySource& src) : shape(src.shape()) {
        auto g1 = [&src](G1Query q, size_t n) {
            if (auto* p = dynamic_cast<const groth16::ParametersSource*>(&src))
                return std::make_shared<const HostBases<G1Config>>(std::span<const G1Affine>(p->points(q)));
            return std::make_shared<const HostBases<G1Config>>(
                n, [&src, q](size_t lo, size_t hi, G1Affine* out) { src.read(q, lo, hi, out); });
        };
        h = g1(G1Query::H, shape.h);
        l = g1(G1Query::L, shape.l);
        a = g1(G1Query::A, shape.a);
        b1 = g1(G1Query::BG1, shape.b_g1);
        if (auto* p = dynamic_cast<const groth16::ParametersSource*>(&src))
            b2 = std::make_shared<const HostBases<G2Config>>(std::span<const G2Affine>(p->points_b_g2()));
        else
            b2 = std::make_shared<const HostBases<G2Config>>(
                shape.b_g2, [&src](size_t lo, size_t hi, G2Affine* out) { src.read_b_g2(lo, hi, out); });
    }
};

StreamedKey::StreamedKey(const groth16::QuerySource& src) : impl_(std::make_unique<Impl>(src)) {}
StreamedKey::~StreamedKey() = default;
const groth16::KeyShape& StreamedKey::shape() const { return impl_->shape; }
size_t StreamedKey::host_bytes() const {
    return impl_->h->bytes() + impl_->l->bytes() + impl_->a->bytes() + impl_->b1->bytes() + impl_->b2->bytes();
}

namespace {
QueryMsm<G1Config> g1_query(const groth16::QuerySource* src, const StreamedKey* key, G1Query q, size_t n,
                            const GpuMsmConfig& c, const GpuProverConfig& pc) {
    if (!key) return QueryMsm<G1Config>(g1_context(*src, q, n, c));
    const StreamedKey::Impl& k = key->impl();
    const auto& host = q == G1Query::H ? k.h : q == G1Query::L ? k.l : q == G1Query::A ? k.a : k.b1;
    return QueryMsm<G1Config>(G1StreamedMsm(host, streamed_config(c, stream_chunk(pc))));
}
QueryMsm<G2Config> g2_query(const groth16::QuerySource* src, const StreamedKey* key, size_t n, const GpuMsmConfig& c,
                            const GpuProverConfig& pc) {
    if (!key) return QueryMsm<G2Config>(g2_context(*src, n, c));
    return QueryMsm<G2Config>(
        G2StreamedMsm(key->impl().b2, streamed_config(c, g2_stream_chunk(pc))));
}
}  // namespace

// Page-locks host arrays for its lifetime (GpuProverConfig::pin_host_params); ranges another owner registered
// already are left to it.
class HostPins {
public:
    HostPins() = default;
    HostPins(HostPins&& o) noexcept : pinned_(std::move(o.pinned_)) { o.pinned_.clear(); }
    HostPins(const HostPins&) = delete;
    HostPins& operator=(const HostPins&) = delete;
    HostPins& operator=(HostPins&&) = delete;
    // Only arrays of 1 MiB and more: the allocator maps those on pages of their own (a small array could share a
    // page with another, which a registration covers in whole), and they are what the upload's speed depends on.
    void pin(const void* p, size_t bytes) {
        if (bytes < (size_t{1} << 20)) return;
        const cudaError_t e = cudaHostRegister(const_cast<void*>(p), bytes, cudaHostRegisterPortable);
        if (e == cudaErrorHostMemoryAlreadyRegistered) {
            (void)cudaGetLastError();
            return;
        }
        CUZK_CUDA_CHECK(e);
        pinned_.push_back(const_cast<void*>(p));
    }
    ~HostPins() {
        for (void* p : pinned_) (void)cudaHostUnregister(p);
    }

private:
    std::vector<void*> pinned_;
};

HostPins pins_for(const groth16::Parameters& p, const GpuProverConfig& c) {
    HostPins pins;
    if (!c.pin_host_params) return pins;
    use_device(c.device);
    pins.pin(p.a.data(), p.a.size() * sizeof(G1Affine));
    pins.pin(p.b_g1.data(), p.b_g1.size() * sizeof(G1Affine));
    pins.pin(p.b_g2.data(), p.b_g2.size() * sizeof(G2Affine));
    pins.pin(p.l.data(), p.l.size() * sizeof(G1Affine));
    pins.pin(p.h.data(), p.h.size() * sizeof(G1Affine));
    return pins;
}

// A circuit proven into a group (GpuGroup): its MSM sums without the ones it defers, and those ones' bitmaps.
struct GpuProver::Deferred {
    G1Jacobian a, b1, l, h;
    G2Jacobian b2;
    Fr r, s;
    uninit_vector<uint64_t> ones[3];  // A's, B's (B_G1 and B_G2), L's; empty: none deferred (summed as usual)
    size_t sizes[3] = {0, 0, 0};      // the queries' scalar counts (the bitmaps' bits)
    int64_t item = 0;
    // The group's sums of those ones (sum_group_ones), once made.
    bool summed = false;
    G1Jacobian xa, xb1, xl;
    G2Jacobian xb2;
    ~Deferred() {
        secure_wipe_object(r);
        secure_wipe_object(s);
    }
};

struct GpuProver::Impl {
    const groth16::KeyShape shape;  // what proving needs of the parameters besides the points (resident or streamed)
    GpuProverConfig cfg;
    HostPins pins;  // before the contexts: their uploads read the pinned arrays
    std::shared_ptr<const StreamedKey> streamed;  // the queries' host copy when streamed (before the contexts)
    TablePlan tables;
    // H's MSM and the A, B_G1, L MSMs (one after another) share one scratch, unless cfg.overlap_query_msms runs them
    // beside each other: A, B_G1, L then share a second one, which falls back to the first (waiting for H's MSM)
    // for a call the device has no room for. B_G2's, which runs beside them, has its own, with the same fallback.
    std::shared_ptr<MsmScratch> g1_scratch, abl_scratch, g2_scratch;
    std::atomic<bool> fallback_noted{false};  // the first fallback of abl_scratch or g2_scratch is on stderr
    QueryMsm<G1Config> a, b1, l, h;
    QueryMsm<G2Config> b2;
    // Two sets of device arrays for H ("slots"), kept while the domain size stays the same: while one circuit's
    // MSMs run, the next circuit's a, b, c are uploaded into the other slot (inside a batch, or through prepare()).
    // The second slot is made only when the device has room for it. State under mu: `active` is the slot of the
    // proof running now (-1: none); held[k] says slot k holds a prepared circuit's data; prefetched[k] marks data
    // uploaded for the next circuit of the same batch.
    std::unique_ptr<HComputer> hc[2];
    std::mutex mu;
    int active = -1;
    bool held[2] = {false, false};
    bool prefetched[2] = {false, false};
    // cfg.share_slot: h_done[k], the running proof in slot k has computed H, so the transforms' scratch is free for
    // the next circuit's witness while its H query's MSM runs; h_read[k], it has read H (that MSM is done), so the
    // arrays are free for the next circuit's products while its A, B, L MSMs run; shared[k], slot k is held by such a
    // ticket (a proof that claims a slot takes it back: evict_shared); epoch[k] counts the holds of slot k, so that a
    // ticket whose hold was taken back knows it. slot_cv: h_done, h_read or active changed.
    bool h_done[2] = {false, false};
    bool h_read[2] = {false, false};
    bool shared[2] = {false, false};
    unsigned epoch[2] = {0, 0};
    uint64_t proofs_done = 0;  // release_active() calls
    std::condition_variable slot_cv;
    bool pipeline_ok = true;  // false once a second set of arrays did not fit
    std::atomic<bool> first_slot_made{false};  // a proof has claimed its slot (prepare waits for that)
    // Both slots made ahead of the first proof (warm_slots), on a thread of their own; slot() waits for slots_warm.
    // After hc and the queries, so that it is joined before they are destroyed.
    std::mutex warm_mu;
    std::future<void> warming;
    std::shared_future<void> slots_warm;  // ready once the warm-up's slots are made
    bool warm_started = false;  // under warm_mu
    std::atomic<size_t> split_bytes_seen{0};   // the largest 0/1 split of one circuit so far (working_bytes)
    // The compiled matrices on this device (hold_products), by their host object, while a holder keeps them. A
    // queued kernel never outlives them: cudaFree waits for the device's work.
    std::mutex products_mu;
    std::map<const r1cs::PrecompiledR1cs*, std::weak_ptr<DeviceMatrices>> products;

    // The queries from `src` made resident, or streamed from `key`, their shared host copy (src is then unused).
    Impl(const groth16::KeyShape& k, const groth16::QuerySource* src, std::shared_ptr<const StreamedKey> key,
         HostPins p, const GpuProverConfig& config)
        : shape(k),
          cfg(with_chunk(config, key != nullptr)),
          pins(std::move(p)),
          streamed(std::move(key)),
          tables(streamed ? TablePlan{} : table_plan(shape, cfg)),
          g1_scratch(std::make_shared<MsmScratch>(cfg.device)),
          abl_scratch(cfg.overlap_query_msms ? std::make_shared<MsmScratch>(cfg.device, g1_scratch) : g1_scratch),
          g2_scratch(std::make_shared<MsmScratch>(cfg.device, g1_scratch)),
          a(g1_query(src, streamed.get(), G1Query::A, shape.a, on(cfg.device, abl_scratch, tables.a, urgent()), cfg)),
          b1(g1_query(src, streamed.get(), G1Query::BG1, shape.b_g1, on(cfg.device, abl_scratch, tables.b1, urgent()),
                      cfg)),
          l(g1_query(src, streamed.get(), G1Query::L, shape.l, on(cfg.device, abl_scratch, tables.l, urgent()), cfg)),
          h(g1_query(src, streamed.get(), G1Query::H, shape.h, on(cfg.device, g1_scratch, tables.h), cfg)),
          b2(g2_query(src, streamed.get(), shape.b_g2, on(cfg.device, g2_scratch, false, urgent()), cfg)) {}

    // Whether the A, B_G1, L and B_G2 contexts' streams take the device's highest priority (query_msm_priority).
    bool urgent() const { return cfg.query_msm_priority; }

    // The config checked (h_slots), with a streamed prover's chunk size fixed once, before any query's buffers take
    // their memory (so every query gets the same chunks, and what the key store estimated), and without the second
    // MSM scratch there (overlap_query_msms: a card that streams its key is the one short of memory).
    static GpuProverConfig with_chunk(GpuProverConfig c, bool streams) {
        if (c.h_slots != 1 && c.h_slots != 2) throw std::invalid_argument("gpu prover: h_slots must be 1 or 2");
        if (streams) {
            c.stream_chunk_points = stream_chunk(c);
            c.overlap_query_msms = false;
        }
        return c;
    }

    // A set of H arrays for 2^log_n, sending its witnesses packed where cfg.pack_witness says so.
    std::unique_ptr<HComputer> new_slot(unsigned log_n, bool lean) const {
        auto c = std::make_unique<HComputer>(log_n, shape.h_convention, lean);
        c->pack_witness(cfg.pack_witness);
        return c;
    }

    // The H arrays of slot k for this domain (made or remade when the size or convention changed). An optional
    // slot is made only with room to spare (as much again, so the MSMs' scratch, which grows with the largest
    // call, keeps fitting) and is nullptr otherwise, and is never lean (it is prefetched into); a required one is
    // lean with cfg.lean_h or where the full form does not fit (bellman's convention), and lets the device's
    // error through otherwise. Making one is span "h.slot" (the device buffers: ~17 GB for a 2^27 domain, ~8.6 GB
    // lean).
    HComputer* slot(int k, unsigned log_n, bool optional, TimingSink* timing, int64_t item) {
        settle_warm();
        if (k >= cfg.h_slots) {
            if (optional) return nullptr;
            throw std::logic_error("gpu prover: a proof claimed an H slot beyond GpuProverConfig::h_slots");
        }
        auto& c = hc[k];
        const bool may_be_lean = !optional && shape.h_convention == groth16::HConvention::Bellman;
        if (!slot_fits(k, log_n) || (optional && c->lean()) || (may_be_lean && cfg.lean_h && !c->lean())) {
            c.reset();
            prefetched[k] = false;
            if (optional && !room_for_slot(log_n)) return nullptr;
            try {
                ScopedTiming t(timing, kLayer, "h.slot", item);
                c = new_slot(log_n, may_be_lean && cfg.lean_h);
            } catch (const CudaError&) {
                if (optional) {
                    pipeline_ok = false;
                    return nullptr;
                }
                if (!may_be_lean || cfg.lean_h) throw;
                ScopedTiming t(timing, kLayer, "h.slot", item);
                c = new_slot(log_n, true);  // its error comes through
            }
        }
        if (!optional) first_slot_made = true;  // after its slot exists: prepare's slot never races for its memory
        return c.get();
    }
    // Whether slot k holds the H arrays of a domain of 2^log_n in this prover's convention.
    bool slot_fits(int k, unsigned log_n) const {
        return hc[k] && hc[k]->log_n() == log_n && hc[k]->convention() == shape.h_convention;
    }
    // Whether the device has room for an optional slot twice over (so the MSMs' scratch keeps fitting).
    bool room_twice(unsigned log_n) const {
        return free_device_memory() >= 2 * h_gpu_device_bytes(log_n, shape.h_convention);
    }
    // Whether an optional slot may be made: the pipeline has not failed and there is room; no room ends the
    // pipeline.
    bool room_for_slot(unsigned log_n) {
        if (!pipeline_ok) return false;
        if (room_twice(log_n)) return true;
        pipeline_ok = false;
        return false;
    }

    // Both H slots for domains of 2^log_n, made on another thread while nothing has claimed one yet (called when a
    // job's matrices are held, i.e. before its first partition is synthesized): the first proof then does not wait
    // ~0.25 s for its ~17 GB of device buffers, and the second slot's allocation does not stall the first proof's
    // kernels (measured on the H200: 0.35 s during which its H query's sort took 157 ms instead of 20). Each is
    // optional (the first made where it fits, the second only with room to spare: slot_unsettled); a slot not made
    // here is made when a proof needs it, as before.
    void warm_slots(unsigned log_n) {
        std::lock_guard<std::mutex> lk(warm_mu);
        if (warm_started || first_slot_made) return;
        warm_started = true;
        auto made = std::make_shared<std::promise<void>>();
        slots_warm = made->get_future().share();
        warming = std::async(std::launch::async, [this, log_n, made] {
            try {
                use_device(cfg.device);
                for (int k = 0; k < cfg.h_slots; k++)
                    if (!slot_unsettled(k, log_n)) break;
            } catch (...) {
                // Nothing lost: the proofs make their slots.
            }
            made->set_value();
            // Then the H query's MSM scratch (~8 GB at 2^27), after the slots, whose room comes first: its allocation
            // took ~0.12 s of the first partition between H and the MSM (a 32 GiB C2 on an H100, the GPU idle). That
            // MSM now waits for it through the scratch's lock instead; what it needs beyond is still its own to take.
            try {
                h.reserve_device_call(shape.h);
            } catch (...) {
                // The proof's MSM reserves its scratch itself.
            }
        });
    }
    // Waits for warm_slots' slots.
    void settle_warm() {
        std::shared_future<void> f;
        {
            std::lock_guard<std::mutex> lk(warm_mu);
            f = slots_warm;
        }
        if (f.valid()) f.wait();
    }
    // An optional slot k as slot() makes it, without waiting for the warm-up (which is what calls it), and without
    // giving up the pipeline when there is no room now (the proofs look again). The first slot (k = 0) needs room
    // for itself and a margin only: the first proof makes it anyway, in its full form where it fits (not with
    // cfg.lean_h), so made here it is the same memory, off that proof's path (an 80 GB card holding a 32 GiB key
    // and its matrices, where there is never room for two, made it inside its first partition: 0.25-0.95 s).
    static constexpr size_t kSlotMargin = size_t{1} << 30;
    bool slot_unsettled(int k, unsigned log_n) {
        if (slot_fits(k, log_n)) return true;
        const bool room = k == 0 ? !cfg.lean_h && free_device_memory() >=
                                                      h_gpu_device_bytes(log_n, shape.h_convention) + kSlotMargin
                                 : pipeline_ok && room_twice(log_n);
        if (!room) return false;
        try {
            hc[k] = new_slot(log_n, false);
        } catch (const CudaError&) {
            return false;
        }
        return true;
    }

    // The device copy of `pce` while someone holds it, else nullptr. Under products_mu.
    std::shared_ptr<DeviceMatrices> held_products(const r1cs::PrecompiledR1cs* pce) {
        auto it = products.find(pce);
        return it == products.end() ? nullptr : it->second.lock();
    }

    // hold_products: the matrices of `pce` on this device, shared while held; nullptr without room for them beside
    // one H slot (none once a slot is made) and a margin for the MSM scratch. The matrices come before the second
    // slot: without them the CPU makes every partition's a, b, c (seconds a partition: a 32 GiB PoRep C2 with its
    // key resident on an 80 GB card took 30.7 s, CPU-bound), without the second slot a partition's witness goes up
    // after the proof before it instead of beside it (~0.35 s of 4.2 GB). The second slot is then made only where
    // room is left (slot(), room_for_slot).
    std::shared_ptr<const void> hold_products(const r1cs::PrecompiledR1cs& pce) {
        std::lock_guard<std::mutex> lk(products_mu);
        for (auto it = products.begin(); it != products.end();)
            it = it->second.expired() ? products.erase(it) : std::next(it);
        if (pce.num_constraints > (size_t{1} << (Fr::S - 1))) return nullptr;
        const unsigned log_n = shape.h_convention == groth16::HConvention::Snarkjs
                                   ? EvaluationDomain::for_size(std::max<size_t>(shape.h, 1)).log_size()
                                   : EvaluationDomain::for_size(pce.num_constraints).log_size();
        if (log_n > NTT_MAX_LOG_SIZE) return nullptr;
        if (auto m = held_products(&pce)) {
            warm_slots(log_n);
            return m;
        }
        use_device(cfg.device);
        const size_t slots = first_slot_made ? 0 : 1;
        const size_t need = DeviceMatrices::device_bytes(pce) + slots * h_gpu_device_bytes(log_n, shape.h_convention) +
                            (size_t{1} << 30);
        if (need > free_device_memory()) return nullptr;
        try {
            auto m = std::make_shared<DeviceMatrices>(pce, cfg.device);
            products[&pce] = m;
            warm_slots(log_n);
            return m;
        } catch (const CudaError&) {
            return nullptr;
        }
    }

    // The device matrices a deferred assignment's products are made with here; nullptr for an assignment that has
    // its a, b, c, and, once they are completed on the CPU, for one deferred to matrices this device does not hold
    // or whose H goes to a lean slot (`device` false: it takes host a, b, c only).
    std::shared_ptr<DeviceMatrices> products_for(r1cs::ProvingAssignment& asg, TimingSink* timing, int64_t item,
                                                 bool device = true) {
        const r1cs::PrecompiledR1cs* pce = asg.deferred_products();
        if (!pce) return nullptr;
        if (device) {
            std::lock_guard<std::mutex> lk(products_mu);
            if (auto m = held_products(pce)) return m;
        }
        ScopedTiming t(timing, kLayer, "products", item);
        r1cs::complete_products(asg);
        return nullptr;
    }

    // Whether this device makes asg's products (it holds the matrices they are deferred to).
    bool device_makes_products(const r1cs::ProvingAssignment& asg) {
        const r1cs::PrecompiledR1cs* pce = asg.deferred_products();
        if (!pce) return false;
        std::lock_guard<std::mutex> lk(products_mu);
        return held_products(pce) != nullptr;
    }

    // H's data into slot hk: the witness when the device makes the products, else a, b, c (consumed). With
    // still_held, only while it says so, asked under the upload turn (a shared slot taken back meanwhile has a proof
    // of its own uploading into it): false when it did not.
    bool prefetch_into(HComputer& hk, r1cs::ProvingAssignment& asg, TimingSink* timing, int64_t item,
                       const std::function<bool()>& still_held = {}) {
        const auto m = products_for(asg, timing, item);
        {
            std::lock_guard<std::mutex> turn(upload_turn);
            if (still_held && !still_held()) return false;
            if (m) hk.prefetch(*m, asg.inputs(), asg.aux(), {timing, "h", item});
            else hk.prefetch(asg.a(), asg.b(), asg.c(), {timing, "h", item});
        }
        asg.notify_sent();
        release_abc(asg);
        return true;
    }
    // H's uploads take turns (prefetch_into, and the witness of a proof that was not prepared): the witness of the
    // proof the GPU waits for then has the link and the copy threads alone. Measured on the H200 (a 32 GiB C2's
    // first partition, 4.2 GB): 0.89 s while the next partition's prefetch ran beside it.
    std::mutex upload_turn;

    // The slot a proof over a domain of 2^log_n that was not prepared takes (claim_h_slot, h_slots.hpp), marked
    // active.
    int claim(int preferred, unsigned log_n) {
        settle_warm();  // the slots it compares are made
        std::lock_guard<std::mutex> lk(mu);
        evict_shared();
        // A held slot's arrays are being made or filled by prepare(): only its flag is read.
        HSlotState s[2];
        for (int j = 0; j < 2; j++) s[j] = {!held[j] && slot_fits(j, log_n), held[j], prefetched[j]};
        const int k = claim_h_slot(preferred, s);
        if (k < 0) throw std::logic_error("gpu prover: both H slots hold prepared circuits");
        start_in(k);
        slot_cv.notify_all();
        return k;
    }
    // Under mu: slot k becomes the running proof's.
    void start_in(int k) {
        active = k;
        h_done[k] = h_read[k] = false;
    }
    void release_active() {
        {
            std::lock_guard<std::mutex> lk(mu);
            active = -1;
            proofs_done++;
        }
        slot_cv.notify_all();
    }
    // release_active() when the running proof leaves its scope, returned or thrown out of.
    struct ActiveProof {
        Impl& impl;
        explicit ActiveProof(Impl& i) : impl(i) {}
        ActiveProof(const ActiveProof&) = delete;
        ActiveProof& operator=(const ActiveProof&) = delete;
        ~ActiveProof() { impl.release_active(); }
    };
    // The running proof has computed H in slot k (its transforms are done: the scratch is free).
    void mark_h_done(int k) {
        {
            std::lock_guard<std::mutex> lk(mu);
            if (active == k) h_done[k] = true;
        }
        slot_cv.notify_all();
    }
    // The running proof has read H from slot k (its H query's MSM is done).
    void mark_h_read(int k) {
        {
            std::lock_guard<std::mutex> lk(mu);
            if (active == k) h_read[k] = true;
        }
        slot_cv.notify_all();
    }
    // Under mu: a proof that was not prepared claims a slot while a shared ticket holds one (the ticket's device
    // has room for one slot, so that proof would find none, and the ticket's owner is the thread waiting for it: an
    // urgent partition in between, engine.cpp): the hold is taken back. The ticket's proof then uploads its witness
    // again (prove_prepared), which a shared ticket always can: it was prepared in the witness form.
    void evict_shared() {
        for (int j = 0; j < 2; j++)
            if (held[j] && shared[j]) {
                held[j] = shared[j] = false;
                epoch[j]++;
            }
    }

    // cfg.share_slot, for prepare() on a device without room for a second slot: whether asg may share the one
    // slot made for this domain (full, not lean: it is prefetched into), i.e. its products are made on this device
    // (only a witness-form upload can be redone after an eviction). That slot, or -1.
    int shareable_slot(const r1cs::ProvingAssignment& asg, unsigned log_n) {
        if (!cfg.share_slot || !device_makes_products(asg)) return -1;
        std::lock_guard<std::mutex> lk(mu);
        return full_slot(log_n);
    }
    int full_slot(unsigned log_n) const {
        for (int i = 0; i < cfg.h_slots; i++)
            if (slot_fits(i, log_n) && !hc[i]->lean()) return i;
        return -1;
    }
    // Holds that slot for a shared ticket (held, shared, a new epoch, returned through held_epoch) when
    // shared_slot_step (h_slots.hpp) says so, kIdleWait being its short wait; -1 when it gives up or the slot is
    // gone. Waits for the running proof's H (prefetch_shared then waits for its H query's MSM).
    static constexpr std::chrono::milliseconds kIdleWait{200};
    int hold_shared_slot(unsigned log_n, unsigned& held_epoch) {
        std::unique_lock<std::mutex> lk(mu);
        const uint64_t done0 = proofs_done;
        const auto until = std::chrono::steady_clock::now() + kIdleWait;
        for (;;) {
            const int j = full_slot(log_n);
            if (j < 0) return -1;
            const SharedSlotView v{held[j], active == j, h_done[j], proofs_done != done0,
                                   std::chrono::steady_clock::now() >= until};
            switch (shared_slot_step(v)) {
                case SharedSlotStep::hold:
                    held[j] = shared[j] = true;
                    held_epoch = ++epoch[j];
                    return j;
                case SharedSlotStep::wait: slot_cv.wait(lk); break;
                case SharedSlotStep::wait_briefly: slot_cv.wait_until(lk, until); break;
                case SharedSlotStep::give_up: return -1;
            }
        }
    }
    // A shared hold's witness into slot k under epoch e, in two halves (the slot's running proof has computed H:
    // hold_shared_slot): z up beside that proof's H query's MSM, then a, b, c once that MSM has read H's arrays
    // (shared_products_step). False when the hold was taken back on the way (asg untouched: witness form), or the
    // device no longer makes asg's products (they were made on the CPU: the proof uploads them).
    bool prefetch_shared(HComputer& hk, r1cs::ProvingAssignment& asg, TimingSink* timing, int64_t item, int k,
                         unsigned e) {
        const auto m = products_for(asg, timing, item);
        if (!m) return false;
        {
            std::lock_guard<std::mutex> turn(upload_turn);
            if (!holds(k, e)) return false;
            hk.prefetch_witness(*m, asg.inputs(), asg.aux(), {timing, "h", item});
        }
        {
            std::unique_lock<std::mutex> lk(mu);
            for (;;) {
                const auto step = shared_products_step(held[k] && epoch[k] == e, active == k, h_read[k]);
                if (step == SharedProductsStep::abandon) return false;
                if (step == SharedProductsStep::make) break;
                slot_cv.wait(lk);
            }
        }
        {
            std::lock_guard<std::mutex> turn(upload_turn);
            if (!holds(k, e)) return false;
            hk.prefetch_products();
        }
        release_abc(asg);
        return true;
    }
    // Whether slot k is still held under epoch e (a shared hold may have been taken back: evict_shared).
    bool holds(int k, unsigned e) {
        std::lock_guard<std::mutex> lk(mu);
        return held[k] && epoch[k] == e;
    }
    // Ends the hold of slot k under epoch e, if it is still that hold.
    void drop_hold(int k, unsigned e) {
        {
            std::lock_guard<std::mutex> lk(mu);
            if (held[k] && epoch[k] == e) held[k] = shared[k] = false;
        }
        slot_cv.notify_all();
    }

    // CPU and GPU work overlap: the 0/1 split of the A, B, L scalars (CPU) runs while H and its MSM run on the
    // GPU; the B_G2 MSM (its own stream, from another host thread) runs beside the G1 MSMs; and when `next` is
    // given, its a, b, c are uploaded (another host thread, the other slot) while this circuit's H and MSMs run. Slot k
    // is this circuit's; `uploaded`: its a, b, c are already there (prefetch or prepare).
    //
    // The split: `split` when it is already made or under way (prepare, or the circuit before this one in a batch),
    // else started here. When `next_split` is given, the next circuit's split starts once this one's is consumed
    // (the CPU is free while this circuit's A, B, L MSMs run) and is handed back through it.
    groth16::Proof prove_one(r1cs::ProvingAssignment& asg, const EvaluationDomain& domain, const Fr& r,
                             const Fr& s, TimingSink* timing, int64_t item, int k, bool uploaded,
                             r1cs::ProvingAssignment* next, const EvaluationDomain* next_domain,
                             std::future<groth16::QuerySplits> split, std::future<groth16::QuerySplits>* next_split,
                             Deferred* defer = nullptr, std::span<Deferred* const> group = {}) {
        // A proof that was not prepared and whose products the device makes splits first (cfg.upload_from_split):
        // its L list is the packed witness, ~0.1 GB where the witness is 4 GB in a 32 GiB partition. Without it the
        // witness goes up first and the split after that upload: the split reads the same 4 GB on the CPU and slowed
        // the upload beside it (a 32 GiB C2's first partition: 0.56 s beside it, 0.27 s without), and it is needed
        // only after H and the H query's MSM.
        const bool sends_witness = !uploaded && device_makes_products(asg);
        const bool split_first = cfg.upload_from_split && sends_witness;
        const bool split_after_upload = !split.valid() && sends_witness && !split_first;
        if (!split.valid() && !split_after_upload) split = start_split(asg, timing, item);
        // The next circuit's upload into the other slot (free: the circuit before this one consumed it), on its
        // own thread and upload stream. When this circuit's a, b, c are already on the device it starts now, beside
        // H and its MSM, which need no host-to-device bandwidth; otherwise after H's own upload.
        std::future<void> upload;
        auto start_upload = [&] {
            if (!next) return;
            {
                std::lock_guard<std::mutex> lk(mu);
                if (held[1 - k]) return;  // a prepared circuit holds it
            }
            HComputer* hn = slot(1 - k, next_domain->log_size(), true, timing, item + 1);
            if (!hn) return;
            upload = std::async(std::launch::async, [&, hn, next, k] {
                ScopedTiming t(timing, kLayer, "h.prefetch", item + 1);
                use_device(cfg.device);
                prefetch_into(*hn, *next, timing, item + 1);
                prefetched[1 - k] = true;
            });
        };
        if (uploaded) start_upload();
        G1Jacobian h_sum;
        HComputer* hk = nullptr;
        {
            ScopedTiming t(timing, kLayer, "h", item);
            use_device(cfg.device);
            if (uploaded) {
                hk = hc[k].get();
                hk->run_prefetched({timing, "h", item});
            } else {
                hk = slot(k, domain.log_size(), false, timing, item);
                if (auto m = products_for(asg, timing, item, !hk->lean())) {
                    const std::optional<PackedWitness> packed =
                        split_first ? packed_from_split(split, asg.aux().size(), timing, item) : std::nullopt;
                    {
                        std::lock_guard<std::mutex> turn(upload_turn);
                        hk->prefetch(*m, asg.inputs(), asg.aux(), {timing, "h", item}, packed ? &*packed : nullptr);
                    }
                    asg.notify_sent();
                    if (!split.valid()) split = start_split(asg, timing, item);
                    hk->run_prefetched({timing, "h", item});
                } else {
                    // (A lean slot's products were made on the CPU above, so its split may not have started.)
                    if (!split.valid()) split = start_split(asg, timing, item);
                    hk->run(asg.a(), asg.b(), asg.c(), {timing, "h", item});  // each array's transforms as it lands
                    asg.notify_sent();
                }
                release_abc(asg);
            }
        }
        mark_h_done(k);  // the scratch may take the next circuit's witness now (cfg.share_slot)
        if (!uploaded) start_upload();
        auto h_msm = [&] {
            ScopedTiming t(timing, kLayer, "msm.h", item);
            const G1Jacobian sum = h.msm_device(hk->h_device(), shape.h, {timing, "msm.h", item});  // H stays there
            mark_h_read(k);  // the slot may take the next circuit's data now (cfg.share_slot)
            return sum;
        };
        QuerySums sums;
        if (cfg.overlap_query_msms) {
            // The A, B, L MSMs wait for the split on their own thread while H's runs (a future from std::async
            // joins on destruction, so an exception from H's MSM still waits for them).
            auto others = std::async(std::launch::async, [&] {
                use_device(cfg.device);
                return query_sums(split, next, next_split, timing, item, defer, group);
            });
            h_sum = h_msm();
            sums = others.get();
        } else {
            h_sum = h_msm();
            sums = query_sums(split, next, next_split, timing, item, defer, group);
        }
        note_fallbacks(item);
        if (upload.valid()) upload.get();  // rethrows an upload failure
        if (defer) {  // assembled by finish() once the group's ones are summed
            defer->a = sums.a;
            defer->b1 = sums.b1;
            defer->b2 = sums.b2;
            defer->l = sums.l;
            defer->h = h_sum;
            defer->r = r;
            defer->s = s;
            defer->item = item;
            return {};
        }
        ScopedTiming t(timing, kLayer, "assembly", item);
        return groth16::assemble_proof(shape.vk, sums.a, sums.b1, sums.b2, h_sum, sums.l, r, s);
    }

    // The ones query q (0: A, 1: B, 2: L) deferred by each member of a group, summed by ctx for all of them at once
    // (MsmContext::sum_patterns, up to its kMaxPatternSets at a time); identities where a member deferred none.
    template <class Cfg>
    std::vector<Jacobian<Cfg>> deferred_ones(QueryMsm<Cfg>& ctx, std::span<Deferred* const> m, int q,
                                             TimingSink* timing, const char* name) {
        std::vector<Jacobian<Cfg>> out(m.size(), Jacobian<Cfg>::identity());
        const size_t count = m.front()->sizes[q];
        bool any = false, all = true;
        for (const auto& d : m) {
            if (d->sizes[q] != count) throw std::logic_error("gpu prover: a group's circuits differ in shape");
            any |= !d->ones[q].empty();
            all &= !d->ones[q].empty();
        }
        if (!any || count == 0) return out;
        const std::vector<uint64_t> none(all ? 0 : (count + 63) / 64, 0);
        constexpr size_t kMax = MsmContext<Cfg>::kMaxPatternSets;
        for (size_t lo = 0; lo < m.size(); lo += kMax) {
            const size_t hi = std::min(m.size(), lo + kMax);
            std::vector<std::span<const uint64_t>> bits;
            for (size_t i = lo; i < hi; i++) {
                const auto& o = m[i]->ones[q];
                bits.push_back(o.empty() ? std::span<const uint64_t>(none) : std::span<const uint64_t>(o.data(), o.size()));
            }
            const auto sums = ctx.sum_patterns(bits, count, {timing, name, -1});
            for (size_t i = lo; i < hi; i++) out[i] = sums[i - lo];
        }
        return out;
    }

    // The deferred ones of a group's members summed together (B_G2's beside the G1 queries', as in query_sums),
    // each member's kept in it.
    void sum_group_ones(std::span<Deferred* const> m, TimingSink* timing) {
        use_device(cfg.device);
        auto b2_ones = std::async(std::launch::async, [&] {
            use_device(cfg.device);
            return deferred_ones(b2, m, 1, timing, "ones.b_g2");
        });
        const auto xa = deferred_ones(a, m, 0, timing, "ones.a");
        const auto xb1 = deferred_ones(b1, m, 1, timing, "ones.b_g1");
        const auto xl = deferred_ones(l, m, 2, timing, "ones.l");
        const auto xb2 = b2_ones.get();
        for (size_t i = 0; i < m.size(); i++) {
            m[i]->xa = xa[i];
            m[i]->xb1 = xb1[i];
            m[i]->xl = xl[i];
            m[i]->xb2 = xb2[i];
            m[i]->summed = true;
        }
    }

    // A group's proofs (GpuProver::finish_group): its members' ones summed together, unless the last member's
    // proof did that already (and none came after it), then each proof assembled from its own sums and its ones.
    std::vector<groth16::Proof> finish(const std::vector<std::unique_ptr<Deferred>>& members, TimingSink* timing) {
        std::vector<Deferred*> m;
        for (const auto& d : members) m.push_back(d.get());
        if (!std::all_of(m.begin(), m.end(), [](const Deferred* d) { return d->summed; })) sum_group_ones(m, timing);
        // The assemblies side by side (~2 ms each: a 32 GiB C2's ten took 20 ms one after another).
        std::vector<groth16::Proof> proofs(m.size());
        ScopedTiming t(timing, kLayer, "assembly", -1);
        parallel_for(m.size(), [&](size_t lo, size_t hi) {
            for (size_t i = lo; i < hi; i++) {
                const Deferred& d = *m[i];
                proofs[i] = groth16::assemble_proof(shape.vk, d.a + d.xa, d.b1 + d.xb1, d.b2 + d.xb2, d.h,
                                                    d.l + d.xl, d.r, d.s);
            }
        }, m.size());
        return proofs;
    }

    // The first MSM call that ran in the H query's scratch for want of room in its own, on stderr once, with the
    // circuit (the item of the timeline) whose proof saw it and how many calls had fallen back by then.
    void note_fallbacks(int64_t item) {
        const uint64_t abl_n = abl_scratch != g1_scratch ? abl_scratch->fallbacks() : 0;
        const uint64_t g2_n = g2_scratch->fallbacks();
        if (!abl_n && !g2_n) return;
        if (fallback_noted.exchange(true)) return;
        std::fprintf(stderr,
                     "note: GPU %d had no room for the %s MSMs' own scratch (circuit %lld; %llu call(s) so far); they "
                     "waited for the H query's scratch%s\n",
                     cfg.device, abl_n ? "A, B, L" : "B_G2", (long long)item,
                     (unsigned long long)(abl_n ? abl_n : g2_n), abl_n ? " (overlap_msms gains nothing there)" : "");
    }

    struct QuerySums {
        G1Jacobian a, b1, l;
        G2Jacobian b2;
    };
    // The A, B_G1, L MSMs of a circuit's 0/1 split (one after another) and B_G2's beside them (another host thread,
    // its own stream); the next circuit's split starts once this one is consumed. With `defer`, the ones the split
    // holds as bitmaps go there instead of into the MSMs (listed ones, and a dense split's, are summed as usual);
    // with `group` too (the group's members, `defer` among them), the group's ones are summed after the MSMs, while
    // the H query's MSM goes on (prove_deferred's `last`).
    QuerySums query_sums(std::future<groth16::QuerySplits>& split, r1cs::ProvingAssignment* next,
                         std::future<groth16::QuerySplits>* next_split, TimingSink* timing, int64_t item,
                         Deferred* defer = nullptr, std::span<Deferred* const> group = {}) {
        groth16::QuerySplits q = split.get();
        note_split(q);
        if (defer) {
            ScalarSplit* const qs[3] = {&q.a, &q.b, &q.l};
            for (int i = 0; i < 3; i++) {
                defer->sizes[i] = qs[i]->size;
                if (qs[i]->dense || qs[i]->one_bits.empty()) continue;
                defer->ones[i] = std::move(qs[i]->one_bits);
                qs[i]->one_bits.clear();
                qs[i]->one_bit_count = 0;
            }
        }
        if (next && next_split) *next_split = start_split(*next, timing, item + 1);
        auto b2_future = std::async(std::launch::async, [&] {
            ScopedTiming t(timing, kLayer, "msm.b_g2", item);
            use_device(cfg.device);
            return b2.msm_split(q.b, {timing, "msm.b_g2", item});
        });
        QuerySums sums;
        {
            ScopedTiming t(timing, kLayer, "msm.a", item);
            sums.a = a.msm_split(q.a, {timing, "msm.a", item});
        }
        {
            ScopedTiming t(timing, kLayer, "msm.b_g1", item);
            sums.b1 = b1.msm_split(q.b, {timing, "msm.b_g1", item});
        }
        {
            ScopedTiming t(timing, kLayer, "msm.l", item);
            sums.l = l.msm_split(q.l, {timing, "msm.l", item});
        }
        sums.b2 = b2_future.get();
        for (ScalarSplit* sp : {&q.a, &q.b, &q.l}) {
            Deallocator::global().defer(sp->one_indices);
            Deallocator::global().defer(sp->other_indices);
            Deallocator::global().defer(sp->other_scalars);
        }
        if (!group.empty()) sum_group_ones(group, timing);
        return sums;
    }

    // The 0/1 split of asg's A, B, L scalars on another thread; it reads inputs, aux and densities only (never a, b,
    // c, which an upload may be consuming meanwhile) and keeps Montgomery scalars (the GPU converts them). Each
    // query's layout is the one cfg.split_costs says is cheaper, and the tails of the last splits are reused
    // (circuits of one shape keep their non-0/1 values at the same positions: the MSM contexts then upload the
    // tail's indices once).
    std::mutex tails_mu;
    std::shared_ptr<const SplitTail> tails[3];  // A, B, L
    // Splits of circuits that were not prepared, under way (GpuProverConfig::own_split_first).
    std::mutex own_mu;
    std::condition_variable own_cv;
    unsigned own_splits = 0;
    struct OwnSplit {  // counts one from construction (before its thread starts) to the end of its split
        Impl* impl;
        explicit OwnSplit(Impl* i) : impl(i) {
            std::lock_guard<std::mutex> lk(impl->own_mu);
            impl->own_splits++;
        }
        OwnSplit(OwnSplit&& o) noexcept : impl(std::exchange(o.impl, nullptr)) {}
        OwnSplit(const OwnSplit&) = delete;
        OwnSplit& operator=(const OwnSplit&) = delete;
        OwnSplit& operator=(OwnSplit&&) = delete;
        ~OwnSplit() {
            if (!impl) return;
            {
                std::lock_guard<std::mutex> lk(impl->own_mu);
                impl->own_splits--;
            }
            impl->own_cv.notify_all();
        }
    };

    // A prepared split that is not needed any more (prepare() gives no ticket): it returns at once if it has not
    // started (own_split_first's wait included).
    void give_up_split(std::atomic<bool>& gave_up) {
        {
            std::lock_guard<std::mutex> lk(own_mu);
            gave_up = true;
        }
        own_cv.notify_all();
    }

    // gave_up: given for the split of prepare()'s circuit (give_up_split), which waits for the own splits under way
    // when own_split_first; null for a proof's own.
    std::future<groth16::QuerySplits> start_split(const r1cs::ProvingAssignment& asg, TimingSink* timing,
                                                  int64_t item,
                                                  std::shared_ptr<const std::atomic<bool>> gave_up = nullptr) {
        std::optional<OwnSplit> own;
        if (!gave_up) own.emplace(this);
        // What it reads, taken now: the engine moves a prepared partition's assignment once prepare() returns.
        const groth16::SplitInputs in(asg);
        return std::async(std::launch::async, [this, in, timing, item, gave_up, own = std::move(own)]() mutable {
            struct Ended {  // the count drops when the split ends, not when its future is consumed
                std::optional<OwnSplit>& own;
                ~Ended() { own.reset(); }
            } ended{own};
            if (gave_up && cfg.own_split_first) {
                std::unique_lock<std::mutex> lk(own_mu);
                own_cv.wait(lk, [&] { return own_splits == 0 || *gave_up; });
            }
            if (gave_up && *gave_up) return groth16::QuerySplits{};
            ScopedTiming t(timing, kLayer, "msm.split", item);
            // Its pool calls ahead of the others queued there (the next syntheses' page population): the GPU
            // waits for it once this circuit's H query's MSM ends (a 32 GiB C2's first partition waited 0.08-0.25 s
            // for its split, 1.2-1.4 s beside two to four syntheses; EngineConfig::synthesis_nice gives it the
            // cores too).
            const ThreadPool::Urgent urgent;
            std::shared_ptr<const SplitTail> cur[3];
            {
                std::lock_guard<std::mutex> lk(tails_mu);
                for (int i = 0; i < 3; i++) cur[i] = tails[i];
            }
            SplitOptions o;
            o.costs = cfg.split_costs;
            o.tails = cur;
            groth16::QuerySplits q = split_queries_for_device(in, o);
            std::lock_guard<std::mutex> lk(tails_mu);
            int i = 0;
            for (const ScalarSplit* sp : {&q.a, &q.b, &q.l}) {
                if (sp->tail) tails[i] = sp->tail;
                i++;
            }
            return q;
        });
    }

    // start_split for prepare(), once no proof's own witness upload is going (a proof that was not prepared holds
    // upload_turn while its witness goes up and its products are made): the split reads this circuit's 4 GB on the
    // CPU, and the GPU waits for that upload. A 32 GiB C2's first partition took 0.74 s for it with the second's
    // split beside it (its synthesis now ends ~0.3 s after the first's); on an 80 GB card, whose one slot is
    // shared, 0.51 s against 0.39 s.
    std::future<groth16::QuerySplits> start_split_after_upload(const r1cs::ProvingAssignment& asg, TimingSink* timing,
                                                               int64_t item,
                                                               std::shared_ptr<const std::atomic<bool>> gave_up) {
        { std::lock_guard<std::mutex> turn(upload_turn); }
        return start_split(asg, timing, item, std::move(gave_up));
    }

    // The aux values packed from the circuit's split (its L list, every aux value: pack_from_split), once the split
    // is made; `split` then holds the same splits again, ready. nullopt where L's split does not pack (dense, more
    // than a quarter others, another size): the witness then goes up as it is. Span "h.pack".
    std::optional<PackedWitness> packed_from_split(std::future<groth16::QuerySplits>& split, size_t aux,
                                                   TimingSink* timing, int64_t item) {
        groth16::QuerySplits q = split.get();
        std::optional<PackedWitness> packed;
        if (q.l.size == aux) {
            ScopedTiming t(timing, kLayer, "h.pack", item);
            packed = pack_from_split(q.l, aux / 4);
        }
        std::promise<groth16::QuerySplits> ready;
        split = ready.get_future();
        ready.set_value(std::move(q));
        return packed;
    }

    void note_split(const groth16::QuerySplits& q) {
        const size_t bytes = q.a.bytes() + q.b.bytes() + q.l.bytes();
        size_t seen = split_bytes_seen.load();
        while (bytes > seen && !split_bytes_seen.compare_exchange_weak(seen, bytes)) {
        }
    }

    // a, b, c are consumed as the CPU seam consumes them, and freed off the hot path (GBs at Filecoin sizes).
    static void release_abc(r1cs::ProvingAssignment& asg) {
        Deallocator::global().defer(asg.a());
        Deallocator::global().defer(asg.b());
        Deallocator::global().defer(asg.c());
    }
};

// prepare()'s ticket: the slot holding the circuit's a, b, c and its domain. A ticket dropped unused (a cancelled
// job) frees its slot.
struct GpuPrepared : groth16::PreparedCircuit {
    GpuProver* owner = nullptr;
    int slot = 0;
    unsigned epoch = 0;   // the hold's (Impl::epoch)
    bool shared = false;  // in the running proof's slot (GpuProverConfig::share_slot): may be taken back
    EvaluationDomain domain;
    // Made by prepare(), possibly still running (it reads the circuit's assignment): a future of std::async, so
    // a ticket dropped unused waits for it, before the caller's assignment may go.
    std::future<groth16::QuerySplits> split;
    std::function<void()> drop;  // cleared when the ticket is used
    explicit GpuPrepared(const EvaluationDomain& d) : domain(d) {}
    ~GpuPrepared() override {
        if (drop) drop();
    }
};

namespace {
// stream_queries: the config of a prover that streams its queries from a host copy of its own (pinning the
// caller's points then serves nothing).
GpuProverConfig streaming(GpuProverConfig c) {
    c.stream_queries = true;
    c.pin_host_params = false;
    return c;
}
}  // namespace

GpuProver::GpuProver(const groth16::Parameters& params, const GpuProverConfig& cfg)
    : impl_([&] {
          const groth16::ParametersSource src(params);
          if (cfg.stream_queries)
              return std::make_unique<Impl>(src.shape(), nullptr, std::make_shared<const StreamedKey>(src), HostPins{},
                                            streaming(cfg));
          return std::make_unique<Impl>(src.shape(), &src, nullptr, pins_for(params, cfg), cfg);
      }()) {}

GpuProver::GpuProver(const groth16::QuerySource& src, const GpuProverConfig& cfg)
    : impl_([&] {
          if (cfg.stream_queries)
              return std::make_unique<Impl>(src.shape(), nullptr, std::make_shared<const StreamedKey>(src), HostPins{},
                                            streaming(cfg));
          if (cfg.pin_host_params && !dynamic_cast<const groth16::ParametersSource*>(&src))
              throw std::invalid_argument("gpu prover: pin_host_params needs parameters in host memory");
          return std::make_unique<Impl>(src.shape(), &src, nullptr, HostPins{}, cfg);
      }()) {}

GpuProver::GpuProver(std::shared_ptr<const StreamedKey> key, const GpuProverConfig& cfg)
    : impl_([&] {
          if (!key) throw std::invalid_argument("gpu prover: no streamed key");
          if (cfg.pin_host_params) throw std::invalid_argument("gpu prover: a streamed key keeps its own host copy");
          const groth16::KeyShape shape = key->shape();
          return std::make_unique<Impl>(shape, nullptr, std::move(key), HostPins{}, streaming(cfg));
      }()) {}

std::optional<std::string> GpuProver::query_outside_subgroup() const {
    const BatchSubgroupOptions o;
    const int d = impl_->cfg.device;
    // File order (h, l, a, b_g1, b_g2), so the report names the section a reader of the whole file would.
    const std::pair<const char*, QueryMsm<G1Config>*> g1[] = {
        {"h", &impl_->h}, {"l", &impl_->l}, {"a", &impl_->a}, {"b_g1", &impl_->b1}};
    for (const auto& [name, q] : g1)
        if (!q->in_subgroup(o, d)) return std::string(name);
    if (!impl_->b2.in_subgroup(o, d)) return "b_g2";
    return std::nullopt;
}
GpuProver::~GpuProver() = default;

std::vector<groth16::Proof> GpuProver::prove_from_assignments(std::span<r1cs::ProvingAssignment> assignments,
                                                              std::span<const Fr> r, std::span<const Fr> s,
                                                              TimingSink* timing) {
    ScopedTiming total(timing, kLayer, "prove");
    groth16::check_randomness(assignments.size(), r, s);
    std::vector<EvaluationDomain> domains;
    domains.reserve(assignments.size());
    for (size_t i = 0; i < assignments.size(); i++)
        domains.push_back(groth16::check_assignment(impl_->shape, assignments[i], i));
    std::vector<groth16::Proof> proofs;
    proofs.reserve(assignments.size());
    impl_->prefetched[0] = impl_->prefetched[1] = false;  // nothing carries over from an earlier (failed) call
    int k = 0;
    std::future<groth16::QuerySplits> split;  // circuit i's, started while circuit i - 1's MSMs ran
    for (size_t i = 0; i < assignments.size(); i++) {
        const bool has_next = i + 1 < assignments.size();
        k = impl_->claim(k, domains[i].log_size());
        const bool uploaded = impl_->prefetched[k];
        impl_->prefetched[k] = false;
        std::future<groth16::QuerySplits> next_split;
        {
            const Impl::ActiveProof running(*impl_);
            proofs.push_back(impl_->prove_one(assignments[i], domains[i], r[i], s[i], timing, (int64_t)i, k, uploaded,
                                              has_next ? &assignments[i + 1] : nullptr,
                                              has_next ? &domains[i + 1] : nullptr, std::move(split), &next_split));
            split = std::move(next_split);
        }
        k = 1 - k;  // the next circuit's data, if prefetched, is in the other slot
    }
    return proofs;
}

std::unique_ptr<groth16::PreparedCircuit> GpuProver::prepare(r1cs::ProvingAssignment& asg, TimingSink* timing,
                                                             int64_t item) {
    const EvaluationDomain domain = groth16::check_assignment(impl_->shape, asg, 0);
    int k;
    unsigned ep;
    {
        std::lock_guard<std::mutex> lk(impl_->mu);
        // Only once a proof has made its slot: prepare then always makes the second one, and only with room for
        // both (racing the first proof for the first slot could leave that proof without memory).
        if (!impl_->first_slot_made) return nullptr;
        k = prepare_h_slot(impl_->active);
        if (impl_->held[k]) return nullptr;  // one prepared circuit at a time
        impl_->held[k] = true;
        ep = ++impl_->epoch[k];
    }
    // The split too, beside the upload, while the running proof keeps the GPU busy. prepare returns without
    // waiting for it: the prepared proof needs it only for its A, B, L MSMs, after its H and H query's MSM (~1 s
    // at 2^27), and a 32 GiB C2's second partition waited 55-110 ms for it here while the CPU was busy with the
    // next syntheses. It reads asg's values until it ends (through a SplitInputs taken here: the engine moves asg
    // once this returns), so the ticket (whose future waits for it) must not outlive them (ProverBackend::prepare);
    // a failure surfaces from prove_prepared.
    std::future<groth16::QuerySplits> split;
    // Without a ticket the split is given up, and waited for (it may be reading asg, which the caller may free once
    // no ticket comes back): the future's destructor waits.
    const auto gave_up = std::make_shared<std::atomic<bool>>(false);
    bool is_shared = false;
    try {
        use_device(impl_->cfg.device);
        HComputer* hk = impl_->slot(k, domain.log_size(), true, timing, item);
        if (!hk) {
            impl_->drop_hold(k, ep);
            // No room for a second slot: with share_slot, the one slot once the running proof has computed H.
            if (impl_->shareable_slot(asg, domain.log_size()) < 0) return nullptr;
            // while the running proof's H goes on
            split = impl_->start_split_after_upload(asg, timing, item, gave_up);
            k = impl_->hold_shared_slot(domain.log_size(), ep);
            if (k < 0) {
                impl_->give_up_split(*gave_up);
                return nullptr;
            }
            is_shared = true;
            hk = impl_->hc[k].get();  // a slot held is never remade: proofs of one key share its domain
        }
        ScopedTiming t(timing, kLayer, "h.prefetch", item);
        if (!is_shared) split = impl_->start_split_after_upload(asg, timing, item, gave_up);
        Impl* impl = impl_.get();
        const bool went = is_shared ? impl_->prefetch_shared(*hk, asg, timing, item, k, ep)
                                    : impl_->prefetch_into(*hk, asg, timing, item,
                                                           [impl, k, ep] { return impl->holds(k, ep); });
        if (!went) {
            impl_->give_up_split(*gave_up);
            return nullptr;  // taken back before its upload: asg is untouched (witness form)
        }
    } catch (...) {
        impl_->give_up_split(*gave_up);
        impl_->drop_hold(k, ep);
        throw;
    }
    auto ticket = std::make_unique<GpuPrepared>(domain);
    ticket->owner = this;
    ticket->slot = k;
    ticket->epoch = ep;
    ticket->shared = is_shared;
    ticket->split = std::move(split);
    Impl* impl = impl_.get();
    ticket->drop = [impl, k, ep] { impl->drop_hold(k, ep); };
    return ticket;
}

groth16::Proof GpuProver::prove_prepared(std::unique_ptr<groth16::PreparedCircuit> ticket,
                                         r1cs::ProvingAssignment& asg, const Fr& r, const Fr& s, TimingSink* timing,
                                         int64_t item) {
    return prove_ticket(std::move(ticket), asg, r, s, timing, item, nullptr, {});
}

// A circuit in a group (ProverBackend::defer_group): proven as prove_prepared does, or without a ticket as a batch
// of one, its ones' bitmaps kept for finish_group.
struct GpuGroup : groth16::DeferredGroup {
    const GpuProver* owner = nullptr;
    std::vector<std::unique_ptr<GpuProver::Deferred>> members;
    size_t size() const override { return members.size(); }
};

namespace {
// The group as this prover's, or std::invalid_argument.
GpuGroup& own_group(groth16::DeferredGroup& group, const GpuProver* prover) {
    auto* g = dynamic_cast<GpuGroup*>(&group);
    if (!g || g->owner != prover) throw std::invalid_argument("gpu prover: a group from another prover");
    return *g;
}
}  // namespace

std::unique_ptr<groth16::DeferredGroup> GpuProver::defer_group() {
    if (impl_->cfg.stream_queries) return nullptr;  // sum_patterns needs resident bases
    auto g = std::make_unique<GpuGroup>();
    g->owner = this;
    return g;
}

void GpuProver::prove_deferred(std::unique_ptr<groth16::PreparedCircuit> ticket, r1cs::ProvingAssignment& asg,
                               const Fr& r, const Fr& s, TimingSink* timing, int64_t item,
                               groth16::DeferredGroup& group, bool last) {
    GpuGroup& g = own_group(group, this);
    auto d = std::make_unique<Deferred>();
    // The last member sums the group's ones beside its own H query's MSM.
    std::vector<Deferred*> all;
    if (last) {
        for (const auto& m : g.members) all.push_back(m.get());
        all.push_back(d.get());
    }
    if (ticket) {
        (void)prove_ticket(std::move(ticket), asg, r, s, timing, item, d.get(), all);
    } else {
        ScopedTiming total(timing, kLayer, "prove");
        const EvaluationDomain domain = groth16::check_assignment(impl_->shape, asg, 0);
        impl_->prefetched[0] = impl_->prefetched[1] = false;  // as prove_from_assignments
        const int k = impl_->claim(0, domain.log_size());
        const Impl::ActiveProof running(*impl_);
        (void)impl_->prove_one(asg, domain, r, s, timing, item, k, false, nullptr, nullptr, {}, nullptr, d.get(), all);
    }
    g.members.push_back(std::move(d));
}

std::vector<groth16::Proof> GpuProver::finish_group(groth16::DeferredGroup& group, TimingSink* timing) {
    GpuGroup& g = own_group(group, this);
    const auto members = std::move(g.members);  // the group is empty whatever happens below
    g.members.clear();
    if (members.empty()) return {};
    ScopedTiming total(timing, kLayer, "finish_group");
    return impl_->finish(members, timing);
}

groth16::Proof GpuProver::prove_ticket(std::unique_ptr<groth16::PreparedCircuit> ticket, r1cs::ProvingAssignment& asg,
                                       const Fr& r, const Fr& s, TimingSink* timing, int64_t item,
                                       Deferred* defer, std::span<Deferred* const> group) {
    auto* t = dynamic_cast<GpuPrepared*>(ticket.get());
    if (!t || t->owner != this) throw std::invalid_argument("gpu prover: a ticket from another prover");
    int k = t->slot;
    t->drop = nullptr;
    bool taken_back = false;  // a shared hold that a proof in between took back (Impl::evict_shared)
    {
        std::lock_guard<std::mutex> lk(impl_->mu);
        if (impl_->held[k] && impl_->epoch[k] == t->epoch) {
            impl_->held[k] = impl_->shared[k] = false;
            impl_->start_in(k);
            impl_->slot_cv.notify_all();
        } else if (t->shared) {
            taken_back = true;
        } else {
            throw std::logic_error("gpu prover: the ticket's slot holds nothing");
        }
    }
    ScopedTiming total(timing, kLayer, "prove");
    const Impl::ActiveProof running(*impl_);
    // Its witness goes up again then (a shared ticket's inputs and aux are still in asg).
    if (taken_back) k = impl_->claim(k, t->domain.log_size());
    // a, b, c were consumed by prepare(); the rest of the assignment must still fit the parameters.
    return impl_->prove_one(asg, t->domain, r, s, timing, item, k, !taken_back, nullptr, nullptr, std::move(t->split),
                            nullptr, defer, group);
}

namespace {
template <class Src>
std::vector<std::unique_ptr<GpuBackend>> backends_on(const Src& src, std::span<const size_t> ordinals,
                                                     const GpuProverConfig& base) {
    std::vector<std::unique_ptr<GpuBackend>> out;
    const auto devs = devices();
    for (size_t d : ordinals)
        if (d >= devs.size())
            throw std::invalid_argument("gpu backends: no CUDA device " + std::to_string(d) + " (" +
                                        std::to_string(devs.size()) + " visible)");
    // Streamed queries: one host copy for every device.
    std::shared_ptr<const StreamedKey> key;
    if (base.stream_queries && !ordinals.empty()) {
        if constexpr (std::is_same_v<Src, groth16::Parameters>)
            key = std::make_shared<const StreamedKey>(groth16::ParametersSource(src));
        else
            key = std::make_shared<const StreamedKey>(src);
    }
    for (size_t d : ordinals) {
        GpuProverConfig gc = base;
        gc.device = devs[d].id;
        if (key) {
            gc.pin_host_params = false;
            out.push_back(std::make_unique<GpuBackend>(key, gc));
        } else {
            out.push_back(std::make_unique<GpuBackend>(src, gc));
        }
    }
    return out;
}
template <class Src>
std::vector<std::unique_ptr<GpuBackend>> backends_of(const Src& src, size_t first, const GpuProverConfig& base) {
    std::vector<size_t> ordinals;
    for (size_t d = first; d < devices().size(); d++) ordinals.push_back(d);
    return backends_on(src, ordinals, base);
}
}  // namespace

std::vector<std::unique_ptr<GpuBackend>> gpu_backends(const groth16::Parameters& params,
                                                      std::span<const size_t> ordinals, const GpuProverConfig& base) {
    return backends_on(params, ordinals, base);
}

std::vector<std::unique_ptr<GpuBackend>> gpu_backends(const groth16::QuerySource& src,
                                                      std::span<const size_t> ordinals, const GpuProverConfig& base) {
    return backends_on(src, ordinals, base);
}

std::vector<std::unique_ptr<GpuBackend>> gpu_backends(const groth16::Parameters& params, size_t first,
                                                      const GpuProverConfig& base) {
    return backends_of(params, first, base);
}

std::vector<std::unique_ptr<GpuBackend>> gpu_backends(const groth16::QuerySource& src, size_t first,
                                                      const GpuProverConfig& base) {
    return backends_of(src, first, base);
}

size_t GpuProver::working_bytes() const {
    if (const size_t seen = impl_->split_bytes_seen.load()) return seen + seen / 8;
    const groth16::KeyShape& k = impl_->shape;
    const size_t scalars = k.a + k.b_g1 + k.l;
    const size_t split_bound = scalars * (sizeof(limbs_t<4>) + sizeof(uint32_t)) + scalars / 8;
    return split_bound + 3 * 2 * PinnedUploader::kChunkBytes;
}

std::shared_ptr<const void> GpuProver::hold_products(const r1cs::PrecompiledR1cs& pce) {
    return impl_->hold_products(pce);
}

void GpuProver::await_products(const r1cs::PrecompiledR1cs& pce) {
    std::shared_ptr<DeviceMatrices> m;
    {
        std::lock_guard<std::mutex> lk(impl_->products_mu);
        m = impl_->held_products(&pce);
    }
    if (m) m->wait_copied();
}

size_t GpuBackend::products_device_bytes(const r1cs::PrecompiledR1cs& pce) const {
    return DeviceMatrices::device_bytes(pce);
}

bool GpuProver::needs_host_points() const { return impl_->cfg.pin_host_params; }

size_t GpuProver::resident_bytes() const {
    return impl_->a.device_bytes() + impl_->b1.device_bytes() + impl_->l.device_bytes() + impl_->h.device_bytes() +
           impl_->b2.device_bytes();
}

size_t streamed_query_device_bytes(const groth16::KeyShape& shape, const GpuProverConfig& c) {
    const size_t k = stream_chunk(c);
    return G1StreamedMsm::device_bytes(shape.a, k) + G1StreamedMsm::device_bytes(shape.b_g1, k) +
           G1StreamedMsm::device_bytes(shape.l, k) + G1StreamedMsm::device_bytes(shape.h, k) +
           G2StreamedMsm::device_bytes(shape.b_g2, g2_stream_chunk(c));
}

size_t GpuProver::streamed_host_bytes() const {
    return impl_->streamed ? impl_->streamed->host_bytes() : 0;
}

const StreamedKey* GpuProver::streamed_key() const { return impl_->streamed.get(); }

}  // namespace cuzk::gpu
