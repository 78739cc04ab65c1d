#!/usr/bin/python3
"""Learning curve PNG from a training run's curve.csv (train.py --curve-every): greedy accuracy per
family on the fixed validation sample against examples seen.

  /usr/bin/python3 tools/train/plot_curve.py WORK/curve.csv OUT.png "tiny-mdlm"

Several runs that continue one another (resumed stages whose families differ) go in one plot:
give their curve.csv files comma-separated, in order; a family a stage did not measure is a gap.
"""
import csv
import sys


def main():
    src, png, title = sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows, families = [], []
    for path in src.split(","):
        for r in csv.DictReader(open(path)):
            rows.append(r)
            families += [k for k in r if k not in ("step", "examples_seen", "elapsed_s") and k not in families]
    if not rows:
        sys.exit(f"plot_curve: {src} has no points")
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    for f in families:
        pts = [(int(r["examples_seen"]) / 1000, 100 * float(r[f])) for r in rows if r.get(f) not in (None, "")]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", ms=3, label=f)
    ax.set_xlabel("training examples seen (thousands)")
    ax.set_ylabel("exact match on validation sample (%)")
    ax.set_ylim(-2, 102)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png)


if __name__ == "__main__":
    main()
