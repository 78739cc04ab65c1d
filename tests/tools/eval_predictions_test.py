#!/usr/bin/env python3
"""tools/train/eval_py.py --predictions: the reference eval writes each row's decode in the fields
and order of `dlmscope-cli eval --predictions`, the same text the engine decodes.

  eval_predictions_test.py --source REPO --cli DLMSCOPE_CLI

Rows of two canvas lengths, interleaved (the sampler batches by canvas, so the file's order is
the rows' only if it is put back), decoded on the shipped tiny-mdlm by eval_py.py and by the
engine; the two prediction files must agree row by row, and arithmetic_parts.py reads both.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--cli", required=True)
    a = ap.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from torch_reference_test import torch_python_or_skip
    py = torch_python_or_skip()  # eval_py.py runs there; this script needs no PyTorch itself
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")

    by_family = {"addition": [], "counting": [], "subtraction": []}
    with open(os.path.join(a.source, "resources", "eval", "test.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            if len(by_family.get(r["family"], [0, 0])) < 2:
                by_family[r["family"]].append(r)
    rows = [by_family[fam][i] for i in range(2) for fam in by_family]  # canvases 48, 96, 48, 48, 96, 48
    canvases = [r["gen_length"] for r in rows]
    assert len(set(canvases)) == 2 and canvases != sorted(canvases), canvases

    with tempfile.TemporaryDirectory() as d:
        data, mine, engine = (os.path.join(d, n) for n in ("rows.jsonl", "py.jsonl", "cli.jsonl"))
        with open(data, "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in rows))
        model = os.path.join(a.source, "resources", "models", "tiny-mdlm")
        out = subprocess.run([py, os.path.join(a.source, "tools/train/eval_py.py"), "--model", model, "--split", data,
                              "--predictions", mine], capture_output=True, text=True, check=True, env=env).stdout
        subprocess.run([a.cli, "eval", "--model", model, "--data", data, "--jobs", "1", "--json",
                        "--predictions", engine], capture_output=True, text=True, check=True)
        py = [json.loads(l) for l in open(mine)]
        cli = [json.loads(l) for l in open(engine)]
        assert [p["prompt"] for p in py] == [r["prompt"] for r in rows], "predictions not in the rows' order"
        for p, c, r in zip(py, cli, rows):
            assert p["family"] == r["family"] and p["answer"] == r["answer"], p
            assert p["correct"] == (p["predicted"] == r["answer"]), p
            for field in ("prompt", "output", "predicted", "correct"):
                assert p[field] == c[field], (field, p, c)
        right = sum(p["correct"] for p in py)
        assert right >= 4, f"the shipped model should get most of these rows right: {py}"
        assert "exact-match" in out, out
        parts = subprocess.run([sys.executable, os.path.join(a.source, "tools/train/arithmetic_parts.py"), mine,
                                "--json"], capture_output=True, text=True, check=True).stdout
        got = json.loads(parts)
        assert set(got) == {"addition", "subtraction"} and all(v["rows"] == 2 for v in got.values()), got
    print("ok")


if __name__ == "__main__":
    main()
