package responses

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

const okBody = `{"id":"resp_1","model":"gpt-5","status":"completed","output":[{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"ok"}]}],"usage":{"input_tokens":3,"output_tokens":1}}`

func TestBuildRequestConversation(t *testing.T) {
	temp := 0.5
	req := &llm.Request{
		Model:           "gpt-5",
		System:          "be brief",
		MaxTokens:       2000,
		Temperature:     &temp,
		ReasoningEffort: "Medium",
		Stream:          true,
		Tools: []llm.Tool{
			{Name: "read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "now", Description: "time"},
		},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Type: llm.PartText, Text: "look"},
				{Type: llm.PartImage, MIMEType: "image/jpeg", Data: []byte{1, 2, 3}},
				{Type: llm.PartImage, URL: "https://example.com/a.png"},
			}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{
				{Type: llm.PartReasoning, Text: "plan", Signature: "enc1", ID: "rs_1"},
				{Type: llm.PartReasoning, Signature: "enc2", ID: "rs_2"},
				{Type: llm.PartReasoning, Text: "no encrypted content", ID: "rs_3"},
				{Type: llm.PartReasoning, Text: "from another provider", Signature: "anthropic-sig"},
				{Type: llm.PartText, Text: "reading "},
				{Type: llm.PartText, Text: "two"},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "call_a", Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)}},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "call_b", Name: "read", Arguments: json.RawMessage(`"{bad"`), ArgsError: "not an object"}},
			}},
			llm.ToolResults(
				llm.ToolResult{CallID: "call_a", Name: "read", Content: "A"},
				llm.ToolResult{CallID: "call_b", Name: "read", Content: "bad arguments", IsError: true},
			),
			llm.UserText("thanks"),
		},
	}
	got, err := buildRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	llmtest.AssertJSONEqual(t, got, `{
	  "model": "gpt-5",
	  "instructions": "be brief",
	  "input": [
	    {"type": "message", "role": "user", "content": [
	      {"type": "input_text", "text": "look"},
	      {"type": "input_image", "image_url": "data:image/jpeg;base64,AQID"},
	      {"type": "input_image", "image_url": "https://example.com/a.png"}]},
	    {"type": "reasoning", "summary": [{"type": "summary_text", "text": "plan"}], "encrypted_content": "enc1"},
	    {"type": "reasoning", "summary": [], "encrypted_content": "enc2"},
	    {"type": "message", "role": "assistant", "content": [
	      {"type": "output_text", "text": "reading "}, {"type": "output_text", "text": "two"}]},
	    {"type": "function_call", "call_id": "call_a", "name": "read", "arguments": "{\"path\":\"a\"}"},
	    {"type": "function_call", "call_id": "call_b", "name": "read", "arguments": "{bad"},
	    {"type": "function_call_output", "call_id": "call_a", "output": "A"},
	    {"type": "function_call_output", "call_id": "call_b", "output": "bad arguments"},
	    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "thanks"}]}
	  ],
	  "tools": [
	    {"type": "function", "name": "read", "description": "Read a file", "strict": false,
	     "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
	    {"type": "function", "name": "now", "description": "time", "strict": false,
	     "parameters": {"type": "object", "properties": {}}}
	  ],
	  "reasoning": {"effort": "medium", "summary": "detailed"},
	  "max_output_tokens": 2000,
	  "temperature": 0.5,
	  "store": false,
	  "include": ["reasoning.encrypted_content"],
	  "stream": true
	}`)
}

func TestIncludeEncryptedReasoning(t *testing.T) {
	for _, c := range []struct {
		model, effort string
		want          bool
	}{
		{"gpt-4o", "", false}, {"gpt-4.1-mini", "", false}, {"gpt-4o", "low", true},
		{"gpt-5", "", true}, {"gpt-5.1-codex-max", "", true}, {"o4-mini", "", true}, {"o3", "", true},
		{"openai/gpt-oss-120b", "", true}, {"gpt-10", "", true}, {"omni-moderation", "", false},
	} {
		r, err := buildRequest(&llm.Request{Model: c.model, ReasoningEffort: c.effort, Messages: []llm.Message{llm.UserText("hi")}})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(r.Include) == 1; got != c.want {
			t.Errorf("%s effort %q: include %v, want %v", c.model, c.effort, r.Include, c.want)
		}
		if (r.Reasoning != nil) != (c.effort != "") {
			t.Errorf("%s effort %q: reasoning %+v", c.model, c.effort, r.Reasoning)
		}
	}
}

