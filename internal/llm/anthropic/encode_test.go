package anthropic

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// encode returns the JSON body sent for req, decoded into a generic map.
func encode(t *testing.T, req *llm.Request) map[string]any {
	t.Helper()
	wr, err := buildRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(wr)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// content returns message i's content blocks.
func content(t *testing.T, body map[string]any, i int) []map[string]any {
	t.Helper()
	msgs := body["messages"].([]any)
	mustGreater(t, float64(len(msgs)), float64(i))
	var out []map[string]any
	for _, b := range msgs[i].(map[string]any)["content"].([]any) {
		out = append(out, b.(map[string]any))
	}
	return out
}

func roles(body map[string]any) []string {
	var out []string
	for _, m := range body["messages"].([]any) {
		out = append(out, m.(map[string]any)["role"].(string))
	}
	return out
}

func TestBuildRequestBasics(t *testing.T) {
	temp := 0.3
	body := encode(t, &llm.Request{
		Model:       "claude-sonnet-4-5",
		System:      "be brief",
		Messages:    []llm.Message{llm.UserText("hi")},
		Tools:       []llm.Tool{{Name: "read", Description: "read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}, {Name: "noargs"}},
		Temperature: &temp,
		Stream:      true,
	})
	mustEqual(t, "claude-sonnet-4-5", body["model"])
	mustEqualValues(t, DefaultMaxTokens, body["max_tokens"])
	mustEqual(t, true, body["stream"])
	mustEqual(t, 0.3, body["temperature"])
	mustEqual(t, []any{map[string]any{"type": "text", "text": "be brief"}}, body["system"])
	mustNotContains(t, body, "thinking")
	tools := body["tools"].([]any)
	mustEqual(t, map[string]any{"name": "read", "description": "read a file", "input_schema": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}}, tools[0])
	mustEqual(t, map[string]any{"type": "object", "properties": map[string]any{}}, tools[1].(map[string]any)["input_schema"], "a tool without parameters needs an object schema")
	mustEqual(t, []map[string]any{{"type": "text", "text": "hi"}}, content(t, body, 0))

	body = encode(t, &llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("hi")}, MaxTokens: 100})
	mustEqualValues(t, 100, body["max_tokens"])
	mustNotContains(t, body, "system")
	mustNotContains(t, body, "tools")
	mustNotContains(t, body, "stream")
	mustNotContains(t, body, "temperature")
}

func TestThinking(t *testing.T) {
	temp := 0.2
	cases := []struct {
		name              string
		req               llm.Request
		budget, maxTokens int
	}{
		{"budget", llm.Request{ThinkingBudget: 4000}, 4000, DefaultMaxTokens},
		{"budget raised to the minimum", llm.Request{ThinkingBudget: 10}, MinThinkingBudget, DefaultMaxTokens},
		{"max raised above budget", llm.Request{ThinkingBudget: 10000}, 10000, 10000 + DefaultMaxTokens},
		{"explicit max below budget", llm.Request{ThinkingBudget: 5000, MaxTokens: 2000}, 5000, 7000},
		{"explicit max equal to budget", llm.Request{ThinkingBudget: 5000, MaxTokens: 5000}, 5000, 10000},
		{"explicit max above budget", llm.Request{ThinkingBudget: 5000, MaxTokens: 6000}, 5000, 6000},
		{"budget wins over effort", llm.Request{ThinkingBudget: 2000, ReasoningEffort: "high"}, 2000, DefaultMaxTokens},
		{"minimal", llm.Request{ReasoningEffort: "minimal"}, 1024, DefaultMaxTokens},
		{"low", llm.Request{ReasoningEffort: "low"}, 4096, DefaultMaxTokens},
		{"medium", llm.Request{ReasoningEffort: "Medium"}, 8192, 16384},
		{"high", llm.Request{ReasoningEffort: "high"}, 24576, 24576 + DefaultMaxTokens},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := c.req
			req.Model = "m"
			req.Temperature = &temp
			req.Messages = []llm.Message{llm.UserText("hi")}
			body := encode(t, &req)
			mustEqual(t, map[string]any{"type": "enabled", "budget_tokens": float64(c.budget)}, body["thinking"])
			mustEqualValues(t, c.maxTokens, body["max_tokens"])
			mustGreater(t, body["max_tokens"].(float64), body["thinking"].(map[string]any)["budget_tokens"].(float64))
			mustNotContains(t, body, "temperature", "the API rejects temperature with thinking on")
		})
	}
}

func TestUnknownEffortIsRejectedBeforeSending(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	c := New(llm.Options{BaseURL: srv.URL})
	resp, err := c.Generate(context.Background(), &llm.Request{Model: "m", ReasoningEffort: "extreme", Messages: []llm.Message{llm.UserText("hi")}}, nil)
	mustNotNil(t, resp)
	mustEqual(t, llm.KindBadRequest, llm.KindOf(err))
	mustErrorContains(t, err, `unknown reasoning effort "extreme": use minimal, low, medium or high`)
	mustZero(t, hits.Load())
}

