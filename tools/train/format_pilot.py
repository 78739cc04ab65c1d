#!/usr/bin/python3
"""How fast a small LLaDA-style model learns a sum's digits in each worked-line format.

  /usr/bin/python3 tools/train/format_pilot.py --format fixed --steps 1500
  /usr/bin/python3 tools/train/format_pilot.py --format plain --steps 1500

A model of tools/train/common.py's sizes (default `tiny`: 2 layers, d 128) is trained from scratch
on bare worked lines "a + b = c" (a, b 2-3 digits, no prompt) with every digit of c masked and
everything else visible: the state a decode is in once it has copied the operands. Printed every
100 steps: the loss and the accuracy of c's ones digit on the batch. `plain` writes the numbers as
they are ("74 + 64 = 138"); `fixed` in fixed columns ("074 + 064 = 0138"), so that each digit of c
sits at the same offset from the digits it is computed from in every example.
"""
import argparse
import os
import random
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402
import train  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--format", choices=["plain", "fixed"], required=True)
    ap.add_argument("--size", default="tiny")
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(a.seed)
    C.keep_freed_memory()
    model, _ = train.build_model("mdlm", a.size)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, betas=(0.9, 0.95), weight_decay=0.1)
    rng = random.Random(a.seed)
    equals = C.sp().piece_to_id("▁=")

    def example():
        x, y = rng.randint(10, 999), rng.randint(10, 999)
        text = f"{x:03d} + {y:03d} = {x + y:04d}" if a.format == "fixed" else f"{x} + {y} = {x + y}"
        ids = C.sp().encode(text)
        return ids, list(range(ids.index(equals) + 2, len(ids)))  # c's digits

    t0 = time.time()
    for step in range(a.steps + 1):
        batch = [example() for _ in range(a.batch)]
        T = max(len(i) for i, _ in batch)
        ids = torch.full((a.batch, T), C.PAD)
        masked = torch.zeros((a.batch, T), dtype=torch.bool)
        for k, (i, digits) in enumerate(batch):
            ids[k, :len(i)] = torch.tensor(i)
            masked[k, digits] = True
        h = model.hidden(torch.where(masked, torch.full_like(ids, C.MASK), ids))
        if step % 100 == 0:
            with torch.no_grad():
                ones = torch.tensor([d[-1] for _, d in batch])
                rows = torch.arange(a.batch)
                acc = (model.head(h[rows, ones]).argmax(-1) == ids[rows, ones]).float().mean()
        loss = F.cross_entropy(model.head(h[masked]), ids[masked])
        if step % 100 == 0:
            print(f"step {step} loss {loss.item():.3f} ones-digit accuracy {acc:.2f} ({time.time() - t0:.0f} s)",
                  flush=True)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
