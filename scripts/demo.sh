#!/usr/bin/env bash
# Builds cuzk and runs its main job: a self-check of the arithmetic (the GPU against the CPU when a CUDA device is
# present), then a demo Groth16 proof (setup, prove a batch of two 2^16-constraint circuits, verify), then Filecoin's
# PoRep C2 of a 2 KiB sector: sealed natively (its C1 checked, its public inputs), test parameters of the exact
# partition circuit (generated once into a cache directory: about a minute on 2 cores the first time), the C2 proof, verified
# from the C1; the same C1 through the daemon (gRPC on a unix socket, Curio's request); Filecoin's
# 32 GiB PoRep, PoSt and SnapDeals circuits counted by synthesis; a few quick benchmarks. Proofs are made on the GPU
# when one is present, else on the CPU.
#
# The parameter cache: $FIL_PROOFS_PARAMETER_CACHE when it already holds the 2 KiB files (Filecoin's, or earlier
# ones), else ~/.cache/cuzk/filecoin-proof-parameters, where they are generated when missing (cuzk's test parameters,
# never written into Filecoin's own cache).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA="${CUZK_CUDA:-AUTO}" \
  -DCUZK_CUDA_ARCHS="${CUZK_CUDA_ARCHS:-native}"
cmake --build "$BUILD_DIR" --parallel "$(nproc)" --target cuzk_cli
CUZK="$BUILD_DIR/cuzk"
work=$(mktemp -d)
gen_tmp=
trap 'rm -rf "$work" ${gen_tmp:+"$gen_tmp"}' EXIT

"$CUZK" info
"$CUZK" selfcheck
echo "== demo proof: a 2^16-constraint multiplication chain, batch of 2"
"$CUZK" setup --circuit mulchain --log-size 16 --publics 4 --params "$work/demo.params" --vk "$work/demo.vk"
"$CUZK" prove --circuit mulchain --log-size 16 --publics 4 --params "$work/demo.params" --batch 2 \
  --proof "$work/demo.proof" --public "$work/demo.public.json"
"$CUZK" verify --vk "$work/demo.vk" --proof "$work/demo.proof" --public "$work/demo.public.json"
echo "== Filecoin's PoRep C2 of a 2 KiB sector: sealed natively, its C1 checked and its public inputs"
z=0000000000000000000000000000000000000000000000000000000000000000
sealed=$("$CUZK" filecoin seal --proof-type StackedDrg2KiBV1_1 --zero --prover-id "$z" --sector-id 7 --ticket "$z" \
  --seed "$z" --c1 "$work/c1.json")
echo "$sealed"
"$CUZK" filecoin c1-check --c1 "$work/c1.json"
field() { echo "$sealed" | sed "s/.*\"$1\":\"\([0-9a-f]*\)\".*/\1/"; }
"$CUZK" filecoin inputs porep --proof-type StackedDrg2KiBV1_1 --prover-id "$z" --sector-id 7 --ticket "$z" --seed "$z" \
  --comm-d "$(field comm_d)" --comm-r "$(field comm_r)" --json
# Filecoin's name of the 2 KiB PoRep parameter files (v28, StackedDrg2KiBV1_1's public parameters).
name=v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f
params=$HOME/.cache/cuzk/filecoin-proof-parameters
if [ -n "${FIL_PROOFS_PARAMETER_CACHE:-}" ] && [ -s "$FIL_PROOFS_PARAMETER_CACHE/$name.params" ] &&
   [ -s "$FIL_PROOFS_PARAMETER_CACHE/$name.vk" ]; then
  params=$FIL_PROOFS_PARAMETER_CACHE
fi
if [ ! -s "$params/$name.params" ] || [ ! -s "$params/$name.vk" ]; then
  echo "== test parameters of the 2 KiB PoRep partition circuit (2,687,921 rows, a 2^22 setup) into $params:"
  echo "   this takes about a minute the first time (65 s on 2 cores); later runs reuse them"
  mkdir -p "$params"
  gen_tmp=$(mktemp -d "$params/.gen.XXXXXX")  # renamed into place when complete: an interrupted run leaves nothing
  "$CUZK" filecoin params gen --proof-type StackedDrg2KiBV1_1 --out "$gen_tmp" --json
  mv "$gen_tmp/$name.vk" "$gen_tmp/$name.meta" "$params/"
  mv "$gen_tmp/$name.params" "$params/"
  rmdir "$gen_tmp"
  gen_tmp=
fi
echo "== cuzk filecoin c2: the sector's C2 proof with the parameters of $params (verified before it is written)"
"$CUZK" filecoin c2 --c1 "$work/c1.json" --params-dir "$params" --proof "$work/c2.proof" --json
"$CUZK" filecoin verify porep --vk "$params/$name.vk" --proof "$work/c2.proof" --c1 "$work/c1.json"
if "$CUZK" daemon --help 2>/dev/null | grep -q -- --config; then
  echo "== the daemon: the same sector's C2 over gRPC as Curio asks for it (POREP_SEAL_COMMIT, miner f00, sector 7)"
  mkdir -p "$work/state"
  printf '[paths]\nparams = "%s"\nstate = "%s"\ncircuits = "%s"\n[engine]\ncheck_params = false\n' \
    "$params" "$work/state" "$work/circuits" > "$work/cuzk.toml"
  "$CUZK" daemon --config "$work/cuzk.toml" 2> "$work/daemon.log" &
  daemon_pid=$!
  for _ in $(seq 100); do [ -S "$work/state/cuzk.sock" ] && break; sleep 0.1; done
  "$CUZK" client --socket "$work/state/cuzk.sock" prove --kind porep-c2 --registered-proof 5 --sector-size 2048 \
    --c1 "$work/c1.json" --miner-id 0 --sector-number 7 --request-id porep-0-7 --proof "$work/d.proof" --quiet
  "$CUZK" filecoin verify porep --vk "$params/$name.vk" --proof "$work/d.proof" --c1 "$work/c1.json"
  kill -TERM "$daemon_pid"; wait "$daemon_pid"
  sed 's/^/  daemon log: /' "$work/daemon.log"
fi
echo "== Filecoin's 32 GiB circuits counted by synthesis"
for c in porep window-post winning-post snap; do "$CUZK" filecoin circuit-info --circuit "$c" --sector-size 32GiB --json; done
echo "== quick benchmarks (JSON)"
"$CUZK" bench all --quick
