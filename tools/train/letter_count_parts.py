#!/usr/bin/python3
"""Where letter counts go wrong, part by part, from `dlmscope-cli eval --predictions FILE`.

A letter count in a spelled form (train.py --counting-form spelled|echoed|marked|starred) writes the asked
letter, then each word of the question with its letters and its count of the asked one
(`dog: d o G (1)`), then a total (`Total: 0 + 1 = 1.`) and the answer. Exact match on the answer
says only that something broke; this counts, over the letter-count rows of a predictions file,
whether the asked letter was written back, whether the words and their spellings were copied,
whether each word's count is its count of the asked letter (the comparison), and whether the total
adds the words' counts and the answer is the total (the arithmetic after it). A spelled letter is
marked exactly when it is the asked one: in capitals in the marked form, with a star after it in
the starred form (`dog: d o g* (1)`); the marks are counted in any form. In the paired form each
spelled letter comes with a copy of the asked letter and a verdict (`dog: d g no o g no g g one
(1)`): a "one" is its mark, and the verdicts are scored against the letters written before them,
and each word's count against its own verdicts (a count that is not the number of its "one"s did
not read them: it came from the total or the prior, decoded before the verdicts).

  dlmscope-cli eval --model resources/models/tiny-mdlm --split test --predictions out/pred.jsonl
  /usr/bin/python3 tools/train/letter_count_parts.py out/pred.jsonl [--json]
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import predictions  # noqa: E402

QUOTED = re.compile(r'"([^"]*)"')
HEAD = re.compile(r'Checking each word for (?:"(.)"|the letter (.)):')
PART = re.compile(r"(\w+): ((?:\w+\*? )*\w+\*?) \((\d+)\)")
VERDICTS = {"one": True, "no": False}  # the paired form's (corpus.PAIRED_VERDICTS)
TOTAL = re.compile(r"Total: ((?:\d+ \+ )*\d+) = (\d+)\.")  # a malformed total line adds nothing
ANSWER = re.compile(r"#### (\d+)")


def question(prompt):
    """(asked letter, the question's words) of a letter-count prompt, or None for a word count."""
    quoted = QUOTED.findall(prompt)
    letters = [q for q in quoted if len(q) == 1]
    texts = [q for q in quoted if len(q) != 1]
    if not letters or not texts:
        return None
    return letters[0], texts[0].rstrip(".").split(" ")


def count(rows):
    c = {"rows": 0, "correct": 0, "letter_written_right": 0, "words_copied": 0, "words": 0,
         "spelled_right": 0, "letters": 0, "marks": 0, "asked_letters": 0,
         "asked_marked": 0, "word_counts_right": 0, "rows_counts_all_right": 0,
         "rows_total_adds_counts": 0, "rows_answer_is_total": 0, "verdicts": 0, "verdicts_right": 0,
         "paired_counts": 0, "counts_off_verdicts": 0}
    for r in rows:
        if r.get("family") != "counting":
            continue
        q = question(r.get("prompt", ""))
        if q is None:
            continue
        ch, words = q
        out = r.get("output", "")
        c["rows"] += 1
        c["correct"] += bool(r.get("correct"))
        head = HEAD.search(out)
        c["letter_written_right"] += bool(head) and (head.group(1) or head.group(2)) == ch
        parts = PART.findall(out)
        c["words_copied"] += [w for w, _, _ in parts] == words
        counts = []
        all_right = bool(parts)
        for word, spelled, k in parts:
            letters = spelled.split(" ")
            if len(letters) % 3 == 0 and all(v in VERDICTS for v in letters[2::3]):
                # paired: (letter, copy, verdict); the verdict is right when it says whether the
                # two letters written before it are the same
                for x, copy, verdict in zip(letters[0::3], letters[1::3], letters[2::3]):
                    c["verdicts"] += 1
                    c["verdicts_right"] += VERDICTS[verdict] == (x == copy)
                marks = [VERDICTS[v] for v in letters[2::3]]
                letters = letters[0::3]
                c["paired_counts"] += 1
                c["counts_off_verdicts"] += int(k) != sum(marks)
            else:
                marks = [x[0].isupper() or x.endswith("*") for x in letters]
            c["words"] += 1
            c["spelled_right"] += [x.rstrip("*").lower() for x in letters] == list(word)
            for x, marked in zip(letters, marks):
                c["letters"] += 1
                asked = x.rstrip("*").lower() == ch
                c["asked_letters"] += asked
                c["marks"] += marked
                c["asked_marked"] += asked and marked
            right = int(k) == word.count(ch)
            c["word_counts_right"] += right
            all_right = all_right and right
            counts.append(int(k))
        c["rows_counts_all_right"] += all_right
        total = TOTAL.search(out)
        answer = ANSWER.search(out)
        if total:
            terms = [int(t) for t in total.group(1).split(" + ")]
            c["rows_total_adds_counts"] += terms == counts and sum(terms) == int(total.group(2))
            c["rows_answer_is_total"] += bool(answer) and int(answer.group(1)) == int(total.group(2))
    return c


def describe(c):
    return (f"letter counts {c['correct']}/{c['rows']} right; asked letter written back "
            f"{c['letter_written_right']}/{c['rows']}; the question's words copied {c['words_copied']}/{c['rows']}; "
            f"words spelled right {c['spelled_right']}/{c['words']}; word counts right "
            f"{c['word_counts_right']}/{c['words']} (rows with every count right {c['rows_counts_all_right']}); "
            f"marked letters (capitals, stars or verdicts \"one\") {c['marks']}, of them the asked letter "
            f"{c['asked_marked']} (of {c['asked_letters']} asked letters spelled); "
            + (f"paired verdicts right {c['verdicts_right']}/{c['verdicts']}; word counts that are not the number "
               f"of their verdicts \"one\" {c['counts_off_verdicts']}/{c['paired_counts']}; " if c["verdicts"] else "") +
            f"totals that add the counts {c['rows_total_adds_counts']}/{c['rows']}; "
            f"answers that are the total {c['rows_answer_is_total']}/{c['rows']}")


def main():
    predictions.counting_tool(__doc__, "letter_count_parts", count, lambda c: c["rows"], "letter-count", describe)


if __name__ == "__main__":
    main()
