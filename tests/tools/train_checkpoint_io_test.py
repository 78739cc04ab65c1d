#!/usr/bin/env python3
"""Checks two things tools/train/ met on a GPU machine's newer PyTorch, which this machine's
older one would never show:
- common.load_checkpoint reads a checkpoint holding plain Python objects beside the tensors (the
  run's arguments, PyTorch's version string), which torch.load refuses under weights_only=True,
  the default since PyTorch 2.6;
- common.decode turns ids past the SentencePiece vocabulary (an untrained model samples them: the
  embedding table is rounded up) into no text instead of raising.

  python3 tests/tools/train_checkpoint_io_test.py --source <checkout>

Exits 77 (ctest: skipped) when no Python with PyTorch is found (see torch_reference_test.py).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference_test import run_training_check  # noqa: E402

CHECK = r'''
import os, sys, tempfile, torch
sys.path.insert(0, sys.argv[1])
import common as C

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "ckpt.pt")
    torch.save({"model": {"w": torch.ones(2)}, "hardware": {"torch": torch.__version__}, "args": {"lr": 1e-3}}, path)
    try:
        torch.load(path, map_location="cpu", weights_only=True)
        strict_refuses = False
    except Exception:
        strict_refuses = True
    print("torch.load(weights_only=True) refuses it:", strict_refuses)
    s = C.load_checkpoint(path)
    assert s["hardware"]["torch"] == torch.__version__ and torch.equal(s["model"]["w"], torch.ones(2)), s

n = C.sp().get_piece_size()
text = C.encode_response("12 + 7")[:-1]
assert C.decode(text) == "12 + 7", C.decode(text)
assert C.decode(text + [n, n + 5]) == "12 + 7", "ids past the vocabulary must stand for no text"
print("PASS")
'''

if __name__ == "__main__":
    run_training_check(CHECK, "a training checkpoint or an untrained model's output cannot be read back")
