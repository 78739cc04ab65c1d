#!/usr/bin/python3
"""tools/train/milestone.py: `continue` gives the command that goes on in a folder's own recipe, with a
data stream none of its phases drew, and train.py accepts it; `keep` copies a whole export and refuses
an incomplete one. A form or sequence length given on the command line replaces the folder's."""
import json
import os
import shlex
import subprocess
import sys
import tempfile

source = sys.argv[sys.argv.index("--source") + 1]
tool = os.path.join(source, "tools", "train", "milestone.py")
shipped = os.path.join(source, "resources", "models", "tiny-mdlm")


def run(*args):
    return subprocess.run([sys.executable, tool, *args], capture_output=True, text=True, cwd=source)


def history_seeds(args):
    out = []
    while args:
        out.append(args["seed"])
        args = (args.get("shipped_history") or {}).get("args")
    return out


p = run("continue", shipped, "--minutes", "30")
assert p.returncode == 0, p.stderr
words = shlex.split(p.stdout.strip())
assert words[0] == "OPENBLAS_NUM_THREADS=1", words[:2]
argv = words[words.index("tools/train/train.py") + 1:]
opt = {argv[i]: argv[i + 1] for i in range(len(argv) - 1) if argv[i].startswith("--") and not argv[i + 1].startswith("--")}

with open(os.path.join(shipped, "training.json")) as f:
    trained = json.load(f)["args"]
for key in ("model", "size", "sorting_form", "counting_form", "word_problem_form", "family_weights"):
    assert opt["--" + key.replace("_", "-")] == str(trained[key]), (key, opt.get("--" + key.replace("_", "-")))
assert float(opt["--suffix-mask"]) == trained["suffix_mask"] and float(opt["--t-power"]) == trained["t_power"]
assert opt["--init-from-shipped"] == "resources/models/tiny-mdlm", opt["--init-from-shipped"]
assert int(opt["--seed"]) > max(history_seeds(trained)), (opt["--seed"], history_seeds(trained))
assert opt["--minutes"] == "30.0" and opt["--processes"] == "2"
assert opt["--out"] == opt["--work"] + "/export"
# Its own folder per seed: the next phase does not resume the finished one's checkpoint.
assert opt["--work"] == "build-train/tiny-mdlm-s" + opt["--seed"], opt["--work"]

# train.py's own rules accept the command (train_options.py is train.py's parser without PyTorch).
check = subprocess.run([sys.executable, os.path.join(source, "tools", "train", "train_options.py"), *argv],
                       capture_output=True, text=True)
assert check.returncode == 0, check.stderr

# A step budget: the same phase on any machine (a wall-time one gives a slower machine fewer steps).
p = run("continue", shipped, "--steps", "600")
assert p.returncode == 0, p.stderr
argv = shlex.split(p.stdout.strip())[3:]  # after OPENBLAS_NUM_THREADS=1 python3 train.py
assert argv[argv.index("--steps") + 1] == "600" and "--minutes" not in argv, argv
check = subprocess.run([sys.executable, os.path.join(source, "tools", "train", "train_options.py"), *argv],
                       capture_output=True, text=True)
assert check.returncode == 0, check.stderr
p = run("continue", shipped, "--steps", "600", "--minutes", "45")
argv = shlex.split(p.stdout.strip())[3:]
assert argv[argv.index("--steps") + 1] == "600" and argv[argv.index("--minutes") + 1] == "45.0", argv
# Without a budget it says so instead of starting a run of train.py's 100,000 steps.
p = run("continue", shipped)
assert p.returncode != 0 and "--steps" in p.stderr and "--minutes" in p.stderr, (p.returncode, p.stderr)
for budget in (["--steps", "0"], ["--steps", "-5"], ["--minutes", "-1"]):
    p = run("continue", shipped, *budget)
    assert p.returncode != 0 and "positive" in p.stderr, (budget, p.returncode, p.stderr)

# A form changed on the command line replaces the folder's (as the guider moved to the passes form).
guider = os.path.join(source, "resources", "models", "tiny-ar")
with open(os.path.join(guider, "training.json")) as f:
    other_form = "columns" if json.load(f)["args"]["sorting_form"] == "passes" else "passes"
p = run("continue", guider, "--minutes", "5", "--sorting-form", other_form, "--max-len", "500")
assert p.returncode == 0, p.stderr
argv = shlex.split(p.stdout.strip())[2:]
assert argv[argv.index("--sorting-form") + 1] == other_form and argv[argv.index("--max-len") + 1] == "500", argv
assert argv[argv.index("--model") + 1] == "ar" and argv.count("--sorting-form") == 1, argv
check = subprocess.run([sys.executable, os.path.join(source, "tools", "train", "train_options.py"), *argv[1:]],
                       capture_output=True, text=True)
assert check.returncode == 0, check.stderr

# An explicit learning rate, mixture, stretched-canvas share and seed win over the folder's.
p = run("continue", shipped, "--minutes", "5", "--lr", "3e-4", "--seed", "5", "--family-weights", "sorting=1",
        "--long-prob", "0.15")
