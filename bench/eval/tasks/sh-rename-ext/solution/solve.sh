#!/bin/sh
# The reference solution, run in the workspace.
set -e
for f in docs/*.txt; do mv "$f" "${f%.txt}.md"; done
