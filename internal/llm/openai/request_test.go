package openai

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// conversation is a request touching every mapping: system, user text and
// images, assistant reasoning/text/tool calls, tool results, tools.
func conversation() *llm.Request {
	temp := 0.2
	return &llm.Request{
		Model:           "m1",
		System:          "be brief",
		MaxTokens:       500,
		Temperature:     &temp,
		ReasoningEffort: "High",
		Stream:          true,
		Tools: []llm.Tool{
			{Name: "read", Description: "read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
			{Name: "now", Description: "the time"},
		},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Type: llm.PartText, Text: "look"},
				{Type: llm.PartImage, MIMEType: "image/png", Data: []byte{1, 2, 3}},
				{Type: llm.PartImage, URL: "https://x.test/a.jpg"},
			}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{
				{Type: llm.PartReasoning, Text: "think", Signature: "sig1", ID: "anthropic-claude-v1|"},
				{Type: llm.PartReasoning, Text: "sum", Signature: "enc", ID: "openai-responses-v1|rs_1", Redacted: true},
				{Type: llm.PartText, Text: "reading"},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path":"a"}`), Signature: "gsig"}},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "c2", Name: "read", Arguments: json.RawMessage(`"{bad"`), ArgsError: "not an object"}},
			}},
			llm.ToolResults(llm.ToolResult{CallID: "c1", Name: "read", Content: "A"}, llm.ToolResult{CallID: "c2", Name: "read", Content: "bad args", IsError: true}),
			llm.UserText("thanks"),
		},
	}
}

// sent returns the JSON body the client sends for req to base.
func sent(t *testing.T, base string, req *llm.Request) map[string]any {
	t.Helper()
	srv, cap := serve(t, 200, sseBody(`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`, "[DONE]"))
	c := clientFor(srv, base, nil)
	if _, err, _ := run(t, c, req); err != nil {
		t.Fatal(err)
	}
	path, hdr, body := cap.get()
	if !strings.HasSuffix(path, "/chat/completions") {
		t.Errorf("path %s", path)
	}
	if hdr.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("Authorization %q", hdr.Get("Authorization"))
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestRequestMessages(t *testing.T) {
	m := sent(t, "https://api.example.test/v1", conversation())
	want := []any{
		map[string]any{"role": "system", "content": "be brief"},
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "look"},
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,AQID"}},
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": "https://x.test/a.jpg"}},
		}},
		map[string]any{"role": "assistant", "content": "reading", "tool_calls": []any{
			map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "read", "arguments": `{"path":"a"}`}},
			map[string]any{"id": "c2", "type": "function", "function": map[string]any{"name": "read", "arguments": `{bad`}},
		}},
		map[string]any{"role": "tool", "tool_call_id": "c1", "content": "A"},
		map[string]any{"role": "tool", "tool_call_id": "c2", "content": "bad args"},
		map[string]any{"role": "user", "content": "thanks"},
	}
	if got := m["messages"]; !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		t.Errorf("messages:\n%s", g)
	}
	tools := m["tools"].([]any)
	if len(tools) != 2 {
		t.Fatalf("tools %v", tools)
	}
	wantTool := map[string]any{"type": "function", "function": map[string]any{"name": "now", "description": "the time", "parameters": map[string]any{"type": "object", "properties": map[string]any{}}}}
	if !reflect.DeepEqual(tools[1], wantTool) {
		t.Errorf("tool without parameters: %v", tools[1])
	}
	if m["model"] != "m1" || m["temperature"] != 0.2 || m["stream"] != true {
		t.Errorf("model/temperature/stream: %v %v %v", m["model"], m["temperature"], m["stream"])
	}
}

