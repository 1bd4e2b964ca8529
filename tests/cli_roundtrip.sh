#!/usr/bin/env bash
# End to end through the `cuzk` program: setup -> prove (a batch) -> verify, then the failures a user must see:
# a wrong public input and a corrupted proof are rejected (exit 1), a truncated parameter file is an error (exit 2).
set -u
CUZK=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$CUZK" setup --circuit mulchain --log-size 8 --publics 2 --seed 7 --params "$dir/p.params" --vk "$dir/p.vk" \
  || fail "setup"
"$CUZK" prove --circuit mulchain --log-size 8 --publics 2 --params "$dir/p.params" --batch 3 \
  --proof "$dir/proofs.bin" --public "$dir/public.json" || fail "prove"
[ "$(stat -c %s "$dir/proofs.bin")" -eq 576 ] || fail "3 proofs must be 576 bytes"
"$CUZK" verify --vk "$dir/p.vk" --proof "$dir/proofs.bin" --public "$dir/public.json" || fail "verify valid batch"
"$CUZK" prove --circuit mulchain --log-size 8 --publics 2 --params "$dir/p.params" --unchecked-params \
  --proof "$dir/u.bin" --public "$dir/u.json" || fail "prove with --unchecked-params"
"$CUZK" verify --vk "$dir/p.vk" --proof "$dir/u.bin" --public "$dir/u.json" || fail "verify (unchecked-params proof)"
"$CUZK" verify --params "$dir/p.params" --proof "$dir/proofs.bin" --public "$dir/public.json" --json \
  | grep -q '"valid":true' || fail "verify --json"

# --backend: cpu always works; gpu works where `cuzk info` finds a GPU (the proofs are verified before they are
# written) and is an error elsewhere.
"$CUZK" prove --circuit mulchain --log-size 8 --publics 2 --params "$dir/p.params" --backend cpu \
  --proof "$dir/c.bin" --public "$dir/c.json" || fail "prove --backend cpu"
"$CUZK" verify --vk "$dir/p.vk" --proof "$dir/c.bin" --public "$dir/c.json" || fail "verify (--backend cpu proof)"
if "$CUZK" info | grep -q "gpu: none"; then
  "$CUZK" prove --circuit mulchain --log-size 8 --publics 2 --params "$dir/p.params" --backend gpu \
    --proof "$dir/g.bin" --public "$dir/g.json" 2>/dev/null && fail "--backend gpu without a GPU must fail"
  [ ! -e "$dir/g.bin" ] || fail "no proof file without a GPU"
else
  "$CUZK" prove --circuit mulchain --log-size 8 --publics 2 --params "$dir/p.params" --backend gpu --batch 2 \
    --proof "$dir/g.bin" --public "$dir/g.json" || fail "prove --backend gpu"
  "$CUZK" verify --vk "$dir/p.vk" --proof "$dir/g.bin" --public "$dir/g.json" || fail "verify (GPU proofs)"
fi

# a wrong public input: change the first decimal digit string's last digit
python3 - "$dir/public.json" "$dir/bad.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
v = int(j[1][0]); j[1][0] = str(v + 1 if v + 1 < 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001 else 0)
json.dump(j, open(sys.argv[2], "w"))
PY
"$CUZK" verify --vk "$dir/p.vk" --proof "$dir/proofs.bin" --public "$dir/bad.json"
[ $? -eq 1 ] || fail "a wrong public input must give exit 1"

# a proof with a different but valid point: swap the first two proofs
python3 - "$dir/proofs.bin" "$dir/swapped.bin" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(b[192:384] + b[0:192] + b[384:])
PY
"$CUZK" verify --vk "$dir/p.vk" --proof "$dir/swapped.bin" --public "$dir/public.json"
[ $? -eq 1 ] || fail "swapped proofs must give exit 1"

