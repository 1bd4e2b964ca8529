// The built-in circuits by name, as the CLI and the daemon name them, and the job kinds that mirror Filecoin's
// proofs as presets of those circuits.
//
//   cubic       x^3 + x + 5 = y (x private; proof i uses x + i)
//   mulchain    2^log_size constraints, dense random witness from witness_seed + i
//   PoRep       Filecoin's PoRep partition circuit (filecoin/porep_circuit.hpp) of an interactive registered seal
//               proof: porep-2k, porep-8m, porep-512m, porep-32g, porep-64g (StackedDrg{2KiB,8MiB,512MiB,32GiB,
//               64GiB}V1_1), or the proof's own name (StackedDrg32GiBV1_1, StackedDrg32GiBV1, ...). Proof i is
//               partition i mod P of the C1 that filecoin::generate_c1_sector(proof, witness_seed + i / P) makes
//               (P: the proof's partitions, 1 up to 512 MiB, 10 at 32 and 64 GiB), so P consecutive proofs prove
//               one sector; its public inputs are the ones Filecoin's verifier derives (filecoin::porep_c2_job).
//               Without a witness: the blank partition (setup, the R1CS shape).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuzk/ff/fr.hpp"
#include "cuzk/filecoin/proof_types.hpp"
#include "cuzk/r1cs/circuit.hpp"

namespace cuzk::circuits {

struct CircuitSpec {
    std::string name = "mulchain";         // cubic | mulchain | a PoRep circuit (alias or proof name)
    unsigned log_size = 10;                // mulchain: 2^log_size constraints
    size_t publics = 1;                    // mulchain: public values
    std::optional<uint64_t> witness_seed;  // proof i's witness from seed + i (PoRep: the C1's seed, see above)
    std::string x;                         // cubic: x for proof 0 (decimal; default: random)
};

// The circuit of proof i (witness false: without values, for setup and the R1CS shape); *publics receives its
// public inputs (after the constant one). std::invalid_argument for an unknown name or a bad x.
std::unique_ptr<r1cs::Circuit> make_circuit(const CircuitSpec& c, bool witness, size_t i, std::vector<Fr>* publics);

// "cubic", "mulchain" and the PoRep aliases (porep-2k ... porep-64g); is_circuit_name also accepts the proof names.
std::vector<std::string> circuit_names();
bool is_circuit_name(const std::string& name);

// The PoRep circuits: the registered seal proof of an alias or of an interactive proof's name (V1 or V1_1), else
// nullopt (also for the synthetic and non-interactive proofs, which generate_c1_sector cannot make C1s for).
std::optional<filecoin::RegisteredSealProof> porep_circuit_proof(const std::string& name);
bool is_porep_circuit(const std::string& name);
// The aliases in size order: porep-2k, porep-8m, porep-512m, porep-32g, porep-64g.
const std::vector<std::string>& porep_circuit_aliases();
// The partitions of one sector of the PoRep circuit `name` (1 or 10); std::invalid_argument for another name.
size_t porep_circuit_partitions(const std::string& name);

// The R1CS shape's name (the .pce files record it): "StackedDrg2KiBV1_1 partition" (the proof's name, whichever
// alias named it), "mulchain log_size=k publics=p" or "cubic".
std::string circuit_shape_name(const CircuitSpec& c);

// Constraints of the circuit as the prover evaluates them (input constraints included), without synthesizing it
// (PoRep: filecoin::porep_circuit_info's constraints + inputs, counted once per proof type and process; a 32 GiB
// partition takes ~10 s on 2 cores the first time).
size_t circuit_constraints(const CircuitSpec& c);

// Filecoin's proof kinds as presets of the circuits above: the PoRep circuit they prove by default, their partition
// count (0: the PoRep circuit's own) and their default priority (0 LOW ... 3 CRITICAL).
struct JobKind {
    const char* name;
    const char* default_preset;
    size_t partitions;
    int priority;
    const char* what;
};
// porep-c2 (every partition of one sector, NORMAL), window-post (1 partition, HIGH), winning-post (1, CRITICAL),
// snap-update (every partition, NORMAL). Only porep-c2 proves its own circuit: the PoSt and SnapDeals circuits are
// not wired to the daemon yet (issue 18), so until then those kinds prove the PoRep partition circuit with their
// own priority and partition count.
const std::vector<JobKind>& job_kinds();
const JobKind* find_job_kind(const std::string& name);

}  // namespace cuzk::circuits
