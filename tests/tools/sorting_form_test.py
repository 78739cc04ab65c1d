#!/usr/bin/python3
"""tools/train/corpus.py's ranked sorting form: each copied number carries its place in the sorted
order (a permutation of 1..n, equal numbers in list order), the sorted line takes the copies in
label order, the final answer is the list sorted, the draw is the same in every form, and the
longest response fits the family's canvas (corpus.GEN_LENGTH). gpu_train.sh refuses an unknown form
before it starts anything (a lease's minutes are not spent finding out)."""
import os
import random
import re
import subprocess
import sys
import tempfile

source = sys.argv[sys.argv.index("--source") + 1]
sys.path.insert(0, os.path.join(source, "tools", "train"))
import corpus  # noqa: E402

with tempfile.TemporaryDirectory() as out:
    r = subprocess.run(["bash", os.path.join(source, "tools", "train", "gpu_train.sh"), out, "--sorting-form", "sorted"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "argument --sorting-form: invalid choice: 'sorted'" in r.stderr and "nothing was started" in r.stderr, (r.returncode, r.stderr)
    assert os.listdir(out) == [], os.listdir(out)

# Ties: the two 23s take their places in the order they are listed, in either direction.
assert corpus.sort_ranks([37, 48, 23, 76, 23], False) == [3, 4, 1, 5, 2]
assert corpus.sort_ranks([37, 48, 23, 76, 23], True) == [3, 2, 4, 1, 5]

corpus.SORTING_FORM = "ranked"
rng = random.Random(5)
responses = []
for _ in range(3000):
    ex = corpus.make_example("sorting", rng, "train")
    responses.append(ex["response"])
    m = re.match(r"The numbers are (.*)\.\nIn (ascending|descending) order: (.*)\.\n#### (.*)$", ex["response"])
    assert m, ex["response"]
    copy, order, sorted_line, answer = m.groups()
    pairs = [re.fullmatch(r"(\d{3}) \((\d)\)", p).groups() for p in copy.split(", ")]
    labels = [int(k) for _, k in pairs]
    assert sorted(labels) == list(range(1, len(pairs) + 1)), copy
    by_label = [x for _, x in sorted((int(k), x) for x, k in pairs)]
    assert sorted_line.split(", ") == by_label, ex["response"]
    values = [int(x) for x, _ in pairs]
    assert [int(x) for x in by_label] == sorted(values, reverse=order == "descending"), ex["response"]
    assert answer == ex["answer"] == ", ".join(str(int(x)) for x in by_label), ex["response"]


# The form does not change the stream: one corpus seed draws the same questions and answers in
# every form, so the eval files and a resumed run's data stay what they were.
def draw(form):
    corpus.SORTING_FORM = form
    r = random.Random(5)
    return [(e["prompt"], e["answer"]) for e in (corpus.make_example("sorting", r, "train") for _ in range(200))]


assert draw("plain") == draw("columns") == draw("ranked")
corpus.SORTING_FORM = "ranked"

try:
    import common  # sentencepiece: the canvas check tokenizes
    longest = max(len(common.encode_response(r)) for r in responses)
except ImportError as e:
    print(f"canvas check skipped: {e}")
    sys.exit(0)
# The longest a list can make: eight three-digit numbers.
worst = corpus.sort_render({"xs": [999 - i for i in range(8)], "ord": "descending"}, None)[0]
longest = max(longest, len(common.encode_response(worst)))
assert longest <= corpus.GEN_LENGTH["sorting"], (longest, corpus.GEN_LENGTH["sorting"])
print(f"{len(responses)} ranked sorting responses checked; longest response {longest} tokens "
      f"(canvas {corpus.GEN_LENGTH['sorting']})")
