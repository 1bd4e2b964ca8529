// `cuzk daemon` and `cuzk client` (issue 8).
//
//   cuzk daemon [--config cuzk.toml]      serve the gRPC API until SIGINT / SIGTERM (then drain or interrupt)
//   cuzk client [--socket PATH | --address HOST:PORT] submit|await|prove|cancel|status|metrics|preload|evict ...
//
// Exit codes: 0 success (a proof job done), 1 a job that failed or was cancelled, 2 usage, input or daemon errors
// (the gRPC status is printed). Without gRPC at build time both commands say so and exit 2.
#pragma once

#include <CLI/CLI.hpp>

namespace cuzk::cli {

// Registers the commands; their callbacks run inside app.parse() and store the exit code in `exit_code`.
void add_daemon_commands(CLI::App& app, int& exit_code);

}  // namespace cuzk::cli
