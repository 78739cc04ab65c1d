#!/usr/bin/env python3
"""CPU-vs-CUDA decode parity on the embedded model: the same prompts through the same presets at
temperature 0 on both backends must generate identical token ids.

  python3 tools/bench/gpu_parity.py --cli PATH/dlmscope-cli [--model resources/models/tiny-mdlm]
      [--strategies baseline,surelock,fast-dllm,cover,wino] [--per-family 1] [--out FILE.md]
      [--jobs N]

One prompt per task family of resources/eval/test.jsonl (at its gen_length) by default. Prints a
markdown table (and writes it to --out, rewritten as each pair is decided, so a time limit leaves
every finished pair on file); exits 1 when any pair differs or a run fails.
"""
import argparse
import concurrent.futures
import json
import math
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Logit margin under which two backends of different precision may pick different tokens: the
# CUDA backend's logits differ from the CPU's by ~1e-2 (bf16 activations into fp32-accumulated
# GEMMs, tests/gpu/gpu_test_support.h).
NEAR_TIE = 0.05


def run(cli, model, backend, strategy, prompt, gen, trace=None):
    cmd = [cli, "run", "--model", model, "--backend", backend, "--strategy", strategy,
           "--gen-len", str(gen), "--prompt", prompt, "--json"]
    if trace:
        cmd += ["--trace", trace, "--set", "display_top_k=2"]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {p.stderr.strip()[-300:]}", time.time() - t0
    return json.loads(p.stdout.strip().splitlines()[-1]), p.stderr.strip(), time.time() - t0


def trace_steps(path):
    with open(path) as f:
        return [r for r in map(json.loads, f) if r.get("type") == "step"]


def best_two(pos):
    top = pos.get("top") or []
    if len(top) < 2 or top[1]["p"] <= 0:
        return None
    return top[0], top[1], math.log(top[0]["p"] / top[1]["p"])


def committed(step, masked_before):
    """Positions that were masked before this step and hold a token after it."""
    return {p["pos"]: p for p in step["positions"] if p["pos"] in masked_before and p["state"] != "masked"}


def first_parting(cpu_steps, gpu_steps):
    """Where two traces of one decode first part: (step, description, near_tie), or None.

    Two backends part in one of two ways. Either they commit the same position with different
    tokens (a near-tie between its two best tokens), or they commit different positions (a
    near-tie between the confidences that rank the positions, or, where only one backend commits,
    between the two backends' confidences of that position, with the commit threshold between)."""
    masked = {p["pos"] for p in cpu_steps[0]["positions"]} if cpu_steps else set()
    for a, b in zip(cpu_steps, gpu_steps):
        ca, cb = committed(a, masked), committed(b, masked)
        same_pos_other_token = [i for i in ca if i in cb and ca[i]["token"] != cb[i]["token"]]
        if same_pos_other_token:
            i = same_pos_other_token[0]
            ta, tb = best_two(ca[i]), best_two(cb[i])
            margins = [t[2] for t in (ta, tb) if t]

            def show(t):
                return "?" if t is None else f"{t[0]['id']} (p {t[0]['p']:.4f}) over {t[1]['id']} (p {t[1]['p']:.4f}), margin {t[2]:.3f}"
            return (a["step"], f"position {i}: cpu {show(ta)}; cuda {show(tb)}",
                    bool(margins) and min(margins) < NEAR_TIE)
        only_a, only_b = set(ca) - set(cb), set(cb) - set(ca)
        if only_a or only_b:
            conf_a = {p["pos"]: p.get("confidence") or 0.0 for p in a["positions"]}
            conf_b = {p["pos"]: p.get("confidence") or 0.0 for p in b["positions"]}
            shown = sorted(only_a | only_b)[:4]
            text = (f"cpu committed {sorted(only_a)[:4]}, cuda {sorted(only_b)[:4]} (confidence at "
                    f"{shown}: cpu {', '.join(format(conf_a[i], '.6g') for i in shown)}; "
                    f"cuda {', '.join(format(conf_b[i], '.6g') for i in shown)})")
            if only_a and only_b:  # each ranked its own choice first: by how much?
                x, y = max(only_a, key=lambda i: conf_a[i]), max(only_b, key=lambda i: conf_b[i])
                margins = [abs(math.log(max(c[x], 1e-30) / max(c[y], 1e-30))) for c in (conf_a, conf_b)]
                text += f", confidence margin {min(margins):.3f}"
                return a["step"], text, min(margins) < NEAR_TIE
            # One backend committed what the other left masked (a threshold strategy). Where both
            # gave it nearly the same confidence, the commit threshold lies between the two: a
            # near-tie with the threshold, not a wrong confidence.
            x = max(only_a | only_b, key=lambda i: max(conf_a[i], conf_b[i]))
            margin = abs(math.log(max(conf_a[x], 1e-30) / max(conf_b[x], 1e-30)))
            text += f", position {x}'s confidence differs by {margin:.4f} (log ratio): committed by one backend only"
            return a["step"], text, margin < NEAR_TIE
        masked -= set(ca)
    return None


