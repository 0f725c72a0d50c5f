package lexers

import (
	"strings"
)

// analyseZed is the analyser of the "Zed" lexer.
//
// aidex patch: set when the registry is filled (goAnalyser, lexers.go);
// upstream sets it in an init function, which filled the registry.
func analyseZed(text string) float32 {
	if strings.Contains(text, "definition ") && strings.Contains(text, "relation ") && strings.Contains(text, "permission ") {
		return 0.9
	}
	if strings.Contains(text, "definition ") {
		return 0.5
	}
	if strings.Contains(text, "relation ") {
		return 0.5
	}
	if strings.Contains(text, "permission ") {
		return 0.25
	}
	return 0.0
}
