package gemini

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

const okBody = `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1}}`

func TestBuildRequestConversation(t *testing.T) {
	temp := 0.2
	req := &llm.Request{
		Model:       "gemini-2.5-flash",
		System:      "be brief",
		MaxTokens:   1000,
		Temperature: &temp,
		Tools: []llm.Tool{{Name: "read", Description: "Read a file",
			Parameters: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Type: llm.PartText, Text: "look"},
				{Type: llm.PartImage, MIMEType: "image/jpeg", Data: []byte{1, 2, 3}},
				{Type: llm.PartImage, MIMEType: "image/png", URL: "gs://bucket/a.png"},
			}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{
				{Type: llm.PartReasoning, Text: "thinking", Signature: "sigR"},
				{Type: llm.PartReasoning, Text: "redacted", Signature: "x", Redacted: true},
				{Type: llm.PartReasoning, Text: "openai summary", Signature: "gAAAA", ID: "rs_1"},
				{Type: llm.PartText, Text: "reading", Signature: "sigT"},
				{Type: llm.PartText, Text: "", Signature: "sigEmpty"},
				{Type: llm.PartText, Text: ""},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "abc123", Name: "read", Arguments: json.RawMessage(`{"path":"a"}`), Signature: "sigC"}},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "call_7", Name: "read", Arguments: json.RawMessage(`{"path":"b"}`)}},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "call_8", Name: "read", Arguments: json.RawMessage(`"oops"`), ArgsError: "not an object"}},
			}},
			llm.ToolResults(
				llm.ToolResult{CallID: "abc123", Name: "read", Content: "A"},
				llm.ToolResult{CallID: "call_7", Content: "no such file", IsError: true},
			),
			{Role: llm.RoleAssistant}, // empty: left out
			llm.UserText("thanks"),
		},
	}
	got, err := buildRequest(req, false)
	if err != nil {
		t.Fatal(err)
	}
	llmtest.AssertJSONEqual(t, got, `{
	  "systemInstruction": {"parts": [{"text": "be brief"}]},
	  "contents": [
	    {"role": "user", "parts": [
	      {"text": "look"},
	      {"inlineData": {"mimeType": "image/jpeg", "data": "AQID"}},
	      {"fileData": {"mimeType": "image/png", "fileUri": "gs://bucket/a.png"}}]},
	    {"role": "model", "parts": [
	      {"text": "thinking", "thought": true, "thoughtSignature": "sigR"},
	      {"text": "reading", "thoughtSignature": "sigT"},
	      {"text": "", "thoughtSignature": "sigEmpty"},
	      {"functionCall": {"id": "abc123", "name": "read", "args": {"path": "a"}}, "thoughtSignature": "sigC"},
	      {"functionCall": {"name": "read", "args": {"path": "b"}}},
	      {"functionCall": {"name": "read", "args": {}}}]},
	    {"role": "user", "parts": [
	      {"functionResponse": {"id": "abc123", "name": "read", "response": {"output": "A"}}},
	      {"functionResponse": {"name": "read", "response": {"error": "no such file"}}}]},
	    {"role": "user", "parts": [{"text": "thanks"}]}
	  ],
	  "tools": [{"functionDeclarations": [{"name": "read", "description": "Read a file",
	    "parametersJsonSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"], "additionalProperties": false}}]}],
	  "generationConfig": {"maxOutputTokens": 1000, "temperature": 0.2}
	}`)
}

