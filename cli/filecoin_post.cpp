// `cuzk filecoin post`, `post-gen` and `verify post`: Winning and Window PoSt from vanilla proofs through the engine.
#include "filecoin_post.hpp"

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "filecoin_cmds.hpp"
#include "cuzk/engine/engine.hpp"
#include "cuzk/engine/post.hpp"
#include "cuzk/filecoin/challenges_post.hpp"
#include "cuzk/filecoin/params.hpp"
#include "cuzk/filecoin/post_vanilla.hpp"
#include "cuzk/filecoin/c1_gen.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/formats/proof_io.hpp"
#include "cuzk/groth16/verifier.hpp"
#include "cuzk/util/random.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::cli {

namespace {

namespace fs = std::filesystem;
using filecoin::FilecoinError;
using filecoin::FilecoinErrorKind;

filecoin::Domain randomness_of(const std::string& hex) { return filecoin::bytes32_from_hex(hex, "--randomness"); }

struct PostArgs {
    std::string proof_type, randomness, params_dir, proof, backend = "auto";
    std::vector<std::string> vanilla;
    std::optional<uint32_t> partition;  // one partition of a Window PoSt; default: every partition
    bool unchecked_params = false, json = false;
};

// Vanilla proofs -> witness and public inputs of every partition (every inclusion proof checked against the
// challenge) -> parameters (Filecoin's file name, headers checked, points checked) -> one engine job -> every proof
// verified -> written (192 bytes per partition, in order).
int run_post(const PostArgs& a) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto proof_type = filecoin::post_proof_from_name(a.proof_type);
    std::vector<filecoin::FallbackPostSectorProof> vanilla;
    for (const std::string& f : a.vanilla)
        vanilla.push_back(filecoin::read_post_vanilla_proof(read_file_bytes(f, "--vanilla"), f));
    const engine::PostJob job = a.partition
                                    ? engine::post_job(proof_type, randomness_of(a.randomness), vanilla, *a.partition)
                                    : engine::post_job(proof_type, randomness_of(a.randomness), vanilla);
    const std::string name(filecoin::proof_name(proof_type));

    const fs::path dir = filecoin::parameter_cache_dir(a.params_dir);
    const filecoin::LoadedParameters loaded =
        filecoin::load_parameters(dir, filecoin::parameter_files(proof_type), filecoin::post_parameter_shape(proof_type),
                                  name, param_read_options(!a.unchecked_params, a.backend));

    const CliJob run =
        run_engine_job(engine::post_spec(job), loaded.params, verified_job(a.backend, loaded.params.vk));
    const engine::JobResult& result = run.result;
    const std::vector<uint8_t> bytes = engine::post_proof(job, result, loaded.params.vk);
    formats::detail::write_file_atomically(a.proof, bytes);

    nlohmann::json out;
    out["proof_type"] = name;
    if (a.partition) out["partition"] = *a.partition;
    out["partitions"] = job.partitions.size();
    out["sectors"] = vanilla.size();
    out["proof"] = a.proof;
    out["proof_bytes"] = bytes.size();
    out["backend"] = run.backend;
    out["params"] = loaded.path.string();
    out["params_checked"] = !a.unchecked_params;
    out["params_load_s"] = loaded.seconds;
    out["prove_s"] = result.wall_seconds;
    out["total_s"] = seconds_since(t0);
    out["verified"] = true;
    std::printf("%s\n", a.json ? out.dump().c_str() : out.dump(2).c_str());
    return 0;
}

struct GenArgs {
    std::string proof_type, randomness, out;
    uint64_t sector_id = 0, sector_index = 0;
    std::optional<uint64_t> seed;
    bool json = false, vanilla_json = false;
};

// TESTS: the vanilla proof of a random sector that is never built (filecoin/c1_gen.hpp generate_post_vanilla: the
// challenged leaves random, tree R_last a sparse virtual tree), for any size.
int run_post_gen(const GenArgs& a) {
    const auto proof_type = filecoin::post_proof_from_name(a.proof_type);
    const filecoin::FallbackPostSectorProof p = filecoin::generate_post_vanilla(
        proof_type, randomness_of(a.randomness), a.sector_id, a.sector_index, a.seed ? *a.seed : OsRng{}());
    std::vector<uint8_t> bytes;
    if (a.vanilla_json) {
        const std::string text = filecoin::write_post_vanilla_json(p);
        bytes.assign(text.begin(), text.end());
    } else {
        bytes = filecoin::write_post_vanilla_proof(p);
    }
    formats::detail::write_file_atomically(a.out, bytes);
    nlohmann::json out;
    out["proof_type"] = a.proof_type;
    out["sector_id"] = a.sector_id;
    out["comm_r"] = filecoin::domain_to_hex(p.comm_r);
    out["vanilla"] = a.out;
    out["encoding"] = a.vanilla_json ? "json" : "bincode";
    out["bytes"] = bytes.size();
    std::printf("%s\n", a.json ? out.dump().c_str() : out.dump(2).c_str());
    return 0;
}

