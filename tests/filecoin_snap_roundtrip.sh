#!/usr/bin/env bash
# SnapDeals (EmptySectorUpdate) end to end through the `cuzk` program at 2 KiB.
# Poseidon variant (36,424 rows): test parameters of the exact circuit (params gen --poseidon), an update of a sector
# that is never built (snap-gen: vanilla proofs and the commitments), the proof (snap, through the engine, GPU where
# present), verify snap from the commitments; the same from the vanilla proof as serde_json JSON (snap-gen
# --vanilla-json); a changed comm_d_new fails verification (exit 1); bad inputs (missing parameters, a truncated
# vanilla proof in either encoding, a partition too many, commitments the vanilla proofs do not prove) exit 2 with
# nothing written.
# SHA-256 variant (1,705,039 rows): snap-gen, the vanilla proof accepted up to the parameter lookup, wrong
# commitments and the other variant's layout refused, inputs snap. Its full round trip (params gen ~80 s and
# proving ~30 s on 2 cores, a 656 MB key) runs when the second argument is sha256-full (its own ctest,
# cli.filecoin_snap_sha256_roundtrip, which skips the Poseidon part) or with CUZK_SNAP_SHA256_ROUNDTRIP=1.
# Usage: filecoin_snap_roundtrip.sh CUZK [sha256-full]
set -u
CUZK=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }
P=StackedDrg2KiBV1
mode=${2:-}

# ---- Poseidon variant ----
if [ "$mode" != sha256-full ]; then
"$CUZK" filecoin snap-gen --proof-type $P --poseidon --seed 7 --out-dir "$dir/gp" --json > /dev/null || fail "snap-gen --poseidon"
ro=$(json "$dir/gp/snap.json" comm_r_old); dn=$(json "$dir/gp/snap.json" comm_d_new); rn=$(json "$dir/gp/snap.json" comm_r_new)
[ -s "$dir/gp/partition-0.bin" ] || fail "snap-gen writes the partition's vanilla proof"
comms=(--comm-r-old "$ro" --comm-d-new "$dn" --comm-r-new "$rn")

out=$("$CUZK" filecoin snap --proof-type $P --poseidon --vanilla "$dir/gp/partition-0.bin" "${comms[@]}" \
  --params-dir "$dir/params" --proof "$dir/p.bin" 2>&1)
[ $? -eq 2 ] || fail "snap without parameters must exit 2: $out"
echo "$out" | grep -q "v28-empty-sector-update-poseidon-merkletree" || fail "the missing file's name: $out"
[ ! -e "$dir/p.bin" ] || fail "no proof file without parameters"

"$CUZK" filecoin params gen --proof-type $P --poseidon --out "$dir/params" --json > "$dir/pp.json" || fail "params gen --poseidon"
grep -q '"ic":5' "$dir/pp.json" || fail "SnapDeals parameters have 4 + 1 IC points: $(cat "$dir/pp.json")"
"$CUZK" filecoin params check --proof-type $P --poseidon --params-dir "$dir/params" --json | grep -q '"valid":true' \
  || fail "params check --poseidon"
vk=$(json "$dir/pp.json" vk)
FIL_PROOFS_PARAMETER_CACHE="$dir/params" "$CUZK" filecoin snap --proof-type $P --poseidon \
  --vanilla "$dir/gp/partition-0.bin" "${comms[@]}" --proof "$dir/p.bin" --json > "$dir/p.json" || fail "snap --poseidon"
grep -q '"verified":true' "$dir/p.json" || fail "snap verifies before it writes: $(cat "$dir/p.json")"
[ "$(stat -c %s "$dir/p.bin")" -eq 192 ] || fail "one partition, 192 bytes"
"$CUZK" filecoin verify snap --proof-type $P --poseidon --vk "$vk" --proof "$dir/p.bin" "${comms[@]}" > /dev/null \
  || fail "verify snap --poseidon"
# the same update's vanilla proof as JSON (the same seed): proven and verified too
"$CUZK" filecoin snap-gen --proof-type $P --poseidon --seed 7 --out-dir "$dir/gpj" --vanilla-json --json > /dev/null \
  || fail "snap-gen --poseidon --vanilla-json"
