#!/usr/bin/env python3
"""tools/bench/gpu_parity.py's table, against a stand-in for dlmscope-cli: pairs decoded side by
side land in the order of the presets and prompts, the summary counts them, and while a slow pair
is still decoding the file already holds every finished one (a GPU session's time limit can stop
the script at any moment).

  gpu_parity_table_test.py --source REPO
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

# `run --backend B --strategy S ... --json`: one JSON line, the same ids on both backends; the
# preset "slow" takes its time so the test can read the file before it finishes.
FAKE_CLI = r'''#!/usr/bin/env python3
import json, sys, time
a = sys.argv
backend, strategy = a[a.index("--backend") + 1], a[a.index("--strategy") + 1]
if strategy == "slow":
    time.sleep(30)
print(json.dumps({"backend": backend, "generated_ids": [1, 2, 3], "steps": 3, "text": strategy + " text"}))
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    source = ap.parse_args().source
    with tempfile.TemporaryDirectory() as tmp:
        cli = os.path.join(tmp, "fake-cli")
        with open(cli, "w") as f:
            f.write(FAKE_CLI)
        os.chmod(cli, 0o755)
        split = os.path.join(tmp, "split.jsonl")
        with open(split, "w") as f:
            for fam in ("addition", "sorting"):
                f.write(json.dumps({"family": fam, "prompt": "p " + fam, "gen_length": 8}) + "\n")
        out = os.path.join(tmp, "parity.md")
        script = os.path.join(source, "tools", "bench", "gpu_parity.py")

        def start(strategies, jobs):
            return subprocess.Popen([sys.executable, script, "--cli", cli, "--model", tmp, "--split", split,
                                     "--strategies", strategies, "--jobs", str(jobs), "--out", out],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        # Finished: rows in preset-then-prompt order whatever order the pairs ended in.
        assert start("baseline,cover", 4).wait(60) == 0
        doc = open(out).read()
        rows = [line.split(" | ")[:2] for line in doc.splitlines() if line.startswith("| ") and "---" not in line][1:]
        assert rows == [["| baseline", "addition"], ["| baseline", "sorting"], ["| cover", "addition"],
                        ["| cover", "sorting"]], rows
        assert "4 of 4 decodes identical" in doc and "Partial" not in doc, doc
        assert not os.path.exists(out + ".tmp")

        # Cut off: the fast pairs are on file while the slow ones still decode.
        os.remove(out)
        p = start("baseline,slow", 4)
        deadline = time.time() + 20
        doc = ""
        while time.time() < deadline and "2 of 4 pairs decided" not in doc:
            time.sleep(0.2)
            doc = open(out).read() if os.path.exists(out) else ""
        p.kill()
        p.wait()
        assert "2 of 2 decodes identical" in doc and "Partial: 2 of 4 pairs decided so far." in doc, doc
        assert "| baseline | addition |" in doc and "| slow |" not in doc, doc
    print("PASS")


if __name__ == "__main__":
    main()
