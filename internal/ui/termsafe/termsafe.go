// Package termsafe makes untrusted text safe to print on a terminal. Model
// answers, tool output, file contents and command lines may carry escape
// sequences that retitle the window, clear the screen, move the cursor to
// paint fake "approved" text, or write to the clipboard (attack case E-126).
// Front ends pass every event through [Event] before rendering it.
package termsafe

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/ctrlchar"
)

// unsafe reports whether r is a control character a terminal acts on: C0
// controls other than newline and tab, DEL, and C1 controls.
func unsafe(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0)
}

// Clean replaces terminal control characters in s with visible escapes
// (ESC becomes `\x1b`, BEL `\x07`); newlines and tabs are kept, and a
// carriage return before a newline is dropped, and invalid UTF-8 bytes
// (a raw 0x9b is CSI on 8-bit terminals) become U+FFFD. Valid text without
// controls is returned unchanged (no allocation).
func Clean(s string) string {
	if strings.IndexFunc(s, unsafe) < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i, r := range s {
		switch {
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			continue
		case r == utf8.RuneError:
			b.WriteRune(r)
		case unsafe(r):
			ctrlchar.WriteHex(&b, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// cleanJSON cleans the strings inside a JSON value. Front ends decode
// arguments and metadata before printing them (the command of a tool call,
// a diff), and JSON carries controls as escapes ("\u001b") or, for DEL and
// C1 controls, as raw characters: so every string (keys too) is decoded,
// cleaned and encoded again. Invalid JSON is cleaned as text. A value
// without escapes or controls is returned unchanged (no allocation).
func cleanJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	if !json.Valid(raw) {
		return json.RawMessage(Clean(string(raw)))
	}
	if !bytes.Contains(raw, []byte(`\u`)) && Clean(string(raw)) == string(raw) {
		return raw
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return json.RawMessage(Clean(string(raw)))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(cleanValue(v)) != nil {
		return json.RawMessage(Clean(string(raw)))
	}
	return json.RawMessage(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// cleanValue returns a decoded JSON value with every string cleaned.
func cleanValue(v any) any {
	switch x := v.(type) {
	case string:
		return Clean(x)
	case []any:
		for i := range x {
			x[i] = cleanValue(x[i])
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[Clean(k)] = cleanValue(e)
		}
		return out
	}
	return v
}

// Event returns e with every text field a front end prints cleaned: text
// and reasoning deltas, tool arguments, results, diffs and metadata,
// approval commands and diffs, errors, todos and the waiting model. e
// itself is not changed.
func Event(e agent.Event) agent.Event {
	e.Text, e.Subagent = Clean(e.Text), Clean(e.Subagent)
	if w := e.Waiting; w != nil {
		ww := *w
		ww.Provider, ww.Model = Clean(ww.Provider), Clean(ww.Model)
		e.Waiting = &ww
	}
	if c := e.ToolCall; c != nil {
		cc := *c
		cc.Name, cc.Arguments = Clean(cc.Name), cleanJSON(cc.Arguments)
		e.ToolCall = &cc
	}
	if r := e.ToolResult; r != nil {
		rr := *r
		rr.Name, rr.Output, rr.Error, rr.Meta = Clean(rr.Name), Clean(rr.Output), Clean(rr.Error), cleanJSON(rr.Meta)
		e.ToolResult = &rr
	}
	if pr := e.Progress; pr != nil {
		pp := *pr
		pp.Tool, pp.Message = Clean(pp.Tool), Clean(pp.Message)
		e.Progress = &pp
	}
	if a := e.Approval; a != nil {
		aa := Approval(*a)
		e.Approval = &aa
	}
	if er := e.Error; er != nil {
		ee := *er
		ee.Message = Clean(ee.Message)
		e.Error = &ee
	}
	if d := e.Done; d != nil {
		dd := *d
		dd.Result = Clean(dd.Result)
		e.Done = &dd
	}
	if len(e.Todos) > 0 {
		todos := make([]agent.Todo, len(e.Todos))
		for i, t := range e.Todos {
			todos[i] = agent.Todo{Content: Clean(t.Content), Status: Clean(t.Status)}
		}
		e.Todos = todos
	}
	return e
}

// Approval returns a with its printed fields cleaned (tool, command, diff,
// reason, rule, arguments).
func Approval(a agent.ApprovalInfo) agent.ApprovalInfo {
	a.Tool, a.Command, a.Diff, a.Reason, a.Rule = Clean(a.Tool), Clean(a.Command), Clean(a.Diff), Clean(a.Reason), Clean(a.Rule)
	a.Suggested, a.Subagent = Clean(a.Suggested), Clean(a.Subagent)
	a.Arguments = cleanJSON(a.Arguments)
	return a
}

// writer cleans every write (see Writer).
type writer struct{ w io.Writer }

// Writer returns a writer that passes each write through Clean to w: for
// printers made only of text from elsewhere (no colours of their own),
// such as progress lines of a model's work. Each write must hold whole
// characters (as fmt.Fprint's do). It reports len(p) written on success.
func Writer(w io.Writer) io.Writer { return writer{w} }

func (c writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(c.w, Clean(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