def describe_parting(cli, model, strategy, ex):
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for backend in ("cpu", "cuda"):
            paths[backend] = os.path.join(tmp, backend + ".ndjson")
            out, err, _ = run(cli, model, backend, strategy, ex["prompt"], ex["gen_length"], trace=paths[backend])
            if out is None:
                return f"traced rerun failed: {err[-120:]}", False
        parting = first_parting(trace_steps(paths["cpu"]), trace_steps(paths["cuda"]))
    if parting is None:
        return "the traced reruns did not part", False
    step, text, tie = parting
    verdict = " — near-tie" if tie else " — **not a near-tie**"
    return f"step {step}, {text}{verdict}", bool(tie)


def compare(cli, model, strategy, ex):
    """One prompt through one preset on both backends: (table line, differs, parted at a near-tie)."""
    cpu, cpu_err, _ = run(cli, model, "cpu", strategy, ex["prompt"], ex["gen_length"])
    gpu, gpu_err, _ = run(cli, model, "cuda", strategy, ex["prompt"], ex["gen_length"])
    head = f"| {strategy} | {ex['family']} | {ex['gen_length']} |"
    if cpu is None or gpu is None:
        why = cpu_err if cpu is None else gpu_err
        return f"{head} **run failed** | | {why.replace('|', '/')} | |", True, False
    if gpu.get("backend") != "cuda":
        return f"{head} **not on CUDA** ({gpu_err.replace('|', '/')}) | | | |", True, False
    a_ids, b_ids = cpu["generated_ids"], gpu["generated_ids"]
    same = a_ids == b_ids
    # The first differing position; where one is a prefix of the other, the end of the shorter.
    first = next((i for i, (x, y) in enumerate(zip(a_ids, b_ids)) if x != y), min(len(a_ids), len(b_ids)))
    where, tie = "", False
    if not same:
        parting, tie = describe_parting(cli, model, strategy, ex)
        at = [ids[first] if first < len(ids) else "end" for ids in (a_ids, b_ids)]
        where = f"ids differ from position {first} ({at[0]} vs {at[1]}); parted at {parting}"
    text = gpu["text"].replace("\n", " ⏎ ").replace("|", "/")[:80]
    return (f"{head} {'yes' if same else '**no**'} | {cpu['steps']} / {gpu['steps']} | "
            f"{where.replace('|', '/')} | {text} |"), not same, bool(tie)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--model", default=os.path.join(ROOT, "resources/models/tiny-mdlm"))
    ap.add_argument("--split", default=os.path.join(ROOT, "resources/eval/test.jsonl"))
    ap.add_argument("--strategies", default="baseline,surelock,fast-dllm,cover,wino")
    ap.add_argument("--per-family", type=int, default=1)
    ap.add_argument("--out", default="")
    ap.add_argument("--jobs", type=int, default=min(8, os.cpu_count() or 1),
                    help="prompt/preset pairs decoded side by side (default: min(8, cores))")
    a = ap.parse_args()

    seen, prompts = {}, []
    with open(a.split) as f:
        for line in f:
            ex = json.loads(line)
            if seen.get(ex["family"], 0) < a.per_family:
                seen[ex["family"]] = seen.get(ex["family"], 0) + 1
                prompts.append(ex)

    header = ["| preset | family | gen | identical ids | steps cpu / cuda | first difference | cuda text |",
              "|---|---|---|---|---|---|---|"]
    pairs = [(strategy, ex) for strategy in a.strategies.split(",") for ex in prompts]
    rows = [None] * len(pairs)  # (table line, differs, near-tie) in the order of `pairs`

    def write(final):
        done = [r for r in rows if r is not None]
        failures = sum(r[1] for r in done)
        near_ties = sum(r[2] for r in done)
        summary = (f"{len(done) - failures} of {len(done)} decodes identical on CPU and CUDA (temperature 0, ids compared)"
                   + (f"; of the {failures} others, {near_ties} parted first at a near-tie (logit margin under {NEAR_TIE})."
                      if failures else "."))
        if not final:  # a time limit may stop the run: the file always holds every pair decided so far
            summary += f" Partial: {len(done)} of {len(pairs)} pairs decided so far."
        doc = "\n".join(header + [r[0] for r in done] + ["", summary]) + "\n"
        if a.out:
            with open(a.out + ".tmp", "w") as f:
                f.write(doc)
            os.replace(a.out + ".tmp", a.out)
        return doc, failures

    # Pairs run side by side (each decode is one CPU thread on the embedded model): the CPU
    # decodes dominate, and a GPU session runs this beside training.
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futures = {pool.submit(compare, a.cli, a.model, strategy, ex): i for i, (strategy, ex) in enumerate(pairs)}
        for fut in concurrent.futures.as_completed(futures):
            rows[futures[fut]] = fut.result()
            print(rows[futures[fut]][0], flush=True)
            write(final=False)
    doc, failures = write(final=True)
    print(doc)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
