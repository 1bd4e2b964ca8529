#!/usr/bin/env bash
# Issue 21 item 3 through the daemon on a GPU host: a 32 GiB WinningPoSt (Curio's request, CRITICAL) on an idle
# daemon, then submitted while a 32 GiB PoRep C2 (a cuzk job of the real circuit from a generated C1) runs; the C2's
# wall and the daemon's peak RSS. The PoRep parameters are random points of the real shape (a 47 GB file written
# once by `bench porep-c2 --key-file`), so that job runs with verify_proofs off; the WinningPoSt's parameters are a
# real setup of its circuit (`filecoin params gen`) and its proof is verified, by the daemon and by `filecoin verify
# post`. Usage: scripts/gpu-daemon.sh CUZK [DIR]   (DIR default /tmp/dm: params/, state/, results in $OUT;
# SIZE=32g (default) or 2k for a quick run of the same steps; BACKEND=gpu (default) or cpu)
set -u
CUZK=$(realpath "$1")
dir=${2:-/tmp/dm}
OUT=${OUT:-./out}
mkdir -p "$dir/params" "$dir/state" "$OUT"
OUT=$(realpath "$OUT")
fail() { echo "FAIL: $*"; [ -f "$dir/daemon.log" ] && tail -20 "$dir/daemon.log"; exit 1; }
json() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j[sys.argv[2]])' "$@"; }
SIZE=${SIZE:-32g}
if [ "$SIZE" = 2k ]; then
  W=StackedDrgWinning2KiBV1; WID=0; SEAL=StackedDrg2KiBV1_1; PRESET=porep-2k
  porep=v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params
else  # Filecoin's names (filecoin::parameter_files)
  W=StackedDrgWinning32GiBV1; WID=3; SEAL=StackedDrg32GiBV1_1; PRESET=porep-32g
  porep=v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params
fi
rand=0505050505050505050505050505050505050505050505050505050505050505

# The PoRep file (random points of the real shape) and one C2 through the bench, for comparison.
if [ ! -s "$dir/params/$porep" ]; then
  "$CUZK" bench porep-c2 --proof-type $SEAL --random-params --key-file --params-dir "$dir/params" \
    --runs 1 > "$OUT/bench-c2.json" 2> "$OUT/bench-c2.err" || fail "bench porep-c2 --key-file"
  echo "bench: $(python3 -c 'import json,sys; j=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print({k: j[k] for k in ("wall_s", "peak_rss_bytes", "key_s") if k in j})' "$OUT/bench-c2.json")"
fi
t0=$(date +%s.%N)
"$CUZK" filecoin params gen --proof-type $W --out "$dir/params" --json > "$OUT/winning-params.json" || fail "params gen $W"
echo "winning parameters made in $(python3 -c "import time; print(round(time.time() - $t0, 1))") s"
"$CUZK" filecoin post-gen --proof-type $W --randomness $rand --sector-id 10 --sector-index 0 --seed 40 \
  --out "$dir/v0.bin" --json > "$OUT/post-gen.json" || fail "post-gen"
cr=$(json "$OUT/post-gen.json" comm_r)

cat > "$dir/cuzk.toml" <<TOML
[paths]
params = "$dir/params"
state = "$dir/state"
circuits = "/proc/cuzk-no-circuits"   # the 32 GiB PCE (~20 GB) is not written: the disk holds the 47 GB file
[engine]
backend = "${BACKEND:-gpu}"
verify_proofs = false                 # the PoRep parameters are random (the WinningPoSt is verified regardless)
TOML
"$CUZK" daemon --config "$dir/cuzk.toml" > "$dir/daemon.log" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
C() { "$CUZK" client --socket "$dir/state/cuzk.sock" "$@"; }
for _ in $(seq 300); do C status > /dev/null 2>&1 && break; sleep 0.1; done
C status > /dev/null || fail "the daemon did not come up"

winning() {  # $1: request id; prints the result JSON to $OUT/$1.json
  C prove --kind winning-post --registered-proof $WID --miner-id 1000 --vanilla "$dir/v0.bin" --randomness $rand \
    --request-id "$1" --proof "$dir/$1.bin" --json --quiet > "$OUT/$1.json" || fail "winning $1: $(cat "$OUT/$1.json")"
  "$CUZK" filecoin verify post --proof-type $W --vk "$(json "$OUT/winning-params.json" vk)" --proof "$dir/$1.bin" \
    --randomness $rand --sector 10:"$cr" > /dev/null || fail "the daemon's WinningPoSt $1 does not verify"
  echo "  $1: total_ms $(json "$OUT/$1.json" total_ms), queue_wait_ms $(json "$OUT/$1.json" queue_wait_ms), srs_load_ms $(json "$OUT/$1.json" srs_load_ms), gpu_compute_ms $(json "$OUT/$1.json" gpu_compute_ms)"
}
echo "idle daemon:"
winning winpost-cold
winning winpost-idle-1
winning winpost-idle-2

echo "during a PoRep C2 (cuzk job porep-c2, preset $PRESET, NORMAL):"
id=$(C submit --circuit porep-c2 --preset $PRESET --params "$porep" --witness-seed 7) || fail "submit the C2"
after=${AFTER:-3}  # the WinningPoSt goes in once this many partitions are proven (2k: one partition in all)
[ "$SIZE" = 2k ] && after=0
for _ in $(seq 3000); do
  st=$(C status "$id" --json | python3 -c 'import json,sys; j=json.load(sys.stdin)["job"]; print(j.get("state", ""), j.get("partitionsProven", 0))')
  set -- $st
  [ "$1" = RUNNING ] && [ "${2:-0}" -ge "$after" ] && break
  sleep 0.1
done
winning winpost-under-c2
C await "$id" --json --timeout 600 > "$OUT/c2.json" || fail "the C2: $(cat "$OUT/c2.json")"
echo "  C2: $(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print({k: j[k] for k in ("state", "proofs", "wall_s", "peak_rss_bytes", "proving_s", "synthesis_s", "total_ms", "srs_load_ms") if k in j})' "$OUT/c2.json")"
C status > "$OUT/status.txt"
C metrics > "$OUT/metrics.txt"
cp "$dir/daemon.log" "$OUT/daemon.log"
echo "all checks passed"
