package anthropic

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

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

func TestFixtures(t *testing.T) {
	llmtest.Conformance(t, "anthropic", func(base string) llm.Client {
		return New(llm.Options{BaseURL: base + "/v1", APIKey: "sk-test", KeyEnv: "ANTHROPIC_API_KEY"})
	}, wantUsage, llmtest.MinFixtures(50), llmtest.ExtraCheck(checkExchange))
}

// checkExchange checks the request's path and headers, that tool calls
// Anthropic ran itself (`"server": true` in the fixture, such as
// web_search, which aidex must not run) are not reported as client tool
// calls, and that the response has an id and a model.
func checkExchange(t *testing.T, c llmtest.Case) {
	r, resp := c.Sent, c.Response
	if r.Path != "/v1/messages" {
		t.Errorf("request to %s, want /v1/messages", r.Path)
	}
	if r.Header.Get("x-api-key") != "sk-test" || r.Header.Get("anthropic-version") != APIVersion {
		t.Errorf("headers: x-api-key %q, anthropic-version %q", r.Header.Get("x-api-key"), r.Header.Get("anthropic-version"))
	}
	server := 0
	for _, call := range c.Fixture.Expect.ToolCalls {
		if call.Server {
			server++
		}
	}
	if server > 0 && len(resp.Message.ToolCalls()) != 0 {
		t.Errorf("server tool use reported as a client tool call: %+v", resp.Message.ToolCalls())
	}
	if resp.ID == "" || resp.Model == "" {
		t.Errorf("response id %q, model %q: want both", resp.ID, resp.Model)
	}
}

// TestFixtureRoundTrip replays the first exchange of each recorded two-turn
// conversation and checks that the assistant message aidex would send back
// equals, block for block, the one the recorded second request sent
// (thinking signatures and tool_use inputs unchanged).
func TestFixtureRoundTrip(t *testing.T) {
	fixtures := llmtest.Load(t, "anthropic")
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
			llmtest.AssertJSONEqual(t, json.RawMessage(got), string(want))
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
