#!/usr/bin/env bash
# Builds cuzk and runs its main job. Today that is a self-check of the arithmetic (CPU, and GPU against CPU
# when a CUDA device is present) followed by a small benchmark; later it becomes a demo proof.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA="${CUZK_CUDA:-AUTO}"
cmake --build "$BUILD_DIR" --parallel "$(nproc)" --target cuzk_cli
CUZK="$BUILD_DIR/cuzk"
"$CUZK" info
"$CUZK" selfcheck
"$CUZK" bench all --quick
