package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Turn is one scripted model response: optional reasoning and text, then
// tool calls. CutAfterText makes a streamed response stop (connection
// closed) right after the text; Hang keeps the connection open after the
// text until the client goes away; Status, when not 0 or 200, answers with
// that HTTP status and ErrorBody instead. InputTokens and OutputTokens are
// reported as usage (defaults 100 and 10). Hold, when not nil, delays the
// whole answer until it is closed (or the client goes away): a model that
// reads a long prompt before its first byte.
type Turn struct {
	Hold         <-chan struct{}
	Text         string
	Reasoning    string
	Calls        []Call
	CutAfterText bool
	Hang         bool
	Status       int
	ErrorBody    string
	InputTokens  int
	OutputTokens int
	// Finish, when set, is the finish reason the turn reports (OpenAI's
	// finish_reason, Anthropic's stop_reason) instead of the usual one.
	Finish string
}

// Call is a scripted tool call.
type Call struct {
	Name string
	Args string // a JSON object
}

// Script is a scripted model server speaking the OpenAI Chat Completions
// (`/chat/completions`) and Anthropic Messages (`/messages`) wire formats,
// streamed or not as each request asks. Requests beyond the script get a
// plain "done" text answer.
type Script struct {
	*httptest.Server
	mu       sync.Mutex
	turns    []Turn
	next     int
	requests []json.RawMessage
	// Started is signalled (non-blocking) when a Hang turn has sent its text.
	Started chan struct{}
	// Route, when set, answers instead of the script's turns in order: it
	// gets each request's body and the number of requests so far
	// (this one included), and its turn is the answer. It runs under the
	// script's lock (it must not block; a Turn's Hold may). Set it before
	// the first request.
	Route func(body []byte, n int) Turn
	// respond, when set, answers each request from its body instead of
	// the turns in order (NewResponder).
	respond func(body []byte) Turn
}

// NewResponder starts a scripted model server that answers each request
// with the Turn respond returns for the request's body: for concurrent
// clients (Ralph workers), whose request order is not fixed. respond is
// called from the server's goroutines, concurrently.
func NewResponder(t testing.TB, respond func(body []byte) Turn) *Script {
	s := NewScript(t)
	s.respond = respond
	return s
}

// NewScript starts a scripted model server, closed when the test ends.
func NewScript(t testing.TB, turns ...Turn) *Script {
	s := &Script{turns: turns, Started: make(chan struct{}, 8)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the request bodies received so far.
func (s *Script) Requests() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.requests...)
}

