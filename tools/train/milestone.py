#!/usr/bin/python3
"""Training milestones: exported weights kept in the repository, so that a line of training that has
not shipped yet continues on the next machine instead of starting again.

build-train/ is not committed and a new machine starts without it; a pilot's export left there is
lost with the machine. `keep` copies an export (tools/train/export.py's folder) into
tools/train/milestones/<name>/; `continue` prints the train.py command that goes on from a model
folder (a milestone or a shipped model) with a fresh optimizer on this machine's CPUs, in the
recipe that folder was trained in: its forms, masking and mixture, read from its training.json.
(On a GPU, tools/train/gpu_train.sh --mdlm-init FOLDER continues it at a GPU's batch.)

  /usr/bin/python3 tools/train/milestone.py keep build-train/<name>-s<seed>/export <name>
  /usr/bin/python3 tools/train/milestone.py continue tools/train/milestones/<name> --minutes 100
  /usr/bin/python3 tools/train/milestone.py continue resources/models/tiny-mdlm --minutes 100 --run
  /usr/bin/python3 tools/train/milestone.py continue tools/train/milestones/<name> --steps 600 --run
  /usr/bin/python3 tools/train/milestone.py continue resources/models/tiny-ar --minutes 60 \
      --sorting-form passes --max-len 464      # a form changed: the recipe from here on
  /usr/bin/python3 tools/train/milestone.py forms resources/models/tiny-mdlm   # its forms as train.py options
  /usr/bin/python3 tools/train/milestone.py recipe resources/models/tiny-mdlm stale_kv   # one value of its recipe
"""
import argparse
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MILESTONES = os.path.join(HERE, "milestones")
sys.path.insert(0, HERE)
from parent_death import end_with_parent  # noqa: E402
import train_options  # noqa: E402
# What a model folder needs to be continued and checked (the parity test reads golden.json).
FILES = ["config.json", "model.safetensors", "training.json", "golden.json", "tokenizer.model",
         "tokenizer_config.json", "special_tokens_map.json"]
OPTIONAL = ["generation_config.json"]
# The recipe a continuation keeps: what the weights were trained to read and write, and how.
RECIPE = ["model", "size", "word_problem_form", "sorting_form", "counting_form", "aligned_arithmetic",
          "t_power", "suffix_mask", "decode_order_mask", "prompt_digit_mask", "prompt_digit_noise",
          "digit_suffix", "varied_wording", "long_prob", "max_len", "family_weights", "lr", "min_lr_frac", "wd",
          "tie_head", "aside_prob", "filler_prob", "free_letter_prob", "count_weight", "comparison_mask",
          "verdicts_shown", "total_mask", "absent_letter_prob", "stale_kv", "stale_kv_states", "invented_item_prob",
          "plain_sentence_prob"]
# The recipe options `continue` takes on its command line (the rest stay as the folder was trained).
OVERRIDABLE = ["lr", "family_weights", "sorting_form", "counting_form", "max_len", "long_prob", "aside_prob",
               "filler_prob", "free_letter_prob", "count_weight", "comparison_mask", "verdicts_shown", "total_mask",
               "absent_letter_prob", "stale_kv", "stale_kv_states", "varied_wording", "invented_item_prob",
               "plain_sentence_prob"]
# An override outside the recipe would be taken on the command line and then dropped unsaid.
assert set(OVERRIDABLE) <= set(RECIPE), sorted(set(OVERRIDABLE) - set(RECIPE))
# What the weights were trained to read and write: the corpus's forms and wordings and the masks a
# form is learnt with. A run at another scale (gpu_train.sh: its own batch, rates and mixture)
# keeps these, or it would train the model out of the forms it answers in.
FORMS = ["word_problem_form", "sorting_form", "counting_form", "aligned_arithmetic", "varied_wording",
         "aside_prob", "filler_prob", "free_letter_prob", "count_weight", "comparison_mask", "verdicts_shown",
         "total_mask", "absent_letter_prob", "invented_item_prob", "plain_sentence_prob"]
assert set(FORMS) <= set(RECIPE), sorted(set(FORMS) - set(RECIPE))
# A CPU step: 4 batches of 32 (batches of 32 are the fastest per example on a CPU, train.py --accum),
# shared by two one-thread processes (1.86x one process on two cores, train.py --processes).
CPU_STEP = {"batch": 32, "accum": 4, "warmup": 20, "threads": 1, "ckpt_min": 10, "val_every": 100, "steps": 100000}


