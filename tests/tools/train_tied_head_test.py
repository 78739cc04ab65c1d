#!/usr/bin/env python3
"""Checks tools/train/train.py --tie-head: the MDLM's LM head is its embedding table, the export
says so in LLaDA's own schema field (weight_tying true) and stores no head tensor of its own, the
exported weights give the trained model's logits, and the mismatches are refused with a clear line
(a tied head asked of the guider; a shipped folder whose head is tied one way continued the other).

  python3 tests/tools/train_tied_head_test.py --source <checkout>

Exits 77 (ctest: skipped) when no Python with PyTorch is found (see torch_reference_test.py).
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_resume_test import checkout_and_torch_python, refusal, train  # noqa: E402

HEAD = "model.transformer.ff_out.weight"


def mdlm_export(py, source, tmp, work, *extra):
    """The export folder of a two-step tiny MDLM run (train_resume_test's run, another --model)."""
    train(py, source, tmp, work, 2, "--model", "mdlm", *extra)
    return os.path.join(tmp, work, "export")


# Run by the Python with PyTorch: the export's tensors, and its logits against the checkpoint's.
INSPECT = r"""
import json, sys, torch
sys.path.insert(0, sys.argv[1])
import common as C
from golden import load_shipped
from model import LLaDA
export, ckpt = sys.argv[2], sys.argv[3]
names = sorted(C.load_safetensors(export + "/model.safetensors"))
shipped, _ = load_shipped(export)
state = C.load_checkpoint(ckpt)
trained = LLaDA(json.load(open(export + "/config.json")))
trained.load_state_dict(state["model"])
trained.eval()
ids = torch.tensor([[1, 5, 300, 301, 302, 4, 6, 3, 3, 3]])
with torch.no_grad():
    # The export is BF16: its logits match to BF16 rounding, not bit for bit.
    gap = float((shipped(ids).float() - trained(ids).float()).abs().max())
print(json.dumps({"names": names, "gap": gap}))
"""


def main():
    source, py = checkout_and_torch_python()
    with tempfile.TemporaryDirectory() as tmp:
        tied = mdlm_export(py, source, tmp, "tied", "--tie-head")
        config = json.load(open(os.path.join(tied, "config.json")))
        if config.get("weight_tying") is not True:
            raise SystemExit(f"FAIL: a --tie-head export says weight_tying {config.get('weight_tying')!r}")
        r = subprocess.run([py, "-c", INSPECT, os.path.join(source, "tools", "train"), tied,
                            os.path.join(tmp, "tied", "ckpt.pt")], capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"FAIL: the tied export does not load:\n{r.stderr[-2000:]}")
        seen = json.loads(r.stdout.strip().splitlines()[-1])
        if HEAD in seen["names"] or "model.transformer.wte.weight" not in seen["names"]:
            raise SystemExit(f"FAIL: a tied export stores a head of its own or no embedding: {seen['names']}")
        if not seen["gap"] < 0.05:
            raise SystemExit(f"FAIL: the tied export's logits differ from the trained model's by {seen['gap']}")
        untied = mdlm_export(py, source, tmp, "untied")
        if json.load(open(os.path.join(untied, "config.json"))).get("weight_tying") is not False:
            raise SystemExit("FAIL: an MDLM without --tie-head exported a tied head")
        # The mismatches: refused with what to pass, not PyTorch's list of missing tensors.
        for shipped, flag, want in ((untied, ["--tie-head"], "leave out --tie-head"), (tied, [], "pass --tie-head")):
            error = refusal(py, source, "--model", "mdlm", "--size", "tiny", "--init-from-shipped", shipped, *flag,
                            "--work", os.path.join(tmp, "mismatch"), "--steps", "1")
            if error is None or want not in error:
                raise SystemExit(f"FAIL: continuing {shipped} with {flag} was not refused with {want!r}: {error}")
        error = refusal(py, source, "--model", "ar", "--size", "tiny", "--tie-head", "--steps", "1",
                        "--work", os.path.join(tmp, "ar"))
        if error is None or "--tie-head" not in error:
            raise SystemExit(f"FAIL: --tie-head on the guider was not refused: {error}")
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
