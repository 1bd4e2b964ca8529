#!/usr/bin/env bash
# The Filecoin figures on a GPU machine (docs/perf.md), one step per call of the device tool (each fits in its
# 10-minute limit once the binary is built; the machine keeps /tmp only while it stays warm, so run the steps back to
# back or let each regenerate what it needs):
#   build           cuzk with CUDA for sm_90 into $BUILD_DIR (~1 min on 16 cores; no daemon; the tests too with
#                   TESTS=ON, ~2 min more)
#   gpu-tests       the GPU tests of that build ($GTEST_FILTER, default Gpu*), log in gpu-tests.log
#   params-load     the 32 GiB PoRep parameter set (random points of the real shape, ~2 min to write once) loaded
#                   unchecked, checked on the CPU and checked on the GPU
#   winning         one 32 GiB Winning PoSt partition, PCE and full synthesis
#   window          one 32 GiB Window PoSt partition (2,349 sectors, 125 M rows) with a timeline; fallbacks are
#                   printed on stderr as they happen
#   snap            a 32 GiB SnapDeals update, 16 partitions of the SHA-256 variant
#   snap-poseidon   the same with the Poseidon variant (one partition)
#   c2              a 32 GiB PoRep C2 (10 partitions, generated C1, random parameters), default engine settings,
#                   $RUNS runs (default 3) on fresh engines after one parameter generation; $C2_ARGS adds flags
#                   (C2_ARGS="--alternate pack-witness" with RUNS=4: every second run with that setting flipped,
#                   one parameter generation for both)
#   c2-host         the same with the sparse products on the CPU (--host-products), to compare
#   c2-streamed     the same with the parameters streamed from their file into host memory and the queries sent to
#                   the GPU at every MSM (--key-file --stream-queries: what a GPU smaller than the key does)
#   c2-small        c2-streamed with all but $VRAM_GB GiB (default 24) of the GPU's memory held by a ballast process
#                   (bench/experiments/ballast.cu): a 16 or 24 GB card's memory, not its speed
#   c2-queued       $QUEUED (default 3) C2 jobs of one C1 submitted at once to one engine: when each ends, and the
#                   steady state (seconds per proof after the first)
#   pipeline        bench pipeline --preset porep-32g --pce --partitions 10, default settings (issue 19 item 4)
#   msm-tables      bench groth16 (mul chain, random parameters, one witness) at 2^20, 2^22 and 2^24 without and with
#                   precomputed G1 MSM window tables (--msm-table-bytes: all four queries at 2^20 and 2^22, 60 GB at
#                   2^24), runs alternating, $REPS proofs each (default 5)
#   msm-streamed    G1 MSMs at 2^24 and 2^26 and G2 at 2^22 with the bases streamed from host memory (gpu::StreamedMsm,
#                   default chunks and 2^22-point chunks, 1 and 4 scalar sets a call) beside the resident MSM of the
#                   same sets, $REPS runs each (default 3): what a GPU smaller than its key pays per MSM
#   msm-pieces      the G2 accumulation's chunk kernel against its merge tree and walks (bench/experiments/fq2_lanes.cu),
#                   then G2 2^20, 2^22 and G1 2^20 MSMs at the default chunk length and 32-256 ($REPS runs, default 5)
#   msm-walks       G1 2^20-2^27 and G2 2^20 / 2^22 MSMs with the runs one thread may walk at 4 chunks (longer ones a
#                   warp each) and at the default (64), alternating ($REPS runs each, default 5)
#   ntt-steps       the coset inverse NTT at 2^24 and 2^27 alone, then with bellman's H pointwise steps fused into its
#                   passes and as kernels of their own, alternating ($REPS runs each, default 7)
#   h               Groth16's H on the GPU at 2^24, 2^26 and 2^27 (issue 23's "H polynomial": a 32 GiB partition's
#                   five transforms and its final coset inverse with the pointwise steps; a, b, c resident), $REPS
#                   runs each (default 7), and the lean form at 2^27 (its uploads included)
#   upload          a 32 GiB partition's witness size (2^27 field elements) host -> device: the staged copy alone and
#                   beside a memory-writing load on every core, cudaHostRegister of fresh and touched pages, one DMA
#                   from the registered buffer, the unregister ($REPS runs each, default 5)
#   roundtrip       tests/cli_roundtrip.sh on the GPU build (setup, prove through the engine's key, verify, errors)
# Usage: scripts/gpu-filecoin.sh STEP...      (env: OUT, default ./out; BUILD_DIR, default /tmp/b; P32, /tmp/p32)
# Each step writes STEP.json (the bench's JSON line), STEP.err (progress, notes) and, where it applies, STEP.timeline
# under $OUT, and prints the JSON line's main fields.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out}
BUILD_DIR=${BUILD_DIR:-/tmp/b}
P32=${P32:-/tmp/p32}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
cuzk="$BUILD_DIR/cuzk"
status=0

