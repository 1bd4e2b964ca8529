// `cuzk filecoin snap --proof-type NAME [--poseidon] --vanilla FILE... --comm-r-old HEX --comm-r-new HEX --comm-d-new HEX
// --proof OUT` (a SnapDeals update proof through the engine, every partition verified before it is written),
// `cuzk filecoin snap-gen` (tests: consistent vanilla proofs of an update of a sector that is never built),
// `cuzk filecoin verify snap` and `cuzk filecoin inputs snap` (the public inputs of every partition).
#pragma once

#include <CLI/CLI.hpp>

namespace cuzk::cli {

// After add_filecoin_commands has made `filecoin verify` and `filecoin inputs`.
void add_filecoin_snap_commands(CLI::App* filecoin, int& exit_code);

}  // namespace cuzk::cli
