package frontmatter

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// field is what a test expects of one key: its line, Text and List.
type field struct {
	line int
	text string
	list []string
}

func TestParse(t *testing.T) {
	cases := []struct {
		name   string
		in     string
		want   map[string]field
		body   string
		warns  int
		noYAML bool // the fallback read it
	}{
		{name: "plain YAML, CRLF, BOM, unknown key kept",
			in: "\xef\xbb\xbf---\r\ndescription: Review a file\r\nargument-hint: <path>\r\nallowed-tools: [Read, Grep]\r\nunknown: 1\r\n---\r\nReview $ARGUMENTS\n",
			want: map[string]field{"description": {2, "Review a file", []string{"Review a file"}}, "argument-hint": {3, "<path>", []string{"<path>"}},
				"allowed-tools": {4, "[Read, Grep]", []string{"Read", "Grep"}}, "unknown": {5, "1", []string{"1"}}},
			body: "Review $ARGUMENTS\n"},
		{name: "argument-hint [name] is the string written",
			in:   "---\ndescription: Implement the plan\nargument-hint: [path-to-plan]\n---\nbody",
			want: map[string]field{"description": {2, "Implement the plan", nil}, "argument-hint": {3, "[path-to-plan]", []string{"path-to-plan"}}}, body: "body"},
		{name: "quoted values",
			in:   "---\ndescription: \"Comprehensive PR review\"\nargument-hint: \"[review-aspects]\"\nallowed-tools: [\"Bash\", \"Glob\"]\n---\n",
			want: map[string]field{"description": {2, "Comprehensive PR review", nil}, "argument-hint": {3, "[review-aspects]", nil}, "allowed-tools": {4, "[\"Bash\", \"Glob\"]", []string{"Bash", "Glob"}}}},
		{name: "unquoted colon in a value",
			in:     "---\nname: conversation-analyzer\ndescription: Use this agent when analyzing. Examples: <example>Context: x\\nuser: \"/hookify\"</example>\nmodel: inherit\ntools: [\"Read\", \"Grep\"]\n---\nBody\n",
			noYAML: true,
			want: map[string]field{"name": {2, "conversation-analyzer", nil}, "model": {4, "inherit", nil},
				"description": {3, `Use this agent when analyzing. Examples: <example>Context: x\nuser: "/hookify"</example>`, nil},
				"tools":       {5, `["Read", "Grep"]`, []string{"Read", "Grep"}}},
			body: "Body\n"},
		{name: "multi-line description with example blocks and unindented lines",
			in:     "---\nname: agent-creator\ndescription: Use this agent when the user asks to \"create an agent\". Examples:\n\n<example>\nContext: User wants an agent\nuser: \"Create an agent\"\nassistant: \"I'll use it.\"\n<commentary>\nUser asks.\n</commentary>\n</example>\n\nmodel: sonnet\ncolor: magenta\ntools: [\"Write\", \"Read\"]\n---\n\nYou are an architect.\n",
			noYAML: true,
			want: map[string]field{"name": {2, "agent-creator", nil}, "model": {14, "sonnet", nil}, "color": {15, "magenta", nil},
				"tools":       {16, `["Write", "Read"]`, []string{"Write", "Read"}},
				"description": {3, "Use this agent when the user asks to \"create an agent\". Examples:\n\n<example>\nContext: User wants an agent\nuser: \"Create an agent\"\nassistant: \"I'll use it.\"\n<commentary>\nUser asks.\n</commentary>\n</example>", nil}},
			body: "\nYou are an architect.\n"},
		{name: "a continuation line that looks like a key right after the first line",
			in:     "---\nname: code-simplifier\ndescription: Use this agent after coding. Examples: <example>\nContext: The assistant has implemented a feature.\nuser: \"Please add auth\"\n<commentary>\nWhy.\n</commentary>\nassistant: \"Now I will\"\n</example>\n\nnote: more\nmodel: opus\n---\nB",
			noYAML: true,
			want: map[string]field{"name": {2, "code-simplifier", nil}, "model": {13, "opus", nil},
				"description": {3, "Use this agent after coding. Examples: <example>\nContext: The assistant has implemented a feature.\nuser: \"Please add auth\"\n<commentary>\nWhy.\n</commentary>\nassistant: \"Now I will\"\n</example>\n\nnote: more", nil}},
			body: "B"},
		{name: "fallback reads dash lists and block scalars",
			in:     "---\ndescription: a: b\ntools:\n  - Read\n  - \"Grep\"\nnotes: |\n  one\n    two\nfolded: >\n  a\n  b\n---\n",
			noYAML: true,
			want: map[string]field{"description": {2, "a: b", nil}, "tools": {3, "Read, Grep", []string{"Read", "Grep"}},
				"notes": {6, "one\n  two", nil}, "folded": {9, "a b", nil}}},
		{name: "no front matter", in: "just text\n---\n", want: map[string]field{}, body: "just text\n---\n"},
		{name: "never closed: all body, a warning", in: "---\ndescription: x\n", want: map[string]field{}, body: "---\ndescription: x\n", warns: 1},
		{name: "empty front matter", in: "---\n---\nbody", want: map[string]field{}, body: "body"},
		{name: "fences with trailing spaces", in: "--- \nname: x\n---  \nbody", want: map[string]field{"name": {2, "x", nil}}, body: "body"},
		{name: "a stray line in the fallback is a warning",
			in: "---\n: nothing\nname: x: y\n---\n", noYAML: true, want: map[string]field{"name": {3, "x: y", nil}}, warns: 1},
		{name: "a YAML comment in the fallback", in: "---\nname: a # the name\ndescription: b: c\n---\n", noYAML: true,
			want: map[string]field{"name": {2, "a", nil}, "description": {3, "b: c", nil}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, warns := Parse([]byte(c.in))
			require.Len(t, warns, c.warns, "warnings %v", warns)
			require.Len(t, doc.Fields, len(c.want), "fields %+v", doc.Fields)
			for key, w := range c.want {
				f, ok := doc.Get(key)
				require.True(t, ok, key)
				require.Equal(t, w.line, f.Line, key)
				require.Equal(t, w.text, f.Text, key)
				if w.list != nil {
					require.Equal(t, w.list, f.List(), key)
				}
				require.Equal(t, c.noYAML, f.Node == nil, "%s: read by the fallback", key)
			}
			require.Equal(t, c.body, doc.Body)
		})
	}
}

