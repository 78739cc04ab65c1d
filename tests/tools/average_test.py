#!/usr/bin/python3
"""tools/train/average.py: the weights are (1 - w) * BASE + w * TUNED tensor by tensor (w = 0 gives
BASE's bits, w = 1 TUNED's), the folder keeps TUNED's recipe and says how it was made, and two
different models, a weight outside [0, 1] or an OUT that is one of the inputs are refused."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

source = sys.argv[sys.argv.index("--source") + 1]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_reference_test import torch_python_or_skip  # noqa: E402

try:
    import torch
except ImportError:  # ctest's python3 may lack PyTorch: go on under the one that has it
    py = torch_python_or_skip()
    os.execv(py, [py, os.path.abspath(__file__), *sys.argv[1:]])
sys.path.insert(0, os.path.join(source, "tools", "train"))
import common as C  # noqa: E402

tool = os.path.join(source, "tools", "train", "average.py")
shipped = os.path.join(source, "resources", "models", "tiny-mdlm")
guider = os.path.join(source, "resources", "models", "tiny-ar")


def run(*args):
    return subprocess.run([sys.executable, tool, *args], capture_output=True, text=True)


def bits(t):
    return t.contiguous().view(-1).view(torch.int16)


with tempfile.TemporaryDirectory() as tmp:
    # A continuation of the shipped weights: every tensor moved, its history naming them.
    tuned = os.path.join(tmp, "tuned")
    shutil.copytree(shipped, tuned)
    base_w = C.load_safetensors(os.path.join(shipped, "model.safetensors"))
    meta = C.safetensors_metadata(os.path.join(shipped, "model.safetensors"))
    g = torch.Generator().manual_seed(7)
    tuned_w = {k: (v.float() + 0.05 * torch.randn(v.shape, generator=g)).to(v.dtype) for k, v in base_w.items()}
    C.save_safetensors(os.path.join(tuned, "model.safetensors"), tuned_w, meta)
    with open(os.path.join(shipped, "training.json")) as f:
        base_training = json.load(f)
    tuned_training = {"note": "a continuation", "step": 3, "args": {"lr": 1e-4, "shipped_history": base_training}}
    with open(os.path.join(tuned, "training.json"), "w") as f:
        json.dump(tuned_training, f)

    outs = {}
    for w in ("0", "1", "0.5"):
        out = os.path.join(tmp, "w" + w)
        p = run(shipped, tuned, "--weight", w, "--out", out, *(["--no-golden"] if w != "0.5" else []))
        assert p.returncode == 0, p.stderr
        outs[w] = C.load_safetensors(os.path.join(out, "model.safetensors"))
    for k in base_w:
        assert torch.equal(bits(outs["0"][k]), bits(base_w[k])), k
        assert torch.equal(bits(outs["1"][k]), bits(tuned_w[k])), k
        lo, hi = torch.minimum(base_w[k].float(), tuned_w[k].float()), torch.maximum(base_w[k].float(), tuned_w[k].float())
        mid = outs["0.5"][k].float()
        assert bool(((mid >= lo) & (mid <= hi)).all()), k
        assert outs["0.5"][k].dtype == base_w[k].dtype, k
    moved = sum(int((bits(outs["0.5"][k]) != bits(base_w[k])).sum()) for k in base_w)
    total = sum(v.numel() for v in base_w.values())
    assert moved > total // 2, (moved, total)  # the mean is neither input

    out = os.path.join(tmp, "w0.5")
    with open(os.path.join(out, "training.json")) as f:
        made = json.load(f)
    assert list(made)[0] == "note" and "average.py" in made["note"], made["note"]
    assert made["args"] == tuned_training["args"]  # milestone.py continues it in the tuned recipe
    assert made["averaged"]["weight"] == 0.5 and made["averaged"]["base"] == "args.shipped_history", made["averaged"]
    assert made["averaged"]["tuned_note"] == "a continuation"
    m = C.safetensors_metadata(os.path.join(out, "model.safetensors"))
    assert m["dlmscope_kind"] == meta["dlmscope_kind"] and m["dlmscope_averaged_weight"] == "0.5", m
    for f in ("config.json", "tokenizer.model", "golden.json"):
        assert os.path.isfile(os.path.join(out, f)), f
    with open(os.path.join(out, "golden.json")) as f:
        assert json.load(f)["family"] == "llada"

    # A base other than the continuation's start is kept whole.
    other = os.path.join(tmp, "other")
    p = run(os.path.join(tmp, "w1"), tuned, "--weight", "0.5", "--out", other, "--no-golden")
    assert p.returncode == 0, p.stderr
    with open(os.path.join(other, "training.json")) as f:
        assert json.load(f)["averaged"]["base"]["note"] == "(1 - 1.0) * tiny-mdlm + 1.0 * tuned, per tensor (tools/train/average.py)"

    # Refusals, each with its reason and no folder written.
    for args, reason in (((guider, tuned), "different models"),
                         ((shipped, tuned, "--weight", "1.5"), "outside [0, 1]"),
                         ((shipped, tuned, "--weight", "-0.1"), "outside [0, 1]")):
        if "--weight" not in args:
            args = (*args, "--weight", "0.5")
        bad = os.path.join(tmp, "bad")
        p = run(*args, "--out", bad, "--no-golden")
        assert p.returncode != 0 and reason in p.stderr, (args, p.stderr)
        assert not os.path.exists(bad), args
    p = run(shipped, tuned, "--weight", "0.5", "--out", tuned, "--no-golden")
    assert p.returncode != 0 and "new folder" in p.stderr, p.stderr
    p = run(shipped, os.path.join(tmp, "missing"), "--weight", "0.5", "--out", os.path.join(tmp, "x"))
    assert p.returncode != 0 and "cannot read" in p.stderr and "Traceback" not in p.stderr, p.stderr
    untracked = os.path.join(tmp, "untracked")
    shutil.copytree(tuned, untracked)
    os.remove(os.path.join(untracked, "training.json"))
    p = run(shipped, untracked, "--weight", "0.5", "--out", os.path.join(tmp, "z"), "--no-golden")
    assert p.returncode != 0 and "training.json" in p.stderr and not os.path.exists(os.path.join(tmp, "z")), p.stderr
    with open(os.path.join(tuned, "tokenizer_config.json"), "a") as f:
        f.write(" ")
    p = run(shipped, tuned, "--weight", "0.5", "--out", os.path.join(tmp, "y"), "--no-golden")
    assert p.returncode != 0 and "tokenizer_config.json differs" in p.stderr, p.stderr
print("ok")
