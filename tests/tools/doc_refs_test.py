#!/usr/bin/env python3
"""tools/check_doc_refs.py: the repository passes, and a tree with a broken reference fails."""
# check_doc_refs: made-up paths (the trees below cite missing files on purpose)
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

src = sys.argv[sys.argv.index("--source") + 1]
check = os.path.join(src, "tools", "check_doc_refs.py")

# The repository itself: every cited path and design.md section resolves.
r = subprocess.run([sys.executable, check, src], capture_output=True, text=True)
print(r.stdout, r.stderr)
assert r.returncode == 0, "the repository cites files or sections that do not exist"


def tree(files):
    d = tempfile.mkdtemp()
    atexit.register(shutil.rmtree, d, ignore_errors=True)  # a failed assertion cleans up too
    for rel, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
        with open(os.path.join(d, rel), "w") as f:
            f.write(text)
    return d


good = tree({"docs/design.md": "## 1. Shape\n## 2. Families\n",
             "engine/a.h": "// see design.md §2 and docs/design.md; data in docs/bench/x.{json,csv}\n",
             "engine/b.cpp": "#include \"engine/not_a_repo_path.h\"\n"})
r = subprocess.run([sys.executable, check, good], capture_output=True, text=True)
assert r.returncode == 0, r.stdout

for bad_text, what in (("// see engine/missing.h\n", "engine/missing.h"),
                       ("// see design.md §7\n", "§7")):
    bad = tree({"docs/design.md": "## 1. Shape\n", "engine/a.h": bad_text})
    r = subprocess.run([sys.executable, check, bad], capture_output=True, text=True)
    assert r.returncode == 1 and what in r.stdout, (what, r.stdout)
print("doc_refs_test: ok")
