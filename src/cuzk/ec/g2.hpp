// G2: the order-r subgroup of the sextic twist E'(Fq2): y^2 = x^3 + 4(u + 1).
#pragma once

#include "cuzk/ec/curve.hpp"
#include "cuzk/ff/fq2.hpp"
#include "cuzk/ff/fr.hpp"

namespace cuzk {

struct G2Config {
    using F = Fq2;
    static constexpr Fq2 b() { return {Fq::from_u64(4), Fq::from_u64(4)}; }
    static constexpr Fq2 gen_x() {
        return {Fq::from_hex("0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8"
                             "c121bdb8"),
                Fq::from_hex("0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d05"
                             "5d042b7e")};
    }
    static constexpr Fq2 gen_y() {
        return {Fq::from_hex("0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e1935486"
                             "08b82801"),
                Fq::from_hex("0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075f"
                             "f05f79be")};
    }
};

using G2Affine = Affine<G2Config>;
using G2Jacobian = Jacobian<G2Config>;
using G2XYZZ = XYZZ<G2Config>;

}  // namespace cuzk
