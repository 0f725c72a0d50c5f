package tui_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// saveCapture writes text to $AIDEX_E2E_CAPTURES/name when that variable
// names a directory (captures for a review; nothing is written otherwise).
func saveCapture(t *testing.T, name, text string) {
	if dir := os.Getenv("AIDEX_E2E_CAPTURES"); dir != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
}

// captureOnFailure saves the whole scrollback as name when the test
// fails (see saveCapture).
func captureOnFailure(t *testing.T, e *e2e, name string) {
	t.Cleanup(func() {
		if t.Failed() {
			saveCapture(t, name, e.scrollback())
		}
	})
}

// requireFrameAfterTallOutput checks the whole scrollback after output
// taller than the screen: the input frame (rule, › prompt, status line)
// is drawn at the bottom, no copy of an older frame (its spinner line)
// is left in the scrollback and no run of blank rows is either.
func requireFrameAfterTallOutput(t *testing.T, e *e2e, what string) {
	t.Helper()
	if os.Getenv("AIDEX_E2E_CAPTURES") != "" {
		defer func() { saveCapture(t, fmt.Sprintf("item5-%s-%dx%d.txt", what, e.cols, e.rows), e.scrollback()) }()
	}
	var all string
	e.poll("the input frame at the end after "+what, func() bool {
		all = e.scrollback()
		lines := strings.Split(strings.TrimRight(all, "\n "), "\n")
		return len(lines) >= 3 && strings.Contains(lines[len(lines)-3], "───") && strings.HasPrefix(lines[len(lines)-2], "› Ask anything") &&
			!strings.Contains(lines[len(lines)-1], spinnerMark) // the run has ended
	})
	require.Equal(t, 1, strings.Count(all, "› Ask anything"), "one input frame in the whole scrollback, no stale copy")
	require.NotContains(t, all, spinnerMark, "a stale frame (the running spinner line) is left in the scrollback")
	lines := strings.Split(strings.TrimRight(all, "\n "), "\n")
	blank, worst := 0, 0
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			blank++
			worst = max(worst, blank)
		} else {
			blank = 0
		}
	}
	require.LessOrEqual(t, worst, 2, "a run of %d blank rows in the scrollback", worst)
	last := lines[len(lines)-3:]
	require.Contains(t, last[0], "───", "the rule above the prompt")
	require.True(t, strings.HasPrefix(last[1], "› "), "the prompt: %q", last[1])
	require.Contains(t, last[2], "fake/scripted-a", "the status line")
}

// spinnerMark is what the running status line shows (status.go) and no
// start-up tip does: one tip of the day also says "Esc stops".
const spinnerMark = " · Esc stops · "

// Output taller than the screen — a long answer, /help, a -c replay —
// keeps the inline input frame, at three terminal sizes, with the whole
// scrollback checked (issue 30, item 5).
func TestE2ETallOutputKeepsTheFrame(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "Paragraph %d of a long answer.\n\n", i)
	}
	long := b.String()
	for _, size := range [][2]int{{110, 32}, {80, 24}, {50, 12}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			script := llmtest.NewScript(t, llmtest.Turn{Text: long})
			e := start(t, script, "")
			e.cols, e.rows = size[0], size[1]
			e.launch()
			e.waitFor("fake/scripted-a")
			e.typeLine("a long answer please")
			e.waitFor("Paragraph 40 of a long answer.")
			requireFrameAfterTallOutput(t, e, "answer")

			e.typeLine("/help")
			e.waitFor("Ctrl+L")
			requireFrameAfterTallOutput(t, e, "help")

			e.typeLine("/exit")
			e.waitFor("EXIT=0")
			e.launch("-c")
			e.waitFor("resumed session")
			requireFrameAfterTallOutput(t, e, "resume")
		})
	}
}