def fail(msg):
    sys.exit(f"milestone.py: {msg}")


def history(args):
    """The training args of every phase of a folder's weights, latest first (training.json nests the
    phase before in args.shipped_history)."""
    out, h = [], args
    while h:
        out.append(h)
        h = (h.get("shipped_history") or {}).get("args")
    return out


def last_phases(folder, purpose):
    """Every phase's training args of a folder's weights, latest first; fails where it has none."""
    phases = history(read_training(folder).get("args") or {})
    if not phases:
        fail(f"{folder}/training.json has no training args to {purpose}")
    return phases


def read_training(folder):
    path = os.path.join(folder, "training.json")
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"cannot read {path}: {e} (a folder tools/train/export.py wrote has one)")


def keep(a):
    missing = [f for f in FILES if not os.path.isfile(os.path.join(a.export, f))]
    if missing:
        fail(f"{a.export} lacks {', '.join(missing)}: keep a folder tools/train/export.py wrote")
    if not a.name or "/" in a.name or a.name.startswith("."):
        fail(f"{a.name!r} is not a folder name")
    dst = os.path.join(a.into, a.name)
    if os.path.exists(dst):
        shutil.rmtree(dst)
    os.makedirs(dst)
    for f in FILES + [f for f in OPTIONAL if os.path.isfile(os.path.join(a.export, f))]:
        shutil.copyfile(os.path.join(a.export, f), os.path.join(dst, f))
    t = read_training(dst)
    size = sum(os.path.getsize(os.path.join(dst, f)) for f in os.listdir(dst))
    print(f"kept {a.export} as {os.path.relpath(dst, REPO)} ({size / 1e6:.1f} MB, step {t.get('step')}, "
          f"{t.get('train_minutes')} min in its last phase); commit it, and add its line to "
          f"{os.path.relpath(os.path.join(a.into, 'README.md'), REPO)}")


def flag(name, value):
    opt = "--" + name.replace("_", "-")
    if isinstance(value, bool):
        return [opt] if value else []
    return [opt, str(value)]


def options(values, keys):
    """train.py's options for the `keys` that have a value in `values` (unset and empty ones left out)."""
    out = []
    for key in keys:
        if values.get(key) is not None and values.get(key) != "":
            out += flag(key, values[key])
    return out


# The options a letter-count form is learnt with: another counting form starts from train.py's
# defaults for them (the paired form's verdicts mean nothing in another).
COUNTING_MASKS = ["free_letter_prob", "count_weight", "comparison_mask", "verdicts_shown", "total_mask",
                  "absent_letter_prob"]
assert set(COUNTING_MASKS) <= set(FORMS), sorted(set(COUNTING_MASKS) - set(FORMS))


def forms_command(a):
    """Print the train.py options of FORMS as the folder's last phase had them, one line of shell
    words (or --only KEY's value alone); --sorting-form / --counting-form change them from here on."""
    last = dict(last_phases(a.folder, "read the forms from")[0])
    if a.sorting_form:
        last["sorting_form"] = a.sorting_form
    if a.counting_form and a.counting_form != last.get("counting_form"):
        last["counting_form"] = a.counting_form
        for key in COUNTING_MASKS:
            last.pop(key, None)
    if a.only:
        print(last.get(a.only) or "")
        return
    print(" ".join(shlex.quote(w) for w in options(last, FORMS)))


def recipe_command(a):
    """Print one recipe value of the folder's last phase (empty where that phase had none), e.g. the
    masking a run at another scale continues the weights with (gpu_train.sh)."""
    value = last_phases(a.folder, "read the recipe from")[0].get(a.key)
    print("" if value is None else value)


