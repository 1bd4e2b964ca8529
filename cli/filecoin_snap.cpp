// `cuzk filecoin snap`, `snap-gen`, `verify snap` and `inputs snap`: SnapDeals (EmptySectorUpdate) proofs from their
// partitions' vanilla proofs through the engine.
#include "filecoin_snap.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "filecoin_cmds.hpp"
#include "cuzk/engine/engine.hpp"
#include "cuzk/engine/snap.hpp"
#include "cuzk/filecoin/params.hpp"
#include "cuzk/filecoin/snap_gen.hpp"
#include "cuzk/filecoin/snap_vanilla.hpp"
#include "cuzk/formats/bellman_params.hpp"
#include "cuzk/formats/proof_io.hpp"
#include "cuzk/groth16/verifier.hpp"
#include "cuzk/r1cs/pce.hpp"
#include "cuzk/util/random.hpp"
#include "cuzk/util/timing.hpp"

namespace cuzk::cli {

namespace {

namespace fs = std::filesystem;
using filecoin::FilecoinError;
using filecoin::FilecoinErrorKind;

// The update proof, its circuit and its shape.
struct UpdateProof {
    filecoin::RegisteredUpdateProof proof{};
    filecoin::UpdateCircuit variant = filecoin::UpdateCircuit::Sha256;
    filecoin::SnapShape shape;
    uint32_t partitions = 0;
    std::string name;  // "StackedDrg2KiBV1 update (Poseidon)"

