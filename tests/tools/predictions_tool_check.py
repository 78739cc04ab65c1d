"""The command line every predictions-counting tool shares (tools/train/predictions.py's
counting_tool), checked the same way for each: `--json` prints exactly the counts, a file that is
not JSON lines and a file without the tool's rows are refused with a reason."""
import json
import os
import subprocess
import sys
import tempfile


def check_tool_command(source, name, rows, expected, no_rows):
    """Runs tools/train/<name>.py on `rows` written as a predictions file and returns its plain
    text output; `no_rows` is a row of none of the families it reads."""
    tool = os.path.join(source, "tools", "train", name + ".py")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "pred.jsonl")
        with open(path, "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in rows))
        out = subprocess.run([sys.executable, tool, path, "--json"], capture_output=True, text=True, check=True).stdout
        assert json.loads(out) == expected, out
        text = subprocess.run([sys.executable, tool, path], capture_output=True, text=True, check=True).stdout
        bad = os.path.join(d, "bad.jsonl")
        with open(bad, "w") as f:
            f.write("{not json\n")
        r = subprocess.run([sys.executable, tool, bad], capture_output=True, text=True)
        assert r.returncode != 0 and "cannot read" in r.stderr, (name, r.returncode, r.stderr)
        none = os.path.join(d, "none.jsonl")
        with open(none, "w") as f:
            f.write(json.dumps(no_rows) + "\n")
        r = subprocess.run([sys.executable, tool, none], capture_output=True, text=True)
        assert r.returncode != 0 and "has no" in r.stderr, (name, r.returncode, r.stderr)
    return text
