#!/usr/bin/python3
"""tools/train/gpu_train.sh checks both runs' train.py options by train.py's own rules
(tools/train/train_options.py) before it starts anything, so a lease's minutes are not spent finding
out: a --mdlm-suffix-mask outside 0..1, 0 together with --mdlm-digit-suffix (the digit suffix acts on
suffix-masked sequences only), a --mdlm-decode-order-mask outside 0..1, a --mdlm-stale-kv without decode-order masking or on the
Dream MDLM, a --mdlm-stale-kv-states outside 1..8, a mixture's misspelt
family, a weight below 0 or no number, all weights 0, a minutes value that is no number or below 0,
and 0 minutes for both models (nothing to train). A run of 0 minutes is not started (train.py would
read 0 as "no time limit"): --mdlm-minutes 0 trains the guider alone, as --ar-minutes 0 the MDLM.
--mdlm-init (a second phase from an earlier export) needs an exported folder and continues tiny-mdlm
only. --mdlm-first (both phases in one command) has its options checked as the first phase runs
them, a share strictly between 0 and 1, and tiny-mdlm to train. Each model trains in the forms of
its shipped training.json unless --sorting-form / --counting-form name others, and the MDLM with
the masking of the weights it continues (the shipped ones' or --mdlm-init's) unless an --mdlm-X
option names another; a run from other weights (--fresh, --mdlm-from-ar) takes the script's
defaults."""
import os
import subprocess
import sys
import tempfile

