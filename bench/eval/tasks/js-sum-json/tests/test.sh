#!/bin/sh
# Runs in the workspace after the agent finishes; TESTS_DIR is this folder's copy.
set -e
cp "$TESTS_DIR/more.json" . && [ "$(node total.js orders.json)" = "12.5" ] && [ "$(node total.js more.json)" = "3" ]