struct VerifyArgs {
    std::string proof_type, randomness, vk, proof;
    std::vector<std::string> sectors;  // ID:COMM_R
};

filecoin::PostPublicSector parse_sector(const std::string& s) {
    const size_t colon = s.find(':');
    if (colon == std::string::npos)
        throw FilecoinError(FilecoinErrorKind::OutOfRange, "--sector " + s + ": expected SECTOR_ID:COMM_R_HEX");
    uint64_t id = 0;
    try {
        size_t used = 0;
        id = std::stoull(s.substr(0, colon), &used, 10);
        if (used != colon) throw std::invalid_argument("");
    } catch (const std::exception&) {
        throw FilecoinError(FilecoinErrorKind::OutOfRange, "--sector " + s + ": the sector id is not a number");
    }
    const filecoin::Domain comm_r = filecoin::bytes32_from_hex(s.substr(colon + 1), "--sector comm_r");
    return filecoin::PostPublicSector{id, filecoin::fr_from_domain(comm_r, "--sector comm_r")};
}

// The PoSt's sectors as its public inputs list them (Winning: the one sector, sector_count times), and its partitions.
struct PostSectors {
    filecoin::RegisteredPoStProof proof{};
    filecoin::PostCircuitConfig circuit;
    std::vector<filecoin::PostPublicSector> sectors;
    size_t partitions = 0;
};

PostSectors post_sectors(const std::string& proof_type, const std::vector<std::string>& args) {
    PostSectors p;
    p.proof = filecoin::post_proof_from_name(proof_type);
    p.circuit = filecoin::PostCircuitConfig::from_registered(p.proof);
    for (const std::string& s : args) p.sectors.push_back(parse_sector(s));
    if (filecoin::post_type(p.proof) == filecoin::PoStType::Winning) {
        if (p.sectors.size() != 1)
            throw FilecoinError(FilecoinErrorKind::OutOfRange, "a Winning PoSt proves one sector (--sector once)");
        p.sectors.assign(p.circuit.sector_count, p.sectors[0]);
    }
    p.partitions = (p.sectors.size() + p.circuit.sector_count - 1) / p.circuit.sector_count;
    return p;
}

// Every partition of the proof (192 bytes each) against the inputs of the listed sectors (all of the PoSt's, in
// order; Winning: its one sector).
int run_verify_post(const VerifyArgs& a) {
    const PostSectors p = post_sectors(a.proof_type, a.sectors);
    const std::vector<uint8_t> bytes = read_file_bytes(a.proof, "--proof");
    if (bytes.size() != p.partitions * 192)
        throw FilecoinError(FilecoinErrorKind::BadProofLength,
                            "--proof: " + std::to_string(bytes.size()) + " bytes, " + std::to_string(p.partitions) +
                                " partition(s) of 192 expected");
    const auto vk = formats::read_verifying_key(fs::path(a.vk)).vk;
    if (vk.ic.size() != p.circuit.public_input_count() + 1)
        throw FilecoinError(FilecoinErrorKind::KeyMismatch, "--vk: " + std::to_string(vk.ic.size()) +
                                                                " IC points, the circuit needs " +
                                                                std::to_string(p.circuit.public_input_count() + 1));
    const auto pvk = groth16::prepare_verifying_key(vk);
    const auto proofs = formats::decode_proofs(bytes, a.proof);
    const filecoin::Domain randomness = randomness_of(a.randomness);
    bool ok = true;
    for (size_t k = 0; k < p.partitions; k++)
        ok = ok && groth16::verify_proof(pvk, proofs[k],
                                         filecoin::post_public_inputs(p.circuit, randomness, p.sectors, (uint32_t)k));
    std::printf("%s\n", ok ? "valid" : "invalid");
    return ok ? 0 : 1;
}

struct InputsArgs {
    std::string proof_type, randomness;
    std::vector<std::string> sectors;
    std::optional<uint32_t> partition;
};

// One JSON array of decimal strings per partition (as `inputs porep`), ONE not included.
int run_inputs_post(const InputsArgs& a) {
    const PostSectors p = post_sectors(a.proof_type, a.sectors);
    if (a.partition && *a.partition >= p.partitions)
        throw FilecoinError(FilecoinErrorKind::OutOfRange, "--partition " + std::to_string(*a.partition) +
                                                               ": the PoSt has " + std::to_string(p.partitions));
    const filecoin::Domain randomness = randomness_of(a.randomness);
    nlohmann::json out = nlohmann::json::array();
    for (uint32_t k = 0; k < p.partitions; k++) {
        if (a.partition && k != *a.partition) continue;
        nlohmann::json row = nlohmann::json::array();
        for (const Fr& x : filecoin::post_public_inputs(p.circuit, randomness, p.sectors, k))
            row.push_back(x.to_decimal());
        out.push_back(std::move(row));
    }
    std::printf("%s\n", out.dump().c_str());
    return 0;
}

}  // namespace

