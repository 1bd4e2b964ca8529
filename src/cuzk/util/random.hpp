// Randomness: OsRng draws from the operating system's CSPRNG (getrandom) for secrets — Groth16's r and s, setup's
// toxic waste; tests and benchmarks use seeded std::mt19937_64 instead, explicitly. secure_wipe erases secrets.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cuzk {

// A UniformRandomBitGenerator over getrandom(2); throws std::runtime_error if the kernel refuses.
struct OsRng {
    using result_type = uint64_t;
    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return ~result_type{0}; }
    result_type operator()();
    static void fill(void* out, size_t bytes);
};

// Overwrites memory in a way the compiler may not remove (explicit_bzero).
void secure_wipe(void* p, size_t bytes);

template <class T>
void secure_wipe_object(T& obj) {
    secure_wipe(&obj, sizeof(T));
}

}  // namespace cuzk
