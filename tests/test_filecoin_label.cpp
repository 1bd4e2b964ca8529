// SDR's labeling circuit (src/cuzk/filecoin/label.hpp) as rust-fil-proofs' create_label.rs test sets it up:
// 532,025 rows, and the label equal to the native one (SHA-256 of the 1,248-byte preimage, byte 31 & 0x3F,
// little-endian Fr); a tampered bit is named; the prover and witness systems agree with the test system; and the
// way the PoRep circuit calls it (parents from to_bits_le, the node an allocated UInt64) gives the same label.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>

#include "r1cs_checks.hpp"
#include "seeded_rng.hpp"
#include "cuzk/r1cs/canonical.hpp"
#include "cuzk/filecoin/label.hpp"
#include "cuzk/r1cs/keygen_assembly.hpp"
#include "cuzk/r1cs/proving_assignment.hpp"
#include "cuzk/r1cs/test_cs.hpp"
#include "cuzk/r1cs/witness_assignment.hpp"

using namespace cuzk;
using namespace cuzk::gadgets;
using cuzk::filecoin::create_label_circuit;
using cuzk::filecoin::kLabelTotalParents;
using r1cs::KeygenAssembly;
using r1cs::ProvingAssignment;
using r1cs::TestConstraintSystem;
using r1cs::WitnessAssignment;
using Node = std::array<uint8_t, 32>;

namespace {
using cuzk::testing::seeded_rng;

// The SHA-256 of the system's canonical rows (r1cs/canonical.hpp, what `cuzk filecoin r1cs --digest` prints).
std::string canonical_r1cs_digest(const TestConstraintSystem& cs) {
    static const char* d = "0123456789abcdef";
    std::string s;
    for (uint8_t x : r1cs::canonical_digest(cs)) s += d[x >> 4], s += d[x & 15];
    return s;
}

Node fr_bytes(const Fr& x) {
    Node n;
    x.to_bytes_le(n.data());
    return n;
}

// The vanilla label: SHA-256(replica_id ‖ layer u32 BE ‖ node u64 BE ‖ 20 zero bytes ‖ 37 parents), byte 31 &=
// 0x3F, read as a little-endian Fr.
Fr native_label(const Node& replica_id, uint32_t layer, uint64_t node, const std::vector<Node>& parents) {
    std::vector<uint8_t> pre(replica_id.begin(), replica_id.end());
    for (int i = 3; i >= 0; i--) pre.push_back(uint8_t(layer >> (8 * i)));
    for (int i = 7; i >= 0; i--) pre.push_back(uint8_t(node >> (8 * i)));
    pre.resize(64, 0);
    for (const Node& p : parents) pre.insert(pre.end(), p.begin(), p.end());
    EXPECT_EQ(pre.size(), 1248u);
    Node d{};
    unsigned len = 0;
    EXPECT_EQ(EVP_Digest(pre.data(), pre.size(), d.data(), &len, EVP_sha256(), nullptr), 1);
    d[31] &= 0x3F;
    return *Fr::from_bytes_le(d.data());
}

// 14 random nodes (6 base + 8 expander parents), expanded as the layer >= 2 sequence p ‖ p ‖ p[0..9].
std::vector<Node> random_parents(std::mt19937_64& rng) {
    std::vector<Node> raw;
    for (int i = 0; i < 14; i++) raw.push_back(fr_bytes(Fr::random(rng)));
    std::vector<Node> seq = raw;
    seq.insert(seq.end(), raw.begin(), raw.end());
    seq.insert(seq.end(), raw.begin(), raw.begin() + 9);
    return seq;
}

// The upstream test's circuit: parents then the id allocated from their bytes (big-endian bits, 256 rows each),
// the layer and node constants, then create_label in "create_label".
template <class CS>
AllocatedNum upstream_test_circuit(CS& cs, const Node& id, const std::vector<Node>& parents, uint32_t layer,
                                   uint64_t node, bool with_values) {
    std::vector<std::vector<Boolean>> parent_bits;
    for (size_t i = 0; i < parents.size(); i++) {
        std::optional<std::span<const uint8_t>> bytes;
        if (with_values) bytes = std::span<const uint8_t>(parents[i]);
        parent_bits.push_back(bytes_into_boolean_vec_be(
            cs, [i] { return "parents " + std::to_string(i); }, bytes, 256));
    }
    std::optional<std::span<const uint8_t>> id_bytes;
    if (with_values) id_bytes = std::span<const uint8_t>(id);
    std::vector<Boolean> id_bits = bytes_into_boolean_vec_be(cs, "id", id_bytes, 256);
    return create_label_circuit(cs, "create_label", id_bits, parent_bits, UInt32::constant(layer),
                                UInt64::constant(node));
}
}  // namespace

