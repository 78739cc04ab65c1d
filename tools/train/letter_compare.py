#!/usr/bin/python3
"""Whether an MDLM compares letters at all: one position of a right letter count hidden, everything
else written.

  /usr/bin/python3 tools/train/letter_compare.py --model resources/models/tiny-mdlm [--form spelled] [--n 60]

A decode that answers letter counts wrong may fail in the comparison (is this spelled letter the
asked one?) or anywhere around it: reading the question, spelling, the order it reveals positions
in. This takes validation letter counts written right in the model's form (`--form`, as
train.py --counting-form) and hides a single position at a time, so nothing but that position is
asked of the model:
- a word's count (`dog: d o g (_)`), with its letters, the asked letter and the total line all
  written (the count is also one of the total's terms); counts above 0 are reported apart, since
  "0" is right for most words whatever the letters;
- the same count hidden with everything after it to the end of the canvas (`dog: d o g (_ ___`),
  as a left-to-right decode meets it: the total line no longer shows the count among its terms,
  so only the comparison of the word's letters with the asked one can give it;
- in the marked form, each spelled letter (`dog: d o _ (1)`): the asked letter must come back in
  capitals, the others in lower case; the capital's mean probability on the asked letters shows
  a comparison that is growing before it wins the argmax;
- in the starred form, the position after each spelled letter with everything after it hidden
  too, to the end of the family's canvas (`dog: d o g_ ___`): a star after the asked letter, none
  after the others (the star's mean probability, as the capital's). A star lengthens the line, so
  with the rest written the hidden slot would give itself away: "d o g _ (1)" has room for one
  more token after a complete spelling, and only a star fits;
- in the paired form, each letter's verdict with everything after it hidden (`dog: d g no o g no
  g g _ ___`): "one" after the asked letter and its copy, "no" after the others (the mean
  probability of "one" on the asked letters).
A model that has learnt the comparison gets both nearly always; one that answers from priors gets
the zero counts and the lower-case letters and little else.
"""
import argparse
import os
import random
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402
import corpus  # noqa: E402
from golden import load_llada_for_probe  # noqa: E402
from letter_count_parts import question  # noqa: E402


def positions(ids, start, form="spelled"):
    """(spelled-letter positions, count positions) of the first line of a letter count whose
    response starts at `start`: a spelled letter is a one-letter piece after a space that is not a
    word before its spelling (the word "a" in "a: A (1)"); x, y and z, and q, u and x in capitals,
    are a space and the letter, two pieces, and are left out. A count is the digit after " (". The
    letter written back at the head of the response ("for the letter g:") is not a spelled one."""
    sp, nl = C.sp(), C.nl_id()
    pieces = [sp.id_to_piece(t) for t in ids]
    end = next(k for k in range(start, len(ids)) if ids[k] == nl)
    head = next(k for k in range(start, end) if pieces[k].endswith(":"))  # the colon after the asked letter
    letters, counts = [], []
    verdicts = {"\u2581" + v for v in corpus.PAIRED_VERDICTS.values()}
    for k in range(head + 1, end):
        p = pieces[k]
        if len(p) == 2 and p[0] == "\u2581" and p[1].isalpha() and pieces[k + 1] != ":":
            # in the paired form the letter is the first of (letter, copy, verdict); the copy is not one
            if form != "paired" or (k + 2 < end and pieces[k + 2] in verdicts and len(pieces[k + 1]) == 2):
                letters.append(k)
        elif p.isdigit() and pieces[k - 1] == "\u2581(":
            counts.append(k)
    return letters, counts


def hidden(ids, prompt_length, k, with_rest):
    """The model's input with position k masked; with the rest (a star's slot, a count as a
    left-to-right decode meets it), everything after it as well, on the family's whole canvas (the
    padding a decode has), so no later position shows how long the line is or what it holds."""
    if not with_rest:
        return ids[:k] + [C.MASK] + ids[k + 1:]
    canvas = prompt_length + corpus.gen_length("counting")
    return ids[:k] + [C.MASK] * (canvas - k)


def letter_counts(seed, form):
    """The seed's validation letter counts in `form`, endlessly: (asked letter, prompt ids, response ids)."""
    corpus.COUNTING_FORM = form
    rng = random.Random(seed)
    while True:
        ex = corpus.make_example("counting", rng, "val")
        if ex["response"].startswith("Checking each word for "):
            ch, _ = question(ex["prompt"])  # the one-letter quote, wherever the wording puts it
            yield ch, C.encode_prompt(ex["prompt"]), C.encode_response(ex["response"])


