// Checks the scalar-split tests share (test_msm.cpp: the splitter and its hook; test_device_split.cpp: the device's
// layouts): the scalars a split stands for, rebuilt whatever its layout, and witnesses mixed from 0, 1 and others.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "cuzk/ff/fr.hpp"
#include "cuzk/msm/msm.hpp"

namespace cuzk::testing {

// The scalar at every position, rebuilt from a split with Montgomery limbs, whatever its layout.
inline std::vector<Fr> rebuild(const ScalarSplit& s) {
    EXPECT_TRUE(s.montgomery);
    std::vector<Fr> v(s.size, Fr::zero());
    if (s.dense) {
        EXPECT_EQ(s.other_scalars.size(), s.size);
        for (size_t i = 0; i < s.size; i++) v[i] = Fr::from_mont_limbs(s.other_scalars[i]);
        return v;
    }
    std::vector<bool> seen(s.size, false);
    auto put = [&](size_t i, const Fr& x) {
        EXPECT_LT(i, s.size);
        EXPECT_FALSE(seen[i]) << "position " << i << " twice";
        seen[i] = true;
        v[i] = x;
    };
    for (uint32_t i : s.one_indices) put(i, Fr::one());
    for (size_t w = 0; w < s.one_bits.size(); w++)
        for (unsigned b = 0; b < 64; b++)
            if ((s.one_bits[w] >> b) & 1) put(w * 64 + b, Fr::one());
    for (size_t k = 0; k < s.other_indices.size(); k++)
        put(s.other_indices[k], Fr::from_mont_limbs(s.other_scalars[k]));
    return v;
}

// A tail at the positions i with i % period == 0 of a list of n.
inline std::shared_ptr<const SplitTail> periodic_tail(size_t n, size_t period) {
    std::vector<uint32_t> at((n + period - 1) / period);
    for (size_t k = 0; k < at.size(); k++) at[k] = (uint32_t)(k * period);
    return make_split_tail(n, at, 1);
}

// Values that are 0 with probability z, 1 with probability o, random otherwise (in percent).
inline std::vector<Fr> mixed(size_t n, unsigned z, unsigned o, std::mt19937_64& rng) {
    std::vector<Fr> v(n);
    for (auto& x : v) {
        const unsigned k = (unsigned)(rng() % 100);
        x = k < z ? Fr::zero() : k < z + o ? Fr::one() : Fr::random(rng);
    }
    return v;
}

}  // namespace cuzk::testing
