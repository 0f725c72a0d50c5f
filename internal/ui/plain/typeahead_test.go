package plain

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/sharedtest"
)

// gateCall is a shell tool call that runs until the file "release"
// exists in the workspace.
var gateCall = llmtest.Call{Name: "run_command", Args: `{"command":"while [ ! -e release ]; do sleep 0.05; done"}`}

// typist types into a REPL set up for type-ahead (as on a terminal),
// waiting for the output before each step.
type typist struct {
	t   *testing.T
	r   *REPL
	w   *io.PipeWriter
	out *sharedtest.Buffer
}

// typeAhead sets r up to read from a pipe with type-ahead on and runs
// script with a typist in its own goroutine.
func typeAhead(t *testing.T, env map[string]string, script func(tp *typist)) func(r *REPL, env map[string]string) {
	return func(r *REPL, e map[string]string) {
		for k, v := range env {
			e[k] = v
		}
		pr, pw := io.Pipe()
		r.in.Reset(pr)
		r.TypeAhead = true
		tp := &typist{t: t, r: r, w: pw, out: r.Printer.Out.(*sharedtest.Buffer)}
		go func() {
			defer pw.Close()
			script(tp)
		}()
	}
}

func (tp *typist) line(s string) { _, _ = io.WriteString(tp.w, s+"\n") }

// wait polls the output until it holds s (at most 20 s).
func (tp *typist) wait(s string) bool {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(tp.out.String(), s) {
			return true
		}
	}
	tp.t.Errorf("timed out waiting for %q", s)
	return false
}

func TestLineModeQueuesLinesTypedDuringARun(t *testing.T) {
	out, ctrl := runREPLWith(t, "", typeAhead(t, map[string]string{"AIDEX_PERMISSION_MODE": "yolo"}, func(tp *typist) {
		tp.line("wait for the release")
		if !tp.wait("→ run_command") {
			return
		}
		tp.line("second message")
		tp.line("/exit")
		if !tp.wait("queued: /exit") {
			return
		}
		_ = os.WriteFile(filepath.Join(tp.r.Workspace, "release"), nil, 0o600)
	}),
		llmtest.Turn{Calls: []llmtest.Call{gateCall}},
		llmtest.Turn{Text: "first answer"},
		llmtest.Turn{Text: "second answer"})
	require.Contains(t, out, "queued: second message (sent when the run ends; Ctrl+C drops it)")
	first, second := strings.Index(out, "first answer"), strings.Index(out, "> second message\n")
	require.True(t, first >= 0 && second > first, "the queued line runs after the run, echoed at the prompt:\n%s", out)
	require.Greater(t, strings.Index(out, "second answer"), second)
	require.Equal(t, "second answer", ctrl.LastAnswer())
}

func TestLineModeTypeAheadLeavesApprovalsTheirAnswer(t *testing.T) {
	out, _ := runREPLWith(t, "", typeAhead(t, nil, func(tp *typist) {
		tp.line("write a")
		if !tp.wait("Allow? [y]es") {
			return
		}
		tp.line("y")
		tp.wait("written")
	}),
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"a.txt","content":"A\n"}`}}},
		llmtest.Turn{Text: "written"})
	require.NotContains(t, out, "queued:")
	require.Contains(t, out, "✓")
}
