#!/bin/sh
# Runs in the workspace after the agent finishes; TESTS_DIR is this folder's copy.
set -e
cp "$TESTS_DIR/other.csv" . && [ "$(python3 sum_column.py sales.csv amount)" = "15.00" ] && [ "$(python3 sum_column.py other.csv cost)" = "3.50" ]
