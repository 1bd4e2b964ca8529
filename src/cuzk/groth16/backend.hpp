// The prover backend interface (ARCHITECTURE.md: the prover seam): proves a batch of synthesized assignments
// against one parameter set. The CPU backend below wraps groth16::prove_from_assignments; the GPU backend
// (backends/cuda/prover_gpu.hpp) the GPU prover. For the same inputs and r, s every backend returns the same bytes.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/ff/fr.hpp"
#include "cuzk/groth16/types.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::groth16 {

// What a backend moved ahead of a circuit's proof (ProverBackend::prepare); opaque to the caller.
struct PreparedCircuit {
    virtual ~PreparedCircuit() = default;
};

// Circuits whose proofs a backend finishes together (ProverBackend::defer_group): their A, B and L scalars equal to
// one are summed for all of them at once at the end (the GPU backend adds each base once for the whole group:
// gpu::MsmContext::sum_patterns), instead of once per circuit. Opaque to the caller but for what it holds.
struct DeferredGroup {
    virtual ~DeferredGroup() = default;
    // Circuits proven into the group and not finished yet.
    virtual size_t size() const = 0;
};

class ProverBackend {
public:
    virtual ~ProverBackend() = default;
    // prove_from_assignments's contract: checks, errors, consumption of a, b, c, prover-layer timing spans.
    virtual std::vector<Proof> prove(std::span<r1cs::ProvingAssignment> assignments, std::span<const Fr> r,
                                     std::span<const Fr> s, TimingSink* timing) = 0;
    virtual std::string name() const = 0;
    // Backends of one lane prove one circuit at a time between them (the engine runs one proving thread per lane):
    // a GPU's backends share "cuda:<device>" whatever their parameters, CPU backends "cpu". Empty (the default):
    // a lane of its own.
    virtual std::string lane() const { return {}; }
    // Host bytes one circuit takes while this backend proves it, beyond the assignment's own vectors (the 0/1 splits
    // of the MSM scalars, staging buffers, a copy made to pad to the domain): what the engine's memory budget
    // reserves for each partition on its way to this backend. 0 (the default): nothing worth counting.
    virtual size_t working_bytes() const { return 0; }
    // Whether it reads the parameter set's host points after it was made (the CPU's does; a GPU's resident copy does
    // not, unless it page-locked them). A key store releases those points when none of a key's backends does.
    virtual bool needs_host_points() const { return true; }

    // Sparse products on the backend's device: while the returned handle is held, the backend computes a, b, c
    // itself for assignments deferred to `pce` (r1cs::ProvingAssignment::deferred: only the witness travels, and the
    // products are made where H is computed). nullptr (the default; also a device without room for the matrices):
    // the caller completes such assignments on the CPU first (r1cs::complete_products), although every backend
    // also accepts them and completes them itself. `pce` must outlive the handle.
    virtual std::shared_ptr<const void> hold_products(const r1cs::PrecompiledR1cs& pce) {
        (void)pce;
        return nullptr;
    }
    // Returns once this backend's held copy of `pce`'s matrices (hold_products) is on its device, rethrowing the
    // copy's error; at once when it holds none (the default). A hold's copy otherwise runs in the background and the
    // first proof that needs it waits.
    virtual void await_products(const r1cs::PrecompiledR1cs& pce) { (void)pce; }
    // Device bytes a hold of `pce`'s matrices takes (what a key store counts in its device budget when it keeps
    // them with the key); 0 (the default): this backend holds no matrices.
    virtual size_t products_device_bytes(const r1cs::PrecompiledR1cs& pce) const {
        (void)pce;
        return 0;
    }

