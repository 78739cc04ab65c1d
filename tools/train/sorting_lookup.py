#!/usr/bin/python3
"""Where an MDLM's sorting goes wrong: putting the numbers in order, or finding the number it has
put in a place.

  /usr/bin/python3 tools/train/sorting_lookup.py --model resources/models/tiny-mdlm [--n 30]

Validation sorting rows in the column form (`The numbers are 037, 048, 023, 076.`, then
`In descending order: 076, 048, 037, 023.`), the prompt and the copy line written, decoded with the
low-confidence rule (one position per step, T = 0) in four states:
- whole line: every digit of the sorted line and everything after it hidden, as a decode whose copy
  line is right meets it;
- first digit shown: each sorted number's first digit written, the rest as above;
- first two shown: each sorted number's first two digits written, only its last hidden (and the
  answer line): what is left is a lookup, find the copy that starts with these two digits and write
  its last one;
- one number hidden: that number's digits alone, every other number written: the leftover digits of
  the copy line, no lookup needed.
A low-confidence decode writes the sorted numbers' leading digits first (they follow from the
order), so a model that orders but cannot look a number up fails in the second and third states.
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402
import corpus  # noqa: E402
from golden import load_llada_for_probe  # noqa: E402
from operand_source import fill  # noqa: E402


def sorted_numbers(resp_ids):
    """Token positions (in resp_ids) of each number of the sorted line (the response's second line),
    in order, one list of digit positions per number."""
    sp, nl = C.sp(), C.nl_id()
    breaks = [k for k, t in enumerate(resp_ids) if t == nl]
    numbers, cur = [], []
    for k in range(breaks[0] + 1, breaks[1]):
        if sp.id_to_piece(resp_ids[k]).isdigit():
            if cur and k != cur[-1] + 1:
                numbers.append(cur)
                cur = []
            cur.append(k)
    return numbers + [cur]


def validation_sortings(seed, form="columns"):
    """The seed's validation sorting rows in `form` (the column form unless told), endlessly:
    (prompt ids, response ids)."""
    corpus.SORTING_FORM = form
    rng = random.Random(seed)
    while True:
        ex = corpus.make_example("sorting", rng, "val")
        yield C.encode_prompt(ex["prompt"]), C.encode_response(ex["response"])


def probe(model, n, seed):
    """Counts over n rows: sorted lines right in the three line states, and numbers right with one
    number hidden."""
    got = {"whole": 0, "first_shown": 0, "two_shown": 0, "one_hidden": 0, "numbers": 0, "rows": 0}
    for prompt, resp in validation_sortings(seed):
        if got["rows"] >= n:
            break
        p, nums = len(prompt), sorted_numbers(resp)
        ids = prompt + resp
        after = list(range(p + nums[-1][-1] + 1, len(ids)))  # the rest of the line and the answer line
        for state, shown in (("whole", 0), ("first_shown", 1), ("two_shown", 2)):
            hidden = [p + k for num in nums for k in num[shown:]]
            out = fill(model, ids, hidden + after)
            got[state] += all(out[k] == ids[k] for k in hidden)
        for num in nums:
            out = fill(model, ids, [p + k for k in num])
            got["one_hidden"] += all(out[p + k] == ids[p + k] for k in num)
        got["numbers"] += len(nums)
        got["rows"] += 1
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=os.path.join(C.ROOT, "resources/models/tiny-mdlm"))
    ap.add_argument("--n", type=int, default=30, help="validation sorting rows")
    ap.add_argument("--seed", type=int, default=5)
    a = ap.parse_args()
    model = load_llada_for_probe(a.model, "sorting_lookup.py")
    g = probe(model, a.n, a.seed)
    print(f"{a.model}: of {g['rows']} sorted lines, with the copy line written: {g['whole']} right whole, "
          f"{g['first_shown']} with each number's first digit shown, {g['two_shown']} with its first two "
          f"shown (a lookup of the last); {g['one_hidden']} of {g['numbers']} numbers right hidden alone")


if __name__ == "__main__":
    main()