TEST(FilecoinLabel, UpstreamTestIs532025AndMatchesNative) {
    // rust-fil-proofs create_label.rs test_create_label: layer 3, node 22, random id and parents.
    auto rng = seeded_rng("FilecoinLabel.UpstreamTestIs532025AndMatchesNative");
    const Node id = fr_bytes(Fr::random(rng));
    const std::vector<Node> parents = random_parents(rng);
    ASSERT_EQ(parents.size(), kLabelTotalParents);

    TestConstraintSystem cs;
    AllocatedNum label = upstream_test_circuit(cs, id, parents, 3, 22, true);
    ASSERT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
    EXPECT_EQ(cs.num_constraints(), 532025u);
    EXPECT_EQ(cs.num_inputs(), 1u);
    ASSERT_TRUE(label.value());
    EXPECT_EQ(*label.value(), native_label(id, 3, 22, parents));
    EXPECT_EQ(cs.aux_names()[label.variable().index()], "create_label/result_num/input/num");
    // Every variable is a bit or the label, each defined by a row of its own; the other rows are the MultiEq rows
    // of the 20 compressions and nothing else.
    const size_t multieq_rows = std::count_if(cs.constraints().begin(), cs.constraints().end(), [](const auto& c) {
        return c.name.find("/multieq ") != std::string::npos;
    });
    EXPECT_EQ(cs.num_aux() + multieq_rows, 532025u);
    // Regression pin of the whole R1CS (this implementation's, reviewed against rust-fil-proofs' and bellperson's
    // code; not a digest computed by them).
    EXPECT_EQ(canonical_r1cs_digest(cs), "51f7686e36be5396a93fe09b12691cde6c3375a14adc918e56ede73711491262");

    // A tampered label is caught by the packing row; a tampered input bit somewhere in the hash is caught too, by
    // a row that names it.
    Fr good = *label.value();
    cs.set_aux(label.variable().index(), good + Fr::one());
    EXPECT_EQ(cs.which_is_unsatisfied(), std::optional<std::string>("create_label/result_num/packing constraint"));
    cs.set_aux(label.variable().index(), good);
    {
        const size_t i = rng() % cs.num_aux();
        const Fr old = cs.aux()[i];
        cs.set_aux(i, old.is_zero() ? Fr::one() : Fr::zero());
        auto bad = cs.which_is_unsatisfied();
        EXPECT_TRUE(bad.has_value()) << "flipping " << cs.aux_names()[i] << " went unnoticed";
        cs.set_aux(i, old);
    }
    EXPECT_TRUE(cs.is_satisfied());

    // The prover's and the witness-only systems: the same assignment, every row holding, the same label.
    ProvingAssignment pa;
    pa.alloc_input("one", [] { return Fr::one(); });
    AllocatedNum pl = upstream_test_circuit(pa, id, parents, 3, 22, true);
    ASSERT_EQ(pa.num_constraints(), cs.num_constraints());
    EXPECT_EQ(pa.aux(), cs.aux());
    EXPECT_EQ(cuzk::testing::unsatisfied_rows(pa), 0u);
    EXPECT_EQ(pl.value(), label.value());

    WitnessAssignment wa;
    wa.alloc_input("one", [] { return Fr::one(); });
    upstream_test_circuit(wa, id, parents, 3, 22, true);
    EXPECT_EQ(wa.aux(), cs.aux());

    // The key generator (no values; compact rows as the pre-compiled evaluator records them).
    KeygenAssembly kg(/*compact=*/true);
    kg.alloc_input("one", [] { return Fr::one(); });
    upstream_test_circuit(kg, id, parents, 3, 22, false);
    EXPECT_EQ(kg.num_constraints(), 532025u);
    EXPECT_EQ(kg.num_aux(), cs.num_aux());
}

