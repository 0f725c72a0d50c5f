package tui

import (
	"strings"
	"testing"
)

// Rendered markdown is printed as laid out: a code line wider than the
// terminal keeps its spacing and indentation (wrapping it again would
// re-flow it), while plain output (help, notices) wraps at the width.
func TestPrintsWrapOnlyPlainOutput(t *testing.T) {
	s := newStream(newStyles(false), false, false, 30)
	code := "    if x    == 1 { return aVeryLongIdentifierName }"
	s.text = "```\n" + strings.TrimSpace(code) + "\n```\n\nok\n"
	s.renderText(true)
	s.commit("a plain notice that is longer than thirty cells wide")
	if len(s.printQ) != 2 || !s.printQ[0].laidOut || s.printQ[1].laidOut {
		t.Fatalf("print queue: %+v", s.printQ)
	}
	if got := s.printQ[0].wrapped(30); got != s.printQ[0].text {
		t.Errorf("rendered markdown was re-wrapped:\n%s", got)
	}
	for _, l := range strings.Split(s.printQ[1].wrapped(30), "\n") {
		if len(l) > 30 {
			t.Errorf("plain line %q is wider than 30", l)
		}
	}
}
