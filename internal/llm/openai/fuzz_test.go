package openai

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// FuzzStream feeds arbitrary bodies to the decoder: it must never panic,
// must fail only with an *llm.APIError, and its events must add up to the
// response.
func FuzzStream(f *testing.F) {
	f.Add([]byte(sseBody(textChunk, finishChunk, "[DONE]")))
	f.Add([]byte(sseBody(
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\":"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"1}"}},{"index":3,"id":"b","function":{"name":"g","arguments":{"y":2}}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"reasoning":"r","reasoning_details":[{"type":"reasoning.encrypted","data":"D"}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1.5}}`)))
	f.Add([]byte(`{"choices":[{"index":0,"message":{"content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"x"}]},"finish_reason":"stop"}]}`))
	f.Add([]byte(sseBody(`{"error":{"code":"429","message":"x"}}`)))
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"<think>a</th"))
	f.Fuzz(func(t *testing.T, body []byte) {
		var text strings.Builder
		acc := llm.NewAccumulator(func(e llm.Event) {
			if e.Type == llm.EventText {
				text.WriteString(e.Text)
			}
		})
		err := newDecoder(acc, "fuzz", true).read(bytes.NewReader(body))
		var ae *llm.APIError
		if err != nil && !errors.As(err, &ae) {
			t.Fatalf("error %v is not an APIError", err)
		}
		resp := acc.Response()
		if resp.Message.Text() != text.String() {
			t.Fatalf("events %q, response %q", text.String(), resp.Message.Text())
		}
	})
}

// FuzzThinkSplitter checks that splitting does not depend on how the
// content is cut into deltas, and that text without tags passes unchanged.
func FuzzThinkSplitter(f *testing.F) {
	f.Add("<think>plan</think>answer", 3)
	f.Add("a <b> <thin", 8)
	f.Add("</think><think><think>", 9)
	f.Fuzz(func(t *testing.T, s string, cut int) {
		split := func(parts ...string) (string, string) {
			var sp thinkSplitter
			var text, reason strings.Builder
			for _, p := range parts {
				sp.write(p, func(x string) { text.WriteString(x) }, func(x string) { reason.WriteString(x) })
			}
			sp.flush(func(x string) { text.WriteString(x) }, func(x string) { reason.WriteString(x) })
			return text.String(), reason.String()
		}
		if cut < 0 {
			cut = -cut
		}
		cut %= len(s) + 1
		t1, r1 := split(s)
		t2, r2 := split(s[:cut], s[cut:])
		if t1 != t2 || r1 != r2 {
			t.Fatalf("cut at %d: (%q,%q) vs whole (%q,%q)", cut, t2, r2, t1, r1)
		}
		if !strings.Contains(s, thinkOpen) && (t1 != s || r1 != "") {
			t.Fatalf("text without tags changed: %q -> %q / %q", s, t1, r1)
		}
	})
}
