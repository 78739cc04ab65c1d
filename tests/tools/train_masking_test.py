#!/usr/bin/env python3
"""Checks the MDLM objective's masking in tools/train/train.py (mdlm_loss):
- the prompt is never a target and, by default, never hidden; a response token is hidden exactly
  when it is a target;
- with --prompt-digit-mask, the chosen suffix-masked sequences have every prompt digit hidden and
  every other prompt token intact (hiding a word would change the question, not just its numbers);
- with --prompt-digit-noise, prompt digits are replaced by other digits only in sequences cut
  after the last '=' of their response (never where a copy of the question is a target);
- with --digit-suffix, the same cuts hide the same digits and no token that the plain suffix
  masking leaves visible, while the words after the cut are shown;
- all three are refused where they would do nothing (the AR objective, no suffix masking);
- with --decode-order-mask, a sequence shows exactly its most confident response positions (by the
  model's own forward of the fully masked response; a shifted-logit model's from the row before),
  at least one stays masked, the prompt is untouched, no suffix form is laid over it, and the
  option is refused for the AR objective.

  python3 tests/tools/train_masking_test.py --source <checkout>

Exits 77 (ctest: skipped) when no Python with PyTorch is found (see torch_reference_test.py).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference_test import run_training_check  # noqa: E402

CHECK = r'''
import sys, torch
sys.path.insert(0, sys.argv[1])
import common as C
import train

class Spy(torch.nn.Module):
    """Records the model's input; stands in for the network (only the masking is under test)."""
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.zeros(1))
    def hidden(self, x):
        self.seen = x.clone()
        return torch.zeros(x.shape[0], x.shape[1], 4) + self.w
    def head(self, h):
        self.targets = h.shape[0]
        return torch.zeros(h.shape[0], C.sp().get_piece_size()) + self.w

prompt = C.encode_prompt("What is 47 + 385?")
resp = C.encode_response("0047 + 0385 = 00432\n#### 432")
ids = torch.tensor([prompt + resp] * 64)
is_resp = torch.zeros_like(ids, dtype=torch.bool)
is_resp[:, len(prompt):] = True
digits = torch.isin(ids, train.digit_ids())
assert int(digits[0, :len(prompt)].sum()) == 5, "the prompt's five digits are digit tokens"

def run(**kw):
    m = Spy()
    train.mdlm_loss(m, ids, is_resp, torch.Generator().manual_seed(3), **kw)
    hidden_resp = int((m.seen[:, len(prompt):] == C.MASK).sum())
    assert hidden_resp == m.targets, f"{hidden_resp} response tokens hidden but {m.targets} are targets"
    return m.seen

seen = run(suffix_prob=1.0)
assert torch.equal(seen[:, :len(prompt)], ids[:, :len(prompt)]), "the prompt was changed without --prompt-digit-mask"
seen = run(suffix_prob=1.0, prompt_digit_prob=1.0)
p = slice(0, len(prompt))
assert bool((seen[:, p][digits[:, p]] == C.MASK).all()), "a prompt digit stayed visible"
assert torch.equal(seen[:, p][~digits[:, p]], ids[:, p][~digits[:, p]]), "a prompt token other than a digit was hidden"
seen = run(suffix_prob=0.0, prompt_digit_prob=1.0)
assert torch.equal(seen[:, p], ids[:, p]), "digits were hidden in a sequence that was not suffix-masked"
seen = run(suffix_prob=1.0, prompt_noise_prob=1.0)
changed = seen[:, p] != ids[:, p]
assert bool(changed.any()), "no prompt was given noise"
assert bool(digits[:, p][changed].all()), "noise reached a prompt token other than a digit"
assert bool(torch.isin(seen[:, p][changed], train.digit_ids()).all()), "noise wrote something other than a digit"

def written_up_to_last_equals(seen, resp, n):
    """Rows n.. of seen: every row whose prompt got noise has its response written (bar the few
    masks before a cut; from the cut on, all) up to and including the last '='."""
    eq = len(prompt) + len(resp) - 1 - resp[::-1].index(train.equals_id())
    for i in range(seen.shape[0]):
        if bool((seen[i, :len(prompt)] != ids[0, :len(prompt)]).any()):
            assert int((seen[i, len(prompt):eq + 1] == C.MASK).sum()) <= (eq + 1 - len(prompt)) // 2, \
                "noise where the last line was not written"

written_up_to_last_equals(seen, resp, 64)

