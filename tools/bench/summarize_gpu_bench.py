#!/usr/bin/env python3
"""Turns the two reports of tools/bench/gpu_bench.sh into summary.md.

  summarize_gpu_bench.py --cuda cuda-bench.json --torch torch-bench.json --out summary.md

cuda-bench.json comes from `dlmscope-cli bench --section forward-cuda --json` (schema
dlmscope-step-bench/1), torch-bench.json from tools/bench/torch_llada_reference.py (schema
dlmscope-torch-bench/1). One table row per (N, batch): dlmscope's and PyTorch's ms per dense step
and their ratio, dlmscope's % of roofline, the SureLock-shaped steps' time ratios to the dense
step, and whether the CUDA backend's goals were met:

  * dense step <= 0.8 x PyTorch's time;
  * dense step >= 70% of the roofline, for N >= 576 (n/a below);
  * with 50% of the generated rows computed, <= 0.6 x the dense step's time.

A missing or failed report is said so in the summary instead of stopping it.
"""

import argparse
import json
import os
import sys

GOAL_VS_TORCH = 0.8
GOAL_ROOFLINE_PCT = 70.0
GOAL_ROOFLINE_MIN_N = 576
GOAL_HALF_ROWS = 0.6
GOAL_QUARTER_ROWS = 0.35
GOAL_STATS_SHARE = 0.10


def load(path, schema):
    if not path or not os.path.exists(path):
        return None, f"{path or 'report'}: missing"
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        return None, f"{path}: unreadable ({e})"
    if data.get("schema") != schema:
        return None, f"{path}: schema {data.get('schema')!r}, expected {schema!r}"
    return data, None


def yes_no(ok):
    return "n/a" if ok is None else ("yes" if ok else "**no**")


def fmt(v, digits=2, suffix=""):
    return "—" if v is None else f"{v:.{digits}f}{suffix}"


def summarize(cuda, torch, notes):
    torch_ms = {}
    if torch:
        for p in torch["points"]:
            torch_ms[(p["n"], p["batch"])] = p["dense"]["ms"]
    fractions = []
    if cuda:
        for p in cuda["points"]:
            for s in p["sparse"]:
                if s["fraction"] not in fractions:
                    fractions.append(s["fraction"])
    lines = ["# dlmscope CUDA backend vs eager PyTorch", ""]
    if cuda:
        m = cuda["model"]
        lines += [
            f"- device: {cuda['device']}",
            f"- model: random-weight llada, L={m['n_layers']}, d={m['d_model']}, H={m['n_heads']}, "
            f"d_ff={m['d_ff']}, V={m['vocab_size']} ({m['parameters']:,} parameters)",
            f"- roofline ceilings: {cuda['roofline']['gemm_tflops']:.4g} TFLOP/s bf16 GEMM, "
            f"{cuda['roofline']['copy_gbps']:.4g} GB/s copy ({cuda['roofline']['how']})",
            f"- dlmscope: median of {cuda['reps']} steps after {cuda['warmup']} warm-ups, wall clock; "
            f"a step = forward over the {cuda['prompt_len']} prompt and the generated positions (N in all), "
            "LM head and argmax/confidence of the generated rows, back on the host",
        ]
    if torch:
        lines.append(f"- PyTorch {torch['torch']} eager, {torch['dtype']}, "
                     f"{'fused' if torch.get('fused_projections') else 'separate'} QKV and gate/up, "
                     f"{torch['attention']}; {torch['timing']}, median of {torch['reps']}")
    for n in notes:
        lines.append(f"- **{n}**")
    lines.append("")

    header = ["N", "batch", "dlmscope ms", "PyTorch ms", "dlmscope / PyTorch", "% of roofline"]
    header += [f"{round(100 * f)}% rows / dense" for f in fractions]
    header += [f"≤ {GOAL_VS_TORCH}× PyTorch", f"≥ {GOAL_ROOFLINE_PCT:.0f}% roofline (N ≥ {GOAL_ROOFLINE_MIN_N})",
               f"50% rows ≤ {GOAL_HALF_ROWS}× dense", f"25% rows ≤ {GOAL_QUARTER_ROWS}× dense",
               "statistics share", f"statistics < {100 * GOAL_STATS_SHARE:.0f}%"]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    met = {"torch": [], "roofline": [], "half": [], "quarter": [], "stats": []}
    keys = [(p["n"], p["batch"]) for p in cuda["points"]] if cuda else sorted(torch_ms)
    by_key = {(p["n"], p["batch"]): p for p in cuda["points"]} if cuda else {}
    for key in keys:
        p = by_key.get(key)
        dense_ms = p["dense"]["ms"] if p else None
        tms = torch_ms.get(key)
        ratio = dense_ms / tms if dense_ms and tms else None
        roof = p["dense"]["roofline_pct"] if p else None
        sparse = {s["fraction"]: s["ratio_to_dense"] for s in p["sparse"]} if p else {}
        g_torch = None if ratio is None else ratio <= GOAL_VS_TORCH
        g_roof = None if roof is None or key[0] < GOAL_ROOFLINE_MIN_N else roof >= GOAL_ROOFLINE_PCT
        g_half = None if 0.5 not in sparse else sparse[0.5] <= GOAL_HALF_ROWS
        g_quarter = None if 0.25 not in sparse else sparse[0.25] <= GOAL_QUARTER_ROWS
        share = p["dense"].get("stats_share") if p else None
        g_stats = None if share is None else share < GOAL_STATS_SHARE
        for name, g in (("torch", g_torch), ("roofline", g_roof), ("half", g_half), ("quarter", g_quarter),
                        ("stats", g_stats)):
            if g is not None:
                met[name].append(g)
        row = [str(key[0]), str(key[1]), fmt(dense_ms), fmt(tms), fmt(ratio, 3), fmt(roof, 1, "%")]
        row += [fmt(sparse.get(f), 3) for f in fractions]
        row += [yes_no(g_torch), yes_no(g_roof), yes_no(g_half), yes_no(g_quarter),
                fmt(None if share is None else 100 * share, 1, "%"), yes_no(g_stats)]
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")

    def verdict(name, label):
        v = met[name]
        if not v:
            return f"- {label}: not measured"
        return f"- {label}: met in {sum(v)} of {len(v)} configurations" + (" — **all met**" if all(v) else "")

    lines += ["Goals:", verdict("torch", f"dense step ≤ {GOAL_VS_TORCH}× PyTorch's time"),
              verdict("roofline", f"dense step ≥ {GOAL_ROOFLINE_PCT:.0f}% of roofline for N ≥ {GOAL_ROOFLINE_MIN_N}"),
              verdict("half", f"50% of rows computed ≤ {GOAL_HALF_ROWS}× the dense step"),
              verdict("quarter", f"25% of rows computed ≤ {GOAL_QUARTER_ROWS}× the dense step"),
              verdict("stats", f"row statistics < {100 * GOAL_STATS_SHARE:.0f}% of the dense step"), ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cuda", required=True, help="dlmscope-cli bench --json report")
    ap.add_argument("--torch", required=True, help="torch_llada_reference.py --json report")
    ap.add_argument("--out", help="markdown file to write (default: print)")
    args = ap.parse_args()
    cuda, cuda_err = load(args.cuda, "dlmscope-step-bench/1")
    torch, torch_err = load(args.torch, "dlmscope-torch-bench/1")
    notes = [e for e in (cuda_err, torch_err) if e]
    if not cuda and not torch:
        notes.append("no results at all")
    text = summarize(cuda, torch, notes)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    print(text)
    return 0 if cuda and torch else 1


if __name__ == "__main__":
    sys.exit(main())