# a corrupted point encoding is an error that names the proof
python3 - "$dir/proofs.bin" "$dir/corrupt.bin" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[200] ^= 0xff
open(sys.argv[2], "wb").write(bytes(b))
PY
out=$("$CUZK" verify --vk "$dir/p.vk" --proof "$dir/corrupt.bin" --public "$dir/public.json" 2>&1)
rc=$?
[ $rc -eq 2 ] || [ $rc -eq 1 ] || fail "corrupt proof: exit $rc"
echo "$out" | grep -qi "proof" || fail "corrupt proof: message should name the proof: $out"

# a truncated parameter file
head -c 1000 "$dir/p.params" > "$dir/short.params"
"$CUZK" prove --circuit mulchain --log-size 8 --publics 2 --params "$dir/short.params" \
  --proof "$dir/x.bin" --public "$dir/x.json" 2> "$dir/err.txt"
[ $? -eq 2 ] || fail "truncated params must give exit 2"
grep -qi "short.params" "$dir/err.txt" || fail "the error must name the file: $(cat "$dir/err.txt")"

# parameters of another circuit: a clear error, exit 2
"$CUZK" prove --circuit mulchain --log-size 9 --publics 2 --params "$dir/p.params" \
  --proof "$dir/x.bin" --public "$dir/x.json" 2> "$dir/err2.txt"
[ $? -eq 2 ] || fail "parameters of another circuit must give exit 2"
grep -q "not made for this circuit" "$dir/err2.txt" || fail "mismatch message: $(cat "$dir/err2.txt")"
# a usage error (missing file) is exit 2 too
"$CUZK" verify --vk "$dir/none.vk" --proof "$dir/proofs.bin" --public "$dir/public.json" 2>/dev/null
[ $? -eq 2 ] || fail "a missing input file must give exit 2"

# the cubic circuit with a raw public-input file
"$CUZK" setup --circuit cubic --params "$dir/c.params" || fail "cubic setup"
"$CUZK" prove --circuit cubic --x 3 --params "$dir/c.params" --proof "$dir/c.proof" --public "$dir/c.bin" || fail "cubic prove"
"$CUZK" verify --params "$dir/c.params" --proof "$dir/c.proof" --public "$dir/c.bin" || fail "cubic verify"
# the pre-compiled evaluator's file: build, check, and a corrupted copy is an error (exit 2)
"$CUZK" pce build --circuit mulchain --log-size 8 --publics 2 --out "$dir/m.pce" || fail "pce build"
"$CUZK" pce info "$dir/m.pce" --json | grep -q '"constraints":256' || fail "pce info"
"$CUZK" pce info "$dir/m.pce" --json | grep -q '"circuit":"mulchain log_size=8 publics=2"' || fail "pce info: circuit name"
# Proving through the PCE (witness + sparse product): valid proofs; a .pce of another circuit is refused (exit 2).
"$CUZK" setup --circuit mulchain --log-size 8 --publics 2 --params "$dir/m8.params" --vk "$dir/m8.vk" --seed 5 \
  >/dev/null || fail "setup for the pce proof"
"$CUZK" prove --circuit mulchain --log-size 8 --publics 2 --params "$dir/m8.params" --pce "$dir/m.pce" --batch 2 \
  --proof "$dir/m8.proof" --public "$dir/m8.json" >/dev/null || fail "prove --pce"
"$CUZK" verify --vk "$dir/m8.vk" --proof "$dir/m8.proof" --public "$dir/m8.json" >/dev/null || fail "pce proofs must verify"
"$CUZK" prove --circuit mulchain --log-size 8 --publics 3 --params "$dir/m8.params" --pce "$dir/m.pce" \
  --proof "$dir/x.proof" --public "$dir/x.json" 2> "$dir/pce_foreign.txt"
