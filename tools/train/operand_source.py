#!/usr/bin/python3
"""Where an MDLM takes a sum's operands from: the worked line in its response, or the prompt.

  /usr/bin/python3 tools/train/operand_source.py --model resources/models/tiny-mdlm [--n 40]

Each case asks "What is a + b?" but writes another pair, a' + b', in the response's worked line
(addition4's column form); the result and everything after it are masked and decoded with the
low-confidence rule. A model that adds the line's operands writes a' + b' (the skill a word
problem's running total needs: its operands exist only in the response); one that reads the
question writes a + b. Random 4-digit operands, so chance agreement is negligible. Per result
digit it also counts agreement with either sum, the finer probe while a model moves from one
source to the other (the ones digit turns first).

Then the skill where it is used: validation word problems of two or more items, written in the line
form, each running total decoded with the response written up to its result and everything from
the result on masked (as a left-to-right decode meets it), counted right when all its digits are.
Last, the same running totals in the state a decode computes them in: the lines' words and layout
written, the digits still to come hidden (every digit from the first running total's result on),
and, alone, the last total with its operands and every line above it written. (`--wp 0` skips
both.)
"""
import argparse
import os
import random
import re
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402
import corpus  # noqa: E402
from golden import load_shipped  # noqa: E402


@torch.no_grad()
def fill(model, ids, masked, kept_masked=()):
    """Low-confidence decoding of the `masked` positions, one per step, T = 0; the `kept_masked`
    positions stay masked throughout, context that is never decoded (what lies below a line)."""
    x = torch.tensor([ids])
    x[0, list(masked) + list(kept_masked)] = C.MASK
    todo = torch.zeros(len(ids), dtype=torch.bool)
    todo[list(masked)] = True
    while bool(todo.any()):
        p = torch.softmax(model(x).float()[0], -1)
        conf, tok = p.max(-1)
        j = int(torch.where(todo, conf, torch.full_like(conf, -1.0)).argmax())
        x[0, j] = tok[j]
        todo[j] = False
    return x[0].tolist()


def response_lines(resp_ids):
    """Token positions (in resp_ids) of each line of the response, newlines left out."""
    nl = C.nl_id()
    lines, cur = [], []
    for k, t in enumerate(resp_ids):
        if t == nl:
            lines.append(cur)
            cur = []
        else:
            cur.append(k)
    return lines + [cur]


def sum_results(resp_ids):
    """Token positions (in resp_ids) of the result digits of each `a + b = c` line."""
    sp = C.sp()
    out = []
    for ks in response_lines(resp_ids):
        pieces = [sp.id_to_piece(resp_ids[k]) for k in ks]
        text = "".join(pieces).replace("\u2581", " ").strip()
        if re.fullmatch(r"\d+ \+ \d+ = \d+", text):
            eq = max(i for i, piece in enumerate(pieces) if "=" in piece)
            out.append([ks[i] for i in range(eq + 1, len(ks)) if pieces[i].isdigit()])
    return out


def validation_word_problems(seed):
    """The seed's validation word problems in the shipped models' forms, endlessly: (prompt ids,
    response ids, the result digits of each running total in the response)."""
    corpus.WORD_PROBLEM_FORM, corpus.ALIGNED = "lines", "fixed"
    rng = random.Random(seed)
    while True:
        ex = corpus.make_example("word_problem", rng, "val")
        resp = C.encode_response(ex["response"])
        yield C.encode_prompt(ex["prompt"]), resp, sum_results(resp)


def word_problem_sums(model, n, seed):
    """(right, total) running-total results of n validation word problems, each decoded with the
    response written up to it."""
    right = total = 0
    for prompt, resp, results in validation_word_problems(seed):
        if total >= n:
            break
        for digits in results:
            # Everything from the result on is masked: a later line's copy of the total, or the
            # final answer, would otherwise give the result away.
            out = fill(model, prompt + resp, list(range(len(prompt) + digits[0], len(prompt) + len(resp))))
            right += all(out[len(prompt) + k] == resp[k] for k in digits)
            total += 1
    return right, total


def word_problem_sums_late(model, n, seed):
    """The running totals of n validation word problems (the seed's, as word_problem_sums draws
    them) with every digit from the first total's result on hidden and the rest written: (totals
    right, totals, problems with every token right, problems, last totals right with only their
    own digits and the answer's hidden)."""
    sp = C.sp()
    sums_right = sums = whole = problems = last_right = 0
    for prompt, resp, results in validation_word_problems(seed):
        if problems >= n:
            break
        if not results:
            continue
        p = len(prompt)

        def digits_from(k0):
            return [p + k for k in range(k0, len(resp)) if sp.id_to_piece(resp[k]).isdigit()]

        out = fill(model, prompt + resp, digits_from(results[0][0]))
        right = [all(out[p + k] == resp[k] for k in r) for r in results]
        sums_right, sums = sums_right + sum(right), sums + len(right)
        whole += out[p:] == resp
        problems += 1
        out = fill(model, prompt + resp, digits_from(results[-1][0]))
        last_right += all(out[p + k] == resp[k] for k in results[-1])
    return sums_right, sums, whole, problems, last_right


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=os.path.join(C.ROOT, "resources/models/tiny-mdlm"))
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--wp", type=int, default=60, help="word-problem running totals to probe (0: none)")
    a = ap.parse_args()
    torch.set_num_threads(1)
    model, _ = load_shipped(a.model)
    rng = random.Random(a.seed)
    line_sum = prompt_sum = other = 0
    line_digit, prompt_digit = [0] * 5, [0] * 5  # per result digit, ten-thousands to ones
    for _ in range(a.n):
        x, y, x2, y2 = (rng.randint(1000, 4999) for _ in range(4))
        prompt = C.encode_prompt(f"What is {x} + {y}?")
        head = f"{x2:04d} + {y2:04d} = "
        resp = C.encode_response(head + f"{x2 + y2:05d}\n#### {x2 + y2}")
        start = len(prompt) + len(C.sp().encode(head))
        out = fill(model, prompt + resp, list(range(start, len(prompt) + len(resp) - 1)))
        got = C.sp().decode(out[start:start + 5])
        for k in range(5):
            line_digit[k] += got[k:k + 1] == f"{x2 + y2:05d}"[k]
            prompt_digit[k] += got[k:k + 1] == f"{x + y:05d}"[k]
        if got == f"{x2 + y2:05d}":
            line_sum += 1
        elif got == f"{x + y:05d}":
            prompt_sum += 1
        else:
            other += 1
    print(f"{a.model}: of {a.n} sums, {line_sum} added the response line's operands, {prompt_sum} the prompt's, "
          f"{other} neither; per result digit (ten-thousands to ones) the line's {line_digit}, "
          f"the prompt's {prompt_digit}")
    if a.wp:
        right, total = word_problem_sums(model, a.wp, a.seed)
        print(f"{a.model}: of {total} word-problem running totals, written up to it, {right} right "
              f"({100.0 * right / total:.0f} %)")
        sums_right, sums, whole, problems, last_right = word_problem_sums_late(model, a.wp, a.seed)
        print(f"{a.model}: with every digit from the first running total on hidden and the rest written, "
              f"{sums_right} of {sums} running totals right, {whole} of {problems} problems whole; "
              f"the last total alone, everything above it written: {last_right} of {problems}")


if __name__ == "__main__":
    main()
