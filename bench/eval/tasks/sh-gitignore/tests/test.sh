#!/bin/sh
# Runs in the workspace after the agent finishes; TESTS_DIR is this folder's copy.
set -e
grep -qx "node_modules/" .gitignore && mkdir -p build && touch build/x a.tmp && git check-ignore -q build/x && git check-ignore -q a.tmp && ! git check-ignore -q keep.txt
