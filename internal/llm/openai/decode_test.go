package openai

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

type call struct{ id, name, args string }

func callsOf(resp *llm.Response) []call {
	var out []call
	for _, c := range resp.Message.ToolCalls() {
		var v any
		_ = json.Unmarshal(c.Arguments, &v)
		norm, _ := json.Marshal(v)
		out = append(out, call{c.ID, c.Name, string(norm)})
	}
	return out
}

// streamOf replays chunk payloads as a stream and returns the response.
func streamOf(t *testing.T, mod func(*Options), chunks ...string) (*llm.Response, error, []llm.Event) {
	t.Helper()
	srv, _ := serve(t, 200, sseBody(chunks...))
	return run(t, clientFor(srv, "https://api.example.test/v1", mod), nil)
}

func TestToolCallAssembly(t *testing.T) {
	cases := []struct {
		name   string
		chunks []string
		want   []call
	}{
		{"parallel by index", []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":""}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"x\":"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"g","arguments":"{}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, "[DONE]"},
			[]call{{"a", "f", `{"x":1}`}, {"b", "g", `{}`}}},
		{"whole call in one chunk", []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\":1}"}},{"index":1,"id":"b","function":{"name":"g","arguments":"{\"y\":2}"}}]},"finish_reason":"tool_calls"}]}`},
			[]call{{"a", "f", `{"x":1}`}, {"b", "g", `{"y":2}`}}},
		{"id repeated on every delta", []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\""}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"arguments":":1}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`},
			[]call{{"a", "f", `{"x":1}`}}},
		{"index missing, matched by id", []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{\"x\":"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"b","function":{"name":"g","arguments":"{}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","function":{"arguments":"1}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`},
			[]call{{"a", "f", `{"x":1}`}, {"b", "g", `{}`}}},
		{"index missing, no id: continues the last call", []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"name":"f","arguments":"{\"x\":"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"1}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`},
			[]call{{"call_0", "f", `{"x":1}`}}},
		{"every call at index 0 with its own id", []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\":1}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"g","arguments":"{\"y\":2}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`},
			[]call{{"a", "f", `{"x":1}`}, {"b", "g", `{"y":2}`}}},
		{"every call at index 0 without ids", []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"{\"x\":1}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"g","arguments":"{\"y\":2}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`},
			[]call{{"call_0", "f", `{"x":1}`}, {"call_1", "g", `{"y":2}`}}},
		{"arguments as an object", []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":{"x":1}}}]},"finish_reason":"tool_calls"}]}`},
			[]call{{"a", "f", `{"x":1}`}}},
		{"complete arguments repeated in the last chunk", []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\":1}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"x\":1}"}}]},"finish_reason":"tool_calls"}]}`},
			[]call{{"a", "f", `{"x":1}`}}},
		{"legacy function_call", []string{
			`{"choices":[{"index":0,"delta":{"function_call":{"name":"f","arguments":"{\"x\""}}}]}`,
			`{"choices":[{"index":0,"delta":{"function_call":{"arguments":":1}"}}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"function_call"}]}`},
			[]call{{"call_0", "f", `{"x":1}`}}},
		{"no arguments", []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"now","arguments":""}}]},"finish_reason":"tool_calls"}]}`},
			[]call{{"a", "now", `{}`}}},
		{"calls reported only from choice 0", []string{
			`{"choices":[{"index":1,"delta":{"tool_calls":[{"index":0,"id":"z","function":{"name":"other","arguments":"{}"}}]}},{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`},
			[]call{{"a", "f", `{}`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err, _ := streamOf(t, nil, c.chunks...)
			if err != nil {
				t.Fatal(err)
			}
			if got := callsOf(resp); !reflect.DeepEqual(got, c.want) {
				t.Errorf("calls %v, want %v", got, c.want)
			}
		})
	}
}

func TestToolCallBadArguments(t *testing.T) {
	resp, err, _ := streamOf(t, nil,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\":"}}]},"finish_reason":"tool_calls"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls()
	if len(calls) != 1 || calls[0].ArgsError == "" {
		t.Fatalf("calls %+v: want one call with ArgsError", calls)
	}
}

