package textcall

import (
	"encoding/json"
	"strings"
	"testing"
)

// testTools are the tools the table tests offer.
func testTools() []Tool {
	return []Tool{
		{Name: "read_file", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer"}},"required":["path"]}`)},
		{Name: "bash", Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)},
		{Name: "sleep", Schema: json.RawMessage(`{"type":"object","properties":{"seconds":{"type":"integer"}},"required":["seconds"]}`)},
		{Name: "write_file", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`)},
		{Name: "list", Schema: json.RawMessage(`{"type":"object","properties":{}}`)},
		{Name: "typed", Schema: json.RawMessage(`{"type":"object","properties":{
			"s":{"type":"string"},"ns":{"type":["string","null"]},"i":{"type":"integer"},"n":{"type":"number"},
			"b":{"type":"boolean"},"o":{"type":"object"},"a":{"type":"array"},"e":{"enum":["x","y"]},
			"any":{}, "one":{"oneOf":[{"type":"null"},{"type":"number"}]}}}`)},
		{Name: "broken_schema", Schema: json.RawMessage(`{not json`)},
		{Name: "edit", Schema: json.RawMessage(`{"type":"object","properties":{"spec":{"type":"object"}},"required":["spec"]}`)},
	}
}

type wantCall struct {
	name string
	args string // JSON
}

type parseCase struct {
	name        string
	text        string
	calls       []wantCall
	content     string
	errs        int
	errContains string // in every CallError.Error()
	errName     string // CallError.Name of the first error
}

func runParseCases(t *testing.T, cases []parseCase) {
	t.Helper()
	tools := testTools()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Parse(tc.text, tools)
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
				if e.Reason == "" || e.Raw == "" {
					t.Errorf("error without reason or raw text: %+v", e)
				}
				if tc.errContains != "" && !strings.Contains(e.Error(), tc.errContains) {
					t.Errorf("error %q does not contain %q", e.Error(), tc.errContains)
				}
			}
			if tc.errName != "" && got.Errors[0].Name != tc.errName {
				t.Errorf("error name = %q, want %q", got.Errors[0].Name, tc.errName)
			}
		})
	}
}

func TestParseLazyForm(t *testing.T) {
	runParseCases(t, []parseCase{
		{name: "only required parameter", text: "<function=read_file>src/main.go</function>",
			calls: []wantCall{{"read_file", `{"path":"src/main.go"}`}}},
		{name: "only parameter, newlines trimmed once", text: "<function=bash>\nls -la\n\n</function>",
			calls: []wantCall{{"bash", `{"command":"ls -la\n"}`}}},
		{name: "typed by schema", text: "<function=sleep>\n5\n</function>",
			calls: []wantCall{{"sleep", `{"seconds":5}`}}},
		{name: "inside wrapper with text", text: "Reading.\n<tool_call>\n<function=read_file>\na.go\n</function>\n</tool_call>\nThen more.",
			calls: []wantCall{{"read_file", `{"path":"a.go"}`}}, content: "Reading.\n\nThen more."},
		{name: "JSON object body is the arguments", text: `<function=read_file>{"path": "x.go", "offset": 3}</function>`,
			calls: []wantCall{{"read_file", `{"path":"x.go","offset":3}`}}},
		{name: "JSON object body for an object parameter", text: `<function=edit>{"a": 1}</function>`,
			calls: []wantCall{{"edit", `{"spec":{"a":1}}`}}},
		{name: "JSON object body already keyed by the object parameter", text: `<function=edit>{"spec": {"a": 1}}</function>`,
			calls: []wantCall{{"edit", `{"spec":{"a":1}}`}}},
		{name: "JSON object body, unknown tool", text: `<function=mystery>{"q": 1}</function>`,
			calls: []wantCall{{"mystery", `{"q":1}`}}},
		{name: "empty body", text: "<function=list></function>", calls: []wantCall{{"list", `{}`}}},
		{name: "several parameters", text: "<function=write_file>hello</function>",
			errs: 1, errContains: "several parameters (content, path)", errName: "write_file"},
		{name: "unknown tool", text: "<function=mystery>hello</function>",
			errs: 1, errContains: "<parameter=PARAM>", errName: "mystery"},
		{name: "no parameters", text: "<function=list>x</function>", errs: 1, errContains: "takes no parameters"},
		{name: "unreadable schema", text: "<function=broken_schema>x</function>", errs: 1, errContains: "tool is unknown"},
		{name: "not closed", text: "<function=read_file>a.go", errs: 1, errContains: "cut off", errName: "read_file"},
	})
}

func TestParseMalformedJSON(t *testing.T) {
	runParseCases(t, []parseCase{
		{name: "single quotes", text: `<tool_call>{"name": "bash", "arguments": {'command': 'ls'}}</tool_call>`,
			errs: 1, errContains: "invalid JSON"},
		{name: "not JSON at all", text: "Sure.\n<tool_call>bash ls</tool_call>", content: "Sure.",
			errs: 1, errContains: `"arguments"`},
		{name: "raw newline in string", text: "<tool_call>{\"name\": \"bash\", \"arguments\": {\"command\": \"a\nb\"}}</tool_call>",
			errs: 1, errContains: "invalid JSON"},
		{name: "missing name", text: `<tool_call>{"arguments": {}}</tool_call>`, errs: 1, errContains: `no "name"`},
		{name: "name not a string", text: `<tool_call>{"name": 3, "arguments": {}}</tool_call>`, errs: 1},
		{name: "list of non-objects", text: `<tool_call>[1, 2]</tool_call>`, errs: 1},
		{name: "empty list", text: `<tool_call>[]</tool_call>`, errs: 1},
		{name: "text after the JSON", text: `<tool_call>{"name": "bash", "arguments": {}} oops</tool_call>`,
			errs: 1, errContains: "unexpected text"},
		{name: "bad call then good call",
			text:  "<tool_call>{\"name\": \"a\", \"arguments\": {</tool_call>\nok\n<tool_call>{\"name\": \"b\", \"arguments\": {}}</tool_call>",
			calls: []wantCall{{"b", `{}`}}, content: "ok", errs: 1},
		{name: "extra closing braces tolerated", text: `<tool_call>{"name": "bash", "arguments": {"command": "ls"}}}}</tool_call>`,
			calls: []wantCall{{"bash", `{"command":"ls"}`}}},
		{name: "parameters instead of arguments", text: `<tool_call>{"name": "bash", "parameters": {"command": "ls"}}</tool_call>`,
			calls: []wantCall{{"bash", `{"command":"ls"}`}}},
		{name: "arguments missing", text: `<tool_call>{"name": "list"}</tool_call>`, calls: []wantCall{{"list", `{}`}}},
		{name: "arguments null", text: `<tool_call>{"name": "list", "arguments": null}</tool_call>`, calls: []wantCall{{"list", `{}`}}},
		{name: "arguments as encoded string", text: `<tool_call>{"name": "bash", "arguments": "{\"command\": \"ls\"}"}</tool_call>`,
			calls: []wantCall{{"bash", `{"command":"ls"}`}}},
		{name: "bare string to single parameter", text: `<tool_call>{"name": "bash", "arguments": "ls -la"}</tool_call>`,
			calls: []wantCall{{"bash", `{"command":"ls -la"}`}}},
		{name: "bare number to single parameter", text: `<tool_call>{"name": "sleep", "arguments": 4}</tool_call>`,
			calls: []wantCall{{"sleep", `{"seconds":4}`}}},
		{name: "list of calls", text: `<tool_call>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": 1}}]</tool_call>`,
			calls: []wantCall{{"a", `{}`}, {"b", `{"x":1}`}}},
		{name: "two objects in one wrapper", text: "<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n{\"name\": \"b\", \"arguments\": {}}\n</tool_call>",
			calls: []wantCall{{"a", `{}`}, {"b", `{}`}}},
		{name: "closing tag left out between calls", text: `<tool_call>{"name": "a", "arguments": {}}<tool_call>{"name": "b", "arguments": {}}</tool_call>`,
			calls: []wantCall{{"a", `{}`}, {"b", `{}`}}},
		{name: "unknown body in wrapper", text: "<tool_call>\nget_weather(city='Paris')\n</tool_call>",
			errs: 1, errContains: "neither a JSON object"},
		{name: "bad tool name in XML", text: "<function=two words>x</function>", errs: 1, errContains: "tool name"},
		{name: "bad parameter name", text: "<function=bash>\n<parameter=>ls</parameter>\n</function>", errs: 1, errContains: "parameter name"},
		{name: "junk after the last parameter", text: "<function=bash>\n<parameter=command>ls</parameter>\nI think",
			errs: 1, errContains: "unexpected text"},
		// A value may contain </parameter> (a file being written): text after it
		// up to a structural </function> belongs to the value.
		{name: "text between </parameter> and </function> is value", text: "<function=bash>\n<parameter=command>ls</parameter>\nI think\n</function>",
			calls: []wantCall{{"bash", `{"command":"ls</parameter>\nI think"}`}}},
	})
}

