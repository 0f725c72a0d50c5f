#!/bin/sh
# Runs in the workspace after the agent finishes; TESTS_DIR is this folder's copy.
set -e
grep -qx "port = 8080" app.conf && grep -qx "workers = 4" app.conf && grep -qx "host = 0.0.0.0" app.conf && [ "$(grep -c port app.conf)" = "1" ]
