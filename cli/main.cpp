// The `cuzk` command-line program.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cuzk/util/thread_pool.hpp"

int main(int argc, char** argv) {
    CLI::App app{"cuzk: Groth16 proving for BLS12-381 on CPUs and CUDA GPUs"};
    size_t threads = 0;
    app.add_option("--threads", threads, "CPU threads (0 = all hardware threads)");
    app.require_subcommand(1);
    auto* version = app.add_subcommand("version", "print the version");
    CLI11_PARSE(app, argc, argv);
    cuzk::ThreadPool::set_global_threads(threads);
    if (*version) std::printf("cuzk 0.1.0\n");
    return 0;
}
