#!/usr/bin/env bash
# Builds the circom/snarkjs fixtures the interop tests share (ctest fixture "circom"):
#   npm ci of the pinned snarkjs 0.7.6 + circom2 0.2.23 (tests/circom/package-lock.json) into OUT/node,
#   the circuits of tests/circom compiled with --prime bls12381, one powers-of-tau ceremony at 2^POWER for the
#   whole run (new, one contribution, prepare phase2), then per circuit: groth16 setup, one zkey contribution (so
#   delta is not the generator), the verification key, the witness, and a snarkjs proof with its public signals.
# Output in OUT/fixtures: NAME.{r1cs,wtns,zkey,vk.json,proof.json,public.json} and circuits.txt (written last).
# Usage: make_fixtures.sh OUT_DIR          (env: CUZK_CIRCOM_POWER, default 11)
# Fails loudly when node/npm or the npm registry is unavailable: a skipped interop test would hide a break.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: make_fixtures.sh OUT_DIR}
power=${CUZK_CIRCOM_POWER:-11}
mkdir -p "$out"
out=$(cd "$out" && pwd)

for tool in node npm; do
  if ! command -v "$tool" >/dev/null; then
    echo "make_fixtures: error: '$tool' not found; the circom interop tests need node and npm (scripts/setup.sh installs them)" >&2
    exit 1
  fi
done

# 1. Pinned tools, reinstalled only when the lock file changed.
mkdir -p "$out/node"
if ! cmp -s "$here/package-lock.json" "$out/node/package-lock.json" || [ ! -x "$out/node/node_modules/.bin/snarkjs" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$out/node/"
  echo "make_fixtures: npm ci (snarkjs, circom2) into $out/node"
  if ! (cd "$out/node" && npm ci --no-audit --no-fund --cache "$out/npm-cache" >npm.log 2>&1); then
    cat "$out/node/npm.log" >&2
    echo "make_fixtures: error: npm ci failed (network or registry unavailable?)" >&2
    exit 1
  fi
fi
snarkjs="$out/node/node_modules/.bin/snarkjs"
circom="$out/node/node_modules/.bin/circom2"

fix="$out/fixtures"
work="$out/work"
rm -rf "$fix" "$work"
mkdir -p "$fix" "$work"
log="$out/fixtures.log"
: >"$log"
run() {
  if ! "$@" >>"$log" 2>&1; then
    tail -30 "$log" >&2
    echo "make_fixtures: error: failed: $*" >&2
    exit 1
  fi
}

# 2. The powers of tau, once for the run.
t0=$(date +%s)
run "$snarkjs" powersoftau new bls12381 "$power" "$work/pot_0.ptau"
run "$snarkjs" powersoftau contribute "$work/pot_0.ptau" "$work/pot_1.ptau" --name=cuzk-test -e="cuzk test entropy 1"
run "$snarkjs" powersoftau prepare phase2 "$work/pot_1.ptau" "$work/pot.ptau"
echo "make_fixtures: powers of tau 2^$power in $(( $(date +%s) - t0 )) s"

# 3. The circuits. mul_chain.circom takes its length from MUL_CHAIN_LENGTH.
sed 's/MUL_CHAIN_LENGTH/1000/' "$here/mul_chain.circom" >"$work/mul_chain.circom"
cp "$here/multi_io.circom" "$here/range_check.circom" "$work/"
names=(mul_chain multi_io range_check)
for name in "${names[@]}"; do
  t0=$(date +%s)
  run "$circom" "$work/$name.circom" --r1cs --wasm --prime bls12381 -o "$work"
  node -e 'const all = require(process.argv[1]); process.stdout.write(JSON.stringify(all[process.argv[2]]));' \
    "$here/inputs.json" "$name" >"$work/$name.input.json"
  run "$snarkjs" groth16 setup "$work/$name.r1cs" "$work/pot.ptau" "$work/${name}_0.zkey"
  run "$snarkjs" zkey contribute "$work/${name}_0.zkey" "$fix/$name.zkey" --name=cuzk-test -e="cuzk zkey entropy $name"
  run "$snarkjs" zkey export verificationkey "$fix/$name.zkey" "$fix/$name.vk.json"
  run "$snarkjs" wtns calculate "$work/${name}_js/$name.wasm" "$work/$name.input.json" "$fix/$name.wtns"
  run "$snarkjs" groth16 prove "$fix/$name.zkey" "$fix/$name.wtns" "$fix/$name.proof.json" "$fix/$name.public.json"
  run "$snarkjs" groth16 verify "$fix/$name.vk.json" "$fix/$name.public.json" "$fix/$name.proof.json"
  cp "$work/$name.r1cs" "$fix/"
  echo "make_fixtures: $name in $(( $(date +%s) - t0 )) s"
done
printf '%s\n' "${names[@]}" >"$fix/circuits.txt"
echo "make_fixtures: fixtures ready in $fix"
