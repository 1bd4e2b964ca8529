#!/usr/bin/env bash
# Installs what is missing, configures, builds and runs the whole test suite (ctest).
# Usage: scripts/test.sh [extra ctest args]   (BUILD_DIR=build by default; CUZK_CUDA=AUTO|ON|OFF)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA="${CUZK_CUDA:-AUTO}"
cmake --build "$BUILD_DIR" --parallel "$(nproc)"
ctest --test-dir "$BUILD_DIR" --output-on-failure --parallel "$(nproc)" "$@"
