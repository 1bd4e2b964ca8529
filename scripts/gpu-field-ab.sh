#!/usr/bin/env bash
# mont32's compile-time product variants (src/cuzk/gpu/mont32.cuh) measured on a GPU machine, two builds run
# alternating in one call (docs/perf.md): $BUILD_DIR with $FLAGS (default: both variants on: Fq's product by
# Karatsuba, Fr's reduction rows by p_0 and p_1 from adds), $REF_DIR with $REF_FLAGS (default: the defaults, both
# off). Prints one line per benchmark and build:
#   field chains   bench/experiments/mont_karatsuba.cu (Karatsuba == CIOS and the CPU first), built both ways
#   gpu-msm-g1     2^22, 2^24, 2^26 (bases resident, scalars pinned), gpu-msm-g2 2^20
#   gpu-ntt        2^24, 2^26, 2^27, forward and inverse
# Usage: scripts/gpu-field-ab.sh   (env: BUILD_DIR /tmp/b-var, REF_DIR /tmp/b, FLAGS, REF_FLAGS, REPS 7, ROUNDS 1)
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
A=${BUILD_DIR:-/tmp/b-var}
B=${REF_DIR:-/tmp/b}
FLAGS=${FLAGS:--DCUZK_MONT32_LOW01=1 -DCUZK_MONT32_KARATSUBA=1}
REF_FLAGS=${REF_FLAGS:-}
REPS=${REPS:-7}
ROUNDS=${ROUNDS:-1}
status=0

build() {  # dir, CUDA flags
  cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=ON -DCUZK_DAEMON=OFF -DCUZK_BUILD_TESTS=OFF \
    -DCUZK_BUILD_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" "-DCMAKE_CUDA_FLAGS=$2" >/dev/null &&
    ninja -C "$1" cuzk_cli >"$1.build.log" 2>&1 || { grep -E "error|FAILED" "$1.build.log" | head; exit 1; }
}
echo "== build ($A with $FLAGS; reference: $B with ${REF_FLAGS:-the defaults})"
build "$A" "$FLAGS"
build "$B" "$REF_FLAGS"

echo "== field chains"
exp=bench/experiments/mont_karatsuba.cu
nvcc -std=c++20 --expt-relaxed-constexpr -O3 -arch=sm_90 -I src $FLAGS -o /tmp/mk-a "$exp" &&
  nvcc -std=c++20 --expt-relaxed-constexpr -O3 -arch=sm_90 -I src $REF_FLAGS -o /tmp/mk-b "$exp" || exit 1
for x in a b; do
  echo "-- build $x"
  /tmp/mk-$x | grep -E "EQUAL|DIFFER|differs|block 128|regs" || status=1
done

one() {  # label, then the bench's arguments
  local label=$1; shift
  for dir in "$A" "$B"; do
    local ms
    ms=$("$dir/cuzk" bench "$@" --reps "$REPS" 2>/dev/null | grep -o '"median_ms":[0-9.]*' | cut -d: -f2)
    [ -n "$ms" ] || status=1
    printf '%-28s %-12s %s ms\n' "$label" "$(basename "$dir")" "${ms:-FAILED}"
  done
}
for round in $(seq "$ROUNDS"); do
  echo "== benchmarks, round $round (median of $REPS)"
  for k in 22 24 26; do one "gpu-msm-g1 2^$k" gpu-msm-g1 --log-size $k; done
  one "gpu-msm-g2 2^20" gpu-msm-g2 --log-size 20
  for k in 24 26 27; do
    for kind in forward inverse; do one "gpu-ntt 2^$k $kind" gpu-ntt --log-size $k --ntt-kind $kind; done
  done
done
exit $status