assert " --lr 0.0003 " in p.stdout and " --seed 5 " in p.stdout, p.stdout
assert p.stdout.count(" --long-prob ") == 1 and " --long-prob 0.15 " in p.stdout, p.stdout
assert " --family-weights sorting=1 " in p.stdout and trained["family_weights"] not in p.stdout, p.stdout

# The corpus shares a phase sets (the guider's phases without the filler) are given and kept.
p = run("continue", guider, "--minutes", "5", "--filler-prob", "0", "--free-letter-prob", "0.3",
        "--invented-item-prob", "0.3", "--plain-sentence-prob", "0.4")
assert " --filler-prob 0.0 " in p.stdout and " --free-letter-prob 0.3 " in p.stdout, p.stdout
assert " --invented-item-prob 0.3 " in p.stdout and " --plain-sentence-prob 0.4 " in p.stdout, p.stdout
check = subprocess.run([sys.executable, os.path.join(source, "tools", "train", "train_options.py"),
                        *shlex.split(p.stdout.strip())[3:]], capture_output=True, text=True)
assert check.returncode == 0, check.stderr
# ... and the letter counts' loss weight of an MDLM phase.
p = run("continue", shipped, "--minutes", "5", "--count-weight", "4")
assert " --count-weight 4.0 " in p.stdout, p.stdout
check = subprocess.run([sys.executable, os.path.join(source, "tools", "train", "train_options.py"),
                        *shlex.split(p.stdout.strip())[3:]], capture_output=True, text=True)
assert check.returncode == 0, check.stderr

# ... and the share of earlier K/V: given on the command line, and kept from a folder trained with it.
p = run("continue", shipped, "--minutes", "5", "--stale-kv", "0.5")
assert " --stale-kv 0.5 " in p.stdout, p.stdout
check = subprocess.run([sys.executable, os.path.join(source, "tools", "train", "train_options.py"),
                        *shlex.split(p.stdout.strip())[3:]], capture_output=True, text=True)
assert check.returncode == 0, check.stderr
# (The shipped tiny-mdlm's recipe is its continuation's, trained with earlier K/V.)
with open(os.path.join(shipped, "training.json")) as f:
    stale_share = json.load(f)["args"]["stale_kv"]
assert stale_share, "the shipped tiny-mdlm's recipe has no earlier K/V to keep"
p = run("continue", shipped, "--minutes", "5")
assert p.returncode == 0 and p.stdout.count(" --stale-kv ") == 1 and f" --stale-kv {stale_share} " in p.stdout, (p.stdout, p.stderr)

# ... and the share of varied wordings, which a folder keeps unless told otherwise.
p = run("continue", shipped, "--minutes", "5", "--varied-wording", "0.9")
assert p.returncode == 0 and p.stdout.count(" --varied-wording ") == 1 and " --varied-wording 0.9 " in p.stdout, (p.stdout, p.stderr)

# `forms` prints the forms a folder's weights were trained in, as train.py options that train.py
# accepts; another counting form drops the masks the folder's was learnt with.
p = run("forms", shipped)
words = shlex.split(p.stdout)
last = json.load(open(os.path.join(shipped, "training.json")))["args"]
assert p.returncode == 0 and words[words.index("--counting-form") + 1] == last["counting_form"], (p.stdout, p.stderr)
assert words[words.index("--sorting-form") + 1] == last["sorting_form"], p.stdout
check = subprocess.run([sys.executable, os.path.join(source, "tools", "train", "train_options.py"), "--model", "mdlm", *words],
                       capture_output=True, text=True)
assert check.returncode == 0, check.stderr
p = run("forms", shipped, "--counting-form", "spelled", "--sorting-form", "columns")
words = shlex.split(p.stdout)
assert words[words.index("--counting-form") + 1] == "spelled" and words[words.index("--sorting-form") + 1] == "columns", p.stdout
assert not {"--comparison-mask", "--verdicts-shown", "--total-mask"} & set(words), p.stdout
assert run("forms", shipped, "--only", "counting_form").stdout.strip() == last["counting_form"]

with tempfile.TemporaryDirectory() as tmp:
    p = run("keep", shipped, "copy", "--into", tmp)
    assert p.returncode == 0, p.stderr
    kept = os.path.join(tmp, "copy")
    for name in os.listdir(shipped):
        with open(os.path.join(shipped, name), "rb") as a, open(os.path.join(kept, name), "rb") as b:
            assert a.read() == b.read(), name
    # A folder without its weights is refused, and says what it lacks.
    os.remove(os.path.join(kept, "model.safetensors"))
    p = run("keep", kept, "again", "--into", tmp)
    assert p.returncode != 0 and "model.safetensors" in p.stderr, p.stderr
    assert not os.path.exists(os.path.join(tmp, "again"))
    # A folder without training.json cannot be continued: it says so.
    os.remove(os.path.join(kept, "training.json"))
    p = run("continue", kept, "--minutes", "5")
    assert p.returncode != 0 and "training.json" in p.stderr, p.stderr
print("milestone.py: continue and keep checked")