source = sys.argv[sys.argv.index("--source") + 1]
script = os.path.join(source, "tools", "train", "gpu_train.sh")
for bad, says in ((["--mdlm-suffix-mask", "1.5"], "--suffix-mask is a share of sequences: use a value from 0 to 1"),
                  (["--mdlm-suffix-mask", "-0.1"], "--suffix-mask is a share of sequences: use a value from 0 to 1"),
                  (["--mdlm-suffix-mask", "0.5x"], "argument --suffix-mask: invalid float value: '0.5x'"),
                  (["--mdlm-suffix-mask", "0", "--mdlm-digit-suffix", "0.3"], "apply to suffix-masked sequences"),
                  (["--mixture", "additon=1,sorting=1"], "--family-weights: unknown family 'additon'"),
                  (["--mixture", "addition=-1"], "the weight of addition is '-1'"),
                  (["--mixture", "addition=x"], "the weight of addition is 'x'"),
                  (["--mixture", "addition=0,sorting=0"], "every weight is 0"),
                  (["--ar-minutes", "4,5"], "argument --minutes: invalid float value: '4,5'"),
                  (["--mdlm-minutes", "0", "--ar-minutes", "0"], "leave nothing to train"),
                  (["--mdlm-minutes", "-1"], "--mdlm-minutes is a number of minutes, not '-1'"),
                  (["--ar-minutes", "-0.5"], "--ar-minutes is a number of minutes, not '-0.5'"),
                  (["--ar-lr", "fast"], "argument --lr: invalid float value: 'fast'"),
                  (["--mdlm-decode-order-mask", "4"],
                   "--decode-order-mask is a share of sequences: use a value from 0 to 1"),
                  (["--mdlm-decode-order-mask", "0", "--mdlm-stale-kv", "0.5"], "--stale-kv serves decode-order-masked sequences"),
                  (["--mdlm-decode-order-mask", "0.4", "--mdlm-stale-kv", "0.5", "--mdlm-stale-kv-states", "9"],
                   "--stale-kv-states 9: give 1 to 8"),
                  (["--mdlm-dream", "--mdlm-decode-order-mask", "0.4", "--mdlm-stale-kv", "0.5"],
                   "--stale-kv serves decode-order-masked sequences"),
                  (["--mdlm-init", "/nonexistent"], "--mdlm-init: /nonexistent has no config.json"),
                  (["--mdlm-init", os.path.join(source, "resources", "models", "tiny-mdlm"), "--fresh"],
                   "--mdlm-init continues tiny-mdlm"),
                  (["--mdlm-first", "--family-weights countin=1"], "--family-weights: unknown family 'countin'"),
                  (["--mdlm-first", "--lr 1e-3", "--mdlm-first-share", "1"], "--mdlm-first-share is the first phase's share"),
                  (["--mdlm-first", "--lr 1e-3", "--mdlm-first-share", "x"], "--mdlm-first-share is the first phase's share"),
                  (["--mdlm-first", "--lr 1e-3", "--mdlm-dream"], "--mdlm-first is a first phase of tiny-mdlm"),
                  (["--mdlm-first", "--lr 1e-3", "--mdlm-minutes", "0"], "--mdlm-first is a first phase of tiny-mdlm")):
    with tempfile.TemporaryDirectory() as out:
        r = subprocess.run(["bash", script, out] + bad, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and says in r.stderr and "nothing was started" in r.stderr, \
            (bad, r.returncode, r.stderr)
        assert os.listdir(out) == [], os.listdir(out)
# The accepted values get past the checks to the PyTorch probe (a device that does not exist here).
with tempfile.TemporaryDirectory() as out:
    r = subprocess.run(["bash", script, out, "--mdlm-suffix-mask", "0", "--mdlm-decode-order-mask", "0.4",
                        "--mdlm-stale-kv", "0.75", "--mdlm-stale-kv-states", "3", "--device", "nodevice"],
                       capture_output=True, text=True, timeout=120)
    assert "refused" not in r.stderr and r.returncode == 1, (r.returncode, r.stderr)
# A second phase from an exported folder gets there too.
with tempfile.TemporaryDirectory() as out:
    r = subprocess.run(["bash", script, out, "--mdlm-init", os.path.join(source, "resources", "models", "tiny-mdlm"),
                        "--ar-minutes", "0", "--device", "nodevice"], capture_output=True, text=True, timeout=120)
    assert "refused" not in r.stderr and "nothing" not in r.stderr and r.returncode == 1, (r.returncode, r.stderr)
# Both phases in one command get there too.
with tempfile.TemporaryDirectory() as out:
    r = subprocess.run(["bash", script, out, "--mdlm-first", "--family-weights counting=1 --lr 1e-3 --t-power 2",
                        "--mdlm-first-share", "0.15", "--counting-form", "marked", "--device", "nodevice"],
                       capture_output=True, text=True, timeout=120)
    assert "refused" not in r.stderr and "nothing" not in r.stderr and r.returncode == 1, (r.returncode, r.stderr)
# Each model goes on in the forms its weights were trained in (its training.json), whatever the
# script's scale; a form named on the command line changes both, and a new counting form drops the
# masks the old one was learnt with.
def forms(stderr, whose):
    line = next(l for l in stderr.splitlines() if l.startswith(f"gpu_train.sh: the {whose} forms: "))
    return line.split(": ", 2)[2].split()


def value(words, opt):
    return words[words.index(opt) + 1] if opt in words else None


sys.path.insert(0, os.path.join(source, "tools", "train"))
import milestone  # noqa: E402
shipped = {m: milestone.history(milestone.read_training(os.path.join(source, "resources", "models", m))["args"])[0]
           for m in ("tiny-mdlm", "tiny-ar")}
with tempfile.TemporaryDirectory() as out:
    r = subprocess.run(["bash", script, out, "--device", "nodevice"], capture_output=True, text=True, timeout=120)
    for whose, m in (("MDLM's", "tiny-mdlm"), ("guider's", "tiny-ar")):
        words = forms(r.stderr, whose)
        for key in ("sorting_form", "counting_form", "word_problem_form"):
            assert value(words, "--" + key.replace("_", "-")) == shipped[m][key], (whose, key, words)
        if shipped[m].get("comparison_mask"):
            assert float(value(words, "--comparison-mask")) == shipped[m]["comparison_mask"], words
with tempfile.TemporaryDirectory() as out:
    r = subprocess.run(["bash", script, out, "--device", "nodevice", "--counting-form", "marked", "--sorting-form", "columns"],
                       capture_output=True, text=True, timeout=120)
    for whose in ("MDLM's", "guider's"):
        words = forms(r.stderr, whose)
        assert value(words, "--counting-form") == "marked" and value(words, "--sorting-form") == "columns", words
        assert "--verdicts-shown" not in words and "--comparison-mask" not in words, words
# The MDLM goes on with the masking its weights were trained with: the shipped ones', an
# --mdlm-init folder's (its own stale-K/V states), each --mdlm-X given replacing one value; weights
# from elsewhere start from the script's defaults.
def masking(stderr):
    line = next(l for l in stderr.splitlines() if l.startswith("gpu_train.sh: the MDLM's masking: "))
    words = line.split(": ", 2)[2].split(" (")[0].split()
    return {words[i][2:].replace("-", "_"): float(words[i + 1]) for i in range(0, len(words), 2)}


# An --mdlm-init folder: a kept MDLM milestone where the checkout has one (their recipe differs from
# the shipped weights'), else the shipped folder itself.
shipped_mdlm = os.path.join(source, "resources", "models", "tiny-mdlm")
milestones = os.path.join(source, "tools", "train", "milestones")
kept = sorted(os.path.join(milestones, d) for d in (os.listdir(milestones) if os.path.isdir(milestones) else [])
              if d.startswith("tiny-mdlm") and os.path.isfile(os.path.join(milestones, d, "training.json")))
milestone_dir = kept[0] if kept else shipped_mdlm
KEYS = ("t_power", "suffix_mask", "digit_suffix", "decode_order_mask", "stale_kv", "stale_kv_states")
DEFAULTS = {"t_power": 0.5, "suffix_mask": 0.7, "digit_suffix": 0, "decode_order_mask": 0, "stale_kv": 0,
            "stale_kv_states": 1}
for extra, folder, changed in (([], shipped_mdlm, {}),
                               (["--mdlm-init", milestone_dir], milestone_dir, {}),
                               (["--mdlm-init", milestone_dir, "--mdlm-stale-kv-states", "2", "--mdlm-suffix-mask", "0.5"],
                                milestone_dir, {"stale_kv_states": 2, "suffix_mask": 0.5}),
                               (["--fresh"], None, {}),
                               (["--mdlm-from-ar"], None, {})):
    with tempfile.TemporaryDirectory() as out:
        r = subprocess.run(["bash", script, out, "--device", "nodevice", "--ar-minutes", "0"] + extra,
                           capture_output=True, text=True, timeout=120)
        got = masking(r.stderr)
        last = milestone.history(milestone.read_training(folder)["args"])[0] if folder else {}
        want = {k: float(changed.get(k, last.get(k) if last.get(k) is not None else DEFAULTS[k])) for k in KEYS}
        assert got == want, (extra, got, want)
        if folder:  # the shipped weights are not trained with the defaults: the test would pass without reading them
            assert want != {k: float(v) for k, v in DEFAULTS.items()}, (folder, want)
# Either model alone is accepted too.
for alone in (["--mdlm-minutes", "0"], ["--ar-minutes", "0"]):
    with tempfile.TemporaryDirectory() as out:
        r = subprocess.run(["bash", script, out, "--device", "nodevice"] + alone,
                           capture_output=True, text=True, timeout=120)
        assert "refused" not in r.stderr and "nothing" not in r.stderr and r.returncode == 1, \
            (alone, r.returncode, r.stderr)
print("ok: gpu_train.sh refuses options train.py would refuse before it starts anything")
