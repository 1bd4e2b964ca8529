// The Groth16 prover on the GPU (issue 7): the CPU prover's seam (groth16::prove_from_assignments) with H and the
// five MSMs on the device. The parameter set's query points (A, B_G1, B_G2, L, H) are uploaded once by the
// constructor and stay resident; per proof only scalars move. Everything else (assignment checks, the 0/1 split of
// the A, B, L scalars, proof assembly) is the CPU prover's own code (groth16/prover.hpp building blocks), and for
// the same assignment and r, s the proof is byte-identical to the CPU's (tests/test_gpu_groth16.cpp).
//
// With GpuProverConfig::stream_queries the query points stay in page-locked host memory instead and every MSM
// streams them up chunk by chunk (gpu::StreamedMsm): a device smaller than the key proves on the GPU all the same.
//
// Per circuit: H (HComputer, both conventions) and the MSM over the H query read straight from device memory;
// meanwhile the CPU splits the A, B, L scalars in one pass (zeros skipped, ones summed by a tree on the device, the
// rest through Pippenger, Montgomery scalars converted on the device). Each query's split takes the layout its
// measured device costs make cheaper (GpuProverConfig::split_costs, device_split.hpp): the ones as indices or as a
// bitmap (Filecoin's witnesses, ~half ones: 1 bit instead of 32 per position), or no split at all for a dense
// witness; and the positions of the non-0/1 values (the "tail") are shared by the circuits that follow
// while they still cover them (partitions of one circuit shape do), so each MSM context uploads a tail's indices
// once and per circuit only its scalars. Then A, B_G1, L on the GPU with B_G2 beside
// them (another host thread and stream). In a batch the next circuit's split runs while this one's A, B, L MSMs
// run; prepare() makes the split beside its upload. Pageable host arrays move through pinned staging buffers
// (gpu/pinned_upload.cuh); a, b, c and the splits are freed on a background thread, their pages given back in
// slices (util/deallocator.hpp: one munmap of GBs stalls every CUDA call that maps memory meanwhile).
//
// Two H slots (two sets of H's device arrays, the second only when the device has room for both): inside a batch,
// circuit i + 1's a, b, c upload into the other slot while circuit i's H and MSMs run; across calls, prepare() does the
// same for a caller that proves one circuit at a time (the engine: ProverBackend::prepare / prove_prepared).
//
// Timing spans, layer Prover (item = index in the batch, or the caller's item for prepare / prove_prepared;
// "msm.split", "msm.b_g2" and "h.prefetch" overlap the others): "h", "h.prefetch", "msm.h", "msm.split", "msm.a",
// "msm.b_g1", "msm.b_g2", "msm.l", "assembly", "h.slot" where an H slot is made, and "prove" over the call. Layer
// Kernel (CUDA events): "h.upload", "h.transforms", "h.pointwise_final", and per MSM "<stage>.upload", ".ones",
// ".digits_sort", ".accumulate", ".reduce".
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cuzk/backends/cuda/device_split.hpp"
#include "cuzk/groth16/backend.hpp"
#include "cuzk/groth16/types.hpp"
#include "cuzk/msm/msm.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::gpu {

