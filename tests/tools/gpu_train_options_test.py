#!/usr/bin/python3
"""tools/train/gpu_train.sh refuses a --mdlm-suffix-mask outside 0..1, and 0 together with
--mdlm-digit-suffix (train.py's digit suffix acts on suffix-masked sequences only), before it starts
anything: a lease's minutes are not spent finding out."""
import os
import subprocess
import sys
import tempfile

source = sys.argv[sys.argv.index("--source") + 1]
script = os.path.join(source, "tools", "train", "gpu_train.sh")
for bad, says in ((["--mdlm-suffix-mask", "1.5"], "--mdlm-suffix-mask is a share from 0 to 1"),
                  (["--mdlm-suffix-mask", "-0.1"], "--mdlm-suffix-mask is a share from 0 to 1"),
                  (["--mdlm-suffix-mask", "0.5x"], "--mdlm-suffix-mask is a share from 0 to 1"),
                  (["--mdlm-suffix-mask", "0", "--mdlm-digit-suffix", "0.3"], "above 0 where --mdlm-digit-suffix")):
    with tempfile.TemporaryDirectory() as out:
        r = subprocess.run(["bash", script, out] + bad, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and says in r.stderr, (bad, r.returncode, r.stderr)
        assert os.listdir(out) == [], os.listdir(out)
# The accepted values get past the checks to the PyTorch probe (a device that does not exist here).
with tempfile.TemporaryDirectory() as out:
    r = subprocess.run(["bash", script, out, "--mdlm-suffix-mask", "0", "--device", "nodevice"],
                       capture_output=True, text=True, timeout=120)
    assert "--mdlm-suffix-mask" not in r.stderr and r.returncode == 1, (r.returncode, r.stderr)
print("ok: gpu_train.sh refuses bad suffix-mask shares before it starts")
