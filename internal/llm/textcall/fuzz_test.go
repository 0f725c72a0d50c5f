package textcall

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSeeds are hand-written seeds covering every branch of the parser.
var fuzzSeeds = []string{
	"",
	"plain text",
	`<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>`,
	`<tool_call>[{"name": "a"}, {"name": "b", "parameters": "{\"x\": 1}"}]</tool_call>`,
	`<tool_call>{"name": "a", "arguments": {}}}}<tool_call>{"name": "b", "arguments": "x"}`,
	"<tool_call>\n<function=write_file>\n<parameter=path>\na.go\n</parameter>\n<parameter=content>\n</parameter>x\n</parameter>\n</function>\n</tool_call>",
	"<function=read_file>a.go</function>",
	"<function=typed>\n<parameter=i>3.0\n<parameter=b>True\n<parameter=o>{\"a\":1}\n</function>",
	"<function=edit>{\"spec\": {}}</function></tool_call>",
	"<tool_call><function=a></function><function=b>",
	"<tool_call>\n<tool_call>{",
	"<function=x><parameter=y>",
}

// FuzzParse checks that Parse never panics and that its result is
// consistent with its input, whatever the model writes.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, s := range fixtureOutputs() {
		f.Add(s)
	}
	tools := testTools()
	f.Fuzz(func(t *testing.T, text string) {
		res := Parse(text, tools)
		if !Contains(text) {
			if len(res.Calls) != 0 || len(res.Errors) != 0 {
				t.Fatalf("calls or errors found in text without tags: %+v", res)
			}
			if res.Content != strings.TrimSpace(text) {
				t.Fatalf("content %q changed from %q", res.Content, text)
			}
		}
		for _, c := range res.Calls {
			if c.Name == "" || !json.Valid(c.Arguments) {
				t.Fatalf("bad call %q %q", c.Name, c.Arguments)
			}
			if c.Format != FormatHermesJSON && c.Format != FormatQwenXML {
				t.Fatalf("bad format %q", c.Format)
			}
		}
		for _, e := range res.Errors {
			if e.Reason == "" || e.Raw == "" || !strings.Contains(text, e.Raw) {
				t.Fatalf("bad error %+v", e)
			}
			if utf8.ValidString(text) && !utf8.ValidString(e.Error()) {
				t.Fatalf("error message is not valid UTF-8: %q", e.Error())
			}
		}
		if len(res.Content) > len(text) {
			t.Fatalf("content longer than the input")
		}
	})
}

// fixtureOutputs returns the model outputs of the shared fixtures, or nil
// when the file is not there.
func fixtureOutputs() []string {
	f, err := os.Open(filepath.Join("..", "..", "..", "..", "shared", "fixtures", "textcalls.jsonl"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var c fixtureCase
		if json.Unmarshal(sc.Bytes(), &c) == nil {
			out = append(out, c.ModelOutput)
		}
	}
	return out
}

func BenchmarkParse(b *testing.B) {
	tools := testTools()
	mixed := "I'll read the file and run the tests.\n" +
		"<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/main.go\n</parameter>\n<parameter=offset>\n10\n</parameter>\n</function>\n</tool_call>\n" +
		`<tool_call>{"name": "bash", "arguments": {"command": "go test ./..."}}</tool_call>` + "\nDone."
	bigWrite := "<tool_call>\n<function=write_file>\n<parameter=path>\nbig.go\n</parameter>\n<parameter=content>\n" +
		strings.Repeat("if a < b { return \"</x>\" }\n", 4000) + "</parameter>\n</function>\n</tool_call>"
	bigJSON, _ := json.Marshal(map[string]any{"name": "write_file", "arguments": map[string]string{
		"path": "big.go", "content": strings.Repeat("if a < b { return \"</x>\" }\n", 4000)}})
	benches := []struct{ name, text string }{
		{"mixed", mixed},
		{"plain_text_100KiB", strings.Repeat("Just prose, no calls here. ", 4000)},
		{"xml_write_100KiB", bigWrite},
		{"hermes_write_100KiB", "<tool_call>" + string(bigJSON) + "</tool_call>"},
	}
	for _, bc := range benches {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			b.ReportAllocs()
			for b.Loop() {
				res := Parse(bc.text, tools)
				if len(res.Errors) != 0 {
					b.Fatalf("errors: %v", res.Errors)
				}
			}
		})
	}
}

// BenchmarkParseAdversarial measures inputs built to make a naive scanner
// quadratic: many openings with no closings.
func BenchmarkParseAdversarial(b *testing.B) {
	benches := []struct{ name, text string }{
		{"function_no_gt", strings.Repeat("<function=a\n", 10000)},
		{"function_only", strings.Repeat("x <function=a>", 10000)},
		{"param_no_close", strings.Repeat("<function=a><parameter=b>v", 5000) + "</tool_call>x"},
		{"tool_call_only", strings.Repeat("<tool_call>", 10000)},
		{"tool_call_bad_json", strings.Repeat("<tool_call>{\"a\":", 5000)},
	}
	for _, bc := range benches {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			for b.Loop() {
				Parse(bc.text, nil)
			}
		})
	}
}
