// `cuzk filecoin ...`: Filecoin's building blocks from the command line (docs/filecoin.md).
//
//   cuzk filecoin poseidon --arity A X1 ... XA [--decimal]
//   cuzk filecoin comm-d --zero --sector-size BYTES
//   cuzk filecoin parent-cache --sector-size BYTES --porep-id HEX --api-version V1_1_0 [--out FILE]
//   cuzk filecoin inputs porep (--proof-type NAME | --sector-size BYTES --porep-id HEX --api-version V1_x_0)
//                   --prover-id HEX --sector-id N --ticket HEX --seed HEX --comm-d HEX --comm-r HEX [--partition K] --json
//   cuzk filecoin verify porep --vk FILE --proof FILE <the same arguments as inputs porep>
//   cuzk filecoin circuit-info --circuit porep|window-post|winning-post|snap|snap-poseidon --sector-size BYTES
//                   [--api-version V] [--nonzeros] --json
//   cuzk filecoin seal --proof-type NAME (--data FILE | --zero) --prover-id HEX --sector-id N --ticket HEX --seed HEX
//                   --c1 OUT.json                                   (tests: a small sector sealed natively)
//   cuzk filecoin c1-gen --proof-type NAME --rng-seed N --c1 OUT.json  (a consistent C1 without sealing, any size)
//   cuzk filecoin c1-check --c1 FILE                               (a C1, or Curio's envelope, validated)
//   cuzk filecoin r1cs --gadget poseidon|sha256|insert8|label|por8 [--arity A] (--json | --digest)
//   cuzk filecoin r1cs --circuit porep --sector-size BYTES (--json | --digest)
//   cuzk filecoin params gen|check ..., cuzk filecoin c2 --c1 FILE --proof OUT (filecoin_c2.hpp)
//   cuzk filecoin verify porep --vk FILE --proof FILE --c1 FILE
//
// Byte strings are 64 hex digits in byte order; field elements print as 64 hex digits of their little-endian
// 32-byte encoding unless --decimal. Exit 0 on success, 1 for an invalid proof, 2 for any error (with a message that
// names the bad argument).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

namespace cuzk::cli {

// Runs a filecoin command's body: its exit code (0 or 1), or 2 with "cuzk filecoin NAME: error: ..." on stderr for
// any exception.
template <class F>
void run_filecoin_command(const char* name, int& exit_code, F&& body) {
    try {
        exit_code = body();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cuzk filecoin %s: error: %s\n", name, e.what());
        exit_code = 2;
    }
}

// A file a filecoin command reads, whole; std::runtime_error "<what>: cannot open <path>" (or "read failed"), which
// run_filecoin_command reports with exit 2.
std::vector<uint8_t> read_file_bytes(const std::string& path, const char* what);

// Registers `filecoin` and its subcommands; they run from their CLI11 callbacks (the thread pool sized by
// `threads`, the global --threads, read by then) and set exit_code.
void add_filecoin_commands(CLI::App& app, int& exit_code, const size_t& threads);

}  // namespace cuzk::cli
