#!/usr/bin/env bash
# Builds cuzk and runs its main job: a self-check of the arithmetic (the GPU against the CPU when a CUDA device is
# present), then demo Groth16 proofs — setup, prove a batch of two 2^16-constraint circuits, verify; the same for two
# partitions of the PoRep-shaped preset porep-128k, then the same PoRep C2 job through the daemon (gRPC on a unix
# socket) — then Filecoin's real circuits (a 2 KiB sector sealed natively, its C1 checked, its public inputs; the
# 32 GiB PoRep, PoSt and SnapDeals circuits counted by synthesis) and a few quick benchmarks. Proofs are made on the GPU when one is present, else on the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA="${CUZK_CUDA:-AUTO}"
cmake --build "$BUILD_DIR" --parallel "$(nproc)" --target cuzk_cli
CUZK="$BUILD_DIR/cuzk"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$CUZK" info
"$CUZK" selfcheck
echo "== demo proof: a 2^16-constraint multiplication chain, batch of 2"
"$CUZK" setup --circuit mulchain --log-size 16 --publics 4 --params "$work/demo.params" --vk "$work/demo.vk"
"$CUZK" prove --circuit mulchain --log-size 16 --publics 4 --params "$work/demo.params" --batch 2 \
  --proof "$work/demo.proof" --public "$work/demo.public.json"
"$CUZK" verify --vk "$work/demo.vk" --proof "$work/demo.proof" --public "$work/demo.public.json"
echo "== demo proof: two partitions of the PoRep-shaped circuit porep-128k (124,936 constraints each)"
"$CUZK" setup --circuit porep-128k --params "$work/porep.params" --vk "$work/porep.vk" 2>/dev/null
# The parameters were just made here, so their subgroup checks can be skipped (--unchecked-params).
"$CUZK" prove --circuit porep-128k --batch 2 --params "$work/porep.params" --unchecked-params \
  --proof "$work/porep.proof" --public "$work/porep.public.json"
"$CUZK" verify --vk "$work/porep.vk" --proof "$work/porep.proof" --public "$work/porep.public.json"
if "$CUZK" daemon --help 2>/dev/null | grep -q -- --config; then
  echo "== the daemon: a porep-c2 job (every partition of a porep-128k replica) over gRPC"
  mkdir -p "$work/state"
  printf '[paths]\nparams = "%s"\nstate = "%s"\n[engine]\ncheck_params = false\n' "$work" "$work/state" > "$work/cuzk.toml"
  "$CUZK" daemon --config "$work/cuzk.toml" 2> "$work/daemon.log" &
  daemon_pid=$!
  for _ in $(seq 100); do [ -S "$work/state/cuzk.sock" ] && break; sleep 0.1; done
  "$CUZK" client --socket "$work/state/cuzk.sock" prove --circuit porep-c2 --preset porep-128k --params porep.params \
    --proof "$work/c2.proof" --public "$work/c2.public.json" --quiet
  "$CUZK" verify --vk "$work/porep.vk" --proof "$work/c2.proof" --public "$work/c2.public.json"
  kill -TERM "$daemon_pid"; wait "$daemon_pid"
  sed 's/^/  daemon log: /' "$work/daemon.log"
fi
echo "== Filecoin's real circuits: a 2 KiB sector sealed, its C1 checked and its public inputs; the 32 GiB circuits counted"
z=0000000000000000000000000000000000000000000000000000000000000000
sealed=$("$CUZK" filecoin seal --proof-type StackedDrg2KiBV1_1 --zero --prover-id "$z" --sector-id 7 --ticket "$z" \
  --seed "$z" --c1 "$work/c1.json")
echo "$sealed"
"$CUZK" filecoin c1-check --c1 "$work/c1.json"
field() { echo "$sealed" | sed "s/.*\"$1\":\"\([0-9a-f]*\)\".*/\1/"; }
"$CUZK" filecoin inputs porep --proof-type StackedDrg2KiBV1_1 --prover-id "$z" --sector-id 7 --ticket "$z" --seed "$z" \
  --comm-d "$(field comm_d)" --comm-r "$(field comm_r)" --json
for c in porep window-post winning-post snap; do "$CUZK" filecoin circuit-info --circuit "$c" --sector-size 32GiB --json; done
echo "== quick benchmarks (JSON)"
"$CUZK" bench all --quick
