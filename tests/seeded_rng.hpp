// Random tests print their seed, so a failure can be replayed: CUZK_TEST_SEED=<n> runs them with that seed.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include <gtest/gtest.h>

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

// A generator for the test that is running, seeded (and printed) by seeded_rng on its first use in each test: for
// helpers that draw fresh seeds for many cases of one test (replayed together with CUZK_TEST_SEED).
inline std::mt19937_64& test_rng() {
    static std::string test;
    static std::mt19937_64 gen;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "(no test)";
    if (name != test) {
        test = name;
        gen = seeded_rng(name.c_str());
    }
    return gen;
}

}  // namespace cuzk::testing
