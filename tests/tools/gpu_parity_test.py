#!/usr/bin/env python3
"""tools/bench/gpu_parity.py: where two traces of one decode part, and whether at a near-tie.

  gpu_parity_test.py --source REPO

Synthetic step traces (the NDJSON records `dlmscope-cli run --trace` writes, reduced to the fields
the script reads) for each way a CPU and a CUDA decode can part: one position committed with
different tokens (a near-tie of its two best tokens, or not), different positions committed (a
near-tie of their confidences, or not), and no parting at all.
"""
import argparse
import os
import sys


def pos(i, token, confidence=0.5, top=None, masked=False):
    return {"pos": i, "state": "masked" if masked else "locked", "token": 3 if masked else token,
            "confidence": confidence, "top": top or []}


def top2(a, pa, b, pb):
    return [{"id": a, "p": pa}, {"id": b, "p": pb}]


def step(n, positions):
    return {"type": "step", "step": n, "positions": positions}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    a = ap.parse_args()
    sys.path.insert(0, os.path.join(a.source, "tools", "bench"))
    import gpu_parity as gp

    start = step(0, [pos(0, 0, masked=True), pos(1, 0, masked=True)])

    def both(cpu_positions, gpu_positions):
        return gp.first_parting([start, step(1, cpu_positions)], [start, step(1, gpu_positions)])

    # The same position, other tokens, p 0.0818 against 0.0811: a near-tie (margin 0.009).
    r = both([pos(0, 825, top=top2(825, 0.0818, 650, 0.0811)), pos(1, 0, masked=True)],
             [pos(0, 650, top=top2(650, 0.0815, 825, 0.0813)), pos(1, 0, masked=True)])
    assert r is not None and r[0] == 1 and r[2] is True and "position 0" in r[1], r
    # The same position, other tokens, but the CPU was sure (0.9 against 0.05): not a near-tie.
    r = both([pos(0, 825, top=top2(825, 0.9, 650, 0.05)), pos(1, 0, masked=True)],
             [pos(0, 650, top=top2(650, 0.9, 825, 0.05)), pos(1, 0, masked=True)])
    assert r is not None and r[2] is False, r
    # Other positions committed, confidences 0.99998 and 0.99997 on both: a near-tie.
    r = both([pos(0, 7, 0.99998), pos(1, 0, 0.99997, masked=True)],
             [pos(0, 0, 0.99997, masked=True), pos(1, 8, 0.99998)])
    assert r is not None and r[2] is True and "cpu committed [0], cuda [1]" in r[1], r
    # Other positions committed, 0.9 against 0.3 on the CPU's side: not a near-tie.
    r = both([pos(0, 7, 0.9), pos(1, 0, 0.3, masked=True)], [pos(0, 0, 0.3, masked=True), pos(1, 8, 0.9)])
    assert r is not None and r[2] is False, r
    # One backend commits and the other does not (a threshold strategy), at nearly the same
    # confidence (0.9 against 0.89: the threshold lies between): a near-tie.
    r = both([pos(0, 7, 0.9), pos(1, 0, 0.3, masked=True)], [pos(0, 0, 0.89, masked=True), pos(1, 0, 0.3, masked=True)])
    assert r is not None and r[2] is True and "committed by one backend only" in r[1], r
    # ... at confidences far apart (0.9 against 0.5): a backend computed it wrong, not a near-tie.
    r = both([pos(0, 7, 0.9), pos(1, 0, 0.3, masked=True)], [pos(0, 0, 0.5, masked=True), pos(1, 0, 0.3, masked=True)])
    assert r is not None and r[2] is False, r
    # Identical traces never part; a position committed earlier is not compared again.
    same = [start, step(1, [pos(0, 7, 0.9), pos(1, 0, masked=True)]), step(2, [pos(0, 7, 0.9), pos(1, 9, 0.8)])]
    assert gp.first_parting(same, same) is None
    print("gpu_parity: partings found and classified")


if __name__ == "__main__":
    main()
