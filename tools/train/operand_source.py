#!/usr/bin/python3
"""Where an MDLM takes a sum's operands from: the worked line in its response, or the prompt.

  /usr/bin/python3 tools/train/operand_source.py --model resources/models/tiny-mdlm [--n 40]

Each case asks "What is a + b?" but writes another pair, a' + b', in the response's worked line
(addition4's column form); the result and everything after it are masked and decoded with the
low-confidence rule. A model that adds the line's operands writes a' + b' (the skill a word
problem's running total needs: its operands exist only in the response); one that reads the
question writes a + b. Random 4-digit operands, so chance agreement is negligible.
"""
import argparse
import os
import random
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402
from golden import load_shipped  # noqa: E402


@torch.no_grad()
def fill(model, ids, masked):
    """Low-confidence decoding of the `masked` positions, one per step, T = 0."""
    x = torch.tensor([ids])
    x[0, masked] = C.MASK
    while bool((x == C.MASK).any()):
        p = torch.softmax(model(x).float()[0], -1)
        conf, tok = p.max(-1)
        conf = torch.where(x[0] == C.MASK, conf, torch.full_like(conf, -1.0))
        j = int(conf.argmax())
        x[0, j] = tok[j]
    return x[0].tolist()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=os.path.join(C.ROOT, "resources/models/tiny-mdlm"))
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--seed", type=int, default=5)
    a = ap.parse_args()
    torch.set_num_threads(1)
    model, _ = load_shipped(a.model)
    rng = random.Random(a.seed)
    line_sum = prompt_sum = other = 0
    for _ in range(a.n):
        x, y, x2, y2 = (rng.randint(1000, 4999) for _ in range(4))
        prompt = C.encode_prompt(f"What is {x} + {y}?")
        head = f"{x2:04d} + {y2:04d} = "
        resp = C.encode_response(head + f"{x2 + y2:05d}\n#### {x2 + y2}")
        start = len(prompt) + len(C.sp().encode(head))
        out = fill(model, prompt + resp, list(range(start, len(prompt) + len(resp) - 1)))
        got = C.sp().decode(out[start:start + 5])
        if got == f"{x2 + y2:05d}":
            line_sum += 1
        elif got == f"{x + y:05d}":
            prompt_sum += 1
        else:
            other += 1
    print(f"{a.model}: of {a.n} sums, {line_sum} added the response line's operands, {prompt_sum} the prompt's, "
          f"{other} neither")


if __name__ == "__main__":
    main()
