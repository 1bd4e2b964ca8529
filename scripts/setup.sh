#!/usr/bin/env bash
# Installs what cuzk needs to build and test, with apt-get, only where something is missing (idempotent).
# CUDA is not installed here: when nvcc is present (PATH or /usr/local/cuda) the GPU code is built as well.
set -euo pipefail

packages=(
  build-essential g++ cmake ninja-build pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  libgmp-dev libssl-dev
  libcli11-dev nlohmann-json3-dev
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc libsqlite3-dev libtomlplusplus-dev
  clang  # the libFuzzer harnesses (scripts/fuzz.sh), which the test script runs for 20 s each
)
# The circom/snarkjs interop tests run snarkjs and circom2 from npm. A node from elsewhere (nodesource, nvm) is kept.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  packages+=(nodejs npm)
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
updated=0

missing_of() {  # the packages named that are not installed
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then echo "$p"; fi
  done
}
install() {
  echo "setup: installing $*"
  if [ $updated = 0 ]; then $SUDO apt-get update -qq; updated=1; fi
  $SUDO apt-get install -y -qq --no-install-recommends "$@"
}

mapfile -t missing < <(missing_of "${packages[@]}")
[ ${#missing[@]} -eq 0 ] || install "${missing[@]}"
# libFuzzer's runtime is only a recommendation of clang's, and named by its version: the installed clang's one.
clang_major=$(clang++ -dumpversion 2>/dev/null | cut -d. -f1)
if [ -n "$clang_major" ]; then
  mapfile -t missing < <(missing_of "libclang-rt-$clang_major-dev")
  [ ${#missing[@]} -eq 0 ] || install "${missing[@]}"
fi
[ $updated = 1 ] || echo "setup: all packages present"
