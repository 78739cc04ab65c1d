#!/usr/bin/env python3
"""tools/train/eval_py.py: the MDLM sampler's padded batches decode what each prompt decodes alone.

  eval_padding_test.py --source REPO

Prompts of several lengths (word problems and sorting: 20 to 60 tokens) go through
llada_generate once as one right-padded batch and once one at a time (no padding at all) on the
shipped tiny-mdlm; the committed tokens must be identical. Without the key mask the padding would
be seen by every row: the test also checks that this changes the decodes, so it can fail.
"""
import argparse
import json
import os
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    a = ap.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before torch loads OpenBLAS
    try:
        import torch
    except ImportError:  # run again with the Python that has PyTorch, or skip (torch_reference_test.py)
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from torch_reference_test import torch_python_or_skip
        py = torch_python_or_skip()
        os.execv(py, [py, os.path.abspath(__file__)] + sys.argv[1:])
    sys.path.insert(0, os.path.join(a.source, "tools", "train"))
    import common as C
    import eval_py
    from golden import load_shipped

    torch.set_num_threads(1)
    model, _ = load_shipped(os.path.join(a.source, "resources", "models", "tiny-mdlm"))
    rows, seen = [], {}
    with open(os.path.join(a.source, "resources", "eval", "test.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            if r["family"] in ("word_problem", "sorting") and seen.get(r["family"], 0) < 3:
                seen[r["family"]] = seen.get(r["family"], 0) + 1
                rows.append(r)
    gen = 48  # shorter than the families' canvases: enough to compare, quick on one thread
    prompts = [C.encode_prompt(r["prompt"]) for r in rows]
    lengths = sorted({len(p) for p in prompts})
    assert len(lengths) >= 3, f"the sample should mix prompt lengths, got {lengths}"

    batched = eval_py.llada_generate(model, prompts, gen)
    for p, got in zip(prompts, batched):
        alone = eval_py.llada_generate(model, [p], gen)[0]
        assert torch.equal(got, alone), f"prompt of {len(p)} tokens: padded batch {got.tolist()} != alone {alone.tolist()}"

    # The mask matters: the same batch with the padding visible decodes differently somewhere.
    real_forward = model.forward
    model.forward = lambda ids, key_mask=None: real_forward(ids, None)
    try:
        unmasked = eval_py.llada_generate(model, prompts, gen)
    finally:
        model.forward = real_forward
    assert not torch.equal(unmasked, batched), "hiding the padding made no difference: the test cannot fail"
    print(f"padded batches decode as each prompt alone (prompt lengths {lengths})")


if __name__ == "__main__":
    main()
