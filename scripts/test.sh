#!/usr/bin/env bash
# Installs what is missing, configures, builds and runs the whole test suite (ctest), then every fuzz harness for
# FUZZ_SECONDS each (default 20; 0 skips; their clang + sanitizer build is its own, in build-fuzz).
# Usage: scripts/test.sh [extra ctest args]   (BUILD_DIR=build by default; CUZK_CUDA=AUTO|ON|OFF; CUZK_CUDA_ARCHS
# native by default: this machine's GPUs, or sm_90 alone without one, as the GPU tests run here or nowhere)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA="${CUZK_CUDA:-AUTO}" \
  -DCUZK_CUDA_ARCHS="${CUZK_CUDA_ARCHS:-native}"
cmake --build "$BUILD_DIR" --parallel "$(nproc)"
ctest --test-dir "$BUILD_DIR" --output-on-failure --parallel "$(nproc)" "$@"
if [ "${FUZZ_SECONDS:-20}" != 0 ]; then
  scripts/fuzz.sh "${FUZZ_SECONDS:-20}"
fi