# two worked lines (a running sum): the second line's 0008 copies the question, so noise only
# when the cut comes after the second '='
resp2 = C.encode_response("0047 + 0385 = 00432\n0432 + 0008 = 00440\n#### 440")
ids2 = torch.tensor([prompt + resp2] * 64)
is_resp2 = torch.zeros_like(ids2, dtype=torch.bool)
is_resp2[:, len(prompt):] = True
m = Spy()
train.mdlm_loss(m, ids2, is_resp2, torch.Generator().manual_seed(3), suffix_prob=1.0, prompt_noise_prob=1.0)
assert bool((m.seen[:, p] != ids2[:, p]).any()), "no two-line sequence got noise"
written_up_to_last_equals(m.seen, resp2, 64)

# --digit-suffix: the same generator gives the same cuts; the words after them come back
resp3 = C.encode_response("He bought 3 pens at $4 each.\n3 * 04 = 012\nThe total cost is:\n0012 + 0006 = 00018\n#### 18")
ids3 = torch.tensor([prompt + resp3] * 64)
is_resp3 = torch.zeros_like(ids3, dtype=torch.bool)
is_resp3[:, len(prompt):] = True
digits3 = torch.isin(ids3, train.digit_ids())
def hidden(**kw):
    m = Spy()
    train.mdlm_loss(m, ids3, is_resp3, torch.Generator().manual_seed(3), suffix_prob=1.0, **kw)
    assert int((m.seen == C.MASK).sum()) == m.targets
    return m.seen == C.MASK
plain, ds = hidden(), hidden(digit_suffix_prob=1.0)
assert not bool((ds & ~plain).any()), "--digit-suffix hid a token the plain suffix masking shows"
assert torch.equal(ds & digits3, plain & digits3), "--digit-suffix changed which digits are hidden"
words_back = ((plain & ~digits3).sum(1) - (ds & ~digits3).sum(1))
assert int((words_back > 0).sum()) >= 48, f"words after the cut came back in only {int((words_back > 0).sum())} of 64 rows"

# --decode-order-mask: each row's confidence is known here (odd rows above even ones, each rising
# with the position), so the masked positions of a sequence must be its least confident ones
def row_confidence(j):
    return (j % 2) * 1000 + j

class Ranked(torch.nn.Module):
    """The top logit of row j is row_confidence(j) (its top probability rises with it); records the inputs."""
    def __init__(self, shifted=False):
        super().__init__()
        self.w = torch.nn.Parameter(torch.zeros(1))
        self.shifted_logits = shifted
        self.inputs, self.modes = [], []
    def hidden(self, x):
        self.inputs.append(x.clone())
        self.modes.append(self.training)
        rows = torch.tensor([float(row_confidence(j)) for j in range(x.shape[1])])
        return rows[None, :, None].expand(x.shape[0], -1, 1) + self.w
    def head(self, h):
        logits = torch.zeros(*h.shape[:-1], C.sp().get_piece_size())
        logits[..., 7] = h[..., 0] / 100
        return logits

P, R = len(prompt), len(resp)
for shifted in (False, True):
    m = Ranked(shifted)
    m.train()
    # every sequence would also be suffix-masked with its prompt digits hidden, were the forms not exclusive
    train.mdlm_loss(m, ids, is_resp, torch.Generator().manual_seed(5), suffix_prob=1.0, prompt_digit_prob=1.0,
                    order_prob=1.0)
    blank, seen = m.inputs
    assert m.modes == [False, True] and m.training, "the ranking forward must run the decode's model, then train"
    assert bool((blank[:, P:] == C.MASK).all()) and torch.equal(blank[:, :P], ids[:, :P]), \
        "the ranking forward must see the prompt and a fully masked response"
    assert torch.equal(seen[:, :P], ids[:, :P]), "decode-order masking touched the prompt"
    hid = seen[:, P:] == C.MASK
    n_hidden = hid.sum(1)
    assert bool((n_hidden >= 1).all()), "a decode-order sequence was shown whole"
    # token j is read from row j, or from row j - 1 for a shifted-logit model (the parity flips)
    conf = [row_confidence(P + j - shifted) for j in range(R)]
    by_confidence = sorted(range(R), key=lambda j: conf[j])
    for i in range(ids.shape[0]):
        k = int(n_hidden[i])
        expected = torch.zeros(R, dtype=torch.bool)
        expected[by_confidence[:k]] = True
        assert torch.equal(hid[i], expected), \
            f"shifted={shifted} row {i}: hidden {hid[i].int().tolist()}, the {k} least confident are {expected.int().tolist()}"
        assert torch.equal(seen[i, P:][~hid[i]], ids[i, P:][~hid[i]]), "a shown position did not show its true token"
    assert int(n_hidden.max()) - int(n_hidden.min()) >= R // 2, "the shown count does not spread over the response"
