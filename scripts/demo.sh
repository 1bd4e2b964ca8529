#!/usr/bin/env bash
# Builds cuzk and runs its main job: a self-check of the arithmetic (the GPU against the CPU when a CUDA device is
# present), then demo Groth16 proofs — setup, prove a batch of two 2^16-constraint circuits, verify; the same for two
# partitions of the PoRep-shaped preset porep-128k — and a few quick benchmarks. (Proving runs on the CPU until the GPU prover lands; see docs/perf.md.)
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
echo "== quick benchmarks (JSON)"
"$CUZK" bench all --quick