func TestGeminiThoughtSignature(t *testing.T) {
	resp, err, _ := streamOf(t, nil,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"},"extra_content":{"google":{"thought_signature":"S1"}}},{"index":1,"id":"b","function":{"name":"g","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls()
	if len(calls) != 2 || calls[0].Signature != "S1" || calls[1].Signature != "" {
		t.Errorf("signatures %+v", calls)
	}
}

func TestReasoningSources(t *testing.T) {
	cases := []struct {
		name   string
		delta  string
		reason string
	}{
		{"reasoning_content", `{"reasoning_content":"a"}`, "a"},
		{"reasoning", `{"reasoning":"b"}`, "b"},
		{"reasoning_content wins over reasoning", `{"reasoning_content":"a","reasoning":"a"}`, "a"},
		{"details win over their copy", `{"reasoning":"c","reasoning_details":[{"type":"reasoning.text","text":"c"}]}`, "c"},
		{"summary details", `{"reasoning_details":[{"type":"reasoning.summary","summary":"d"}]}`, "d"},
		{"mistral thinking part", `{"content":[{"type":"thinking","thinking":[{"type":"text","text":"e"}]},{"type":"text","text":"T"}]}`, "e"},
		{"null fields", `{"reasoning":null,"reasoning_content":null,"content":null,"refusal":null}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err, _ := streamOf(t, nil, `{"choices":[{"index":0,"delta":`+c.delta+`,"finish_reason":"stop"}]}`)
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Message.Reasoning(); got != c.reason {
				t.Errorf("reasoning %q, want %q", got, c.reason)
			}
		})
	}
}

func TestEncryptedReasoningKept(t *testing.T) {
	resp, err, _ := streamOf(t, nil,
		`{"choices":[{"index":0,"delta":{"reasoning":"sum","reasoning_details":[{"type":"reasoning.summary","summary":"sum","id":"rs_1","format":"openai-responses-v1"}]}}]}`,
		`{"choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.encrypted","data":"ENC","id":"rs_1","format":"openai-responses-v1"}]}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	p := resp.Message.Parts[0]
	if p.Type != llm.PartReasoning || p.Text != "sum" || p.Signature != "ENC" || !p.Redacted || p.ID != "openai-responses-v1|rs_1" {
		t.Errorf("reasoning part %+v", p)
	}
}

func TestUsage(t *testing.T) {
	cases := []struct {
		name, usage string
		want        llm.Usage
	}{
		{"openai", `"usage":{"prompt_tokens":10,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":4},"completion_tokens_details":{"reasoning_tokens":3}}`,
			llm.Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 4, ReasoningTokens: 3}},
		{"predicted output", `"usage":{"prompt_tokens":10,"completion_tokens":9,"completion_tokens_details":{"accepted_prediction_tokens":6,"rejected_prediction_tokens":2}}`,
			llm.Usage{InputTokens: 10, OutputTokens: 9, AcceptedPredictionTokens: 6, RejectedPredictionTokens: 2}},
		{"deepseek", `"usage":{"prompt_tokens":10,"completion_tokens":5,"prompt_cache_hit_tokens":7,"prompt_cache_miss_tokens":3}`,
			llm.Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 7}},
		{"openrouter cache write", `"usage":{"prompt_tokens":10,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":6}}`,
			llm.Usage{InputTokens: 10, OutputTokens: 5, CacheWriteTokens: 6}},
		{"gateway cache creation", `"usage":{"prompt_tokens":10,"completion_tokens":5,"cache_creation_input_tokens":8}`,
			llm.Usage{InputTokens: 10, OutputTokens: 5, CacheWriteTokens: 8}},
		{"groq x_groq", `"x_groq":{"usage":{"prompt_tokens":2,"completion_tokens":1}}`,
			llm.Usage{InputTokens: 2, OutputTokens: 1}},
		{"floats and nulls", `"usage":{"prompt_tokens":12.0,"completion_tokens":"3","prompt_tokens_details":null,"completion_tokens_details":{"reasoning_tokens":null}}`,
			llm.Usage{InputTokens: 12, OutputTokens: 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err, events := streamOf(t, nil,
				`{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}`,
				`{"choices":[],`+c.usage+`}`, "[DONE]")
			if err != nil {
				t.Fatal(err)
			}
			if resp.Usage != c.want {
				t.Errorf("usage %+v, want %+v", resp.Usage, c.want)
			}
			last := events[len(events)-1]
			if last.Type != llm.EventUsage || *last.Usage != c.want {
				t.Errorf("last event %+v, want the usage", last)
			}
		})
	}
}