TEST(FilecoinLabel, AsThePorepCircuitCallsIt) {
    // Parents' labels as allocated numbers turned into SHA-256 bit order by to_bits_le + reverse_bit_numbering
    // (256 rows each, the padded top bit a constant), the replica id likewise, the node the challenge's allocated
    // UInt64; layer 1's parent sequence (6 base parents repeated 6 times, then the first).
    auto rng = seeded_rng("FilecoinLabel.AsThePorepCircuitCallsIt");
    const Fr id = Fr::random(rng);
    const uint64_t node = rng() >> 34;
    std::vector<Fr> base(6);
    for (auto& p : base) p = Fr::random(rng);

    // Synthesized by the prover's system (fast), every row checked.
    ProvingAssignment cs;
    cs.alloc_input("one", [] { return Fr::one(); });
    AllocatedNum id_num = AllocatedNum::alloc(cs, "replica_id", id);
    std::vector<Boolean> id_bits = reverse_bit_numbering(id_num.to_bits_le(cs, "replica_id_bits"));
    UInt64 challenge = UInt64::alloc(cs, "challenge", node);
    std::vector<std::vector<Boolean>> parents;
    for (size_t i = 0; i < 6; i++) {
        AllocatedNum p = AllocatedNum::alloc(cs, "parent", base[i]);
        parents.push_back(reverse_bit_numbering(p.to_bits_le(cs, "bits")));
    }
    std::vector<std::vector<Boolean>> expanded;
    for (int r = 0; r < 6; r++) expanded.insert(expanded.end(), parents.begin(), parents.end());
    expanded.push_back(parents[0]);
    const size_t before = cs.num_constraints();
    AllocatedNum label = create_label_circuit(cs, "create_label", id_bits, expanded, UInt32::constant(1), challenge);
    EXPECT_EQ(cuzk::testing::unsatisfied_rows(cs), 0u);
    // Fewer rows than the upstream test's 532,025 - 37 * 256 - 256 = 522,297 for the label alone: every parent's
    // padded top bit is a constant, and layer-1 parents repeat.
    EXPECT_LT(cs.num_constraints() - before, 522297u);

    std::vector<Node> parent_nodes;
    for (int r = 0; r < 6; r++)
        for (const Fr& p : base) parent_nodes.push_back(fr_bytes(p));
    parent_nodes.push_back(fr_bytes(base[0]));
    EXPECT_EQ(label.value(), std::optional<Fr>(native_label(fr_bytes(id), 1, node, parent_nodes)));
}

TEST(FilecoinLabel, RejectsMalformedInputs) {
    TestConstraintSystem cs;
    std::vector<Boolean> id(256, Boolean::constant(false));
    std::vector<std::vector<Boolean>> parents(kLabelTotalParents, std::vector<Boolean>(256, Boolean::constant(false)));
    EXPECT_THROW(create_label_circuit(cs, "a", std::span<const Boolean>(id).first(16), parents, UInt32::constant(1),
                                      UInt64::constant(1)),
                 std::invalid_argument);
    std::vector<Boolean> long_id(300, Boolean::constant(false));
    EXPECT_THROW(create_label_circuit(cs, "b", long_id, parents, UInt32::constant(1), UInt64::constant(1)),
                 std::invalid_argument);
    auto fewer = parents;
    fewer.pop_back();
    EXPECT_THROW(create_label_circuit(cs, "c", id, fewer, UInt32::constant(1), UInt64::constant(1)),
                 std::invalid_argument);
    auto longer = parents;
    longer[3].push_back(Boolean::constant(false));
    EXPECT_THROW(create_label_circuit(cs, "d", id, longer, UInt32::constant(1), UInt64::constant(1)),
                 std::invalid_argument);
    // A shorter replica id is padded with constant zeros, as upstream.
    AllocatedNum l = create_label_circuit(cs, "e", std::span<const Boolean>(id).first(200), parents,
                                          UInt32::constant(1), UInt64::constant(1));
    EXPECT_TRUE(l.value().has_value());
}