func TestParseCutOff(t *testing.T) {
	runParseCases(t, []parseCase{
		{name: "only the opening tag", text: "Let me look.\n<tool_call>", content: "Let me look.", errs: 1, errContains: "cut off"},
		{name: "JSON cut off", text: `<tool_call>{"name": "write_file", "arguments": {"content": "hel`,
			errs: 1, errContains: "incomplete"},
		{name: "complete JSON, closing tag missing", text: "Text <tool_call>{\"name\": \"list\", \"arguments\": {}}\n",
			calls: []wantCall{{"list", `{}`}}, content: "Text"},
		{name: "XML value cut off",
			text: "<tool_call>\n<function=write_file>\n<parameter=path>\na.go\n</parameter>\n<parameter=content>\npackage ma",
			errs: 1, errContains: `parameter "content" is not closed`, errName: "write_file"},
		{name: "XML closing tags missing after a closed parameter",
			text:  "<tool_call>\n<function=write_file>\n<parameter=path>\na.go\n</parameter>\n<parameter=content>\nx\n</parameter>\n",
			calls: []wantCall{{"write_file", `{"path":"a.go","content":"x"}`}}},
		{name: "XML </tool_call> missing", text: "<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>",
			calls: []wantCall{{"bash", `{"command":"ls"}`}}},
		{name: "function tag cut off", text: "Now: <function=wri", content: "Now:", errs: 1, errContains: "not closed with '>'"},
		{name: "parameter tag cut off", text: "<function=bash>\n<parameter=comm", errs: 1, errName: "bash"},
		{name: "function body cut off", text: "<function=bash>\n", errs: 1, errContains: "ended inside"},
	})
}

