#!/usr/bin/python3
"""Where sortings go wrong, part by part, from `dlmscope-cli eval --predictions FILE`.

A sorting in the passes form (train.py --sorting-form passes) copies the question's list
(`The numbers are 037 048 023 076.`), writes one line per pass of odd-even transposition sort
(`Pass 1: 048 037 076 023`: pass k compares the neighbours (0,1), (2,3), ... when k is odd and
(1,2), (3,4), ... when even) and ends with the last pass unpadded (`#### 76, 48, 37, 23`). Exact
match on the answer says only that something broke; this counts, over the sorting rows of a
predictions file, whether the list was copied (and how a wrong copy is wrong: a number too many,
too few, or other numbers), whether each pass is the pass of the line written above it (the
comparisons, judged on the model's own previous line, so one early slip is not counted again in
every pass after it), whether there are as many passes as numbers copied, and whether the answer
is the last pass; and the rows right per length of the question's list (every sorting row of an
eval file decodes on one canvas, so a length that fails alone points at the canvas, not the sort).

  dlmscope-cli eval --model resources/models/tiny-mdlm --split test --predictions out/pred.jsonl
  /usr/bin/python3 tools/train/sorting_parts.py out/pred.jsonl [--json]
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import predictions  # noqa: E402
from corpus import transposition_pass  # noqa: E402

NUMBER = re.compile(r"\d+")
COPY = re.compile(r"^The numbers are ((?:\d+ )*\d+)\.$", re.M)
PASS = re.compile(r"^Pass (\d+): ((?:\d+ )*\d+)$", re.M)
ANSWER = re.compile(r"#### (.*)")


def as_list(text):
    return [int(x) for x in NUMBER.findall(text)]


def question(prompt, answer):
    """(the question's list in its order, descending?) of a sorting row. The answer is the sorted
    list: its numbers are found as a run of the prompt's (a prompt may hold other numbers), and
    its order gives the direction (an answer that reads both ways is taken as ascending)."""
    want = as_list(answer)
    numbers = as_list(prompt)
    for start in range(len(numbers) - len(want) + 1):
        run = numbers[start:start + len(want)]
        if sorted(run) == sorted(want):
            return run, want != sorted(want)
    return None


def count(rows):
    c = {"rows": 0, "correct": 0, "passes_form": 0, "copy_right": 0, "copy_too_many": 0,
         "copy_too_few": 0, "copy_other_numbers": 0, "passes": 0, "passes_right": 0,
         "rows_passes_all_right": 0, "rows_pass_count_right": 0, "rows_answer_is_last_pass": 0,
         "right_by_length": {}}
    for r in rows:
        if r.get("family") != "sorting":
            continue
        q = question(r.get("prompt", ""), r.get("answer", ""))
        if q is None:
            continue
        xs, descending = q
        out = r.get("output", "")
        c["rows"] += 1
        c["correct"] += bool(r.get("correct"))
        by_length = c["right_by_length"].setdefault(str(len(xs)), [0, 0])  # [right, rows]; str: a JSON key
        by_length[0] += bool(r.get("correct"))
        by_length[1] += 1
        copy = COPY.search(out)
        passes = PASS.findall(out)
        if not copy or not passes:
            continue  # another form (the column form has no passes) or no copy line at all
        c["passes_form"] += 1
        copied = as_list(copy.group(1))
        if copied == xs:
            c["copy_right"] += 1
        elif len(copied) > len(xs):
            c["copy_too_many"] += 1
        elif len(copied) < len(xs):
            c["copy_too_few"] += 1
        else:
            c["copy_other_numbers"] += 1
        above, all_right = copied, True
        for k, (label, line) in enumerate(passes, start=1):
            written = as_list(line)
            right = int(label) == k and written == transposition_pass(above, k, descending)
            c["passes"] += 1
            c["passes_right"] += right
            all_right = all_right and right
            above = written
        c["rows_passes_all_right"] += all_right
        c["rows_pass_count_right"] += len(passes) == len(copied)  # of the list as copied
        answer = ANSWER.search(out)
        c["rows_answer_is_last_pass"] += bool(answer) and as_list(answer.group(1)) == as_list(passes[-1][1])
    return c


def describe(c):
    return (f"sortings {c['correct']}/{c['rows']} right, {c['passes_form']} in the passes form; "
            f"list copied right {c['copy_right']}/{c['passes_form']} (a number too many {c['copy_too_many']}, "
            f"too few {c['copy_too_few']}, other numbers {c['copy_other_numbers']}); "
            f"passes right on the line written above them {c['passes_right']}/{c['passes']} "
            f"(rows with every pass right {c['rows_passes_all_right']}); "
            f"rows with a pass per number copied {c['rows_pass_count_right']}; "
            f"answers that are the last pass {c['rows_answer_is_last_pass']}; right by list length: "
            + ", ".join(f"{n} numbers {right}/{rows}"
                        for n, (right, rows) in sorted(c["right_by_length"].items(), key=lambda kv: int(kv[0]))))


def main():
    predictions.counting_tool(__doc__, "sorting_parts", count, lambda c: c["rows"], "sorting", describe)


if __name__ == "__main__":
    main()
