#!/usr/bin/env python3
"""List the lines of an older README.md that no page holds any more.

usage: python3 scripts/docs-moved.py [REV]   (REV: a commit whose README.md to check,
default 8ce97ea, the last one-page README before issue 35)

Every non-empty line of REV:README.md must be in today's README.md or a page of docs/,
link targets and a docs/ prefix in link texts aside. Use it after merging a branch that
added to the one-page README: the lines it prints are the ones still to move into the
topic page (docs/TOPIC.md) they belong to. Exits 1 when a line is missing.
"""
import glob, os, re, subprocess, sys

rev = sys.argv[1] if len(sys.argv) > 1 else "8ce97ea"
root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True).stdout.strip()
old = subprocess.run(["git", "-C", root, "show", rev + ":README.md"], capture_output=True, text=True, check=True).stdout


def norm(line):
    line = re.sub(r"\]\([^)\s]+\)", "]()", line)  # link targets moved with the pages
    line = line.replace("[docs/", "[")           # link texts lost their docs/ prefix
    return line.lstrip("#").strip()              # heading levels changed


have = set()
for f in [os.path.join(root, "README.md")] + glob.glob(os.path.join(root, "docs", "*.md")):
    with open(f, encoding="utf-8") as fh:
        have.update(norm(l) for l in fh.read().split("\n"))
lines = [l for l in old.split("\n") if l.strip()]
missing = [l for l in lines if norm(l) not in have]
print(f"{rev}:README.md: {len(lines)} non-empty lines, {len(lines) - len(missing)} on a page today, {len(missing)} not")
for l in missing:
    print("  " + l[:160])
sys.exit(1 if missing else 0)
