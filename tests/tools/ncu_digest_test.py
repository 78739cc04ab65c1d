#!/usr/bin/env python3
"""tools/bench/ncu_digest.py: Nsight Compute's details CSV (after the bench's own output, as the
profile step captures it) becomes one row per kernel with the right numbers, the attention
kernel's rules, and its stall reasons largest first; a missing file is said so, not fatal.

  ncu_digest_test.py --source REPO
"""
import argparse
import os
import subprocess
import sys
import tempfile

HEAD = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
        '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value","Rule Name","Rule Type",'
        '"Rule Description","Estimated Speedup Type","Estimated Speedup"')


def row(i, kernel, section, metric, unit, value, rule="", gain=""):
    return (f'"{i}","1","cli","h","{kernel}","1","7","(128, 1, 1)","(544, 1, 1)","0","9.0","{section}",'
            f'"{metric}","{unit}","{value}","","","{rule}","","{gain}"')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    a = ap.parse_args()
    attn = "void (anonymous namespace)::flash_attention_kernel<128>((anonymous namespace)::Args)"
    norm = "void (anonymous namespace)::rms_norm_kernel<1>(const float *, int)"
    kernels = ["bench: the report comes first", "==PROF== Connected", HEAD,
               row(0, norm, "GPU Speed Of Light Throughput", "Duration", "ns", "12,670"),
               row(0, norm, "Launch Statistics", "Registers Per Thread", "register/thread", "30"),
               row(1, attn, "GPU Speed Of Light Throughput", "Duration", "ns", "398,944"),
               row(1, attn, "GPU Speed Of Light Throughput", "Compute (SM) Throughput", "%", "23.65"),
               row(1, attn, "Launch Statistics", "Dynamic Shared Memory Per Block", "byte/block", "87,040"),
               row(1, attn, "Occupancy", "Theoretical Occupancy", "%", "12.50"),
               row(1, attn, "Occupancy", "Achieved Occupancy", "%", "12.40"),
               row(1, attn, "WarpStateStats", "", "", "", "each warp waits on a fixed latency dependency", "34.44"),
               row(2, attn, "GPU Speed Of Light Throughput", "Duration", "ns", "999,999")]  # a later launch
    stalls = [HEAD,
              row(0, attn, "Command line profiler metrics", "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio", "", "2.0"),
              row(0, attn, "Command line profiler metrics", "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", "", "0.5"),
              row(0, attn, "Command line profiler metrics", "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", "", "1.5"),
              row(0, attn, "Command line profiler metrics", "smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio", "", "0")]
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name, lines in (("kernels", kernels), ("stalls", stalls)):
            paths[name] = os.path.join(tmp, name + ".csv")
            with open(paths[name], "w") as f:
                f.write("\n".join(lines) + "\n")
        out = os.path.join(tmp, "digest.md")
        subprocess.run([sys.executable, os.path.join(a.source, "tools", "bench", "ncu_digest.py"),
                        "--kernels", paths["kernels"], "--gemms", os.path.join(tmp, "missing.csv"),
                        "--stalls", paths["stalls"], "--out", out], check=True, capture_output=True)
        doc = open(out).read()
    print(doc)
    checks = [
        ("| `rms_norm_kernel<1>` | 12.67 |" in doc, "the first kernel's duration in µs"),
        ("| `flash_attention_kernel<128>` | 398.9 | 23.65 |" in doc, "the attention's first launch, not its later one"),
        ("999" not in doc, "a later launch of the same kernel is left out"),
        ("| 85 | 12.5 / 12.4 |" in doc, "shared memory in KB and the two occupancies"),
        ("fixed latency dependency" in doc, "the attention kernel's stall rule"),
        ("No table in" in doc and "missing.csv" in doc, "a missing file is said so"),
        (doc.index("| wait | 2 | 50.0% |") < doc.index("| long_scoreboard | 1.5 | 37.5% |") < doc.index("| barrier |"),
         "stall reasons largest first, with their shares"),
        ("sleeping" not in doc, "reasons that cost nothing are left out"),
    ]
    failed = [what for ok, what in checks if not ok]
    if failed:
        raise SystemExit("FAIL: " + "; ".join(failed))
    print("PASS")


if __name__ == "__main__":
    main()
