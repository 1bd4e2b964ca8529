#!/usr/bin/env bash
# One call on a GPU machine: build with the CUDA toolkit for sm_90, check the GPU against the CPU on fresh random
# inputs, then benchmark, and print a short table last. Writes logs and JSON under $OUT (default ./out).
# The device machine has no GMP headers and no ../shared/vectors: those tests are simply not built there.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
BUILD_DIR=${BUILD_DIR:-build-gpu}
export PATH=/usr/local/cuda/bin:$PATH

status=0
step() { echo "== $*"; }

step "configure + build (sm_90 + compute_90 PTX)"
if ! cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=ON \
     -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" >"$OUT/configure.log" 2>&1; then
  tail -30 "$OUT/configure.log"; exit 1
fi
if ! cmake --build "$BUILD_DIR" --parallel "$(nproc)" >"$OUT/build.log" 2>&1; then
  grep -E "error|FAILED" "$OUT/build.log" | head -30; exit 1
fi

step "device"
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm --format=csv 2>&1 | tee "$OUT/gpu.txt"
"$BUILD_DIR/cuzk" info | tee "$OUT/info.txt"

step "GPU against CPU (gtest Gpu*) and the full CPU suite"
"$BUILD_DIR/tests/cuzk_tests" --gtest_output=json:"$OUT/gtest.json" >"$OUT/gtest.log" 2>&1 || status=1
tail -5 "$OUT/gtest.log"
grep -E "^\[  (FAILED|SKIPPED) " "$OUT/gtest.log" | head -20

step "selfcheck"
"$BUILD_DIR/cuzk" selfcheck | tee "$OUT/selfcheck.txt" || status=1

step "the cuzk program end to end (setup, prove with --backend gpu and cpu, verify, failures)"
bash tests/cli_roundtrip.sh "$BUILD_DIR/cuzk" 2>&1 | tail -3 | tee "$OUT/cli.txt"
grep -q "all checks passed" "$OUT/cli.txt" || status=1

step "GPU benchmarks (Google Benchmark, JSON in \$OUT/gpu-bench.json)"
# The MSM window-width sweep (BM_GpuMsmG1Window, ~4 min) runs only when asked: GPU_BENCH_FILTER=GpuMsmG1Window.
"$BUILD_DIR/bench/cuzk_bench" --benchmark_filter="${GPU_BENCH_FILTER:-gpu_|GpuMsmG1/|GpuMsmG1Pinned|GpuMsmG1Precomputed|GpuMsmG2|GpuMsmG1FromHost|GpuMsmG1Layout}" \
  --benchmark_out="$OUT/gpu-bench.json" --benchmark_out_format=json 2>&1 | tee "$OUT/gpu-bench.txt" | \
  grep -vE "^(\*\*\*|-----|Run on|CPU Caches|  L[123]|Load Average)" || status=1

step "GPU proofs at scale (random parameters of each circuit's shape; per-stage JSON in \$OUT/gpu-prove-large.jsonl)"
# Sizes a setup cannot reach in one call: cuzk bench groth16 --random-params (the proofs are not verified; the
# tests above check proofs against the CPU). The PoRep rows prove Filecoin's partition circuit on generated sectors:
# porep-512m (4.4 M rows, 2^23), three partitions per call. LARGE=0 skips; LARGE=2 adds the 32 GiB partition
# (StackedDrg32GiBV1_1, 130 M rows, 2^27): one synthesis, a batch of two copies of it (--same-witness).
if [ "${LARGE:-1}" != 0 ]; then
  for spec in "--log-constraints 24 --batch 3 --reps 2" "--preset porep-512m --batch 3 --reps 2"; do
    timeout 300 "$BUILD_DIR/cuzk" bench groth16 --backend gpu --random-params $spec >>"$OUT/gpu-prove-large.jsonl" || status=1
  done
  if [ "${LARGE:-1}" = 2 ]; then
    timeout 400 "$BUILD_DIR/cuzk" bench groth16 --backend gpu --random-params --preset porep-32g --same-witness \
      --batch 2 --reps 1 >>"$OUT/gpu-prove-large.jsonl" || status=1
  fi
  python3 - "$OUT/gpu-prove-large.jsonl" <<'PY' || true
import json, sys
for line in open(sys.argv[1]):
    try: d = json.loads(line)
    except Exception: continue
    name = d.get("circuit") or "mulchain 2^%d" % d.get("log_constraints", 0)
    st = d.get("median_stage_s", {})
    print(f"{name:<16} batch {d['batch']}: {d['median_per_circuit_s'] * 1e3:8.1f} ms per circuit "
          f"(h {st.get('h', 0) * 1e3:.0f}, msm.h {st.get('msm.h', 0) * 1e3:.0f}, split {st.get('msm.split', 0) * 1e3:.0f} ms)")
PY
fi

step "CPU benchmarks of this host (cuzk bench, quick)"
"$BUILD_DIR/cuzk" bench all --quick >"$OUT/bench.jsonl" 2>&1 || status=1

step "summary"
python3 - "$OUT/gpu-bench.json" <<'PY' || true
import json, sys
try:
    runs = json.load(open(sys.argv[1]))["benchmarks"]
except Exception as e:
    print("no GPU benchmark results:", e); sys.exit(0)
print(f"{'GPU benchmark':<44} {'median':>12} {'vs sppark':>10}")
for b in runs:
    if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median": continue
    med = b.get("median_ms")
    val = f"{med:.3f} ms" if med is not None else f"{b['real_time']:.3f} {b.get('time_unit','')}"
    extra = b.get("Gmul_per_s")
    if extra is not None: val = f"{extra:.1f} Gmul/s"
    ratio = b.get("ratio", b.get("vs_sppark"))
    print(f"{b['name'][:44]:<44} {val:>12} {('%.2fx' % ratio) if ratio else '':>10}")
PY
printf "%-14s %-8s %s\n" bench log_size median
python3 - "$OUT/bench.jsonl" <<'PY' || cat "$OUT/bench.jsonl"
import json, sys
for line in open(sys.argv[1]):
    line = line.strip()
    if not line.startswith("{"): continue
    j = json.loads(line)
    med = [(k, v) for k, v in j.items() if k.startswith("median_")][0]
    print(f"{j['bench']:<14} {str(j.get('log_size','-')):<8} {med[1]:.3f} {med[0][7:]}")
PY
grep -E "GPU field" "$OUT/selfcheck.txt"
echo "gpu-check: $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