func TestRequestHostQuirks(t *testing.T) {
	cases := []struct {
		base string
		want map[string]any // expected top-level fields; nil value: must be absent
		echo string         // "", "reasoning_content" or "reasoning_details"
		sig  bool           // thought signature on tool calls
	}{
		{"https://api.openai.com/v1", map[string]any{"max_completion_tokens": 500.0, "max_tokens": nil, "reasoning_effort": "high", "reasoning": nil, "stream_options": map[string]any{"include_usage": true}}, "", false},
		{"https://res.openai.azure.com/openai/v1", map[string]any{"max_completion_tokens": 500.0, "reasoning_effort": "high"}, "", false},
		{"https://api.groq.com/openai/v1", map[string]any{"max_tokens": 500.0, "max_completion_tokens": nil, "reasoning_effort": "high"}, "", false},
		{"http://localhost:11434/v1", map[string]any{"max_tokens": 500.0, "reasoning_effort": "high"}, "", false},
		{"https://openrouter.ai/api/v1", map[string]any{"max_tokens": 500.0, "reasoning_effort": nil, "reasoning": map[string]any{"effort": "high"}}, "reasoning_details", false},
		{"https://ai-gateway.vercel.sh/v1", map[string]any{"reasoning": map[string]any{"effort": "high"}}, "reasoning_details", false},
		{"https://api.mistral.ai/v1", map[string]any{"max_tokens": 500.0, "stream_options": nil, "reasoning_effort": nil, "reasoning": nil}, "", false},
		{"https://api.deepseek.com/v1", map[string]any{"max_tokens": 500.0, "reasoning_effort": "high"}, "reasoning_content", false},
		{"https://api.z.ai/api/paas/v4", map[string]any{"reasoning_effort": "high"}, "reasoning_content", false},
		{"https://generativelanguage.googleapis.com/v1beta/openai", map[string]any{"reasoning_effort": "high"}, "", true},
	}
	for _, c := range cases {
		t.Run(c.base, func(t *testing.T) {
			m := sent(t, c.base, conversation())
			for k, v := range c.want {
				got, ok := m[k]
				if v == nil {
					if ok {
						t.Errorf("%s sent (%v), want absent", k, got)
					}
					continue
				}
				if !reflect.DeepEqual(got, v) {
					t.Errorf("%s = %v, want %v", k, got, v)
				}
			}
			asst := m["messages"].([]any)[2].(map[string]any)
			_, hasContent := asst["reasoning_content"]
			_, hasDetails := asst["reasoning_details"]
			if hasContent != (c.echo == "reasoning_content") || hasDetails != (c.echo == "reasoning_details") {
				t.Errorf("reasoning echo: content %v details %v, want %q", hasContent, hasDetails, c.echo)
			}
			if c.echo == "reasoning_content" && asst["reasoning_content"] != "thinksum" {
				t.Errorf("reasoning_content %v", asst["reasoning_content"])
			}
			call := asst["tool_calls"].([]any)[0].(map[string]any)
			_, hasSig := call["extra_content"]
			if hasSig != c.sig {
				t.Errorf("extra_content on tool call: %v, want %v", call["extra_content"], c.sig)
			}
		})
	}
}

func TestRequestReasoningDetailsEcho(t *testing.T) {
	m := sent(t, "https://openrouter.ai/api/v1", conversation())
	asst := m["messages"].([]any)[2].(map[string]any)
	want := []any{
		map[string]any{"type": "reasoning.text", "text": "think", "signature": "sig1", "format": "anthropic-claude-v1", "index": 0.0},
		map[string]any{"type": "reasoning.summary", "summary": "sum", "id": "rs_1", "format": "openai-responses-v1", "index": 1.0},
		map[string]any{"type": "reasoning.encrypted", "data": "enc", "id": "rs_1", "format": "openai-responses-v1", "index": 1.0},
	}
	if got := asst["reasoning_details"]; !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		t.Errorf("reasoning_details:\n%s", g)
	}
}

// TestReasoningRoundTrip reads OpenRouter reasoning_details and sends them
// back unchanged on the next request.
func TestReasoningRoundTrip(t *testing.T) {
	details := `[{"type":"reasoning.text","text":"plan","signature":"SIG","format":"anthropic-claude-v1","index":0}]`
	srv, _ := serve(t, 200, sseBody(
		`{"choices":[{"index":0,"delta":{"reasoning":"plan","reasoning_details":[{"type":"reasoning.text","text":"plan","format":"anthropic-claude-v1","index":0}]}}]}`,
		`{"choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.text","signature":"SIG","format":"anthropic-claude-v1","index":0}]}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"done"},"finish_reason":"stop"}]}`,
		"[DONE]"))
	c := clientFor(srv, "https://openrouter.ai/api/v1", nil)
	resp, err, _ := run(t, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	next := &llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("hi"), resp.Message, llm.UserText("more")}}
	m := sent(t, "https://openrouter.ai/api/v1", next)
	got, _ := json.Marshal(m["messages"].([]any)[1].(map[string]any)["reasoning_details"])
	var a, b any
	_ = json.Unmarshal(got, &a)
	_ = json.Unmarshal([]byte(details), &b)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("reasoning_details sent back %s, want %s", got, details)
	}
}

