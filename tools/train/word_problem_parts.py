#!/usr/bin/python3
"""Where word problems go wrong, part by part, from `dlmscope-cli eval --predictions FILE`.

A word problem in the line form (train.py --word-problem-form lines) is a chain of checkable
lines: one product per item (`7 * 27 = 189`) and a running total of two-term sums
(`0189 + 0048 = 00237`), each sum's operands taken from the lines above it. Exact match on the
final answer says only that the chain broke somewhere; this counts, over the word-problem rows of a
predictions file, how many products and sums are right and how many sums took the right operands.

  dlmscope-cli eval --model resources/models/tiny-mdlm --split test --predictions out/pred.jsonl
  /usr/bin/python3 tools/train/word_problem_parts.py out/pred.jsonl [--json]
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import predictions  # noqa: E402

PRODUCT = re.compile(r"(\d+) \* (\d+) = (\d+)")
SUM = re.compile(r"(\d+) \+ (\d+) = (\d+)")


def parts(output):
    """The products and sums an output writes, as integer triples, in order."""
    products = [tuple(int(x) for x in m) for m in PRODUCT.findall(output)]
    sums = [tuple(int(x) for x in m) for m in SUM.findall(output)]
    return products, sums


def wired_right(products, sums):
    """Whether every sum adds what the lines above it say: the first two products, then the previous
    sum's result and the next product."""
    results = [c for _, _, c in products]
    for k, (a, b, _) in enumerate(sums):
        first = results[0] if k == 0 else sums[k - 1][2]
        if k + 1 >= len(results) or a != first or b != results[k + 1]:
            return False
    return True


def count(rows):
    c = {"rows": 0, "correct": 0, "products": 0, "products_right": 0, "sums": 0, "sums_right": 0,
         "rows_with_sums": 0, "rows_wired_right": 0}
    for r in rows:
        if r.get("family") != "word_problem":
            continue
        products, sums = parts(r.get("output", ""))
        c["rows"] += 1
        c["correct"] += bool(r.get("correct"))
        c["products"] += len(products)
        c["products_right"] += sum(a * b == p for a, b, p in products)
        c["sums"] += len(sums)
        c["sums_right"] += sum(a + b == s for a, b, s in sums)
        if sums:
            c["rows_with_sums"] += 1
            c["rows_wired_right"] += wired_right(products, sums)
    return c


def describe(c):
    return (f"word problems {c['correct']}/{c['rows']} right; products {c['products_right']}/{c['products']} right; "
            f"sums {c['sums_right']}/{c['sums']} right; rows whose sums take the right operands "
            f"{c['rows_wired_right']}/{c['rows_with_sums']}")


def main():
    predictions.counting_tool(__doc__, "word_problem_parts", count, lambda c: c["rows"], "word_problem", describe)


if __name__ == "__main__":
    main()