// TestToolSchemaForms checks both ways of sending a tool schema through a
// real request: parametersJsonSchema by default, parameters with
// WithOpenAPISchemas.
func TestToolSchemaForms(t *testing.T) {
	req := &llm.Request{Model: "gemini-2.5-flash", Messages: []llm.Message{llm.UserText("hi")}, Tools: []llm.Tool{
		{Name: "env", Description: "set env", Parameters: json.RawMessage(`{"type":"object","properties":{"vars":{"type":"object","additionalProperties":{"type":"string"}},"n":{"type":["integer","null"]}}}`)},
		{Name: "now", Description: "no args", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)},
	}}
	decls := func(t *testing.T, opts ...Option) []any {
		t.Helper()
		cs := llmtest.ServeBody(t, 200, "application/json", okBody)
		if _, err := New(llm.Options{BaseURL: cs.URL}, opts...).Generate(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		return cs.LastBody(t)["tools"].([]any)[0].(map[string]any)["functionDeclarations"].([]any)
	}
	llmtest.AssertJSONEqual(t, decls(t), `[
	  {"name":"env","description":"set env","parametersJsonSchema":{"type":"object","properties":{"vars":{"type":"object","additionalProperties":{"type":"string"}},"n":{"type":["integer","null"]}}}},
	  {"name":"now","description":"no args"}]`)
	llmtest.AssertJSONEqual(t, decls(t, WithOpenAPISchemas()), `[
	  {"name":"env","description":"set env","parameters":{"type":"OBJECT","properties":{"vars":{"type":"OBJECT"},"n":{"type":"INTEGER","nullable":true}}}},
	  {"name":"now","description":"no args"}]`)
}

func TestBuildThinking(t *testing.T) {
	cases := []struct {
		name   string
		req    llm.Request
		want   string // JSON of thinkingConfig, "" for none
		errHas string
	}{
		{"off", llm.Request{Model: "gemini-2.5-flash"}, "", ""},
		{"budget", llm.Request{Model: "gemini-2.5-pro", ThinkingBudget: 4096}, `{"thinkingBudget":4096,"includeThoughts":true}`, ""},
		{"budget wins over effort", llm.Request{Model: "gemini-3-pro-preview", ThinkingBudget: 128, ReasoningEffort: "high"}, `{"thinkingBudget":128,"includeThoughts":true}`, ""},
		{"effort on 2.5", llm.Request{Model: "gemini-2.5-flash", ReasoningEffort: "low"}, `{"thinkingBudget":2048,"includeThoughts":true}`, ""},
		{"minimal on 2.5 stays above Pro's floor", llm.Request{Model: "gemini-2.5-pro", ReasoningEffort: "minimal"}, `{"thinkingBudget":512,"includeThoughts":true}`, ""},
		{"effort on 3", llm.Request{Model: "gemini-3-pro-preview", ReasoningEffort: "HIGH"}, `{"thinkingLevel":"high","includeThoughts":true}`, ""},
		{"effort on 3.1 with prefix", llm.Request{Model: "models/gemini-3.1-flash", ReasoningEffort: "medium"}, `{"thinkingLevel":"medium","includeThoughts":true}`, ""},
		{"unknown effort", llm.Request{Model: "gemini-2.5-flash", ReasoningEffort: "extreme"}, "", "unknown reasoning effort"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tc, err := buildThinking(&c.req)
			if c.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), c.errHas) {
					t.Fatalf("error %v, want one containing %q", err, c.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if tc != nil {
					t.Fatalf("got %s, want no thinkingConfig", llmtest.JSONOf(t, tc))
				}
				return
			}
			llmtest.AssertJSONEqual(t, tc, c.want)
		})
	}
}

func TestIsGemini3Plus(t *testing.T) {
	for model, want := range map[string]bool{
		"gemini-3-pro-preview": true, "gemini-3.1-pro-preview": true, "models/gemini-3-flash": true,
		"gemini-10-ultra": true, "gemini-2.5-flash": false, "gemini-1.5-pro": false,
		"gemini-exp-1206": false, "gemini-flash-latest": false, "gpt-5": false, "": false,
	} {
		if got := isGemini3Plus(model); got != want {
			t.Errorf("isGemini3Plus(%q) = %v, want %v", model, got, want)
		}
	}
}

func TestPlaceholderSignatureOnGemini3(t *testing.T) {
	calls := func(sigs ...string) llm.Message {
		m := llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartText, Text: "ok"}}}
		for i, s := range sigs {
			m.Parts = append(m.Parts, llm.Part{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{
				ID: "c" + string(rune('a'+i)), Name: "f", Arguments: json.RawMessage(`{}`), Signature: s}})
		}
		return m
	}
	sigsOf := func(t *testing.T, model string, m llm.Message) []string {
		t.Helper()
		r, err := buildRequest(&llm.Request{Model: model, Messages: []llm.Message{llm.UserText("q"), m}}, false)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range r.Contents[1].Parts {
			out = append(out, p.ThoughtSignature)
		}
		return out
	}
	if got := sigsOf(t, "gemini-3-pro-preview", calls("", "")); llmtest.JSONOf(t, got) != `["","skip_thought_signature_validator",""]` {
		t.Errorf("unsigned calls on Gemini 3: %v", got)
	}
	if got := sigsOf(t, "gemini-3-pro-preview", calls("real", "")); llmtest.JSONOf(t, got) != `["","real",""]` {
		t.Errorf("signed calls on Gemini 3 changed: %v", got)
	}
	if got := sigsOf(t, "gemini-2.5-flash", calls("", "")); llmtest.JSONOf(t, got) != `["","",""]` {
		t.Errorf("Gemini 2.5 got a placeholder: %v", got)
	}
}

