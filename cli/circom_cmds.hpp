// circom / snarkjs commands of the `cuzk` program.
//
//   cuzk prove circuit.zkey witness.wtns proof.json public.json     (rapidsnark's argument order)
//     [--backend auto|cpu|gpu] [--unchecked-zkey] [--json]          (one engine job, its proof verified)
//   cuzk verify verification_key.json public.json proof.json        (snarkjs's argument order)
//   cuzk zkey export-verificationkey circuit.zkey verification_key.json
//   cuzk zkey export-vk circuit.zkey out.vk                          (bellman verifying-key file)
//   cuzk zkey export-params circuit.zkey out.params                  (explains why this cannot be done)
//   cuzk zkey new circuit.r1cs out.zkey --seed N                      (tests and benchmarks only: known toxic waste)
// Exit codes as for the other commands: 0 success / valid, 1 invalid proof, 2 usage or input error.
#pragma once

#include <CLI/CLI.hpp>

namespace cuzk::cli {

// Registers the `zkey` subcommands (they run from their CLI11 callbacks; errors exit with code 2).
void add_circom_commands(CLI::App& app);

// `prove` and `verify` with positional circom files share their names with the bellman-format commands, so they are
// recognised before CLI11 parses: `prove` whose first positional is a .zkey (and no --params / --proof / --public),
// `verify` with three positional .json files and no options. Returns true and sets exit_code when it handled the
// command line.
bool dispatch_circom(int argc, char** argv, int& exit_code);

}  // namespace cuzk::cli
