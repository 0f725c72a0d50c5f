#!/bin/sh
# The reference solution, run in the workspace.
set -e
cat > sum_column.py <<'EOF'
import csv, sys

with open(sys.argv[1], newline='') as f:
    print(f"{sum(float(r[sys.argv[2]]) for r in csv.DictReader(f)):.2f}")
EOF