// TestRequestEmptyReasoningContent: DeepSeek rejects an assistant message
// with tool calls and no reasoning_content
// (https://api-docs.deepseek.com/guides/thinking_mode#tool-calls).
func TestRequestEmptyReasoningContent(t *testing.T) {
	req := &llm.Request{Model: "deepseek-chat", Messages: []llm.Message{
		llm.UserText("hi"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "c", Name: "f", Arguments: json.RawMessage(`{}`)}}}},
		llm.ToolResults(llm.ToolResult{CallID: "c", Name: "f", Content: "x"}),
		llm.AssistantText("plain answer"),
		llm.UserText("more"),
	}}
	msgs := sent(t, "https://api.deepseek.com", req)["messages"].([]any)
	withCalls := msgs[1].(map[string]any)
	if v, ok := withCalls["reasoning_content"]; !ok || v != "" {
		t.Errorf("assistant with tool calls: reasoning_content %v (present %v), want \"\"", v, ok)
	}
	if _, ok := msgs[3].(map[string]any)["reasoning_content"]; ok {
		t.Errorf("assistant without tool calls or reasoning carries reasoning_content")
	}
}

func TestRequestOpenRouterThinkingBudget(t *testing.T) {
	req := &llm.Request{Model: "m", ThinkingBudget: 2048, Messages: []llm.Message{llm.UserText("hi")}}
	m := sent(t, "https://openrouter.ai/api/v1", req)
	if !reflect.DeepEqual(m["reasoning"], map[string]any{"max_tokens": 2048.0}) {
		t.Errorf("reasoning %v", m["reasoning"])
	}
	if _, ok := m["stream"]; ok {
		t.Errorf("stream sent for a non-streamed request")
	}
}

func TestRequestAzureKeyHeader(t *testing.T) {
	srv, cap := serve(t, 200, `{"choices":[{"index":0,"message":{"content":"x"},"finish_reason":"stop"}]}`)
	c := clientFor(srv, "https://res.openai.azure.com/openai/v1", nil)
	if _, err, _ := run(t, c, &llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("hi")}}); err != nil {
		t.Fatal(err)
	}
	if _, hdr, _ := cap.get(); hdr.Get("api-key") != "sk-test" {
		t.Errorf("api-key header %q", hdr.Get("api-key"))
	}
}

func TestRequestNoKeyNoAuthHeader(t *testing.T) {
	srv, cap := serve(t, 200, `{"choices":[{"index":0,"message":{"content":"x"},"finish_reason":"stop"}]}`)
	c := clientFor(srv, "http://localhost:8080/v1", func(o *Options) { o.APIKey = "" })
	if _, err, _ := run(t, c, &llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("hi")}}); err != nil {
		t.Fatal(err)
	}
	if _, hdr, _ := cap.get(); hdr.Get("Authorization") != "" {
		t.Errorf("Authorization sent without a key: %q", hdr.Get("Authorization"))
	}
}

func TestRequestBadInput(t *testing.T) {
	srv, _ := serve(t, 200, `{}`)
	c := clientFor(srv, "https://api.example.test/v1", nil)
	cases := map[string]*llm.Request{
		"no model":        {Messages: []llm.Message{llm.UserText("hi")}},
		"image no bytes":  {Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartImage}}}}},
		"unknown role":    {Model: "m", Messages: []llm.Message{{Role: "wizard", Parts: []llm.Part{{Type: llm.PartText, Text: "x"}}}}},
		"tool msg images": {Model: "m", Messages: []llm.Message{{Role: llm.RoleTool, Parts: []llm.Part{{Type: llm.PartImage}}}}},
	}
	for name, req := range cases {
		t.Run(name, func(t *testing.T) {
			_, err, _ := run(t, c, req)
			if llm.KindOf(err) != llm.KindBadRequest {
				t.Fatalf("got %v, want a bad_request error", err)
			}
		})
	}
}

func TestQuirksFor(t *testing.T) {
	if q := quirksFor("OpenRouter.ai"); q.effort != effortObject {
		t.Error("host match must ignore case")
	}
	if q := quirksFor("notopenrouter.ai"); q != (quirks{}) {
		t.Error("a host that only ends with the same letters must not match")
	}
	if q := quirksFor("eu.api.openai.com"); !q.maxCompletionTokens {
		t.Error("subdomains must match")
	}
}
