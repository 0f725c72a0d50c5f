package tui

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// sgr matches the SGR (style) escape sequences of rendered text.
var sgr = regexp.MustCompile(`\x1b\[([0-9;]*)m`)

func TestNoColorMarkdownIsRenderedWithoutColour(t *testing.T) {
	var md mdRenderer
	out := md.render("# Plan\n\nSome **bold**, *italic* and ~~old~~ text.\n", 60, newStream(newStyles(false), false, false, 60).mdStyle)
	require.NotContains(t, out, "**", "strong text is rendered, not shown raw")
	require.NotContains(t, out, "*italic*")
	require.Contains(t, out, "\x1b[1mbold")
	require.Contains(t, out, "\x1b[3mitalic")
	for _, m := range sgr.FindAllStringSubmatch(out, -1) {
		for _, p := range strings.Split(m[1], ";") {
			require.Contains(t, []string{"", "0", "1", "3", "9"}, p, "no colour codes: %q", m[0])
		}
	}
}

func TestNoColorAnswerInTheUI(t *testing.T) {
	h := newHarness(t, llmtest.Turn{Text: "The answer is **42**."})
	h.tm.Type("what is it?")
	h.tm.Send(enter())
	var seen []byte
	teatest.WaitFor(t, h.tm.Output(), func(b []byte) bool {
		seen = b
		return bytes.Contains(b, []byte("42"))
	}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	require.NoError(t, h.tm.Quit())
	require.NotContains(t, string(seen), "**42**")
}
