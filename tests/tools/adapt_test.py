#!/usr/bin/env python3
"""Checks the AR-to-MDLM adaptations (train.py --init-from-ar):
- tools/train/adapt.py: the adapted LLaDA is the guider, tensor for tensor: run with a causal
  mask it gives the guider's logits exactly (grouped-query attention, q/k/v biases and the tied
  head included);
- a guider whose shape differs from the MDLM config is refused with the reason;
- the Dream MDLM (train.py --model dream) loads the guider's tensors as they are, is the guider
  under a causal mask and not under its own bidirectional one, and its objective scores masked
  token i from row i - 1 (the LLaDA objective from row i), as eval_py's sampler reads it;
- the causal-to-bidirectional anneal (train.py --attention-anneal): share 0 shows the objective's
  Dream the guider's columns exactly, share 0.5 about half of the later ones, validation all;
- train.py refuses --init-from-ar for any LLaDA size but "adapted" and for the AR objective, and
  --attention-anneal for anything but a Dream model.

  python3 tests/tools/adapt_test.py --source <checkout>

Exits 77 (ctest: skipped) when no Python with PyTorch is found (see torch_reference_test.py).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference_test import run_training_check  # noqa: E402

CHECK = r'''
import contextlib, os, subprocess, sys, torch
sys.path.insert(0, sys.argv[1])
import common as C
import model as M
from adapt import adapt_ar_to_mdlm

torch.manual_seed(5)
ar_cfg = C.ar_config("base")
ar = M.Qwen2(ar_cfg)
with torch.no_grad():  # biases start at zero: give them values, or a lost bias would go unseen
    for n, p in ar.named_parameters():
        if n.endswith("bias"):
            p.normal_(0, 0.5)
sd = {"model." + k if not k.startswith("model.") else k: v for k, v in ar.state_dict().items()}
mdlm_cfg = C.mdlm_config("adapted")
mdlm = M.LLaDA(mdlm_cfg)
mdlm.load_state_dict(adapt_ar_to_mdlm(sd, ar_cfg, mdlm_cfg), strict=True)
ids = torch.tensor([C.encode_prompt("What is 345 + 278?") + C.encode_response("345 + 278 = 623\n#### 623")])

bidirectional = M.attention


@contextlib.contextmanager
def causal_attention():
    """Every model reads causally inside the block (the guider's mask), bidirectionally after it."""
    M.attention = lambda q, k, v, causal, key_mask=None, allow=None: bidirectional(q, k, v, True, key_mask, allow)
    try:
        yield
    finally:
        M.attention = bidirectional


with causal_attention(), torch.no_grad():
    diff = (ar(ids) - mdlm(ids)).abs().max().item()
print("causal adapted vs guider: max |logit difference|", diff)
assert diff == 0.0, "the adapted model is not the guider under a causal mask"
with torch.no_grad():
    assert (ar(ids) - mdlm(ids)).abs().max().item() > 1e-3, "bidirectional attention changed nothing"

bad = dict(ar_cfg, intermediate_size=512)
try:
    adapt_ar_to_mdlm(sd, bad, mdlm_cfg)
    raise SystemExit("a guider of another shape was accepted")
except ValueError as e:
    assert "intermediate_size" in str(e), e

# Dream: the guider's own tensors, bidirectional.
dream = M.Dream(C.dream_config("base"))
dream.load_state_dict(ar.state_dict(), strict=True)
with causal_attention(), torch.no_grad():
    assert (ar(ids) - dream(ids)).abs().max().item() == 0.0, "the Dream MDLM is not the guider under a causal mask"
with torch.no_grad():
    assert (ar(ids) - dream(ids)).abs().max().item() > 1e-3, "the Dream MDLM is not bidirectional"

# The objective: which rows the head reads, for each head convention.
import train as T
prompt = C.encode_prompt("What is 345 + 278?")
resp = C.encode_response("345 + 278 = 623\n#### 623")
seq = torch.tensor([prompt + resp] * 4)
is_resp = torch.zeros_like(seq, dtype=torch.bool)
is_resp[:, len(prompt):] = True
for model, shifted in ((dream, True), (mdlm, False)):
    seen = {}
    hidden, head = model.hidden, model.head
    model.hidden = lambda x, key_mask=None: seen.setdefault("h", (x, hidden(x, key_mask)))[1]

    def head_spy(h, head=head):
        seen["head_in"] = h
        return head(h)
    model.head = head_spy
    T.mdlm_loss(model, seq, is_resp, torch.Generator().manual_seed(3))
    model.hidden, model.head = hidden, head
    noisy, h = seen["h"]
    masked = noisy == C.MASK
    assert int(masked.sum()) > 0 and not bool(masked[:, :len(prompt)].any())
    want = h[:, :-1][masked[:, 1:]] if shifted else h[masked]
    assert torch.equal(seen["head_in"], want), f"{type(model).__name__}: the head reads the wrong rows"
# The PyTorch sampler reads a Dream's shift too: under a causal mask the Dream model is the
# guider, so with one position to fill it commits the guider's greedy next token (row p - 1).
import eval_py
prompts = [C.encode_prompt(q) for q in ("What is 345 + 278?", "Sort 3, 1, 2.", "Count the words in: \"a b c\"")]
with causal_attention(), torch.no_grad():
    got = eval_py.llada_generate(dream, prompts, 1)[:, 0].tolist()
    want = [int(ar(torch.tensor([p]))[0, -1].argmax()) for p in prompts]
assert got == want, f"the sampler does not read masked token i from row i - 1: {got} vs {want}"
print("dream: the guider's tensors, shifted objective: ok")

# The causal-to-bidirectional anneal (train.py --attention-anneal): at share 0 the objective's
# Dream sees exactly the guider's columns, at 0.5 about half of the later ones, and validation
# (eval mode) always the full bidirectional model.
with torch.no_grad():
    n = ids.shape[1]
    tril = torch.ones(n, n, dtype=torch.bool).tril()
    assert (ar(ids) - dream.head(dream.hidden(ids, allow=tril))).abs().max().item() == 0.0, \
        "allow = the lower triangle does not give the guider"
for share, mode, lo, hi in ((0.0, "train", 0.0, 0.0), (0.5, "train", 0.4, 0.6), (0.0, "eval", 1.0, 1.0)):
    dream.future_share = share
    dream.train(mode == "train")
    got = {}
    hidden = dream.hidden

    def hidden_spy(x, key_mask=None, allow=None, hidden=hidden):
        got["allow"] = allow
        return hidden(x, key_mask, allow)
    dream.hidden = hidden_spy
    with torch.no_grad():
        T.mdlm_loss(dream, seq, is_resp, torch.Generator().manual_seed(3))
    dream.hidden = hidden
    a = got["allow"]
    m = seq.shape[1]
    upper = torch.ones(m, m, dtype=torch.bool).triu(1)
    seen_later = 1.0 if a is None else float(a[upper].float().mean())
    assert a is None or bool(a.tril().eq(torch.ones(m, m, dtype=torch.bool).tril()).all()), "a row lost an earlier column"
    assert lo <= seen_later <= hi, (share, mode, seen_later)
dream.future_share = None
r = subprocess.run([sys.executable, os.path.join(sys.argv[1], "train.py"), "--model", "mdlm", "--size", "compact",
                    "--attention-anneal", "100", "--bench", "1"], capture_output=True, text=True)
assert r.returncode == 2 and "--model dream" in r.stderr, (r.returncode, r.stderr)
print("dream: the attention anneal: ok")

train = os.path.join(sys.argv[1], "train.py")
for args in (["--model", "mdlm", "--size", "compact"], ["--model", "ar", "--size", "adapted"]):
    r = subprocess.run([sys.executable, train, *args, "--init-from-ar", "x", "--bench", "1"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--size adapted" in r.stderr, (args, r.returncode, r.stderr)
print("ok")
'''

run_training_check(CHECK, "an AR-to-MDLM adaptation does not start as the guider, or its objective reads the wrong rows")
