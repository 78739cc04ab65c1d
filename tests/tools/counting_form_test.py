#!/usr/bin/python3
"""tools/train/corpus.py's spelled counting form: every word is followed by exactly its letters and
their count of the asked letter, the total adds those counts, the answer is the true count, and the
longest response fits the family's canvas (corpus.GEN_LENGTH)."""
import os
import random
import re
import sys

source = sys.argv[sys.argv.index("--source") + 1]
sys.path.insert(0, os.path.join(source, "tools", "train"))
import corpus  # noqa: E402

corpus.COUNTING_FORM = "spelled"
rng = random.Random(11)
part = re.compile(r"(\w+): ((?:\w )*\w) \((\d+)\)")
letter_rows = 0
responses = []
for _ in range(3000):
    ex = corpus.make_example("counting", rng, "train")
    responses.append(ex["response"])
    m = re.match(r'Checking each word for "(.)": (.*)\.\nTotal: (.*) = (\d+)\.\n#### (\d+)$', ex["response"])
    if not m:
        assert ex["response"].startswith("Counting the words: "), ex["response"]  # word counts keep their form
        continue
    letter_rows += 1
    ch, body, terms, total, answer = m.groups()
    parts = part.findall(body)
    assert len(parts) == len(body.split("), ")), body
    for word, spelled, count in parts:
        assert spelled.split(" ") == list(word), (word, spelled)
        assert int(count) == word.count(ch), (word, ch, count)
    assert [int(t) for t in terms.split(" + ")] == [int(c) for _, _, c in parts], ex["response"]
    assert int(total) == sum(int(c) for _, _, c in parts) == int(answer) == int(ex["answer"]), ex["response"]
    assert ex["answer"] == str(sum(w.count(ch) for w, _, _ in parts))
assert letter_rows > 1000, letter_rows

# The form does not change the stream: one corpus seed draws the same questions and answers in
# either form, so the eval files and a resumed run's data stay what they were.
def draw(form):
    corpus.COUNTING_FORM = form
    r = random.Random(11)
    return [(e["prompt"], e["answer"]) for e in (corpus.make_example("counting", r, "train") for _ in range(200))]


assert draw("words") == draw("spelled")
corpus.COUNTING_FORM = "spelled"

try:
    import common  # sentencepiece: the canvas check tokenizes
except ImportError as e:
    print(f"canvas check skipped: {e}")
    sys.exit(0)
try:
    longest = max(len(common.encode_response(r)) for r in responses)
except ImportError as e:
    print(f"canvas check skipped: {e}")
    sys.exit(0)
assert longest <= corpus.GEN_LENGTH["counting"], (longest, corpus.GEN_LENGTH["counting"])
print(f"{letter_rows} spelled letter counts checked; longest response {longest} tokens "
      f"(canvas {corpus.GEN_LENGTH['counting']})")
