package openai

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// loadFixtures returns the recorded exchanges of one wire format. It does
// what llmtest.Load does, but turns error objects in expect.errors into
// their JSON text: llmtest.Expect.Errors is []string, and several recorded
// errors (OpenRouter's) are objects.
func loadFixtures(t *testing.T, wire string) []llmtest.Fixture {
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
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		var w string
		_ = json.Unmarshal(raw["wire_format"], &w)
		if w != wire {
			continue
		}
		raw["expect"] = stringifyErrors(t, raw["expect"])
		data, _ = json.Marshal(raw)
		var f llmtest.Fixture
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		f.Path = filepath.Join(filepath.Base(filepath.Dir(p)), filepath.Base(p))
		out = append(out, f)
	}
	return out
}

func stringifyErrors(t *testing.T, expect json.RawMessage) json.RawMessage {
	t.Helper()
	var e map[string]json.RawMessage
	if json.Unmarshal(expect, &e) != nil || e == nil {
		return expect
	}
	var errs []json.RawMessage
	_ = json.Unmarshal(e["errors"], &errs)
	strs := make([]string, len(errs))
	for i, x := range errs {
		var s string
		if json.Unmarshal(x, &s) != nil {
			s = string(x)
		}
		strs[i] = s
	}
	e["errors"], _ = json.Marshal(strs)
	out, _ := json.Marshal(e)
	return out
}

// wantUsage maps the provider's usage object as the llm.Usage doc says:
// prompt_tokens already includes cached tokens; cache reads come from
// prompt_tokens_details.cached_tokens or DeepSeek's prompt_cache_hit_tokens,
// cache writes from prompt_tokens_details.cache_write_tokens or the
// gateways' cache_creation_input_tokens.
func wantUsage(m map[string]any) llm.Usage {
	u := llm.Usage{
		InputTokens:      llmtest.Int(m, "prompt_tokens"),
		OutputTokens:     llmtest.Int(m, "completion_tokens"),
		CacheReadTokens:  llmtest.Int(m, "prompt_tokens_details.cached_tokens"),
		CacheWriteTokens: llmtest.Int(m, "prompt_tokens_details.cache_write_tokens"),
		ReasoningTokens:  llmtest.Int(m, "completion_tokens_details.reasoning_tokens"),
	}
	if u.CacheReadTokens == 0 {
		u.CacheReadTokens = llmtest.Int(m, "prompt_cache_hit_tokens")
	}
	if u.CacheWriteTokens == 0 {
		u.CacheWriteTokens = llmtest.Int(m, "cache_creation_input_tokens")
	}
	return u
}

// generatedIDs replaces expected tool-call ids the host left empty with the
// ids the client gives such calls (call_<position>).
func generatedIDs(f *llmtest.Fixture) {
	for i := range f.Expect.ToolCalls {
		if id := f.Expect.ToolCalls[i].ID; id != nil && *id == "" {
			gen := "call_" + strconv.Itoa(i)
			f.Expect.ToolCalls[i].ID = &gen
		}
	}
}

func TestFixtures(t *testing.T) {
	fixtures := loadFixtures(t, "openai_chat")
	if len(fixtures) < 250 {
		t.Fatalf("only %d openai_chat fixtures found", len(fixtures))
	}
	for _, f := range fixtures {
		t.Run(f.Path, func(t *testing.T) {
			srv := llmtest.Serve(t, f)
			c := New(Options{Options: llm.Options{BaseURL: srv.URL + "/v1", APIKey: "sk-test", KeyEnv: "OPENAI_API_KEY"}})
			generatedIDs(&f)
			var events []llm.Event
			resp, err := c.Generate(context.Background(), llmtest.Request(f), func(e llm.Event) { events = append(events, e) })
			if probs := llmtest.Check(f, resp, err, wantUsage); len(probs) > 0 {
				t.Fatalf("%s", strings.Join(probs, "\n"))
			}
			if resp == nil {
				t.Fatal("nil response")
			}
			checkRequest(t, srv, f)
			checkEvents(t, f, resp, err, events)
		})
	}
}

// checkRequest checks the one request the client sent: path, auth, model,
// stream flags.
func checkRequest(t *testing.T, srv *llmtest.Server, f llmtest.Fixture) {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/v1/chat/completions" {
		t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization %q", got)
	}
	var body map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("request body: %v", err)
	}
	if body["model"] != f.Model() {
		t.Errorf("model %v, want %s", body["model"], f.Model())
	}
	_, hasOpts := body["stream_options"]
	if f.Stream != (body["stream"] == true) || f.Stream != hasOpts {
		t.Errorf("stream %v stream_options %v for a stream=%v fixture", body["stream"], body["stream_options"], f.Stream)
	}
}

// checkEvents checks that the events told the same story as the response:
// the text and reasoning deltas add up, every tool call was reported once,
// and an error exchange ended in an APIError.
func checkEvents(t *testing.T, f llmtest.Fixture, resp *llm.Response, err error, events []llm.Event) {
	t.Helper()
	var text, reasoning strings.Builder
	calls := 0
	for _, e := range events {
		switch e.Type {
		case llm.EventText:
			text.WriteString(e.Text)
		case llm.EventReasoning:
			reasoning.WriteString(e.Text)
		case llm.EventToolCall:
			calls++
		}
	}
	if text.String() != resp.Message.Text() || reasoning.String() != resp.Message.Reasoning() {
		t.Errorf("events and response differ: text %q vs %q", text.String(), resp.Message.Text())
	}
	if calls != len(resp.Message.ToolCalls()) {
		t.Errorf("%d tool call events for %d calls", calls, len(resp.Message.ToolCalls()))
	}
	if err != nil && llm.KindOf(err) == llm.KindUnknown {
		t.Errorf("error is not an APIError: %v", err)
	}
}
