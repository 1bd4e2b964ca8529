// The prover backend interface (ARCHITECTURE.md: the prover seam): proves a batch of synthesized assignments
// against one parameter set. The CPU backend below wraps groth16::prove_from_assignments; the GPU backend
// (backends/cuda/prover_gpu.hpp) the GPU prover. For the same inputs and r, s every backend returns the same bytes.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cuzk/ff/fr.hpp"
#include "cuzk/groth16/types.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::groth16 {

class ProverBackend {
public:
    virtual ~ProverBackend() = default;
    // prove_from_assignments's contract: checks, errors, consumption of a, b, c, prover-layer timing spans.
    virtual std::vector<Proof> prove(std::span<r1cs::ProvingAssignment> assignments, std::span<const Fr> r,
                                     std::span<const Fr> s, TimingSink* timing) = 0;
    virtual std::string name() const = 0;
};

// The CPU prover. `params` must outlive it.
class CpuBackend : public ProverBackend {
public:
    explicit CpuBackend(const Parameters& params) : params_(params) {}
    std::vector<Proof> prove(std::span<r1cs::ProvingAssignment> assignments, std::span<const Fr> r,
                             std::span<const Fr> s, TimingSink* timing) override;
    std::string name() const override { return "cpu"; }

private:
    const Parameters& params_;
};

}  // namespace cuzk::groth16
