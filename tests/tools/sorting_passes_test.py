#!/usr/bin/env python3
"""tools/train/sorting_passes.py probes the passes sorting form where the corpus writes it: for every
passes-form response, one digit group per pass line, each exactly the line's zero-padded numbers;
and its counts are what a model that knows the answer (an oracle) and one that does not earn.

  python3 tests/tools/sorting_passes_test.py --source <checkout>

Exits 77 (ctest: skipped) when no Python with PyTorch is found (see torch_reference_test.py).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference_test import run_training_check  # noqa: E402

CHECK = r'''
import itertools, re, sys
sys.path.insert(0, sys.argv[1])
import torch
import common as C
import sorting_passes as s

rows = 0
for prompt, resp in itertools.islice(s.validation_sortings(7), 200):
    text = C.decode(resp)
    want = ["".join(re.fullmatch(r"Pass \d+: ([\d ]+)", line).group(1).split(" "))
            for line in text.split("\n")[1:-1]]
    got = [C.decode([resp[k] for k in digits]) for digits in s.pass_digits(resp)]
    assert got == want, (text, got)
    rows += 1


class Oracle(torch.nn.Module):
    """Logits that put each position's true token first; `knows` False: every position's first is 0."""
    def __init__(self, truth, knows):
        super().__init__()
        self.truth, self.knows = truth, knows

    def forward(self, x):
        logits = torch.zeros(1, x.shape[1], C.EMBED_ROWS)
        if self.knows:
            logits[0, torch.arange(x.shape[1]), torch.tensor(self.truth)] = 10.0
        else:
            logits[0, :, 0] = 10.0
        return logits


prompt, resp = next(s.validation_sortings(3))
passes = len(s.pass_digits(resp))
for knows in (True, False):
    model = Oracle(prompt + resp, knows)
    s.validation_sortings = lambda seed: iter([(prompt, resp)])
    g = s.probe(model, 1, 0)
    expect = passes if knows else 0
    assert (g["passes"], g["passes_right"], g["rows_every_pass"], g["whole"]) == (passes, expect, int(knows), int(knows)), g
    numbers = sum(len(s.numbers_of(d)) for d in s.pass_digits(resp))
    assert numbers == passes * len(s.pass_digits(resp)[0]) // 3 and g["numbers"] == numbers, (numbers, g)
    assert g["numbers_right"] == (numbers if knows else 0), g
print(f"ok: the passes of {rows} passes-form responses found where the corpus writes them; an oracle gets "
      f"every pass of a {passes}-pass row right and a model that knows nothing none")
'''


if __name__ == "__main__":
    run_training_check(CHECK, "sorting_passes.py does not probe the passes the corpus writes")
