package gemini

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

// loadFixtures reads the recorded exchanges of wire format "gemini". It
// decodes `expect` tolerantly: some recorded exchanges carry the enum as a
// number (`"finish_reason": 1`) and errors as objects, which
// llmtest.Fixture's string fields do not take.
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
		if !strings.Contains(string(data), `"wire_format": "gemini"`) && !strings.Contains(string(data), `"wire_format":"gemini"`) {
			continue
		}
		var raw struct {
			llmtest.Fixture
			Expect *struct {
				Text         string                 `json:"text"`
				Reasoning    string                 `json:"reasoning"`
				ToolCalls    []llmtest.ExpectedCall `json:"tool_calls"`
				FinishReason json.RawMessage        `json:"finish_reason"`
				Usage        map[string]any         `json:"usage"`
				Errors       []json.RawMessage      `json:"errors"`
			} `json:"expect"`
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		f := raw.Fixture
		if f.WireFormat != "gemini" {
			continue
		}
		f.Path = filepath.Join(filepath.Base(filepath.Dir(p)), filepath.Base(p))
		if e := raw.Expect; e != nil {
			f.Expect = &llmtest.Expect{Text: e.Text, Reasoning: e.Reasoning, ToolCalls: e.ToolCalls,
				FinishReason: expectedFinish(e.FinishReason), Usage: e.Usage}
			for _, er := range e.Errors {
				f.Expect.Errors = append(f.Expect.Errors, string(er))
			}
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		t.Fatal("no fixtures of wire format gemini")
	}
	return out
}

// expectedFinish decodes a recorded finish reason: a string, or the
// FinishReason enum number of google.ai.generativelanguage.v1beta
// (1 STOP, 2 MAX_TOKENS, 3 SAFETY), which the client reports by name.
func expectedFinish(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	switch string(raw) {
	case "1":
		return "STOP"
	case "2":
		return "MAX_TOKENS"
	case "3":
		return "SAFETY"
	}
	return strings.Trim(string(raw), `"`)
}

// wantUsage maps Gemini's usageMetadata to llm.Usage.
func wantUsage(u map[string]any) llm.Usage {
	thoughts := llmtest.Int(u, "thoughtsTokenCount")
	return llm.Usage{
		InputTokens:     llmtest.Int(u, "promptTokenCount"),
		OutputTokens:    llmtest.Int(u, "candidatesTokenCount") + thoughts,
		CacheReadTokens: llmtest.Int(u, "cachedContentTokenCount"),
		ReasoningTokens: thoughts,
	}
}

// corrected holds the fixtures whose recorded expectation is wrong, with the
// right one. The vercel-ai fixture streams the arguments of two calls with
// Vertex partialArgs (one functionCall piece per chunk); its expect lists
// every piece as a call. The two calls it holds are these.
func corrected(f llmtest.Fixture) *llmtest.Expect {
	if strings.Contains(f.Path, "google-stream-tool-call-arguments") {
		e := *f.Expect
		e.ToolCalls = []llmtest.ExpectedCall{
			{Name: "getWeather", Arguments: json.RawMessage(`{"location":"Boston"}`)},
			{Name: "getWeather", Arguments: json.RawMessage(`{"location":"San Francisco"}`)},
		}
		return &e
	}
	return f.Expect
}

func TestConformance(t *testing.T) {
	fixtures := loadFixtures(t)
	passed := 0
	for _, f := range fixtures {
		t.Run(f.Path, func(t *testing.T) {
			if f.Expect == nil {
				t.Skip("no expectation recorded")
			}
			f.Expect = corrected(f)
			srv := llmtest.Serve(t, f)
			c := New(llm.Options{BaseURL: srv.URL + "/v1beta", APIKey: "test-key"})
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
				checkEventsMatch(t, events, resp)
			}
			if !t.Failed() {
				passed++
			}
		})
	}
	t.Logf("%d/%d gemini exchanges pass", passed, len(fixtures))
}

// checkRequestShape asserts the request the client sent: path, query, key
// header and a JSON body with contents.
func checkRequestShape(t *testing.T, reqs []llmtest.Recorded, req *llm.Request) {
	t.Helper()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	model := strings.TrimPrefix(req.Model, "models/") // langchaingo records "models/<name>"
	wantPath := "/v1beta/models/" + model + ":generateContent"
	wantQuery := ""
	if req.Stream {
		wantPath = "/v1beta/models/" + model + ":streamGenerateContent"
		wantQuery = "alt=sse"
	}
	if r.Path != wantPath || r.Query != wantQuery {
		t.Errorf("request to %s?%s, want %s?%s", r.Path, r.Query, wantPath, wantQuery)
	}
	if got := r.Header.Get("x-goog-api-key"); got != "test-key" {
		t.Errorf("x-goog-api-key = %q", got)
	}
	var body struct {
		Contents []json.RawMessage `json:"contents"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || len(body.Contents) != 1 {
		t.Errorf("request body %s: contents missing (%v)", r.Body, err)
	}
}

// checkEventsMatch asserts that the events told the same story as the
// response: text and reasoning deltas, tool calls, usage and finish.
func checkEventsMatch(t *testing.T, events []llm.Event, resp *llm.Response) {
	t.Helper()
	var text, reasoning strings.Builder
	calls := 0
	var finish string
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
		t.Errorf("events text/reasoning differ from the response")
	}
	if calls != len(resp.Message.ToolCalls()) {
		t.Errorf("events carried %d tool calls, response %d", calls, len(resp.Message.ToolCalls()))
	}
	if finish != resp.FinishReason {
		t.Errorf("finish event %q, response %q", finish, resp.FinishReason)
	}
	for _, c := range resp.Message.ToolCalls() {
		if c.ID == "" {
			t.Errorf("tool call %s has no id", c.Name)
		}
	}
}
