#!/usr/bin/python3
"""tools/train/letter_count_parts.py checks a letter count's parts as a person would: the asked
letter written back, the words and spellings copied, each word's count, the total and the answer."""
import os
import random
import sys

source = sys.argv[sys.argv.index("--source") + 1]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from predictions_tool_check import check_tool_command  # noqa: E402
sys.path.insert(0, os.path.join(source, "tools", "train"))
import letter_count_parts as lc  # noqa: E402

ASK = 'How many times does the letter "g" appear in "soup away dog"?'
rows = [
    # all right, the marked form
    {"family": "counting", "prompt": ASK, "correct": True,
     "output": "Checking each word for the letter g: soup: s o u p (0), away: a w a y (0), dog: d o G (1).\n"
               "Total: 0 + 0 + 1 = 1.\n#### 1"},
    # the spelled form as tiny-mdlm writes it: copied and spelled, no comparison, a total not added
    {"family": "counting", "prompt": ASK, "correct": True,
     "output": 'Checking each word for "g": soup: s o u p (0), away: a w a y (0), dog: d o g (0).\n'
               "Total: 0 + 0 + 0 = 1.\n#### 1"},
    # the starred form, all right
    {"family": "counting", "prompt": 'Count the letter "g" in: "egg sun"', "correct": True,
     "output": "Checking each word for the letter g: egg: e g* g* (2), sun: s u n (0).\nTotal: 2 + 0 = 2.\n#### 2"},
    # the wrong letter written back, a word not in the question, a misspelling, a wrong capital
    {"family": "counting", "prompt": 'Count the letter "o" in: "dog sun"', "correct": False,
     "output": "Checking each word for the letter a: dog: d O g (1), sea: s u n (1).\nTotal: 1 + 1 = 2.\n#### 3"},
    # the paired form: a verdict wrong ("g g no"), and so the word's count
    {"family": "counting", "prompt": 'Count the letter "g" in: "egg sun"', "correct": False,
     "output": "Checking each word for the letter g: egg: e g no g g one g g no (1), sun: s g no u g no n g no (0).\n"
               "Total: 1 + 0 = 1.\n#### 1"},
    # the paired form: every verdict right, the count not their number of "one"s (it follows the total)
    {"family": "counting", "prompt": 'Count the letter "o" in: "she"', "correct": False,
     "output": "Checking each word for the letter o: she: s o no h o no e o no (1).\nTotal: 1 = 1.\n#### 1"},
    # a total line that is not a sum of terms (as a decode may write it) adds nothing
    {"family": "counting", "prompt": ASK, "correct": False,
     "output": 'Checking each word for "g": soup: s o u p (0).\nTotal: 00  0 = 0.\n#### 0'},
    # a word count is not a letter count
    {"family": "counting", "prompt": 'Count the words in: "Rises red jump."', "correct": True,
     "output": "Counting the words: 1 Rises, 2 red, 3 jump.\nThe sentence has 3 words.\n#### 3"},
    {"family": "addition", "prompt": "What is 1 + 2?", "correct": True, "output": "#### 3"},
]
c = lc.count(rows)
expected = {"rows": 7, "correct": 3, "letter_written_right": 6, "words_copied": 5, "words": 14,
            "spelled_right": 13, "letters": 47, "marks": 5, "asked_letters": 7, "asked_marked": 5,
            "word_counts_right": 10, "rows_counts_all_right": 3, "rows_total_adds_counts": 5,
            "rows_answer_is_total": 5, "verdicts": 9, "verdicts_right": 8, "paired_counts": 3,
            "counts_off_verdicts": 1}
assert c == expected, c

# The parser reads exactly the forms the corpus writes: every reference response counts as all
# right, in each spelled form, and the marked and starred forms mark exactly the asked letters.
import corpus  # noqa: E402

for form in ("spelled", "echoed", "marked", "starred", "paired"):
    corpus.COUNTING_FORM = form
    rng = random.Random(5)
    reference = [corpus.make_example("counting", rng, "val") for _ in range(300)]
    ref = lc.count([{"family": "counting", "prompt": e["prompt"], "correct": True, "output": e["response"]}
                    for e in reference])
    n = ref["rows"]
    assert n > 100, (form, ref)
    assert ref["letter_written_right"] == ref["words_copied"] == ref["rows_counts_all_right"] == n, (form, ref)
    assert ref["rows_total_adds_counts"] == ref["rows_answer_is_total"] == n, (form, ref)
    assert ref["spelled_right"] == ref["word_counts_right"] == ref["words"] > n, (form, ref)
    marked = ref["asked_letters"] if form in ("marked", "starred", "paired") else 0
    assert ref["marks"] == ref["asked_marked"] == marked, (form, ref)
    assert ref["verdicts_right"] == ref["verdicts"] == (ref["letters"] if form == "paired" else 0), (form, ref)
    assert ref["counts_off_verdicts"] == 0 and ref["paired_counts"] == (ref["words"] if form == "paired" else 0), (form, ref)

text = check_tool_command(source, "letter_count_parts", rows, expected, rows[-1])
assert "letter counts 3/7 right; asked letter written back 6/7" in text and "paired verdicts right 8/9" in text, text
assert 'word counts that are not the number of their verdicts "one" 1/3' in text, text
print("ok")
