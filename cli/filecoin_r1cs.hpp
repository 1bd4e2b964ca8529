// `cuzk filecoin r1cs --gadget NAME`: the exact rows of one Filecoin gadget in the canonical form of
// r1cs/canonical.hpp, so that an independent implementation can be compared with cuzk's row by row.
#pragma once

#include <CLI/CLI.hpp>

namespace cuzk::cli {

void add_filecoin_r1cs_command(CLI::App* filecoin, int& exit_code);

}  // namespace cuzk::cli
