#!/usr/bin/python3
"""tools/train/arithmetic_parts.py tells reading a question from computing its answer."""
import os
import random
import sys

source = sys.argv[sys.argv.index("--source") + 1]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from predictions_tool_check import check_tool_command  # noqa: E402
sys.path.insert(0, os.path.join(source, "tools", "train"))
import arithmetic_parts as p  # noqa: E402
import corpus  # noqa: E402

rows = [
    # read and computed right
    {"family": "addition", "prompt": "Work out the total of 78 and 718.", "correct": True,
     "output": "078 + 718 = 0796\n#### 796"},
    # a misread operand (a digit of the other number), the line's own sum right
    {"family": "addition", "prompt": "Work out the total of 78 and 718.", "correct": False,
     "output": "078 + 778 = 0856\n#### 856"},
    # the operands in the other order are still the question's numbers
    {"family": "addition4", "prompt": "If you add 397 to 4300, what number do you get?", "correct": False,
     "output": "4300 + 0397 = 04687\n#### 4687"},
    # no worked line at all
    {"family": "addition4", "prompt": "What is 1234 + 4321?", "correct": False, "output": "#### 5555"},
    # subtraction reads the larger number first, as the question asks; reversed operands are misread
    {"family": "subtraction", "prompt": "Take 21 away from 8527. What is left?", "correct": False,
     "output": "0021 - 8527 = 0000\n#### 0"},
    # the wrong operator on the right operands
    {"family": "subtraction", "prompt": "How much bigger is 6640 than 317?", "correct": False,
     "output": "6640 + 0317 = 6957\n#### 6957"},
    {"family": "subtraction", "prompt": "How much bigger is 6640 than 317?", "correct": True,
     "output": "6640 - 0317 = 6323\n#### 6323"},
    {"family": "word_problem", "prompt": "3 pens at $4", "correct": True, "output": "3 * 04 = 012\n#### 12"},
]
c = p.count(rows)
expected = {
    "addition": {"rows": 2, "correct": 1, "lines": 2, "read_right": 1, "operator_right": 2,
                 "computed_right": 2, "line_right": 1},
    "addition4": {"rows": 2, "correct": 0, "lines": 1, "read_right": 1, "operator_right": 1,
                  "computed_right": 0, "line_right": 0},
    "subtraction": {"rows": 3, "correct": 1, "lines": 3, "read_right": 2, "operator_right": 2,
                    "computed_right": 2, "line_right": 1},
}
assert c == expected, c

# The parser reads exactly the form the corpus writes: every reference answer, in both the
# column-aligned and the plain form, counts as read and computed right.
for form in ("fixed", ""):
    corpus.ALIGNED = form
    rng = random.Random(5)
    ref = [corpus.make_example(f, rng, "val") for f in p.FAMILIES for _ in range(150)]
    got = p.count([{"family": e["family"], "prompt": e["prompt"], "correct": True, "output": e["response"]}
                   for e in ref])
    for family in p.FAMILIES:
        f = got[family]
        assert f["rows"] == 150 and set(f.values()) == {150}, (form, family, f)

text = check_tool_command(source, "arithmetic_parts", rows, expected, rows[-1])
assert "subtraction: 1/3 right; lines 3; operands read right 2" in text, text
print("ok")