func TestAssistantBlocksSentBackUnchanged(t *testing.T) {
	body := encode(t, &llm.Request{Model: "m", Messages: []llm.Message{
		llm.UserText("q"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{
			{Type: llm.PartReasoning, Text: "let me think", Signature: "sig1"},
			{Type: llm.PartReasoning, Signature: "opaque", Redacted: true},
			{Type: llm.PartReasoning, Text: "from another provider"},
			{Type: llm.PartReasoning, Signature: "sig-empty-text"},
			{Type: llm.PartText, Text: "calling"},
			{Type: llm.PartText, Text: ""},
			{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "toolu_1", Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)}},
			{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "call.2:x", Name: "bad", Arguments: json.RawMessage(`"oops"`), ArgsError: "not an object"}},
			{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "toolu_3", Name: "empty"}},
		}},
	}})
	got := content(t, body, 1)
	want := []map[string]any{
		{"type": "thinking", "thinking": "let me think", "signature": "sig1"},
		{"type": "redacted_thinking", "data": "opaque"},
		{"type": "thinking", "thinking": "", "signature": "sig-empty-text"},
		{"type": "text", "text": "calling"},
		{"type": "tool_use", "id": "toolu_1", "name": "read", "input": map[string]any{"path": "a"}},
		{"type": "tool_use", "id": "call_2_x", "name": "bad", "input": map[string]any{}},
		{"type": "tool_use", "id": "toolu_3", "name": "empty", "input": map[string]any{}},
	}
	mustEqual(t, want, got)
}

func TestToolResultsMergedWithUserText(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n0000")
	body := encode(t, &llm.Request{Model: "m", Messages: []llm.Message{
		llm.UserText("q"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{
			{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "a", Name: "x", Arguments: json.RawMessage(`{}`)}},
			{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "call.2:x", Name: "y", Arguments: json.RawMessage(`{}`)}},
		}},
		llm.ToolResults(llm.ToolResult{CallID: "a", Name: "x", Content: "ok"}),
		llm.ToolResults(llm.ToolResult{CallID: "call.2:x", Name: "y", Content: "boom", IsError: true}),
		{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartText, Text: "and now?"}, {Type: llm.PartImage, Data: png}}},
		{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartReasoning, Text: "unsigned"}}},
		llm.UserText("again"),
	}})
	mustEqual(t, []string{"user", "assistant", "user"}, roles(body), "tool results, user text and the message after an empty assistant turn merge into one user message")
	got := content(t, body, 2)
	mustEqual(t, []map[string]any{
		{"type": "tool_result", "tool_use_id": "a", "content": "ok"},
		{"type": "tool_result", "tool_use_id": "call_2_x", "content": "boom", "is_error": true},
		{"type": "text", "text": "and now?"},
		{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgowMDAw"}},
		{"type": "text", "text": "again"},
	}, got)
}

func TestToolResultsMovedBeforeText(t *testing.T) {
	body := encode(t, &llm.Request{Model: "m", Messages: []llm.Message{
		llm.UserText("q"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "a", Name: "x"}}}},
		llm.UserText("interjection"),
		llm.ToolResults(llm.ToolResult{CallID: "a", Content: "ok"}),
		{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartImage, URL: "https://example.com/a.png", MIMEType: "image/png"}}},
	}})
	got := content(t, body, 2)
	mustLen(t, got, 3)
	mustEqual(t, "tool_result", got[0]["type"])
	mustEqual(t, "interjection", got[1]["text"])
	mustEqual(t, map[string]any{"type": "url", "url": "https://example.com/a.png"}, got[2]["source"])
}

// countBreakpoints counts cache_control markers anywhere in v.
func countBreakpoints(v any) int {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "cache_control" {
				n++
				continue
			}
			n += countBreakpoints(e)
		}
	case []any:
		for _, e := range x {
			n += countBreakpoints(e)
		}
	}
	return n
}

func TestCacheControl(t *testing.T) {
	msgs := []llm.Message{
		llm.UserText("one"),
		llm.AssistantText("a1"),
		llm.UserText("two"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "t1", Name: "x"}}}},
		llm.ToolResults(llm.ToolResult{CallID: "t1", Content: "r"}),
		llm.UserText("three"),
	}
	tools := []llm.Tool{{Name: "x"}, {Name: "y"}}
	body := encode(t, &llm.Request{Model: "m", System: "sys", Tools: tools, Messages: msgs, CacheControl: true})
	eph := map[string]any{"type": "ephemeral"}
	mustEqual(t, 4, countBreakpoints(body), "the API allows at most 4 breakpoints")
	mustEqual(t, eph, body["system"].([]any)[0].(map[string]any)["cache_control"])
	mustNotContains(t, body["tools"].([]any)[0], "cache_control")
	mustEqual(t, eph, body["tools"].([]any)[1].(map[string]any)["cache_control"])
	last := content(t, body, 4) // tool result + "three"
	mustNotContains(t, last[0], "cache_control")
	mustEqual(t, eph, last[1]["cache_control"])
	mustEqual(t, eph, content(t, body, 2)[0]["cache_control"])
	mustNotContains(t, content(t, body, 0)[0], "cache_control")
	mustNotContains(t, content(t, body, 1)[0], "cache_control", "assistant messages carry no breakpoint")

	body = encode(t, &llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("only")}, CacheControl: true})
	mustEqual(t, 1, countBreakpoints(body))

	body = encode(t, &llm.Request{Model: "m", System: "sys", Tools: tools, Messages: msgs})
	mustZero(t, countBreakpoints(body), "no breakpoints unless CacheControl is set")
}

func TestToolID(t *testing.T) {
	mustEqual(t, "toolu_01A-b_c", toolID("toolu_01A-b_c"))
	mustEqual(t, "call_1_2_", toolID("call.1:2é"[:9]))
	mustEqual(t, "toolu_empty", toolID(""))
	mustTrue(t, strings.Trim(toolID("a b/c"), "abc_") == "")
}
