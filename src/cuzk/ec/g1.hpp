// G1: the order-r subgroup of E(Fq): y^2 = x^3 + 4.
#pragma once

#include "cuzk/ec/curve.hpp"
#include "cuzk/ff/fq.hpp"
#include "cuzk/ff/fr.hpp"

namespace cuzk {

struct G1Config {
    using F = Fq;
    static constexpr Fq b() { return Fq::from_u64(4); }
    // The standard generator (zkcrypto bls12_381, IETF pairing-friendly-curves draft); checked against the
    // zkcrypto encodings in ../shared/vectors.
    static constexpr Fq gen_x() {
        return Fq::from_hex(
            "0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
    }
    static constexpr Fq gen_y() {
        return Fq::from_hex(
            "0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
    }
};

using G1Affine = Affine<G1Config>;
using G1Jacobian = Jacobian<G1Config>;
using G1XYZZ = XYZZ<G1Config>;

}  // namespace cuzk
