#!/usr/bin/env python3
"""Checks that tools/train/train.py's --minutes is a wall-time budget: the learning-curve points
count against it, not only the training steps (a budget of step time let a GPU run overrun its
lease by minutes, its curve points each costing as much as thousands of steps).

  python3 tests/tools/train_budget_test.py --source <checkout>

A 1-second budget with a curve point before the first step and after every step: the point
before the first step alone outlasts the budget, so the run stops after one step. Counting step
time only, it would run on for dozens of steps. Exits 77 (ctest: skipped) without PyTorch.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_resume_test import checkout_and_torch_python, train  # noqa: E402


def main():
    source, py = checkout_and_torch_python()
    with tempfile.TemporaryDirectory() as tmp:
        done = train(py, source, tmp, "budget", 200, "--minutes", str(1 / 60), "--curve-every", "1",
                     "--curve-per-family", "1")
        if done["step"] > 2:
            raise SystemExit(f"FAIL: a 1-second budget ran {done['step']} steps: the curve points did not count")
    print(f"PASS (stopped at step {done['step']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
