//go:build unix

package plain

import (
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

func TestLineModeCtrlCDropsQueueThenStops(t *testing.T) {
	interrupt := func() { _ = syscall.Kill(syscall.Getpid(), syscall.SIGINT) }
	out, ctrl := runREPLWith(t, "", typeAhead(t, map[string]string{"AIDEX_PERMISSION_MODE": "yolo"}, func(tp *typist) {
		tp.line("wait for the release")
		if !tp.wait("→ run_command") {
			return
		}
		tp.line("second message")
		if !tp.wait("queued: second message") {
			return
		}
		interrupt()
		if !tp.wait("(dropped 1 queued message; Ctrl+C again stops the model)") {
			return
		}
		interrupt()
		if !tp.wait("(stopped; the partial answer is kept)") {
			return
		}
		tp.line("/exit")
	}),
		llmtest.Turn{Calls: []llmtest.Call{gateCall}},
		llmtest.Turn{Text: "never"})
	require.NotContains(t, out, "> second message")
	for _, m := range ctrl.Session().Messages {
		require.NotContains(t, m.Text(), "second message", "a dropped line is never sent")
	}
	require.False(t, strings.Contains(out, "never"))
}
