#!/usr/bin/env bash
# Filecoin's Winning and Window PoSt end to end through the `cuzk` program at 2 KiB: test parameters of the exact
# circuits (params gen), random sectors and their bincode vanilla proofs (post-gen), the proof (post, through the
# engine, GPU where present), verify from the sectors' ids and comm_r; the one-sector partition from the same
# vanilla proof as serde_json JSON (post-gen --vanilla-json); then the bad inputs: other randomness than the vanilla
# proofs were made for, a truncated vanilla proof (bincode and JSON), a proof against another sector (invalid, exit
# 1), missing parameters; nothing written on error.
set -u
CUZK=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
rand=0505050505050505050505050505050505050505050505050505050505050505
other=0606060606060606060606060606060606060606060606060606060606060606
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }

# ---- Window PoSt: two sectors in the partition ----
W=StackedDrgWindow2KiBV1_2
out=$("$CUZK" filecoin post --proof-type $W --vanilla /dev/null --randomness $rand --params-dir "$dir/none" \
  --proof "$dir/w.bin" 2>&1)
[ $? -eq 2 ] || fail "post with an empty vanilla proof must exit 2: $out"
for i in 0 1; do
  "$CUZK" filecoin post-gen --proof-type $W --randomness $rand --sector-id $((10 + i)) --sector-index $i \
    --seed $((40 + i)) --out "$dir/v$i.bin" --json > "$dir/gen$i.json" || fail "post-gen $i"
done
c0=$(json "$dir/gen0.json" comm_r); c1=$(json "$dir/gen1.json" comm_r)

out=$("$CUZK" filecoin post --proof-type $W --vanilla "$dir/v0.bin" "$dir/v1.bin" --randomness $rand \
  --params-dir "$dir/params" --proof "$dir/w.bin" 2>&1)
[ $? -eq 2 ] || fail "post without parameters must exit 2"
echo "$out" | grep -q "v28-proof-of-spacetime-fallback" || fail "the missing file's name: $out"
[ ! -e "$dir/w.bin" ] || fail "no proof file without parameters"

"$CUZK" filecoin params gen --proof-type $W --out "$dir/params" --json > "$dir/pw.json" || fail "params gen $W"
grep -q '"ic":23' "$dir/pw.json" || fail "2 KiB Window PoSt parameters have 2 x 11 + 1 IC points: $(cat "$dir/pw.json")"
FIL_PROOFS_PARAMETER_CACHE="$dir/params" "$CUZK" filecoin post --proof-type $W --vanilla "$dir/v0.bin" "$dir/v1.bin" \
  --randomness $rand --proof "$dir/w.bin" --json > "$dir/w.json" || fail "post $W"
grep -q '"verified":true' "$dir/w.json" || fail "post verifies before it writes: $(cat "$dir/w.json")"
[ "$(stat -c %s "$dir/w.bin")" -eq 192 ] || fail "one partition, 192 bytes"
wvk=$(json "$dir/pw.json" vk)
"$CUZK" filecoin params check --proof-type $W --params-dir "$dir/params" --json | grep -q '"valid":true' \
  || fail "params check $W"
"$CUZK" filecoin verify post --proof-type $W --vk "$wvk" --proof "$dir/w.bin" --randomness $rand \
  --sector 10:$c0 --sector 11:$c1 || fail "verify $W"
"$CUZK" filecoin verify post --proof-type $W --vk "$wvk" --proof "$dir/w.bin" --randomness $rand \
  --sector 12:$c0 --sector 11:$c1 > /dev/null
[ $? -eq 1 ] || fail "another sector id must be invalid (exit 1)"
"$CUZK" filecoin verify post --proof-type $W --vk "$wvk" --proof "$dir/w.bin" --randomness $other \
  --sector 10:$c0 --sector 11:$c1 > /dev/null
[ $? -eq 1 ] || fail "other randomness must be invalid (exit 1)"

# one sector: the partition is padded with it; its vanilla proof as JSON this time (the same seed, the same proof)
"$CUZK" filecoin post-gen --proof-type $W --randomness $rand --sector-id 10 --sector-index 0 --seed 40 \
  --out "$dir/v0.json" --vanilla-json --json > "$dir/gen0j.json" || fail "post-gen --vanilla-json"
[ "$(json "$dir/gen0j.json" comm_r)" = "$c0" ] || fail "the JSON vanilla proof is the bincode one's sector"
head -c 1 "$dir/v0.json" | grep -q '{' || fail "post-gen --vanilla-json writes JSON"
"$CUZK" filecoin post --proof-type $W --vanilla "$dir/v0.json" --randomness $rand --params-dir "$dir/params" \
  --proof "$dir/w1.bin" > /dev/null || fail "post $W with one sector, from JSON"
"$CUZK" filecoin verify post --proof-type $W --vk "$wvk" --proof "$dir/w1.bin" --randomness $rand \
  --sector 10:$c0 || fail "verify $W, one sector"

# three sectors: two partitions in one job (384 bytes), or partition 1 alone from its sector
"$CUZK" filecoin post-gen --proof-type $W --randomness $rand --sector-id 12 --sector-index 2 --seed 42 \
  --out "$dir/v2.bin" --json > "$dir/gen2.json" || fail "post-gen 2"
