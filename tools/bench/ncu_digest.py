#!/usr/bin/env python3
"""Digests the Nsight Compute tables of tools/bench/gpu_bench.sh's profile step into markdown.

  ncu_digest.py --kernels ncu-kernels.csv [--gemms ncu-gemms.csv] [--stalls ncu-stalls.csv] --out ncu-digest.md

Each CSV is what `ncu --csv --page details` printed (the command's other output, the bench's own
report included, is skipped: the table starts at the line that begins with "ID"). One row per
kernel name, its first profiled launch: duration, SM and memory throughput, registers, dynamic
shared memory, theoretical and achieved occupancy and, where the profile has them, the scheduler's
eligible warps and the cycles between two issued instructions. Then the warp-stall rules Nsight
Compute wrote for the engine's kernels (why a latency-bound kernel waits) and, from ncu-stalls.csv,
the attention kernel's stall reasons per issued instruction, largest first. A missing file is
skipped with a line that says so.
"""
import argparse
import csv
import io
import os
import sys

COLUMNS = [  # (heading, section, metric, scale)
    ("duration µs", "GPU Speed Of Light Throughput", "Duration", 1e-3),
    ("SM throughput %", "GPU Speed Of Light Throughput", "Compute (SM) Throughput", 1),
    ("memory throughput %", "GPU Speed Of Light Throughput", "Memory Throughput", 1),
    ("registers/thread", "Launch Statistics", "Registers Per Thread", 1),
    ("dyn. shared KB", "Launch Statistics", "Dynamic Shared Memory Per Block", 1 / 1024),
    ("theoretical / achieved occupancy %", "Occupancy", ("Theoretical Occupancy", "Achieved Occupancy"), 1),
    ("eligible warps / scheduler", "Scheduler Statistics", "Eligible Warps Per Scheduler", 1),
    ("cycles per issue", "Warp State Statistics", "Warp Cycles Per Issued Instruction", 1),
]


def read_table(path):
    """The rows of ncu's details CSV, or None when the file is missing or holds no table."""
    if not path or not os.path.exists(path):
        return None
    lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return None
    body = [line for line in lines[start:] if line.startswith('"')]
    return list(csv.DictReader(io.StringIO("\n".join(body))))


def number(text):
    try:
        return float(text.replace(",", ""))
    except (AttributeError, ValueError):
        return None


def short_name(name):
    """`void (anonymous namespace)::flash_attention_kernel<128>(...)` -> `flash_attention_kernel<128>`."""
    head = name.replace("(anonymous namespace)::", "").removeprefix("void ").split("(")[0]
    return head.split("::")[-1].strip() or name[:60]


def first_launches(rows):
    """{kernel short name: {(section, metric): value}} for the first launch of each name."""
    by_id, order = {}, []
    for r in rows:
        key = r["ID"]
        if key not in by_id:
            by_id[key] = {"name": short_name(r["Kernel Name"]), "metrics": {}, "rules": []}
            order.append(key)
        entry = by_id[key]
        if r.get("Metric Name"):
            entry["metrics"][(r["Section Name"], r["Metric Name"])] = r["Metric Value"]
        if r.get("Rule Description"):
            entry["rules"].append((r.get("Section Name", ""), r.get("Estimated Speedup", ""), r["Rule Description"]))
    kernels = {}
    for key in order:
        kernels.setdefault(by_id[key]["name"], by_id[key])
    return kernels


def cell(metrics, section, metric, scale):
    if isinstance(metric, tuple):
        values = [number(metrics.get((section, m))) for m in metric]
        return " / ".join("–" if v is None else f"{v * scale:.4g}" for v in values)
    v = number(metrics.get((section, metric)))
    return "–" if v is None else f"{v * scale:.4g}"


def kernel_table(title, rows):
    kernels = first_launches(rows)
    out = [f"### {title}", "", "| kernel (first launch) | " + " | ".join(c[0] for c in COLUMNS) + " |",
           "|---|" + "---:|" * len(COLUMNS)]
    for name, k in kernels.items():
        out.append(f"| `{name}` | " + " | ".join(cell(k["metrics"], s, m, sc) for _, s, m, sc in COLUMNS) + " |")
    return out, kernels


def stall_table(rows):
    """The stall reasons of the first profiled launch, in cycles per issued instruction."""
    first = rows[0]["ID"]
    stalls = []
    for r in rows:
        if r["ID"] != first:
            continue
        name = r.get("Metric Name", "")
        prefix, suffix = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"
        if name.startswith(prefix) and name.endswith(suffix):
            v = number(r["Metric Value"])
            if v is not None:
                stalls.append((v, name[len(prefix):-len(suffix)]))
    stalls.sort(reverse=True)
    total = sum(v for v, _ in stalls) or 1.0
    out = [f"### Stall reasons of `{short_name(rows[0]['Kernel Name'])}`", "",
           "| reason | cycles per issued instruction | share |", "|---|---:|---:|"]
    out += [f"| {reason} | {v:.3g} | {100 * v / total:.1f}% |" for v, reason in stalls if v > 0]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--gemms")
    ap.add_argument("--stalls")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    doc = ["# Nsight Compute digest", ""]
    own = read_table(a.kernels)
    if own is None:
        doc.append(f"No table in {a.kernels}: Nsight Compute did not finish (see ncu.err).")
    else:
        lines, kernels = kernel_table("The engine's kernels", own)
        doc += lines + [""]
        doc += ["### What Nsight Compute says of them (warp stalls, scheduler, occupancy, launch)", ""]
        for name, k in kernels.items():
            for section, gain, text in k["rules"]:
                # Every kernel's main stall; for the attention kernel, the bottleneck, all four sections.
                wanted = ("WarpStateStats", "SchedulerStats", "Occupancy", "LaunchStats") if "attention" in name else ("WarpStateStats",)
                if section in wanted and gain:
                    doc.append(f"- `{name}`, {section} (estimated gain {gain} %): {' '.join(text.split())}")
        doc.append("")
    gemms = read_table(a.gemms)
    if gemms is not None:
        doc += kernel_table("cuBLAS's GEMMs", gemms)[0] + [""]
    elif a.gemms:
        doc += [f"No table in {a.gemms}.", ""]
    stalls = read_table(a.stalls)
    if stalls:
        doc += stall_table(stalls) + [""]
    elif a.stalls:
        doc += [f"No table in {a.stalls}.", ""]
    with open(a.out, "w") as f:
        f.write("\n".join(doc))
    print("\n".join(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
