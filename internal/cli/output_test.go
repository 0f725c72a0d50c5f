package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/ralph"
)

// hostileArgs carries a window-title change, a cursor move, a line erase
// and a C1 CSI as JSON escapes, the way a model's tool call does.
var hostileArgs = json.RawMessage(`{"command":"ls\u001b]0;pwned\u0007\u001b[1A\u001b[2K\u009b2J"}`)

// noControls fails when s holds a byte a terminal would act on.
func noControls(t *testing.T, what, s string) {
	t.Helper()
	if strings.ContainsAny(s, "\x1b\x07\u009b") {
		t.Errorf("%s holds a terminal control: %q", what, s)
	}
}

// Text-mode -p on a terminal: the progress lines (stderr) and the answer
// (stdout) show escape sequences instead of obeying them; a pipe gets the
// answer byte for byte.
func TestTextOutNeutralisesEscapes(t *testing.T) {
	var out, errb bytes.Buffer
	o := &textOut{out: &out, err: &errb, progress: true, mode: "full", stream: true, ttyOut: true}
	o.event(agent.Event{Type: agent.EventToolCall, ToolCall: &agent.ToolCallInfo{ID: "1", Name: "run_command", Arguments: hostileArgs}})
	o.event(agent.Event{Type: agent.EventToolResult, ToolResult: &agent.ToolResultInfo{ID: "1", OK: true, Output: "x\x1b[2J"}})
	o.event(agent.Event{Type: agent.EventToolResult, ToolResult: &agent.ToolResultInfo{ID: "2", Error: "e\x1b]52;c;Zm9v\x07"}})
	o.event(agent.Event{Type: agent.EventError, Error: &agent.ErrorInfo{Message: "m\x1b[5m"}})
	o.event(agent.Event{Type: agent.EventText, Text: "answer\x1b[8m hidden"})
	if err := o.finish(&agent.DoneInfo{Result: "answer\x1b[8m hidden"}, nil); err != nil {
		t.Fatal(err)
	}
	noControls(t, "progress", errb.String())
	noControls(t, "answer", out.String())
	if !strings.Contains(errb.String(), `→ run_command ls\x1b]0;pwned\x07`) {
		t.Errorf("progress %q", errb.String())
	}

	var piped bytes.Buffer
	p := &textOut{out: &piped, err: &errb, mode: "final"}
	_ = p.finish(&agent.DoneInfo{Result: "raw\x1b[1m"}, nil)
	if piped.String() != "raw\x1b[1m\n" {
		t.Errorf("a pipe gets the answer unchanged: %q", piped.String())
	}
}

// Ralph's progress lines (aidex ralph run, aidex plan) show escape
// sequences of the model, tools and the task list instead of obeying them.
func TestRalphPrinterNeutralisesEscapes(t *testing.T) {
	var out bytes.Buffer
	p := newRalphPrinter(&out, false)
	p.event(ralph.Event{Type: ralph.EventTaskStart, Task: &ralph.Task{ID: "T-1", Title: "fix\x1b]0;x\x07", Priority: "P1", Type: "task"}})
	p.event(ralph.Event{Agent: &agent.Event{Type: agent.EventText, Text: "thinking\x1b[2J"}})
	p.event(ralph.Event{Agent: &agent.Event{Type: agent.EventToolCall, ToolCall: &agent.ToolCallInfo{Name: "run_command", Arguments: hostileArgs}}})
	p.event(ralph.Event{Type: ralph.EventVerify, Verify: &ralph.VerifyInfo{Command: "go test", Result: &ralph.VerifyResult{
		ExitCode: 1, Output: "FAIL\x1b[31m\n\u009b2J", Duration: time.Second}}})
	noControls(t, "ralph progress", out.String())
	if !strings.Contains(out.String(), `fix\x1b]0;x\x07`) {
		t.Errorf("ralph progress %q", out.String())
	}
}

// exitFor: a timeout is exit 1 even when its cause chain holds
// context.Canceled; a plain cancellation is 130.
func TestExitForTimeout(t *testing.T) {
	timeout := &llm.APIError{Kind: llm.KindTimeout, Message: "timed out after 5 s", Err: fmt.Errorf("stopped: %w", context.Canceled)}
	var ee *ExitError
	if err := exitFor(nil, timeout); !errors.As(err, &ee) || ee.Code != ExitFailure || !strings.Contains(err.Error(), "timed out after 5 s") {
		t.Errorf("timeout: %v", err)
	}
	if err := exitFor(nil, context.Canceled); !errors.As(err, &ee) || ee.Code != ExitInterrupted {
		t.Errorf("cancel: %v", err)
	}
}
