"""The per-row decodes that `dlmscope-cli eval --predictions` and `eval_py.py --predictions` write:
one JSON object a line with family, prompt, answer, output, predicted and correct."""
import argparse
import json
import sys


def load(path, tool):
    """Every row of the file, or exit naming `tool` and why the file cannot be read."""
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        sys.exit(f"{tool}: cannot read {path}: {e}")


def counting_tool(doc, tool, count, has_rows, what, describe):
    """The command line of a tool that counts a predictions file (`PREDICTIONS [--json]`): the
    counts, printed as one JSON object with --json, or as the text `describe(counts)` writes.
    Exits when the file has none of the rows the tool reads (`what`)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("predictions", help="the jsonl file `dlmscope-cli eval --predictions` (or eval_py.py) wrote")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    a = ap.parse_args()
    c = count(load(a.predictions, tool))
    if not has_rows(c):
        sys.exit(f"{tool}: {a.predictions} has no {what} rows")
    print(json.dumps(c) if a.json else describe(c))
