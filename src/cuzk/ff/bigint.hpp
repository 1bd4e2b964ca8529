// Fixed-width unsigned integers on 64-bit little-endian limbs, usable in constant expressions.
// They derive every Montgomery constant of a field from its modulus at compile time, so the modulus is the
// single source of truth (tests re-derive each constant with GMP).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cuzk {

using u128 = unsigned __int128;

template <size_t N>
using limbs_t = std::array<uint64_t, N>;

namespace bigint {

template <size_t N>
constexpr bool is_zero(const limbs_t<N>& a) {
    for (auto v : a)
        if (v) return false;
    return true;
}

// -1, 0, 1 for a < b, a == b, a > b.
template <size_t N>
constexpr int cmp(const limbs_t<N>& a, const limbs_t<N>& b) {
    for (size_t i = N; i-- > 0;) {
        if (a[i] < b[i]) return -1;
        if (a[i] > b[i]) return 1;
    }
    return 0;
}

// r = a + b, returns the carry out.
template <size_t N>
constexpr uint64_t add(limbs_t<N>& r, const limbs_t<N>& a, const limbs_t<N>& b) {
    uint64_t carry = 0;
    for (size_t i = 0; i < N; i++) {
        u128 s = (u128)a[i] + b[i] + carry;
        r[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
    return carry;
}

// r = a - b, returns the borrow out.
template <size_t N>
constexpr uint64_t sub(limbs_t<N>& r, const limbs_t<N>& a, const limbs_t<N>& b) {
    uint64_t borrow = 0;
    for (size_t i = 0; i < N; i++) {
        u128 d = (u128)a[i] - b[i] - borrow;
        r[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    return borrow;
}

template <size_t N>
constexpr limbs_t<N> shr1(const limbs_t<N>& a) {
    limbs_t<N> r{};
    for (size_t i = 0; i < N; i++) r[i] = (a[i] >> 1) | (i + 1 < N ? a[i + 1] << 63 : 0);
    return r;
}

template <size_t N>
constexpr size_t num_bits(const limbs_t<N>& a) {
    for (size_t i = N; i-- > 0;)
        if (a[i]) return i * 64 + 64 - (size_t)__builtin_clzll(a[i]);
    return 0;
}

template <size_t N>
constexpr bool bit(const limbs_t<N>& a, size_t i) {
    return i < 64 * N && ((a[i / 64] >> (i % 64)) & 1);
}

// (a + b) mod m for a, b < m.
template <size_t N>
constexpr limbs_t<N> add_mod(const limbs_t<N>& a, const limbs_t<N>& b, const limbs_t<N>& m) {
    limbs_t<N> r{};
    uint64_t carry = add(r, a, b);
    if (carry || cmp(r, m) >= 0) sub(r, r, m);
    return r;
}

// 2^k mod m, by doubling (only for constant evaluation and tests: O(k) additions).
template <size_t N>
constexpr limbs_t<N> pow2_mod(size_t k, const limbs_t<N>& m) {
    limbs_t<N> r{};
    r[0] = 1;
    if (cmp(r, m) >= 0) sub(r, r, m);
    for (size_t i = 0; i < k; i++) r = add_mod(r, r, m);
    return r;
}

// -m^{-1} mod 2^64 for odd m, by Newton iteration x <- x(2 - m x) (each step doubles the correct low bits).
constexpr uint64_t neg_inv64(uint64_t m0) {
    uint64_t x = 1;
    for (int i = 0; i < 7; i++) x *= 2 - m0 * x;
    return (uint64_t)0 - x;
}

// Parses "0x..." hexadecimal (big-endian text) into limbs; throws when it does not fit.
template <size_t N>
constexpr limbs_t<N> from_hex(std::string_view s) {
    if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
    limbs_t<N> r{};
    size_t nibble = 0;
    for (size_t i = s.size(); i-- > 0;) {
        char c = s[i];
        uint64_t v;
        if (c >= '0' && c <= '9') v = (uint64_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v = (uint64_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v = (uint64_t)(c - 'A' + 10);
        else throw std::invalid_argument("from_hex: not a hex digit");
        if (nibble >= 16 * N) {
            if (v) throw std::invalid_argument("from_hex: value too large");
            continue;
        }
        r[nibble / 16] |= v << (4 * (nibble % 16));
        nibble++;
    }
    return r;
}

template <size_t N>
std::string to_hex(const limbs_t<N>& a) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (size_t i = N; i-- > 0;)
        for (int j = 60; j >= 0; j -= 4) s.push_back(digits[(a[i] >> j) & 15]);
    size_t nz = s.find_first_not_of('0');
    return "0x" + (nz == std::string::npos ? std::string("0") : s.substr(nz));
}

// Decimal text <-> limbs (schoolbook; used for I/O, not on hot paths).
template <size_t N>
std::string to_decimal(limbs_t<N> a) {
    if (is_zero(a)) return "0";
    std::string s;
    while (!is_zero(a)) {
        u128 rem = 0;
        for (size_t i = N; i-- > 0;) {
            u128 cur = (rem << 64) | a[i];
            a[i] = (uint64_t)(cur / 10);
            rem = cur % 10;
        }
        s.push_back((char)('0' + (int)rem));
    }
    return std::string(s.rbegin(), s.rend());
}

// Returns false on a non-digit, an empty string or overflow.
template <size_t N>
bool from_decimal(std::string_view s, limbs_t<N>& out) {
    if (s.empty()) return false;
    limbs_t<N> r{};
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        u128 carry = (uint64_t)(c - '0');
        for (size_t i = 0; i < N; i++) {
            u128 cur = (u128)r[i] * 10 + carry;
            r[i] = (uint64_t)cur;
            carry = cur >> 64;
        }
        if (carry) return false;
    }
    out = r;
    return true;
}

}  // namespace bigint
}  // namespace cuzk
