#!/usr/bin/env python3
"""Checks tools/train/train.py's --processes (CPU processes sharing each step's --accum batches):

  python3 tests/tools/train_processes_test.py --source <checkout>

- two steps with two processes read the tokens that the same run with one process reads, and end
  with its weights (to float rounding: the gradient is summed in another order);
- a two-process run stopped after one step and resumed ends where the straight one ends;
- an --accum that two processes cannot share, and --processes on a GPU, are refused.
Exits 77 (ctest: skipped) when no Python with PyTorch is found (see torch_reference_test.py).
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_resume_test import checkout_and_torch_python, refusal, train  # noqa: E402


def largest_weight_difference(py, train_dir, a, b):
    """The largest absolute difference between two checkpoints' weights, by the Python that trained them."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import common as C; "
            "x = C.load_checkpoint(sys.argv[2])['model']; y = C.load_checkpoint(sys.argv[3])['model']; "
            "assert sorted(x) == sorted(y); "
            "print(max(float((x[k].float() - y[k].float()).abs().max()) for k in x))")
    out = subprocess.run([py, "-c", code, train_dir, a, b], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main():
    source, py = checkout_and_torch_python()
    train_dir = os.path.join(source, "tools", "train")
    common = ("--model", "mdlm", "--size", "tiny", "--accum", "4", "--t-power", "0.5", "--suffix-mask", "0.7")
    with tempfile.TemporaryDirectory() as tmp:
        one = train(py, source, tmp, "one", 2, *common)
        two = train(py, source, tmp, "two", 2, *common, "--processes", "2")
        if two["tokens_seen"] != one["tokens_seen"]:
            raise SystemExit(f"FAIL: two processes read {two['tokens_seen']} tokens, one process "
                             f"{one['tokens_seen']}: not the step's batches")
        if two["hardware"].get("processes") != 2:
            raise SystemExit(f"FAIL: the export does not record the two processes: {two['hardware']}")
        ck = {w: os.path.join(tmp, w, "ckpt.pt") for w in ("one", "two", "resumed")}
        diff = largest_weight_difference(py, train_dir, ck["one"], ck["two"])
        if diff > 1e-4:
            raise SystemExit(f"FAIL: two processes end {diff:g} away from one process's weights")
        train(py, source, tmp, "resumed", 1, *common, "--processes", "2")
        resumed = train(py, source, tmp, "resumed", 2, *common, "--processes", "2")
        if resumed["step"] != 2 or resumed["tokens_seen"] != two["tokens_seen"]:
            raise SystemExit("FAIL: the resumed two-process run did not read what the straight one read")
        diff = largest_weight_difference(py, train_dir, ck["two"], ck["resumed"])
        if diff > 1e-4:
            raise SystemExit(f"FAIL: the resumed two-process run ends {diff:g} away from the straight one")
        for unshareable in (("--accum", "3"), ("--accum", "2", "--device", "cuda")):
            error = refusal(py, source, "--model", "mdlm", "--steps", "1", "--processes", "2", *unshareable)
            if error is None or "--processes" not in error:
                raise SystemExit(f"FAIL: --processes 2 with {' '.join(unshareable)} was not refused: {error}")
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
