#!/usr/bin/env python3
"""Checks tools/train/train.py's --accum (batches whose gradients make one optimizer step):

  python3 tests/tools/train_accum_test.py --source <checkout>

- two steps of --accum 3 read the batches that six steps of --accum 1 read (the same tokens);
- an accumulated run stopped after one step and resumed from its checkpoint ends with the
  weights of the same run done in one go (batches and masks follow the batch's index);
- --accum 0 is refused.
Exits 77 (ctest: skipped) when no Python with PyTorch is found (see torch_reference_test.py).
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_resume_test import checkout_and_torch_python, refusal, train  # noqa: E402


def checkpoint_digest(py, train_dir, ckpt):
    """A hash of a checkpoint's weights, computed by the Python that trained them."""
    code = ("import sys, hashlib; sys.path.insert(0, sys.argv[1]); import common as C; "
            "sd = C.load_checkpoint(sys.argv[2])['model']; "
            "print(hashlib.sha256(b''.join(sd[k].numpy().tobytes() for k in sorted(sd))).hexdigest())")
    return subprocess.run([py, "-c", code, train_dir, ckpt], capture_output=True, text=True, check=True).stdout.strip()


def main():
    source, py = checkout_and_torch_python()
    train_dir = os.path.join(source, "tools", "train")
    with tempfile.TemporaryDirectory() as tmp:
        single = train(py, source, tmp, "single", 6)
        straight = train(py, source, tmp, "straight", 2, "--accum", "3")
        if straight["tokens_seen"] != single["tokens_seen"]:
            raise SystemExit(f"FAIL: two steps of --accum 3 read {straight['tokens_seen']} tokens, "
                             f"six single steps {single['tokens_seen']}: not the same six batches")
        train(py, source, tmp, "resumed", 1, "--accum", "3")
        resumed = train(py, source, tmp, "resumed", 2, "--accum", "3")
        if resumed["step"] != 2 or resumed["tokens_seen"] != straight["tokens_seen"]:
            raise SystemExit("FAIL: the resumed accumulated run did not read what the straight one read")
        digests = [checkpoint_digest(py, train_dir, os.path.join(tmp, w, "ckpt.pt")) for w in ("straight", "resumed")]
        if digests[0] != digests[1]:
            raise SystemExit("FAIL: the accumulated run resumed after one step ends with other weights than in one go")
        error = refusal(py, source, "--accum", "0", "--steps", "1")
        if error is None or "--accum" not in error:
            raise SystemExit(f"FAIL: --accum 0 was not refused: {error}")
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