struct GpuProverConfig {
    int device = 0;
    // The device costs behind each query's split layout (device_split.hpp choose_split_layout).
    SplitCosts split_costs;
    // Page-lock the parameter set's query arrays in host memory (cudaHostRegister) for the prover's lifetime: the
    // upload to the device is then a direct DMA, and the host copy can never be paged out. Costs the time to lock
    // them (the figures are in docs/perf.md); an array already registered (another device's prover) is left as it is.
    bool pin_host_params = false;
    // Device bytes the G1 queries' precomputed window tables may take beyond the queries themselves
    // (GpuMsmConfig::precompute_windows: W = ceil(256 / c) multiples of every base, one bucket set for all windows).
    // H, L, A and B_G1 get a table in that order while the next one fits; 0: none. Counted in resident_bytes(), so a
    // key store budgets it with the key. The gain per proof is in docs/perf.md.
    size_t msm_table_bytes = 0;
    // Keep the queries in page-locked host memory, in the device layout, and stream them to the device chunk by
    // chunk at every MSM (gpu::StreamedMsm) instead of holding them there: for a device smaller than its key (a
    // 32 GiB PoRep key is ~44 GB). Device memory per query: two chunk buffers; no window tables (msm_table_bytes is
    // ignored). Host memory: the whole key, page-locked, for the prover's lifetime.
    bool stream_queries = false;
    // Bases per chunk of a G1 query with stream_queries (B_G2: half as many); 0: from the device's memory when the
    // prover is made (a G1 buffer a 48th of it, or of its free memory when less, 2^16 .. 2^24 bases).
    size_t stream_chunk_points = 0;
    // Run the A, B_G1 and L MSMs (B_G2 beside them, as always) while the H query's MSM runs, on their own stream and
    // a second MSM scratch, instead of after it: the sorts and window reductions of H's MSM and the ones' sums are not
    // bound by the field product as its accumulation is. A call the device has no room for in the second scratch
    // runs in the first, after H's MSM (gpu::MsmScratch's fallback). On by default: a 32 GiB PoRep partition's GPU
    // time 1.206 -> 1.19 s on an H100 80 GB beside its resident key, 1.230 -> 1.211 s on an H200 (docs/perf.md).
    // Ignored with stream_queries (the cards that stream their key have no memory to spare).
    bool overlap_query_msms = true;
    // The A, B_G1, L and B_G2 MSMs on streams of the device's highest priority (GpuMsmConfig::high_priority): beside
    // the H query's accumulation their short kernels (window reductions, sorts of the few non-0/1 scalars) get SMs
    // first as its blocks end, instead of waiting among them, so they end before H's MSM does and the next circuit's
    // transforms, which wait for this proof to return, start sooner. Off: a 32 GiB partition on an H100 took the
    // same ~1.19 s either way (H's MSM then takes as much longer; docs/perf.md, forty-fifth session).
    bool query_msm_priority = false;
    // A prepared circuit's 0/1 split (prepare(), beside the running proof) starts once the splits of proofs that
    // were not prepared have ended (a job's first partition: its GPU waits for its split after the H query's MSM),
    // instead of sharing the cores with them; the prepared proof needs its own only ~1 s after it starts. A 32 GiB
    // C2's first partition on a slower host: its split took 1.16-1.34 s beside the second partition's and the next
    // syntheses, and the GPU waited 95-160 ms for it (docs/perf.md, forty-sixth session). Off: with it the GPU
    // waited as long in the second partition instead, and the walls were the same (forty-seventh session).
    bool own_split_first = false;
    // A witness whose aux values are mostly 0 and 1 (Filecoin's circuits: ~98 % of a PoRep partition's) goes up
    // packed: the ones' bitmap and the other values with their positions (~1/30 of the bytes), made in one parallel
    // read on the host and expanded on the device (HComputer::pack_witness, witness_pack.hpp), instead of all its
    // values through the pinned staging (a 32 GiB partition's 4.2 GB: 0.40-0.45 s for the first partition of a C2
    // on an H100, beside the next syntheses). Off: in a 32 GiB C2 on two H100 hosts the pack itself took ~0.36 s
    // beside the next syntheses, and the walls were the same (docs/perf.md, forty-second session).
    bool pack_witness = false;
    // A proof that was not prepared (a job's first partition) splits its scalars first and sends its witness as L's
    // split packed (witness_pack.hpp pack_from_split: L's list is every aux value, so its ones' bitmap, others and
    // tail are the packed witness, ~0.1 GB of a 32 GiB partition's 4.2 GB), instead of uploading all of it and
    // splitting beside that. On: a 32 GiB C2 on an H100 host, 12.00 / 12.00 s against 12.13 / 12.18 s, its first
    // partition 1.60-1.69 s against 1.74-2.07 s (docs/perf.md, fifty-first session). Needs the device's products;
    // a split that does not pack (dense, too many others) sends the witness as it is.
    bool upload_from_split = true;
    // Sets of H's device arrays ("slots") at most: 2 lets the next circuit's data go up while one is proven (the
    // second made only where the device has room for it); 1 keeps one set whatever the room (prepare() then returns
    // nullptr, unless share_slot). Anything else is std::invalid_argument.
    int h_slots = 2;
    // Where the device has room for one slot only (an 80 GB card holding a 32 GiB PoRep key and its compiled
    // matrices): prepare() waits until the running proof has computed H in that slot, puts the next circuit's
    // witness into the transforms' scratch while the running proof's H query's MSM runs, and its products into H's
    // arrays once that MSM has read them (beside the running proof's A, B, L MSMs), instead of returning nullptr (the
    // next partition's witness then goes up after the proof before it, the GPU idle meanwhile: ~0.2 s a 32 GiB
    // partition on an H100). A proof that claims the slot before the prepared one (an urgent
    // partition in between) takes it back; the prepared proof's witness then goes up again. Only for circuits whose
    // products the device makes (their witness stays in the assignment). A 32 GiB C2 on an H100: 15.2 -> 13.6 s
    // (docs/perf.md); a device with room for two slots never shares one.
    bool share_slot = true;
    // The H arrays of a proof in their lean form (HComputer's: two arrays and in-place transforms, half the memory,
    // 8.6 GB less at 2^27; C's upload then overlaps less, each transform makes one more pass over its array, and
    // such a slot takes a, b, c made on the CPU): always when set, else only when the full form does not fit the
    // device (bellman's convention; a small card that streams its queries).
    // Slots for the next circuit (prefetch) are always full, and made only with room for them.
    bool lean_h = false;
};

