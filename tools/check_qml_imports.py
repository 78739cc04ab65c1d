#!/usr/bin/env python3
"""Fails loudly when a QML module the app needs at run time is not installed.

  python3 tools/check_qml_imports.py [--qml-dir qml] [--scanner PATH] [--import-path DIR]

The app's own imports come from qmlimportscanner over qml/; the modules those load in turn (a
dialog's implementation imports Qt.labs.folderlistmodel, say) come from scanning each found
module's folder too. Platform styles of other systems (Windows, macOS, iOS) and the app's own
module are not needed. Prints each missing module with the Debian package that provides it and
exits 1; exits 0 with one line when everything is there.
"""
import argparse
import json
import os
import subprocess
import sys

NOT_NEEDED = {"QtQuick.Controls.Windows", "QtQuick.Controls.macOS", "QtQuick.Controls.iOS", "Dlmscope"}


def scan(scanner, root, import_path):
    r = subprocess.run([scanner, "-rootPath", root, "-importPath", import_path], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"check_qml_imports: {scanner} failed on {root}: {r.stderr.strip()}")
    return json.loads(r.stdout or "[]")


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--qml-dir", default=os.path.join(here, "qml"))
    ap.add_argument("--scanner", default="/usr/lib/qt6/libexec/qmlimportscanner")
    ap.add_argument("--import-path", default="/usr/lib/x86_64-linux-gnu/qt6/qml")
    a = ap.parse_args()
    if not os.path.exists(a.scanner):
        raise SystemExit(f"check_qml_imports: {a.scanner} not found (Debian package qt6-declarative-dev-tools)")

    missing, scanned, queue = set(), set(), [a.qml_dir]
    while queue:
        root = queue.pop()
        if root in scanned:
            continue
        scanned.add(root)
        for m in scan(a.scanner, root, a.import_path):
            if m.get("type") != "module" or m.get("name") in NOT_NEEDED:
                continue
            if "path" in m:
                queue.append(m["path"])
            else:
                missing.add(m["name"])
    if missing:
        for name in sorted(missing):
            pkg = "qml6-module-" + name.lower().replace(".", "-")
            print(f"check_qml_imports: the app needs QML module {name}, which is not installed "
                  f"(Debian package {pkg})", file=sys.stderr)
        sys.exit(1)
    print(f"check_qml_imports: every QML module the app loads is installed ({len(scanned)} folders scanned)")


if __name__ == "__main__":
    main()
