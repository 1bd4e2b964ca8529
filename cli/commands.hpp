// The subcommands of the `cuzk` program.
#pragma once

#include <string>
#include <vector>

namespace cuzk::cli {

struct BenchOptions {
    std::string what = "all";  // fq-mul, fr-mul, g1-add, pairing, ntt, msm-g1, msm-g2, all
    int log_size = -1;         // problem size 2^log_size for ntt/msm (-1: the default of each benchmark)
    int repetitions = 5;       // timed runs; the median is reported
    bool quick = false;        // smaller sizes and 3 repetitions (the demo)
};

// Prints one JSON object per benchmark on stdout; returns the process exit code.
int run_bench(const BenchOptions& opt);

// Runs the correctness self-check (CPU, and GPU against CPU when a device is present); prints one line per check,
// returns 0 when every check passed.
int run_selfcheck();

// Machine, thread and GPU summary.
int run_info();

// Names accepted by run_bench.
std::vector<std::string> bench_names();

}  // namespace cuzk::cli