[ $? -eq 2 ] || fail "a .pce of another circuit must give exit 2"
grep -q "recorded for circuit" "$dir/pce_foreign.txt" || fail "foreign pce message: $(cat "$dir/pce_foreign.txt")"
python3 - "$dir/m.pce" "$dir/bad.pce" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[len(b) // 2] ^= 1
open(sys.argv[2], "wb").write(bytes(b))
PY
"$CUZK" pce info "$dir/bad.pce" 2> "$dir/pce_err.txt"
[ $? -eq 2 ] || fail "a corrupted .pce must give exit 2"
grep -qi "checksum" "$dir/pce_err.txt" || fail "pce error should name the checksum: $(cat "$dir/pce_err.txt")"
# the smallest PoRep-shaped preset: one replica's two partitions as a batch, a wrong comm_r rejected (parameters
# loaded without the subgroup checks, which take ~12 s for 2^17 on two cores)
"$CUZK" setup --circuit porep-128k --seed 3 --params "$dir/r.params" --vk "$dir/r.vk" || fail "porep setup"
"$CUZK" prove --circuit porep-128k --witness-seed 5 --batch 2 --params "$dir/r.params" --unchecked-params \
  --proof "$dir/r.bin" --public "$dir/r.json" || fail "porep prove"
"$CUZK" verify --vk "$dir/r.vk" --proof "$dir/r.bin" --public "$dir/r.json" || fail "porep verify"
python3 - "$dir/r.json" "$dir/r_bad.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j[0][:3] == j[1][:3], "partitions of one replica share replica id, comm_d, comm_r"
j[1][2] = str((int(j[1][2]) + 1) % 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001)
json.dump(j, open(sys.argv[2], "w"))
PY
[ $? -eq 0 ] || fail "porep public inputs"
"$CUZK" verify --vk "$dir/r.vk" --proof "$dir/r.bin" --public "$dir/r_bad.json"
[ $? -eq 1 ] || fail "a wrong comm_r must give exit 1"
"$CUZK" circuit info --circuit porep-128k --json | grep -q '"constraints":124936' || fail "porep circuit info"
# bench groth16 on a preset: one proof of generator data (setup + prove + verify, ~3 s on two cores); --log-constraints
# sizes mulchain only
"$CUZK" bench groth16 --circuit porep-128k --reps 1 > "$dir/bench.json" || fail "bench groth16 --circuit porep-128k"
grep -q '"circuit":"porep-128k"' "$dir/bench.json" && grep -q '"constraints":124936' "$dir/bench.json" &&
  grep -q '"median_prove_s"' "$dir/bench.json" || fail "bench groth16 porep output: $(cat "$dir/bench.json")"
"$CUZK" bench groth16 --circuit porep-128k --log-constraints 10 2> /dev/null
[ $? -eq 2 ] || fail "bench groth16 --circuit porep-128k --log-constraints must give exit 2"
# --same-witness (a batch of copies of one assignment) and --timeline (every span of the last call, as JSON)
"$CUZK" bench groth16 --backend cpu --random-params --same-witness --batch 2 --reps 1 --log-constraints 8 \
  --timeline "$dir/tl.json" > "$dir/bench_tl.json" || fail "bench groth16 --same-witness --timeline"
python3 - "$dir/tl.json" "$dir/bench_tl.json" <<'PY' || fail "bench groth16 timeline: $(head -c 300 "$dir/tl.json")"
import json, sys
spans = json.load(open(sys.argv[1]))
items = {s["item"] for s in spans if s["layer"] == "prover" and s["name"].startswith("msm.")}
assert items == {0, 1}, items
assert all(s["duration_s"] >= 0 and s["start_s"] >= 0 for s in spans)
assert json.load(open(sys.argv[2]))["same_witness"] is True
PY
python3 "$(dirname "$0")/../scripts/timeline.py" "$dir/tl.json" | grep -q "msm.h" || fail "scripts/timeline.py"
"$CUZK" bench groth16 --same-witness --reps 1 --log-constraints 8 2> /dev/null
[ $? -eq 2 ] || fail "--same-witness without --random-params must give exit 2"
echo "cli round trip: all checks passed"
