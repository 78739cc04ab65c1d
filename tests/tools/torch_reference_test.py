#!/usr/bin/env python3
"""CPU checks of the GPU benchmark's tools (tools/bench/), run by ctest.

  torch_reference_test.py logits   --cli dlmscope-cli --tool engine_bench_tool --source REPO
      make-checkpoint writes tiny random LLaDA checkpoints (bf16 in one file; f32 in several
      shards with an index); the eager PyTorch reference (fp32, CPU) and the engine's CPU backend
      compute the logits of the same canvas from each; they must agree within 1e-3.

  torch_reference_test.py pipeline ...
      the step bench on the CPU backend (the JSON schema `bench --section forward-cuda` writes),
      the PyTorch reference's bench mode on the CPU, summarize_gpu_bench.py on both, and
      gpu_bench.sh's argument handling and --dry-run.

Exits 77 (ctest: skipped) when no Python with PyTorch is found (DLM_TORCH_PYTHON, this
interpreter, /usr/bin/python3).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

SKIP = 77


def torch_python():
    candidates = [os.environ.get("DLM_TORCH_PYTHON"), sys.executable, "/usr/bin/python3"]
    for py in candidates:
        if not py or not os.path.exists(py):
            continue
        if subprocess.run([py, "-c", "import torch"], capture_output=True).returncode == 0:
            return py
    return None


def torch_python_or_skip():
    """The Python with PyTorch, or exit with SKIP (ctest: skipped) saying how to get one."""
    py = torch_python()
    if py is None:
        print("SKIP: no Python with PyTorch (set DLM_TORCH_PYTHON, or install python3-torch)")
        sys.exit(SKIP)
    return py


def run_training_check(code, failure):
    """The whole of a training-tool check: `code` runs with the PyTorch Python (skipping without
    one) and tools/train/ of the checkout named by --source as its argv[1]; the check fails with
    `failure` when the code does."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    source = ap.parse_args().source
    py = torch_python_or_skip()
    r = subprocess.run([py, "-c", code, os.path.join(source, "tools", "train")], capture_output=True, text=True,
                       env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    print(r.stdout, r.stderr, sep="\n")
    if r.returncode != 0:
        raise SystemExit("FAIL: " + failure)


def run(cmd, **kw):
    print("+ " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        print(r.stdout, r.stderr, sep="\n")
        raise SystemExit(f"FAIL: exit status {r.returncode}: {' '.join(cmd)}")
    return r


def compare_logits(engine_path, torch_path, tol=1e-3):
    with open(engine_path) as f:
        e = json.load(f)["logits"]
    with open(torch_path) as f:
        t = json.load(f)["logits"]
    assert len(e) == len(t) and len(e[0]) == len(t[0]), "logits shapes differ"
    worst = max(abs(a - b) for re, rt in zip(e, t) for a, b in zip(re, rt))
    scale = max(abs(b) for rt in t for b in rt)
    spread = max(max(rt) - min(rt) for rt in t)
    print(f"max |engine - torch| = {worst:.3g} over {len(e)} x {len(e[0])} logits (max |logit| {scale:.3g})")
    # Random weights must give a non-trivial distribution, or agreement would prove nothing.
    if spread < 0.1:
        raise SystemExit(f"FAIL: logits are nearly constant (spread {spread}); the check would be vacuous")
    if worst > tol:
        raise SystemExit(f"FAIL: the PyTorch reference and the engine differ by {worst} > {tol}")


def logits_part(args, py, tmp):
    reference = os.path.join(args.source, "tools", "bench", "torch_llada_reference.py")
    # A canvas with prompt tokens and masks (the tiny preset's mask id is 511).
    tokens = ",".join(str(t) for t in [5, 17, 300, 42, 7, 99, 250, 3, 128, 64, 1, 2] + [511] * 20 + [77, 511, 9])
    cases = [("bf16", ["--dtype", "bf16"]), ("f32-sharded", ["--dtype", "f32", "--shard-gb", "0.0002"])]
    for name, extra in cases:
        ck = os.path.join(tmp, name)
        run([args.cli, "make-checkpoint", "--dims", "tiny", "--out", ck, "--seed", "3"] + extra)
        files = sorted(os.listdir(ck))
        print("  files:", files)
        if name == "f32-sharded" and "model.safetensors.index.json" not in files:
            raise SystemExit("FAIL: --shard-gb 0.0002 should have produced a sharded checkpoint")
        run([args.tool, "logits", "--model", ck, "--tokens", tokens, "--out", os.path.join(tmp, name + "-engine.json")])
        run([py, reference, "--model", ck, "--device", "cpu", "--dtype", "fp32", "--tokens", tokens,
             "--logits-out", os.path.join(tmp, name + "-torch.json")])
        compare_logits(os.path.join(tmp, name + "-engine.json"), os.path.join(tmp, name + "-torch.json"))


def pipeline_part(args, py, tmp):
    bench = os.path.join(args.source, "tools", "bench")
    ck = os.path.join(tmp, "tiny")
    run([args.cli, "make-checkpoint", "--dims", "tiny", "--out", ck])
    cuda_json, torch_json, summary = (os.path.join(tmp, n) for n in ("cuda-bench.json", "torch-bench.json", "summary.md"))
    grid = ["--lengths", "48,80", "--prompt-len", "16", "--batch", "1,2"]
    run([args.tool, "steps", "--model", ck, "--json", cuda_json, "--fractions", "1,0.5", "--reps", "2"] + grid)
    run([py, os.path.join(bench, "torch_llada_reference.py"), "--model", ck, "--device", "cpu", "--dtype", "fp32",
         "--reps", "2", "--warmup", "1", "--json", torch_json] + grid)
    with open(cuda_json) as f:
        c = json.load(f)
    points = [(p["n"], p["batch"]) for p in c["points"]]
    assert points == [(48, 1), (48, 2), (80, 1), (80, 2)], points
    for p in c["points"]:
        assert p["dense"]["rows"] == p["n"] and p["dense"]["head_rows"] == p["gen"], p["dense"]
        rows = [s["rows"] for s in p["sparse"]]
        assert rows == [p["gen"], round(0.5 * p["gen"])], rows
        assert all(s["head_rows"] == s["rows"] for s in p["sparse"])
        assert p["dense"]["ms"] > 0 and p["dense"]["roofline_ms"] > 0
    r = run([py, os.path.join(bench, "summarize_gpu_bench.py"), "--cuda", cuda_json, "--torch", torch_json,
             "--out", summary])
    with open(summary) as f:
        text = f.read()
    for needle in ("| 48 | 1 |", "| 80 | 2 |", "50% rows / dense", "≤ 0.8× PyTorch", "Goals:", "statistics share",
                   "row statistics < 10% of the dense step"):
        if needle not in text:
            raise SystemExit(f"FAIL: summary.md lacks {needle!r}:\n{text}")
    # N < 576: the roofline goal does not apply.
    if "| n/a |" not in text:
        raise SystemExit("FAIL: the roofline goal should read n/a below N = 576:\n" + text)
    print(r.stdout)

    script = os.path.join(bench, "gpu_bench.sh")
    out = os.path.join(tmp, "gpu-out")
    dry = run(["bash", script, out, "--dry-run", "--reps", "3", "--dims", "tiny", "--checkpoint", ck + "-gpu"])
    for needle in ("make-checkpoint --dims tiny", "bench --section forward-cuda", "--reps 3",
                   "torch_llada_reference.py", "summarize_gpu_bench.py", "dry run", "gpu_parity.py",
                   "bench --section decode", "--strategies LLaDA\\ low-confidence", "SureLock\\ +\\ FreeCache",
                   "--json " + out + "/tiling-narrow4.json",
                   "DLM_CUDA_ATTENTION_TILING=narrow "):
        if needle not in dry.stdout:
            raise SystemExit(f"FAIL: gpu_bench.sh --dry-run does not show {needle!r}:\n{dry.stdout}")
    if os.path.exists(out):
        raise SystemExit("FAIL: gpu_bench.sh --dry-run created the output folder")
    for bad in (["--reps", "0"], ["--bogus"], ["a", "b"], ["--lengths"], ["--dims", "huge"], ["--batch", "1,x"],
                ["--steps", "forward,bogus"], ["--profile-timeout", "x"]):
        r = subprocess.run(["bash", script, "--dry-run"] + bad, capture_output=True, text=True)
        if r.returncode != 2 or "gpu_bench.sh:" not in r.stderr:
            raise SystemExit(f"FAIL: gpu_bench.sh {' '.join(bad)} should be refused with status 2, got "
                             f"{r.returncode}: {r.stderr}")
    # tools/gpu_session.sh refuses what it cannot run before it starts anything.
    session = os.path.join(os.path.dirname(bench), "gpu_session.sh")
    for bad in (["--budget", "x", out], ["--bogus", out], [], ["a", "b"], ["--train-minutes-max", "-1", out],
                [out] + ["--variant", ""] * 3):
        r = subprocess.run(["bash", session] + bad, capture_output=True, text=True)
        if r.returncode != 2 or "gpu_session.sh:" not in r.stderr:
            raise SystemExit(f"FAIL: gpu_session.sh {' '.join(bad)} should be refused with status 2, got "
                             f"{r.returncode}: {r.stderr}")
    if os.path.exists(out):
        raise SystemExit("FAIL: a refused gpu_session.sh created the output folder")
    help_text = subprocess.run(["bash", session, "--help"], capture_output=True, text=True).stdout
    if "--variant" not in help_text or "set -" in help_text:
        raise SystemExit("FAIL: gpu_session.sh --help should print its whole comment and nothing after it:\n" + help_text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("part", choices=["logits", "pipeline"])
    ap.add_argument("--cli", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--source", required=True)
    args = ap.parse_args()
    py = torch_python_or_skip()
    print(f"PyTorch from {py}")
    with tempfile.TemporaryDirectory(prefix="dlm-torch-ref-") as tmp:
        (logits_part if args.part == "logits" else pipeline_part)(args, py, tmp)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
