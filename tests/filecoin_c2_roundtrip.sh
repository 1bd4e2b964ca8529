#!/usr/bin/env bash
# Filecoin's PoRep C2 end to end through the `cuzk` program at 2 KiB: seal a sector natively (C1), make test
# parameters of the exact circuit (params gen), prove the C1 (c2, through the engine, GPU where present), verify the
# proof from the C1 and from the sector's own fields; then what an operator must see on bad input: a missing
# parameter file names Filecoin's file name and the directory, a parameter file of another circuit is refused from
# its headers, a tampered proof is invalid (exit 1), a C1 of another size is refused, and nothing is written on error.
set -u
CUZK=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
z=0000000000000000000000000000000000000000000000000000000000000000
prover=0101010101010101010101010101010101010101010101010101010101010101
ticket=0202020202020202020202020202020202020202020202020202020202020202
seed=0303030303030303030303030303030303030303030303030303030303030303
name=v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f

"$CUZK" filecoin seal --proof-type StackedDrg2KiBV1_1 --zero --prover-id $prover --sector-id 7 --ticket $ticket \
  --seed $seed --c1 "$dir/c1.json" > "$dir/seal.json" || fail "seal"
comm_d=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["comm_d"])' "$dir/seal.json")
comm_r=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["comm_r"])' "$dir/seal.json")

# no parameters yet: the message names Filecoin's file name and the directory searched; no proof file
out=$("$CUZK" filecoin c2 --c1 "$dir/c1.json" --params-dir "$dir/params" --proof "$dir/proof.bin" 2>&1)
[ $? -eq 2 ] || fail "c2 without parameters must exit 2"
echo "$out" | grep -q "$name.params" || fail "the missing file's name: $out"
echo "$out" | grep -q "$dir/params" || fail "the directory searched: $out"
[ ! -e "$dir/proof.bin" ] || fail "no proof file without parameters"

# The build's shared test parameters when ctest gives them (tests/filecoin_test_params.sh made and checked them),
# else made here.
if [ -n "${CUZK_FILECOIN_TEST_PARAMS:-}" ] && [ -e "$CUZK_FILECOIN_TEST_PARAMS/complete" ]; then
  mkdir -p "$dir/params"
  for ext in params vk meta; do ln -s "$CUZK_FILECOIN_TEST_PARAMS/$name.$ext" "$dir/params/$name.$ext"; done
else
  "$CUZK" filecoin params gen --proof-type StackedDrg2KiBV1_1 --out "$dir/params" --json > "$dir/gen.json" \
    || fail "params gen"
  grep -q '"ic":40' "$dir/gen.json" || fail "2 KiB parameters have 40 IC points: $(cat "$dir/gen.json")"
  for ext in params vk meta; do [ -s "$dir/params/$name.$ext" ] || fail "params gen wrote $name.$ext"; done
  grep -q '^{"sector_size":2048}$' "$dir/params/$name.meta" || fail ".meta as filecoin-proofs writes it"
fi

# FIL_PROOFS_PARAMETER_CACHE is where c2 looks by default
FIL_PROOFS_PARAMETER_CACHE="$dir/params" "$CUZK" filecoin c2 --c1 "$dir/c1.json" --proof "$dir/proof.bin" --json \
  > "$dir/c2.json" || fail "c2"
grep -q '"verified":true' "$dir/c2.json" || fail "c2 verifies before it writes: $(cat "$dir/c2.json")"
[ "$(stat -c %s "$dir/proof.bin")" -eq 192 ] || fail "a 2 KiB proof is one partition, 192 bytes"

vk="$dir/params/$name.vk"
"$CUZK" filecoin verify porep --vk "$vk" --proof "$dir/proof.bin" --c1 "$dir/c1.json" || fail "verify --c1"
"$CUZK" filecoin verify porep --vk "$vk" --proof "$dir/proof.bin" --proof-type StackedDrg2KiBV1_1 \
  --prover-id $prover --sector-id 7 --ticket $ticket --seed $seed --comm-d "$comm_d" --comm-r "$comm_r" \
  || fail "verify from the sector's fields"
"$CUZK" filecoin verify porep --vk "$vk" --proof "$dir/proof.bin" --proof-type StackedDrg2KiBV1_1 \
  --prover-id $prover --sector-id 8 --ticket $ticket --seed $seed --comm-d "$comm_d" --comm-r "$comm_r" >/dev/null
[ $? -eq 1 ] || fail "another sector id must be invalid (exit 1)"
python3 - "$dir/proof.bin" "$dir/bad.bin" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[100] ^= 1
open(sys.argv[2], 'wb').write(b)
PY
"$CUZK" filecoin verify porep --vk "$vk" --proof "$dir/bad.bin" --c1 "$dir/c1.json" >/dev/null 2>&1
[ $? -eq 1 ] || fail "a tampered proof must be invalid (exit 1)"

# a parameter file of another circuit under the 2 KiB name: refused from its headers
mkdir -p "$dir/other"
"$CUZK" setup --circuit cubic --seed 1 --params "$dir/other/$name.params" >/dev/null || fail "setup cubic"
out=$("$CUZK" filecoin c2 --c1 "$dir/c1.json" --params-dir "$dir/other" --proof "$dir/p2.bin" 2>&1)
[ $? -eq 2 ] || fail "c2 with another circuit's parameters must exit 2"
echo "$out" | grep -q "section ic has 2 points" || fail "the mismatch names the section: $out"
[ ! -e "$dir/p2.bin" ] || fail "no proof file with the wrong parameters"

# a C1 of 8 MiB is looked up under the 8 MiB name (not found here)
"$CUZK" filecoin c1-gen --proof-type StackedDrg8MiBV1_1 --rng-seed 3 --c1 "$dir/c1-8m.json" >/dev/null || fail "c1-gen"
out=$("$CUZK" filecoin c2 --c1 "$dir/c1-8m.json" --params-dir "$dir/params" --proof "$dir/p3.bin" 2>&1)
[ $? -eq 2 ] || fail "an 8 MiB C1 without 8 MiB parameters must exit 2"
echo "$out" | grep -q "ecd68364" || fail "the 8 MiB file name: $out"
# a truncated C1
head -c 1000 "$dir/c1.json" > "$dir/cut.json"
"$CUZK" filecoin c2 --c1 "$dir/cut.json" --params-dir "$dir/params" --proof "$dir/p4.bin" >/dev/null 2>&1
[ $? -eq 2 ] || fail "a truncated C1 must exit 2"
[ ! -e "$dir/p4.bin" ] || fail "no proof file for a truncated C1"
echo "all checks passed"
