#!/usr/bin/env python3
"""tools/train/copy_probe.py probes the tokens a counting answer copies from its question: each
probed token, decoded, is the asked letter, the start of an enumerated word or a repeated word,
and that text is in the question; and the shipped guider, which copies (it is trained causally, where every copy is
an induction step), is right on nearly all of them, so the probe reads a shifted head at the
right row.

  python3 tests/tools/copy_probe_test.py --source <checkout>

Exits 77 (ctest: skipped) when no Python with PyTorch is found (see torch_reference_test.py).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference_test import run_training_check  # noqa: E402

CHECK = r'''
import os, re, sys, torch
sys.path.insert(0, sys.argv[1])
import common as C, corpus
import copy_probe as cp
from golden import load_shipped

corpus.WORD_PROBLEM_FORM, corpus.SORTING_FORM, corpus.COUNTING_FORM = "lines", "columns", "spelled"
sp = C.sp()
kinds = {"letter": 0, "word": 0, "repeat": 0}
for kind, prompt, written, copied, canvas in cp.copy_cases(12):
    question = C.decode(prompt)
    text = sp.id_to_piece(copied).replace("\u2581", " ").strip()
    assert text and text in question, (kind, text, question)
    if kind == "letter":
        assert C.decode(written) == cp.HEADER and f'"{text}"' in question, (C.decode(written), text, question)
    elif kind == "word":
        assert re.search(r"(: |, )\d+$", C.decode(written)), C.decode(written)
    kinds[kind] += 1
assert kinds["letter"] == 12 and kinds["word"] > 12 * 3 and kinds["repeat"] > 12, kinds
torch.set_num_threads(1)
guider, _ = load_shipped(os.path.join(sys.argv[1], "..", "..", "resources", "models", "tiny-ar"))
rates = cp.copy_rates(guider, True, 12)
for kind in ("letter", "word"):  # the guider never saw a repeat question: its rate there is not asserted
    right, probed = rates[kind]
    assert right >= 0.9 * probed, (kind, right, probed)
print(f"ok: {kinds} probed where the question holds them; the guider copies {rates}")
'''


if __name__ == "__main__":
    run_training_check(CHECK, "copy_probe.py does not probe the question's copied tokens")