c2=$(json "$dir/gen2.json" comm_r)
"$CUZK" filecoin post --proof-type $W --vanilla "$dir/v0.bin" "$dir/v1.bin" "$dir/v2.bin" --randomness $rand \
  --params-dir "$dir/params" --proof "$dir/w3.bin" --json > "$dir/w3.json" || fail "post $W, three sectors"
grep -q '"partitions":2' "$dir/w3.json" || fail "three sectors are two partitions: $(cat "$dir/w3.json")"
[ "$(stat -c %s "$dir/w3.bin")" -eq 384 ] || fail "two partitions, 384 bytes"
"$CUZK" filecoin verify post --proof-type $W --vk "$wvk" --proof "$dir/w3.bin" --randomness $rand \
  --sector 10:$c0 --sector 11:$c1 --sector 12:$c2 || fail "verify $W, two partitions"
"$CUZK" filecoin post --proof-type $W --vanilla "$dir/v2.bin" --partition 1 --randomness $rand \
  --params-dir "$dir/params" --proof "$dir/p1.bin" > /dev/null || fail "post $W, partition 1 alone"
cmp -s <(tail -c 192 "$dir/w3.bin") "$dir/p1.bin" && fail "proofs are randomized: partition 1 twice the same bytes"
head -c 192 "$dir/w3.bin" > "$dir/p0.bin"; cat "$dir/p1.bin" >> "$dir/p0.bin"
"$CUZK" filecoin verify post --proof-type $W --vk "$wvk" --proof "$dir/p0.bin" --randomness $rand \
  --sector 10:$c0 --sector 11:$c1 --sector 12:$c2 || fail "partition 1 proven alone verifies in its place"

# vanilla proofs made for other randomness: refused naming the sector and the challenge
out=$("$CUZK" filecoin post --proof-type $W --vanilla "$dir/v0.bin" --randomness $other --params-dir "$dir/params" \
  --proof "$dir/bad.bin" 2>&1)
[ $? -eq 2 ] || fail "other randomness must exit 2"
echo "$out" | grep -q "sector 10.*proves leaf" || fail "names the sector and the challenge: $out"
head -c 500 "$dir/v1.bin" > "$dir/short.bin"
out=$("$CUZK" filecoin post --proof-type $W --vanilla "$dir/v0.bin" "$dir/short.bin" --randomness $rand \
  --params-dir "$dir/params" --proof "$dir/bad.bin" 2>&1)
[ $? -eq 2 ] || fail "a truncated vanilla proof must exit 2"
echo "$out" | grep -Eq "short.bin: vanilla_proof.*(truncated|bytes left)" || fail "names the file, the field and the truncation: $out"
head -c 3000 "$dir/v0.json" > "$dir/short.json"
out=$("$CUZK" filecoin post --proof-type $W --vanilla "$dir/short.json" --randomness $rand \
  --params-dir "$dir/params" --proof "$dir/bad.bin" 2>&1)
[ $? -eq 2 ] || fail "a truncated JSON vanilla proof must exit 2"
echo "$out" | grep -q "short.json: vanilla_proof.sectors\[0\].inclusion_proofs\[.*unexpected end of input" \
  || fail "names the file, the JSON field and the truncation: $out"
[ ! -e "$dir/bad.bin" ] || fail "nothing written on error"

# ---- Winning PoSt: one sector, 66 challenges ----
N=StackedDrgWinning2KiBV1
"$CUZK" filecoin params gen --proof-type $N --out "$dir/params" --json > "$dir/pn.json" || fail "params gen $N"
grep -q '"ic":133' "$dir/pn.json" || fail "Winning PoSt parameters have 66 x 2 + 1 IC points: $(cat "$dir/pn.json")"
"$CUZK" filecoin post-gen --proof-type $N --randomness $rand --sector-id 77 --seed 9 --out "$dir/n.bin" --json \
  > "$dir/genn.json" || fail "post-gen $N"
cn=$(json "$dir/genn.json" comm_r)
"$CUZK" filecoin post --proof-type $N --vanilla "$dir/n.bin" --randomness $rand --params-dir "$dir/params" \
  --proof "$dir/n.proof" > /dev/null || fail "post $N"
nvk=$(json "$dir/pn.json" vk)
# the Winning file under the Window name: refused from its headers
cp "$dir/params/$(basename "$(json "$dir/pn.json" params)")" "$dir/params/$(basename "$(json "$dir/pw.json" params)")"
"$CUZK" filecoin params check --proof-type $W --params-dir "$dir/params" > /dev/null 2>&1
[ $? -eq 2 ] || fail "another circuit's parameters under the Window name must be refused (exit 2)"
"$CUZK" filecoin verify post --proof-type $N --vk "$nvk" --proof "$dir/n.proof" --randomness $rand \
  --sector 77:$cn || fail "verify $N"
"$CUZK" filecoin verify post --proof-type $N --vk "$wvk" --proof "$dir/n.proof" --randomness $rand \
  --sector 77:$cn > /dev/null 2>&1
[ $? -eq 2 ] || fail "another circuit's key must be an error (exit 2)"
echo "all checks passed"
