#!/usr/bin/python3
"""Python reference eval of a shipped tiny MDLM (or, as a sanity check, greedy decoding of the AR guider) with LLaDA's low-confidence sampler
(one block, steps = gen length, one token committed per step, temperature 0).

  /usr/bin/python3 tools/train/eval_py.py --model resources/models/tiny-mdlm \
      --split resources/eval/test.jsonl [--per-family 50] [--gen 48] [--show 3] [--predictions F.jsonl]

The gen length per example is the row's "gen_length" field (the recommended canvas per
family, see corpus.GEN_LENGTH) unless --gen is given. The answer is the text after the last
"####" in the decoded response (up to the first <|eot|>), trimmed, compared exactly.
--predictions writes every row's decode in the fields and order of `dlmscope-cli eval
--predictions`, so arithmetic_parts.py and word_problem_parts.py read either.
The MDLM's examples are batched whatever their prompt lengths (right-padded, the padding hidden
by the attention's key mask, so each row computes what it would alone); the AR guider's are
batched by prompt length.
Runs on the exported BF16 weights (upcast to fp32), i.e. exactly the shipped model.
"""
import argparse
import collections
import json
import os
import random
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402
import corpus  # noqa: E402
from golden import load_shipped  # noqa: E402


DIFFUSION_TYPES = ("llada", "Dream")  # config model_type of the MDLMs (the rest: the causal guider)


@torch.no_grad()
def llada_generate(model, prompts, gen):
    """prompts: a list of prompt id lists (any lengths). Returns [B, gen] committed tokens.
    LLaDA generate() with block_length = gen, steps = gen, temperature 0, low_confidence.
    Canvases of different lengths share a batch right-padded, the padding hidden from every row
    by the attention's key mask: each row computes what it would alone (its positions unchanged).
    A shifted-logit MDLM (Dream) reads masked token i from row i - 1, as the engine does."""
    lens = [len(p) for p in prompts]
    B, T = len(prompts), max(lens) + gen
    device = next(model.parameters()).device
    x = torch.full((B, T), C.PAD, dtype=torch.long)
    for b, p in enumerate(prompts):
        x[b, :len(p)] = torch.tensor(p, dtype=torch.long)
        x[b, len(p):len(p) + gen] = C.MASK
    x = x.to(device)
    key_mask = (torch.arange(T)[None, :] < torch.tensor(lens)[:, None] + gen).to(device)
    for _ in range(gen):
        mask = x == C.MASK
        if not mask.any():
            break
        logits = model(x, key_mask if min(lens) != max(lens) else None).float()
        if getattr(model, "shifted_logits", False):
            logits = torch.cat([logits[:, :1], logits[:, :-1]], 1)
        x0 = logits.argmax(-1)
        p = torch.softmax(logits, -1)
        conf = torch.gather(p, -1, x0[..., None])[..., 0]
        conf = torch.where(mask, conf, torch.full_like(conf, -float("inf")))
        j = conf.argmax(-1)                              # top-1 per row (k = 1 per step)
        rows = torch.arange(B, device=x.device)
        ok = mask[rows, j]
        x[rows[ok], j[ok]] = x0[rows[ok], j[ok]]
    return torch.stack([x[b, n:n + gen] for b, n in enumerate(lens)])


@torch.no_grad()
def ar_generate(model, prompts, gen):
    """Greedy decoding for the qwen2 guider (sanity check only; no KV cache)."""
    x = prompts
    for _ in range(gen):
        nxt = model(x)[:, -1].float().argmax(-1, keepdim=True)
        x = torch.cat([x, nxt], 1)
        if bool((x[:, prompts.shape[1]:] == C.EOT).any(1).all()):
            break
    return x[:, prompts.shape[1]:]


def extract(resp_ids):
    ids = list(resp_ids)
    if C.EOT in ids:
        ids = ids[:ids.index(C.EOT)]
    text = C.decode(ids)
    if "####" not in text:
        return None, text
    return text.rsplit("####", 1)[1].strip(), text


def run(model_dir, split, per_family=0, gen=None, show=0, batch=64, families=None, device="cpu", predictions=None):
    model, cfg = load_shipped(model_dir)
    model.to(device)
    rows = [json.loads(l) for l in open(split)]
    return score(model, cfg["model_type"], rows, per_family, gen, show, batch, families, device, predictions)


def val_rows(per_family, seed=2024, families=None, split="val"):
    """A fixed sample of the validation split (never the test split): the learning-curve probe.
    split="heldout_val" words the same kind of content with the held-out templates."""
    rows = []
    for fi, fam in enumerate(corpus.SCORED):
        if families and fam not in families:
            continue
        rng = random.Random(seed * 100 + fi)
        for _ in range(per_family):
            ex = corpus.make_example(fam, rng, split)
            rows.append({"family": fam, "prompt": ex["prompt"], "answer": ex["answer"],
                         "gen_length": corpus.gen_length(fam)})
    return rows