[ "$(json "$dir/gpj/snap.json" comm_r_new)" = "$rn" ] || fail "the JSON vanilla proof is of the same update"
"$CUZK" filecoin snap --proof-type $P --poseidon --vanilla "$dir/gpj/partition-0.json" "${comms[@]}" \
  --params-dir "$dir/params" --proof "$dir/pj.bin" > /dev/null || fail "snap --poseidon from JSON"
"$CUZK" filecoin verify snap --proof-type $P --poseidon --vk "$vk" --proof "$dir/pj.bin" "${comms[@]}" > /dev/null \
  || fail "verify snap --poseidon, proven from JSON"
other=$(python3 -c 'import sys; b=bytearray.fromhex(sys.argv[1]); b[0]^=1; print(b.hex())' "$dn")
"$CUZK" filecoin verify snap --proof-type $P --poseidon --vk "$vk" --proof "$dir/p.bin" --comm-r-old "$ro" \
  --comm-d-new "$other" --comm-r-new "$rn" > /dev/null 2>&1
[ $? -eq 1 ] || fail "a changed comm_d_new must be invalid (exit 1)"
"$CUZK" filecoin inputs snap --proof-type $P --poseidon "${comms[@]}" > "$dir/in.json" || fail "inputs snap --poseidon"
python3 - "$dir/in.json" "$ro" <<'PY' || fail "inputs snap: [[h_select, comm_r_old, comm_d_new, comm_r_new]]"
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 1 and len(rows[0]) == 4, rows
assert rows[0][0] == "1", rows          # h_select = 1 << 0 (hs = [1; 6] at 2 KiB)
assert int(rows[0][1]) == int.from_bytes(bytes.fromhex(sys.argv[2]), "little"), rows
PY

# bad inputs: exit 2, the field named, nothing written
out=$("$CUZK" filecoin snap --proof-type $P --poseidon --vanilla "$dir/gp/partition-0.bin" --comm-r-old "$ro" \
  --comm-d-new "$other" --comm-r-new "$rn" --params-dir "$dir/params" --proof "$dir/bad.bin" 2>&1)
[ $? -eq 2 ] || fail "a comm_d_new the vanilla proof does not prove must exit 2: $out"
echo "$out" | grep -q "partition 0: challenge_proofs\[0\].proof_d_new.root: is not comm_d_new" || fail "names the field: $out"
head -c 1000 "$dir/gp/partition-0.bin" > "$dir/short.bin"
out=$("$CUZK" filecoin snap --proof-type $P --poseidon --vanilla "$dir/short.bin" "${comms[@]}" \
  --params-dir "$dir/params" --proof "$dir/bad.bin" 2>&1)
[ $? -eq 2 ] || fail "a truncated vanilla proof must exit 2"
echo "$out" | grep -Eq "short.bin: challenge_proofs.*(truncated|bytes left)" || fail "names the file, the field and the truncation: $out"
head -c 1000 "$dir/gpj/partition-0.json" > "$dir/short.json"
out=$("$CUZK" filecoin snap --proof-type $P --poseidon --vanilla "$dir/short.json" "${comms[@]}" \
  --params-dir "$dir/params" --proof "$dir/bad.bin" 2>&1)
[ $? -eq 2 ] || fail "a truncated JSON vanilla proof must exit 2"
echo "$out" | grep -q "short.json: challenge_proofs\[0\].*unexpected end of input" \
  || fail "names the file, the JSON field and the truncation: $out"
out=$("$CUZK" filecoin snap --proof-type $P --poseidon --vanilla "$dir/gp/partition-0.bin" "$dir/gp/partition-0.bin" \
  "${comms[@]}" --params-dir "$dir/params" --proof "$dir/bad.bin" 2>&1)
[ $? -eq 2 ] || fail "two partition proofs for one partition must exit 2"
echo "$out" | grep -q "2 partition proofs, the update has 1" || fail "names the count: $out"
[ ! -e "$dir/bad.bin" ] || fail "nothing written on error"
fi