summary() {
  python3 - "$1" <<'PY' || true
import json, statistics, sys
try:
    runs = [json.loads(l) for l in open(sys.argv[1]).read().strip().splitlines()]
except Exception as e:
    print("  no JSON:", e); sys.exit(0)
keys = ["bench", "log_size", "median_ms", "run", "first_partition_alone", "proof_type", "circuit", "sectors", "partitions", "workers", "lookahead", "device_products", "stream_queries", "overlap_msms", "share_slot", "pack_witness", "blocking_waits", "first_upload_alone", "query_priority", "own_split_first", "synthesis_nice", "matrices_resident", "matrices_s", "constraints", "pce_compile_s", "params_s", "wall_s",
        "synthesis_s_by_partition", "proving_s_by_partition", "h_kernel_s", "gpu_busy_share", "peak_rss_bytes", "queued_end_s", "queued_per_proof_s", "fallbacks", "checked_gpu_s",
        "checked_cpu_s", "unchecked_s", "checked_gpu_subgroup_s", "checked_gpu_subgroup_wait_s"]
for j in runs:
    print("  " + ", ".join(f"{k}={j[k]}" for k in keys if k in j))
# A job's digest: the figures each record in docs/perf.md starts from.
for j in runs:
    p = j.get("proving_s_by_partition")
    if not p or "wall_s" not in j:
        continue
    median = statistics.median(p[1:] or p)
    rss = j.get("peak_rss_bytes", 0)
    print(f"  digest run {j.get('run', 1)}: wall {j['wall_s']:.2f} s, partition 0 {p[0]:.3f} s, partitions 1.. median "
          f"{median:.3f} s, GPU busy {100 * j.get('gpu_busy_share', 0):.0f} %, peak RSS {rss / 1e9:.1f} GB "
          f"({rss / 2**30:.1f} GiB)")
PY
}

bench() {  # name, then the bench's arguments
  local name=$1; shift
  echo "== $name"
  local t0=$SECONDS
  if ! "$cuzk" bench "$@" >"$OUT/$name.json" 2>"$OUT/$name.err"; then
    status=1
    tail -5 "$OUT/$name.err"
  fi
  grep -E "^(bench |note: )" "$OUT/$name.err" | tail -8
  summary "$OUT/$name.json"
  echo "   ($((SECONDS - t0)) s)"
}