// A key's query points in page-locked host memory, in the device layout (GpuProverConfig::stream_queries): made
// once from a query source and shared by the provers of every GPU (gpu_backends makes one for all of them).
class StreamedKey {
public:
    // Reads every point of `src` (a file's decoded as they are read); its errors come through. gpu::CudaError when
    // the page-locked memory cannot be had.
    explicit StreamedKey(const groth16::QuerySource& src);
    ~StreamedKey();
    StreamedKey(const StreamedKey&) = delete;
    StreamedKey& operator=(const StreamedKey&) = delete;
    const groth16::KeyShape& shape() const;
    size_t host_bytes() const;

    struct Impl;
    const Impl& impl() const { return *impl_; }

private:
    std::unique_ptr<Impl> impl_;
};

class GpuProver {
public:
    // Uploads the queries of `params`. The prover keeps their shape (groth16::KeyShape) and reads the host points no
    // more, so they may be freed once it is made, unless cfg.pin_host_params page-locked them (they must then
    // outlive it). Throws gpu::CudaError when they do not fit in device memory (with the bytes needed).
    explicit GpuProver(const groth16::Parameters& params, const GpuProverConfig& cfg = {});
    // The same from the points of a query source (a parameter file decoded straight into the pinned staging buffers
    // as they go up, formats::ParamsFileSource: no host copy of them all); the source is read only by the
    // constructor, and its errors come through. pin_host_params needs Parameters (std::invalid_argument).
    explicit GpuProver(const groth16::QuerySource& src, const GpuProverConfig& cfg = {});
    // Streams the queries of a shared host copy (stream_queries implied; pin_host_params refused).
    explicit GpuProver(std::shared_ptr<const StreamedKey> key, const GpuProverConfig& cfg = {});
    ~GpuProver();
    GpuProver(const GpuProver&) = delete;
    GpuProver& operator=(const GpuProver&) = delete;

    // groth16::prove_from_assignments on the GPU: same checks and errors, same consumption of a, b, c.
    std::vector<groth16::Proof> prove_from_assignments(std::span<r1cs::ProvingAssignment> assignments,
                                                       std::span<const Fr> r, std::span<const Fr> s,
                                                       TimingSink* timing = nullptr);

    // The pipelining pair behind groth16::ProverBackend::prepare / prove_prepared: prepare() uploads asg's a, b, c
    // into the H slot no running proof uses (it may run on another thread while a proof runs) and consumes them;
    // nullptr when there is no free slot or no room on the device for a second one (a, b, c untouched).
    std::unique_ptr<groth16::PreparedCircuit> prepare(r1cs::ProvingAssignment& asg, TimingSink* timing, int64_t item);
    groth16::Proof prove_prepared(std::unique_ptr<groth16::PreparedCircuit> ticket, r1cs::ProvingAssignment& asg,
                                  const Fr& r, const Fr& s, TimingSink* timing, int64_t item);

