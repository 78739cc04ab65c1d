#!/usr/bin/env bash
# Builds dlmscope-cli with CUDA for the H200 (sm_90) in its own build folder and packs it, with
# the shared libraries the GPU machine's image lacks (OpenBLAS, sentencepiece, PCRE2, utf8proc
# and their own dependencies), into .gpupack/ for tools/bench/gpu_bench.sh to run there.
#
#   tools/bench/pack_for_gpu.sh            # run here, from anywhere in the checkout
#
# Left out, because the GPU machine provides them and carrying them would be wrong or too big:
# glibc (libc, libm, ld-linux, ...), the driver (libcuda) and the CUDA toolkit's libraries
# (libcublas/libcublasLt are ~700 MB; cudart is linked statically). libstdc++ and libgcc_s go
# into a fallback folder that gpu_bench.sh uses only if the machine's own are older than the
# build's. Everything is one xz tarball (OpenBLAS alone is 36 MB unpacked, 4 MB packed): the
# working tree that travels to the device must stay well under 64 MiB.
#
# Environment: DLM_GPUPACK_BUILD (build folder, default <repo>/build-gpupack), JOBS (default 2),
# DLM_CUDA_ARCHS (default 90).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${DLM_GPUPACK_BUILD:-$ROOT/build-gpupack}"
PACK="$ROOT/.gpupack"
JOBS="${JOBS:-2}"
ARCHS="${DLM_CUDA_ARCHS:-90}"
LIMIT_BYTES=$((24 * 1024 * 1024))  # the tarball; the rest of the tree is ~17 MB

case "${1:-}" in
  -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
  "") ;;
  *) echo "pack_for_gpu.sh: unexpected argument '$1' (see --help)" >&2; exit 2 ;;
esac

command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] ||
  { echo "pack_for_gpu.sh: no nvcc (expected /usr/local/cuda/bin/nvcc): cannot build the CUDA backend" >&2; exit 1; }

export CCACHE_BASEDIR="$ROOT"
echo "== configuring $BUILD (CUDA on, sm_$ARCHS, no app)"
mkdir -p "$BUILD"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DDLM_CUDA=ON -DDLM_APP=OFF \
  -DCMAKE_CUDA_ARCHITECTURES="$ARCHS" >"$BUILD/configure.log" 2>&1 ||
  { tail -30 "$BUILD/configure.log" >&2; echo "pack_for_gpu.sh: configure failed (log: $BUILD/configure.log)" >&2; exit 1; }
echo "== building dlmscope-cli and gpu_tests (-j$JOBS)"
cmake --build "$BUILD" -j"$JOBS" --target dlmscope-cli gpu_tests
CLI="$BUILD/tools/cli/dlmscope-cli"
# A build without CUDA refuses the section with "needs a CUDA build"; with CUDA, on this machine,
# it gets as far as looking for a device (or, on a GPU machine, for the model folder's config).
if "$CLI" bench --section forward-cuda --model "$ROOT" --out - 2>&1 | grep -q 'needs a CUDA build'; then
  echo "pack_for_gpu.sh: $CLI was built without the CUDA backend" >&2; exit 1
fi

STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/bin" "$STAGE/lib" "$STAGE/lib-fallback"
cp "$CLI" "$STAGE/bin/dlmscope-cli"
strip --strip-unneeded "$STAGE/bin/dlmscope-cli"
# The GPU tests travel too, so the session that benchmarks also checks the kernels first.
cp "$BUILD/tests/gpu/gpu_tests" "$STAGE/bin/gpu_tests"
strip --strip-unneeded "$STAGE/bin/gpu_tests"

# Which shared libraries travel: everything ldd resolves except what the GPU image provides.
skip_re='^(linux-vdso|ld-linux|libc\.so|libm\.so|libmvec|libpthread|libdl\.so|librt\.so|libresolv|libutil\.so|libcuda\.so|libcublas|libcublasLt|libcudart|libnvidia|libnvrtc|libnvJitLink)'
fallback_re='^(libstdc\+\+\.so|libgcc_s\.so)'
ldd "$CLI" >"$STAGE/ldd.txt"
if grep -q 'not found' "$STAGE/ldd.txt"; then
  cat "$STAGE/ldd.txt" >&2; echo "pack_for_gpu.sh: the build itself has unresolved libraries" >&2; exit 1
fi
while read -r name arrow path _; do
  [ "$arrow" = "=>" ] || continue
  [ -n "$path" ] && [ -e "$path" ] || continue
  if [[ "$name" =~ $skip_re ]]; then
    echo "   provided there: $name"
  elif [[ "$name" =~ $fallback_re ]]; then
    cp -L "$path" "$STAGE/lib-fallback/$name"; echo "   fallback:       $name"
  else
    cp -L "$path" "$STAGE/lib/$name"; echo "   packed:         $name ($(du -h "$STAGE/lib/$name" | cut -f1))"
  fi
done <"$STAGE/ldd.txt"

{
  echo "dlmscope GPU pack"
  echo "made:   $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -srm)"
  echo "commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ' (with local changes)')"
  echo "cuda:   $(/usr/local/cuda/bin/nvcc --version 2>/dev/null | tail -1 || nvcc --version | tail -1)"
  echo "archs:  sm_$ARCHS"
  echo "glibc:  $(ldd --version | head -1)"
  echo "ldd of dlmscope-cli here:"
  sed 's/^/  /' "$STAGE/ldd.txt"
} >"$STAGE/MANIFEST.txt"

rm -rf "$PACK"
mkdir -p "$PACK"
echo "== compressing (xz)"
tar -C "$STAGE" -cf - bin lib lib-fallback MANIFEST.txt | xz -T0 -6 >"$PACK/dlmscope-gpupack.tar.xz"
cp "$STAGE/MANIFEST.txt" "$PACK/MANIFEST.txt"
size=$(stat -c %s "$PACK/dlmscope-gpupack.tar.xz")
echo "== $PACK/dlmscope-gpupack.tar.xz: $((size / 1024)) KiB"
if [ "$size" -gt "$LIMIT_BYTES" ]; then
  echo "pack_for_gpu.sh: the pack is larger than $((LIMIT_BYTES / 1048576)) MiB; the working tree sent to the device must stay under 64 MiB" >&2
  exit 1
fi
echo "done. On the GPU machine (device tool): carry [\".gpupack\"], command: bash tools/bench/gpu_bench.sh \$OUT"
