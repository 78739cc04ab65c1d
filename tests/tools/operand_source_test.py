#!/usr/bin/env python3
"""tools/train/operand_source.py finds a word problem's running totals where the corpus writes them:
for every line-form response (the shipped models' form), one result per `a + b = c` line, each
exactly the digits of c.

  python3 tests/tools/operand_source_test.py --source <checkout>

Exits 77 (ctest: skipped) when no Python with PyTorch is found (see torch_reference_test.py).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference_test import run_training_check  # noqa: E402

CHECK = r'''
import random, re, sys
sys.path.insert(0, sys.argv[1])
import common as C, corpus
import operand_source as o

corpus.WORD_PROBLEM_FORM, corpus.ALIGNED = "lines", "fixed"
rng = random.Random(7)
seen = 0
for _ in range(200):
    resp = corpus.make_example("word_problem", rng, "val")["response"]
    want = re.findall(r"^\d{4} \+ \d{4} = (\d{5})$", resp, re.M)
    assert len(want) == resp.count("+"), resp
    ids = C.encode_response(resp)
    got = [C.decode([ids[k] for k in r]) for r in o.sum_results(ids)]
    assert got == want, (resp, got)
    seen += len(got)
assert seen > 100, seen
print(f"ok: {seen} running totals found where the corpus writes them")
'''


if __name__ == "__main__":
    run_training_check(CHECK, "operand_source.py's running totals are not the corpus's")