    // The groups behind groth16::ProverBackend::defer_group / prove_deferred / finish_group: a circuit proven into a
    // group keeps the ones of its A, B and L scalars that its 0/1 split holds as bitmaps (Filecoin's witnesses, about
    // half ones) out of its MSMs, and finish_group sums them for the whole group at once (MsmContext::sum_patterns:
    // each base added once, not once per circuit that has a one there), then assembles each proof; the proofs are
    // the bytes prove() gives for the same r, s. A group holds its circuits' bitmaps in host memory (a 32 GiB PoRep
    // partition's ~37 MB) until it is finished. nullptr from defer_group with stream_queries.
    std::unique_ptr<groth16::DeferredGroup> defer_group();
    // With `last`, the group's ones are summed during this circuit's proof, after its own A, B, L MSMs and while its
    // H query's MSM goes on (finish_group then only assembles, unless more circuits came after all).
    void prove_deferred(std::unique_ptr<groth16::PreparedCircuit> ticket, r1cs::ProvingAssignment& asg, const Fr& r,
                        const Fr& s, TimingSink* timing, int64_t item, groth16::DeferredGroup& group, bool last);
    std::vector<groth16::Proof> finish_group(groth16::DeferredGroup& group, TimingSink* timing);

    // The first query (in file order: "h", "l", "a", "b_g1", "b_g2") with a resident point outside its prime-order
    // subgroup, by the batched check on the device over the points in place (gpu/subgroup.hpp: a bad point passes
    // with probability at most 2^-64); nullopt when all are in. The check of a source that was not checked before.
    std::optional<std::string> query_outside_subgroup() const;
    // groth16::ProverBackend::hold_products: the matrices of `pce` on this device (DeviceMatrices, products_gpu.hpp)
    // while the handle is held, shared by every holder; nullptr when they do not fit beside one set of the H arrays
    // their circuit's proofs need (the matrices come before a second set: prover_gpu.cpp). A deferred assignment
    // whose matrices are not held here is completed on the CPU.
    // Before the first proof, the first hold also starts making both H slots for that circuit's domain on another
    // thread (each only with room to spare), so the first proofs do not wait for their device buffers.
    std::shared_ptr<const void> hold_products(const r1cs::PrecompiledR1cs& pce);
    // groth16::ProverBackend::await_products: returns once a held copy of `pce`'s matrices is on this device.
    void await_products(const r1cs::PrecompiledR1cs& pce);
    // Device bytes held by the resident queries (with stream_queries: their chunk buffers).
    size_t resident_bytes() const;
    // Page-locked host bytes of the streamed queries (0 unless GpuProverConfig::stream_queries), and their host
    // copy (nullptr unless streamed; the provers gpu_backends makes in one call share one).
    size_t streamed_host_bytes() const;
    const StreamedKey* streamed_key() const;
    // Whether the host points must outlive the prover (GpuProverConfig::pin_host_params).
    bool needs_host_points() const;
    // Host bytes a circuit takes while it is proven here, beyond its assignment: its 0/1 splits, the most one has
    // taken so far plus an eighth; before the first proof, their bound (every scalar of A, B and L neither 0 nor 1)
    // plus the pinned staging buffers that proof allocates (three pairs of PinnedUploader chunks: the MSMs' and
    // each H slot's).
    size_t working_bytes() const;

    struct Impl;
    struct Deferred;  // a circuit proven into a group, waiting for its ones

private:
    // prove_prepared, and prove_deferred with a ticket (defer: where the circuit's deferred state goes).
    // group: with defer, the group's members (defer among them) when this proof sums their ones (prove_deferred's
    // last).
    groth16::Proof prove_ticket(std::unique_ptr<groth16::PreparedCircuit> ticket, r1cs::ProvingAssignment& asg,
                                const Fr& r, const Fr& s, TimingSink* timing, int64_t item, Deferred* defer,
                                std::span<Deferred* const> group);

    std::unique_ptr<Impl> impl_;
};

