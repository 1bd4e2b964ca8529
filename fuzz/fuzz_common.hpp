// Shared by the libFuzzer harnesses (fuzz/*.cpp, scripts/fuzz.sh): each feeds its input to one family of cuzk's
// parsers. A parser may refuse an input by throwing one of its documented errors; anything else is a finding: a
// crash or a sanitizer report (address, undefined behaviour), a hang, or an allocation sized by the input before it
// was checked (std::bad_alloc, std::length_error), which abort here so the fuzzer keeps the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <span>
#include <stdexcept>
#include <string_view>

namespace cuzk::fuzz {

inline std::span<const uint8_t> bytes(const uint8_t* data, size_t size) { return {data, size}; }
inline std::string_view text(const uint8_t* data, size_t size) { return {reinterpret_cast<const char*>(data), size}; }

// Runs one parser on the input: a refusal is fine, an unchecked allocation is not.
template <class F>
void refusal_is_fine(F&& parse) {
    try {
        parse();
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "finding: an allocation sized by the input (std::bad_alloc)\n");
        std::abort();
    } catch (const std::length_error& e) {
        std::fprintf(stderr, "finding: an allocation sized by the input (%s)\n", e.what());
        std::abort();
    } catch (const std::exception&) {
        // the parser's error: the input was refused
    }
}

}  // namespace cuzk::fuzz