for step in "$@"; do
  case "$step" in
    build)
      echo "== build"
      cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=ON -DCUZK_DAEMON=OFF \
        -DCUZK_BUILD_TESTS="${TESTS:-OFF}" -DCUZK_BUILD_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" \
        >"$OUT/configure.log" 2>&1 || { tail -20 "$OUT/configure.log"; exit 1; }
      targets=cuzk_cli
      [ "${TESTS:-OFF}" = ON ] && targets="cuzk_cli cuzk_tests"
      ninja -C "$BUILD_DIR" $targets >"$OUT/build.log" 2>&1 || { grep -E "error|FAILED" "$OUT/build.log" | head; exit 1; }
      ;;
    gpu-tests)
      echo "== gpu-tests"
      "$BUILD_DIR/tests/cuzk_tests" --gtest_filter="${GTEST_FILTER:-Gpu*}" >"$OUT/gpu-tests.log" 2>&1 || status=1
      grep -E "^\[  (FAILED|SKIPPED|PASSED) |^\[==========\]|seed" "$OUT/gpu-tests.log" | tail -30 ;;
    params-load)
      bench params-load params-load --proof-type StackedDrg32GiBV1_1 --random-params --params-dir "$P32" ;;
    winning)
      bench winning post --proof-type StackedDrgWinning32GiBV1 --random-params
      bench winning-full post --proof-type StackedDrgWinning32GiBV1 --random-params --full-synthesis ;;
    window)
      bench window post --proof-type StackedDrgWindow32GiBV1_2 --random-params --timeline "$OUT/window.timeline" ;;
    snap)
      bench snap snap --proof-type StackedDrg32GiBV1 --random-params --timeline "$OUT/snap.timeline" ;;
    snap-poseidon)
      bench snap-poseidon snap --proof-type StackedDrg32GiBV1 --poseidon --random-params ;;
    c2)
      # shellcheck disable=SC2086  # C2_ARGS: several flags
      bench c2 porep-c2 --proof-type StackedDrg32GiBV1_1 --random-params --runs "${RUNS:-3}" ${C2_ARGS:-} ;;
    ntt-steps)
      for k in 24 27; do
        bench "ntt-steps-$k" gpu-ntt --log-size "$k" --ntt-kind coset-inverse --ntt-steps --reps "${REPS:-7}"
      done ;;
    h)
      for k in 24 26 27; do bench "h-$k" gpu-h --log-size "$k" --reps "${REPS:-7}"; done
      bench h-lean-27 gpu-h --log-size 27 --lean-h --reps "${REPS:-7}" ;;
    upload)
      bench upload gpu-upload --log-size 27 --reps "${REPS:-5}" ;;
    c2-host)
      # shellcheck disable=SC2086
      bench c2-host porep-c2 --proof-type StackedDrg32GiBV1_1 --random-params --runs "${RUNS:-3}" --host-products ${C2_ARGS:-} ;;
    c2-streamed)
      # shellcheck disable=SC2086
      bench c2-streamed porep-c2 --proof-type StackedDrg32GiBV1_1 --random-params --runs "${RUNS:-3}" --key-file \
        --params-dir "$P32" --stream-queries ${C2_ARGS:-} ;;
    c2-small)
      # c2-streamed on an emulated smaller card: bench/experiments/ballast.cu takes all but $VRAM_GB GiB (default
      # 24) of the GPU's free memory while the C2 runs (the card's memory only, not its speed): does a 32 GiB C2
      # run on the GPU of a 24 or 16 GB card with the queries streamed, and in how long? The GPU only: a partition
      # that fails there fails the run with its error (the CPU's retry beside the streamed set ran the host out).
      nvcc -std=c++20 -O2 -arch=sm_90 -o "$BUILD_DIR/ballast" bench/experiments/ballast.cu || exit 1
      hold=$(mktemp -u); mkfifo "$hold"
      "$BUILD_DIR/ballast" "${VRAM_GB:-24}" <"$hold" >"$OUT/ballast.txt" &
      exec 3>"$hold"
      for _ in $(seq 120); do grep -q "^ballast:" "$OUT/ballast.txt" && break; sleep 1; done
      cat "$OUT/ballast.txt"
      # shellcheck disable=SC2086
      bench "c2-small-${VRAM_GB:-24}" porep-c2 --proof-type StackedDrg32GiBV1_1 --random-params --runs "${RUNS:-3}" \
        --key-file --params-dir "$P32" --stream-queries --backend gpu ${C2_ARGS:-}
      exec 3>&-
      wait
      rm -f "$hold" ;;
    c2-queued)
      # shellcheck disable=SC2086
      bench c2-queued porep-c2 --proof-type StackedDrg32GiBV1_1 --random-params --queued "${QUEUED:-3}" ${C2_ARGS:-} ;;
    pipeline)
      bench pipeline pipeline --preset porep-32g --random-params --pce --partitions 10 ;;
    msm-tables)
      for k in 20 22 24; do
        table=1000000000000
        [ "$k" = 24 ] && table=60000000000
        for run in 1 2; do for t in 0 "$table"; do
          bench "msm-tables-$k-$t-$run" groth16 --backend gpu --random-params --same-witness --log-constraints "$k" \
            --reps "${REPS:-5}" --msm-table-bytes "$t"
          python3 -c "import json,sys; j=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print('  prove', j['median_prove_s'], 'stages', {k: round(v * 1e3, 1) for k, v in j['median_stage_s'].items() if k.startswith('msm')}, 'device bytes', j['device_resident_bytes'])" "$OUT/msm-tables-$k-$t-$run.json" || true
        done; done
      done ;;
    msm-streamed)
      for g in "g1 24" "g1 26" "g2 22"; do
        set -- $g
        for sets in 1 4; do
          bench "msm-$1-$2-resident-$sets" "gpu-msm-$1" --log-size "$2" --reps "${REPS:-3}" --sets "$sets"
          bench "msm-$1-$2-streamed-$sets" "gpu-msm-$1" --log-size "$2" --reps "${REPS:-3}" --sets "$sets" --streamed
          bench "msm-$1-$2-streamed22-$sets" "gpu-msm-$1" --log-size "$2" --reps "${REPS:-3}" --sets "$sets" \
            --streamed --chunk-points 4194304
        done
        for f in "$OUT"/msm-"$1"-"$2"-*.json; do echo "  $(basename "$f" .json): $(cat "$f")"; done
      done ;;
    msm-pieces)
      # Where a G2 MSM's accumulation span goes (docs/gpu-msm-notes.md): the chunk kernel against the merge tree
      # and the walks (bench/experiments/fq2_lanes.cu), then chunk lengths (--piece-points) for G2 2^20 / 2^22 and
      # G1 2^20, the default first (0: 128 / 128 / 64 at these sizes), $REPS runs each (default 5).
      echo "== msm-pieces"
      nvcc -std=c++20 --expt-relaxed-constexpr --extended-lambda -O3 -arch=sm_90 -I src -o "$BUILD_DIR/fq2_lanes" \
        bench/experiments/fq2_lanes.cu >"$OUT/fq2_lanes.build.log" 2>&1 && "$BUILD_DIR/fq2_lanes" | tee "$OUT/fq2_lanes.txt"
      for g in "g2 20" "g2 22" "g1 20"; do
        set -- $g
        for L in 0 32 64 128 256; do
          bench "pieces-$1-$2-L$L" "gpu-msm-$1" --log-size "$2" --reps "${REPS:-5}" --piece-points "$L"
        done
        for f in "$OUT"/pieces-"$1"-"$2"-*.json; do echo "  $(basename "$f" .json): $(cat "$f")"; done
      done ;;
    msm-walks)
      # The long runs of narrow top windows (G1 2^27: ~35 chunks a run) joined by one thread (the default: walks
      # up to 64 chunks) or by a warp each past 4 chunks (GpuMsmConfig::walk_chunks; docs/gpu-msm-notes.md).
      echo "== msm-walks"
      for g in "g1 27" "g1 26" "g1 24" "g1 22" "g1 20" "g2 20" "g2 22"; do
        set -- $g
        for w in 4 0; do
          bench "walks-$1-$2-w$w" "gpu-msm-$1" --log-size "$2" --reps "${REPS:-5}" --walk-chunks "$w"
        done
        for f in "$OUT"/walks-"$1"-"$2"-*.json; do echo "  $(basename "$f" .json): $(cat "$f")"; done
      done ;;
    roundtrip)
      echo "== roundtrip"
      bash tests/cli_roundtrip.sh "$cuzk" >"$OUT/roundtrip.log" 2>&1 || status=1
      tail -3 "$OUT/roundtrip.log" ;;
    *)
      echo "unknown step '$step' (build, gpu-tests, params-load, winning, window, snap, snap-poseidon, c2, c2-host, c2-streamed, c2-small, c2-queued, pipeline, msm-tables, msm-streamed, msm-pieces, msm-walks, roundtrip)"; exit 2 ;;
  esac
done
exit $status
