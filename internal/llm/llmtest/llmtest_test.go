package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

func TestExpectDecoding(t *testing.T) {
	var e Expect
	in := `{"finish_reason": 1, "errors": ["plain", {"code": 402, "message": "credits"}]}`
	if err := json.Unmarshal([]byte(in), &e); err != nil {
		t.Fatal(err)
	}
	if e.FinishReason != "1" {
		t.Errorf("finish reason %q, want the number's text", e.FinishReason)
	}
	if len(e.Errors) != 2 || e.Errors[0] != "plain" || !strings.Contains(string(e.Errors[1]), `"credits"`) {
		t.Errorf("errors %q", e.Errors)
	}
}

func TestServeReplies(t *testing.T) {
	s := ServeReplies(t, Reply{Status: 503, Body: "a"}, Reply{Header: map[string]string{"Content-Type": "text/plain"}, Body: "b"})
	var got []string
	for range 3 {
		resp, err := http.Post(s.URL+"/p?q=1", "application/json", strings.NewReader(`{"n":1}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got = append(got, fmt.Sprint(resp.StatusCode, string(b)))
	}
	if strings.Join(got, ",") != "503a,200b,200b" {
		t.Errorf("answers %v, want the replies in order, the last repeated", got)
	}
	r := s.Requests()
	if s.Calls() != 3 || r[0].Method != "POST" || r[0].Path != "/p" || r[0].Query != "q=1" || s.LastBody(t)["n"] != 1.0 {
		t.Errorf("recorded %+v", r)
	}
}

// recorder is a testing.TB that keeps the errors reported to it.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.errs = append(r.errs, fmt.Sprintf(f, a...)) }

func TestCheckEventsFindsDifferences(t *testing.T) {
	call := llm.ToolCall{ID: "c1", Name: "f", Arguments: json.RawMessage(`{}`)}
	resp := &llm.Response{FinishReason: "stop", Message: llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{
		{Type: llm.PartText, Text: "hi"}, {Type: llm.PartToolCall, ToolCall: &call}}}}
	good := []llm.Event{{Type: llm.EventText, Text: "h"}, {Type: llm.EventText, Text: "i"},
		{Type: llm.EventToolCall, ToolCall: &call}, {Type: llm.EventFinish, FinishReason: "stop"}}
	r := &recorder{TB: t}
	CheckEvents(r, good, resp)
	if len(r.errs) != 0 {
		t.Fatalf("matching events reported: %v", r.errs)
	}
	noID := llm.ToolCall{Name: "f", Arguments: json.RawMessage(`{}`)}
	for name, events := range map[string][]llm.Event{
		"text":        good[1:],
		"tool calls":  append([]llm.Event{good[0], good[1]}, good[3]),
		"finish":      good[:3],
		"call id":     {good[0], good[1], {Type: llm.EventToolCall, ToolCall: &noID}, good[3]},
		"extra event": append(append([]llm.Event{}, good...), llm.Event{Type: llm.EventReasoning, Text: "x"}),
	} {
		r := &recorder{TB: t}
		CheckEvents(r, events, resp)
		if len(r.errs) == 0 {
			t.Errorf("%s: difference not reported", name)
		}
	}
}
