// Batched affine additions in G1 and G2 on AVX-512 IFMA (vpmadd52luq / vpmadd52huq), eight additions at a time.
//
// The CPU MSM spends ~80% of its time in batched affine additions (BatchAdder in msm.cpp): Montgomery's trick
// turns a batch of independent additions P + Q into ~6 field multiplications each plus one shared inversion. The
// scalar multiplication (mulx/adcx/adox) is latency-bound at ~26 ns on Zen; eight lanes of 52-bit multiply-adds do
// eight multiplications in ~70 ns. The representation (batch_add_ifma.cpp has the details): Fq elements in
// Montgomery form with the *same* R = 2^384 as Fq, as eight 48-bit limbs, so converting from and to Fq is a
// rearrangement of bits and no multiplication. Lane l of an 8-lane group runs its own Montgomery chain; the eight
// chain products share one scalar inversion. G2's Fq2 coordinates take two vectors per lane group (c0, c1) and
// Karatsuba products (three Fq products).
//
// Used only where the CPU has AVX-512 F and IFMA (checked at run time); everything else keeps the scalar path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuzk/ec/g1.hpp"
#include "cuzk/ec/g2.hpp"

namespace cuzk::msm_detail {

// True when the CPU supports AVX-512 F + IFMA and the vector path is enabled (it is unless the environment sets
// CUZK_CPU_IFMA=0 or set_ifma_enabled(false) was called).
bool ifma_enabled();
// Turns the vector path on or off for the whole process (tests and benchmarks compare the two); turning it on
// has no effect on a CPU without IFMA. Returns the previous setting.
bool set_ifma_enabled(bool on);
// Whether this CPU can run the vector path at all.
bool ifma_supported();

// Scratch of one batch (reused between batches).
struct IfmaScratch {
    std::vector<uint64_t> prefix, den;  // per 8-lane group: 8 limbs x 8 lanes each
};

// For k = 0 .. m-1 with i = idx[k]: *out[i] = a[i] + b[i]. Every listed pair must be a generic addition: neither
// point is the identity and a[i].x != b[i].x (BatchAdder sends doublings, identities and opposite points to its
// scalar path). Outputs may alias neither a nor b. Requires ifma_supported().
void g1_batch_add_ifma(const G1Affine* a, const G1Affine* b, G1Affine* const* out, const uint32_t* idx, size_t m,
                       IfmaScratch& scratch);
// The same in G2 (Fq2 coordinates: each lane's c0 and c1 in two V8s; products by Karatsuba, three Fq products).
void g2_batch_add_ifma(const G2Affine* a, const G2Affine* b, G2Affine* const* out, const uint32_t* idx, size_t m,
                       IfmaScratch& scratch);

}  // namespace cuzk::msm_detail