def probe(model, n, seed, form):
    got = {"rows": 0, "counts": 0, "counts_right": 0, "nonzero": 0, "nonzero_right": 0,
           "ahead_right": 0, "ahead_nonzero_right": 0,
           "asked": 0, "asked_right": 0, "asked_p": 0.0, "other": 0, "other_right": 0}
    sp = C.sp()
    star = sp.piece_to_id("*")
    verdict = {asked: sp.piece_to_id("\u2581" + v) for asked, v in corpus.PAIRED_VERDICTS.items()}
    with torch.no_grad():
        for ch, prompt, resp in letter_counts(seed, form):
            if got["rows"] >= n:
                break
            ids = prompt + resp
            letters, counts = positions(ids, len(prompt), form)
            for k in counts:
                logits = model(torch.tensor([hidden(ids, len(prompt), k, False)]))[0, k].float()
                right = int(logits.argmax()) == ids[k]
                nonzero = sp.id_to_piece(ids[k]) != "0"
                got["counts"] += 1
                got["counts_right"] += right
                got["nonzero"] += nonzero
                got["nonzero_right"] += nonzero and right
                # with the rest hidden too, the total's copy of the count is gone
                logits = model(torch.tensor([hidden(ids, len(prompt), k, True)]))[0, k].float()
                right = int(logits.argmax()) == ids[k]
                got["ahead_right"] += right
                got["ahead_nonzero_right"] += nonzero and right
            if form not in ("marked", "starred", "paired"):
                letters = []
            for k in letters:
                # The position that carries a letter's mark: the letter itself, which must come
                # back in capitals exactly when asked, the star's slot after it, or the paired
                # form's verdict two places after it (both hidden with everything after them),
                # right when the star, or "one", comes exactly when asked.
                key = "asked" if sp.id_to_piece(ids[k])[1].lower() == ch else "other"
                slot, target = {"starred": (k + 1, star), "paired": (k + 2, verdict[True])}.get(form, (k, ids[k]))
                with_rest = form in ("starred", "paired")
                logits = model(torch.tensor([hidden(ids, len(prompt), slot, with_rest)]))[0, slot].float()
                if form == "starred":
                    right = (int(logits.argmax()) == star) == (key == "asked")
                elif form == "paired":
                    right = int(logits.argmax()) == verdict[key == "asked"]
                else:
                    right = int(logits.argmax()) == ids[k]
                got[key] += 1
                got[key + "_right"] += right
                if key == "asked":  # below the argmax: is the mark gaining at all?
                    got["asked_p"] += float(torch.softmax(logits, -1)[target])
            got["rows"] += 1
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=os.path.join(C.ROOT, "resources/models/tiny-mdlm"))
    ap.add_argument("--form", default="spelled", choices=list(corpus.SPELLED_MARKS),
                    help="the model's letter-count form (train.py --counting-form)")
    ap.add_argument("--n", type=int, default=60, help="validation letter counts")
    ap.add_argument("--seed", type=int, default=9)
    a = ap.parse_args()
    model = load_llada_for_probe(a.model, "letter_compare.py")
    g = probe(model, a.n, a.seed, a.form)
    line = (f"{a.model} ({a.form}): of {g['rows']} letter counts, one position hidden: word counts "
            f"{g['counts_right']}/{g['counts']} right, those above 0 {g['nonzero_right']}/{g['nonzero']}; "
            f"hidden with everything after it {g['ahead_right']}/{g['counts']}, those above 0 "
            f"{g['ahead_nonzero_right']}/{g['nonzero']}")
    if a.form == "marked":
        line += (f"; asked letters in capitals {g['asked_right']}/{g['asked']} (mean probability of the "
                 f"capital {g['asked_p'] / max(1, g['asked']):.3f}), other letters in lower case "
                 f"{g['other_right']}/{g['other']}")
    elif a.form == "paired":
        line += (f"; the verdict after each letter hidden with all after it: \"one\" after the asked letters "
                 f"{g['asked_right']}/{g['asked']} (mean probability {g['asked_p'] / max(1, g['asked']):.3f}), "
                 f"\"no\" after the others {g['other_right']}/{g['other']}")
    elif a.form == "starred":
        line += (f"; the slot after a letter hidden with all after it: asked letters starred "
                 f"{g['asked_right']}/{g['asked']} (mean probability of the "
                 f"star {g['asked_p'] / max(1, g['asked']):.3f}), other letters without a star "
                 f"{g['other_right']}/{g['other']}")
    print(line)


if __name__ == "__main__":
    main()
