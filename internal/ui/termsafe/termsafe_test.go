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
		Approval:   &agent.ApprovalInfo{Command: esc, Diff: esc, Reason: esc, Subagent: esc},
		Error:      &agent.ErrorInfo{Message: esc},
		Done:       &agent.DoneInfo{Result: esc},
		Todos:      []agent.Todo{{Content: esc, Status: "pending"}},
		Waiting:    &agent.WaitingInfo{Provider: esc, Model: "m" + esc},
		Subagent:   "reviewer: " + esc,
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

// Front ends decode tool arguments and metadata before printing them (the
// command of a progress line, a diff): escapes JSON carries as \u001b, or
// DEL and C1 controls as raw characters, must not survive the decoding.
func TestEventCleansDecodedJSON(t *testing.T) {
	args := json.RawMessage(`{"command":"echo \u001b]0;pwned\u0007 \u001b[2J", "nested": ["\u009b31m", {"k\u001b": "\u007f"}], "n": 1.50}`)
	meta := json.RawMessage("{\"diff\":\"+\\u001b[1A\\u001b[2Kapproved\\n\",\"raw\":\"\u009b2J\"}")
	e := Event(agent.Event{
		Type:       agent.EventToolCall,
		ToolCall:   &agent.ToolCallInfo{Name: "run_command", Arguments: args},
		ToolResult: &agent.ToolResultInfo{Meta: meta},
		Approval:   &agent.ApprovalInfo{Arguments: args},
	})
	for name, raw := range map[string]json.RawMessage{"arguments": e.ToolCall.Arguments, "meta": e.ToolResult.Meta, "approval": e.Approval.Arguments} {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: %v in %s", name, err, raw)
		}
		decoded, _ := json.Marshal(v) // Go escapes C0 controls; C1 and DEL stay raw
		if strings.Contains(string(decoded), `\u001b`) || strings.ContainsAny(fmtAny(v), "\x1b\x07\x7f\u009b") {
			t.Errorf("%s: a control survived decoding: %s", name, raw)
		}
	}
	var got struct{ Command string }
	_ = json.Unmarshal(e.ToolCall.Arguments, &got)
	if got.Command != `echo \x1b]0;pwned\x07 \x1b[2J` {
		t.Errorf("command %q", got.Command)
	}
	if !strings.Contains(string(e.ToolCall.Arguments), `"n":1.50`) {
		t.Errorf("numbers are kept as written: %s", e.ToolCall.Arguments)
	}
	clean := json.RawMessage(`{"path":"a.go","content":"ünï"}`)
	if out := cleanJSON(clean); &out[0] != &clean[0] {
		t.Error("clean JSON was copied")
	}
}

// fmtAny concatenates every string (keys too) of a decoded JSON value.
func fmtAny(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var b strings.Builder
		for _, e := range x {
			b.WriteString(fmtAny(e))
		}
		return b.String()
	case map[string]any:
		var b strings.Builder
		for k, e := range x {
			b.WriteString(k + fmtAny(e))
		}
		return b.String()
	}
	return ""
}
