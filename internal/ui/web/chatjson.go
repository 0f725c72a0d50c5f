package web

import (
	"bufio"
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// ChatResult is POST /api/v1/chat's answer when the client asks for JSON
// instead of a stream (Accept: application/json without
// text/event-stream, or "stream": false in the body, as iptic-memex's
// /api/chat): the whole turn at once, when it is done.
//
// Result is the final answer; Command the output of a built-in slash
// command the message was; Errors the error events' messages.
type ChatResult struct {
	SessionID  string           `json:"session_id"`
	Result     string           `json:"result"`
	StopReason agent.StopReason `json:"stop_reason"`
	Turns      int              `json:"turns"`
	Usage      llm.Usage        `json:"usage"`
	CostUSD    float64          `json:"cost_usd"`
	Command    json.RawMessage  `json:"command,omitempty"`
	Errors     []string         `json:"errors,omitempty"`
}

// wantsJSON reports whether a chat request asks for one JSON answer: its
// body says "stream": false, or it accepts application/json and not
// text/event-stream.
func wantsJSON(r *http.Request, stream *bool) bool {
	if stream != nil {
		return !*stream
	}
	sse, js := false, false
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		sse = sse || mt == "text/event-stream"
		js = js || mt == "application/json"
	}
	return js && !sse
}

// bufferWriter is a ResponseWriter that keeps the response: the chat's
// SSE stream, read back into a ChatResult.
type bufferWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferWriter) Header() http.Header { return b.header }
func (b *bufferWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}
func (b *bufferWriter) Write(p []byte) (int, error) {
	b.WriteHeader(http.StatusOK)
	return b.body.Write(p)
}
func (b *bufferWriter) Flush() {}

// chatJSON runs the chat turn req as chat does and answers with its
// ChatResult; a refused request (4xx, 5xx) answers as chat would.
func (s *Server) chatJSON(w http.ResponseWriter, r *http.Request, req ChatRequest) {
	buf := &bufferWriter{header: http.Header{}}
	s.chat(buf, r, req)
	if buf.status != http.StatusOK || !strings.HasPrefix(buf.header.Get("Content-Type"), "text/event-stream") {
		for k, v := range buf.header {
			w.Header()[k] = v
		}
		w.WriteHeader(buf.status)
		_, _ = w.Write(buf.body.Bytes())
		return
	}
	writeJSON(w, http.StatusOK, resultOfStream(buf.body.Bytes()))
}

// resultOfStream reads a chat's SSE stream ("event: NAME\ndata: JSON"
// frames) into a ChatResult.
func resultOfStream(stream []byte) ChatResult {
	var res ChatResult
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(make([]byte, 0, 64<<10), len(stream)+1)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		if n, ok := strings.CutPrefix(line, "event: "); ok {
			name = n
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		if name == "command" {
			res.Command = json.RawMessage(data)
			continue
		}
		var e agent.Event
		if json.Unmarshal([]byte(data), &e) != nil {
			continue
		}
		if e.SessionID != "" {
			res.SessionID = e.SessionID
		}
		switch {
		case e.Type == agent.EventError && e.Error != nil:
			res.Errors = append(res.Errors, e.Error.Message)
		case e.Type == agent.EventDone && e.Done != nil:
			res.Result, res.StopReason, res.Turns = e.Done.Result, e.Done.StopReason, e.Done.Turns
			res.Usage, res.CostUSD = e.Done.Usage, e.Done.CostUSD
		}
	}
	return res
}
