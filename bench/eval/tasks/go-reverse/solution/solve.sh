#!/bin/sh
# The reference solution, run in the workspace.
set -e
cat > task.go <<'EOF'
package task

// Reverse returns s reversed, rune by rune.
func Reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}
EOF
