#!/usr/bin/env bash
# Builds cuzk's libFuzzer harnesses (fuzz/*.cpp: clang, AddressSanitizer + UndefinedBehaviorSanitizer, in their own
# build directory) and runs each for SECONDS on its seed corpus (fuzz/corpus/HARNESS, small valid files), keeping
# what it finds new in $FUZZ_BUILD_DIR/corpus/HARNESS. A crash, a sanitizer report, a hang (10 s per input), more
# than 2 GiB of memory, or an allocation sized by the input before it was checked stops that harness: its input is
# written to $FUZZ_BUILD_DIR/artifacts/HARNESS/ and the script exits 1 after the others ran.
# Usage: scripts/fuzz.sh [SECONDS=20] [HARNESS...]   (harnesses: params proofs iden3 snarkjs pce filecoin daemon)
# One line per harness: executions, coverage (libFuzzer's cov: edges, ft: features), corpus size, result.
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
shift || true
build=${FUZZ_BUILD_DIR:-$PWD/build-fuzz}
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(params proofs iden3 snarkjs pce filecoin daemon)
cxx=${FUZZ_CXX:-$(command -v clang++ || true)}
[ -n "$cxx" ] || { echo "fuzz: clang++ is needed (Debian: apt-get install clang)"; exit 2; }

mkdir -p "$build"
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=None -DCUZK_FUZZ=ON \
  -DCUZK_CUDA=OFF -DCUZK_BUILD_TESTS=OFF -DCUZK_BUILD_BENCH=OFF -DCUZK_NATIVE=OFF >"$build/configure.log" 2>&1 ||
  { tail -20 "$build/configure.log"; exit 2; }
targets=()
for h in "${harnesses[@]}"; do
  if grep -q "fuzz_$h:" "$build/build.ninja" 2>/dev/null || grep -q "build fuzz_$h" "$build/build.ninja"; then
    targets+=("fuzz_$h")
  else
    echo "fuzz: no harness $h in this build (the daemon's needs gRPC, SQLite and toml++)"
  fi
done
cmake --build "$build" --target "${targets[@]}" -j "${FUZZ_JOBS:-$(nproc)}" >"$build/build.log" 2>&1 ||
  { grep -E "error|FAILED" "$build/build.log" | head -20; exit 2; }

status=0
for t in "${targets[@]}"; do
  h=${t#fuzz_}
  mkdir -p "$build/corpus/$h" "$build/artifacts/$h"
  log="$build/$h.log"
  "$build/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/artifacts/$h/" "$build/corpus/$h" "fuzz/corpus/$h" >"$log" 2>&1
  rc=$?
  execs=$(grep -oE "stat::number_of_executed_units: *[0-9]+" "$log" | grep -oE "[0-9]+$" || echo "?")
  cov=$(grep -oE "cov: [0-9]+ ft: [0-9]+" "$log" | tail -1)
  files=$(find "$build/corpus/$h" -type f | wc -l)
  if [ $rc -eq 0 ]; then
    echo "fuzz $h: ${secs} s, $execs executions, $cov, $files new corpus files: ok"
  else
    status=1
    echo "fuzz $h: FINDING (exit $rc) after $execs executions, $cov; input in $build/artifacts/$h/:"
    grep -E "ERROR|SUMMARY|finding|runtime error" "$log" | head -8
  fi
done
exit $status
