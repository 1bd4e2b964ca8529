#include "filecoin_cmds.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/filecoin/c1.hpp"
#include "cuzk/filecoin/c1_gen.hpp"
#include "cuzk/filecoin/graph.hpp"
#include "cuzk/filecoin/hashers.hpp"
#include "cuzk/filecoin/porep.hpp"
#include "cuzk/filecoin/porep_circuit.hpp"
#include "cuzk/filecoin/post_circuit.hpp"
#include "cuzk/filecoin/snap_circuit.hpp"
#include "cuzk/filecoin/proof_types.hpp"
#include "cuzk/filecoin/sealer.hpp"
#include "cuzk/filecoin/tree.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/gadgets/poseidon.hpp"
#include "cuzk/util/input_file.hpp"
#include "cuzk/util/thread_pool.hpp"
#include "filecoin_c2.hpp"
#include "filecoin_post.hpp"
#include "filecoin_r1cs.hpp"
#include "filecoin_snap.hpp"

namespace cuzk::cli {

namespace {

using filecoin::Bytes32;

// A usage error that names the bad argument (exit 2).
struct ArgError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A field element as decimal digits or 0x-hex (big-endian number), canonical (< r).
Fr parse_field_element(const std::string& text, const std::string& what) {
    if (text.empty()) throw ArgError(what + ": empty");
    limbs_t<4> v{};
    const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    const unsigned base = hex ? 16 : 10;
    for (size_t i = hex ? 2 : 0; i < text.size(); i++) {
        const char ch = text[i];
        unsigned d;
        if (ch >= '0' && ch <= '9') d = unsigned(ch - '0');
        else if (hex && ch >= 'a' && ch <= 'f') d = unsigned(ch - 'a' + 10);
        else if (hex && ch >= 'A' && ch <= 'F') d = unsigned(ch - 'A' + 10);
        else throw ArgError(what + ": '" + text + "' is not a decimal or 0x-hex number");
        // v = v * base + d, failing on overflow past 256 bits
        unsigned __int128 carry = d;
        for (auto& limb : v) {
            unsigned __int128 t = (unsigned __int128)limb * base + carry;
            limb = (uint64_t)t;
            carry = t >> 64;
        }
        if (carry) throw ArgError(what + ": '" + text + "' is not below the field modulus r");
    }
    auto fr = Fr::from_canonical(v);
    if (!fr) throw ArgError(what + ": '" + text + "' is not below the field modulus r");
    return *fr;
}

std::string fr_text(const Fr& x, bool decimal) {
    if (decimal) return x.to_decimal();
    return filecoin::to_hex(filecoin::fr_to_bytes32(x));
}

// BYTES as a decimal number, or a name such as 2KiB / 32GiB; must be a size filecoin-proofs supports.
uint64_t parse_sector_size(const std::string& text) {
    for (const auto& shape : filecoin::supported_sector_shapes())
        if (filecoin::sector_size_name(shape.sector_size) == text) return shape.sector_size;
    uint64_t v = filecoin::parse_u64(text, "--sector-size");
    filecoin::sector_shape(v);  // throws for an unsupported size, naming it
    return v;
}

struct PorepArgs {
    std::string proof_type, sector_size, porep_id, api_version = "V1_1_0";
    std::string prover_id, sector_id, ticket, seed, comm_d, comm_r;
    std::optional<uint32_t> partition;
    bool json = false;
    std::string vk, proof, c1;  // verify only

