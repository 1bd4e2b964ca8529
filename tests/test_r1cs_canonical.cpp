// The canonical row form (r1cs/canonical.hpp): terms merged, zeros dropped, sorted one / inputs / aux, decimal
// coefficients in [0, r), and the digest is the SHA-256 of exactly the JSON text.
#include <gtest/gtest.h>

#include <openssl/sha.h>

#include <functional>
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

// ---- the streaming form (CanonicalStream), for circuits too large to hold ------------------------------------------

#include "cuzk/filecoin/porep_circuit.hpp"
#include "cuzk/gadgets/poseidon.hpp"
#include "cuzk/r1cs/counting_cs.hpp"

namespace cuzk::r1cs {
namespace {

std::string stream_text(uint64_t inputs, uint64_t aux, const std::function<void(CanonicalStream&)>& synth) {
    std::string text;
    CanonicalStream st(inputs, aux, [&](std::string_view s) { text += s; });
    synth(st);
    st.finish();
    return text;
}

// A blank synthesis streamed equals the test system's form of a synthesis with values (rows do not depend on them).
TEST(R1csCanonical, StreamOfABlankGadgetEqualsTheTestSystem) {
    using gadgets::AllocatedNum;
    TestConstraintSystem cs;
    std::vector<AllocatedNum> in;
    for (uint64_t i = 0; i < 8; i++) in.push_back(AllocatedNum::alloc(cs, "x" + std::to_string(i), Fr::from_u64(i)));
    gadgets::poseidon_hash_gadget(cs, std::span<const AllocatedNum>(in));
    std::ostringstream want;
    write_canonical_json(want, cs);

    const std::string got = stream_text(cs.num_inputs(), cs.num_aux(), [](CanonicalStream& st) {
        std::vector<AllocatedNum> blank;
        for (int i = 0; i < 8; i++) blank.push_back(AllocatedNum::alloc(st, "x", std::nullopt));
        gadgets::poseidon_hash_gadget(st, std::span<const AllocatedNum>(blank));
    });
    EXPECT_EQ(got, want.str());
    // Announced counts that the circuit does not allocate are an error, not a wrong header.
    EXPECT_THROW(stream_text(cs.num_inputs(), cs.num_aux() + 1, [](CanonicalStream&) {}), std::logic_error);
}

// The blank one-challenge 2 KiB PoRep partition streams to the digest its satisfied synthesis pins in
// test_filecoin_porep_circuit.cpp (what `cuzk filecoin r1cs --circuit porep --digest` does at any size).
TEST(R1csCanonical, StreamedPorepDigestEqualsTheTestSystemPin) {
    const filecoin::StackedPorepShape shape{64, 2, 1, {8, 0, 0}};
    const auto info = filecoin::porep_circuit_info(shape);
    Sha256Sink sha;
    CanonicalStream st(info.inputs, info.aux, [&](std::string_view s) { sha.feed(s); });
    filecoin::synthesize_stacked_porep(st, filecoin::blank_stacked_porep_partition(shape));
    st.finish();
    EXPECT_EQ(st.num_constraints(), info.constraints);
    static const char* d = "0123456789abcdef";
    std::string hex;
    for (uint8_t x : sha.digest()) hex += d[x >> 4], hex += d[x & 15];
    EXPECT_EQ(hex, "58ecdc3ef4f55d5104a03f704cc74fb50e7e680c50bd6a0b9d9aa594783ed66b");
}

}  // namespace
}  // namespace cuzk::r1cs