func (s *Script) serve(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Stream bool `json:"stream"`
	}
	raw := make([]byte, 0, 4096)
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Body.Read(buf)
		raw = append(raw, buf[:n]...)
		if err != nil {
			break
		}
	}
	_ = json.Unmarshal(raw, &body)
	s.mu.Lock()
	s.requests = append(s.requests, raw)
	turn := Turn{Text: "done"}
	if s.next < len(s.turns) {
		turn = s.turns[s.next]
	}
	s.next++
	n := s.next
	if s.Route != nil {
		turn = s.Route(raw, n)
	}
	respond := s.respond
	s.mu.Unlock()
	if respond != nil {
		turn = respond(raw)
	}
	if turn.InputTokens == 0 {
		turn.InputTokens = 100
	}
	if turn.OutputTokens == 0 {
		turn.OutputTokens = 10
	}
	if turn.Hold != nil {
		select {
		case <-turn.Hold:
		case <-r.Context().Done():
			return
		}
	}
	if turn.Status != 0 && turn.Status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(turn.Status)
		_, _ = w.Write([]byte(turn.ErrorBody))
		return
	}
	anthropic := strings.HasSuffix(r.URL.Path, "/messages")
	switch {
	case anthropic && body.Stream:
		s.anthropicStream(w, r, turn, n)
	case anthropic:
		writeJSON(w, anthropicMessage(turn, n))
	case body.Stream:
		s.openaiStream(w, r, turn, n)
	default:
		writeJSON(w, openaiCompletion(turn, n))
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func sse(w http.ResponseWriter, event string, v any) {
	data, _ := json.Marshal(v)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", data)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// afterText handles CutAfterText and Hang; it reports whether to stop.
func (s *Script) afterText(r *http.Request, turn Turn) bool {
	if turn.Hang {
		select {
		case s.Started <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
		return true
	}
	return turn.CutAfterText
}

func (s *Script) openaiStream(w http.ResponseWriter, r *http.Request, t Turn, n int) {
	w.Header().Set("Content-Type", "text/event-stream")
	id := fmt.Sprintf("chatcmpl-%d", n)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "model": "scripted",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	if t.Reasoning != "" {
		sse(w, "", chunk(map[string]any{"role": "assistant", "reasoning_content": t.Reasoning}, nil))
	}
	for _, piece := range splitText(t.Text) {
		sse(w, "", chunk(map[string]any{"content": piece}, nil))
	}
	if s.afterText(r, t) {
		return
	}
	for i, c := range t.Calls {
		sse(w, "", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": fmt.Sprintf("call_%d_%d", n, i),
			"type": "function", "function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil))
		sse(w, "", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": c.Args}}}}, nil))
	}
	sse(w, "", chunk(map[string]any{}, finishOpenAI(t)))
	sse(w, "", map[string]any{"id": id, "object": "chat.completion.chunk", "choices": []any{},
		"usage": map[string]any{"prompt_tokens": t.InputTokens, "completion_tokens": t.OutputTokens, "total_tokens": t.InputTokens + t.OutputTokens}})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func finishOpenAI(t Turn) string {
	if t.Finish != "" {
		return t.Finish
	}
	if len(t.Calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func openaiCompletion(t Turn, n int) map[string]any {
	msg := map[string]any{"role": "assistant", "content": t.Text}
	if t.Reasoning != "" {
		msg["reasoning_content"] = t.Reasoning
	}
	var calls []any
	for i, c := range t.Calls {
		calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d_%d", n, i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": c.Args}})
	}
	if calls != nil {
		msg["tool_calls"] = calls
	}
	return map[string]any{"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "model": "scripted",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finishOpenAI(t)}},
		"usage":   map[string]any{"prompt_tokens": t.InputTokens, "completion_tokens": t.OutputTokens, "total_tokens": t.InputTokens + t.OutputTokens}}
}

func (s *Script) anthropicStream(w http.ResponseWriter, r *http.Request, t Turn, n int) {
	w.Header().Set("Content-Type", "text/event-stream")
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": fmt.Sprintf("msg_%d", n), "type": "message",
		"role": "assistant", "model": "scripted", "content": []any{}, "usage": map[string]any{"input_tokens": t.InputTokens, "output_tokens": 1}}})
	idx := 0
	if t.Text != "" {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{"type": "text", "text": ""}})
		for _, piece := range splitText(t.Text) {
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "text_delta", "text": piece}})
		}
		if s.afterText(r, t) {
			return
		}
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	for i, c := range t.Calls {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{"type": "tool_use",
			"id": fmt.Sprintf("toolu_%d_%d", n, i), "name": c.Name, "input": map[string]any{}}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "input_json_delta", "partial_json": c.Args}})
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": finishAnthropic(t)}, "usage": map[string]any{"output_tokens": t.OutputTokens}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

func finishAnthropic(t Turn) string {
	if t.Finish != "" {
		return t.Finish
	}
	if len(t.Calls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func anthropicMessage(t Turn, n int) map[string]any {
	var content []any
	if t.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": t.Text})
	}
	for i, c := range t.Calls {
		var input any
		_ = json.Unmarshal([]byte(c.Args), &input)
		content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d_%d", n, i), "name": c.Name, "input": input})
	}
	return map[string]any{"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": "scripted",
		"content": content, "stop_reason": finishAnthropic(t), "usage": map[string]any{"input_tokens": t.InputTokens, "output_tokens": t.OutputTokens}}
}

// splitText cuts s into a few streamed pieces.
func splitText(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	runes := []rune(s)
	for len(runes) > 12 {
		out = append(out, string(runes[:12]))
		runes = runes[12:]
	}
	return append(out, string(runes))
}