func TestBuildRequestErrors(t *testing.T) {
	cases := []struct {
		name   string
		req    llm.Request
		errHas string
	}{
		{"no model", llm.Request{Messages: []llm.Message{llm.UserText("hi")}}, "no model"},
		{"no messages", llm.Request{Model: "gpt-5"}, "no message content"},
		{"tool without name", llm.Request{Model: "gpt-5", Messages: []llm.Message{llm.UserText("hi")}, Tools: []llm.Tool{{}}}, "no name"},
		{"bad schema", llm.Request{Model: "gpt-5", Messages: []llm.Message{llm.UserText("hi")},
			Tools: []llm.Tool{{Name: "t", Parameters: json.RawMessage(`{"type":`)}}}, `tool "t"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cs := llmtest.ServeBody(t, 200, "application/json", okBody)
			resp, err := New(llm.Options{BaseURL: cs.URL}).Generate(context.Background(), &c.req, nil)
			if err == nil || !strings.Contains(err.Error(), c.errHas) || llm.KindOf(err) != llm.KindBadRequest {
				t.Fatalf("error %v (kind %s), want bad_request containing %q", err, llm.KindOf(err), c.errHas)
			}
			if resp == nil || len(cs.Requests()) != 0 {
				t.Error("nil response, or a request was sent for invalid input")
			}
		})
	}
}

func TestHeaders(t *testing.T) {
	req := &llm.Request{Model: "gpt-5", Messages: []llm.Message{llm.UserText("hi")}}
	cs := llmtest.ServeBody(t, 200, "application/json", okBody)
	resp, err := New(llm.Options{BaseURL: cs.URL + "/v1/", APIKey: "k1"}).Generate(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text() != "ok" || resp.FinishReason != "completed" || resp.ID != "resp_1" || resp.Model != "gpt-5" {
		t.Errorf("response %+v", resp)
	}
	r := cs.Requests()[0]
	if r.Path != "/v1/responses" || r.Header.Get("Authorization") != "Bearer k1" || r.Header.Get("Accept") == "text/event-stream" {
		t.Errorf("path %s headers %v", r.Path, r.Header)
	}
	// A key header set by configuration (Azure) wins over the bearer key.
	cs2 := llmtest.ServeBody(t, 200, "application/json", okBody)
	_, err = New(llm.Options{BaseURL: cs2.URL, APIKey: "k1", Headers: map[string]string{"authorization": "Token x", "api-key": "az"}}).Generate(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h := cs2.Requests()[0].Header; h.Get("Authorization") != "Token x" || h.Get("Api-Key") != "az" {
		t.Errorf("headers %v", h)
	}
	if New(llm.Options{}).opts.BaseURL != DefaultBaseURL || New(llm.Options{}).opts.Name != "openai" {
		t.Error("defaults not applied")
	}
}

// TestReasoningRoundTrip replays a recorded stream with a reasoning item and
// a function call, then checks the next request: the reasoning goes back
// with its final encrypted content (from output_item.done, not the earlier
// output_item.added) and no id, before the call it led to.
func TestReasoningRoundTrip(t *testing.T) {
	f := llmtest.LoadFile(t, "vercel-ai/packages_openai_src_responses___fixtures___openai-reasoning-encrypted-content.1.chunks.txt__0.json")
	srv := llmtest.Serve(t, f)
	resp, err := New(llm.Options{BaseURL: srv.URL}).Generate(context.Background(), &llm.Request{Model: "gpt-5.1-codex-max", Stream: true, Messages: []llm.Message{llm.UserText("compute")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var doneEnc string
	for _, line := range strings.Split(f.Body, "\n") {
		if strings.Contains(line, `"response.output_item.done"`) && strings.Contains(line, `"reasoning"`) {
			var ev event
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev); err != nil {
				t.Fatal(err)
			}
			doneEnc = ev.Item.EncryptedContent
		}
	}
	parts := resp.Message.Parts
	if len(parts) != 2 || parts[0].Type != llm.PartReasoning || parts[0].Signature != doneEnc || !strings.HasPrefix(parts[0].ID, "rs_") {
		t.Fatalf("parts %s", llmtest.JSONOf(t, parts))
	}
	call := resp.Message.ToolCalls()[0]
	next, err := buildRequest(&llm.Request{Model: "gpt-5.1-codex-max", Messages: []llm.Message{
		llm.UserText("compute"), resp.Message, llm.ToolResults(llm.ToolResult{CallID: call.ID, Name: call.Name, Content: "19"})}})
	if err != nil {
		t.Fatal(err)
	}
	llmtest.AssertJSONEqual(t, next.Input[1:], llmtest.JSONOf(t, []any{
		map[string]any{"type": "reasoning", "encrypted_content": doneEnc,
			"summary": []any{map[string]any{"type": "summary_text", "text": resp.Message.Reasoning()}}},
		map[string]any{"type": "function_call", "call_id": "call_AB6AaRZ1FYZB2RwS6A5vbdqn", "name": "calculator", "arguments": `{"a":12,"b":7,"op":"add"}`},
		map[string]any{"type": "function_call_output", "call_id": "call_AB6AaRZ1FYZB2RwS6A5vbdqn", "output": "19"},
	}))
	if !strings.Contains(llmtest.JSONOf(t, next), `"include":["reasoning.encrypted_content"]`) {
		t.Error("include missing for a reasoning model")
	}
}

// TestCustomToolCall checks the free-form tool call aidex never offers: it
// is reported as a call with ArgsError, and sent back with its original
// input.
func TestCustomToolCall(t *testing.T) {
	cs := llmtest.ServeBody(t, 200, "application/json",
		`{"id":"r","status":"completed","output":[{"type":"custom_tool_call","id":"ct_1","call_id":"call_x","name":"write_sql","input":"SELECT 1"}]}`)
	resp, err := New(llm.Options{BaseURL: cs.URL}).Generate(context.Background(), &llm.Request{Model: "gpt-5", Messages: []llm.Message{llm.UserText("q")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls()
	if len(calls) != 1 || calls[0].ArgsError == "" || calls[0].ID != "call_x" {
		t.Fatalf("calls %+v", calls)
	}
	if got := callArguments(calls[0]); got != "SELECT 1" {
		t.Errorf("arguments sent back %q", got)
	}
}

// Issue 23 item 9: verbosity goes out as text.verbosity.
func TestBuildRequestVerbosity(t *testing.T) {
	out, err := buildRequest(&llm.Request{Model: "gpt-5", Verbosity: "High", Messages: []llm.Message{llm.UserText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(out); !strings.Contains(string(b), `"text":{"verbosity":"high"}`) {
		t.Errorf("no text.verbosity: %s", b)
	}
	out, _ = buildRequest(&llm.Request{Model: "gpt-5", Messages: []llm.Message{llm.UserText("hi")}})
	if b, _ := json.Marshal(out); strings.Contains(string(b), "verbosity") {
		t.Errorf("verbosity sent unset: %s", b)
	}
}
