// e(G1 generator, G2 generator) against the independently published value (RELIC; also zkcrypto's pairing test),
// read at run time from ../shared/vectors/bls12_381/pairing_g1_generator_g2_generator.txt.
#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "cuzk/pairing/pairing.hpp"

using namespace cuzk;

namespace {

const std::string kPath = std::string(CUZK_VECTORS_DIR) + "/bls12_381/pairing_g1_generator_g2_generator.txt";

// Parses "c<i>.c<j>.c<k> HEX" lines ('#' starts a comment) into the Fq12 whose c<i>.c<j>.c<k> is the k-th Fq of
// the j-th Fq2 of the i-th Fq6. Every failure is reported with the file and line.
Fq12 read_fq12(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::map<std::string, Fq> coeffs;
    std::string line;
    size_t lineno = 0;
    while (std::getline(in, line)) {
        lineno++;
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ls(line);
        std::string name, hex;
        if (!(ls >> name >> hex)) throw std::runtime_error(path + ":" + std::to_string(lineno) + ": malformed line");
        auto v = Fq::from_canonical(bigint::from_hex<6>(hex));
        if (!v) throw std::runtime_error(path + ":" + std::to_string(lineno) + ": coefficient >= p");
        if (!coeffs.emplace(name, *v).second)
            throw std::runtime_error(path + ":" + std::to_string(lineno) + ": duplicate " + name);
    }
    Fq12 f;
    std::array<Fq6*, 2> fq6{&f.c0, &f.c1};
    for (int i = 0; i < 2; i++) {
        std::array<Fq2*, 3> fq2{&fq6[i]->c0, &fq6[i]->c1, &fq6[i]->c2};
        for (int j = 0; j < 3; j++) {
            std::array<Fq*, 2> fq{&fq2[j]->c0, &fq2[j]->c1};
            for (int k = 0; k < 2; k++) {
                std::string name = "c" + std::to_string(i) + ".c" + std::to_string(j) + ".c" + std::to_string(k);
                auto it = coeffs.find(name);
                if (it == coeffs.end()) throw std::runtime_error(path + ": missing coefficient " + name);
                *fq[k] = it->second;
            }
        }
    }
    if (coeffs.size() != 12) throw std::runtime_error(path + ": expected 12 coefficients, got " + std::to_string(coeffs.size()));
    return f;
}

}  // namespace

TEST(PairingVectors, GeneratorPairingMatchesRelic) {
    Fq12 expected;
    try {
        expected = read_fq12(kPath);
    } catch (const std::exception& e) {
        FAIL() << "test vector unreadable: " << e.what();
    }
    EXPECT_EQ(pairing(G1Affine::generator(), G2Affine::generator()), expected);
    std::vector<G1Affine> p{G1Affine::generator()};
    std::vector<G2Affine> q{G2Affine::generator()};
    EXPECT_EQ(multi_pairing(p, q), expected);
    // The value is not 1, so the comparison above pins the map, not only that it is well defined.
    EXPECT_FALSE(expected.is_one());
}