void add_filecoin_post_commands(CLI::App* fc, int& exit_code) {
    const char* kParamsDir = "parameter directory (default: $FIL_PROOFS_PARAMETER_CACHE, else "
                             "/var/tmp/filecoin-proof-parameters)";
    {
        auto a = std::make_shared<PostArgs>();
        auto* cmd = fc->add_subcommand("post", "Winning or Window PoSt from its sectors' vanilla proofs (every "
                                               "partition's proof verified before they are written)");
        cmd->add_option("--proof-type", a->proof_type, "registered PoSt proof, e.g. StackedDrgWindow32GiBV1_2")
            ->required();
        cmd->add_option("--vanilla", a->vanilla,
                        "FallbackPoStSectorProof files, bincode or serde_json JSON (told apart by their content): the "
                        "PoSt's sectors in order, or with --partition that partition's (Winning: one)")
            ->required()
            ->check(CLI::ExistingFile);
        cmd->add_option("--randomness", a->randomness, "the challenge randomness (64 hex digits, a field element)")
            ->required();
        cmd->add_option("--partition", a->partition,
                        "Window PoSt: prove only this partition, of the sectors given (default: every partition, "
                        "the sectors cut in the circuit's partition size)");
        cmd->add_option("--params-dir", a->params_dir, kParamsDir);
        cmd->add_option("--proof", a->proof, "output: the proof (192 bytes per partition)")->required();
        cmd->add_option("--backend", a->backend, "auto (GPU when present), cpu or gpu (the GPU only: no CPU fallback)")
            ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
        cmd->add_flag("--unchecked-params", a->unchecked_params,
                      "skip the subgroup checks of the proving key's points (on-curve checks stay)");
        cmd->add_flag("--json", a->json, "one-line JSON output");
        cmd->callback([a, &exit_code] { run_filecoin_command("post", exit_code, [&] { return run_post(*a); }); });
    }
    {
        auto a = std::make_shared<GenArgs>();
        auto* cmd = fc->add_subcommand("post-gen",
                                       "TESTS: the PoSt vanilla proof (bincode or JSON) of a random sector, any size");
        cmd->add_option("--proof-type", a->proof_type, "registered PoSt proof")->required();
        cmd->add_option("--randomness", a->randomness, "the challenge randomness (64 hex digits)")->required();
        cmd->add_option("--sector-id", a->sector_id, "the sector's id")->required();
        cmd->add_option("--sector-index", a->sector_index,
                        "Window PoSt: the sector's place among all the proof's sectors (default 0)");
        cmd->add_option("--seed", a->seed, "derive the sector's contents from this seed (default: random)");
        cmd->add_option("--out", a->out, "output: the vanilla proof")->required();
        cmd->add_flag("--vanilla-json", a->vanilla_json,
                      "write the vanilla proof as serde_json's JSON of FallbackPoStSectorProof instead of bincode");
        cmd->add_flag("--json", a->json, "one-line JSON output");
        cmd->callback([a, &exit_code] { run_filecoin_command("post-gen", exit_code, [&] { return run_post_gen(*a); }); });
    }
    {
        auto a = std::make_shared<VerifyArgs>();
        CLI::App* verify = fc->get_subcommand("verify");
        auto* cmd = verify->add_subcommand("post", "a Winning or Window PoSt (every partition's 192-byte slice)");
        cmd->add_option("--proof-type", a->proof_type, "registered PoSt proof")->required();
        cmd->add_option("--vk", a->vk, "verifying key (bellman .vk file)")->required()->check(CLI::ExistingFile);
        cmd->add_option("--proof", a->proof, "proof bytes (partitions x 192)")->required()->check(CLI::ExistingFile);
        cmd->add_option("--randomness", a->randomness, "the challenge randomness (64 hex digits)")->required();
        cmd->add_option("--sector", a->sectors, "SECTOR_ID:COMM_R_HEX, every sector of the PoSt in order")->required();
        cmd->callback([a, &exit_code] { run_filecoin_command("verify post", exit_code, [&] { return run_verify_post(*a); }); });
    }
    {
        auto a = std::make_shared<InputsArgs>();
        auto* cmd = fc->get_subcommand("inputs")->add_subcommand(
            "post", "a Winning or Window PoSt's public inputs, one JSON array per partition");
        cmd->add_option("--proof-type", a->proof_type, "registered PoSt proof")->required();
        cmd->add_option("--randomness", a->randomness, "the challenge randomness (64 hex digits)")->required();
        cmd->add_option("--sector", a->sectors, "SECTOR_ID:COMM_R_HEX, every sector of the PoSt in order")->required();
        cmd->add_option("--partition", a->partition, "only this partition");
        cmd->callback([a, &exit_code] { run_filecoin_command("inputs post", exit_code, [&] { return run_inputs_post(*a); }); });
    }
}

}  // namespace cuzk::cli
