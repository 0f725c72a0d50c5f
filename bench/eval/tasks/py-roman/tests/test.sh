#!/bin/sh
# Runs in the workspace after the agent finishes; TESTS_DIR is this folder's copy.
set -e
cp "$TESTS_DIR/test_task.py" . && python3 -m unittest -q test_task
