#!/bin/sh
# Reproduce the embedded default models from scratch (CPU only; ~2 h on 2 shared cores).
#   sh tools/train/train_all.sh            # tokenizer + eval splits + both models (both in parallel, 1 thread each)
# Checkpoints/logs: build-train/ (resumable: just rerun). Shipped: resources/models/tiny-{mdlm,ar}.
set -e
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
[ -f build-train/tok.model ] || $PY tools/train/tokenizer.py
$PY tools/train/corpus.py --write-eval resources/eval
nice -n 10 $PY tools/train/train.py --model mdlm --size small --steps 1750 --batch 32 --lr 1.5e-3 --warmup 50 \
    --out resources/models/tiny-mdlm > build-train/mdlm.log 2>&1 &
nice -n 12 $PY tools/train/train.py --model ar --size small --steps 250 --batch 32 --lr 2e-3 --warmup 30 \
    --out resources/models/tiny-ar > build-train/ar.log 2>&1 &
wait
$PY tools/train/eval_py.py --model resources/models/tiny-mdlm --split resources/eval/test.jsonl --per-family 100 \
    > build-train/eval-test.txt 2>&1 || true
