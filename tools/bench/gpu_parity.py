#!/usr/bin/env python3
"""CPU-vs-CUDA decode parity on the embedded model: the same prompts through the same presets at
temperature 0 on both backends must generate identical token ids.

  python3 tools/bench/gpu_parity.py --cli PATH/dlmscope-cli [--model resources/models/tiny-mdlm]
      [--strategies baseline,surelock,fast-dllm,cover,wino] [--per-family 1] [--out FILE.md]

One prompt per task family of resources/eval/test.jsonl (at its gen_length) by default. Prints a
markdown table (and writes it to --out); exits 1 when any pair differs or a run fails.
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cli, model, backend, strategy, prompt, gen):
    cmd = [cli, "run", "--model", model, "--backend", backend, "--strategy", strategy,
           "--gen-len", str(gen), "--prompt", prompt, "--json"]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {p.stderr.strip()[-300:]}", time.time() - t0
    return json.loads(p.stdout.strip().splitlines()[-1]), p.stderr.strip(), time.time() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--model", default=os.path.join(ROOT, "resources/models/tiny-mdlm"))
    ap.add_argument("--split", default=os.path.join(ROOT, "resources/eval/test.jsonl"))
    ap.add_argument("--strategies", default="baseline,surelock,fast-dllm,cover,wino")
    ap.add_argument("--per-family", type=int, default=1)
    ap.add_argument("--out", default="")
    a = ap.parse_args()

    seen, prompts = {}, []
    with open(a.split) as f:
        for line in f:
            ex = json.loads(line)
            if seen.get(ex["family"], 0) < a.per_family:
                seen[ex["family"]] = seen.get(ex["family"], 0) + 1
                prompts.append(ex)

    lines = ["| preset | family | gen | identical ids | steps cpu / cuda | first difference | cuda text |",
             "|---|---|---|---|---|---|---|"]
    failures = 0
    for strategy in a.strategies.split(","):
        for ex in prompts:
            cpu, cpu_err, _ = run(a.cli, a.model, "cpu", strategy, ex["prompt"], ex["gen_length"])
            gpu, gpu_err, _ = run(a.cli, a.model, "cuda", strategy, ex["prompt"], ex["gen_length"])
            if cpu is None or gpu is None:
                failures += 1
                why = cpu_err if cpu is None else gpu_err
                lines.append(f"| {strategy} | {ex['family']} | {ex['gen_length']} | **run failed** | | {why.replace('|', '/')} | |")
                continue
            if gpu.get("backend") != "cuda":
                failures += 1
                lines.append(f"| {strategy} | {ex['family']} | {ex['gen_length']} | **not on CUDA** ({gpu_err.replace('|', '/')}) | | | |")
                continue
            a_ids, b_ids = cpu["generated_ids"], gpu["generated_ids"]
            same = a_ids == b_ids
            first = next((i for i, (x, y) in enumerate(zip(a_ids, b_ids)) if x != y), None)
            failures += 0 if same else 1
            text = gpu["text"].replace("\n", " ⏎ ").replace("|", "/")[:80]
            lines.append(f"| {strategy} | {ex['family']} | {ex['gen_length']} | {'yes' if same else '**no**'} | "
                         f"{cpu['steps']} / {gpu['steps']} | {'' if first is None else f'position {first}: {a_ids[first]} vs {b_ids[first]}'} | {text} |")
            print(lines[-1], flush=True)
    total = len(a.strategies.split(",")) * len(prompts)
    summary = f"{total - failures} of {total} decodes identical on CPU and CUDA (temperature 0, ids compared)."
    doc = "\n".join(lines + ["", summary]) + "\n"
    print(doc)
    if a.out:
        with open(a.out, "w") as f:
            f.write(doc)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
