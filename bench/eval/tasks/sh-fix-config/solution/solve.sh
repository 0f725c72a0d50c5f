#!/bin/sh
# The reference solution, run in the workspace.
set -e
sed -i 's/^port = 80$/port = 8080/' app.conf