func TestUnknownKeysNameTheirLine(t *testing.T) {
	doc, _ := Parse([]byte("---\nname: a\ncolor: red\nfrobnicate: yes\n---\n"))
	w := doc.Unknown([]string{"name"}, []string{"color"})
	require.Equal(t, []Warning{{Line: 4, Message: `unknown front matter key "frobnicate" is ignored`}}, w)
}

func TestSplitList(t *testing.T) {
	require.Equal(t, []string{"Bash(git add:*, x)", "Read"}, SplitList(" Bash(git add:*, x), ,Read "))
	require.Nil(t, SplitList(""))
}

// FuzzParse: any input parses in bounded time without a panic; fields
// have lines inside the front matter, keys are non-empty, and the body is
// a suffix of the input.
func FuzzParse(f *testing.F) {
	f.Add([]byte("---\na: b\n---\nbody"))
	f.Add([]byte("---\n"))
	f.Add([]byte("\xef\xbb\xbf---\r\n---\r\n"))
	f.Add([]byte("---\ndescription: a: b\n\n<example>\nuser: x\n</example>\nmodel: m\n---\n"))
	f.Add([]byte("---\ntools:\n  - a\nnotes: |\n  x\n---\n"))
	f.Add([]byte("---\nargument-hint: [x]\na: &x [1]\nb: *x\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, _ := Parse(data)
		if !strings.HasSuffix(string(data), doc.Body) {
			t.Fatalf("body %q is not a suffix of the input", doc.Body)
		}
		lines := strings.Count(string(data), "\n") + 1
		for _, fl := range doc.Fields {
			if fl.Key == "" || fl.Line < 2 || fl.Line > lines {
				t.Fatalf("field %+v out of the front matter (%d lines)", fl, lines)
			}
			_ = fl.List()
			if utf8.ValidString(string(data)) && !utf8.ValidString(fl.Text) {
				t.Fatalf("field %q text not UTF-8", fl.Key)
			}
		}
	})
}

// BenchmarkParse measures a front matter read as YAML and one the
// line-based fallback reads (an agent with <example> blocks).
func BenchmarkParse(b *testing.B) {
	yamlDoc := []byte("---\nname: reviewer\ndescription: Reviews code for bugs\ntools: Read, Grep, Glob\nmodel: sonnet\n---\nYou are a reviewer.\n")
	example := "<example>\nContext: the user asks\nuser: \"do it\"\nassistant: \"I will.\"\n<commentary>\nWhy.\n</commentary>\n</example>\n\n"
	fallback := []byte("---\nname: agent-creator\ndescription: Use this agent when the user asks to \"create an agent\". Examples:\n\n" +
		strings.Repeat(example, 3) + "model: sonnet\ncolor: magenta\ntools: [\"Write\", \"Read\"]\n---\nYou are an architect.\n")
	for _, c := range []struct {
		name string
		data []byte
	}{{"yaml", yamlDoc}, {"fallback", fallback}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Parse(c.data)
			}
		})
	}
}
