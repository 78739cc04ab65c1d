#!/usr/bin/python3
"""Grow a shipped model into a larger configuration without losing what it learned.

  /usr/bin/python3 tools/train/grow.py --from resources/models/tiny-mdlm --model mdlm --size base \
      --out build-train/mdlm-base-init.pt
  /usr/bin/python3 tools/train/grow.py --from resources/models/tiny-ar --model ar --size base \
      --out build-train/ar-base-init.pt

Why: on a 2-core CPU a 10M+ model trained from scratch in the hours available ends up worse
than the small model it replaces.  Function-preserving growth (Net2Net) starts the large model
exactly where the small one stopped, then train.py --init-from continues training it.

MDLM (LLaDA): the residual stream is duplicated ([x, x]); RMSNorm is unchanged by that (the mean
of squares is the same), heads are duplicated (head_dim fixed), FFN units are duplicated, and
every matrix that reads the duplicated stream takes half the weights on each copy.  A little
noise then breaks the symmetry of the copies, otherwise their gradients would stay identical.
AR (Qwen2): the FFN is widened with new units whose down-projection starts at zero, so the
function is exactly preserved and the new units start learning from the first step.
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402
from model import LLaDA, Qwen2, count_params  # noqa: E402


def load_shipped(folder, kind):
    sd = C.load_safetensors(os.path.join(folder, "model.safetensors"))
    sd = {k: v.float() for k, v in sd.items()}
    if kind == "mdlm":
        sd = {k[len("model."):]: v for k, v in sd.items()}
    return sd


def widen_mdlm(sd, small, big, noise, gen):
    d0, d1 = small["d_model"], big["d_model"]
    f0, f1 = small["mlp_hidden_size"], big["mlp_hidden_size"]
    assert d1 == 2 * d0 and f1 == 2 * f0 and big["n_heads"] == 2 * small["n_heads"], "mdlm growth doubles d, heads, ffn"
    assert big["n_layers"] == small["n_layers"]

    def out_dup(w):      # rows feed a duplicated output
        return torch.cat([w, w], 0)

    def in_half(w):      # columns read a duplicated input
        return torch.cat([w / 2, w / 2], 1)

    out = {}
    for k, w in sd.items():
        if k == "transformer.wte.weight":
            out[k] = torch.cat([w, w], 1)
        elif k == "transformer.ff_out.weight":  # LM head reads the stream
            out[k] = in_half(w)
        elif w.dim() == 1:  # RMSNorm weights
            out[k] = torch.cat([w, w])
        elif k.endswith(("q_proj.weight", "k_proj.weight", "v_proj.weight")):
            # output rows are heads (head_dim blocks): [heads, heads] = duplicated heads
            out[k] = out_dup(in_half(w))
        elif k.endswith(("attn_out.weight",)) or (".blocks." in k and k.endswith("ff_out.weight")):
            out[k] = out_dup(in_half(w))
        elif k.endswith(("ff_proj.weight", "up_proj.weight")):
            out[k] = out_dup(in_half(w))
        else:
            raise SystemExit(f"grow: unexpected tensor {k}")
    for k, w in out.items():
        if w.dim() == 2:
            w.add_(torch.randn(w.shape, generator=gen) * noise * w.std())
    return out


def widen_ar(sd, small, big, gen):
    f0, f1 = small["intermediate_size"], big["intermediate_size"]
    assert f1 > f0 and big["hidden_size"] == small["hidden_size"]
    assert big["num_hidden_layers"] == small["num_hidden_layers"]
    out = dict(sd)
    for k, w in sd.items():
        if k.endswith(("gate_proj.weight", "up_proj.weight")):
            extra = torch.randn((f1 - f0, w.shape[1]), generator=gen) * w.std()
            out[k] = torch.cat([w, extra], 0)
        elif k.endswith("down_proj.weight"):
            out[k] = torch.cat([w, torch.zeros((w.shape[0], f1 - f0))], 1)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--from", dest="src", required=True, help="shipped model folder")
    ap.add_argument("--model", choices=["mdlm", "ar"], required=True)
    ap.add_argument("--size", default="base")
    ap.add_argument("--out", required=True, help="state dict for train.py --init-from")
    ap.add_argument("--noise", type=float, default=0.005, help="symmetry-breaking noise, relative to each matrix's std")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()

    import json
    small = json.load(open(os.path.join(a.src, "config.json")))
    gen = torch.Generator().manual_seed(a.seed)
    sd = load_shipped(a.src, a.model)
    if a.model == "mdlm":
        big = C.mdlm_config(a.size)
        grown, model = widen_mdlm(sd, small, big, a.noise, gen), LLaDA(big)
    else:
        big = C.ar_config(a.size)
        grown, model = widen_ar(sd, small, big, gen), Qwen2(big)
    model.load_state_dict(grown)  # checks every name and shape

    # How close the grown model is to the small one (exact for AR, noise-limited for MDLM).
    ids = torch.tensor([[C.BOS, C.USER] + list(range(20, 60)) + [C.MASK] * 24])
    ref = LLaDA(small) if a.model == "mdlm" else Qwen2(small)
    ref.load_state_dict(sd)
    with torch.no_grad():
        diff = (torch.softmax(ref(ids), -1) - torch.softmax(model(ids), -1)).abs().max().item()
    stage1 = {}
    prov = os.path.join(a.src, "training.json")
    if os.path.exists(prov):
        stage1 = json.load(open(prov))
    stage1.update({"folder": os.path.relpath(a.src, C.ROOT), "noise": a.noise, "probe_max_abs_dp": diff})
    torch.save({"model": model.state_dict(), "config": big, "grown_from": stage1}, a.out)
    print(f"grew {a.src} ({count_params(ref) / 1e6:.2f}M) -> {a.model}/{a.size} ({count_params(model) / 1e6:.2f}M); "
          f"max |Δp| on a probe canvas {diff:.2e} -> {a.out}")


if __name__ == "__main__":
    main()
