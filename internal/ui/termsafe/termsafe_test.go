package termsafe

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zelvior/aidex/internal/agent"
)

func TestClean(t *testing.T) {
	cases := map[string]string{
		"plain text\nwith\ttabs":              "plain text\nwith\ttabs",
		"\x1b]0;title\x07\x1b[2J\x1b[1A fake": `\x1b]0;title\x07\x1b[2J\x1b[1A fake`,
		"windows\r\nline":                     "windows\nline",
		"bare\rreturn":                        `bare\x0dreturn`,
		"c1 \u009b31m":                        `c1 \x9b31m`,
		"del\x7f":                             `del\x7f`,
		"ünïcödé ✓":                           "ünïcödé ✓",
	}
	for in, want := range cases {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEventCleansEveryPrintedField(t *testing.T) {
	esc := "\x1b[2J"
	e := agent.Event{
		Type:       agent.EventToolResult,
		Text:       esc,
		ToolCall:   &agent.ToolCallInfo{Name: "x" + esc, Arguments: json.RawMessage(`{"a":"b"}`)},
		ToolResult: &agent.ToolResultInfo{Output: esc, Error: esc, Meta: json.RawMessage(`{"diff":"+x"}`)},
		Approval:   &agent.ApprovalInfo{Command: esc, Diff: esc, Reason: esc},
		Error:      &agent.ErrorInfo{Message: esc},
		Done:       &agent.DoneInfo{Result: esc},
		Todos:      []agent.Todo{{Content: esc, Status: "pending"}},
	}
	out := Event(e)
	b, _ := json.Marshal(out)
	if strings.Contains(string(b), `\u001b`) {
		t.Fatalf("an escape survived: %s", b)
	}
	if e.ToolResult.Output != esc {
		t.Error("Event changed its argument")
	}
}

func FuzzClean(f *testing.F) {
	f.Add("\x1b[31mred\x1b[0m\r\n")
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		if !utf8.ValidString(out) || strings.IndexFunc(out, unsafe) >= 0 {
			t.Fatalf("control or invalid byte left in %q", out)
		}
	})
}
