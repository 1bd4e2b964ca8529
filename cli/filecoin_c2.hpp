// `cuzk filecoin c2 --c1 FILE --proof OUT` (PoRep C2 through the engine) and `cuzk filecoin params gen|check`
// (Filecoin's parameter files: test parameters of the exact circuit; finding, checking and loading a file).
#pragma once

#include <CLI/CLI.hpp>

namespace cuzk::cli {

void add_filecoin_c2_commands(CLI::App* filecoin, int& exit_code);

}  // namespace cuzk::cli