func TestParseNestedTagsInValues(t *testing.T) {
	runParseCases(t, []parseCase{
		{name: "closing tag inside a JSON string",
			text:  `<tool_call>{"name": "write_file", "arguments": {"path": "p", "content": "a</tool_call>b<tool_call>"}}</tool_call>after`,
			calls: []wantCall{{"write_file", `{"path":"p","content":"a</tool_call>b<tool_call>"}`}}, content: "after"},
		{name: "</parameter> inside an XML value",
			text:  "<function=write_file>\n<parameter=path>\nx.xml\n</parameter>\n<parameter=content>\n<a></parameter>b\n</parameter>\n</function>",
			calls: []wantCall{{"write_file", `{"path":"x.xml","content":"<a></parameter>b"}`}}},
		{name: "function tags inside an XML value",
			text:  "<tool_call>\n<function=write_file>\n<parameter=path>\nd.md\n</parameter>\n<parameter=content>\nUse <tool_call><function=x>v</function> and more.\n</parameter>\n</function>\n</tool_call>",
			calls: []wantCall{{"write_file", `{"path":"d.md","content":"Use <tool_call><function=x>v</function> and more."}`}}},
		{name: "HTML kept verbatim",
			text:  "<function=bash>\n<parameter=command>\necho '<b>&</b>' > f.html\n</parameter>\n</function>",
			calls: []wantCall{{"bash", `{"command":"echo '<b>&</b>' > f.html"}`}}},
		{name: "implicit parameter close at line start",
			text:  "<function=write_file>\n<parameter=path>a.go\n<parameter=content>x := 1\n</function>",
			calls: []wantCall{{"write_file", `{"path":"a.go","content":"x := 1"}`}}},
		{name: "first </function> closes when nothing structural follows",
			text:  "<function=bash>\n<parameter=command>ls\n</function>\nDone.",
			calls: []wantCall{{"bash", `{"command":"ls"}`}}, content: "Done."},
	})
}

func TestParseTextAround(t *testing.T) {
	runParseCases(t, []parseCase{
		{name: "plain text", text: "  just words \n", content: "just words"},
		{name: "before, between, after",
			text: "Before.\n<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>\nBetween.\n" +
				"<tool_call>\n<function=b>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>\nAfter.",
			calls: []wantCall{{"a", `{}`}, {"b", `{"x":"1"}`}}, content: "Before.\n\nBetween.\n\nAfter."},
		{name: "bare functions in a row with text",
			text:  "<function=bash>\n<parameter=command>ls</parameter>\n</function>\nand\n<function=sleep>\n<parameter=seconds>2</parameter>\n</function>\nend",
			calls: []wantCall{{"bash", `{"command":"ls"}`}, {"sleep", `{"seconds":2}`}}, content: "and\n\nend"},
		{name: "two functions in one wrapper",
			text:  "<tool_call>\n<function=a>\n</function>\n<function=b>\n<parameter=k>v</parameter>\n</function>\n</tool_call>",
			calls: []wantCall{{"a", `{}`}, {"b", `{"k":"v"}`}}},
		{name: "closing tag without opening tag",
			text:  "<function=bash>\n<parameter=command>ls</parameter>\n</function>\n</tool_call>\nok",
			calls: []wantCall{{"bash", `{"command":"ls"}`}}, content: "ok"},
		{name: "text after </function> inside the wrapper stays content",
			text:  "<tool_call><function=list></function> note",
			calls: []wantCall{{"list", `{}`}}, content: "note"},
		{name: "duplicate parameter keeps the last value",
			text:  "<function=bash>\n<parameter=command>a</parameter>\n<parameter=command>b</parameter>\n</function>",
			calls: []wantCall{{"bash", `{"command":"b"}`}}},
	})
}

