// Random tests print their seed, so a failure can be replayed: CUZK_TEST_SEED=<n> runs them with that seed.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>

namespace cuzk::testing {

inline uint64_t test_seed() {
    if (const char* s = std::getenv("CUZK_TEST_SEED")) return std::strtoull(s, nullptr, 0);
    return ((uint64_t)std::random_device{}() << 32) | std::random_device{}();
}

// A generator seeded by test_seed(), the seed printed with `what` (the test's name).
inline std::mt19937_64 seeded_rng(const char* what) {
    const uint64_t seed = test_seed();
    std::printf("[ seed ] %s: CUZK_TEST_SEED=%llu\n", what, (unsigned long long)seed);
    return std::mt19937_64(seed);
}

}  // namespace cuzk::testing
