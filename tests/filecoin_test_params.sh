#!/usr/bin/env bash
# The 2 KiB test parameters of Filecoin's four circuits (PoRep V1_1, Winning PoSt, Window PoSt V1_2, SnapDeals
# SHA-256), made once per build directory under Filecoin's file names with fixed seeds (ctest fixture
# filecoin_params_2k): the daemon's Curio API tests and the C2 / SnapDeals round trips use them instead of each making
# their own (~140 s of setup on two cores). Checks what filecoin-proofs' paramcache writes: .params, .vk and .meta
# ({"sector_size":2048}) of each, and the PoRep key's 40 IC points. Usage: filecoin_test_params.sh CUZK OUT_DIR
set -u
CUZK=$1
out=$2
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$out" || fail "cannot create $out"
[ -e "$out/complete" ] && { echo "parameters already made in $out"; echo "all checks passed"; exit 0; }
gen() {  # seed, then the params gen arguments
  local seed=$1; shift
  "$CUZK" filecoin params gen "$@" --seed "$seed" --out "$out" --json > "$out/gen-$seed.json" || fail "params gen $*"
  for ext in params vk meta; do
    f=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$out/gen-$seed.json" "$ext")
    [ -s "$f" ] || fail "params gen $* wrote no .$ext"
  done
  grep -q '^{"sector_size":2048}$' "${f%.meta}.meta" || fail ".meta as filecoin-proofs writes it ($*)"
}
echo "setup seeds 21..24"
gen 21 --proof-type StackedDrg2KiBV1_1
grep -q '"ic":40' "$out/gen-21.json" || fail "2 KiB PoRep parameters have 40 IC points: $(cat "$out/gen-21.json")"
gen 22 --proof-type StackedDrgWinning2KiBV1
gen 23 --proof-type StackedDrgWindow2KiBV1_2
gen 24 --proof-type StackedDrg2KiBV1 --update
touch "$out/complete"
echo "all checks passed"