func TestBuildRequestErrors(t *testing.T) {
	cases := []struct {
		name   string
		req    llm.Request
		errHas string
	}{
		{"no model", llm.Request{Messages: []llm.Message{llm.UserText("hi")}}, "no model"},
		{"no messages", llm.Request{Model: "gemini-2.5-flash"}, "no message content"},
		{"only empty text", llm.Request{Model: "gemini-2.5-flash", Messages: []llm.Message{llm.UserText("")}}, "no message content"},
		{"tool without name", llm.Request{Model: "gemini-2.5-flash", Messages: []llm.Message{llm.UserText("hi")}, Tools: []llm.Tool{{}}}, "no name"},
		{"bad schema", llm.Request{Model: "gemini-2.5-flash", Messages: []llm.Message{llm.UserText("hi")},
			Tools: []llm.Tool{{Name: "t", Parameters: json.RawMessage(`{"type":`)}}}, `tool "t"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cs := llmtest.ServeBody(t, 200, "application/json", okBody)
			resp, err := New(llm.Options{BaseURL: cs.URL}).Generate(context.Background(), &c.req, nil)
			if err == nil || !strings.Contains(err.Error(), c.errHas) {
				t.Fatalf("error %v, want one containing %q", err, c.errHas)
			}
			if llm.KindOf(err) != llm.KindBadRequest {
				t.Errorf("kind %s, want bad_request", llm.KindOf(err))
			}
			if resp == nil {
				t.Error("nil response on error")
			}
			if len(cs.Requests()) != 0 {
				t.Error("a request was sent for invalid input")
			}
		})
	}
}

func TestHeadersAndEndpoint(t *testing.T) {
	cs := llmtest.ServeBody(t, 200, "application/json", okBody)
	c := New(llm.Options{BaseURL: cs.URL + "/v1beta/", Headers: map[string]string{"X-Extra": "1"}})
	resp, err := c.Generate(context.Background(), &llm.Request{Model: "gemini-2.5-flash", Messages: []llm.Message{llm.UserText("hi")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text() != "ok" || resp.FinishReason != "STOP" || resp.Usage.InputTokens != 3 {
		t.Errorf("response %+v", resp)
	}
	r := cs.Requests()[0]
	if r.Path != "/v1beta/models/gemini-2.5-flash:generateContent" {
		t.Errorf("path %s", r.Path)
	}
	if r.Header.Get("x-goog-api-key") != "" {
		t.Error("x-goog-api-key sent without a key")
	}
	if r.Header.Get("X-Extra") != "1" || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", r.Header)
	}
	if New(llm.Options{}).opts.BaseURL != DefaultBaseURL || New(llm.Options{}).opts.Name != "gemini" {
		t.Error("defaults not applied")
	}
}

// TestSignatureRoundTrip replays a recorded Gemini 3 answer with two calls
// and checks that the next request sends the model turn back the way the
// recorded next request did: ids, arguments and the signature on the first
// call only.
func TestSignatureRoundTrip(t *testing.T) {
	first := llmtest.LoadFile(t, "fantasy/providertests_testdata_TestGoogleCommon_gemini-3-pro-preview_multi_tool.yaml__0.json")
	second := llmtest.LoadFile(t, "fantasy/providertests_testdata_TestGoogleCommon_gemini-3-pro-preview_multi_tool.yaml__1.json")
	srv := llmtest.Serve(t, first)
	c := New(llm.Options{BaseURL: srv.URL})
	resp, err := c.Generate(context.Background(), &llm.Request{Model: "gemini-3-pro-preview", Messages: []llm.Message{llm.UserText("Add and multiply the number 2 and 3")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls()
	if len(calls) != 2 || calls[0].Signature == "" || calls[1].Signature != "" {
		t.Fatalf("calls %+v", calls)
	}
	next, err := buildRequest(&llm.Request{Model: "gemini-3-pro-preview", Messages: []llm.Message{
		llm.UserText("Add and multiply the number 2 and 3"),
		resp.Message,
		llm.ToolResults(llm.ToolResult{CallID: calls[0].ID, Name: "add", Content: "5"}, llm.ToolResult{CallID: calls[1].ID, Name: "multiply", Content: "6"}),
	}}, false)
	if err != nil {
		t.Fatal(err)
	}
	var recorded struct {
		Contents []map[string]any `json:"contents"`
	}
	if err := json.Unmarshal(second.Request, &recorded); err != nil {
		t.Fatal(err)
	}
	llmtest.AssertJSONEqual(t, next.Contents[1], llmtest.JSONOf(t, recorded.Contents[1]))
	for i, p := range next.Contents[2].Parts {
		want := recorded.Contents[2]["parts"].([]any)[i].(map[string]any)["functionResponse"].(map[string]any)
		if p.FunctionResponse.ID != want["id"] || p.FunctionResponse.Name != want["name"] {
			t.Errorf("functionResponse %d: %+v, recorded %v", i, p.FunctionResponse, want)
		}
	}
}

// TestTextSignatureKeptOnItsPart checks that a signature arriving on an
// empty text part at the end of a stream stays with the text part it ends,
// and that one on a non-streamed text part stays on that part.
func TestTextSignatureKeptOnItsPart(t *testing.T) {
	stream := "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"thinking\",\"thought\":true}]}}]}\n\n" +
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hel\"}]}}]}\n\n" +
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"lo\"}]}}]}\n\n" +
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\",\"thoughtSignature\":\"S1\"}]},\"finishReason\":\"STOP\"}]}\n\n"
	cs := llmtest.ServeBody(t, 200, "text/event-stream", stream)
	resp, err := New(llm.Options{BaseURL: cs.URL}).Generate(context.Background(),
		&llm.Request{Model: "gemini-3-pro-preview", Stream: true, Messages: []llm.Message{llm.UserText("hi")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	llmtest.AssertJSONEqual(t, resp.Message.Parts, `[
	  {"type":"reasoning","text":"thinking"},
	  {"type":"text","text":"Hello","signature":"S1"}]`)

	cs2 := llmtest.ServeBody(t, 200, "application/json",
		`{"candidates":[{"content":{"parts":[{"text":"A","thoughtSignature":"S2"},{"text":"B"},{"functionCall":{"name":"f","args":{"x":1}},"thoughtSignature":"S3"},{"text":"","thoughtSignature":"S4"}]},"finishReason":"STOP"}]}`)
	resp, err = New(llm.Options{BaseURL: cs2.URL}).Generate(context.Background(),
		&llm.Request{Model: "gemini-3-pro-preview", Messages: []llm.Message{llm.UserText("hi")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	parts := resp.Message.Parts
	if len(parts) != 4 || parts[0].Signature != "S2" || parts[1].Text != "B" || parts[1].Signature != "" ||
		parts[2].ToolCall.Signature != "S3" || parts[3].Type != llm.PartText || parts[3].Signature != "S4" {
		t.Fatalf("parts %s", llmtest.JSONOf(t, parts))
	}
	if id := parts[2].ToolCall.ID; !isGeneratedID(id) {
		t.Errorf("generated id %q", id)
	}
}

func TestGeneratedIDsUniquePerClient(t *testing.T) {
	c := New(llm.Options{})
	seen := map[string]bool{}
	for i := 0; i < 100; i++ {
		id := c.nextID()
		if seen[id] || !isGeneratedID(id) {
			t.Fatalf("id %q repeated or malformed", id)
		}
		seen[id] = true
	}
	for id, want := range map[string]bool{"call_1": true, "call_": false, "call_1a": false, "toolu_1": false, "wxvlv0tv": false} {
		if isGeneratedID(id) != want {
			t.Errorf("isGeneratedID(%q) != %v", id, want)
		}
	}
}
