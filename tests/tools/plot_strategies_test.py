#!/usr/bin/env python3
"""tools/scripts/plot_strategies.py: the strategies bench's raw data (family canvases, a SureLock
sweep) becomes the two PNGs, one line per canvas length; a file without runs is refused with a
message. Skips (exit 77) where no Python with matplotlib is found (this one, /usr/bin/python3).

  plot_strategies_test.py --source REPO
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def run(kind, label, sweep, curves):
    return {"gen_length": 0, "label": label, "strategy": kind, "sweep": sweep, "n": 2, "accuracy": 0.5,
            "avg_steps": 10, "flops_ratio": 0.5, "guider_flops_ratio": 0.0, "active_ratio": 0.5, "speedup": 1.5,
            "e2e_tps": 10, "wall_s": 1, "events": {}, "step_flops_ratio_by_canvas": curves}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    a = ap.parse_args()
    python = None
    for candidate in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(candidate) and subprocess.run([candidate, "-c", "import matplotlib"],
                                                        capture_output=True).returncode == 0:
            python = candidate
            break
    if python is None:
        print("no Python with matplotlib; skipping")
        return 77
    script = os.path.join(a.source, "tools", "scripts", "plot_strategies.py")
    curves = {"48": [1.0, 0.6, 0.3], "192": [1.0, 0.8, 0.6, 0.4, 0.2]}
    data = {"model": "tiny", "examples": 2, "sweep_gen": 0,
            "runs": [run("baseline", "LLaDA low-confidence", False, {k: [1.0] * len(v) for k, v in curves.items()}),
                     run("surelock", "SureLock", False, curves),
                     run("surelock", "SureLock + unlocking", False, {"48": [1.0, 0.7, 0.5]}),
                     run("surelock", "SureLock ε=5e-3 m=20%", True, curves)]}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.json")
        with open(path, "w") as f:
            json.dump(data, f)
        img = os.path.join(tmp, "img")
        r = subprocess.run([python, script, "--data", path, "--img", img], capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stdout, r.stderr)
            return 1
        for name in ("bench-strategies-step-flops.png", "bench-strategies-tradeoff.png"):
            p = os.path.join(img, name)
            if not os.path.exists(p) or os.path.getsize(p) < 1000:
                print(f"{name} was not written")
                return 1
        # One SureLock line per canvas: the labels plotted, read back by wrapping Axes.plot.
        probe = ("import json,sys,runpy; import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt\n"
                 "labels=[]\n"
                 "orig=plt.Axes.plot\n"
                 "def spy(self,*a,**k):\n    labels.append(k.get('label')); return orig(self,*a,**k)\n"
                 "plt.Axes.plot=spy\n"
                 f"sys.argv=['plot', '--data', {path!r}, '--img', {img!r}]\n"
                 "try:\n    runpy.run_path(" + repr(script) + ", run_name='__main__')\n"
                 "except SystemExit:\n    pass\n"
                 "print(json.dumps(labels))\n")
        r = subprocess.run([python, "-c", probe], capture_output=True, text=True)
        labels = json.loads(r.stdout.strip().splitlines()[-1])
        if sorted(l for l in labels if l and l.startswith("canvas")) != ["canvas 192", "canvas 48"]:
            print(f"expected one line per canvas of the SureLock preset alone, got {labels}")
            return 1
        if "ε=5e-3 m=20%" not in labels:
            print(f"expected the sweep's line labelled by its ε and m, got {labels}")
            return 1
        empty = os.path.join(tmp, "empty.json")
        with open(empty, "w") as f:
            json.dump({"runs": []}, f)
        r = subprocess.run([python, script, "--data", empty, "--img", img], capture_output=True, text=True)
        if r.returncode == 0 or "has no runs" not in r.stderr:
            print("a file without runs must be refused with a message:", r.returncode, r.stderr)
            return 1
    print("plot_strategies: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
