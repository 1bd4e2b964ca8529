// Hand-built iden3 containers for tests (.r1cs, .wtns): the byte writer, the container, and the x * x = y circuit.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "cuzk/ff/fr.hpp"

namespace cuzk::test_iden3 {

struct Bytes {
    std::vector<uint8_t> v;
    Bytes& u32(uint32_t x) {
        for (int i = 0; i < 4; i++) v.push_back((uint8_t)(x >> (8 * i)));
        return *this;
    }
    Bytes& u64(uint64_t x) {
        for (int i = 0; i < 8; i++) v.push_back((uint8_t)(x >> (8 * i)));
        return *this;
    }
    template <size_t N>
    Bytes& limbs(const limbs_t<N>& l) {
        for (size_t i = 0; i < N; i++) u64(l[i]);
        return *this;
    }
    Bytes& fr(const Fr& x) { return limbs(x.to_canonical()); }
    Bytes& raw(std::string_view s) {
        v.insert(v.end(), s.begin(), s.end());
        return *this;
    }
    Bytes& append(const std::vector<uint8_t>& o) {
        v.insert(v.end(), o.begin(), o.end());
        return *this;
    }
};

inline std::vector<uint8_t> container(std::string_view magic, uint32_t version,
                               const std::vector<std::pair<uint32_t, std::vector<uint8_t>>>& sections) {
    Bytes b;
    b.raw(magic).u32(version).u32((uint32_t)sections.size());
    for (const auto& [type, body] : sections) b.u32(type).u64(body.size()).append(body);
    return b.v;
}

// BN254's scalar field prime, little-endian limbs.
constexpr limbs_t<4> kBn254R = {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL, 0xb85045b68181585dULL,
                                0x30644e72e131a029ULL};

// x * x = y with the public output y (wire 1) and the private input x (wire 2).
inline std::vector<uint8_t> square_r1cs(const limbs_t<4>& prime = Fr::P, uint32_t n_constraints = 1, uint32_t wire = 2) {
    Bytes h;
    h.u32(32).limbs(prime).u32(3).u32(1).u32(0).u32(1).u64(3).u32(n_constraints);
    Bytes c;
    c.u32(1).u32(wire).fr(Fr::one());  // A: x
    c.u32(1).u32(2).fr(Fr::one());     // B: x
    c.u32(1).u32(1).fr(Fr::one());     // C: y
    return container("r1cs", 1, {{1, h.v}, {2, c.v}});
}

inline std::vector<uint8_t> wtns(const std::vector<Fr>& values, const limbs_t<4>& prime = Fr::P,
                          std::optional<uint32_t> count = std::nullopt) {
    Bytes h;
    h.u32(32).limbs(prime).u32(count.value_or((uint32_t)values.size()));
    Bytes v;
    for (const Fr& x : values) v.fr(x);
    return container("wtns", 2, {{1, h.v}, {2, v.v}});
}

}  // namespace cuzk::test_iden3
