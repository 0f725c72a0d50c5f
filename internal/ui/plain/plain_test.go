package plain

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
)

func TestApproverReadsAnswers(t *testing.T) {
	cases := []struct {
		in     string
		want   agent.Answer
		reason string
	}{
		{"y\n", agent.AnswerOnce, ""},
		{"s\n", agent.AnswerSession, ""},
		{"always\n", agent.AnswerAlways, ""},
		{"n use a branch\n", agent.AnswerDeny, "use a branch"},
		{"what\ny\n", agent.AnswerOnce, ""},
		{"", agent.AnswerDeny, "no answer (end of input)"},
	}
	for _, c := range cases {
		var out strings.Builder
		r := New(strings.NewReader(c.in), &out, false)
		d, reason, err := r.Approver().Approve(context.Background(), agent.ApprovalInfo{Tool: "write_file",
			Arguments: json.RawMessage(`{"path":"a.txt"}`), Diff: "--- a/a.txt\n+++ b/a.txt\n+hi\n", Rule: "mode ask"})
		require.NoError(t, err)
		require.Equal(t, c.want, d, c.in)
		require.Equal(t, c.reason, reason)
		require.Contains(t, out.String(), "? write_file a.txt")
		require.Contains(t, out.String(), "+hi")
		require.Contains(t, out.String(), "Allow? [y]es/[s]ession/[a]lways/[n]o")
		require.NotContains(t, out.String(), "\x1b[", "no colours when off")
	}
}

func TestPrinterToolLines(t *testing.T) {
	var out strings.Builder
	p := &Printer{Out: &out}
	p.Event(agent.Event{Type: agent.EventText, Text: "Looking"})
	p.Event(agent.Event{Type: agent.EventToolCall, ToolCall: &agent.ToolCallInfo{Name: "read_file", Arguments: json.RawMessage(`{"path":"utils.go"}`)}})
	p.Event(agent.Event{Type: agent.EventToolResult, ToolResult: &agent.ToolResultInfo{OK: true, Output: "x", Meta: json.RawMessage(`{"lines":120}`)}})
	require.Equal(t, "Looking\n→ read_file utils.go\n  ✓ 120 lines\n", out.String())
}

// Escape sequences a model or a tool sends are shown, not obeyed, in every
// line the line mode prints: the progress line of a tool call (arguments
// are JSON, where ESC travels as \u001b), a diff, a result, an approval.
func TestPrinterNeutralisesEscapes(t *testing.T) {
	var out strings.Builder
	p := &Printer{Out: &out}
	args := json.RawMessage(`{"command":"echo hi\u001b]0;pwned\u0007\u001b[1A\u001b[2K\u009b2J"}`)
	p.Event(agent.Event{Type: agent.EventText, Text: "text\x1b[2J"})
	p.Event(agent.Event{Type: agent.EventToolCall, ToolCall: &agent.ToolCallInfo{Name: "run_command", Arguments: args}})
	p.Event(agent.Event{Type: agent.EventToolResult, ToolResult: &agent.ToolResultInfo{OK: true,
		Meta: json.RawMessage(`{"diff":"--- a/f\n+++ b/f\n+\u001b[31mred\u001b]52;c;Zm9v\u0007\n"}`)}})
	p.Event(agent.Event{Type: agent.EventToolResult, ToolResult: &agent.ToolResultInfo{Error: "bad\x1b[?1049h"}})
	r := New(strings.NewReader("n\n"), &out, false)
	r.Printer = p
	_, _, err := r.Approver().Approve(context.Background(), agent.ApprovalInfo{Tool: "run_command", Arguments: args})
	require.NoError(t, err)
	require.NotContains(t, out.String(), "\x1b")
	require.NotContains(t, out.String(), "\x07")
	require.NotContains(t, out.String(), "\u009b")
	require.Contains(t, out.String(), `→ run_command echo hi\x1b]0;pwned\x07\x1b[1A\x1b[2K\x9b2J`)
	require.Contains(t, out.String(), `+\x1b[31mred\x1b]52;c;Zm9v\x07`)
}

// TestApprovalNamesTheRule: the line-mode prompt names the exact rule
// "always" saves, or says that none is saved.
func TestApprovalNamesTheRule(t *testing.T) {
	for rule, want := range map[string]string{
		"run_command(sed -i *)": "[s]ession and [a]lways allow run_command(sed -i *)",
		"":                      "save no rule for this call",
	} {
		var out strings.Builder
		r := New(strings.NewReader("a\n"), &out, false)
		_, _, err := r.Approver().Approve(context.Background(), agent.ApprovalInfo{Tool: "run_command",
			Command: "sed -i 's/a/b/' f.go", Rule: "mode ask", Suggested: rule})
		require.NoError(t, err)
		require.Contains(t, out.String(), want)
	}
}

// The offer to run a command again without the sandbox says why the
// sandbox stopped it and what the rerun may do.
func TestApproverShowsSandboxReason(t *testing.T) {
	var out strings.Builder
	r := New(strings.NewReader("y\n"), &out, false)
	reason := "the sandbox stopped this command (a write outside the writable folders: /etc/x); run it again without the sandbox?"
	d, _, err := r.Approver().Approve(context.Background(), agent.ApprovalInfo{Tool: "run_command", Command: "touch /etc/x",
		Rule: agent.RuleSandbox, Reason: reason})
	require.NoError(t, err)
	require.Equal(t, agent.AnswerOnce, d)
	require.Contains(t, out.String(), "? run_command: touch /etc/x\n  "+reason+"\n")
}

// An MCP tool's progress prints as a line between its call and its result;
// a server's escape sequences are shown, not obeyed.
func TestPrinterProgress(t *testing.T) {
	var out strings.Builder
	p := &Printer{Out: &out}
	p.Event(agent.Event{Type: agent.EventToolCall, ToolCall: &agent.ToolCallInfo{Name: "mcp__s__index", Arguments: json.RawMessage(`{}`)}})
	p.Event(agent.Event{Type: agent.EventProgress, Progress: &agent.ProgressInfo{Tool: "mcp__s__index", Message: "files\x1b[2J", Progress: 3, Total: 10}})
	p.Event(agent.Event{Type: agent.EventToolResult, ToolResult: &agent.ToolResultInfo{OK: true, Output: "done"}})
	require.Contains(t, out.String(), "→ mcp__s__index \n  … mcp__s__index: 3/10 files")
	require.NotContains(t, out.String(), "\x1b[2J")
}

// Thinking is shown as it streams (issue 36 item 8): a "thinking…" line
// as soon as reasoning arrives, ended with its length when the answer
// starts; in full with /verbose.
func TestPrinterShowsThinking(t *testing.T) {
	var out strings.Builder
	p := &Printer{Out: &out}
	p.Event(agent.Event{Type: agent.EventReasoning, Text: "the user wants"})
	require.Equal(t, "✻ thinking…", out.String(), "shown before the answer")
	p.Event(agent.Event{Type: agent.EventReasoning, Text: " a greeting"})
	p.Event(agent.Event{Type: agent.EventText, Text: "Hello"})
	require.Equal(t, "✻ thinking… 5 words (/verbose shows the reasoning)\nHello", out.String())

	out.Reset()
	p = &Printer{Out: &out, Verbose: true}
	p.Event(agent.Event{Type: agent.EventReasoning, Text: "the user wants"})
	p.Event(agent.Event{Type: agent.EventText, Text: "Hello"})
	require.Equal(t, "thinking: the user wants\nHello", out.String())
}
