package lexers

import (
	"regexp"
)

// TODO(moorereason): can this be factored away?
var zoneAnalyserRe = regexp.MustCompile(`(?m)^@\s+IN\s+SOA\s+`)

// analyseDNS is the analyser of the "dns" lexer.
//
// aidex patch: set when the registry is filled (goAnalyser, lexers.go);
// upstream sets it in an init function, which filled the registry.
func analyseDNS(text string) float32 {
	if zoneAnalyserRe.FindString(text) != "" {
		return 1.0
	}
	return 0.0
}
