package textcall

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/sharedtest"
)

// fixtureCase is one line of shared/fixtures/textcalls.jsonl.
type fixtureCase struct {
	Format      string `json:"format"`
	ModelOutput string `json:"model_output"`
	Tools       []struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"tools"`
	ExpectedCalls []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"expected_calls"`
	ExpectedContent *string `json:"expected_content"`
	Source          struct {
		Test string `json:"test"`
	} `json:"source"`
}

func loadFixtures(t testing.TB) []fixtureCase {
	t.Helper()
	path := sharedtest.Require(t, "fixtures/textcalls.jsonl", "text tool-call fixtures")
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open fixtures: %v", err)
	}
	defer f.Close()
	var cases []fixtureCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c fixtureCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read fixtures: %v", err)
	}
	if len(cases) == 0 {
		t.Fatalf("%s holds no cases", path)
	}
	return cases
}

func (c fixtureCase) tools() []Tool {
	var tools []Tool
	for _, t := range c.Tools {
		tools = append(tools, Tool{Name: t.Name, Schema: t.Parameters})
	}
	return tools
}

// TestFixtures runs every case recorded from the vLLM and SGLang test suites.
// Content is compared after trimming the expected text: Result.Content is
// trimmed by contract, and upstream keeps the white space before the call.
func TestFixtures(t *testing.T) {
	for i, c := range loadFixtures(t) {
		t.Run(c.Format+"/"+c.Source.Test, func(t *testing.T) {
			got := Parse(c.ModelOutput, c.tools())
			if len(got.Calls) != len(c.ExpectedCalls) {
				t.Fatalf("case %d: got %d calls %s, want %d; errors %v", i, len(got.Calls), dumpCalls(got.Calls), len(c.ExpectedCalls), got.Errors)
			}
			for j, want := range c.ExpectedCalls {
				g := got.Calls[j]
				if g.Name != want.Name {
					t.Errorf("call %d name = %q, want %q", j, g.Name, want.Name)
				}
				if string(g.Format) != c.Format {
					t.Errorf("call %d format = %q, want %q", j, g.Format, c.Format)
				}
				assertJSONEqual(t, want.Arguments, g.Arguments)
			}
			wantContent := ""
			if c.ExpectedContent != nil {
				wantContent = strings.TrimSpace(*c.ExpectedContent)
			}
			if got.Content != wantContent {
				t.Errorf("content = %q, want %q", got.Content, wantContent)
			}
			if len(c.ExpectedCalls) > 0 && len(got.Errors) > 0 {
				t.Errorf("unexpected errors: %v", got.Errors)
			}
			if len(c.ExpectedCalls) == 0 && Contains(c.ModelOutput) && len(got.Errors) == 0 {
				t.Errorf("a tool call with no parsed call must be reported as an error")
			}
		})
	}
}

func dumpCalls(calls []Call) string {
	var b strings.Builder
	for _, c := range calls {
		b.WriteString(c.Name + string(c.Arguments) + " ")
	}
	return b.String()
}

func assertJSONEqual(t *testing.T, want, got json.RawMessage) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("bad expected JSON %s: %v", want, err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("arguments are not valid JSON: %s: %v", got, err)
	}
	wb, _ := json.Marshal(w)
	gb, _ := json.Marshal(g)
	if string(wb) != string(gb) {
		t.Errorf("arguments = %s, want %s", gb, wb)
	}
}
