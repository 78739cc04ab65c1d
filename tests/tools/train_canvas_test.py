#!/usr/bin/env python3
"""Checks the canvases tools/train/train.py pads its batches to (make_batch):
- every row is its prompt and response, then <|endoftext|> to the batch's length, and everything after
  the prompt is a target (the end of a short answer on a long canvas is learnt, not skipped);
- unstretched, a batch is at most 6 tokens longer than its longest row;
- stretched, the generation area takes every canvas a family decodes on at inference (the eval
  rows' and the app's examples', the passes sorting form's 400 among them), capped at --max-len:
  a three-number sorting trained only on short stretches wrote a fourth number on a canvas of 400.

  python3 tests/tools/train_canvas_test.py --source <checkout>

Exits 77 (ctest: skipped) when no Python with PyTorch is found (see torch_reference_test.py).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference_test import run_training_check  # noqa: E402

CHECK = r'''
import random, sys
sys.path.insert(0, sys.argv[1])
import common as C
import corpus
import train

short = (C.encode_prompt("Sort 5, 3, 9 in ascending order."), C.encode_response("The numbers are 005 003 009."))
longer = (C.encode_prompt("What is 47 + 385?"), C.encode_response("0047 + 0385 = 00432\n#### 432"))
rows = [short, longer]
longest = max(len(p) + len(r) for p, r in rows)
longest_prompt = max(len(p) for p, _ in rows)
max_len = 464

rng = random.Random(3)
for _ in range(200):
    ids, is_resp = train.make_batch(rows, rng, 0.0, max_len)
    assert longest <= ids.shape[1] <= longest + 6, ("unstretched canvas", ids.shape[1], longest)

areas = set()
for _ in range(2000):
    ids, is_resp = train.make_batch(rows, rng, 1.0, max_len)
    T = ids.shape[1]
    assert T <= max_len, ("canvas above --max-len", T)
    for i, (p, r) in enumerate(rows):
        assert ids[i, :len(p) + len(r)].tolist() == p + r, "a row is not its prompt and response"
        assert (ids[i, len(p) + len(r):] == C.PAD).all(), "the tail is not <|endoftext|>"
        assert not is_resp[i, :len(p)].any() and is_resp[i, len(p):].all(), "targets are not the response and its tail"
    areas.add(T - longest_prompt)

# What inference decodes on, read from the committed eval files (the eval's rows and the app's
# examples), not from the list train.py derives its stretches from.
import glob, json, os
evals = os.path.join(os.path.dirname(os.path.dirname(sys.argv[1])), "resources", "eval", "*.jsonl")
wanted = {json.loads(line)["gen_length"] for f in glob.glob(evals) for line in open(f) if line.strip()}
assert {48, 400} <= wanted, ("the eval files' canvases", sorted(wanted))
missing = sorted(g for g in wanted
                 if not any(g <= a <= g + 6 for a in areas) and longest_prompt + g <= max_len)
assert not missing, f"no stretched batch had the generation area of these inference canvases: {missing}"
assert any(a >= corpus.SORTING_PASSES_GEN_LENGTH for a in areas), "the passes form's canvas is never trained"
print(f"ok: rows padded with <|endoftext|> as targets; {len(areas)} generation areas, every inference canvas "
      f"among them ({sorted(wanted)})")
'''


if __name__ == "__main__":
    run_training_check(CHECK, "the training canvas check failed")
