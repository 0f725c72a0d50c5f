#!/bin/sh
# Runs in the workspace after the agent finishes; TESTS_DIR is this folder's copy.
set -e
[ -f docs/intro.md ] && [ -f docs/usage.md ] && [ -f docs/keep.rst ] && ! ls docs/*.txt >/dev/null 2>&1 && grep -qx intro docs/intro.md
