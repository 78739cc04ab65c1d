#!/usr/bin/python3
"""tools/train/corpus.py's invented items (train.py --invented-item-prob): a word problem that buys
made-up things asks and answers about exactly those words and prices; none of them is a word the
corpus already uses, nor a held-out or hand-written paraphrase word (phrasing.HELD_OUT_PHRASES); at 0
the corpus draws none (tools.eval_files_reproduce holds the committed eval files to that stream)."""
import os
import random
import re
import sys

source = sys.argv[sys.argv.index("--source") + 1]
sys.path.insert(0, os.path.join(source, "tools", "train"))
import corpus  # noqa: E402
import phrasing  # noqa: E402

known_items = {w for it in corpus.ITEMS for w in it[:2]}
bought = re.compile(r"(?:He|She) bought (\d) (.+?) at \$(\d+) each\.")


def draw(share, n, seed=3):
    corpus.INVENTED_ITEM_PROB = share
    rng = random.Random(seed)
    try:
        return [corpus.make_example("word_problem", rng, "train") for _ in range(n)]
    finally:
        corpus.INVENTED_ITEM_PROB = 0.0


corpus.WORD_PROBLEM_FORM, corpus.VARIED_WORDING = "lines", 0.9

# At 0 every item is one of the corpus's own.
for ex in draw(0.0, 500):
    assert {m.group(2) for m in bought.finditer(ex["response"])} <= known_items, ex["response"]

# At 1 every problem has at least one invented item, copied into the response with its price.
made_up = 0
for ex in draw(1.0, 1500):
    rows = bought.findall(ex["response"])
    assert rows, ex["response"]
    new = [(q, w, p) for q, w, p in rows if w not in known_items]
    assert new, ex["response"]
    for q, word, price in new:
        made_up += 1
        assert word in ex["prompt"] and f"${price}" in ex["prompt"], (ex["prompt"], word, price)
        assert 1 <= int(price) <= 30, price
        assert word.isalpha() and word.islower(), word
        stem = word[:-2] if word.endswith("ses") else word[:-1] if int(q) > 1 else word
        assert stem not in corpus.KNOWN_WORDS and word not in corpus.KNOWN_WORDS, word
        assert phrasing.held_out_free(word), word
    # The answer is the sum of the products the lines state, and the products are the question's.
    assert int(ex["answer"]) == sum(int(q) * int(p) for q, _, p in rows), ex["response"]
    assert ex["response"].endswith(f"#### {ex['answer']}"), ex["response"]
assert made_up > 1500, made_up

print(f"ok: {made_up} invented items checked")