mixed = Ranked()
train.mdlm_loss(mixed, ids, is_resp, torch.Generator().manual_seed(5), suffix_prob=1.0, order_prob=0.5)
assert mixed.inputs[0].shape[0] < ids.shape[0] and len(mixed.inputs) == 2, \
    "with a share of 0.5, only the chosen sequences are ranked"

# --count-weight: a spelled letter count's per-word counts, and nothing else, weigh W times as much
import corpus, random
corpus.COUNTING_FORM = "spelled"
rng = random.Random(4)
cnt = next(ex for ex in iter(lambda: corpus.make_example("counting", rng, "val"), None)
           if ex["response"].startswith("Checking each word for "))
cp, cr = C.encode_prompt(cnt["prompt"]), C.encode_response(cnt["response"])
cids = torch.tensor([cp + cr])
found = train.count_ids(cids)[0]
words = cnt["response"].split("\n")[0].count("(")
assert int(found.sum()) == words and all(C.sp().id_to_piece(int(cids[0, k - 1])) == "\u2581(" for k in found.nonzero()[:, 0]), \
    (cnt["response"], int(found.sum()))
for family in ("sorting", "word_problem", "addition", "subtraction", "running_sum"):
    for _ in range(20):
        ex = corpus.make_example(family, rng, "val")
        other = torch.tensor([C.encode_prompt(ex["prompt"]) + C.encode_response(ex["response"])])
        assert not bool(train.count_ids(other)[:, len(C.encode_prompt(ex["prompt"])):].any()), (family, ex["response"])

import math
cids = torch.tensor([cp + cr] * 16)
cresp = torch.zeros_like(cids, dtype=torch.bool)
cresp[:, len(cp):] = True
counts = train.count_ids(cids)
for w in (1.0, 5.0):
    m = Spy()  # every logit zero: each target's CE is log V, so the loss sums the targets' weights
    got = float(train.mdlm_loss(m, cids, cresp, torch.Generator().manual_seed(1), suffix_prob=1.0, count_weight=w)[0])
    hid = m.seen == C.MASK  # suffix-masked sequences average their masked tokens' weighted CE
    weights = torch.where(counts, torch.full(hid.shape, w), torch.ones(hid.shape))
    want = float(((weights * hid).sum(1) / hid.sum(1).clamp(min=1)).mean()) * math.log(C.sp().get_piece_size())
    assert abs(got - want) < 1e-4 * want, (w, got, want)
    if w != 1.0:
        assert bool((hid & counts).any()) and got > 1.01 * math.log(C.sp().get_piece_size()), "no count was weighted"

# --comparison-mask: a chosen letter count shows its words, letters and copies and hides exactly
# its counts, its verdicts and the lines after the first; a sequence of another family is masked
# as it would be without the option
corpus.COUNTING_FORM = "paired"
pc = next(ex for ex in iter(lambda: corpus.make_example("counting", rng, "val"), None)
          if ex["response"].startswith("Checking each word for "))
pp, pr = C.encode_prompt(pc["prompt"]), C.encode_response(pc["response"])
mixed_ids = torch.nn.utils.rnn.pad_sequence([torch.tensor(pp + pr), torch.tensor(prompt + resp)], batch_first=True,
                                            padding_value=C.sp().piece_to_id("<|endoftext|>"))
mixed_resp = torch.zeros_like(mixed_ids, dtype=torch.bool)
mixed_resp[0, len(pp):len(pp) + len(pr)] = True
mixed_resp[1, len(prompt):len(prompt) + len(resp)] = True
m = Spy()
train.mdlm_loss(m, mixed_ids, mixed_resp, torch.Generator().manual_seed(2), comparison_prob=1.0)
hid = m.seen[0] == C.MASK
pieces = [C.sp().id_to_piece(int(t)) for t in mixed_ids[0]]
first_line_end = len(pp) + pr.index(C.nl_id())
want = [k > first_line_end and mixed_resp[0, k] or (mixed_resp[0, k] and (pieces[k] in ("\u2581one", "\u2581no")
        or (pieces[k].isdigit() and pieces[k - 1] == "\u2581("))) for k in range(len(pieces))]
assert hid.tolist() == [bool(w) for w in want], (pc["response"], [p for p, h in zip(pieces, hid) if h])
m2 = Spy()
train.mdlm_loss(m2, mixed_ids, mixed_resp, torch.Generator().manual_seed(2))
assert bool((m.seen[1] == C.MASK).any()) and torch.equal(m.seen[1], m2.seen[1]), "the other row lost its own masking"
# --verdicts-shown: the same letter count with its verdicts written, its counts and later lines
# still hidden (each count read off the verdicts before it)
m3 = Spy()
train.mdlm_loss(m3, mixed_ids, mixed_resp, torch.Generator().manual_seed(2), comparison_prob=1.0, verdicts_shown_prob=1.0)
hid = m3.seen[0] == C.MASK
want = [k > first_line_end and mixed_resp[0, k] or (mixed_resp[0, k] and pieces[k].isdigit() and pieces[k - 1] == "\u2581(")
        for k in range(len(pieces))]
