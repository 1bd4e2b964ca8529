// Batched affine additions: independent additions *out = a + b performed in batches that share one inversion
// (Montgomery's trick), the generic ones on the AVX-512 IFMA kernel where the CPU has it. Used by the Pippenger MSM
// (msm.cpp) and the batched subgroup check (batch_subgroup.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "cuzk/ec/curve.hpp"
#include "cuzk/ec/g1.hpp"
#include "cuzk/ec/g2.hpp"
#include "cuzk/msm/batch_add_ifma.hpp"

namespace cuzk::msm_detail {

// Collects independent additions *out = a + b and performs them in batches that share one inversion (Montgomery's
// trick). Inputs are copied at push time, so an output may overwrite the input slot of a pair pushed earlier; the
// tree layout below relies on this. Exceptional pairs (infinity, equal, opposite) are handled per pair.
template <class Cfg>
class BatchAdder {
public:
    using F = typename Cfg::F;
    using Aff = Affine<Cfg>;

    explicit BatchAdder(size_t cap) : cap_(cap), a_(cap), b_(cap), prefix_(cap), den_(cap), kind_(cap), out_(cap) {}

    void push(const Aff& a, const Aff& b, Aff* out) {
        a_[n_] = a;
        b_[n_] = b;
        out_[n_] = out;
        if (++n_ == cap_) flush();
    }

    void flush() {
        if (n_ == 0) return;
        // On a CPU with AVX-512 IFMA the generic additions go to the 8-lane kernel (G1 or G2); doublings,
        // identities and opposite points stay on the scalar path below.
        const bool vector = ifma_enabled();  // G1 and G2 both have a kernel
        vec_idx_.clear();
        // Forward: prefix_[i] = product of the denominators before pair i.
        F acc = F::one();
        bool any_inverse = false;
        for (size_t i = 0; i < n_; i++) {
            const Aff& a = a_[i];
            const Aff& b = b_[i];
            uint8_t k;
            if (a.infinity) {
                k = kCopyB;
            } else if (b.infinity) {
                k = kCopyA;
            } else if (a.x != b.x) {
                if (vector) {
                    k = kVector;
                    vec_idx_.push_back((uint32_t)i);
                } else {
                    k = kAdd;
                    prefix_[i] = acc;
                    den_[i] = b.x - a.x;
                    acc *= den_[i];
                    any_inverse = true;
                }
            } else if (a.y == b.y && !a.y.is_zero()) {
                k = kDbl;
                prefix_[i] = acc;
                den_[i] = a.y.dbl();
                acc *= den_[i];
                any_inverse = true;
            } else {
                k = kInf;  // b = -a (a point with y = 0 is its own negative)
            }
            kind_[i] = k;
        }
        if (!vec_idx_.empty()) {
            if constexpr (std::is_same_v<Cfg, G1Config>)
                g1_batch_add_ifma(a_.data(), b_.data(), out_.data(), vec_idx_.data(), vec_idx_.size(),
                                              ifma_);
            else
                g2_batch_add_ifma(a_.data(), b_.data(), out_.data(), vec_idx_.data(), vec_idx_.size(),
                                              ifma_);
        }
        // acc is a product of nonzero denominators, so it is invertible.
        // (Variable time: the sums of public points an MSM or subgroup check forms.)
        F inv = any_inverse ? acc.inverse_vartime().value() : F::one();
        // Backward: inv = 1 / (product of the denominators up to pair i).
        for (size_t i = n_; i-- > 0;) {
            const Aff& a = a_[i];
            const Aff& b = b_[i];
            Aff& r = *out_[i];
            switch (kind_[i]) {
                case kAdd: {
                    F lambda = (b.y - a.y) * (inv * prefix_[i]);
                    inv *= den_[i];
                    F x3 = lambda.square() - a.x - b.x;
                    r.y = lambda * (a.x - x3) - a.y;
                    r.x = x3;
                    r.infinity = false;
                    break;
                }
                case kDbl: {
                    F xx = a.x.square();
                    F lambda = (xx.dbl() + xx) * (inv * prefix_[i]);
                    inv *= den_[i];
                    F x3 = lambda.square() - a.x.dbl();
                    r.y = lambda * (a.x - x3) - a.y;
                    r.x = x3;
                    r.infinity = false;
                    break;
                }
                case kVector: break;  // written by the vector kernel
                case kCopyA: r = a; break;
                case kCopyB: r = b; break;
                default: r = Aff::identity(); break;
            }
        }
        n_ = 0;
    }

private:
    enum : uint8_t { kAdd, kDbl, kCopyA, kCopyB, kInf, kVector };
    size_t cap_, n_ = 0;
    std::vector<Aff> a_, b_;
    std::vector<F> prefix_, den_;  // den_ kept from the forward pass: a field subtraction is not free
    std::vector<uint8_t> kind_;
    std::vector<Aff*> out_;
    std::vector<uint32_t> vec_idx_;  // pairs for the vector kernel (IFMA)
    IfmaScratch ifma_;
};

template <class Cfg>
inline void prefetch_point(const Affine<Cfg>* p) {
    __builtin_prefetch(p);
    __builtin_prefetch(reinterpret_cast<const char*>(p) + sizeof(*p) - 1);
}

}  // namespace cuzk::msm_detail
