package openai

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// benchStream is a typical streamed answer: 1000 text deltas, then one
// tool call whose arguments arrive in 500 deltas, then usage.
func benchStream() []byte {
	var chunks []string
	for i := range 1000 {
		chunks = append(chunks, `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-x","choices":[{"index":0,"delta":{"content":"word`+strconv.Itoa(i)+` "},"finish_reason":null}]}`)
	}
	chunks = append(chunks, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"write","arguments":"{\"text\":\""}}]}}]}`)
	for range 500 {
		chunks = append(chunks, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"abcdefgh"}}]}}]}`)
	}
	chunks = append(chunks, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"}"}}]},"finish_reason":"tool_calls"}]}`,
		`{"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":1500,"prompt_tokens_details":{"cached_tokens":50}}}`, "[DONE]")
	return []byte(sseBody(chunks...))
}

// BenchmarkDecodeStream measures decoding one 1500-chunk stream (no HTTP).
func BenchmarkDecodeStream(b *testing.B) {
	body := benchStream()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		acc := llm.NewAccumulator(nil)
		if err := newDecoder(acc, "bench", false).read(bytes.NewReader(body)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerate measures a whole streamed Generate over a local test
// server, request encoding included.
func BenchmarkGenerate(b *testing.B) {
	body := benchStream()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	c := New(Options{Options: llm.Options{BaseURL: srv.URL}})
	req := &llm.Request{Model: "m", Stream: true, Messages: []llm.Message{llm.UserText(strings.Repeat("context ", 2000))}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Generate(context.Background(), req, nil); err != nil {
			b.Fatal(err)
		}
	}
}