def continue_command(a):
    folder = os.path.relpath(os.path.abspath(a.folder), REPO)
    phases = last_phases(a.folder, "continue from")
    last = phases[0]
    seeds = [p.get("seed") for p in phases if isinstance(p.get("seed"), int)]
    seed = a.seed if a.seed is not None else max(seeds, default=0) + 1  # a stream no phase has drawn
    # One folder per seed: the same command again resumes its own ckpt.pt, and the next phase (after
    # `keep`, one seed up) starts fresh instead of resuming the finished phase before it.
    name = a.name or f"{os.path.basename(os.path.normpath(a.folder))}-s{seed}"
    work = a.work or f"build-train/{name}"
    cmd = ["/usr/bin/python3", "tools/train/train.py"]
    # What the command line changes of the recipe: a form changed is a new recipe from here on.
    # The recipe keys this command takes as options (argparse names them as train.py does).
    given = {key: getattr(a, key, None) for key in RECIPE}
    cmd += options({key: given[key] if given.get(key) is not None else last.get(key) for key in RECIPE}, RECIPE)
    if not a.minutes and a.steps is None:
        fail("give the continuation a budget: --minutes (wall time) or --steps (the same phase on any machine)")
    # A step budget is the same phase on a slower machine (a wall-time one gives it fewer steps).
    for key, value in {**CPU_STEP, **({"steps": a.steps} if a.steps is not None else {})}.items():
        cmd += flag(key, value)
    cmd += flag("processes", a.processes)
    if a.minutes is not None:
        cmd += flag("minutes", a.minutes)
    cmd += flag("seed", seed)
    cmd += ["--init-from-shipped", folder, "--work", work, "--out", f"{work}/export"]
    # train.py's own rules (budgets, shares, states), before the command is printed or run.
    train_options.parse(train_options.parser(), cmd[2:])
    env = {"OPENBLAS_NUM_THREADS": "1"}
    line = " ".join([f"{k}={v}" for k, v in env.items()] + [shlex.quote(c) for c in cmd])
    if not a.run:
        print(line)
        return
    print(line, flush=True)
    # Stopping this command (kill, kill -9) stops the training it started, and so its workers.
    me = os.getpid()
    sys.exit(subprocess.call(cmd, cwd=REPO, env={**os.environ, **env},
                             preexec_fn=lambda: end_with_parent(signal.SIGTERM, me)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    k = sub.add_parser("keep", help="copy an export into tools/train/milestones/<name>")
    k.add_argument("export")
    k.add_argument("name")
    k.add_argument("--into", default=MILESTONES, help="the milestones' folder (default tools/train/milestones)")
    c = sub.add_parser("continue", help="the train.py command that continues FOLDER with a fresh optimizer")
    c.add_argument("folder")
    c.add_argument("--minutes", type=float, help="wall-time budget of the continuation")
    c.add_argument("--steps", type=int,
                   help="step budget (steps of 128 examples): the cosine runs over it; with --minutes too, it "
                   "stops at whichever runs out first")
    c.add_argument("--seed", type=int, help="data stream (default: one above every seed of the folder's history)")
    # Each recipe option a continuation may change takes train.py's own type, choices and help.
    train_actions = {act.dest: act for act in train_options.parser()._actions}
    for key in OVERRIDABLE:
        act = train_actions[key]
        c.add_argument("--" + key.replace("_", "-"), type=act.type, choices=act.choices,
                       help=f"{act.help or ''} (from here on; default: the folder's last phase's)")
    c.add_argument("--processes", type=int, default=2, help="CPU processes sharing each step (default 2: both cores)")
    c.add_argument("--name", help="build-train/<name> holds the run (default: the folder's name + -s<seed>)")
    c.add_argument("--work", help="the run's folder (default build-train/<name>)")
    c.add_argument("--run", action="store_true", help="run it (default: print it)")
    f = sub.add_parser("forms", help="the train.py options of the forms FOLDER's weights were trained in")
    f.add_argument("folder")
    f.add_argument("--only", choices=FORMS, help="print this one's value alone")
    for key in ("sorting_form", "counting_form"):
        act = train_actions[key]
        f.add_argument("--" + key.replace("_", "-"), choices=act.choices,
                       help=f"{act.help or ''} (from here on; another counting form drops the masks of the folder's)")
    r = sub.add_parser("recipe", help="one value of the recipe FOLDER's weights were last trained with")
    r.add_argument("folder")
    r.add_argument("key", choices=RECIPE)
    a = ap.parse_args()
    {"keep": keep, "continue": continue_command, "forms": forms_command, "recipe": recipe_command}[a.cmd](a)


if __name__ == "__main__":
    main()
