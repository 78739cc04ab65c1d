#!/usr/bin/env python3
"""tools/train/letter_compare.py hides the positions it means to and knows which letter was asked:
in every spelled letter-count form, the asked letter is the one the response checks for, the counts it finds are each word's count in order, and the letters it finds are the spelled
letters (a word's own token, like the word "a", is never one), in the marked form with the asked
letter in capitals exactly where the corpus puts it, in the starred form followed by a star exactly
there, in the paired form each letter's verdict two places after it ("one" exactly there); a star's slot is hidden with everything after it to the end of the canvas (with the
rest written, a complete spelling before it would give the star away), and so is a count in the
probe that keeps the total line from showing it.

  python3 tests/tools/letter_compare_test.py --source <checkout>

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
import letter_compare as lc

sp = C.sp()
star = sp.piece_to_id("*")
verdict = {sp.piece_to_id("\u2581one"): True, sp.piece_to_id("\u2581no"): False}
for form in ("spelled", "echoed", "marked", "starred", "paired"):
    rows = words_a = 0
    for ch, prompt, resp in lc.letter_counts(3, form):
        if rows == 300:
            break
        ids = prompt + resp
        letters, counts = lc.positions(ids, len(prompt), form)
        text = C.decode(resp)
        # the asked letter is the one the response checks for, in every wording (some quote it last)
        assert re.match(r'Checking each word for (?:"' + ch + '"|the letter ' + ch + '):', text), (form, ch, text)
        parts = re.findall(r"(\w+): ((?:\w+\*? )*\w+\*?) \((\d+)\)", text.split("\n")[0])
        assert [sp.id_to_piece(ids[k]) for k in counts] == [c for _, _, c in parts], (form, text)
        one_piece = lambda x: len(sp.encode(" " + x.rstrip("*"))) == 1
        if form == "paired":  # (letter, copy, verdict): the letters are the first of each, both one piece
            triples = [t for _, s, _ in parts for t in zip(*[iter(s.split(" "))] * 3)]
            spelled = [x for x, copy, _ in triples if one_piece(x) and one_piece(copy)]
            # the verdict letter_compare.py hides is two places after the letter: "one" exactly after the asked one
            assert [verdict[ids[k + 2]] for k in letters] == [x == ch for x in spelled], (form, text)
            for k in letters:
                x = lc.hidden(ids, len(prompt), k + 2, True)
                assert len(x) == len(prompt) + 160 and x[:k + 2] == ids[:k + 2] and set(x[k + 2:]) == {C.MASK}, (form, text)
        else:
            spelled = [x for _, s, _ in parts for x in s.split(" ") if one_piece(x)]
        assert [sp.id_to_piece(ids[k])[1] for k in letters] == [x[0] for x in spelled], (form, text, spelled)
        # the position letter_compare.py hides for a star is a star exactly after the asked letters
        if form == "starred":
            assert [ids[k + 1] == star for k in letters] == [x.endswith("*") for x in spelled], (form, text)
            assert [x.endswith("*") for x in spelled] == [x[0] == ch for x in spelled], (form, text)
            # a star's slot is hidden with everything after it, on the whole canvas: with the rest
            # written, a complete spelling before the slot would say that only a star fits there
            for k in letters:
                x = lc.hidden(ids, len(prompt), k + 1, True)
                assert len(x) == len(prompt) + 96 and x[:k + 1] == ids[:k + 1], (form, text)
                assert set(x[k + 1:]) == {C.MASK}, (form, text)
        for k in counts:  # a count is hidden alone, then with everything after it
            x = lc.hidden(ids, len(prompt), k, False)
            assert x[k] == C.MASK and x[:k] == ids[:k] and x[k + 1:] == ids[k + 1:], (form, text)
            x = lc.hidden(ids, len(prompt), k, True)
            assert x[:k] == ids[:k] and set(x[k:]) == {C.MASK}, (form, text)
            assert len(x) == len(prompt) + (160 if form == "paired" else 96), (form, text)
        words_a += sum(w == "a" for w, _, _ in parts)
        rows += 1
    assert words_a > 0, "no row with the word 'a': the word-before-its-spelling case went unchecked"
print("ok: letter_compare.py hides each word's count and each spelled letter, in every spelled form")
'''


if __name__ == "__main__":
    run_training_check(CHECK, "letter_compare.py's positions are not the corpus's")
