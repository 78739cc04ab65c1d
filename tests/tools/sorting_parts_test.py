#!/usr/bin/python3
"""tools/train/sorting_parts.py checks a sorting's parts as a person would: the list copied, each
pass against the line written above it, a pass per number, and the answer the last pass."""
import os
import random
import sys

source = sys.argv[sys.argv.index("--source") + 1]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from predictions_tool_check import check_tool_command  # noqa: E402
sys.path.insert(0, os.path.join(source, "tools", "train"))
import sorting_parts as sp  # noqa: E402

ASK = "Put the numbers 37, 48, 23, 76 in descending order."
ANSWER = "76, 48, 37, 23"
RIGHT = ("The numbers are 037 048 023 076.\nPass 1: 048 037 076 023\nPass 2: 048 076 037 023\n"
         "Pass 3: 076 048 037 023\nPass 4: 076 048 037 023\n#### 76, 48, 37, 23")
rows = [
    {"family": "sorting", "prompt": ASK, "answer": ANSWER, "correct": True, "output": RIGHT},
    # a number written twice in the copy, then every pass right on the lines as written, and an
    # answer that is the last pass (a sorting of the wrong list)
    {"family": "sorting", "prompt": ASK, "answer": ANSWER, "correct": False,
     "output": "The numbers are 037 048 023 023 076.\nPass 1: 048 037 023 023 076\n"
               "Pass 2: 048 037 023 076 023\nPass 3: 048 037 076 023 023\nPass 4: 048 076 037 023 023\n"
               "Pass 5: 076 048 037 023 023\n#### 76, 48, 37, 23, 23"},
    # ascending, with another number in the prompt: the second pass compares wrongly, one pass is
    # missing and the answer is not the last pass
    {"family": "sorting", "prompt": "Sort these 3 numbers in ascending order: 9, 1, 5.", "answer": "1, 5, 9",
     "correct": False,
     "output": "The numbers are 009 001 005.\nPass 1: 001 009 005\nPass 2: 001 009 005\n#### 1, 5, 9"},
    # a number missing from the copy; a number changed in the copy
    {"family": "sorting", "prompt": ASK, "answer": ANSWER, "correct": False,
     "output": "The numbers are 037 048 076.\nPass 1: 048 037 076\n#### 48, 37, 76"},
    {"family": "sorting", "prompt": ASK, "answer": ANSWER, "correct": False,
     "output": "The numbers are 037 049 023 076.\nPass 1: 049 037 076 023\n#### 49, 37, 76, 23"},
    # the column form has no passes: counted as a row, not as the passes form
    {"family": "sorting", "prompt": ASK, "answer": ANSWER, "correct": True,
     "output": "The numbers are 037, 048, 023, 076.\nIn descending order: 076, 048, 037, 023.\n#### 76, 48, 37, 23"},
    {"family": "addition", "prompt": "What is 1 + 2?", "answer": "3", "correct": True, "output": "#### 3"},
]
c = sp.count(rows)
expected = {"rows": 6, "correct": 2, "passes_form": 5, "copy_right": 2, "copy_too_many": 1, "copy_too_few": 1,
            "copy_other_numbers": 1, "passes": 13, "passes_right": 12, "rows_passes_all_right": 4,
            "rows_pass_count_right": 2, "rows_answer_is_last_pass": 4, "right_by_length": {"3": [0, 1], "4": [2, 5]}}
assert c == expected, c

# The parser reads exactly the form the corpus writes: every reference response counts as all right.
import corpus  # noqa: E402

corpus.SORTING_FORM = "passes"
rng = random.Random(5)
reference = [corpus.make_example("sorting", rng, "val") for _ in range(100)]
corpus.VARIED_WORDING = 1.0  # the composed wordings too (a prompt may name how many numbers)
reference += [corpus.make_example("sorting", rng, "val") for _ in range(100)]
ref = sp.count([{"family": "sorting", "prompt": e["prompt"], "answer": e["answer"], "correct": True,
                 "output": e["response"]} for e in reference])
n = ref["rows"]
assert n == 200, ref
assert ref["passes_form"] == ref["copy_right"] == ref["rows_passes_all_right"] == n, ref
assert ref["rows_pass_count_right"] == ref["rows_answer_is_last_pass"] == n, ref
assert ref["passes"] == ref["passes_right"] > n, ref
assert sum(rows for _, rows in ref["right_by_length"].values()) == n, ref
assert sorted(int(k) for k in ref["right_by_length"]) == list(range(3, 9)), ref  # the corpus's 3 to 8 numbers

text = check_tool_command(source, "sorting_parts", rows, expected, rows[-1])
assert "sortings 2/6 right, 5 in the passes form; list copied right 2/5" in text, text
assert text.rstrip().endswith("right by list length: 3 numbers 0/1, 4 numbers 2/5"), text
print("ok")
