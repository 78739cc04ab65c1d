#!/usr/bin/python3
"""tools/train/gpu_train.sh checks both runs' train.py options by train.py's own rules
(tools/train/train_options.py) before it starts anything, so a lease's minutes are not spent finding
out: a --mdlm-suffix-mask outside 0..1, 0 together with --mdlm-digit-suffix (the digit suffix acts on
suffix-masked sequences only), a --mdlm-decode-order-mask outside 0..1, a mixture's misspelt
family, a weight below 0 or no number, all weights 0, a minutes value that is no number or below 0,
and 0 minutes for both models (nothing to train). A run of 0 minutes is not started (train.py would
read 0 as "no time limit"): --mdlm-minutes 0 trains the guider alone, as --ar-minutes 0 the MDLM.
--mdlm-init (a second phase from an earlier export) needs an exported folder and continues tiny-mdlm
only. --mdlm-first (both phases in one command) has its options checked as the first phase runs
them, a share strictly between 0 and 1, and tiny-mdlm to train."""
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
                        "--device", "nodevice"],
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
# Either model alone is accepted too.
for alone in (["--mdlm-minutes", "0"], ["--ar-minutes", "0"]):
    with tempfile.TemporaryDirectory() as out:
        r = subprocess.run(["bash", script, out, "--device", "nodevice"] + alone,
                           capture_output=True, text=True, timeout=120)
        assert "refused" not in r.stderr and "nothing" not in r.stderr and r.returncode == 1, \
            (alone, r.returncode, r.stderr)
print("ok: gpu_train.sh refuses options train.py would refuse before it starts anything")
