// The canonical row form (r1cs/canonical.hpp): terms merged, zeros dropped, sorted one / inputs / aux, decimal
// coefficients in [0, r), and the digest is the SHA-256 of exactly the JSON text.
#include <gtest/gtest.h>

#include <openssl/sha.h>

#include <sstream>

#include "cuzk/r1cs/canonical.hpp"

namespace cuzk::r1cs {
namespace {

TEST(R1csCanonical, MergesSortsAndDropsZeros) {
    TestConstraintSystem cs;
    Variable x = cs.alloc("x", [] { return Fr::from_u64(3); });
    Variable y = cs.alloc("y", [] { return Fr::from_u64(4); });
    Variable pub = cs.alloc_input("pub", [] { return Fr::from_u64(12); });
    // A = y + 2x + x - 3x (x cancels), B = x + one, C = -pub + pub + 5*pub... in a shuffled order.
    LC a = LC(y).add(Fr::from_u64(2), x).add(x).sub(Fr::from_u64(3), x);
    LC b = LC(x).add(Variable::one());
    LC c = LC(x).sub(x);  // empty after merging
    cs.enforce("c0", a, b, c);
    LC c1 = LC(y).add(Fr::from_u64(5), pub).sub(pub);
    cs.enforce("c1", LC(x), LC(Variable::one()), c1);

    std::ostringstream out;
    write_canonical_json(out, cs);
    EXPECT_EQ(out.str(),
              "{\"inputs\":2,\"aux\":2,\"constraints\":["
              "[[[\"a1\",\"1\"]],[[\"one\",\"1\"],[\"a0\",\"1\"]],[]],\n"
              "[[[\"a0\",\"1\"]],[[\"one\",\"1\"]],[[\"i1\",\"4\"],[\"a1\",\"1\"]]]]}\n");

    const std::string text = out.str();
    std::array<uint8_t, 32> want{};
    SHA256(reinterpret_cast<const uint8_t*>(text.data()), text.size(), want.data());
    EXPECT_EQ(canonical_digest(cs), want);
}

TEST(R1csCanonical, NegativeCoefficientsPrintInTheField) {
    TestConstraintSystem cs;
    Variable x = cs.alloc("x", [] { return Fr::one(); });
    cs.enforce("c", LC().sub(x), LC(Variable::one()), LC());
    std::ostringstream out;
    write_canonical_json(out, cs);
    // r - 1
    EXPECT_NE(out.str().find("\"52435875175126190479447740508185965837690552500527637822603658699938581184512\""),
              std::string::npos)
        << out.str();
}

}  // namespace
}  // namespace cuzk::r1cs
