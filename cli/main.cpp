// The `cuzk` command-line program.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "cuzk/util/thread_pool.hpp"

int main(int argc, char** argv) {
    CLI::App app{"cuzk: Groth16 proving for BLS12-381 on CPUs and CUDA GPUs"};
    size_t threads = 0;
    app.add_option("--threads", threads, "CPU threads (0 = all hardware threads)");
    app.require_subcommand(1);

    auto* version = app.add_subcommand("version", "print the version");
    auto* info = app.add_subcommand("info", "print the machine, thread and GPU summary");
    auto* selfcheck = app.add_subcommand("selfcheck", "check the arithmetic (and GPU against CPU when present)");

    cuzk::cli::BenchOptions bench_opt;
    auto* bench = app.add_subcommand("bench", "run benchmarks, one JSON object per line on stdout");
    bench->add_option("what", bench_opt.what, "benchmark to run")
        ->check(CLI::IsMember(cuzk::cli::bench_names()));
    bench->add_option("--log-size", bench_opt.log_size, "problem size 2^k for ntt and msm")
        ->check(CLI::Range(0, 26));
    bench->add_option("--reps", bench_opt.repetitions, "timed repetitions (median reported)")
        ->check(CLI::Range(1, 1000));
    bench->add_flag("--quick", bench_opt.quick, "small sizes and 3 repetitions");

    CLI11_PARSE(app, argc, argv);
    cuzk::ThreadPool::set_global_threads(threads);
    try {
        if (*version) {
            std::printf("cuzk 0.1.0\n");
            return 0;
        }
        if (*info) return cuzk::cli::run_info();
        if (*selfcheck) return cuzk::cli::run_selfcheck();
        if (*bench) return cuzk::cli::run_bench(bench_opt);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cuzk: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
