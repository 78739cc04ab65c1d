#!/usr/bin/python3
"""Plots of `dlmscope-cli bench --section strategies` (docs/benchmarks.md, section "strategies").

Reads the JSON the bench writes (default docs/bench/strategies.json) and writes two PNGs:
  <img>/bench-strategies-step-flops.png  per-step paper-FLOPs ratio F_t / F_base,t (SureLock paper
                                         Fig. 2), one line per canvas length: the default SureLock
                                         at every generation length, and the epsilon x m sweep on
                                         the sweep's longest canvas;
  <img>/bench-strategies-tradeoff.png    accuracy against the FLOPs ratio to the baseline, per preset.

Usage: /usr/bin/python3 tools/scripts/plot_strategies.py [--data FILE] [--img DIR]
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def place_labels(fig, ax, points, fontsize):
    """Labels the points so that no two labels overlap: presets often share a point (the same
    accuracy at nearly the same FLOPs), and labels drawn at their points were unreadable there.
    Each label takes the first offset, right of its point and stepping up and down, whose box
    (estimated from its length) meets no label placed before it."""
    fig.canvas.draw()  # fixes the axis limits, so data map to pixels as they will be drawn
    px = fig.dpi / 72.0
    h = fontsize * 1.3 * px
    placed = []
    offsets = [(4, 2)] + [(4, 2 + sign * k * fontsize * 1.4) for k in range(1, 12) for sign in (1, -1)]
    for x, y, text in sorted(points, key=lambda p: (p[0], -p[1])):
        x0, y0 = ax.transData.transform((x, y))
        w = len(text) * fontsize * 0.6 * px
        for dx, dy in offsets:
            box = (x0 + dx * px, y0 + dy * px, x0 + dx * px + w, y0 + dy * px + h)
            if all(box[2] <= b[0] or box[0] >= b[2] or box[3] <= b[1] or box[1] >= b[3] for b in placed):
                break
        placed.append(box)
        ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points", fontsize=fontsize,
                    arrowprops=None if (dx, dy) == offsets[0] else dict(arrowstyle="-", lw=0.4, color="0.6"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="docs/bench/strategies.json")
    ap.add_argument("--img", default="docs/img")
    args = ap.parse_args()
    try:
        with open(args.data, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        print(f"plot_strategies: cannot read {args.data}: {e}", file=sys.stderr)
        return 1
    runs = data.get("runs", [])
    if not runs:
        print(f"plot_strategies: {args.data} has no runs", file=sys.stderr)
        return 1
    os.makedirs(args.img, exist_ok=True)
    sweep_gen = data.get("sweep_gen")

    def canvas(gen):
        # gen_length 0: each example on its family's canvas (bench --gen-lens family)
        return "family canvases" if gen == 0 else f"N_gen={gen}"

    # 1. Per-step FLOPs ratio, one line per canvas length (steps of different canvases do not align).
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    sweep_canvas = None
    for r in runs:
        by_canvas = r.get("step_flops_ratio_by_canvas", {})
        if r["label"] == "SureLock" and not r["sweep"]:  # the preset's name (the app's preset box)
            for length, curve in sorted(by_canvas.items(), key=lambda kv: int(kv[0])):
                where = f"canvas {length}" if r["gen_length"] == 0 else canvas(r["gen_length"])
                axes[0].plot(range(len(curve)), curve, label=where)
        if r["sweep"] and r["gen_length"] == sweep_gen and by_canvas:
            sweep_canvas = max(by_canvas, key=int)
            curve = by_canvas[sweep_canvas]
            axes[1].plot(range(len(curve)), curve, label=r["label"].replace("SureLock ", ""))
    axes[0].set_title("SureLock (eps=5e-3, m=20%): per-step FLOPs ratio")
    axes[1].set_title(f"SureLock sweep, {canvas(sweep_gen)}" + (f" (canvas {sweep_canvas})" if sweep_gen == 0 and sweep_canvas else ""))
    for ax in axes:
        ax.set_xlabel("step")
        ax.set_ylabel("F_t / F_base,t")
        ax.set_ylim(0, 1.05)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    out1 = os.path.join(args.img, "bench-strategies-step-flops.png")
    fig.savefig(out1, dpi=110)

    # 2. Accuracy vs FLOPs ratio.
    fig, ax = plt.subplots(figsize=(7.5, 5))
    markers = {0: "D", 64: "o", 128: "s", 256: "^"}
    points = []
    for r in runs:
        if r["sweep"]:
            continue
        ax.scatter(r["flops_ratio"], 100 * r["accuracy"], marker=markers.get(r["gen_length"], "x"))
        where = "" if r["gen_length"] == 0 else f" ({r['gen_length']})"
        points.append((r["flops_ratio"], 100 * r["accuracy"], f"{r['label']}{where}"))
    place_labels(fig, ax, points, fontsize=6)
    ax.set_xlabel("paper FLOPs / baseline FLOPs")
    ax.set_ylabel("accuracy (%)")
    ax.set_title("Accuracy next to compute (marker: D family canvases, o 64, s 128, ^ 256)")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    out2 = os.path.join(args.img, "bench-strategies-tradeoff.png")
    fig.savefig(out2, dpi=110)
    print(f"wrote {out1} and {out2}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
