#!/usr/bin/python3
"""Weight averaging: a model folder whose weights are (1 - w) * BASE + w * TUNED, tensor by tensor.

A continuation that moves some families can lose rows elsewhere, mostly wordings training never
shows. Interpolating the continued weights with the ones it started from keeps much of what the
continuation gained and gives back much of what it lost ("Robust fine-tuning of zero-shot models",
Wortsman et al., arXiv 2109.01903). Both folders must be the same architecture and tokenizer (the
same config.json and tokenizer files, the same tensor names, shapes and dtypes); the mean is taken
in fp32 and rounded to the stored dtype, so the result follows from the two committed folders alone.

  /usr/bin/python3 tools/train/average.py resources/models/tiny-mdlm \\
      build-train/<name>/export --weight 0.5 --out build-train/<name>-avg

OUT gets TUNED's config and tokenizer, the averaged model.safetensors, golden.json for the parity
test, and TUNED's training.json with an "averaged" record (the weight, and BASE's training.json), so
tools/train/milestone.py continues it in TUNED's recipe.
"""
import argparse
import filecmp
import json
import os
import shutil
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common as C  # noqa: E402

# The files both folders must have byte for byte: the averaged weights read tokens as both did.
SAME_FILES = ["tokenizer.model", "tokenizer_config.json", "special_tokens_map.json"]
COPIED = SAME_FILES + ["config.json", "generation_config.json"]


def fail(msg):
    sys.exit(f"average.py: {msg}")


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"cannot read {path}: {e}")


def read_weights(folder):
    path = os.path.join(folder, "model.safetensors")
    try:
        return C.load_safetensors(path), C.safetensors_metadata(path)
    except (OSError, ValueError, KeyError) as e:
        fail(f"cannot read {path}: {e}")


def check_alike(base, tuned, wb, wt):
    cb, ct = read_json(os.path.join(base, "config.json")), read_json(os.path.join(tuned, "config.json"))
    if cb != ct:
        diff = sorted(k for k in set(cb) | set(ct) if cb.get(k) != ct.get(k))
        fail(f"{base} and {tuned} are different models (config.json differs in {', '.join(diff)})")
    for f in SAME_FILES:
        pb, pt = os.path.join(base, f), os.path.join(tuned, f)
        if os.path.isfile(pb) != os.path.isfile(pt) or (os.path.isfile(pb) and not filecmp.cmp(pb, pt, shallow=False)):
            fail(f"{base} and {tuned} read text differently ({f} differs)")
    if set(wb) != set(wt):
        fail(f"{base} and {tuned} hold different tensors ({', '.join(sorted(set(wb) ^ set(wt))[:4])} ...)")
    for name in wt:
        if wb[name].shape != wt[name].shape or wb[name].dtype != wt[name].dtype:
            fail(f"tensor {name}: {tuple(wb[name].shape)} {wb[name].dtype} in {base}, "
                 f"{tuple(wt[name].shape)} {wt[name].dtype} in {tuned}")


def average(base, tuned, weight, out, note=None, golden=True):
    if not 0.0 <= weight <= 1.0:
        fail(f"--weight {weight} is outside [0, 1] (0 gives BASE, 1 gives TUNED)")
    if os.path.abspath(out) in (os.path.abspath(base), os.path.abspath(tuned)):
        fail("OUT must be a new folder, not BASE or TUNED")
    wb, _ = read_weights(base)
    wt, meta = read_weights(tuned)
    check_alike(base, tuned, wb, wt)
    # Everything is read before anything is written: a folder that cannot be made leaves none behind.
    training = read_json(os.path.join(tuned, "training.json"))
    base_training = read_json(os.path.join(base, "training.json"))
    mixed = {name: ((1.0 - weight) * wb[name].float() + weight * t.float()).to(t.dtype) for name, t in wt.items()}
    os.makedirs(out, exist_ok=True)
    for f in COPIED:
        if os.path.isfile(os.path.join(tuned, f)):
            shutil.copyfile(os.path.join(tuned, f), os.path.join(out, f))
    C.save_safetensors(os.path.join(out, "model.safetensors"), mixed,
                       {**meta, "dlmscope_averaged_weight": weight})
    started_from = (training.get("args") or {}).get("shipped_history")
    # The tuned folder's note describes its training, not these weights: it moves into the record.
    tuned_note = training.pop("note", None)
    training = {"note": note or f"(1 - {weight}) * {os.path.basename(os.path.normpath(base))} + {weight} * "
                                f"{os.path.basename(os.path.normpath(tuned))}, per tensor (tools/train/average.py)",
                **training}
    training["averaged"] = {
        "weight": weight,
        "tuned_note": tuned_note,
        "how": "(1 - weight) * base + weight * these weights, per tensor in fp32, rounded to the stored dtype",
        # The usual base is the folder the continuation started from, already in its history.
        "base": "args.shipped_history" if base_training == started_from else base_training,
    }
    with open(os.path.join(out, "training.json"), "w") as f:
        json.dump(training, f, indent=2)
    if golden:
        import golden as G
        G.write_golden(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("base", help="the model folder the continuation started from")
    ap.add_argument("tuned", help="the continued model folder (its recipe and provenance are kept)")
    ap.add_argument("--weight", type=float, required=True, help="TUNED's share, in [0, 1]")
    ap.add_argument("--out", required=True, help="the new model folder")
    ap.add_argument("--note", help="training.json's note (default: which folders, which weight)")
    ap.add_argument("--no-golden", action="store_true", help="skip golden.json (the parity test needs it)")
    a = ap.parse_args()
    average(a.base, a.tuned, a.weight, a.out, note=a.note, golden=not a.no_golden)
    print(f"averaged {a.base} and {a.tuned} (weight {a.weight}) into {a.out}")


if __name__ == "__main__":
    main()
