// The parameter readers' batched subgroup checks on the GPU (formats::SubgroupChecks, gpu/subgroup.hpp): the points
// go up once per batch of up to 2^27 and every round's buckets are summed on the device; the fold and the exact
// tests stay on the CPU. A span the device has no room for is checked in halves (down to 2^20 points, each an
// independent batch with the same bound: a 16 GB card checks a 2^27-point query in pieces); what the device still
// cannot run (gpu::CudaError: too little free memory, a driver fault) is done on the CPU instead, after a note on
// stderr, so a load never fails for the device's sake.
#pragma once

#include "cuzk/formats/bellman_params.hpp"

namespace cuzk::backends {

// The checks on the usable GPU of this ordinal (an index into gpu::devices()) when there is one, else empty (the
// reader then checks on the CPU).
formats::SubgroupChecks gpu_subgroup_checks(size_t ordinal = 0);

}  // namespace cuzk::backends