func TestParseValueTyping(t *testing.T) {
	param := func(k, v string) string {
		return "<function=typed>\n<parameter=" + k + ">\n" + v + "\n</parameter>\n</function>"
	}
	cases := []struct {
		name, key, value, want string
	}{
		{"string keeps inner newlines", "s", "\nfoo\n", `"\nfoo\n"`},
		{"string keeps spaces", "s", "  x  ", `"  x  "`},
		{"null on non-nullable string stays text", "s", "null", `"null"`},
		{"null on nullable string", "ns", "NULL", `null`},
		{"null on integer", "i", "null", `null`},
		{"integer", "i", " -42 ", `-42`},
		{"integer written as float", "i", "3.0", `3`},
		{"integer not a number stays text", "i", "many", `"many"`},
		{"integer with fraction stays text", "i", "3.5", `"3.5"`},
		{"number", "n", "1.5", `1.5`},
		{"number exponent", "n", "1e3", `1e3`},
		{"number with plus sign", "n", "+2", `2`},
		{"number infinity stays text", "n", "Inf", `"Inf"`},
		{"boolean Python style", "b", "False", `false`},
		{"boolean other word stays text", "b", "yes", `"yes"`},
		{"object", "o", `{"k": [1, 2]}`, `{"k":[1,2]}`},
		{"object invalid stays text", "o", `{k: 1}`, `"{k: 1}"`},
		{"array", "a", `["a", "b"]`, `["a","b"]`},
		{"enum infers string", "e", "x", `"x"`},
		{"empty schema keeps string", "any", "5", `"5"`},
		{"oneOf first non-null", "one", "2.5", `2.5`},
		{"parameter not in schema keeps string", "zzz", "7", `"7"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Parse(param(tc.key, tc.value), testTools())
			if len(got.Calls) != 1 {
				t.Fatalf("got %d calls, errors %v", len(got.Calls), got.Errors)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(got.Calls[0].Arguments, &m); err != nil {
				t.Fatalf("arguments %s: %v", got.Calls[0].Arguments, err)
			}
			if string(m[tc.key]) != tc.want {
				t.Errorf("%s = %s, want %s", tc.key, m[tc.key], tc.want)
			}
		})
	}
}

func TestParseWithoutSchema(t *testing.T) {
	got := Parse("<function=mystery>\n<parameter=n>\n5\n</parameter>\n<parameter=z>\nnull\n</parameter>\n</function>", nil)
	if len(got.Calls) != 1 {
		t.Fatalf("got %d calls, errors %v", len(got.Calls), got.Errors)
	}
	assertJSONEqual(t, json.RawMessage(`{"n":"5","z":null}`), got.Calls[0].Arguments)
	if string(got.Calls[0].Arguments) != `{"n":"5","z":null}` {
		t.Errorf("parameter order not kept: %s", got.Calls[0].Arguments)
	}
}

func TestContains(t *testing.T) {
	cases := map[string]bool{
		"":                                 false,
		"plain text":                       false,
		"a <tool_call> b":                  true,
		"<function=x>":                     true,
		"<function x>":                     false,
		"</tool_call> only":                false,
		"talking about <parameter=x> tags": false,
	}
	for text, want := range cases {
		if got := Contains(text); got != want {
			t.Errorf("Contains(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestCallErrorMessage(t *testing.T) {
	res := Parse(`<tool_call>{"name": "bash", "arguments": {"command": "ls"`, nil)
	if len(res.Errors) != 1 {
		t.Fatalf("got %d errors", len(res.Errors))
	}
	e := res.Errors[0]
	if e.Format != FormatHermesJSON {
		t.Errorf("format = %q", e.Format)
	}
	msg := e.Error()
	for _, want := range []string{"incomplete", `<tool_call>{"name": "TOOL_NAME", "arguments": {`, "</tool_call>", `(in "`} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	var err error = e // CallError is an error the engine can return
	if err.Error() != msg {
		t.Error("value and interface messages differ")
	}

	res = Parse("<tool_call>\n<function=write_file>\n<parameter=path>\nx", testTools())
	if len(res.Errors) != 1 || res.Errors[0].Format != FormatQwenXML {
		t.Fatalf("want one XML error, got %+v", res.Errors)
	}
	msg = res.Errors[0].Error()
	for _, want := range []string{`to "write_file"`, "<function=write_file>", "<parameter=PARAM>", "</parameter>"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

func TestExcerptCutsAtRuneBoundary(t *testing.T) {
	s := strings.Repeat("é", 100) // 2 bytes each
	got := excerpt(s, 7)
	if got != "ééé..." {
		t.Errorf("excerpt = %q", got)
	}
	if excerpt(" short ", 10) != "short" {
		t.Error("short text must be returned trimmed")
	}
}