// The GPU prover behind the prover backend interface.
class GpuBackend : public groth16::ProverBackend {
public:
    explicit GpuBackend(const groth16::Parameters& params, const GpuProverConfig& cfg = {})
        : device_(cfg.device), prover_(params, cfg) {}
    explicit GpuBackend(const groth16::QuerySource& src, const GpuProverConfig& cfg = {})
        : device_(cfg.device), prover_(src, cfg) {}
    explicit GpuBackend(std::shared_ptr<const StreamedKey> key, const GpuProverConfig& cfg = {})
        : device_(cfg.device), prover_(std::move(key), cfg) {}
    std::vector<groth16::Proof> prove(std::span<r1cs::ProvingAssignment> assignments, std::span<const Fr> r,
                                      std::span<const Fr> s, TimingSink* timing) override {
        return prover_.prove_from_assignments(assignments, r, s, timing);
    }
    std::unique_ptr<groth16::PreparedCircuit> prepare(r1cs::ProvingAssignment& asg, TimingSink* timing,
                                                      int64_t item) override {
        return prover_.prepare(asg, timing, item);
    }
    groth16::Proof prove_prepared(std::unique_ptr<groth16::PreparedCircuit> ticket, r1cs::ProvingAssignment& asg,
                                  const Fr& r, const Fr& s, TimingSink* timing, int64_t item) override {
        return prover_.prove_prepared(std::move(ticket), asg, r, s, timing, item);
    }
    std::shared_ptr<const void> hold_products(const r1cs::PrecompiledR1cs& pce) override {
        return prover_.hold_products(pce);
    }
    void await_products(const r1cs::PrecompiledR1cs& pce) override { prover_.await_products(pce); }
    std::unique_ptr<groth16::DeferredGroup> defer_group() override { return prover_.defer_group(); }
    void prove_deferred(std::unique_ptr<groth16::PreparedCircuit> ticket, r1cs::ProvingAssignment& asg, const Fr& r,
                        const Fr& s, TimingSink* timing, int64_t item, groth16::DeferredGroup& group,
                        bool last) override {
        prover_.prove_deferred(std::move(ticket), asg, r, s, timing, item, group, last);
    }
    std::vector<groth16::Proof> finish_group(groth16::DeferredGroup& group, TimingSink* timing) override {
        return prover_.finish_group(group, timing);
    }
    size_t products_device_bytes(const r1cs::PrecompiledR1cs& pce) const override;
    std::string name() const override { return "gpu"; }
    std::string lane() const override { return "cuda:" + std::to_string(device_); }
    // Device bytes held by its resident copy of the parameters.
    size_t resident_bytes() const { return prover_.resident_bytes(); }
    std::optional<std::string> query_outside_subgroup() const { return prover_.query_outside_subgroup(); }
    size_t working_bytes() const override { return prover_.working_bytes(); }
    size_t streamed_host_bytes() const { return prover_.streamed_host_bytes(); }
    const StreamedKey* streamed_key() const { return prover_.streamed_key(); }
    bool needs_host_points() const override { return prover_.needs_host_points(); }

private:
    int device_ = 0;
    GpuProver prover_;
};

// Device bytes a prover with GpuProverConfig::stream_queries holds for a key of this shape on c.device: its chunk
// buffers, two a query (the MSM scratch and H's arrays not included, as for a resident key).
size_t streamed_query_device_bytes(const groth16::KeyShape& shape, const GpuProverConfig& c);

// One GPU backend per visible device (gpu::devices() order) from index `first` on, each with its own resident copy
// of `params`: the proving workers of a job spread over several GPUs (engine::JobSpec::backends). With
// base.stream_queries they share one StreamedKey instead.
// `base` gives every other setting (its device is replaced).
std::vector<std::unique_ptr<GpuBackend>> gpu_backends(const groth16::Parameters& params, size_t first = 0,
                                                      const GpuProverConfig& base = {});
// The same from a query source (each device's copy reads it once).
std::vector<std::unique_ptr<GpuBackend>> gpu_backends(const groth16::QuerySource& src, size_t first = 0,
                                                      const GpuProverConfig& base = {});
// The same on the visible devices of these ordinals (indices into gpu::devices()), in that order;
// std::invalid_argument for an ordinal with no device.
std::vector<std::unique_ptr<GpuBackend>> gpu_backends(const groth16::Parameters& params,
                                                      std::span<const size_t> ordinals,
                                                      const GpuProverConfig& base = {});
std::vector<std::unique_ptr<GpuBackend>> gpu_backends(const groth16::QuerySource& src,
                                                      std::span<const size_t> ordinals,
                                                      const GpuProverConfig& base = {});

}  // namespace cuzk::gpu
