#!/usr/bin/env python3
"""Checks tools/train/adapt.py, the AR-to-MDLM adaptation (train.py --init-from-ar):
- the adapted LLaDA is the guider, tensor for tensor: run with a causal mask it gives the
  guider's logits exactly (grouped-query attention, q/k/v biases and the tied head included);
- a guider whose shape differs from the MDLM config is refused with the reason;
- train.py refuses --init-from-ar for any MDLM size but "adapted" and for the AR objective.

  python3 tests/tools/adapt_test.py --source <checkout>

Exits 77 (ctest: skipped) when no Python with PyTorch is found (see torch_reference_test.py).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference_test import run_training_check  # noqa: E402

CHECK = r'''
import os, subprocess, sys, torch
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
M.attention = lambda q, k, v, causal, key_mask=None: bidirectional(q, k, v, True, key_mask)
with torch.no_grad():
    diff = (ar(ids) - mdlm(ids)).abs().max().item()
M.attention = bidirectional
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

train = os.path.join(sys.argv[1], "train.py")
for args in (["--model", "mdlm", "--size", "compact"], ["--model", "ar", "--size", "adapted"]):
    r = subprocess.run([sys.executable, train, *args, "--init-from-ar", "x", "--bench", "1"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--size adapted" in r.stderr, (args, r.returncode, r.stderr)
print("ok")
'''

run_training_check(CHECK, "the AR-to-MDLM adaptation does not start the MDLM as the guider")
