package responses

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// loadFixtures reads the recorded exchanges of wire format
// "openai_responses". It decodes `expect` tolerantly (some exchanges of
// other formats in the same folder carry errors as objects, which
// llmtest.Fixture's string fields do not take).
func loadFixtures(t testing.TB) []llmtest.Fixture {
	t.Helper()
	dir := llmtest.FixturesDir()
	if dir == "" {
		t.Skip("../shared/fixtures/recorded not found beside the repository: conformance fixtures unavailable")
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var out []llmtest.Fixture
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `"openai_responses"`) {
			continue
		}
		var raw struct {
			llmtest.Fixture
			Expect *struct {
				Text         string                 `json:"text"`
				Reasoning    string                 `json:"reasoning"`
				ToolCalls    []llmtest.ExpectedCall `json:"tool_calls"`
				FinishReason string                 `json:"finish_reason"`
				Usage        map[string]any         `json:"usage"`
				Errors       []json.RawMessage      `json:"errors"`
			} `json:"expect"`
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		f := raw.Fixture
		if f.WireFormat != "openai_responses" {
			continue
		}
		f.Path = filepath.Join(filepath.Base(filepath.Dir(p)), filepath.Base(p))
		if e := raw.Expect; e != nil {
			f.Expect = &llmtest.Expect{Text: e.Text, Reasoning: e.Reasoning, ToolCalls: e.ToolCalls, FinishReason: e.FinishReason, Usage: e.Usage}
			for _, er := range e.Errors {
				f.Expect.Errors = append(f.Expect.Errors, string(er))
			}
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		t.Fatal("no fixtures of wire format openai_responses")
	}
	return out
}

// wantUsage maps the Responses usage object to llm.Usage.
func wantUsage(u map[string]any) llm.Usage {
	return llm.Usage{
		InputTokens:     llmtest.Int(u, "input_tokens"),
		OutputTokens:    llmtest.Int(u, "output_tokens"),
		CacheReadTokens: llmtest.Int(u, "input_tokens_details.cached_tokens"),
		ReasoningTokens: llmtest.Int(u, "output_tokens_details.reasoning_tokens"),
	}
}

// skipReason names fixtures aidex handles differently on purpose.
func skipReason(f llmtest.Fixture) string {
	if strings.Contains(f.Path, "openai-custom-tool") {
		return "custom (free-form grammar) tool calls: aidex offers function tools only; such a call is reported with ArgsError (TestCustomToolCall), not as the recorder's {\"__custom_input__\": ...}"
	}
	return ""
}

func TestConformance(t *testing.T) {
	fixtures := loadFixtures(t)
	passed, skipped := 0, 0
	for _, f := range fixtures {
		t.Run(f.Path, func(t *testing.T) {
			if f.Expect == nil {
				t.Skip("no expectation recorded")
			}
			if r := skipReason(f); r != "" {
				skipped++
				t.Skip(r)
			}
			srv := llmtest.Serve(t, f)
			c := New(llm.Options{BaseURL: srv.URL + "/v1", APIKey: "test-key"})
			req := llmtest.Request(f)
			var events []llm.Event
			resp, err := c.Generate(context.Background(), req, func(e llm.Event) { events = append(events, e) })
			if resp == nil {
				t.Fatal("nil response")
			}
			for _, p := range llmtest.Check(f, resp, err, wantUsage) {
				t.Error(p)
			}
			checkRequestShape(t, srv.Requests(), req)
			if err == nil {
				checkEvents(t, events, resp)
			}
			if !t.Failed() {
				passed++
			}
		})
	}
	t.Logf("%d/%d openai_responses exchanges pass, %d skipped on purpose", passed, len(fixtures), skipped)
}

func checkRequestShape(t *testing.T, reqs []llmtest.Recorded, req *llm.Request) {
	t.Helper()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/v1/responses" {
		t.Errorf("request %s %s, want POST /v1/responses", r.Method, r.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer test-key" {
		t.Errorf("Authorization = %q", got)
	}
	var body struct {
		Model  string            `json:"model"`
		Store  *bool             `json:"store"`
		Stream bool              `json:"stream"`
		Input  []json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("request body: %v", err)
	}
	if body.Model != req.Model || body.Store == nil || *body.Store || body.Stream != req.Stream || len(body.Input) != 1 {
		t.Errorf("request body %s", r.Body)
	}
}

// checkEvents asserts that the events told the same story as the response.
func checkEvents(t *testing.T, events []llm.Event, resp *llm.Response) {
	t.Helper()
	var text, reasoning strings.Builder
	calls := 0
	finish := ""
	for _, e := range events {
		switch e.Type {
		case llm.EventText:
			text.WriteString(e.Text)
		case llm.EventReasoning:
			reasoning.WriteString(e.Text)
		case llm.EventToolCall:
			calls++
		case llm.EventFinish:
			finish = e.FinishReason
		}
	}
	if text.String() != resp.Message.Text() || reasoning.String() != resp.Message.Reasoning() {
		t.Error("events text/reasoning differ from the response")
	}
	if calls != len(resp.Message.ToolCalls()) || finish != resp.FinishReason {
		t.Errorf("events: %d calls, finish %q; response: %d calls, finish %q", calls, finish, len(resp.Message.ToolCalls()), resp.FinishReason)
	}
}
