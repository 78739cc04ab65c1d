#!/usr/bin/env python3
"""Checks tools/train/grow.py, the function-preserving growth that made the shipped models:
a widened LLaDA computes the small model's distribution (noise 0), the symmetry-breaking noise
really tells the duplicated copies apart, and the widened Qwen2 FFN is exact.

  python3 tests/tools/grow_test.py --source <checkout>

Exits 77 (ctest: skipped) when no Python with PyTorch is found (see torch_reference_test.py).
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference_test import torch_python_or_skip  # noqa: E402


def check(source):
    sys.path.insert(0, os.path.join(source, "tools", "train"))
    import torch
    import common as C
    import grow
    from model import LLaDA, Qwen2

    torch.manual_seed(3)
    ids = torch.tensor([[C.BOS, C.USER] + list(range(20, 50)) + [C.MASK] * 12])

    small = C.mdlm_config("tiny")
    big = dict(small, d_model=2 * small["d_model"], n_heads=2 * small["n_heads"],
               n_kv_heads=2 * small["n_kv_heads"], mlp_hidden_size=2 * small["mlp_hidden_size"])
    ref = LLaDA(small)
    sd = {k: v.detach().clone() for k, v in ref.state_dict().items()}
    for noise in [0.0, 0.05]:
        gen = torch.Generator().manual_seed(1)
        grown = grow.widen_mdlm(sd, small, big, noise, gen)
        model = LLaDA(big)
        model.load_state_dict(grown)
        with torch.no_grad():
            dp = (torch.softmax(ref(ids), -1) - torch.softmax(model(ids), -1)).abs().max().item()
        # The two copies of the duplicated heads: identical without noise, told apart with it.
        q = grown["transformer.blocks.0.q_proj.weight"]
        gap = (q[: small["d_model"]] - q[small["d_model"]:]).abs().max().item()
        print(f"mdlm widen, noise {noise}: max |dp| = {dp:.2e}, max gap between head copies = {gap:.2e}")
        if noise == 0.0 and (dp > 1e-5 or gap != 0.0):
            raise SystemExit(f"FAIL: the widened LLaDA is not an exact copy of the small model ({dp:.2e}, {gap:.2e})")
        if noise > 0.0 and gap == 0.0:
            raise SystemExit(f"FAIL: noise {noise} left the widened copies identical")

    small = C.ar_config("tiny")
    big = dict(small, intermediate_size=small["intermediate_size"] + 64)
    ref = Qwen2(small)
    model = Qwen2(big)
    model.load_state_dict(grow.widen_ar(ref.state_dict(), small, big, torch.Generator().manual_seed(1)))
    with torch.no_grad():
        dl = (ref(ids) - model(ids)).abs().max().item()
    print(f"ar widen: max |dlogit| = {dl:.2e}")
    if dl > 1e-5:
        raise SystemExit(f"FAIL: the widened Qwen2 FFN changed the logits ({dl:.2e})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inner:
        check(args.source)
        print("PASS")
        return 0
    py = torch_python_or_skip()
    return subprocess.run([py, os.path.abspath(__file__), "--source", args.source, "--inner"]).returncode


if __name__ == "__main__":
    sys.exit(main())
