// Package format holds the small text helpers every front end shares
// (the TUI, the line mode and the CLI's one-shot output): a tool call's
// key argument, a first line cut to a length, a cost in US dollars, the
// part of a tool result's metadata that front ends show, and the line
// shown while a model reads a request ([Waiting]). It imports
// no front end, so front ends can use it without importing each other.
package format

import (
	"encoding/json"
	"fmt"
	"strings"
)

// argKeys are the tool arguments ArgSummary looks for, in order.
var argKeys = []string{"command", "path", "pattern", "source", "url", "query", "id"}

// ArgSummary shows a tool call's key argument compactly. args is the
// call's JSON arguments object; the result is the first non-empty string
// value of "command", "path", "pattern", "source", "url", "query" or "id"
// (in that order), cut with [FirstLine] to 80 bytes, or "" when args is
// not a JSON object or has none of them.
func ArgSummary(args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	for _, k := range argKeys {
		if v, ok := m[k].(string); ok && v != "" {
			return FirstLine(v, 80)
		}
	}
	return ""
}

// FirstLine returns the first line of s (after trimming surrounding white
// space), cut to at most max bytes, with " …" appended when anything was
// dropped (further lines or bytes past max). max counts bytes, not
// runes or display cells, so a cut may split a multi-byte character.
func FirstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	cut := false
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s, cut = s[:i], true
	}
	if len(s) > max {
		s, cut = s[:max], true
	}
	if cut {
		s += " …"
	}
	return s
}

// FormatCost formats a cost given in US dollars: "$0" for zero or less,
// four decimals under a dollar ("$0.0123"), two from a dollar on
// ("$1.20").
func FormatCost(usd float64) string {
	switch {
	case usd <= 0:
		return "$0"
	case usd < 1:
		return fmt.Sprintf("$%.4f", usd)
	}
	return fmt.Sprintf("$%.2f", usd)
}

// ToolMeta is the part of a tool result's metadata (agent.ToolResultInfo's
// Meta, a JSON object) that front ends show: Diff is a unified diff of
// the change an edit made ("" for none), ExitCode a command's exit status
// (nil when the tool ran no command) and Lines the number of lines a read
// returned (0 when not reported).
type ToolMeta struct {
	Diff     string `json:"diff"`
	ExitCode *int   `json:"exit_code"`
	Lines    int    `json:"lines"`
}

// ParseToolMeta decodes a tool result's metadata. Missing, empty or
// malformed (not JSON) metadata gives the zero ToolMeta; a field of the
// wrong JSON type is left zero and the others are kept.
func ParseToolMeta(raw json.RawMessage) ToolMeta {
	var m ToolMeta
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &m)
	}
	return m
}
