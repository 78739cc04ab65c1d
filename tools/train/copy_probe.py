#!/usr/bin/python3
"""Does a model copy a word of the question into its answer? Three probes on validation rows.

  /usr/bin/python3 tools/train/copy_probe.py --model resources/models/tiny-mdlm [--n 60]

A word count's answer enumerates the sentence (`Counting the words: 1 We, 2 friend, ...`), a
letter count names the asked letter (`Checking each word for "n": ...`), so every such token is
read from the question, not computed. Each probe writes the response up to one copied token and
masks everything after it, the state a left-to-right decode meets, and asks whether the model's
most likely token there is the one the question holds:
- letters: the asked letter of each letter-count row;
- words: the first piece of every enumerated word of each word-count row;
- repeated words: each word piece but the first of a `repeat` row (a training-only family whose
  answer is the question's words written back, §4 of docs/models.md), the plainest copy there is.
A model that fails these cannot answer a question worded in a way it never saw: the numbers and
words it has to work on are in the question only. (Digits are ten tokens the head sees in every
answer; the words are hundreds, each rare as a target.)
Works on every exported diffusion model (tiny-dream's shifted head included) and the guider.
"""
import argparse
import os
import random
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402
import corpus  # noqa: E402
from golden import load_shipped  # noqa: E402

HEADER = 'Checking each word for "'
ENUMERATION = "Counting the words: "


def next_token_is(model, shift, prompt, written, expected, canvas):
    """Whether the model's argmax at the position after `written` is `expected`, everything after
    it masked (a diffusion model) or unseen (the guider)."""
    ids = prompt + written + [C.MASK] * (canvas - len(written))
    with torch.no_grad():
        logits = model(torch.tensor([ids])).float()[0]
    at = len(prompt) + len(written) - (1 if shift else 0)  # shifted heads: row i - 1 gives token i
    return int(logits[at].argmax()) == expected


def copy_cases(n, seed=7):
    """("letter", "word" or "repeat", prompt ids, response ids written before the copied token, the
    copied token, canvas): validation counting rows until n rows of each kind were drawn, then n
    validation rows of the repeat family."""
    sp = C.sp()
    rng = random.Random(seed)
    for _ in range(n):
        ex = corpus.make_example("repeat", rng, "val")
        prompt, response = C.encode_prompt(ex["prompt"]), C.encode_response(ex["response"])
        words = len(sp.encode(ex["response"].split("\n")[0]))
        for k in range(1, words):  # the first piece has no written word before it to go by
            yield "repeat", prompt, response[:k], response[k], len(response) + 8
    letter_rows = word_rows = 0
    while letter_rows < n or word_rows < n:
        ex = corpus.make_example("counting", rng, "val")
        prompt, text = C.encode_prompt(ex["prompt"]), ex["response"]
        canvas = len(C.encode_response(text)) + 8
        if text.startswith(HEADER):
            if letter_rows >= n:
                continue
            head = sp.encode(HEADER)
            letter = sp.encode(text[:len(HEADER) + 1])
            if letter[:len(head)] != head or len(letter) != len(head) + 1:
                continue  # the letter merged with the quote: no token of its own to probe
            letter_rows += 1
            yield "letter", prompt, head, letter[-1], canvas
        elif text.startswith(ENUMERATION):
            if word_rows >= n:
                continue
            word_rows += 1
            at = len(ENUMERATION)
            for item in text.split("\n")[0][len(ENUMERATION):].rstrip(".").split(", "):
                number, word = item.split(" ", 1)
                start = text.index(item, at) + len(number)  # the space before the word
                at = start
                head, full = sp.encode(text[:start]), sp.encode(text[:start + 1 + len(word)])
                if full[:len(head)] == head and len(full) > len(head):
                    yield "word", prompt, head, full[len(head)], canvas


def copy_rates(model, shift, n, seed=7):
    """{kind: [right, probed]} for each kind of copy_cases(n, seed): letter, word, repeat."""
    rates = {"letter": [0, 0], "word": [0, 0], "repeat": [0, 0]}
    for kind, prompt, written, copied, canvas in copy_cases(n, seed):
        rates[kind][0] += next_token_is(model, shift, prompt, written, copied, canvas)
        rates[kind][1] += 1
    return rates


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, help="an exported model folder")
    ap.add_argument("--n", type=int, default=60, help="letter-count, word-count and repeat rows to probe")
    a = ap.parse_args()
    if a.n < 1:
        ap.error("--n counts the rows of each kind to probe: use 1 or more")
    for name in ("config.json", "model.safetensors"):
        if not os.path.isfile(os.path.join(a.model, name)):
            ap.error(f"--model {a.model}: no {name} there (an exported model folder holds both)")
    corpus.WORD_PROBLEM_FORM, corpus.SORTING_FORM, corpus.COUNTING_FORM = "lines", "columns", "spelled"
    torch.set_num_threads(1)
    model, cfg = load_shipped(a.model)
    shift = cfg["model_type"] != "llada"  # Dream and the guider: row i - 1 predicts token i
    rates = copy_rates(model, shift, a.n)
    names = {"letter": "asked letter", "word": "enumerated word", "repeat": "repeated word"}
    print(f"{a.model}: " + ", ".join(f"{names[k]} copied {right}/{probed} ({100 * right / probed:.0f} %)"
                                     for k, (right, probed) in rates.items()))


if __name__ == "__main__":
    main()
