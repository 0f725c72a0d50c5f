package format

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestArgSummary(t *testing.T) {
	cases := []struct {
		name, args, want string
	}{
		{"command first", `{"path":"a.go","command":"go test ./..."}`, "go test ./..."},
		{"path", `{"path":"internal/ui/format/format.go"}`, "internal/ui/format/format.go"},
		{"pattern", `{"pattern":"TODO","glob":"*.go"}`, "TODO"},
		{"source", `{"source":"https://example.org/x"}`, "https://example.org/x"},
		{"url", `{"url":"https://example.org"}`, "https://example.org"},
		{"query", `{"query":"bubble tea"}`, "bubble tea"},
		{"id", `{"id":"T-001"}`, "T-001"},
		{"empty value skipped", `{"command":"","path":"b.go"}`, "b.go"},
		{"non-string skipped", `{"command":3,"path":"c.go"}`, "c.go"},
		{"multi-line cut", `{"command":"echo a\necho b"}`, "echo a …"},
		{"long cut to 80", `{"path":"` + strings.Repeat("p", 90) + `"}`, strings.Repeat("p", 80) + " …"},
		{"no known key", `{"content":"x"}`, ""},
		{"not an object", `["path"]`, ""},
		{"not JSON", `{`, ""},
		{"empty", ``, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, ArgSummary(json.RawMessage(c.args)))
		})
	}
}

func TestFirstLine(t *testing.T) {
	cases := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"short", "hello", 10, "hello"},
		{"trimmed", "  hello \n", 10, "hello"},
		{"exact length", "hello", 5, "hello"},
		{"cut to max", "hello world", 5, "hello …"},
		{"second line dropped", "one\ntwo", 10, "one …"},
		{"both", "a long first line\nsecond", 6, "a long …"},
		{"empty", "", 10, ""},
		{"blank lines around", "\n\nonly\n\n", 10, "only"},
		{"max counts bytes", "héllo", 2, "h\xc3 …"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, FirstLine(c.in, c.max))
		})
	}
}

func TestFormatCost(t *testing.T) {
	cases := []struct {
		usd  float64
		want string
	}{
		{0, "$0"},
		{-1, "$0"},
		{0.0123, "$0.0123"},
		{0.00001, "$0.0000"},
		{0.99994, "$0.9999"},
		{1, "$1.00"},
		{1.2, "$1.20"},
		{123.456, "$123.46"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, FormatCost(c.usd), "%v", c.usd)
	}
}

func TestParseToolMeta(t *testing.T) {
	exit := func(n int) *int { return &n }
	cases := []struct {
		name, raw string
		want      ToolMeta
	}{
		{"empty", ``, ToolMeta{}},
		{"null", `null`, ToolMeta{}},
		{"not JSON", `{`, ToolMeta{}},
		{"diff", `{"diff":"+a\n"}`, ToolMeta{Diff: "+a\n"}},
		{"exit code zero", `{"exit_code":0}`, ToolMeta{ExitCode: exit(0)}},
		{"exit code", `{"exit_code":2,"command":"false"}`, ToolMeta{ExitCode: exit(2)}},
		{"lines", `{"lines":120}`, ToolMeta{Lines: 120}},
		{"wrong type left zero", `{"lines":"many","diff":"d"}`, ToolMeta{Diff: "d"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, ParseToolMeta(json.RawMessage(c.raw)))
		})
	}
}

func TestSpinnerWraps(t *testing.T) {
	if Spinner(0) != "⠋" || Spinner(1) != "⠙" || Spinner(10) != "⠋" || Spinner(-1) != "⠏" {
		t.Errorf("frames: %q %q %q %q", Spinner(0), Spinner(1), Spinner(10), Spinner(-1))
	}
}

func TestProgress(t *testing.T) {
	for _, c := range []struct {
		msg    string
		p, tot float64
		want   string
	}{
		{"indexing", 3, 10, "mcp__s__t: 3/10 indexing"},
		{"", 0.5, 0, "mcp__s__t: 0.5"},
	} {
		if got := Progress("mcp__s__t", c.msg, c.p, c.tot); got != c.want {
			t.Errorf("Progress: got %q, want %q", got, c.want)
		}
	}
}
