#!/bin/sh
# The reference solution, run in the workspace.
set -e
printf 'build/\n*.tmp\n' >> .gitignore
