#!/usr/bin/env python3
"""A decode in the app against the same decode in the CLI: step time of the engine with the UI
attached (the app's own trace, --save-trace) vs `dlmscope-cli run --trace`, same model, prompt,
settings and default threads (what a user gets from each), interleaved round by round so that
machine load drifts equally.

  tools/bench/app_vs_cli.py [--build build] [--model DIR] [--rounds 5] [--gen-len 160]
                            [--out RESULT.json]

Prints a markdown table (median step time of each, and their ratio app / CLI) and writes the raw
numbers as JSON. The app runs offscreen (QT_QPA_PLATFORM=offscreen) unless DISPLAY is set.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PROMPT = "Sam buys 3 notebooks at $4 each and 2 pens at $3 each. How much does Sam spend in total?"


def step_ms(trace):
    """Wall time of every step of an NDJSON trace, in ms."""
    out = []
    with open(trace) as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") == "step" and rec.get("wall_ms") is not None:
                out.append(float(rec["wall_ms"]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--model", default=os.path.join(ROOT, "resources", "models", "tiny-mdlm"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--gen-len", type=int, default=160)
    ap.add_argument("--strategy", default="baseline")
    ap.add_argument("--out", default=None, help="JSON with every round's numbers")
    a = ap.parse_args()
    cli = os.path.join(a.build, "tools", "cli", "dlmscope-cli")
    app = os.path.join(a.build, "app", "dlmscope")
    for exe in (cli, app):
        if not os.access(exe, os.X_OK):
            sys.exit(f"app_vs_cli: {exe} is not built (tools/dev.sh build)")
    settings = {"gen_length": a.gen_len, "steps": a.gen_len, "block_length": 0, "strategy": a.strategy,
                "temperature": 0}
    env = dict(os.environ)
    if not env.get("DISPLAY"):
        env["QT_QPA_PLATFORM"] = "offscreen"
    rounds = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.rounds):
            row = {}
            for who in ("cli", "app"):  # interleaved: the same load for both
                trace = os.path.join(tmp, f"{who}-{r}.ndjson")
                if who == "cli":
                    cmd = [cli, "run", "--model", a.model, "--prompt", PROMPT, "--trace", trace,
                           "--strategy", a.strategy, "--gen-len", str(a.gen_len),
                           "--steps", str(a.gen_len), "--block-len", "0", "--temperature", "0"]
                else:
                    cmd = [app, "--model", a.model, "--prompt", PROMPT, "--no-restore", "--autorun",
                           "--save-trace", trace, "--quit-when-done"]
                    for k, v in settings.items():
                        cmd += ["--set", f"{k}={v}"]
                t0 = time.time()
                res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
                if res.returncode != 0:
                    sys.exit(f"app_vs_cli: {who} failed ({res.returncode}): {res.stderr.strip()[-500:]}")
                ms = step_ms(trace)
                row[who] = {"steps": len(ms), "step_ms_median": statistics.median(ms), "step_ms_total": sum(ms),
                            "step_ms_max": max(ms), "process_s": time.time() - t0}
            rounds.append(row)
    med = {w: statistics.median(r[w]["step_ms_median"] for r in rounds) for w in ("cli", "app")}
    tot = {w: statistics.median(r[w]["step_ms_total"] for r in rounds) for w in ("cli", "app")}
    worst = {w: max(r[w]["step_ms_max"] for r in rounds) for w in ("cli", "app")}
    ratio = tot["app"] / tot["cli"]
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"App vs CLI, {os.path.basename(a.model)}, {a.strategy}, gen {a.gen_len}, default threads, "
          f"{a.rounds} interleaved rounds, {cpu} ({os.cpu_count()} logical CPUs)\n")
    print("| | median step (ms) | slowest step (ms, all rounds) | decode (ms, median of rounds) |")
    print("|---|---:|---:|---:|")
    print(f"| `dlmscope-cli run` | {med['cli']:.2f} | {worst['cli']:.1f} | {tot['cli']:.1f} |")
    print(f"| app (UI attached) | {med['app']:.2f} | {worst['app']:.1f} | {tot['app']:.1f} |")
    print(f"\n**app / CLI = {ratio:.3f}** (decode time)")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"model": a.model, "strategy": a.strategy, "gen_length": a.gen_len,
                       "cpu": cpu, "host": platform.node(), "rounds": rounds, "ratio": ratio}, f, indent=1)


if __name__ == "__main__":
    main()
