#!/usr/bin/python3
"""Whether arithmetic goes wrong in reading the question or in computing, from `dlmscope-cli eval
--predictions FILE`.

An addition or subtraction answer is one worked line (`074 + 064 = 0138`) and `#### 138`. Exact
match says only that something broke; this splits each family's rows of a predictions file into
what a person would check: is there a line, did it take the question's two numbers (for
subtraction in the question's order: the larger first, as every question asks), is its operator
the family's, is its own sum or difference right. A model that computes well but reads a new
wording badly shows many lines with the wrong operands and few wrong sums.

  dlmscope-cli eval --model resources/models/tiny-mdlm --split heldout --predictions out/pred.jsonl
  /usr/bin/python3 tools/train/arithmetic_parts.py out/pred.jsonl [--json]
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import predictions  # noqa: E402

FAMILIES = ("addition", "addition4", "subtraction")
LINE = re.compile(r"(\d+) ([+-]) (\d+) = (\d+)")
NUMBER = re.compile(r"\d+")


def read_right(family, question, a, b):
    """Whether a line's operands are the question's two numbers in the roles the family gives them."""
    numbers = [int(x) for x in NUMBER.findall(question)]
    if len(numbers) != 2:
        return False
    if family == "subtraction":
        return (a, b) == (max(numbers), min(numbers))
    return sorted((a, b)) == sorted(numbers)


def count(rows):
    """Per family: rows, correct, lines written, operands read right, operator right, the line's own
    arithmetic right, and lines right in all three (the line the answer needs)."""
    out = {}
    for r in rows:
        family = r.get("family")
        if family not in FAMILIES:
            continue
        c = out.setdefault(family, {"rows": 0, "correct": 0, "lines": 0, "read_right": 0,
                                    "operator_right": 0, "computed_right": 0, "line_right": 0})
        c["rows"] += 1
        c["correct"] += bool(r.get("correct"))
        m = LINE.search(r.get("output", ""))
        if not m:
            continue
        a, op, b, result = int(m[1]), m[2], int(m[3]), int(m[4])
        c["lines"] += 1
        read = read_right(family, r.get("prompt", ""), a, b)
        operator = op == ("-" if family == "subtraction" else "+")
        computed = (a + b if op == "+" else a - b) == result
        c["read_right"] += read
        c["operator_right"] += operator
        c["computed_right"] += computed
        c["line_right"] += read and operator and computed
    return out


def describe(c):
    return "\n".join(f"{family}: {f['correct']}/{f['rows']} right; lines {f['lines']}; operands read right "
                     f"{f['read_right']}; operator right {f['operator_right']}; the line's own arithmetic right "
                     f"{f['computed_right']}; all three right {f['line_right']}"
                     for family, f in ((family, c[family]) for family in FAMILIES if family in c))


def main():
    predictions.counting_tool(__doc__, "arithmetic_parts", count, bool, ", ".join(FAMILIES), describe)


if __name__ == "__main__":
    main()