    // Optional pipelining for a caller that proves circuits one at a time (the engine): prepare(next) may run on
    // another thread while prove / prove_prepared of the current circuit runs, and starts moving `next`'s data (the
    // GPU backend uploads a, b, c into a second set of device arrays meanwhile). It returns nullptr when the backend
    // has nothing to move ahead (the default; a, b, c are then untouched and prove() works as usual); otherwise a,
    // b, c are consumed and the circuit must be finished by prove_prepared with the ticket. One prepared circuit at
    // a time. `item` labels the timing spans. The ticket may go on reading asg's inputs and aux (the GPU backend's
    // 0/1 split of the A, B, L scalars): it must be dropped or used before asg is destroyed. asg may be moved
    // meanwhile (the engine does): the ticket reads the values' storage, which moves with it, not asg itself.
    virtual std::unique_ptr<PreparedCircuit> prepare(r1cs::ProvingAssignment& asg, TimingSink* timing, int64_t item) {
        (void)asg, (void)timing, (void)item;
        return nullptr;
    }
    // Finishes a prepared circuit (its inputs and aux are read from asg); same errors as prove().
    virtual Proof prove_prepared(std::unique_ptr<PreparedCircuit> ticket, r1cs::ProvingAssignment& asg, const Fr& r,
                                 const Fr& s, TimingSink* timing, int64_t item) {
        (void)ticket, (void)asg, (void)r, (void)s, (void)timing, (void)item;
        throw std::logic_error(name() + " backend: prove_prepared without prepare support");
    }

    // Optional: proofs finished a group at a time (DeferredGroup). defer_group() gives an empty group, or nullptr
    // (the default: this backend proves every circuit whole). prove_deferred proves asg as prove_prepared does (a
    // null ticket: as prove() does), all but the sums its group defers, and adds it to the group; finish_group
    // returns the group's proofs in the order their circuits were added, each the bytes prove() would have given
    // for the same r, s, and empties the group. One group per caller thread at a time; the backend's other calls
    // (prepare included) may come between a group's circuits. `last`: the caller means to add no more circuits before
    // finish_group (the backend may do the group's shared work during this circuit's proof; more may still come, at
    // a cost). A failure of prove_deferred leaves the group as it was; one of finish_group leaves it empty (its
    // circuits are to be proven again).
    virtual std::unique_ptr<DeferredGroup> defer_group() { return nullptr; }
    virtual void prove_deferred(std::unique_ptr<PreparedCircuit> ticket, r1cs::ProvingAssignment& asg, const Fr& r,
                                const Fr& s, TimingSink* timing, int64_t item, DeferredGroup& group, bool last) {
        (void)ticket, (void)asg, (void)r, (void)s, (void)timing, (void)item, (void)group, (void)last;
        throw std::logic_error(name() + " backend: prove_deferred without group support");
    }
    virtual std::vector<Proof> finish_group(DeferredGroup& group, TimingSink* timing) {
        (void)group, (void)timing;
        throw std::logic_error(name() + " backend: finish_group without group support");
    }
};

// Each backend's hold on `pce`'s matrices (ProverBackend::hold_products), or none when one of them cannot hold them.
inline std::vector<std::shared_ptr<const void>> hold_products_on(const std::vector<ProverBackend*>& backends,
                                                                 const r1cs::PrecompiledR1cs& pce) {
    std::vector<std::shared_ptr<const void>> holds;
    for (ProverBackend* b : backends) {
        auto h = b->hold_products(pce);
        if (!h) return {};
        holds.push_back(std::move(h));
    }
    return holds;
}

// The CPU prover. `params` must outlive it.
class CpuBackend : public ProverBackend {
public:
    explicit CpuBackend(const Parameters& params) : params_(params) {}
    std::vector<Proof> prove(std::span<r1cs::ProvingAssignment> assignments, std::span<const Fr> r,
                             std::span<const Fr> s, TimingSink* timing) override;
    std::string name() const override { return "cpu"; }
    std::string lane() const override { return "cpu"; }
    // One vector over the evaluation domain: compute_h pads a, b, c to the domain one at a time (a vector without
    // room is copied). The splits come after a, b, c are freed and take less than they did.
    size_t working_bytes() const override;

private:
    const Parameters& params_;
};

}  // namespace cuzk::groth16
