// What the PoSt and SnapDeals vanilla-proof tests share: the FilecoinError a call throws, a message check, JSON text
// as bytes, and serde_json's form of a 32-byte node for hand-written fixtures.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>

#include "cuzk/filecoin/c1.hpp"

namespace cuzk::testing {

// The message of the FilecoinError `fn` throws, of `kind` (empty, and a test failure, when it throws none).
template <class Fn>
std::string error_of(Fn&& fn, filecoin::FilecoinErrorKind kind = filecoin::FilecoinErrorKind::MalformedVanilla) {
    try {
        fn();
    } catch (const filecoin::FilecoinError& e) {
        EXPECT_EQ(e.kind(), kind) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no FilecoinError";
    return "";
}

inline void expect_has(const std::string& message, const std::string& part) {
    EXPECT_NE(message.find(part), std::string::npos) << message;
}

inline std::span<const uint8_t> bytes_of(const std::string& s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// serde_json's [u8; 32]: 32 numbers; here a node whose first byte is k and the rest zero (node_domain(k)).
inline std::string node_json(int k) {
    std::string s = "[" + std::to_string(k);
    for (int i = 1; i < 32; i++) s += ",0";
    return s + "]";
}
inline filecoin::Domain node_domain(int k) {
    filecoin::Domain d{};
    d[0] = uint8_t(k);
    return d;
}

}  // namespace cuzk::testing