# ---- SHA-256 variant ----
"$CUZK" filecoin snap-gen --proof-type $P --seed 8 --out-dir "$dir/gs" --json > /dev/null || fail "snap-gen"
so=$(json "$dir/gs/snap.json" comm_r_old); sd=$(json "$dir/gs/snap.json" comm_d_new); sn=$(json "$dir/gs/snap.json" comm_r_new)
scomms=(--comm-r-old "$so" --comm-d-new "$sd" --comm-r-new "$sn")
if [ "$mode" != sha256-full ]; then  # the quick checks (they use the Poseidon part's files)
out=$("$CUZK" filecoin snap --proof-type $P --vanilla "$dir/gs/partition-0.bin" "${scomms[@]}" \
  --params-dir "$dir/params" --proof "$dir/s.bin" 2>&1)
[ $? -eq 2 ] || fail "snap without SHA-256-variant parameters must exit 2: $out"
echo "$out" | grep -q "v28-empty-sector-update-merkletree" || fail "the vanilla proof is accepted, the key is missing: $out"
out=$("$CUZK" filecoin snap --proof-type $P --vanilla "$dir/gs/partition-0.bin" --comm-r-old "$ro" --comm-d-new "$sd" \
  --comm-r-new "$sn" --params-dir "$dir/params" --proof "$dir/s.bin" 2>&1)
[ $? -eq 2 ] || fail "another comm_r_old must exit 2"
echo "$out" | grep -q "is not comm_r_old" || fail "names comm_r_old: $out"
out=$("$CUZK" filecoin snap --proof-type $P --vanilla "$dir/gp/partition-0.bin" "${scomms[@]}" \
  --params-dir "$dir/params" --proof "$dir/s.bin" 2>&1)
[ $? -eq 2 ] || fail "a Poseidon-variant vanilla proof read as the SHA-256 layout must exit 2: $out"
[ ! -e "$dir/s.bin" ] || fail "nothing written on error"
"$CUZK" filecoin inputs snap --proof-type $P "${scomms[@]}" | grep -q '^\[\["1","' || fail "inputs snap: k_and_h_select = 1"
fi

if [ "$mode" = sha256-full ] || [ "${CUZK_SNAP_SHA256_ROUNDTRIP:-0}" = 1 ]; then
  if [ -n "${CUZK_FILECOIN_TEST_PARAMS:-}" ] && [ -e "$CUZK_FILECOIN_TEST_PARAMS/complete" ]; then
    # the build's shared test parameters (tests/filecoin_test_params.sh, seed 24)
    svk=$(json "$CUZK_FILECOIN_TEST_PARAMS/gen-24.json" vk)
    mkdir -p "$dir/params"
    for ext in params vk meta; do ln -s "${svk%.vk}.$ext" "$dir/params/$(basename "${svk%.vk}").$ext"; done
  else
    "$CUZK" filecoin params gen --proof-type $P --update --out "$dir/params" --json > "$dir/ps.json" \
      || fail "params gen --update"
    svk=$(json "$dir/ps.json" vk)
  fi
  "$CUZK" filecoin snap --proof-type $P --vanilla "$dir/gs/partition-0.bin" "${scomms[@]}" --params-dir "$dir/params" \
    --unchecked-params --proof "$dir/s.bin" --json | grep -q '"verified":true' || fail "snap"
  "$CUZK" filecoin verify snap --proof-type $P --vk "$svk" --proof "$dir/s.bin" "${scomms[@]}" > /dev/null \
    || fail "verify snap"
  sother=$(python3 -c 'import sys; b=bytearray.fromhex(sys.argv[1]); b[0]^=1; print(b.hex())' "$sd")
  "$CUZK" filecoin verify snap --proof-type $P --vk "$svk" --proof "$dir/s.bin" --comm-r-old "$so" \
    --comm-d-new "$sother" --comm-r-new "$sn" > /dev/null 2>&1
  [ $? -eq 1 ] || fail "a changed comm_d_new must be invalid (SHA-256 variant)"
  echo "SHA-256 variant: full round trip done"
fi
echo "all checks passed"
