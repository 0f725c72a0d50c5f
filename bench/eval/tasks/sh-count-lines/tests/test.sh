#!/bin/sh
# Runs in the workspace after the agent finishes; TESTS_DIR is this folder's copy.
set -e
chmod +x count.sh 2>/dev/null; [ "$(sh count.sh)" = "4" ] && printf "y\n" > c.log && [ "$(sh count.sh)" = "5" ]
