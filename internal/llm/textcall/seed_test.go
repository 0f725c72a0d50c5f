package textcall

import (
	"encoding/json"
	"strings"
	"testing"
)

// seedTools are aidex-shaped tools for the issue 23 cases: run_command
// (one required parameter), list_directory (all optional, path first),
// git_add (an array parameter) and apply (an object parameter).
func seedTools() []Tool {
	return []Tool{
		{Name: "run_command", Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"integer","default":120},"cwd":{"type":"string","default":"."}},"required":["command"]}`)},
		{Name: "list_directory", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","default":"."},"depth":{"type":"integer","default":2}}}`)},
		{Name: "git_add", Schema: json.RawMessage(`{"type":"object","properties":{"paths":{"type":"array","items":{"type":"string"}}},"required":["paths"]}`)},
		{Name: "apply", Schema: json.RawMessage(`{"type":"object","properties":{"spec":{"type":"object"},"note":{"type":"string"}},"required":["spec"]}`)},
		{Name: "write_file", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`)},
	}
}

// seedCanonical stands in for the registry's alias table.
func seedCanonical(name string) string {
	switch strings.ToLower(name) {
	case "run_shell_command", "bash", "shell":
		return "run_command"
	case "ls", "list_files":
		return "list_directory"
	}
	return ""
}

func runSeedCases(t *testing.T, o Options, cases []parseCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseWith(tc.text, seedTools(), o)
			if len(got.Calls) != len(tc.calls) {
				t.Fatalf("got %d calls (%s), want %d; errors: %v", len(got.Calls), dumpCalls(got.Calls), len(tc.calls), got.Errors)
			}
			for i, w := range tc.calls {
				if got.Calls[i].Name != w.name {
					t.Errorf("call %d name = %q, want %q", i, got.Calls[i].Name, w.name)
				}
				assertJSONEqual(t, json.RawMessage(w.args), got.Calls[i].Arguments)
			}
			if got.Content != tc.content {
				t.Errorf("content = %q, want %q", got.Content, tc.content)
			}
			if len(got.Errors) != tc.errs {
				t.Fatalf("got %d errors %v, want %d", len(got.Errors), got.Errors, tc.errs)
			}
			for _, e := range got.Errors {
				if tc.errContains != "" && !strings.Contains(e.Error(), tc.errContains) {
					t.Errorf("error %q does not contain %q", e.Error(), tc.errContains)
				}
			}
		})
	}
}

// TestLazyFormAliasesAndInference: issue 23 item 12, the lazy form.
func TestLazyFormAliasesAndInference(t *testing.T) {
	o := Options{Canonical: seedCanonical}
	runSeedCases(t, o, []parseCase{
		{name: "alias of the shell tool", text: "<function=run_shell_command>echo hi</function>",
			calls: []wantCall{{"run_shell_command", `{"command":"echo hi"}`}}},
		{name: "alias typed by the real tool's schema", text: "<function=bash>\n<parameter=timeout>\n30\n</parameter>\n<parameter=command>ls</parameter>\n</function>",
			calls: []wantCall{{"bash", `{"timeout":30,"command":"ls"}`}}},
		{name: "all optional: the first declared parameter", text: "<function=list_directory>.</function>",
			calls: []wantCall{{"list_directory", `{"path":"."}`}}},
		{name: "alias with all optional", text: "<function=ls>src</function>",
			calls: []wantCall{{"ls", `{"path":"src"}`}}},
		{name: "several required still refused", text: "<function=write_file>x</function>",
			errs: 1, errContains: "several parameters"},
		{name: "unknown name still refused", text: "<function=nothing_like_it>x</function>",
			errs: 1, errContains: "tool is unknown"},
	})
	// Without Canonical the alias is unknown, as before.
	got := Parse("<function=run_shell_command>echo hi</function>", seedTools())
	if len(got.Calls) != 0 || len(got.Errors) != 1 {
		t.Fatalf("without Canonical: %+v", got)
	}
}

// TestPythonLiteralParameters: issue 23 item 12, array and object
// parameters written as Python literals in every dialect.
func TestPythonLiteralParameters(t *testing.T) {
	runSeedCases(t, Options{}, []parseCase{
		{name: "XML array, single quotes", text: "<function=git_add>\n<parameter=paths>\n['a.go', \"b.go\"]\n</parameter>\n</function>",
			calls: []wantCall{{"git_add", `{"paths":["a.go","b.go"]}`}}},
		{name: "XML object with True/False/None", text: "<function=apply>\n<parameter=spec>\n{'on': True, 'off': False, 'x': None, 'n': -1.5, 'k': (1, 2)}\n</parameter>\n</function>",
			calls: []wantCall{{"apply", `{"spec":{"on":true,"off":false,"x":null,"n":-1.5,"k":[1,2]}}`}}},
		{name: "XML object with escapes and a number key", text: "<function=apply>\n<parameter=spec>{'s': 'it\\'s\\n', 1: 'one',}</parameter>\n</function>",
			calls: []wantCall{{"apply", `{"spec":{"s":"it's\n","1":"one"}}`}}},
		{name: "XML string parameter keeps the literal text", text: "<function=apply>\n<parameter=spec>{}</parameter>\n<parameter=note>['a']</parameter>\n</function>",
			calls: []wantCall{{"apply", `{"spec":{},"note":"['a']"}`}}},
		{name: "XML not a literal stays text", text: "<function=git_add>\n<parameter=paths>\n[a.go]\n</parameter>\n</function>",
			calls: []wantCall{{"git_add", `{"paths":"[a.go]"}`}}},
		{name: "lazy form array", text: "<function=git_add>['x', 'y']</function>",
			calls: []wantCall{{"git_add", `{"paths":["x","y"]}`}}},
		{name: "Hermes array given as a Python string", text: `<tool_call>{"name": "git_add", "arguments": {"paths": "['a.go', 'b.go']"}}</tool_call>`,
			calls: []wantCall{{"git_add", `{"paths":["a.go","b.go"]}`}}},
		{name: "Hermes object given as a JSON string", text: `<tool_call>{"name": "apply", "arguments": {"spec": "{\"a\": 1}", "note": "{'kept': 1}"}}</tool_call>`,
			calls: []wantCall{{"apply", `{"spec":{"a":1},"note":"{'kept': 1}"}`}}},
		{name: "Hermes arguments as a Python dict string", text: `<tool_call>{"name": "apply", "arguments": "{'spec': {'deep': [True]}}"}</tool_call>`,
			calls: []wantCall{{"apply", `{"spec":{"deep":[true]}}`}}},
	})
}

func TestPyLiteral(t *testing.T) {
	good := map[string]string{
		`[]`:                      `[]`,
		`()`:                      `[]`,
		`{}`:                      `{}`,
		`[1, 2.5, -3, 1e3]`:       `[1,2.5,-3,1000]`,
		`{'a': [None, True]}`:     `{"a":[null,true]}`,
		`[r'C:\x', u'\u00e9']`:    `["C:\\x","é"]`,
		`["a\"b", 'c\x41']`:       `["a\"b","cA"]`,
		`['<b>&']`:                `["<b>&"]`,
		"[1,\n 2,\n]":             `[1,2]`,
		`{'k': ('t',)}`:           `{"k":["t"]}`,
		`{1_000: 'n'}`:            `{"1000":"n"}`,
		`[' \d ']`:                `[" \\d "]`,
		`{"nested": {"x": [[]]}}`: `{"nested":{"x":[[]]}}`,
	}
	for in, want := range good {
		got, ok := pyLiteral(in)
		if !ok || string(got) != want {
			t.Errorf("pyLiteral(%q) = %s, %v; want %s", in, got, ok, want)
		}
	}
	for _, in := range []string{``, `[`, `[a]`, `{'a' 1}`, `{'a': 1`, `[1] x`, `['a\n`, `[Truex]`, `{[1]: 2}`, `[1 2]`,
		`['\x4']`, `[1e999]`, `{'a':,}`, strings.Repeat("[", 100) + strings.Repeat("]", 100), `[nan]`, `[-]`} {
		if got, ok := pyLiteral(in); ok {
			t.Errorf("pyLiteral(%q) = %s, want refusal", in, got)
		}
	}
}

// FuzzPyLiteral checks that pyLiteral never panics and that what it
// accepts is valid JSON.
func FuzzPyLiteral(f *testing.F) {
	for _, s := range []string{`{'a': [1, (2,), None]}`, `[r'\x', u'\u00e9', "q\""]`, `{1: True}`, `[1e5, -0.5]`, `['\U0001F600']`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if out, ok := pyLiteral(s); ok && !json.Valid(out) {
			t.Fatalf("pyLiteral(%q) = invalid JSON %s", s, out)
		}
	})
}
