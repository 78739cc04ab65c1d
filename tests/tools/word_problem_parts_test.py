#!/usr/bin/python3
"""tools/train/word_problem_parts.py counts a word problem's lines as a person would check them."""
import os
import sys

source = sys.argv[sys.argv.index("--source") + 1]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from predictions_tool_check import check_tool_command  # noqa: E402
sys.path.insert(0, os.path.join(source, "tools", "train"))
import word_problem_parts as w  # noqa: E402

rows = [
    # all right: two products, one sum wired to them
    {"family": "word_problem", "correct": True,
     "output": "He bought 3 pens at $4 each.\n3 * 04 = 012\nHe bought 2 cups at $3 each.\n2 * 03 = 006\n"
               "The total cost is:\n0012 + 0006 = 00018\n#### 18"},
    # products right, the sum's operands right, the sum wrong
    {"family": "word_problem", "correct": False,
     "output": "3 * 04 = 012\n2 * 03 = 006\n0012 + 0006 = 00028\n#### 28"},
    # a wrong product, and a sum that adds something else than the lines above
    {"family": "word_problem", "correct": False,
     "output": "3 * 04 = 013\n2 * 03 = 006\n0011 + 0006 = 00017\n#### 17"},
    # three items: the second sum adds the first sum's result and the third product
    {"family": "word_problem", "correct": True,
     "output": "1 * 05 = 005\n2 * 10 = 020\n4 * 02 = 008\n0005 + 0020 = 00025\n0025 + 0008 = 00033\n#### 33"},
    {"family": "addition", "correct": True, "output": "074 + 064 = 0138\n#### 138"},  # not a word problem
]
c = w.count(rows)
expected = {"rows": 4, "correct": 2, "products": 9, "products_right": 8, "sums": 5, "sums_right": 4,
            "rows_with_sums": 4, "rows_wired_right": 3}
assert c == expected, c

# The parser reads exactly the form the corpus writes: every reference response of the line form
# counts as all right, with one product per item and one sum per item after the first.
import corpus  # noqa: E402
import random  # noqa: E402

corpus.WORD_PROBLEM_FORM = "lines"
rng = random.Random(7)
reference = [corpus.make_example("word_problem", rng, "val") for _ in range(200)]
items = [len(w.parts(e["response"])[0]) for e in reference]
ref = w.count([{"family": "word_problem", "correct": True, "output": e["response"]} for e in reference])
assert ref["products"] == ref["products_right"] == sum(items), ref
assert ref["sums"] == ref["sums_right"] == sum(n - 1 for n in items), ref
assert ref["rows_wired_right"] == ref["rows_with_sums"] == sum(n > 1 for n in items) > 0, ref
assert all(e["response"].count("\n") + 1 == 2 * n + (n > 1) * n + 1 for e, n in zip(reference, items)), \
    "a reference line the parser did not see"

check_tool_command(source, "word_problem_parts", rows, expected, rows[-1])
print("ok")
