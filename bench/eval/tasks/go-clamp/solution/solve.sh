#!/bin/sh
# The reference solution, run in the workspace.
set -e
cat > task.go <<'EOF'
package task

// Clamp limits v to [lo, hi] (swapped when lo > hi).
func Clamp(v, lo, hi int) int {
	if lo > hi {
		lo, hi = hi, lo
	}
	return min(max(v, lo), hi)
}
EOF