    static UpdateProof of(const std::string& proof_type, bool poseidon) {
        UpdateProof u;
        u.proof = filecoin::update_proof_from_name(proof_type);
        u.variant = poseidon ? filecoin::UpdateCircuit::Poseidon : filecoin::UpdateCircuit::Sha256;
        u.shape = filecoin::SnapShape::from_sector_size(filecoin::sector_size(u.proof));
        u.partitions = poseidon ? 1 : u.shape.partition_count;
        u.name = std::string(filecoin::proof_name(u.proof)) + (poseidon ? " update (Poseidon)" : " update");
        return u;
    }
    std::vector<Fr> public_inputs(uint32_t k, const Fr& comm_r_old, const Fr& comm_d_new, const Fr& comm_r_new) const {
        const uint32_t h = shape.h_default;
        return variant == filecoin::UpdateCircuit::Sha256
                   ? filecoin::snap_public_inputs(shape, k, h, comm_r_old, comm_d_new, comm_r_new)
                   : filecoin::snap_poseidon_public_inputs(shape, h, comm_r_old, comm_d_new, comm_r_new);
    }
};

// A commitment: 64 hex digits in storage order (as snap-gen and Filecoin's tools print them), a field element.
Fr commitment(const std::string& hex, const char* what) {
    const filecoin::Domain d = filecoin::bytes32_from_hex(hex, what);
    const auto fr = filecoin::try_fr_from_domain(d);
    if (!fr) throw FilecoinError(FilecoinErrorKind::NonCanonical, std::string(what) + ": not a canonical field element");
    return *fr;
}

struct Commitments {
    std::string comm_r_old, comm_d_new, comm_r_new;
    Fr r_old() const { return commitment(comm_r_old, "--comm-r-old"); }
    Fr d_new() const { return commitment(comm_d_new, "--comm-d-new"); }
    Fr r_new() const { return commitment(comm_r_new, "--comm-r-new"); }
};

void add_commitment_options(CLI::App* cmd, Commitments& c) {
    cmd->add_option("--comm-r-old", c.comm_r_old, "comm_r of the sector before the update (64 hex digits)")->required();
    cmd->add_option("--comm-d-new", c.comm_d_new, "comm_d of the new data (64 hex digits)")->required();
    cmd->add_option("--comm-r-new", c.comm_r_new, "comm_r of the updated replica (64 hex digits)")->required();
}

void add_proof_type_options(CLI::App* cmd, std::string& proof_type, bool& poseidon) {
    cmd->add_option("--proof-type", proof_type, "registered update proof, e.g. StackedDrg32GiBV1")->required();
    cmd->add_flag("--poseidon", poseidon, "the EmptySectorUpdate-Poseidon circuit (one partition) instead of the "
                                          "SHA-256 tree-D one");
}

struct SnapArgs {
    std::string proof_type, params_dir, proof, backend = "auto";
    std::vector<std::string> vanilla;
    Commitments comms;
    bool poseidon = false, unchecked_params = false, full_synthesis = false, json = false;
};

// Vanilla proofs -> every partition's witness and public inputs (shapes, challenges, paths, encoding checked) ->
// parameters (Filecoin's file name, headers checked, points checked) -> one engine job -> every proof verified ->
// written.
int run_snap(const SnapArgs& a) {
    const auto t0 = std::chrono::steady_clock::now();
    const UpdateProof u = UpdateProof::of(a.proof_type, a.poseidon);
    std::vector<filecoin::SnapPartitionProof> vanilla;
    for (const std::string& f : a.vanilla)
        vanilla.push_back(filecoin::read_snap_vanilla_proof(read_file_bytes(f, "--vanilla"), f, u.variant));
    const engine::SnapJob job =
        engine::snap_job(u.proof, u.variant, vanilla, a.comms.r_old(), a.comms.d_new(), a.comms.r_new());

    const fs::path dir = filecoin::parameter_cache_dir(a.params_dir);
    const filecoin::LoadedParameters loaded = filecoin::load_parameters(
        dir, filecoin::parameter_files(u.proof, u.variant), filecoin::snap_parameter_shape(u.proof, u.variant), u.name,
        param_read_options(!a.unchecked_params, a.backend));

    // With several partitions (16 at 32 GiB) the circuit's matrices are recorded once and each partition needs only
    // its witness and the sparse products (as c2 does).
    std::optional<r1cs::PrecompiledR1cs> pce;
    double pce_s = 0;
    if (!a.full_synthesis && job.partitions.size() > 1) {
        const auto p0 = std::chrono::steady_clock::now();
        pce = r1cs::compile_r1cs(filecoin::EmptySectorUpdateCircuit::blank(u.shape, u.variant));
        pce_s = seconds_since(p0);
    }

    const CliJob run = run_engine_job(engine::snap_spec(job, pce ? &*pce : nullptr), loaded.params,
                                      verified_job(a.backend, loaded.params.vk));
    const engine::JobResult& result = run.result;
    const std::vector<uint8_t> bytes = engine::snap_proof(job, result, loaded.params.vk);
    formats::detail::write_file_atomically(a.proof, bytes);

    nlohmann::json out;
    out["proof_type"] = std::string(filecoin::proof_name(u.proof));
    out["circuit"] = a.poseidon ? "snap-poseidon" : "snap";
    out["partitions"] = job.partitions.size();
    out["h"] = job.h;
    out["proof"] = a.proof;
    out["proof_bytes"] = bytes.size();
    out["backend"] = run.backend;
    out["params"] = loaded.path.string();
    out["params_checked"] = !a.unchecked_params;
    out["params_load_s"] = loaded.seconds;
    out["compiled_matrices"] = pce.has_value();
    if (pce) out["pce_compile_s"] = pce_s;
    out["prove_s"] = result.wall_seconds;
    out["total_s"] = seconds_since(t0);
    out["verified"] = true;
    std::printf("%s\n", a.json ? out.dump().c_str() : out.dump(2).c_str());
    return 0;
}

struct GenArgs {
    std::string proof_type, out_dir;
    std::optional<uint64_t> seed;
    bool poseidon = false, json = false, vanilla_json = false;
};

// TESTS: every partition's vanilla proof of an update of a sector that is never built (filecoin/snap_gen.hpp), as
// DIR/partition-K.bin (bincode) or DIR/partition-K.json (serde_json), and DIR/snap.json with the commitments `snap`
// and `verify snap` take.
int run_snap_gen(const GenArgs& a) {
    const UpdateProof u = UpdateProof::of(a.proof_type, a.poseidon);
    const filecoin::GeneratedSnap g = filecoin::generate_snap_vanilla(u.proof, u.variant, a.seed ? *a.seed : OsRng{}());
    const fs::path dir(a.out_dir);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw FilecoinError(FilecoinErrorKind::Io, "--out-dir: cannot create " + a.out_dir + ": " + ec.message());
    nlohmann::json out;
    out["proof_type"] = std::string(filecoin::proof_name(u.proof));
    out["circuit"] = a.poseidon ? "snap-poseidon" : "snap";
    out["h"] = g.h;
    out["comm_r_old"] = filecoin::domain_to_hex(filecoin::domain_from_fr(g.comm_r_old));
    out["comm_d_new"] = filecoin::domain_to_hex(filecoin::domain_from_fr(g.comm_d_new));
    out["comm_r_new"] = filecoin::domain_to_hex(filecoin::domain_from_fr(g.comm_r_new));
    nlohmann::json files = nlohmann::json::array();
    for (size_t k = 0; k < g.partitions.size(); k++) {
        const fs::path f = dir / ("partition-" + std::to_string(k) + (a.vanilla_json ? ".json" : ".bin"));
        if (a.vanilla_json) {
            const std::string text = filecoin::write_snap_vanilla_json(g.partitions[k], u.variant);
            formats::detail::write_file_atomically(
                f, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
        } else {
            formats::detail::write_file_atomically(f, filecoin::write_snap_vanilla_proof(g.partitions[k], u.variant));
        }
        files.push_back(f.string());
    }
    out["vanilla"] = files;
    const std::string text = out.dump(2) + "\n";
    formats::detail::write_file_atomically(dir / "snap.json",
                                           std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    std::printf("%s\n", a.json ? out.dump().c_str() : out.dump(2).c_str());
    return 0;
}

struct VerifyArgs {
    std::string proof_type, vk, proof;
    Commitments comms;
    bool poseidon = false;
};

// Every partition of the proof (192 bytes each) against the inputs Filecoin's verifier derives from the
// commitments.
int run_verify_snap(const VerifyArgs& a) {
    const UpdateProof u = UpdateProof::of(a.proof_type, a.poseidon);
    const Fr r_old = a.comms.r_old(), d_new = a.comms.d_new(), r_new = a.comms.r_new();
    const std::vector<uint8_t> bytes = read_file_bytes(a.proof, "--proof");
    if (bytes.size() != size_t(u.partitions) * 192)
        throw FilecoinError(FilecoinErrorKind::BadProofLength,
                            "--proof: " + std::to_string(bytes.size()) + " bytes, " + std::to_string(u.partitions) +
                                " partition(s) of 192 expected");
    const auto vk = formats::read_verifying_key(fs::path(a.vk)).vk;
    if (vk.ic.size() != 5)
        throw FilecoinError(FilecoinErrorKind::KeyMismatch,
                            "--vk: " + std::to_string(vk.ic.size()) + " IC points, the update circuit needs 5");
    const auto pvk = groth16::prepare_verifying_key(vk);
    const auto proofs = formats::decode_proofs(bytes, a.proof);
    bool all = true;
    for (uint32_t k = 0; k < u.partitions; k++)
        if (!groth16::verify_proof(pvk, proofs[k], u.public_inputs(k, r_old, d_new, r_new))) {
            std::fprintf(stderr, "partition %u: invalid\n", k);
            all = false;
        }
    std::printf("%s\n", all ? "valid" : "invalid");
    return all ? 0 : 1;
}

struct InputsArgs {
    std::string proof_type;
    Commitments comms;
    std::optional<uint32_t> partition;
    bool poseidon = false;
};

// One JSON array of decimal strings per partition (as `inputs porep` and `inputs post`), ONE not included.
int run_inputs_snap(const InputsArgs& a) {
    const UpdateProof u = UpdateProof::of(a.proof_type, a.poseidon);
    if (a.partition && *a.partition >= u.partitions)
        throw FilecoinError(FilecoinErrorKind::OutOfRange, "--partition " + std::to_string(*a.partition) + ": " +
                                                               u.name + " has " + std::to_string(u.partitions));
    const Fr r_old = a.comms.r_old(), d_new = a.comms.d_new(), r_new = a.comms.r_new();
    nlohmann::json out = nlohmann::json::array();
    for (uint32_t k = 0; k < u.partitions; k++) {
        if (a.partition && k != *a.partition) continue;
        nlohmann::json row = nlohmann::json::array();
        for (const Fr& x : u.public_inputs(k, r_old, d_new, r_new)) row.push_back(x.to_decimal());
        out.push_back(std::move(row));
    }
    std::printf("%s\n", out.dump().c_str());
    return 0;
}

}  // namespace

void add_filecoin_snap_commands(CLI::App* fc, int& exit_code) {
    {
        auto a = std::make_shared<SnapArgs>();
        auto* cmd = fc->add_subcommand("snap", "SnapDeals update proof (every partition) from its partitions' vanilla "
                                               "proofs (verified before it is written)");
        add_proof_type_options(cmd, a->proof_type, a->poseidon);
        cmd->add_option("--vanilla", a->vanilla, "PartitionProof files, bincode or serde_json JSON (told apart by "
                                                 "their content), one per partition in partition order")
            ->required()
            ->check(CLI::ExistingFile);
        add_commitment_options(cmd, a->comms);
        cmd->add_option("--params-dir", a->params_dir,
                        "parameter directory (default: $FIL_PROOFS_PARAMETER_CACHE, else "
                        "/var/tmp/filecoin-proof-parameters)");
        cmd->add_option("--proof", a->proof, "output: the proof (192 bytes per partition, partition order)")->required();
        cmd->add_option("--backend", a->backend, "auto (GPU when present), cpu or gpu (the GPU only: no CPU fallback)")
            ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
        cmd->add_flag("--unchecked-params", a->unchecked_params,
                      "skip the subgroup checks of the proving key's points (on-curve checks stay)");
        cmd->add_flag("--full-synthesis", a->full_synthesis,
                      "synthesize every partition in full instead of its witness and the matrices recorded once "
                      "(the default with more than one partition)");
        cmd->add_flag("--json", a->json, "one-line JSON output");
        cmd->callback([a, &exit_code] { run_filecoin_command("snap", exit_code, [&] { return run_snap(*a); }); });
    }
    {
        auto a = std::make_shared<GenArgs>();
        auto* cmd = fc->add_subcommand("snap-gen", "TESTS: SnapDeals vanilla proofs (bincode or JSON, every partition) "
                                                   "of an update of a sector that is never built, any size");
        add_proof_type_options(cmd, a->proof_type, a->poseidon);
        cmd->add_option("--seed", a->seed, "derive the sector's contents from this seed (default: random)");
        cmd->add_option("--out-dir", a->out_dir, "output: partition-K.bin for every partition and snap.json (the "
                                                 "commitments)")
            ->required();
        cmd->add_flag("--vanilla-json", a->vanilla_json,
                      "write the vanilla proofs as serde_json's JSON of PartitionProof (partition-K.json) instead of "
                      "bincode");
        cmd->add_flag("--json", a->json, "one-line JSON output");
        cmd->callback([a, &exit_code] { run_filecoin_command("snap-gen", exit_code, [&] { return run_snap_gen(*a); }); });
    }
    {
        auto a = std::make_shared<VerifyArgs>();
        auto* cmd = fc->get_subcommand("verify")->add_subcommand("snap", "a SnapDeals update proof (every partition's "
                                                                         "192-byte slice)");
        add_proof_type_options(cmd, a->proof_type, a->poseidon);
        cmd->add_option("--vk", a->vk, "verifying key (bellman .vk file)")->required()->check(CLI::ExistingFile);
        cmd->add_option("--proof", a->proof, "proof bytes (partitions x 192)")->required()->check(CLI::ExistingFile);
        add_commitment_options(cmd, a->comms);
        cmd->callback([a, &exit_code] { run_filecoin_command("verify snap", exit_code, [&] { return run_verify_snap(*a); }); });
    }
    {
        auto a = std::make_shared<InputsArgs>();
        auto* cmd = fc->get_subcommand("inputs")->add_subcommand(
            "snap", "a SnapDeals update's public inputs, one JSON array per partition");
        add_proof_type_options(cmd, a->proof_type, a->poseidon);
        add_commitment_options(cmd, a->comms);
        cmd->add_option("--partition", a->partition, "only this partition");
        cmd->callback([a, &exit_code] { run_filecoin_command("inputs snap", exit_code, [&] { return run_inputs_snap(*a); }); });
    }
}

}  // namespace cuzk::cli
