#!/usr/bin/python3
"""Golden logits for the C++ parity test, computed in PyTorch fp32 from the *exported*
(BF16-rounded) weights in a shipped model folder.

  /usr/bin/python3 tools/train/golden.py resources/models/tiny-mdlm [resources/models/tiny-ar ...]

Writes <folder>/golden.json:
  {"model": ..., "family": "llada"|"Dream"|"qwen2", "note": ...,
   "cases": [{"name": ..., "ids": [...], "rows": [r0, r1, r2, r3], "logits": [[V floats], ...]}]}
logits[j] is row rows[j] of a plain full forward over `ids` (bidirectional for llada with
row i = distribution of token i; bidirectional for Dream and causal for qwen2, both with row i =
distribution of token i+1).
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402
from model import Dream, LLaDA, Qwen2  # noqa: E402


def load_shipped(folder):
    cfg = json.load(open(os.path.join(folder, "config.json")))
    ts = C.load_safetensors(os.path.join(folder, "model.safetensors"))
    if cfg["model_type"] == "llada":
        m = LLaDA(cfg)
        sd = {k[len("model."):]: v.float() for k, v in ts.items()}
    else:
        m = Dream(cfg) if cfg["model_type"] == "Dream" else Qwen2(cfg)
        sd = {k: v.float() for k, v in ts.items()}
    m.load_state_dict(sd, strict=True)
    m.eval()
    return m, cfg


def load_llada_for_probe(folder, tool):
    """The LLaDA-family MDLM in `folder`, on one thread, for a probe that reads position i's token
    from row i; any other family (Dream's shifted logits, a causal model) stops `tool` with why."""
    torch.set_num_threads(1)
    model, cfg = load_shipped(folder)
    if cfg["model_type"] != "llada":
        sys.exit(f"{tool}: probes an LLaDA-family MDLM (a shifted-logit or causal model reads its "
                 "positions otherwise)")
    return model


def cases(family):
    P = C.encode_prompt
    R = C.encode_response
    M = C.MASK
    out = []
    # 1: prompt + fully masked canvas of 16
    p = P("What is 345 + 278?")
    out.append(("prompt_all_masked", p + [M] * 16))
    # 2: prompt + partially decoded answer with masks and endoftext tail
    r = R("345 + 278 = 623\n#### 623")
    ids = p + r + [C.EOS] * 4
    ids = [M if (i >= len(p) and i % 3 == 0) else t for i, t in enumerate(ids)]
    out.append(("prompt_partial_masks", ids))
    # 3: a word problem, no masks (full text)
    p3 = P("Tom went to the bookstore. He bought 5 books at $20 each. How much did he spend in total?")
    r3 = R("He bought 5 books at $20 each, so he spent 5 * $20 = $100.\nThe total cost is $100.\n#### 100")
    out.append(("word_problem_full", p3 + r3))
    return out


def write_golden(folder):
    m, cfg = load_shipped(folder)
    fam = cfg["model_type"]
    res = []
    with torch.no_grad():
        for name, ids in cases(fam):
            x = torch.tensor([ids])
            logits = m(x)[0].float()
            n = len(ids)
            rows = sorted(set([0, n // 3, (2 * n) // 3, n - 1]))
            res.append({"name": name, "ids": ids, "rows": rows,
                        "logits": [[round(float(v), 6) for v in logits[r]] for r in rows]})
    doc = {"model": os.path.basename(os.path.abspath(folder)), "family": fam,
           "note": "fp32 PyTorch forward from the BF16 weights in model.safetensors upcast to fp32; "
                   + {"llada": "bidirectional attention, row i = token i",
                      "Dream": "bidirectional attention, row i predicts token i+1"}.get(fam, "causal attention, row i predicts token i+1"),
           "vocab_size": cfg.get("vocab_size"), "cases": res}
    with open(os.path.join(folder, "golden.json"), "w") as f:
        json.dump(doc, f, separators=(",", ":"))


if __name__ == "__main__":
    for fo in sys.argv[1:]:
        write_golden(fo)
        print("wrote", os.path.join(fo, "golden.json"))