assert hid.tolist() == [bool(w) for w in want], (pc["response"], [p for p, h in zip(pieces, hid) if h])
assert any(p in ("\u2581one", "\u2581no") for p in pieces[len(pp):first_line_end]), "the row has no verdicts to show"
# --total-mask: the same letter count with its whole first line shown (words, letters, verdicts,
# counts) and exactly the lines after it hidden; the other row masked as without the option
m4 = Spy()
train.mdlm_loss(m4, mixed_ids, mixed_resp, torch.Generator().manual_seed(2), total_prob=1.0)
hid = m4.seen[0] == C.MASK
want = [bool(k > first_line_end and mixed_resp[0, k]) for k in range(len(pieces))]
assert hid.tolist() == want, (pc["response"], [p for p, h in zip(pieces, hid) if h])
assert "\n" in pc["response"].strip() and any(want), "the row has no total line to hide"
assert bool((m4.seen[1] == C.MASK).any()) and torch.equal(m4.seen[1], m2.seen[1]), "the other row lost its own masking"
# beside the comparison form, a row drawn for comparisons keeps the comparison mask
m5 = Spy()
train.mdlm_loss(m5, mixed_ids, mixed_resp, torch.Generator().manual_seed(2), comparison_prob=1.0, total_prob=1.0)
assert torch.equal(m5.seen[0], m.seen[0]), "a comparison-masked row was masked again for its total"
corpus.COUNTING_FORM = "spelled"

# where they would do nothing (the AR objective, no suffix masking) the options are refused
import os, subprocess
for extra in (["--model", "ar", "--count-weight", "3"], ["--model", "mdlm", "--count-weight", "3"],
              ["--model", "mdlm", "--comparison-mask", "0.5"],
              ["--model", "mdlm", "--counting-form", "paired", "--verdicts-shown", "0.5"],
              ["--model", "mdlm", "--counting-form", "spelled", "--comparison-mask", "0.5", "--verdicts-shown", "0.5"],
              ["--model", "mdlm", "--counting-form", "spelled", "--count-weight", "0"],
              ["--model", "mdlm", "--total-mask", "0.5"], ["--model", "ar", "--counting-form", "paired", "--total-mask", "0.5"],
              ["--model", "mdlm", "--counting-form", "paired", "--total-mask", "1.5"]):
    r = subprocess.run([sys.executable, os.path.join(sys.argv[1], "train.py"), *extra], capture_output=True, text=True)
    assert r.returncode == 2 and extra[-2] in r.stderr, (extra, r.returncode, r.stderr[-300:])
r = subprocess.run([sys.executable, os.path.join(sys.argv[1], "train.py"), "--model", "ar", "--decode-order-mask", "0.3"],
                   capture_output=True, text=True)
assert r.returncode == 2 and "--decode-order-mask" in r.stderr, (r.returncode, r.stderr[-300:])
for extra in (["--model", "ar", "--prompt-digit-mask", "0.3"], ["--model", "mdlm", "--prompt-digit-noise", "0.3"],
              ["--model", "mdlm", "--digit-suffix", "0.3"]):
    r = subprocess.run([sys.executable, os.path.join(sys.argv[1], "train.py"), *extra], capture_output=True, text=True)
    assert r.returncode == 2 and "suffix-masked" in r.stderr, (extra, r.returncode, r.stderr[-300:])
# a share outside 0..1 is refused, not clamped
for extra in (["--suffix-mask", "7"], ["--suffix-mask", "-0.1"], ["--suffix-mask", "nan"],
              ["--suffix-mask", "0.5", "--digit-suffix", "1.5"], ["--decode-order-mask", "2"], ["--long-prob", "1.5"],
              ["--long-prob", "-1"]):
    r = subprocess.run([sys.executable, os.path.join(sys.argv[1], "train.py"), "--model", "mdlm", *extra],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "from 0 to 1" in r.stderr, (extra, r.returncode, r.stderr[-300:])
print("ok: prompt digits hidden and replaced exactly where asked, words after a digit-suffix cut shown, "
      "a letter count's word counts found and weighted, only its comparisons hidden with --comparison-mask "
      "(its verdicts shown with --verdicts-shown), only its total hidden with --total-mask, "
      "decode-order masks hide the least confident positions; refused where they would do nothing or are no share")
'''


if __name__ == "__main__":
    run_training_check(CHECK, "the MDLM masking check failed")
