#!/usr/bin/python3
"""Whether an MDLM has learnt the passes sorting form's one operation, a comparison of neighbours.

  /usr/bin/python3 tools/train/sorting_passes.py --model <export> [--n 30]

Validation sorting rows in the passes form (corpus.SORTING_FORM "passes": the copy line, then one
line per pass of odd-even transposition sort), decoded with the low-confidence rule (one position
per step, T = 0) in two states:
- one pass: pass k's digits hidden and decoded with the lines above it written and everything
  below it hidden (left masked, not decoded): what a decode that got the passes before it right
  meets; counted per pass, and per row (every pass of the row right in its own test);
- whole: everything after the copy line hidden and decoded, the passes and the answer line;
  counted per row (the answer line right).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402
from golden import load_llada_for_probe  # noqa: E402
from operand_source import fill, response_lines  # noqa: E402
from sorting_lookup import validation_sortings as sortings_in  # noqa: E402


def pass_digits(resp_ids):
    """Per pass line (the lines between the copy line and the answer line), the positions of its
    numbers' digits (after the "Pass k:" label, whose k is no part of the sort)."""
    sp = C.sp()
    out = []
    for line in response_lines(resp_ids)[1:-1]:
        pieces = [sp.id_to_piece(resp_ids[k]) for k in line]
        colon = pieces.index(":")
        out.append([k for k, piece in zip(line[colon + 1:], pieces[colon + 1:]) if piece.isdigit()])
    return out


def numbers_of(digits):
    """Digit positions grouped into numbers (runs of consecutive positions)."""
    out = []
    for k in digits:
        if out and k == out[-1][-1] + 1:
            out[-1].append(k)
        else:
            out.append([k])
    return out


def validation_sortings(seed):
    """The seed's validation sorting rows in the passes form, endlessly: (prompt ids, response ids)."""
    return sortings_in(seed, "passes")


def probe(model, n, seed, whole=True):
    got = {"rows": 0, "passes": 0, "passes_right": 0, "numbers": 0, "numbers_right": 0, "rows_every_pass": 0, "whole": 0}
    for prompt, resp in validation_sortings(seed):
        if got["rows"] >= n:
            break
        p, ids = len(prompt), prompt + resp
        lines = response_lines(resp)
        every = True
        for digits in pass_digits(resp):
            after = [p + k for k in range(digits[-1] + 1, len(resp))]
            out = fill(model, ids, [p + k for k in digits], kept_masked=after)
            right = all(out[p + k] == ids[p + k] for k in digits)
            for number in numbers_of(digits):
                got["numbers"] += 1
                got["numbers_right"] += all(out[p + k] == ids[p + k] for k in number)
            got["passes"] += 1
            got["passes_right"] += right
            every &= right
        got["rows_every_pass"] += every
        if whole:
            rest = [p + k for k in range(lines[0][-1] + 1, len(resp))]
            out = fill(model, ids, rest)
            got["whole"] += all(out[p + k] == ids[p + k] for k in lines[-1])
        got["rows"] += 1
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True, help="an exported LLaDA-family MDLM trained in the passes form")
    ap.add_argument("--n", type=int, default=30, help="validation sorting rows")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--no-whole", action="store_true", help="skip the whole decodes (the slow part)")
    a = ap.parse_args()
    model = load_llada_for_probe(a.model, "sorting_passes.py")
    g = probe(model, a.n, a.seed, not a.no_whole)
    whole = "" if a.no_whole else f"; decoded whole from the copy line, {g['whole']} answer lines right"
    print(f"{a.model}: {g['passes_right']} of {g['passes']} passes right with the lines above written "
          f"({g['numbers_right']} of {g['numbers']} numbers); "
          f"{g['rows_every_pass']} of {g['rows']} rows with every pass right{whole}")


if __name__ == "__main__":
    main()
