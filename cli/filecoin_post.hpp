// `cuzk filecoin post --proof-type NAME --vanilla FILE... --randomness HEX [--partition K] --proof OUT` (Winning or
// Window PoSt through the engine, verified before it is written), `cuzk filecoin post-gen` (tests: a random sector's
// vanilla proof), `cuzk filecoin verify post --sector ID:COMM_R ...` and `cuzk filecoin inputs post` (the public
// inputs of every partition).
#pragma once

#include <CLI/CLI.hpp>

namespace cuzk::cli {

// After add_filecoin_commands has made `filecoin verify`.
void add_filecoin_post_commands(CLI::App* filecoin, int& exit_code);

}  // namespace cuzk::cli
