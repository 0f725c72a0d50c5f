package lexers

import (
	"regexp"

	"github.com/alecthomas/chroma/v2"
)

// aidex patch: was a package-level regexp and an init function; now run by
// load (lexers.go) once the registry is built.
func bashAnalyser(reg *chroma.LexerRegistry) {
	bashAnalyserRe := regexp.MustCompile(`(?m)^#!.*/bin/(?:env |)(?:bash|zsh|sh|ksh)`)
	reg.Get("bash").SetAnalyser(func(text string) float32 {
		if bashAnalyserRe.FindString(text) != "" {
			return 1.0
		}
		return 0.0
	})
}
