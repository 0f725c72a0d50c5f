#!/bin/sh
# Runs in the workspace after the agent finishes; TESTS_DIR is this folder's copy.
set -e
[ -x scripts/run.sh ] && [ "$(./scripts/run.sh)" = "running" ] && head -1 scripts/run.sh | grep -q "^#!"
