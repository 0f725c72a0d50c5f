#!/bin/sh
# The reference solution, run in the workspace.
set -e
cat > lists.py <<'EOF'
def dedupe(items):
    seen = set()
    out = []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out
EOF
