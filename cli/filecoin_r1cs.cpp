#include "filecoin_r1cs.hpp"

#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/filecoin/label.hpp"
#include "cuzk/filecoin/por.hpp"
#include "cuzk/filecoin/porep_circuit.hpp"
#include "cuzk/filecoin/proof_types.hpp"
#include "cuzk/r1cs/canonical.hpp"
#include "cuzk/r1cs/test_cs.hpp"

namespace cuzk::cli {

namespace {

using gadgets::AllocatedBit;
using gadgets::AllocatedNum;
using gadgets::Boolean;
using r1cs::TestConstraintSystem;

// Values only make the test system's assignment complete; the rows do not depend on them.
Fr filler(size_t i) { return Fr::from_u64(0x9e3779b97f4a7c15ull * (i + 1)); }

std::vector<AllocatedNum> alloc_nums(TestConstraintSystem& cs, const char* prefix, size_t n) {
    std::vector<AllocatedNum> v;
    for (size_t i = 0; i < n; i++)
        v.push_back(AllocatedNum::alloc(cs, [&] { return std::string(prefix) + " " + std::to_string(i); }, filler(i)));
    return v;
}

std::vector<Boolean> alloc_bits(TestConstraintSystem& cs, const char* prefix, size_t n, uint64_t pattern) {
    std::vector<Boolean> v;
    for (size_t i = 0; i < n; i++)
        v.emplace_back(AllocatedBit::alloc(cs, [&] { return std::string(prefix) + " " + std::to_string(i); },
                                           ((pattern >> (i % 64)) & 1) != 0));
    return v;
}

// poseidon: the A preimage elements as allocated nums, then neptune's circuit.
void poseidon(TestConstraintSystem& cs, size_t arity) {
    auto pre = alloc_nums(cs, "preimage", arity);
    r1cs::Namespace<TestConstraintSystem> ns(cs, "poseidon");
    gadgets::poseidon_hash_gadget(cs, std::span<const AllocatedNum>(pre));
}

// sha256: 512 message bits (AllocatedBits with their booleanity rows), then bellperson's sha256 (two blocks).
void sha256(TestConstraintSystem& cs) {
    auto bits = alloc_bits(cs, "message bit", 512, 0x5a3c96e1f00f1234ull);
    gadgets::sha256(cs, "sha256", std::span<const Boolean>(bits));
}

// insert8: the element and its 7 siblings as allocated nums, the 3 index bits, then insert_8.
void insert8(TestConstraintSystem& cs) {
    auto element = alloc_nums(cs, "element", 1);
    auto siblings = alloc_nums(cs, "sibling", 7);
    auto bits = alloc_bits(cs, "index bit", 3, 5);
    r1cs::Namespace<TestConstraintSystem> ns(cs, "insert");
    filecoin::insert(cs, element[0], std::span<const Boolean>(bits), std::span<const AllocatedNum>(siblings));
}

// label: as rust-fil-proofs' create_label test: 37 parents and the replica id allocated from bytes (256 bits each,
// most significant bit of each byte first), layer 3 and node 22 as constants.
void label(TestConstraintSystem& cs) {
    std::vector<std::vector<Boolean>> parents;
    for (size_t i = 0; i < filecoin::kLabelTotalParents; i++) {
        std::array<uint8_t, 32> bytes{};
        for (size_t j = 0; j < 31; j++) bytes[j] = uint8_t(i * 31 + j * 7);
        parents.push_back(gadgets::bytes_into_boolean_vec_be(
            cs, [i] { return "parents " + std::to_string(i); }, std::optional<std::span<const uint8_t>>(bytes), 256));
    }
    std::array<uint8_t, 32> id{};
    for (size_t j = 0; j < 31; j++) id[j] = uint8_t(0xa5 ^ j);
    auto id_bits = gadgets::bytes_into_boolean_vec_be(cs, "id", std::optional<std::span<const uint8_t>>(id), 256);
    filecoin::create_label_circuit(cs, "create_label", std::span<const Boolean>(id_bits),
                                   std::span<const std::vector<Boolean>>(parents), gadgets::UInt32::constant(3),
                                   gadgets::UInt64::constant(22));
}

// por8: the current node as an allocated num, then one 8-ary Poseidon path level (3 index bits, 7 siblings,
// insert_8, Poseidon-8).
void por8(TestConstraintSystem& cs) {
    auto node = alloc_nums(cs, "node", 1);
    filecoin::PorLevel level;
    level.arity = 8;
    level.index = 5;
    for (size_t j = 0; j < 7; j++) level.siblings.push_back(filler(100 + j));
    std::vector<Boolean> bits;
    filecoin::por_levels(cs, filecoin::TreeHasher::Poseidon, std::span<const filecoin::PorLevel>(&level, 1), node[0],
                         bits);
}

int run(const std::string& gadget, size_t arity, bool json, bool digest) {
    if (json == digest) throw std::invalid_argument("give exactly one of --json, --digest");
    if (gadget != "poseidon" && arity != 0) throw std::invalid_argument("--arity is for --gadget poseidon only");
    TestConstraintSystem cs;
    if (gadget == "poseidon") {
        if (arity == 0) throw std::invalid_argument("--gadget poseidon needs --arity (2, 4, 8, 11, 16, 24 or 36)");
        poseidon(cs, arity);
    } else if (gadget == "sha256") {
        sha256(cs);
    } else if (gadget == "insert8") {
        insert8(cs);
    } else if (gadget == "label") {
        label(cs);
    } else {
        por8(cs);
    }
    if (auto bad = cs.which_is_unsatisfied()) throw std::logic_error("gadget not satisfied at " + *bad);
    if (json) {
        std::ios::sync_with_stdio(false);
        r1cs::write_canonical_json(std::cout, cs);
        std::cout.flush();
    } else {
        std::printf("%s\n", filecoin::to_hex(r1cs::canonical_digest(cs)).c_str());
    }
    return 0;
}

// The whole PoRep partition's rows, streamed while its blank circuit is synthesized (any size: nothing is held; the
// counts for the header come from a counting pass first).
int run_circuit(const std::string& circuit, uint64_t sector_size, const std::string& api_version, bool json,
                bool digest) {
    if (json == digest) throw std::invalid_argument("give exactly one of --json, --digest");
    if (circuit != "porep") throw std::invalid_argument("--circuit " + circuit + ": only porep so far");
    const auto config = filecoin::PorepConfig::make(sector_size, filecoin::Bytes32{},
                                                    filecoin::api_version_from_name(api_version));
    const auto shape = filecoin::StackedPorepShape::of(config);
    const auto info = filecoin::porep_circuit_info(shape);
    r1cs::Sha256Sink sha;
    std::string out;
    auto sink = [&](std::string_view s) {
        if (digest) {
            sha.feed(s);
            return;
        }
        out += s;
        if (out.size() >= (1u << 20)) {
            std::fwrite(out.data(), 1, out.size(), stdout);
            out.clear();
        }
    };
    r1cs::CanonicalStream st(info.inputs, info.aux, sink);
    filecoin::synthesize_stacked_porep(st, filecoin::blank_stacked_porep_partition(shape));
    st.finish();
    if (digest) {
        std::printf("%s\n", filecoin::to_hex(sha.digest()).c_str());
    } else {
        std::fwrite(out.data(), 1, out.size(), stdout);
        if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw std::runtime_error("writing the rows failed");
    }
    return 0;
}

}  // namespace

void add_filecoin_r1cs_command(CLI::App* filecoin, int& exit_code) {
    struct Args {
        std::string gadget, circuit, sector_size, api_version = "V1_1_0";
        size_t arity = 0;
        bool json = false, digest = false;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = filecoin->add_subcommand(
        "r1cs", "the exact rows of one gadget or a whole circuit (canonical JSON, or its SHA-256)");
    auto* gadget = cmd->add_option("--gadget", a->gadget, "poseidon, sha256, insert8, label or por8")
                       ->check(CLI::IsMember({"poseidon", "sha256", "insert8", "label", "por8"}));
    auto* circuit = cmd->add_option("--circuit", a->circuit, "porep: one whole partition (with --sector-size)")
                        ->check(CLI::IsMember({"porep"}));
    gadget->excludes(circuit);
    cmd->add_option("--sector-size", a->sector_size, "--circuit: the sector size in bytes (or 2KiB, 32GiB, ...)");
    cmd->add_option("--api-version", a->api_version, "--circuit porep: V1_0_0, V1_1_0 or V1_2_0 (rows are the same)");
    cmd->add_option("--arity", a->arity, "poseidon: 2, 4, 8, 11, 16, 24 or 36")
        ->check(CLI::IsMember({2, 4, 8, 11, 16, 24, 36}));
    cmd->add_flag("--json", a->json, "print the rows: {\"inputs\", \"aux\", \"constraints\": [[A, B, C], ...]}");
    cmd->add_flag("--digest", a->digest, "print the SHA-256 of that JSON instead");
    cmd->callback([a, &exit_code] {
        try {
            if (a->gadget.empty() == a->circuit.empty())
                throw std::invalid_argument("give --gadget NAME or --circuit porep --sector-size BYTES");
            if (!a->circuit.empty()) {
                if (a->sector_size.empty()) throw std::invalid_argument("--circuit needs --sector-size");
                uint64_t size = 0;
                for (const auto& shape : filecoin::supported_sector_shapes())
                    if (filecoin::sector_size_name(shape.sector_size) == a->sector_size) size = shape.sector_size;
                if (!size) size = filecoin::parse_u64(a->sector_size, "--sector-size");
                exit_code = run_circuit(a->circuit, size, a->api_version, a->json, a->digest);
            } else {
                exit_code = run(a->gadget, a->arity, a->json, a->digest);
            }
        } catch (const std::exception& e) {
            std::fprintf(stderr, "cuzk filecoin r1cs: error: %s\n", e.what());
            exit_code = 2;
        }
    });
}

}  // namespace cuzk::cli
