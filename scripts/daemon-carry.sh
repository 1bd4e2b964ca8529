#!/usr/bin/env bash
# The device host has no gRPC, protobuf, SQLite or toml++, so `cuzk daemon` cannot be built there. This copies a
# cuzk built here with CUDA and the daemon (cmake -DCUZK_CUDA=ON -DCUZK_DAEMON=ON) and the shared libraries it needs
# beyond the C/C++ runtime and CUDA into DEST (about 40 MB), to be carried to the device and run with
# LD_LIBRARY_PATH=DEST/lib (scripts/gpu-daemon.sh). Usage: scripts/daemon-carry.sh BUILD_DIR DEST
set -euo pipefail
build=$1
dest=$2
[ -x "$build/cuzk" ] || { echo "no $build/cuzk"; exit 2; }
ldd "$build/cuzk" | grep -q libgrpc || { echo "$build/cuzk was built without the daemon"; exit 2; }
rm -rf "$dest" && mkdir -p "$dest/lib"
cp "$build/cuzk" "$dest/cuzk"
ldd "$build/cuzk" | awk '/=>/ {print $3}' |
  grep -v -E 'libc\.so|libm\.so|libgcc_s|libstdc\+\+|ld-linux|libcudart|libpthread|libdl\.so|librt\.so' |
  xargs -I{} cp -L {} "$dest/lib/"
du -sh "$dest"
