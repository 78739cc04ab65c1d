#!/usr/bin/env python3
"""Checks that tools/train/train.py keeps a model's history across a resume: a run started with
--init-from-shipped exports the shipped folder's training.json as args.shipped_history, and so does
the same run resumed from its checkpoint by a command that no longer names the shipped folder; and
a run without --plot draws its loss curve in its work folder, not over a tracked plot in docs/img;
and a shipped folder of another size than --size is refused with the size to pass.

  python3 tests/tools/train_resume_test.py --source <checkout>

Exits 77 (ctest: skipped) when no Python with PyTorch is found (see torch_reference_test.py).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference_test import torch_python_or_skip  # noqa: E402


def train(py, source, tmp, work, steps, *extra, plot=True):
    cmd = [py, os.path.join(source, "tools", "train", "train.py"), "--model", "ar", "--size", "tiny",
           "--steps", str(steps), "--batch", "2", "--warmup", "1", "--max-len", "96", "--seed", "5",
           "--work", os.path.join(tmp, work), "--out", os.path.join(tmp, work, "export"),
           *(["--plot", os.path.join(tmp, work, "loss.png")] if plot else []), *extra]
    r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    if r.returncode != 0:
        raise SystemExit(f"FAIL: {' '.join(cmd)}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return json.load(open(os.path.join(tmp, work, "export", "training.json")))


def checkout_and_torch_python():
    """How every train.py check starts: the checkout named by --source, and the Python with
    PyTorch (or exit with SKIP)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    return ap.parse_args().source, torch_python_or_skip()


def refusal(py, source, *args):
    """train.py's error text when it refuses these arguments as a usage error (exit 2), else None."""
    r = subprocess.run([py, os.path.join(source, "tools", "train", "train.py"), *args],
                       capture_output=True, text=True, timeout=120)
    return r.stderr if r.returncode == 2 else None


def main():
    source, py = checkout_and_torch_python()
    with tempfile.TemporaryDirectory() as tmp:
        shipped = train(py, source, tmp, "first", 1)  # stands in for a shipped folder
        shipped_dir = os.path.join(tmp, "first", "export")
        started = train(py, source, tmp, "second", 1, "--init-from-shipped", shipped_dir)
        if started["args"].get("shipped_history") != shipped:
            raise SystemExit("FAIL: a run started from a shipped folder does not export its history")
        # A shipped folder of another size is refused with the size to pass, not PyTorch's shape list.
        error = refusal(py, source, "--model", "ar", "--size", "small", "--init-from-shipped", shipped_dir,
                        "--work", os.path.join(tmp, "wrong-size"), "--steps", "1")
        if error is None or "pass --size tiny" not in error:
            raise SystemExit(f"FAIL: a shipped folder of another size was not refused clearly: {error}")
        resumed = train(py, source, tmp, "second", 2)
        if resumed["step"] != 2:
            raise SystemExit(f"FAIL: the second command did not resume and continue (step {resumed['step']})")
        if resumed["args"].get("shipped_history") != shipped:
            raise SystemExit("FAIL: the resumed run's export lost the history of the weights it started from")
        # Without --plot the loss curve goes to the work folder, never over a tracked plot in docs/img.
        tracked = os.path.join(source, "docs", "img", "loss-tiny-ar.png")
        before = os.stat(tracked).st_mtime_ns if os.path.exists(tracked) else None
        train(py, source, tmp, "default-plot", 1, plot=False)
        drawn = subprocess.run([py, "-c", "import matplotlib"], capture_output=True).returncode == 0
        if drawn and not os.path.exists(os.path.join(tmp, "default-plot", "loss.png")):
            raise SystemExit("FAIL: a run without --plot did not draw its loss curve in its work folder")
        if (os.stat(tracked).st_mtime_ns if os.path.exists(tracked) else None) != before:
            raise SystemExit("FAIL: a run without --plot overwrote docs/img/loss-tiny-ar.png")
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
