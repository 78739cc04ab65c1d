#!/usr/bin/env python3
"""tools/train/sorting_lookup.py finds the sorted line's numbers where the corpus writes them: for
every column-form sorting response (the shipped models' form), one digit group per number of the
sorted line, in order, each exactly the zero-padded number.

  python3 tests/tools/sorting_lookup_test.py --source <checkout>

Exits 77 (ctest: skipped) when no Python with PyTorch is found (see torch_reference_test.py).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference_test import run_training_check  # noqa: E402

CHECK = r'''
import re, sys
sys.path.insert(0, sys.argv[1])
import common as C
import sorting_lookup as s

rows = 0
for prompt, resp in s.validation_sortings(7):
    if rows == 200:
        break
    text = C.decode(resp)
    want = re.search(r"^In (?:ascending|descending) order: (.*)\.$", text, re.M).group(1).split(", ")
    assert all(re.fullmatch(r"\d{3}", w) for w in want), text
    got = [C.decode([resp[k] for k in num]) for num in s.sorted_numbers(resp)]
    assert got == want, (text, got)
    rows += 1
print(f"ok: the sorted numbers of {rows} column-form responses found where the corpus writes them")
'''


if __name__ == "__main__":
    run_training_check(CHECK, "sorting_lookup.py's sorted numbers are not the corpus's")
