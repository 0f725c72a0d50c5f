#!/bin/sh
# The reference solution, run in the workspace.
set -e
cat > task.go <<'EOF'
package task

import (
	"strings"
	"unicode"
)

// WordCount counts the words of text by their lower-case form.
func WordCount(text string) map[string]int {
	out := map[string]int{}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) }) {
		out[strings.ToLower(w)]++
	}
	return out
}
EOF
