package responses

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// FuzzReadStream feeds arbitrary event streams to the reader: it must never
// panic, must fail with an *llm.APIError or succeed, and a success must mean
// the response ended and every tool call has valid JSON arguments.
func FuzzReadStream(f *testing.F) {
	for _, seed := range []string{
		evCreated + evText + evCallAdded + evArgs + evArgs2 + evCallDone + evCompleted,
		evCreated + evText,
		sseEvent("response.failed", `{"type":"response.failed","response":{"error":{"code":"server_error","message":"x"}}}`),
		sseEvent("error", `{"type":"error","code":"rate_limit_exceeded","message":"slow"}`),
		sseEvent("response.output_item.done", `{"type":"response.output_item.done","item":{"type":"reasoning","id":"rs","encrypted_content":"e","summary":[{"type":"summary_text","text":"s"}]}}`) + evCompleted,
		sseEvent("response.output_item.done", `{"type":"response.output_item.done","item":{"type":"custom_tool_call","call_id":"c","name":"n","input":"{\"x\""}}`) + evCompleted,
		"data: [DONE]\n\n",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		st := newState(llm.NewAccumulator(nil), "openai")
		err := st.readStream(strings.NewReader(body))
		if err != nil {
			var ae *llm.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v (%T) is not an *llm.APIError", err, err)
			}
			return
		}
		if !st.done || st.finish == "" {
			t.Fatal("success without a final event")
		}
		for _, c := range st.acc.Response().Message.ToolCalls() {
			if !json.Valid(c.Arguments) {
				t.Fatalf("call arguments %q are not JSON", c.Arguments)
			}
		}
	})
}
