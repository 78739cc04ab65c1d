#!/usr/bin/env python3
"""Checks tools/train/train.py's --processes (CPU processes sharing each step's --accum batches):

  python3 tests/tools/train_processes_test.py --source <checkout>

- two steps with two processes read the tokens that the same run with one process reads, and end
  with its weights (to float rounding: the gradient is summed in another order);
- a two-process run stopped after one step and resumed ends where the straight one ends;
- an --accum that two processes cannot share, and --processes on a GPU, are refused;
- the processes end with the command that spawned them (trainers are stopped with kill -9);
- the train.py that `milestone.py continue --run` starts ends when milestone.py is killed.
Exits 77 (ctest: skipped) when no Python with PyTorch is found (see torch_reference_test.py).
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_resume_test import checkout_and_torch_python, refusal, train  # noqa: E402


def largest_weight_difference(py, train_dir, a, b):
    """The largest absolute difference between two checkpoints' weights, by the Python that trained them."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import common as C; "
            "x = C.load_checkpoint(sys.argv[2])['model']; y = C.load_checkpoint(sys.argv[3])['model']; "
            "assert sorted(x) == sorted(y); "
            "print(max(float((x[k].float() - y[k].float()).abs().max()) for k in x))")
    out = subprocess.run([py, "-c", code, train_dir, a, b], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def children(pid):
    """The live processes whose parent is pid (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry))
    return found


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def processes_end_with_their_command(py, source, tmp):
    """kill -9 of a two-process run leaves no process training, also when it was started in the
    background by a shell, which starts it with SIGINT ignored: PyTorch ends spawned processes with a
    SIGINT when their parent dies, and those ignored it and trained on."""
    cmd = [py, os.path.join(source, "tools", "train", "train.py"), "--model", "mdlm", "--size", "tiny",
           "--steps", "100000", "--batch", "2", "--accum", "2", "--max-len", "96", "--processes", "2",
           "--work", os.path.join(tmp, "killed")]
    run = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           env=dict(os.environ, OPENBLAS_NUM_THREADS="1"),
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    deadline = time.time() + 120
    workers = []
    while time.time() < deadline and run.poll() is None:
        workers = [w for w in children(run.pid) if "spawn_main" in open(f"/proc/{w}/cmdline").read()]
        if len(workers) == 2 and os.path.exists(os.path.join(tmp, "killed", "log.csv")):
            break
        time.sleep(0.5)
    if len(workers) != 2:
        run.kill()
        raise SystemExit(f"FAIL: the two-process run did not start its two processes ({workers}, exit {run.poll()})")
    run.send_signal(signal.SIGKILL)
    run.wait()
    deadline = time.time() + 30
    while time.time() < deadline and any(alive(w) for w in workers):
        time.sleep(0.2)
    left = [w for w in workers if alive(w)]
    for w in left:
        os.kill(w, signal.SIGKILL)
    if left:
        raise SystemExit(f"FAIL: {len(left)} of the two processes went on after their command was killed")


def training_ends_with_milestone(py, source, tmp):
    """kill -9 of `milestone.py continue --run`, started in the background by a shell, ends the
    train.py it started: a continuation stopped by its command trains on no more."""
    if subprocess.run(["/usr/bin/python3", "-c", "import torch"], capture_output=True).returncode != 0:
        print("note: /usr/bin/python3 (milestone.py's train.py) has no PyTorch: the milestone check is skipped")
        return
    work = os.path.join(tmp, "continued")
    cmd = [py, os.path.join(source, "tools", "train", "milestone.py"), "continue",
           os.path.join(source, "resources", "models", "tiny-mdlm"), "--minutes", "30", "--processes", "1",
           "--work", work, "--run"]
    run = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    deadline = time.time() + 120
    while time.time() < deadline and run.poll() is None and not os.path.exists(os.path.join(work, "log.csv")):
        time.sleep(0.5)
    trainer = [t for t in children(run.pid) if "train.py" in open(f"/proc/{t}/cmdline").read()]
    if run.poll() is not None or len(trainer) != 1:
        run.kill()
        raise SystemExit(f"FAIL: milestone.py did not start its train.py ({trainer}, exit {run.poll()})")
    run.send_signal(signal.SIGKILL)
    run.wait()
    deadline = time.time() + 30
    while time.time() < deadline and alive(trainer[0]):
        time.sleep(0.2)
    if alive(trainer[0]):
        os.kill(trainer[0], signal.SIGKILL)
        raise SystemExit("FAIL: the train.py of milestone.py went on after milestone.py was killed")


def main():
    source, py = checkout_and_torch_python()
    train_dir = os.path.join(source, "tools", "train")
    common = ("--model", "mdlm", "--size", "tiny", "--accum", "4", "--t-power", "0.5", "--suffix-mask", "0.7")
    with tempfile.TemporaryDirectory() as tmp:
        one = train(py, source, tmp, "one", 2, *common)
        two = train(py, source, tmp, "two", 2, *common, "--processes", "2")
        if two["tokens_seen"] != one["tokens_seen"]:
            raise SystemExit(f"FAIL: two processes read {two['tokens_seen']} tokens, one process "
                             f"{one['tokens_seen']}: not the step's batches")
        if two["hardware"].get("processes") != 2:
            raise SystemExit(f"FAIL: the export does not record the two processes: {two['hardware']}")
        ck = {w: os.path.join(tmp, w, "ckpt.pt") for w in ("one", "two", "resumed")}
        diff = largest_weight_difference(py, train_dir, ck["one"], ck["two"])
        if diff > 1e-4:
            raise SystemExit(f"FAIL: two processes end {diff:g} away from one process's weights")
        train(py, source, tmp, "resumed", 1, *common, "--processes", "2")
        resumed = train(py, source, tmp, "resumed", 2, *common, "--processes", "2")
        if resumed["step"] != 2 or resumed["tokens_seen"] != two["tokens_seen"]:
            raise SystemExit("FAIL: the resumed two-process run did not read what the straight one read")
        diff = largest_weight_difference(py, train_dir, ck["two"], ck["resumed"])
        if diff > 1e-4:
            raise SystemExit(f"FAIL: the resumed two-process run ends {diff:g} away from the straight one")
        for unshareable in (("--accum", "3"), ("--accum", "2", "--device", "cuda")):
            error = refusal(py, source, "--model", "mdlm", "--steps", "1", "--processes", "2", *unshareable)
            if error is None or "--processes" not in error:
                raise SystemExit(f"FAIL: --processes 2 with {' '.join(unshareable)} was not refused: {error}")
        processes_end_with_their_command(py, source, tmp)
        training_ends_with_milestone(py, source, tmp)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