// TestMetaAndRaw: the response's id and model, and the raw chunks only
// when the request asks for them (--raw); otherwise none is kept.
func TestMetaAndRaw(t *testing.T) {
	srv, _ := serve(t, 200, sseBody(
		`{"id":"chatcmpl-1","model":"gpt-x","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}`, "[DONE]"))
	req := &llm.Request{Model: "m", Stream: true, Messages: []llm.Message{llm.UserText("hi")}, KeepRaw: true}
	resp, err, _ := run(t, clientFor(srv, "https://api.example.test/v1", nil), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ID != "chatcmpl-1" || resp.Model != "gpt-x" || !json.Valid(resp.Raw) {
		t.Errorf("id %q model %q raw %s", resp.ID, resp.Model, resp.Raw)
	}
	req.KeepRaw = false
	if resp, _, _ = run(t, clientFor(srv, "https://api.example.test/v1", nil), req); len(resp.Raw) != 0 || resp.Message.Text() != "x" {
		t.Errorf("without KeepRaw: raw %s, text %q", resp.Raw, resp.Message.Text())
	}
}

func TestRepeatedFinishReportedOnce(t *testing.T) {
	_, err, events := streamOf(t, nil, textChunk, finishChunk, finishChunk, "[DONE]")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range events {
		if e.Type == llm.EventFinish {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d finish events, want 1", n)
	}
}

func TestRefusalIsText(t *testing.T) {
	resp, err, _ := streamOf(t, nil, `{"choices":[{"index":0,"delta":{"content":null,"refusal":"I can't"},"finish_reason":"stop"}]}`)
	if err != nil || resp.Message.Text() != "I can't" {
		t.Fatalf("text %q err %v", resp.Message.Text(), err)
	}
}

func TestJSONBodyForStreamedRequest(t *testing.T) {
	srv, _ := serve(t, 200, "\n "+`{"id":"x","choices":[{"index":0,"message":{"content":"whole"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2}}`)
	resp, err, _ := run(t, clientFor(srv, "https://api.example.test/v1", nil), nil)
	if err != nil || resp.Message.Text() != "whole" || resp.FinishReason != "stop" || resp.Usage.OutputTokens != 2 {
		t.Fatalf("resp %+v err %v", resp, err)
	}
}

func TestThinkTags(t *testing.T) {
	chunks := []string{
		`{"choices":[{"index":0,"delta":{"content":"<thi"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"nk>plan "}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"more</th"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"ink>\n\nanswer <b"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":">"},"finish_reason":"stop"}]}`,
	}
	t.Run("off by default", func(t *testing.T) {
		resp, err, _ := streamOf(t, nil, chunks...)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Message.Text() != "<think>plan more</think>\n\nanswer <b>" || resp.Message.Reasoning() != "" {
			t.Errorf("text %q reasoning %q", resp.Message.Text(), resp.Message.Reasoning())
		}
	})
	t.Run("on", func(t *testing.T) {
		resp, err, _ := streamOf(t, func(o *Options) { o.SplitThinkTags = true }, chunks...)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Message.Text() != "\n\nanswer <b>" || resp.Message.Reasoning() != "plan more" {
			t.Errorf("text %q reasoning %q", resp.Message.Text(), resp.Message.Reasoning())
		}
	})
	t.Run("held-back partial tag flushed at the end", func(t *testing.T) {
		resp, err, _ := streamOf(t, func(o *Options) { o.SplitThinkTags = true },
			`{"choices":[{"index":0,"delta":{"content":"a <thin"},"finish_reason":"stop"}]}`)
		if err != nil || resp.Message.Text() != "a <thin" {
			t.Errorf("text %q err %v", resp.Message.Text(), err)
		}
	})
}

func TestThinkSplitter(t *testing.T) {
	cases := []struct {
		in              []string
		text, reasoning string
	}{
		{[]string{"plain"}, "plain", ""},
		{[]string{"<think>r</think>t"}, "t", "r"},
		{[]string{"<", "t", "h", "i", "n", "k", ">", "r", "<", "/", "think>", "t"}, "t", "r"},
		{[]string{"x<think>unclosed"}, "x", "unclosed"},
		{[]string{"a < b <thinking"}, "a < b <thinking", ""},
	}
	for _, c := range cases {
		var s thinkSplitter
		var text, reason string
		tf := func(x string) { text += x }
		rf := func(x string) { reason += x }
		for _, in := range c.in {
			s.write(in, tf, rf)
		}
		s.flush(tf, rf)
		if text != c.text || reason != c.reasoning {
			t.Errorf("%q: text %q reasoning %q, want %q %q", c.in, text, reason, c.text, c.reasoning)
		}
	}
}
