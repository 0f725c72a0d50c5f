package anthropic

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// loadFixtures returns the recorded exchanges of wire format "anthropic".
// It does what llmtest.Load does, but decodes each file's expect only once
// its wire format is known: llmtest.Load fails on the whole corpus because
// three non-Anthropic fixtures carry error objects, not strings, in
// expect.errors.
func loadFixtures(t *testing.T) []llmtest.Fixture {
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
		var head struct {
			WireFormat string `json:"wire_format"`
		}
		if err := json.Unmarshal(data, &head); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if head.WireFormat != "anthropic" {
			continue
		}
		var f llmtest.Fixture
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		f.Path = filepath.Join(filepath.Base(filepath.Dir(p)), filepath.Base(p))
		out = append(out, f)
	}
	return out
}

// wantUsage maps the provider's usage object the way the llm.Usage doc says.
func wantUsage(m map[string]any) llm.Usage {
	read := llmtest.Int(m, "cache_read_input_tokens")
	write := llmtest.Int(m, "cache_creation_input_tokens")
	return llm.Usage{
		InputTokens:      llmtest.Int(m, "input_tokens") + read + write,
		OutputTokens:     llmtest.Int(m, "output_tokens"),
		CacheReadTokens:  read,
		CacheWriteTokens: write,
	}
}

// serverCalls drops the expected calls the fixture marks `"server": true`
// (Anthropic-side tools such as web_search, which aidex must not run) and
// returns how many it dropped. llmtest.ExpectedCall does not decode that
// flag, so the fixture file is read again.
func serverCalls(t *testing.T, f *llmtest.Fixture) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(llmtest.FixturesDir(), f.Path))
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Expect struct {
			ToolCalls []struct {
				Server bool `json:"server"`
			} `json:"tool_calls"`
		} `json:"expect"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	var keep []llmtest.ExpectedCall
	for i, c := range f.Expect.ToolCalls {
		if !raw.Expect.ToolCalls[i].Server {
			keep = append(keep, c)
		}
	}
	n := len(f.Expect.ToolCalls) - len(keep)
	f.Expect.ToolCalls = keep
	return n
}

func TestFixtures(t *testing.T) {
	fixtures := loadFixtures(t)
	if len(fixtures) < 50 {
		t.Fatalf("only %d anthropic fixtures found", len(fixtures))
	}
	for _, f := range fixtures {
		t.Run(f.Path, func(t *testing.T) {
			srv := llmtest.Serve(t, f)
			c := New(llm.Options{BaseURL: srv.URL + "/v1", APIKey: "sk-test", KeyEnv: "ANTHROPIC_API_KEY"})
			server := serverCalls(t, &f)
			var events []llm.Event
			resp, err := c.Generate(context.Background(), llmtest.Request(f), func(e llm.Event) { events = append(events, e) })
			if probs := llmtest.Check(f, resp, err, wantUsage); len(probs) > 0 {
				t.Fatalf("%s", strings.Join(probs, "\n"))
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("got %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Method != "POST" || r.Path != "/v1/messages" {
				t.Errorf("request %s %s, want POST /v1/messages", r.Method, r.Path)
			}
			if r.Header.Get("x-api-key") != "sk-test" || r.Header.Get("anthropic-version") != APIVersion {
				t.Errorf("headers: x-api-key %q, anthropic-version %q", r.Header.Get("x-api-key"), r.Header.Get("anthropic-version"))
			}
			checkEvents(t, resp, events)
			if server > 0 && len(resp.Message.ToolCalls()) != 0 {
				t.Errorf("server tool use reported as a client tool call: %+v", resp.Message.ToolCalls())
			}
			if resp.ID == "" || resp.Model == "" {
				t.Errorf("response id %q, model %q: want both", resp.ID, resp.Model)
			}
		})
	}
}

// checkEvents verifies the events agree with the response: the deltas add
// up to the text and reasoning, the tool calls and the finish reason match.
func checkEvents(t *testing.T, resp *llm.Response, events []llm.Event) {
	t.Helper()
	var text, reasoning strings.Builder
	var calls []llm.ToolCall
	finish := ""
	for _, e := range events {
		switch e.Type {
		case llm.EventText:
			text.WriteString(e.Text)
		case llm.EventReasoning:
			reasoning.WriteString(e.Text)
		case llm.EventToolCall:
			calls = append(calls, *e.ToolCall)
		case llm.EventFinish:
			finish = e.FinishReason
		}
	}
	if text.String() != resp.Message.Text() || reasoning.String() != resp.Message.Reasoning() {
		t.Errorf("events do not add up to the response text/reasoning")
	}
	if !reflect.DeepEqual(calls, resp.Message.ToolCalls()) {
		t.Errorf("tool call events %+v, response %+v", calls, resp.Message.ToolCalls())
	}
	if finish != resp.FinishReason {
		t.Errorf("finish event %q, response %q", finish, resp.FinishReason)
	}
}

// TestFixtureRoundTrip replays the first exchange of each recorded two-turn
// conversation and checks that the assistant message aidex would send back
// equals, block for block, the one the recorded second request sent
// (thinking signatures and tool_use inputs unchanged).
func TestFixtureRoundTrip(t *testing.T) {
	fixtures := loadFixtures(t)
	byPath := map[string]llmtest.Fixture{}
	for _, f := range fixtures {
		byPath[f.Path] = f
	}
	checked := 0
	for _, first := range fixtures {
		if !strings.HasSuffix(first.Path, "__0.json") {
			continue
		}
		second, ok := byPath[strings.TrimSuffix(first.Path, "__0.json")+"__1.json"]
		if !ok || second.Request == nil {
			continue
		}
		want := recordedAssistant(t, second.Request)
		if want == nil {
			continue
		}
		checked++
		t.Run(first.Path, func(t *testing.T) {
			srv := llmtest.Serve(t, first)
			c := New(llm.Options{BaseURL: srv.URL})
			resp, err := c.Generate(context.Background(), llmtest.Request(first), nil)
			if err != nil {
				t.Fatal(err)
			}
			msgs := buildMessages([]llm.Message{resp.Message})
			got, _ := json.Marshal(msgs[0].Content)
			if !jsonEq(t, got, want) {
				t.Errorf("assistant message sent back:\n got %s\nwant %s", got, want)
			}
		})
	}
	if checked < 5 {
		t.Fatalf("only %d round trips checked", checked)
	}
}

// recordedAssistant returns the content of the first assistant message of a
// recorded request, without cache_control markers; nil when there is none.
func recordedAssistant(t *testing.T, req json.RawMessage) json.RawMessage {
	var r struct {
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(req, &r); err != nil {
		t.Fatal(err)
	}
	for _, m := range r.Messages {
		if m.Role != "assistant" {
			continue
		}
		for _, b := range m.Content {
			delete(b, "cache_control")
		}
		out, _ := json.Marshal(m.Content)
		return out
	}
	return nil
}

func jsonEq(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}
