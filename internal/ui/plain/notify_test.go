package plain

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

func TestLineModeRingsOnApprovalAndLongRun(t *testing.T) {
	out, _ := runREPLWith(t, "write a\ny\n", func(r *REPL, env map[string]string) {
		r.Terminal, r.NotifyAfter = true, time.Nanosecond
		env["TERM"] = "foot"
	},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"a.txt","content":"A\n"}`}}},
		llmtest.Turn{Text: "written"})
	approval := "\x1b]777;notify;aidex;approval needed: write_file\a"
	require.Contains(t, out, approval)
	require.Less(t, strings.Index(out, approval), strings.Index(out, "Allow? [y]es"), "the bell comes with the question")
	require.Contains(t, out, "\x1b]777;notify;aidex;finished after 0s; waiting for you\a")
}

func TestLineModeNotifyAutoOnlyOnATerminal(t *testing.T) {
	turns := []llmtest.Turn{
		{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"a.txt","content":"A\n"}`}}},
		{Text: "written"}}
	out, _ := runREPLWith(t, "write a\ny\n", func(r *REPL, env map[string]string) {
		r.Terminal, r.NotifyAfter = false, time.Nanosecond
	}, turns...)
	require.NotContains(t, out, "\a", "auto never rings a pipe or a log")

	out, _ = runREPLWith(t, "write a\ny\n", func(r *REPL, env map[string]string) {
		r.Terminal, r.NotifyAfter = true, time.Hour
		env["AIDEX_NOTIFY"] = "bell"
	}, turns...)
	require.Equal(t, 1, strings.Count(out, "\a"), "the approval rings; a short run's end does not")

	out, _ = runREPLWith(t, "write a\ny\n", func(r *REPL, env map[string]string) {
		r.Terminal, r.NotifyAfter = true, time.Nanosecond
		env["AIDEX_NOTIFY"] = "off"
	}, turns...)
	require.NotContains(t, out, "\a")
}
