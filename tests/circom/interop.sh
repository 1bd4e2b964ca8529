#!/usr/bin/env bash
# circom/snarkjs interop end to end, on the fixtures of make_fixtures.sh (ctest fixture "circom"):
#   cuzk prove (rapidsnark argument order) -> snarkjs groth16 verify accepts, cuzk verify accepts;
#   snarkjs's own proof -> cuzk verify accepts; cuzk's public.json is byte-identical to snarkjs's;
#   a tampered public.json -> both verifiers reject (cuzk exit 1); cuzk's verification_key.json export is
#   byte-identical to snarkjs's; a witness of another circuit is refused (exit 2, nothing written);
#   prove --backend cpu --json names its backend and its proof verifies.
# Usage: interop.sh CUZK_BIN OUT_DIR   (OUT_DIR as given to make_fixtures.sh)
set -euo pipefail
cuzk=${1:?usage: interop.sh CUZK_BIN OUT_DIR}
out=${2:?usage: interop.sh CUZK_BIN OUT_DIR}
fix="$out/fixtures"
snarkjs="$out/node/node_modules/.bin/snarkjs"
[ -f "$fix/circuits.txt" ] || { echo "interop: no fixtures in $fix (run make_fixtures.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "interop: FAILED: $*" >&2; exit 1; }
snarkjs_accepts() { "$snarkjs" groth16 verify "$1" "$2" "$3" >"$tmp/sj.log" 2>&1 && grep -q "OK!" "$tmp/sj.log"; }
cuzk_verify() { set +e; "$cuzk" verify "$1" "$2" "$3" >"$tmp/cv.log" 2>&1; local rc=$?; set -e; echo $rc; }

prev=""
while read -r name; do
  [ -n "$name" ] || continue
  vk="$fix/$name.vk.json"
  "$cuzk" prove "$fix/$name.zkey" "$fix/$name.wtns" "$tmp/$name.proof.json" "$tmp/$name.public.json" >/dev/null ||
    fail "$name: cuzk prove exited $?"
  cmp -s "$tmp/$name.public.json" "$fix/$name.public.json" || fail "$name: public.json differs from snarkjs's"
  # --backend (before the files, as a flag with a value) and --json, which names the engine's backend
  "$cuzk" prove --backend cpu --json "$fix/$name.zkey" "$fix/$name.wtns" "$tmp/c.proof.json" "$tmp/c.public.json" \
    >"$tmp/c.log" || fail "$name: cuzk prove --backend cpu exited $?"
  grep -q '"backend":"cpu"' "$tmp/c.log" || fail "$name: prove --json must name the backend: $(cat "$tmp/c.log")"
  # It restarted itself with the allocator settings of a one-shot prove, unless told not to.
  grep -q '"glibc_tunables":"[^"]*hugetlb=1' "$tmp/c.log" || fail "$name: prove ran without its allocator settings"
  CUZK_NO_MALLOC_TUNING=1 "$cuzk" prove --backend cpu --json "$fix/$name.zkey" "$fix/$name.wtns" "$tmp/c.proof.json" \
    "$tmp/c.public.json" | grep -q '"glibc_tunables":""' || fail "$name: CUZK_NO_MALLOC_TUNING=1 must keep glibc's defaults"
  cmp -s "$tmp/c.public.json" "$fix/$name.public.json" || fail "$name: public.json (--backend cpu) differs"
  [ "$(cuzk_verify "$vk" "$tmp/c.public.json" "$tmp/c.proof.json")" = 0 ] || fail "$name: cuzk rejects its --backend cpu proof"
  snarkjs_accepts "$vk" "$tmp/$name.public.json" "$tmp/$name.proof.json" ||
    { cat "$tmp/sj.log"; fail "$name: snarkjs rejects cuzk's proof"; }
  [ "$(cuzk_verify "$vk" "$tmp/$name.public.json" "$tmp/$name.proof.json")" = 0 ] || fail "$name: cuzk rejects its own proof"
  [ "$(cuzk_verify "$vk" "$fix/$name.public.json" "$fix/$name.proof.json")" = 0 ] ||
    { cat "$tmp/cv.log"; fail "$name: cuzk rejects snarkjs's proof"; }

  # Tamper: the first public signal plus one.
  node -e 'const fs = require("fs"); const p = JSON.parse(fs.readFileSync(process.argv[1]));
           p[0] = (BigInt(p[0]) + 1n).toString(); fs.writeFileSync(process.argv[2], JSON.stringify(p, null, 1));' \
    "$fix/$name.public.json" "$tmp/tampered.json"
  ! snarkjs_accepts "$vk" "$tmp/tampered.json" "$tmp/$name.proof.json" || fail "$name: snarkjs accepts a tampered public.json"
  [ "$(cuzk_verify "$vk" "$tmp/tampered.json" "$tmp/$name.proof.json")" = 1 ] || fail "$name: cuzk accepts a tampered public.json (cuzk's proof)"
  [ "$(cuzk_verify "$vk" "$tmp/tampered.json" "$fix/$name.proof.json")" = 1 ] || fail "$name: cuzk accepts a tampered public.json (snarkjs's proof)"

  "$cuzk" zkey export-verificationkey "$fix/$name.zkey" "$tmp/vk.json"
  cmp -s "$tmp/vk.json" "$vk" || fail "$name: exported verification_key.json differs from snarkjs's"

  if [ -n "$prev" ]; then
    set +e
    "$cuzk" prove "$fix/$name.zkey" "$fix/$prev.wtns" "$tmp/x.json" "$tmp/y.json" 2>"$tmp/err.log"
    rc=$?
    set -e
    [ "$rc" = 2 ] || fail "$name: a witness of $prev gave exit $rc, not 2"
    [ ! -e "$tmp/x.json" ] && [ ! -e "$tmp/y.json" ] || fail "$name: a witness of $prev: nothing may be written"
  fi
  # A zkey made by cuzk (test toxic waste): snarkjs proves with it, and each verifier accepts the other's proof.
  "$cuzk" zkey new "$fix/$name.r1cs" "$tmp/made.zkey" --seed 11
  "$cuzk" zkey export-verificationkey "$tmp/made.zkey" "$tmp/made.vk.json"
  "$snarkjs" groth16 prove "$tmp/made.zkey" "$fix/$name.wtns" "$tmp/mp.json" "$tmp/mpub.json" >/dev/null 2>&1 ||
    fail "$name: snarkjs cannot prove with a cuzk-made zkey"
  [ "$(cuzk_verify "$tmp/made.vk.json" "$tmp/mpub.json" "$tmp/mp.json")" = 0 ] || fail "$name: cuzk rejects snarkjs's proof on a cuzk-made zkey"
  "$cuzk" prove "$tmp/made.zkey" "$fix/$name.wtns" "$tmp/cmp.json" "$tmp/cmpub.json" >/dev/null
  snarkjs_accepts "$tmp/made.vk.json" "$tmp/cmpub.json" "$tmp/cmp.json" || fail "$name: snarkjs rejects cuzk's proof on a cuzk-made zkey"

  prev=$name
  echo "interop: $name ok"
done <"$fix/circuits.txt"
# A BN254 witness (circom's default prime) is refused with a message that names the curve.
here=$(cd "$(dirname "$0")" && pwd)
"$out/node/node_modules/.bin/circom2" "$here/multi_io.circom" --r1cs --wasm -o "$tmp" >/dev/null
node -e 'process.stdout.write(JSON.stringify(require(process.argv[1]).multi_io))' "$here/inputs.json" >"$tmp/in.json"
"$snarkjs" wtns calculate "$tmp/multi_io_js/multi_io.wasm" "$tmp/in.json" "$tmp/bn.wtns" >/dev/null
set +e
"$cuzk" prove "$fix/multi_io.zkey" "$tmp/bn.wtns" "$tmp/x.json" "$tmp/y.json" 2>"$tmp/err.log"
rc=$?
set -e
[ "$rc" = 2 ] && grep -q "BN254" "$tmp/err.log" || { cat "$tmp/err.log"; fail "a BN254 witness gave exit $rc"; }
echo "interop: BN254 witness refused: $(cat "$tmp/err.log")"
echo "all circom interop checks passed"