def accuracy_by_family(model, kind, per_family=50, device="cpu", families=None, split="val"):
    """Greedy accuracy per family of a model being trained, on val_rows(per_family, split=split)."""
    res, _ = score(model, {"mdlm": "llada", "dream": "Dream"}.get(kind, "qwen2"),
                   val_rows(per_family, families=families, split=split), batch=256, device=device)
    return {f: v["acc"] for f, v in res.items()}


def score(model, model_type, rows, per_family=0, gen=None, show=0, batch=64, families=None, device="cpu",
          predictions=None):
    """Exact-match accuracy per family; each decoded row is appended to the list `predictions` (when
    given) with the fields of `dlmscope-cli eval --predictions`, so the same tools read both."""
    if families:
        rows = [r for r in rows if r["family"] in families]
    if per_family:
        cnt, sel = collections.Counter(), []
        for r in rows:
            if cnt[r["family"]] < per_family:
                sel.append(r)
                cnt[r["family"]] += 1
        rows = sel
    # The MDLM's sampler pads canvases of several prompt lengths into one batch; the AR guider's
    # does not (left padding would move its positions), so its batches share a prompt length.
    groups = collections.defaultdict(list)
    for index, r in enumerate(rows):
        g = gen or corpus.row_canvas(r["family"], r.get("gen_length"))
        ids = C.encode_prompt(r["prompt"])
        diffusion = model_type in DIFFUSION_TYPES
        groups[(g, 0 if diffusion else len(ids))].append((r, ids, index))
    decoded = []  # (row index, prediction): written back in the rows' order
    correct, total, shown = collections.Counter(), collections.Counter(), collections.Counter()
    t0 = time.time()
    for (g, plen), items in sorted(groups.items()):
        for i in range(0, len(items), batch):
            chunk = items[i:i + batch]
            if diffusion:
                out = llada_generate(model, [c[1] for c in chunk], g)
            else:
                out = ar_generate(model, torch.tensor([c[1] for c in chunk], device=device), g)
            for (r, _, index), o in zip(chunk, out.tolist()):
                ans, text = extract(o)
                ok = ans == r["answer"]
                decoded.append((index, {"family": r["family"], "prompt": r["prompt"], "answer": r["answer"],
                                        "predicted": ans, "output": text, "correct": ok}))
                correct[r["family"]] += ok
                total[r["family"]] += 1
                if shown[r["family"]] < show:
                    shown[r["family"]] += 1
                    print(f"--- [{r['family']}] {'OK' if ok else 'WRONG'} want {r['answer']!r} got {ans!r}\n"
                          f"Q: {r['prompt']}\nA: {text}", flush=True)
    if predictions is not None:
        predictions.extend(p for _, p in sorted(decoded, key=lambda d: d[0]))
    res = {f: {"n": total[f], "acc": round(correct[f] / total[f], 4)} for f in sorted(total)}
    return res, time.time() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=os.path.join(C.ROOT, "resources/models/tiny-mdlm"))
    ap.add_argument("--split", default=os.path.join(C.ROOT, "resources/eval/test.jsonl"))
    ap.add_argument("--per-family", type=int, default=0)
    ap.add_argument("--families", default="")
    ap.add_argument("--gen", type=int, default=None)
    ap.add_argument("--sorting-form", default=None, choices=["plain", "columns", "ranked", "passes"],
                    help="the form the model writes sorted lists in: the passes form gets its own canvas")
    ap.add_argument("--show", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", default=None, help="append the result as one JSON line to this file")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--predictions", default=None,
                    help="write every decoded row to this jsonl file, in the fields of dlmscope-cli eval --predictions")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    if a.sorting_form:
        corpus.SORTING_FORM = a.sorting_form
    predictions = [] if a.predictions else None
    res, dt = run(a.model, a.split, a.per_family, a.gen, a.show, batch=a.batch,
                  families=[f for f in a.families.split(",") if f], device=a.device, predictions=predictions)
    if a.predictions:
        with open(a.predictions, "w") as fo:
            fo.write("".join(json.dumps(p) + "\n" for p in predictions))
    step = json.load(open(os.path.join(a.model, "training.json"))).get("step")
    print(f"model {a.model} (step {step}) split {os.path.basename(a.split)} ({dt:.0f}s)")
    for f, v in res.items():
        print(f"  {f:14s} n={v['n']:4d} exact-match {100 * v['acc']:.1f}%")
    if a.json:
        with open(a.json, "a") as fo:
            fo.write(json.dumps({"model": a.model, "step": step, "split": a.split, "results": res}) + "\n")


if __name__ == "__main__":
    main()
