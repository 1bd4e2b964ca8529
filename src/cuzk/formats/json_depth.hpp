// JSON nesting bounded before any parser sees the text (issue 20 item 6). nlohmann's parser is iterative, but its
// dump() and any recursive walk of the parsed value are not: a 200 kB "[[[[...]]]]" ended `cuzk verify` with a stack
// overflow. Every JSON input cuzk reads from outside goes through this check first (the C1 and vanilla-proof
// readers have their own bound, filecoin/vanilla_json.hpp).
#pragma once

#include <cstddef>
#include <string_view>

namespace cuzk::formats {

// Far deeper than any file cuzk reads (snarkjs's deepest, vk_alphabeta_12, nests 4 levels).
inline constexpr size_t kMaxJsonDepth = 64;

// Throws FormatError(BadJson) naming `source` when arrays and objects nest deeper than max_depth (brackets inside
// strings do not count). Linear in the text; says nothing else about its validity.
void check_json_depth(std::string_view text, std::string_view source, size_t max_depth = kMaxJsonDepth);

}  // namespace cuzk::formats
