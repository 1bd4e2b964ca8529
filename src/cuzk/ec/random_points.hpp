// Many random points fast, for benchmarks and large tests: a full scalar multiplication per point would take
// minutes at 2^20 points, so each thread takes one random start point S and one random step Q and walks
// S, S + Q, S + 2Q, ... (one mixed addition per point), then converts its run with one batch inversion.
// Consecutive points are related, which is irrelevant to the cost of an MSM, NTT or encoding over them.
#pragma once

#include <random>
#include <vector>

#include "cuzk/ec/curve.hpp"
#include "cuzk/ff/fr.hpp"
#include "cuzk/util/thread_pool.hpp"

namespace cuzk {

template <class Cfg>
std::vector<Affine<Cfg>> random_points(size_t n, uint64_t seed) {
    std::vector<Affine<Cfg>> out(n);
    parallel_for(n, [&](size_t begin, size_t end) {
        std::mt19937_64 rng(seed ^ (0x9e3779b97f4a7c15ULL * (begin + 1)));
        auto g = Jacobian<Cfg>::generator();
        Affine<Cfg> step = g.mul(Fr::random(rng).to_canonical()).to_affine();
        Jacobian<Cfg> acc = g.mul(Fr::random(rng).to_canonical());
        std::vector<Jacobian<Cfg>> run;
        constexpr size_t kRun = 4096;  // one inversion per 4096 points
        for (size_t i = begin; i < end; i += kRun) {
            size_t m = std::min(kRun, end - i);
            run.resize(m);
            for (size_t j = 0; j < m; j++) {
                run[j] = acc;
                acc = acc.add_mixed(step);
            }
            auto aff = Jacobian<Cfg>::batch_to_affine(run);
            std::copy(aff.begin(), aff.end(), out.begin() + (ptrdiff_t)i);
        }
    });
    return out;
}

template <class F>
std::vector<F> random_scalars(size_t n, uint64_t seed) {
    std::vector<F> out(n);
    parallel_for(n, [&](size_t begin, size_t end) {
        std::mt19937_64 rng(seed ^ (0xbf58476d1ce4e5b9ULL * (begin + 1)));
        for (size_t i = begin; i < end; i++) out[i] = F::random(rng);
    });
    return out;
}

}  // namespace cuzk
