#!/usr/bin/env bash
# `cuzk filecoin inputs post` against polka-storage's verified 2 KiB Window PoSt (shared/vectors/filecoin): the public
# inputs its proof verifies with, from the sector id, comm_r and randomness alone; and refusals of bad arguments.
set -u
CUZK=$1
VEC=$2/filecoin/polka_storage_2kib_window_post.json
fail() { echo "FAIL: $*"; exit 1; }
comm_r=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["comm_r_hex"])' "$VEC")
rand=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["randomness_hex"])' "$VEC")
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sector_id"])' "$VEC")
out=$("$CUZK" filecoin inputs post --proof-type StackedDrgWindow2KiBV1_2 --randomness "$rand" --sector "$id:$comm_r") \
  || fail "inputs post"
python3 - "$VEC" "$out" <<'PY' || fail "the inputs differ from the vector's"
import json, sys
want = json.load(open(sys.argv[1]))["public_inputs_decimal"]
got = json.loads(sys.argv[2])
assert got == [want], (got, want)
PY
"$CUZK" filecoin inputs post --proof-type StackedDrgWindow2KiBV1_2 --randomness "$rand" --sector "x:$comm_r" \
  > /dev/null 2>&1; [ $? -eq 2 ] || fail "a sector id that is not a number must exit 2"
"$CUZK" filecoin inputs post --proof-type StackedDrgWindow2KiBV1_2 --randomness ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff \
  --sector "$id:$comm_r" > /dev/null 2>&1; [ $? -eq 2 ] || fail "non-canonical randomness must exit 2"
"$CUZK" filecoin inputs post --proof-type StackedDrgWinning2KiBV1 --randomness "$rand" --sector "$id:$comm_r" \
  --sector "$id:$comm_r" > /dev/null 2>&1; [ $? -eq 2 ] || fail "two sectors for a Winning PoSt must exit 2"
echo "all checks passed"
