#!/usr/bin/env bash
# Packs a training result folder into xz parts of at most 15 MB that a GPU lease can hand back
# (at most 16 MB a file): PREFIX-aa, PREFIX-ab, ... tools/train/unpack_gpu_result.sh reads them.
#
#   tools/train/pack_result.sh SRC_DIR PREFIX      # e.g. PREFIX = OUT/result.tar.xz.part-
#
# xz where it exists, Python's lzma otherwise (the GPU image need not have xz).
set -euo pipefail
SRC="${1:?give the folder to pack}"
PREFIX="${2:?give the prefix of the parts}"
if command -v xz >/dev/null; then
  tar -C "$SRC" -cf - . | xz -T0 -6 | split -b 15m - "$PREFIX"
else
  "${PYTHON:-python3}" -c 'import sys, tarfile; t = tarfile.open(fileobj=sys.stdout.buffer, mode="w|xz"); t.add(sys.argv[1], arcname="."); t.close()' \
    "$SRC" | split -b 15m - "$PREFIX"
fi
