#!/usr/bin/python3
"""tools/train/corpus.py's sorting forms. Ranked: each copied number carries its place in the sorted
order (a permutation of 1..n, equal numbers in list order), the sorted line takes the copies in
label order, the final answer is the list sorted, and the longest response fits the family's canvas
(corpus.GEN_LENGTH). Passes: n lines for n numbers, each one round of odd-even transposition sort
of the line above (neighbours from the first pair on odd passes, from the second on even ones),
the last one sorted, and the canvas of the form (corpus.gen_length) holds the longest, as the one
the committed eval files name for every sorting row does (corpus.EVAL_GEN_LENGTH); an eval file's
row decodes on it (corpus.row_canvas). The draw is the same in every form. gpu_train.sh refuses an
unknown form before it starts anything (a lease's minutes are not spent finding out)."""
import json
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


corpus.SORTING_FORM = "passes"
rng = random.Random(6)
passes_responses = []
for _ in range(3000):
    ex = corpus.make_example("sorting", rng, "train")
    passes_responses.append(ex["response"])
    lines = ex["response"].split("\n")
    m = re.fullmatch(r"The numbers are ((?:\d{3} )*\d{3})\.", lines[0])
    assert m, ex["response"]
    cur = [int(x) for x in m.group(1).split(" ")]
    descending = "descending" in ex["prompt"] or "largest to smallest" in ex["prompt"]
    assert len(lines) == len(cur) + 2, ex["response"]
    for k, line in enumerate(lines[1:-1], start=1):
        m = re.fullmatch(rf"Pass {k}: ((?:\d{{3}} )*\d{{3}})", line)
        assert m, (k, ex["response"])
        row = [int(x) for x in m.group(1).split(" ")]
        first = 0 if k % 2 else 1
        for i in range(len(cur)):  # each number is its pair's smaller or larger, or stays
            j = i + 1 if (i - first) % 2 == 0 else i - 1
            if j < first or j >= len(cur):
                assert row[i] == cur[i], (k, ex["response"])
                continue
            low, high = min(cur[i], cur[j]), max(cur[i], cur[j])
            left = i < j
            assert row[i] == ((high if left else low) if descending else (low if left else high)), (k, ex["response"])
        cur = row
    assert cur == sorted(cur, reverse=descending), ex["response"]
    assert lines[-1] == "#### " + ex["answer"] == "#### " + ", ".join(str(x) for x in cur), ex["response"]
assert corpus.transposition_passes([3, 1, 2], False) == [[1, 3, 2], [1, 2, 3], [1, 2, 3]]


# The form does not change the stream: one corpus seed draws the same questions and answers in
# every form, so the eval files and a resumed run's data stay what they were.
def draw(form):
    corpus.SORTING_FORM = form
    r = random.Random(5)
    return [(e["prompt"], e["answer"]) for e in (corpus.make_example("sorting", r, "train") for _ in range(200))]


assert draw("plain") == draw("columns") == draw("ranked") == draw("passes")
corpus.SORTING_FORM = "ranked"

# The committed eval files name the canvas of the shipped MDLM's sorting form (the passes form)
# for every sorting row ...
for split in ("test", "heldout", "paraphrase"):
    with open(os.path.join(source, "resources", "eval", split + ".jsonl")) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    canvases = {r["gen_length"] for r in rows if r["family"] == "sorting"}
    assert canvases == {corpus.EVAL_GEN_LENGTH["sorting"]}, (split, canvases)

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
corpus.SORTING_FORM = "passes"
worst = corpus.sort_render({"xs": [999 - i for i in range(8)], "ord": "ascending"}, None)[0]
longest_passes = max(len(common.encode_response(r)) for r in passes_responses + [worst])
assert corpus.gen_length("sorting") > corpus.GEN_LENGTH["sorting"], "the passes form has a canvas of its own"
assert longest_passes <= corpus.gen_length("sorting"), (longest_passes, corpus.gen_length("sorting"))
# ... and that canvas holds the longest list in that form.
assert longest_passes <= corpus.EVAL_GEN_LENGTH["sorting"], (longest_passes, corpus.EVAL_GEN_LENGTH["sorting"])
# The app's worked sorting example names a canvas of its own (shorter than 400, so that it decodes
# in a watchable number of steps); it must still hold the example's whole answer in the passes form.
with open(os.path.join(source, "resources", "eval", "examples.jsonl")) as f:
    examples = [json.loads(line) for line in f if line.strip()]
for ex in (e for e in examples if e["family"] == "sorting"):
    xs = [int(x) for x in re.findall(r"\d+", ex["prompt"])]
    order = "descending" if ex["answer"] == ", ".join(str(x) for x in sorted(xs, reverse=True)) else "ascending"
    need = len(common.encode_response(corpus.sort_render({"xs": xs, "ord": order}, None)[0]))
    assert need <= ex["gen_length"], (ex["prompt"], need, ex["gen_length"])
# A row of the eval files (the usual canvas) decodes on the form's canvas; other families, and a
# paraphrase's own shorter canvas, keep theirs.
assert corpus.row_canvas("sorting", corpus.GEN_LENGTH["sorting"]) == corpus.gen_length("sorting")
assert corpus.row_canvas("word_problem", 160) == 160
corpus.SORTING_FORM = "columns"
assert corpus.gen_length("sorting") == corpus.GEN_LENGTH["sorting"]
assert corpus.row_canvas("sorting", 96) == 96 and corpus.row_canvas("sorting") == corpus.GEN_LENGTH["sorting"]
print(f"{len(responses)} ranked and {len(passes_responses)} passes sorting responses checked; longest responses "
      f"{longest} and {longest_passes} tokens (canvases {corpus.GEN_LENGTH['sorting']} and the passes form's)")
