#!/usr/bin/env python3
"""Checks tools/train/train.py's --accum (batches whose gradients make one optimizer step):

  python3 tests/tools/train_accum_test.py --source <checkout>

- two steps of --accum 3 read the batches that six steps of --accum 1 read (the same tokens);
- an accumulated run stopped after one step and resumed from its checkpoint ends with the
  weights of the same run done in one go (batches and masks follow the batch's index);
- --accum 0 is refused.
Exits 77 (ctest: skipped) when no Python with PyTorch is found (see torch_reference_test.py).
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference_test import torch_python_or_skip  # noqa: E402
from train_resume_test import train  # noqa: E402


def checkpoint_digest(py, train_dir, ckpt):
    """A hash of a checkpoint's weights, computed by the Python that trained them."""
    code = ("import sys, hashlib; sys.path.insert(0, sys.argv[1]); import common as C; "
            "sd = C.load_checkpoint(sys.argv[2])['model']; "
            "print(hashlib.sha256(b''.join(sd[k].numpy().tobytes() for k in sorted(sd))).hexdigest())")
    return subprocess.run([py, "-c", code, train_dir, ckpt], capture_output=True, text=True, check=True).stdout.strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    args = ap.parse_args()
    py = torch_python_or_skip()
    train_dir = os.path.join(args.source, "tools", "train")
    with tempfile.TemporaryDirectory() as tmp:
        single = train(py, args.source, tmp, "single", 6)
        straight = train(py, args.source, tmp, "straight", 2, "--accum", "3")
        if straight["tokens_seen"] != single["tokens_seen"]:
            raise SystemExit(f"FAIL: two steps of --accum 3 read {straight['tokens_seen']} tokens, "
                             f"six single steps {single['tokens_seen']}: not the same six batches")
        train(py, args.source, tmp, "resumed", 1, "--accum", "3")
        resumed = train(py, args.source, tmp, "resumed", 2, "--accum", "3")
        if resumed["step"] != 2 or resumed["tokens_seen"] != straight["tokens_seen"]:
            raise SystemExit("FAIL: the resumed accumulated run did not read what the straight one read")
        digests = [checkpoint_digest(py, train_dir, os.path.join(tmp, w, "ckpt.pt")) for w in ("straight", "resumed")]
        if digests[0] != digests[1]:
            raise SystemExit("FAIL: the accumulated run resumed after one step ends with other weights than in one go")
        r = subprocess.run([py, os.path.join(train_dir, "train.py"), "--accum", "0", "--steps", "1"],
                           capture_output=True, text=True)
        if r.returncode != 2 or "--accum" not in r.stderr:
            raise SystemExit(f"FAIL: --accum 0 was not refused: rc {r.returncode}, {r.stderr[-300:]}")
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
