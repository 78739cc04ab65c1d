#!/usr/bin/python3
"""How much an MDLM uses its prompt: the response's masked-token cross-entropy with the true
prompt against the same responses behind another example's prompt (shifted by one).

  /usr/bin/python3 tools/train/prompt_use.py --model resources/models/tiny-mdlm [--family addition]
      [--n 64] [--mask 0.3,0.9]

A model that answers from the prompt loses much more when the prompt is wrong, above all at high
mask rates, the state a decode starts from. A gap near zero means it models responses without
reading the question: the accuracy probe reads 0 % long before this gap starts to grow, so it is
the faster learning-curve signal for an early model. Uses the validation split only.
"""
import argparse
import os
import random
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402
import corpus  # noqa: E402
from golden import load_shipped  # noqa: E402


@torch.no_grad()
def masked_ce(model, prompts, responses, mask_p, seed=0):
    g = torch.Generator().manual_seed(seed)
    total, count = 0.0, 0
    for p, r in zip(prompts, responses):
        pi, ri = C.encode_prompt(p), C.encode_response(r)
        ids = torch.tensor([pi + ri])
        m = torch.zeros_like(ids, dtype=torch.bool)
        m[0, len(pi):] = torch.rand(len(ri), generator=g) < mask_p
        if not m.any():
            continue
        noisy = torch.where(m, torch.full_like(ids, C.MASK), ids)
        logits = model(noisy)[m]
        total += float(F.cross_entropy(logits.float(), ids[m], reduction="sum"))
        count += int(m.sum())
    return total / max(1, count)


def prompt_use(model, family="addition", n=64, masks=(0.3, 0.9), seed=5):
    """{mask rate: (CE with the true prompt, CE with a wrong one)}."""
    rng = random.Random(seed)
    exs = [corpus.make_example(family, rng, "val") for _ in range(n)]
    prompts, responses = [e["prompt"] for e in exs], [e["response"] for e in exs]
    wrong = prompts[1:] + prompts[:1]
    return {m: (masked_ce(model, prompts, responses, m), masked_ce(model, wrong, responses, m)) for m in masks}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=os.path.join(C.ROOT, "resources/models/tiny-mdlm"))
    ap.add_argument("--family", default="addition", choices=corpus.SCORED)
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--mask", default="0.3,0.9")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    model, _ = load_shipped(a.model)
    model.eval()
    for m, (true_ce, wrong_ce) in prompt_use(model, a.family, a.n, [float(x) for x in a.mask.split(",")]).items():
        print(f"{a.family} mask {m:.2f}: CE {true_ce:.3f} with its prompt, {wrong_ce:.3f} with another "
              f"(gap {wrong_ce - true_ce:+.3f} nats)")


if __name__ == "__main__":
    main()
