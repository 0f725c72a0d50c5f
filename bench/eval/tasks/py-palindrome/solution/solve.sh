#!/bin/sh
# The reference solution, run in the workspace.
set -e
cat > text.py <<'EOF'
def is_palindrome(text):
    s = [c.lower() for c in text if c.isalnum()]
    return s == s[::-1]
EOF
