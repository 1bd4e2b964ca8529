// The built-in circuits by name, as the CLI and the daemon name them, and the job kinds that mirror Filecoin's
// proofs as presets of those circuits.
//
//   cubic       x^3 + x + 5 = y (x private; proof i uses x + i)
//   mulchain    2^log_size constraints, dense random witness from witness_seed + i
//   porep-*     PoRep-shaped presets (circuits/porep.hpp); proof i is partition i mod P of the replica with seed
//               witness_seed + i / P, so P consecutive proofs prove one replica
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuzk/ff/fr.hpp"
#include "cuzk/r1cs/circuit.hpp"

namespace cuzk::circuits {

struct CircuitSpec {
    std::string name = "mulchain";         // cubic | mulchain | a PoRep preset
    unsigned log_size = 10;                // mulchain: 2^log_size constraints
    size_t publics = 1;                    // mulchain: public values
    std::optional<uint64_t> witness_seed;  // proof i's witness from seed + i (default: random)
    std::string x;                         // cubic: x for proof 0 (decimal; default: random)
};

// The circuit of proof i (witness false: without values, for setup and the R1CS shape); *publics receives its
// public inputs (after the constant one). std::invalid_argument for an unknown name or a bad x.
std::unique_ptr<r1cs::Circuit> make_circuit(const CircuitSpec& c, bool witness, size_t i, std::vector<Fr>* publics);

// "cubic", "mulchain" and the PoRep presets.
std::vector<std::string> circuit_names();
bool is_circuit_name(const std::string& name);

// The R1CS shape's name (the .pce files record it): the preset, "mulchain log_size=k publics=p" or "cubic".
std::string circuit_shape_name(const CircuitSpec& c);

// Constraints of the circuit (input constraints included), without synthesizing it.
size_t circuit_constraints(const CircuitSpec& c);

// Filecoin's proof kinds as presets of the circuits above: the circuit preset they prove by default, their
// partition count (0: the preset's own) and their default priority (0 LOW ... 3 CRITICAL).
struct JobKind {
    const char* name;
    const char* default_preset;
    size_t partitions;
    int priority;
    const char* what;
};
// porep-c2 (all partitions of a replica, NORMAL), window-post (1 partition, HIGH), winning-post (1, CRITICAL),
// snap-update (all partitions, NORMAL).
const std::vector<JobKind>& job_kinds();
const JobKind* find_job_kind(const std::string& name);

}  // namespace cuzk::circuits