    filecoin::PorepConfig config() const {
        if (!proof_type.empty()) {
            if (!sector_size.empty() || !porep_id.empty())
                throw ArgError("give --proof-type, or --sector-size with --porep-id, not both");
            return filecoin::PorepConfig::from_registered(filecoin::seal_proof_from_name(proof_type));
        }
        if (sector_size.empty() || porep_id.empty())
            throw ArgError("give --proof-type NAME, or --sector-size BYTES --porep-id HEX --api-version V1_x_0");
        return filecoin::PorepConfig::make(parse_sector_size(sector_size),
                                           filecoin::bytes32_from_hex(porep_id, "--porep-id"),
                                           filecoin::api_version_from_name(api_version));
    }
    filecoin::SealedSector sector() const {
        filecoin::SealedSector s;
        s.prover_id = filecoin::bytes32_from_hex(prover_id, "--prover-id");
        s.sector_id = filecoin::parse_u64(sector_id, "--sector-id");
        s.ticket = filecoin::bytes32_from_hex(ticket, "--ticket");
        s.seed = filecoin::bytes32_from_hex(seed, "--seed");
        s.comm_d = filecoin::bytes32_from_hex(comm_d, "--comm-d");
        s.comm_r = filecoin::bytes32_from_hex(comm_r, "--comm-r");
        return s;
    }
};

// required: the sector's fields must be given (inputs porep); verify porep may take them from --c1 instead.
void add_porep_args(CLI::App* cmd, PorepArgs& a, bool required = true) {
    cmd->add_option("--proof-type", a.proof_type, "registered seal proof, e.g. StackedDrg32GiBV1_1");
    cmd->add_option("--sector-size", a.sector_size, "sector size in bytes (or 2KiB, 32GiB, ...)");
    cmd->add_option("--porep-id", a.porep_id, "porep_id, 64 hex digits");
    cmd->add_option("--api-version", a.api_version, "V1_0_0, V1_1_0 or V1_2_0 (with --sector-size)");
    const std::pair<const char*, std::string*> fields[] = {
        {"--prover-id", &a.prover_id}, {"--sector-id", &a.sector_id}, {"--ticket", &a.ticket},
        {"--seed", &a.seed},           {"--comm-d", &a.comm_d},       {"--comm-r", &a.comm_r}};
    const char* what[] = {"prover id, 64 hex digits", "sector number", "ticket, 64 hex digits",
                          "interactive seed, 64 hex digits", "comm_d, 64 hex digits", "comm_r, 64 hex digits"};
    for (size_t i = 0; i < 6; i++) {
        auto* opt = cmd->add_option(fields[i].first, *fields[i].second, what[i]);
        if (required) opt->required();
    }
}

int run_poseidon(size_t arity, const std::vector<std::string>& xs, bool decimal) {
    if (xs.size() != arity)
        throw ArgError("--arity " + std::to_string(arity) + " needs exactly " + std::to_string(arity) +
                       " field elements, got " + std::to_string(xs.size()));
    std::vector<Fr> in;
    for (size_t i = 0; i < xs.size(); i++) in.push_back(parse_field_element(xs[i], "X" + std::to_string(i + 1)));
    std::printf("%s\n", fr_text(gadgets::poseidon_hash(in), decimal).c_str());
    return 0;
}

int run_inputs_porep(const PorepArgs& a) {
    if (!a.json) throw ArgError("inputs porep prints JSON only: add --json");
    const auto config = a.config();
    const auto sector = a.sector();
    if (a.partition && *a.partition >= config.partitions)
        throw ArgError("--partition " + std::to_string(*a.partition) + ": the proof has " +
                       std::to_string(config.partitions) + " partitions");
    nlohmann::json out = nlohmann::json::array();
    for (uint32_t k = 0; k < config.partitions; k++) {
        if (a.partition && k != *a.partition) continue;
        nlohmann::json row = nlohmann::json::array();
        for (const Fr& x : filecoin::porep_public_inputs(config, sector, k)) row.push_back(x.to_decimal());
        out.push_back(std::move(row));
    }
    std::printf("%s\n", out.dump().c_str());
    return 0;
}

// The proof type and the sector's commitments from a C1 output (the C1 the proof was made from), or from the
// explicit arguments.
std::pair<filecoin::PorepConfig, filecoin::ReplicaInputs> verified_sector(const PorepArgs& a) {
    if (a.c1.empty()) {
        const auto config = a.config();
        return {config, filecoin::replica_inputs(config, a.sector())};
    }
    for (const std::string* f : {&a.proof_type, &a.sector_size, &a.porep_id, &a.prover_id, &a.sector_id, &a.ticket,
                                 &a.seed, &a.comm_d, &a.comm_r})
        if (!f->empty()) throw ArgError("give --c1, or the proof type and the sector's fields, not both");
    const auto bytes = read_file_bytes(a.c1, "--c1");
    const auto c1 = filecoin::parse_c1_or_envelope(std::string_view(reinterpret_cast<const char*>(bytes.data()),
                                                                    bytes.size()));
    return {filecoin::PorepConfig::from_registered(c1.registered_proof),
            filecoin::ReplicaInputs{c1.replica_id, c1.seed, c1.comm_d, c1.comm_r}};
}

int run_verify_porep(const PorepArgs& a) {
    if (a.c1.empty())
        for (const std::string* f : {&a.prover_id, &a.sector_id, &a.ticket, &a.seed, &a.comm_d, &a.comm_r})
            if (f->empty())
                throw ArgError("give --c1 FILE, or --prover-id, --sector-id, --ticket, --seed, --comm-d and --comm-r");
    const auto [config, replica] = verified_sector(a);
    const auto vk = formats::read_verifying_key(a.vk);
    const auto proof = read_file_bytes(a.proof, "--proof");
    const auto pvk = groth16::prepare_verifying_key(vk.vk);
    const auto per_partition = filecoin::verify_porep_partitions(pvk, config, replica, proof);
    bool all = true;
    for (size_t k = 0; k < per_partition.size(); k++) {
        if (!per_partition[k]) std::fprintf(stderr, "partition %zu: invalid\n", k);
        all = all && per_partition[k];
    }
    std::printf("%s\n", all ? "valid" : "invalid");
    return all ? 0 : 1;
}

// The shape of a circuit by synthesis into a counting system (no witness, no matrices): constraints without
// bellperson's appended input constraints, inputs counting ONE, aux.
int run_circuit_info(const std::string& circuit, const std::string& sector_size, const std::string& api_version,
                     bool nonzeros, bool json) {
    if (!json) throw ArgError("circuit-info prints JSON only: add --json");
    if (nonzeros && circuit != "porep") throw ArgError("--nonzeros is for --circuit porep only");
    const uint64_t size = parse_sector_size(sector_size);
    nlohmann::json out;
    out["circuit"] = circuit;
    out["sector_size"] = size;
    uint64_t constraints = 0, inputs = 0, aux = 0;
    if (circuit == "porep") {
        const auto config = filecoin::PorepConfig::make(size, Bytes32{}, filecoin::api_version_from_name(api_version));
        const auto info = filecoin::porep_circuit_info(config, nonzeros);
        constraints = info.constraints, inputs = info.inputs, aux = info.aux;
        out["partitions"] = config.partitions;
        out["challenges_per_partition"] = config.challenges_per_partition();
        if (info.nonzeros)
            out["nonzeros"] = {{"a", (*info.nonzeros)[0]}, {"b", (*info.nonzeros)[1]}, {"c", (*info.nonzeros)[2]}};
    } else if (circuit == "window-post" || circuit == "winning-post") {
        const auto type = circuit == "window-post" ? filecoin::PoStType::Window : filecoin::PoStType::Winning;
        const auto c = filecoin::post_circuit_info(size, type);
        constraints = c.constraints, inputs = c.inputs, aux = c.aux;
    } else if (circuit == "snap" || circuit == "snap-poseidon") {
        const auto variant = circuit == "snap" ? filecoin::UpdateCircuit::Sha256 : filecoin::UpdateCircuit::Poseidon;
        const auto c = filecoin::snap_circuit_info(filecoin::SnapShape::from_sector_size(size), variant);
        constraints = c.constraints, inputs = c.inputs, aux = c.aux;
    } else {
        throw ArgError("--circuit " + circuit + ": porep, window-post, winning-post, snap or snap-poseidon");
    }
    out["constraints"] = constraints;
    out["inputs"] = inputs;
    out["aux"] = aux;
    out["rows"] = constraints + inputs;  // a, b, c as the prover evaluates them
    unsigned log = 0;
    while ((uint64_t(1) << log) < constraints + inputs) log++;
    out["domain_log2"] = log;
    std::printf("%s\n", out.dump().c_str());
    return 0;
}

struct SealArgs {
    std::string proof_type, data, prover_id, sector_id, ticket, seed, c1;
    bool zero = false;
};

// Seals a small sector natively and writes its C1 (SealCommitPhase1Output JSON, as filecoin-proofs writes it).
int run_seal(const SealArgs& a) {
    if (a.zero == !a.data.empty()) throw ArgError("give exactly one of --data FILE, --zero");
    const auto proof = filecoin::seal_proof_from_name(a.proof_type);
    const auto config = filecoin::PorepConfig::from_registered(proof);
    if (config.sector_size > (uint64_t(512) << 20))
        throw ArgError("--proof-type " + a.proof_type + ": the test sealer holds the whole replica in memory; "
                       "sectors up to 512 MiB only");
    std::vector<uint8_t> data;
    if (!a.zero) data = read_file_bytes(a.data, "--data");
    const auto replica = filecoin::seal_sector(config, data, filecoin::bytes32_from_hex(a.prover_id, "--prover-id"),
                                               filecoin::parse_u64(a.sector_id, "--sector-id"),
                                               filecoin::bytes32_from_hex(a.ticket, "--ticket"));
    const auto c1 = filecoin::commit_phase1(replica, filecoin::bytes32_from_hex(a.seed, "--seed"));
    const std::string json = filecoin::write_c1_json(c1);
    formats::detail::write_file_atomically(a.c1, std::span(reinterpret_cast<const uint8_t*>(json.data()), json.size()));
    nlohmann::json out;
    out["proof_type"] = a.proof_type;
    out["replica_id"] = filecoin::to_hex(replica.replica_id);
    out["comm_d"] = filecoin::to_hex(replica.comm_d_bytes());
    out["comm_r"] = filecoin::to_hex(replica.comm_r_bytes());
    out["c1"] = a.c1;
    out["c1_bytes"] = json.size();
    std::printf("%s\n", out.dump().c_str());
    return 0;
}

// Reads a C1 (filecoin-proofs' JSON, or Curio's envelope), validates every field and recomputes its paths.
int run_c1_check(const std::string& path) {
    const auto bytes = read_file_bytes(path, "--c1");
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    bool curio = false;
    const filecoin::C1Output c1 = filecoin::parse_c1_or_envelope(text, &curio);
    const auto partitions = filecoin::c1_to_partitions(c1);
    filecoin::verify_c1_paths(c1);
    nlohmann::json out;
    out["registered_proof"] = std::string(filecoin::proof_name(c1.registered_proof));
    out["partitions"] = partitions.size();
    out["challenges_per_partition"] = partitions.empty() ? 0 : partitions[0].challenges.size();
    out["comm_d"] = filecoin::to_hex(c1.comm_d);
    out["comm_r"] = filecoin::to_hex(c1.comm_r);
    out["envelope"] = curio ? "curio" : "filecoin-proofs";
    out["valid"] = true;
    std::printf("%s\n", out.dump().c_str());
    return 0;
}

}  // namespace

std::vector<uint8_t> read_file_bytes(const std::string& path, const char* what) {
    const std::string text = read_input_file(path, kMaxC1InputBytes, what);
    return std::vector<uint8_t>(text.begin(), text.end());
}

void add_filecoin_commands(CLI::App& app, int& exit_code, const size_t& threads) {
    auto* fc = app.add_subcommand("filecoin", "Filecoin's building blocks: hashes, commitments, graph, public inputs");
    fc->require_subcommand(1);
    // The commands run from their callbacks, before main() sizes the pool: size it here, before any of them uses it.
    fc->parse_complete_callback([&threads] { ThreadPool::set_global_threads(threads); });

    {
        struct Args {
            size_t arity = 0;
            std::vector<std::string> xs;
            bool decimal = false;
        };
        auto a = std::make_shared<Args>();
        auto* cmd = fc->add_subcommand("poseidon", "neptune's Poseidon (MerkleTree domain tag) of ARITY field elements");
        cmd->add_option("--arity", a->arity, "2, 4, 8, 11, 16, 24 or 36")
            ->required()
            ->check(CLI::IsMember({2, 4, 8, 11, 16, 24, 36}));
        cmd->add_option("x", a->xs, "the inputs, decimal or 0x-hex");
        cmd->add_flag("--decimal", a->decimal, "print the digest as a decimal number");
        cmd->callback([a, &exit_code] { run_filecoin_command("poseidon", exit_code, [&] { return run_poseidon(a->arity, a->xs, a->decimal); }); });
    }
    {
        struct Args {
            bool zero = false;
            std::string sector_size;
        };
        auto a = std::make_shared<Args>();
        auto* cmd = fc->add_subcommand("comm-d", "comm_d (tree D's root, 64 hex digits in byte order)");
        cmd->add_flag("--zero", a->zero, "of an all-zero sector (the only form so far)")->required();
        cmd->add_option("--sector-size", a->sector_size, "bytes, a power of two from 128 (or 2KiB, 32GiB, ...)")->required();
        cmd->callback([a, &exit_code] {
            run_filecoin_command("comm-d", exit_code, [&] {
                uint64_t size = 0;
                try {
                    size = parse_sector_size(a->sector_size);
                } catch (const filecoin::FilecoinError&) {
                    size = filecoin::parse_u64(a->sector_size, "--sector-size");  // any power of two, as zerocomm
                }
                std::printf("%s\n", filecoin::domain_to_hex(filecoin::zero_comm_d(size)).c_str());
                return 0;
            });
        });
    }
    {
        struct Args {
            std::string sector_size, porep_id, api_version = "V1_1_0", out;
        };
        auto a = std::make_shared<Args>();
        auto* cmd = fc->add_subcommand("parent-cache", "generate the SDR parent cache; print its SHA-256");
        cmd->add_option("--sector-size", a->sector_size, "bytes (or 2KiB, 32GiB, ...)")->required();
        cmd->add_option("--porep-id", a->porep_id, "porep_id, 64 hex digits")->required();
        cmd->add_option("--api-version", a->api_version, "V1_0_0, V1_1_0 or V1_2_0");
        cmd->add_option("--out", a->out, "also write the cache to this file");
        cmd->callback([a, &exit_code] {
            run_filecoin_command("parent-cache", exit_code, [&] {
                const uint64_t size = parse_sector_size(a->sector_size);
                filecoin::StackedGraph graph(size / filecoin::NODE_SIZE, filecoin::bytes32_from_hex(a->porep_id, "--porep-id"),
                                             filecoin::api_version_from_name(a->api_version));
                filecoin::ParentCacheOptions opt;
                opt.output = a->out;
                std::printf("%s\n", filecoin::to_hex(filecoin::parent_cache_sha256(graph, opt)).c_str());
                return 0;
            });
        });
    }
    {
        auto a = std::make_shared<PorepArgs>();
        auto* inputs = fc->add_subcommand("inputs", "public inputs of a proof");
        inputs->require_subcommand(1);
        auto* cmd = inputs->add_subcommand("porep", "a PoRep's public inputs, one JSON array per partition");
        add_porep_args(cmd, *a);
        cmd->add_option("--partition", a->partition, "only this partition");
        cmd->add_flag("--json", a->json, "JSON output (decimal strings in circuit order)");
        cmd->callback([a, &exit_code] { run_filecoin_command("inputs porep", exit_code, [&] { return run_inputs_porep(*a); }); });
    }
    {
        auto a = std::make_shared<PorepArgs>();
        auto* verify = fc->add_subcommand("verify", "verify a Filecoin proof (exit 0 valid, 1 invalid, 2 error)");
        verify->require_subcommand(1);
        auto* cmd = verify->add_subcommand("porep", "a PoRep (every partition's 192-byte slice)");
        add_porep_args(cmd, *a, false);
        cmd->add_option("--c1", a->c1, "the C1 the proof was made from, instead of the proof type and sector fields")
            ->check(CLI::ExistingFile);
        cmd->add_option("--vk", a->vk, "verifying key (bellman .vk file)")->required()->check(CLI::ExistingFile);
        cmd->add_option("--proof", a->proof, "proof bytes (partitions x 192)")->required()->check(CLI::ExistingFile);
        cmd->callback([a, &exit_code] { run_filecoin_command("verify porep", exit_code, [&] { return run_verify_porep(*a); }); });
    }
    {
        struct Args {
            std::string circuit = "porep", sector_size, api_version = "V1_1_0";
            bool nonzeros = false, json = false;
        };
        auto a = std::make_shared<Args>();
        auto* cmd = fc->add_subcommand("circuit-info", "a Filecoin circuit's size by synthesis (constraints, inputs, aux)");
        cmd->add_option("--circuit", a->circuit, "porep, window-post, winning-post, snap, snap-poseidon (one partition)")
            ->check(CLI::IsMember({"porep", "window-post", "winning-post", "snap", "snap-poseidon"}));
        cmd->add_option("--sector-size", a->sector_size, "bytes (or 2KiB, 32GiB, ...)")->required();
        cmd->add_option("--api-version", a->api_version, "porep: V1_0_0, V1_1_0 or V1_2_0");
        cmd->add_flag("--nonzeros", a->nonzeros, "also count each matrix's non-zero terms (slower)");
        cmd->add_flag("--json", a->json, "JSON output");
        cmd->callback([a, &exit_code] {
            run_filecoin_command("circuit-info", exit_code, [&] {
                return run_circuit_info(a->circuit, a->sector_size, a->api_version, a->nonzeros, a->json);
            });
        });
    }
    {
        auto a = std::make_shared<SealArgs>();
        auto* cmd = fc->add_subcommand("seal", "TESTS: seal a small sector natively and write its C1 output (JSON)");
        cmd->add_option("--proof-type", a->proof_type, "registered seal proof, e.g. StackedDrg2KiBV1_1")->required();
        cmd->add_option("--data", a->data, "the sector's data (sector-size bytes, fr32-padded)")->check(CLI::ExistingFile);
        cmd->add_flag("--zero", a->zero, "an all-zero sector");
        cmd->add_option("--prover-id", a->prover_id, "prover id, 64 hex digits")->required();
        cmd->add_option("--sector-id", a->sector_id, "sector number")->required();
        cmd->add_option("--ticket", a->ticket, "ticket, 64 hex digits")->required();
        cmd->add_option("--seed", a->seed, "interactive seed, 64 hex digits")->required();
        cmd->add_option("--c1", a->c1, "output: the C1 JSON")->required();
        cmd->callback([a, &exit_code] { run_filecoin_command("seal", exit_code, [&] { return run_seal(*a); }); });
    }
    {
        struct Args {
            std::string proof_type, c1;
            uint64_t rng_seed = 0;
            std::optional<uint64_t> miner_id, sector_number;  // both or neither: the sector's identity
        };
        auto a = std::make_shared<Args>();
        auto* cmd = fc->add_subcommand("c1-gen", "a consistent C1 for any sector size without sealing (benchmarks, tests)");
        cmd->add_option("--proof-type", a->proof_type, "interactive registered seal proof, e.g. StackedDrg32GiBV1_1")
            ->required();
        cmd->add_option("--rng-seed", a->rng_seed, "the generator's seed (same seed, same C1)")->required();
        cmd->add_option("--c1", a->c1, "output: the C1 JSON")->required();
        auto* miner = cmd->add_option("--miner-id", a->miner_id, "the miner's actor id (its prover id seals the sector)");
        auto* number = cmd->add_option("--sector-number", a->sector_number, "the sector number");
        miner->needs(number);
        number->needs(miner);
        cmd->callback([a, &exit_code] {
            run_filecoin_command("c1-gen", exit_code, [&] {
                std::optional<filecoin::SectorIdentity> id;
                if (a->miner_id) id = filecoin::SectorIdentity{filecoin::prover_id_of_actor(*a->miner_id), *a->sector_number};
                const auto g =
                    filecoin::generate_c1_sector(filecoin::seal_proof_from_name(a->proof_type), a->rng_seed, id);
                const std::string json = filecoin::write_c1_json(g.c1);
                formats::detail::write_file_atomically(
                    a->c1, std::span(reinterpret_cast<const uint8_t*>(json.data()), json.size()));
                nlohmann::json out;
                out["proof_type"] = a->proof_type;
                out["prover_id"] = filecoin::to_hex(g.prover_id);
                out["sector_id"] = g.sector_id;
                out["comm_d"] = filecoin::to_hex(g.c1.comm_d);
                out["comm_r"] = filecoin::to_hex(g.c1.comm_r);
                out["c1"] = a->c1;
                out["c1_bytes"] = json.size();
                std::printf("%s\n", out.dump().c_str());
                return 0;
            });
        });
    }
    {
        auto path = std::make_shared<std::string>();
        auto* cmd = fc->add_subcommand("c1-check", "validate a C1 output (or Curio's envelope of one) field by field");
        cmd->add_option("--c1", *path, "the C1 JSON")->required()->check(CLI::ExistingFile);
        cmd->callback([path, &exit_code] { run_filecoin_command("c1-check", exit_code, [&] { return run_c1_check(*path); }); });
    }
    add_filecoin_r1cs_command(fc, exit_code);
    add_filecoin_c2_commands(fc, exit_code);
    add_filecoin_post_commands(fc, exit_code);
    add_filecoin_snap_commands(fc, exit_code);
}

}  // namespace cuzk::cli
