#!/usr/bin/env bash
# Puts what tools/train/gpu_train.sh handed back in place: the models into resources/models/;
# the loss plots, curves.csv, eval.txt and the eval's per-row decodes (predictions-*.jsonl) into
# build-train/gpu-result/. A plot worth keeping goes into docs/img/ under the run's own name by
# hand: docs/img/loss-tiny-mdlm.png and its kin belong to earlier runs that docs/models.md shows.
#
#   tools/train/unpack_gpu_result.sh DIR           # DIR holds result.tar.xz.part-* (gpu_train.sh)
#   tools/train/unpack_gpu_result.sh DIR v2        # v2-result.tar.xz.part-* (gpu_session.sh --variant)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DIR="${1:?give the folder that holds result.tar.xz.part-*}"
PARTS="${2:+$2-}result.tar.xz.part-"
ls "$DIR/$PARTS"* >/dev/null 2>&1 || { echo "unpack_gpu_result.sh: no $PARTS* in $DIR" >&2; exit 1; }
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
cat "$DIR/$PARTS"* | xz -d | tar -C "$STAGE" -xf -
for m in tiny-mdlm tiny-ar; do
  [ -f "$STAGE/models/$m/model.safetensors" ] || { echo "unpack_gpu_result.sh: $m missing from the result" >&2; exit 1; }
done
rm -rf "$ROOT/resources/models/tiny-mdlm" "$ROOT/resources/models/tiny-ar"
cp -r "$STAGE/models/tiny-mdlm" "$STAGE/models/tiny-ar" "$ROOT/resources/models/"
if [ -d "$STAGE/models/tiny-dream" ]; then  # gpu_train.sh --mdlm-dream
  rm -rf "$ROOT/resources/models/tiny-dream"
  cp -r "$STAGE/models/tiny-dream" "$ROOT/resources/models/"
fi
mkdir -p "$ROOT/build-train/gpu-result"
cp "$STAGE"/img/*.png "$ROOT/build-train/gpu-result/" 2>/dev/null || true
cp "$STAGE"/curves.csv "$STAGE"/eval.txt "$ROOT/build-train/gpu-result/" 2>/dev/null || true
cp "$STAGE"/predictions-*.jsonl "$ROOT/build-train/gpu-result/" 2>/dev/null || true
echo "models in resources/models/, plots and eval files in build-train/gpu-result/; now check the models through the engine:"
echo "  build/tools/cli/dlmscope-cli eval --model resources/models/tiny-mdlm --split test"
[ ! -d "$STAGE/models/tiny-dream" ] || echo "  build/tools/cli/dlmscope-cli eval --model resources/models/tiny-dream --split test --set sampler=llada"
