#!/bin/sh
# The reference solution, run in the workspace.
set -e
cat > roman.py <<'EOF'
def to_roman(n):
    if not 1 <= n <= 3999:
        raise ValueError(n)
    out = ''
    for v, s in [(1000, 'M'), (900, 'CM'), (500, 'D'), (400, 'CD'), (100, 'C'), (90, 'XC'), (50, 'L'), (40, 'XL'), (10, 'X'), (9, 'IX'), (5, 'V'), (4, 'IV'), (1, 'I')]:
        while n >= v:
            out += s
            n -= v
    return out
EOF
